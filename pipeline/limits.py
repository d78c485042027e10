"""Bounded reading: no input file can exhaust the machine's memory or keep an ingest running for ever.

Three limits, each with a default no real record comes near and an ``ingest`` option that raises it
(docs/limits.md):

* decompressed bytes of one file: at most ``max_ratio`` times its size as stored when it is compressed (gzip
  expands at most about 1032 times; game records compress 5-20 times), and at most ``max_bytes`` in any case:
  ``file_too_large``;
* bytes of one line (a record is one line in every line-based format): ``line_too_long``. Without it one line
  of 200 MB is held whole (and copied by the parser), a gzip of NUL bytes with no line end is one endless line;
* nesting depth of a JSON value: ``too_deep`` (:func:`json_shape`).

:class:`Bounded` wraps the stream a reader reads and raises :class:`LimitExceeded` the moment a limit is crossed,
before the bytes past it are held: the records read before are imported, the reject names the line, and the
memory used is that of the lines read, so time and memory stay proportional to the bytes read up to the limit.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass

MIB = 1 << 20
PARSER_DEPTH = 1024
"""orjson parses at most this many levels of nesting: a deeper record is ``too_deep`` whatever ``--max-depth``."""
CHUNK = 1 << 16
"""Bytes read from the underlying stream at a time."""


@dataclass(frozen=True)
class Limits:
    """The limits of one ingest run (every file); ``rebelote ingest --max-bytes / --max-ratio / --max-line-bytes /
    --max-depth`` set them."""

    max_bytes: int = 64 << 30        # 64 GiB decompressed per file
    max_ratio: int = 200             # decompressed / compressed size of a gzip file
    max_line_bytes: int = 64 * MIB   # one line (the largest real record is a few kB)
    max_depth: int = 64              # JSON nesting (real records: 5)

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_ratio", "max_line_bytes", "max_depth"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_depth > PARSER_DEPTH:
            raise ValueError(f"max_depth must be at most {PARSER_DEPTH} (the JSON parser's own limit), "
                             f"got {self.max_depth}")

    def allowed_bytes(self, stored: int, compressed: bool) -> int:
        """Decompressed bytes a file of ``stored`` bytes may give."""
        return min(self.max_bytes, self.max_ratio * max(stored, 1)) if compressed else self.max_bytes


DEFAULT = Limits()
_ACTIVE: list[Limits] = [DEFAULT]


def active() -> Limits:
    """The limits of the ingest running (:func:`applied`), else :data:`DEFAULT`: the readers' JSON depth check reads
    them without a parameter through every reader's ``read(lines, path)``."""
    return _ACTIVE[-1]


@contextlib.contextmanager
def applied(limits: Limits):
    """Make ``limits`` the :func:`active` ones for the duration of an ingest."""
    _ACTIVE.append(limits)
    try:
        yield limits
    finally:
        _ACTIVE.pop()


class LimitExceeded(Exception):
    """A limit crossed while reading a file: ``code`` (the reject's reason code), ``reason`` (what and which
    option raises the limit), ``line`` (1-based line where it happened) and ``offset`` (its byte offset)."""

    def __init__(self, code: str, reason: str, line: int | None = None, offset: int | None = None):
        super().__init__(reason)
        self.code, self.reason, self.line, self.offset = code, reason, line, offset


class Bounded(io.RawIOBase):
    """A read-only binary stream over ``inner`` (plain, decompressing or CR-translating) that raises
    :class:`LimitExceeded` once more than ``limits.allowed_bytes(stored, compressed)`` bytes are read, or once a
    line grows past ``limits.max_line_bytes``. ``readline`` and iteration never ask ``inner`` for more than the
    rest of the allowed line, so a line without end is never held whole.

    ``plain``: ``inner`` is the plain file itself; then ``fileno``, ``tell`` and ``name`` are the file's and
    ``stream_only`` is False, so the columnar native reader may ``pread`` the file (and hold it to the limits
    itself, :func:`pipeline.ingest.native_blocks.blocks`); otherwise ``stream_only`` is True: it reads this
    stream."""

    def __init__(self, inner, limits: Limits, stored: int, compressed: bool, plain=None):
        super().__init__()
        self._inner = inner
        self._plain = plain
        self.stream_only = plain is None
        if plain is not None:
            self.name = plain.name
        self.limits = limits
        self._allowed = limits.allowed_bytes(stored, compressed)
        self._stored, self._compressed = stored, compressed
        self._read = 0            # bytes given so far
        self._lines = 1           # the line being read (1-based)
        self._run = 0             # bytes of that line given so far
        self._line_start = 0      # its byte offset
        self._buf, self._pos = b"", 0   # bytes read past the last line given (readline), from _pos
        self._error: LimitExceeded | None = None   # the byte limit, crossed by the last read (raised at the next)
        self._failed: Exception | None = None      # what read_block raises at its next call

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        if self._plain is None:
            raise io.UnsupportedOperation("a bounded stream has no file descriptor")
        return self._plain.fileno()

    def tell(self) -> int:
        return self._plain.tell() if self._plain is not None else self._read

    def _count(self, data: bytes) -> None:
        """Account for ``data`` (just read): bytes, lines, the current line's length (without its line end);
        raise past a limit."""
        n = len(data)
        if self._read + n > self._allowed:
            self._too_large()
        max_line = self.limits.max_line_bytes
        first = data.find(b"\n")
        if first < 0:
            self._run += n
        elif n <= max_line:
            # only the line carried over from the last read can be too long: each line inside is shorter than data
            if self._run + first > max_line:
                self._line_too_long()
            last = data.rfind(b"\n")
            self._lines += data.count(b"\n")
            self._run, self._line_start = n - last - 1, self._read + last + 1
        else:
            pos = 0
            while (nl := data.find(b"\n", pos)) >= 0:
                if self._run + nl - pos > max_line:
                    self._line_too_long()
                self._lines += 1
                self._run, self._line_start, pos = 0, self._read + nl + 1, nl + 1
            self._run += n - pos
        self._read += n
        if self._run > max_line:
            self._line_too_long()

    def _too_large(self) -> None:
        lim = self.limits
        if self._compressed and self._allowed < lim.max_bytes:
            why = (f"it decompresses to more than {self._allowed:,} bytes, {lim.max_ratio} times its {self._stored:,} "
                   f"bytes as stored (a gzip bomb?; --max-ratio raises the limit)")
        else:
            why = f"it holds more than {self._allowed:,} bytes (--max-bytes raises the limit)"
        raise LimitExceeded("file_too_large", f"file too large: {why}; the records after line {self._lines - 1} "
                            "are not imported", self._lines, self._line_start)

    def _line_too_long(self) -> None:
        raise LimitExceeded("line_too_long", f"line {self._lines} is longer than {self.limits.max_line_bytes:,} bytes "
                            "(--max-line-bytes raises the limit); it and the lines after it are not imported",
                            self._lines, self._line_start)

    def _raw(self, size: int = CHUNK) -> bytes:
        """Up to ``size`` more bytes of ``inner``, accounted (:meth:`_count`): one read of the underlying stream
        (``read1``), so a damaged gzip fails after the same lines as its own ``readline`` would. Never more than
        ``max_line_bytes`` at a time, so a line found too long started after every line given before it ended;
        the read that crosses the byte limit gives its whole lines below the limit, the next one raises."""
        if self._error is not None:
            raise self._error
        want = max(min(size, CHUNK, self.limits.max_line_bytes, self._allowed - self._read + 1), 1)
        read1 = getattr(self._inner, "read1", None)
        data = read1(want) if read1 is not None else self._inner.read(want)
        if self._read + len(data) > self._allowed:
            data = data[:data.rfind(b"\n", 0, self._allowed - self._read) + 1]
            self._count(data)
            try:
                self._too_large()
            except LimitExceeded as e:
                self._error = e
            if not data:
                raise self._error
            return data
        self._count(data)
        return data

    def read_block(self, size: int) -> bytes:
        """Whole lines of about ``size`` bytes (the last line of the stream may have no end); b"" at the end. When
        reading fails (a damaged gzip, a limit) after some whole lines, those are given first and the next call
        raises: the columnar reader then imports what the row path would."""
        if self._failed is not None:
            e, self._failed = self._failed, None
            raise e
        parts: list[bytes] = []
        have = 0
        if self._pos < len(self._buf):
            parts.append(self._buf[self._pos:])
            have = len(parts[0])
        self._buf, self._pos = b"", 0
        ended = bool(parts) and b"\n" in parts[0]
        try:
            while have < size or not ended:
                data = self._raw(size - have if have < size else min(CHUNK, size))
                if not data:
                    return b"".join(parts)
                parts.append(data)
                have += len(data)
                ended = ended or b"\n" in data
        except Exception as e:
            whole = b"".join(parts)
            cut = whole.rfind(b"\n") + 1
            if not cut:
                raise
            self._failed = e
            return whole[:cut]
        whole = b"".join(parts)
        cut = whole.rfind(b"\n") + 1
        self._buf, self._pos = whole[cut:], 0
        return whole[:cut]

    def readinto(self, buf) -> int:
        data = self.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        parts, have = [], 0
        if self._pos < len(self._buf):
            parts.append(self._buf[self._pos:self._pos + size] if size >= 0 else self._buf[self._pos:])
            have = len(parts[0])
            self._pos += have
        while size < 0 or have < size:
            data = self._raw(CHUNK if size < 0 else size - have)
            if not data:
                break
            parts.append(data)
            have += len(data)
        return b"".join(parts)

    def readline(self, size: int = -1) -> bytes:
        """One line (with its line end), read by chunks: the bytes past it stay buffered for the next call. The
        line being read is held in parts (no quadratic copying) and :meth:`_count` stops it past the limit."""
        parts: list[bytes] = []
        if self._pos < len(self._buf):
            nl = self._buf.find(b"\n", self._pos)
            if nl >= 0:
                line, self._pos = self._buf[self._pos:nl + 1], nl + 1
                return self._cut(line, size)
            parts.append(self._buf[self._pos:])
        self._buf, self._pos = b"", 0
        while True:
            data = self._raw()
            if not data:
                return self._cut(b"".join(parts), size)
            nl = data.find(b"\n")
            if nl >= 0:
                parts.append(data[:nl + 1])
                self._buf, self._pos = data, nl + 1
                return self._cut(b"".join(parts), size)
            parts.append(data)

    def _cut(self, line: bytes, size: int | None) -> bytes:
        """``line``, or its first ``size`` bytes with the rest put back (``readline(size)``)."""
        if size is None or size < 0 or len(line) <= size:
            return line
        self._buf, self._pos = line[size:] + self._buf[self._pos:], 0
        return line[:size]

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


_KEY = re.compile(r'"\s*:')


def json_shape(text: str, value, max_depth: int) -> LimitExceeded | None:
    """A LimitExceeded (``code``, ``reason``; no line: the caller knows it) when the JSON value ``value`` parsed from ``text`` nests deeper than ``max_depth`` or
    holds a key twice in one object, else None.

    Duplicate keys: a JSON parser keeps the last of them, so a record with ``"players"`` twice would be imported
    with one of two contradicting values, silently. The cheap test first: every key of the text is a string followed
    by ':', so when the text holds no more '":' than the parsed objects hold keys, no key was dropped (the fast
    common case: one walk of the value). Only otherwise is the text parsed again keeping every pair (a '":' inside
    a text value is then a false alarm)."""
    keys, depth = _walk(value)
    if depth > max_depth:
        return LimitExceeded("too_deep", f"the JSON value nests {depth} levels deep, more than {max_depth} "
                             "(--max-depth raises the limit)")
    if len(_KEY.findall(text)) <= keys:
        return None
    dup = _first_duplicate(text)
    if dup is None:
        return None
    return LimitExceeded("duplicate_key", f"key {dup!r} appears twice in one JSON object: a JSON reader keeps only "
                         "the last value, so the record is ambiguous (remove one)")


def parser_too_deep(error: Exception) -> LimitExceeded | None:
    """The ``too_deep`` LimitExceeded (no line: the caller knows it) when ``error``, orjson's JSONDecodeError,
    says the text nests deeper than the parser goes (:data:`PARSER_DEPTH`), else None. Such a text never reaches
    :func:`json_shape`; without this it would be reported as invalid JSON, which it is not."""
    if not str(error).startswith("depth limit exceeded"):
        return None
    return LimitExceeded("too_deep", f"the JSON value nests more than {PARSER_DEPTH} levels deep, the parser's own "
                         f"limit (--max-depth cannot raise it past {PARSER_DEPTH})")


def _walk(value) -> tuple[int, int]:
    """(keys of every object, nesting depth) of a parsed JSON value, without recursion (depth is unbounded
    here: orjson parses up to 1024 levels)."""
    keys, deepest = 0, 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            keys += len(v)
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return keys, deepest


class _Duplicate(Exception):
    pass


def _first_duplicate(text: str) -> str | None:
    """The first key found twice in one object of the JSON ``text`` (None: none)."""
    import json

    def pairs(items):
        seen = set()
        for k, _ in items:
            if k in seen:
                raise _Duplicate(k)
            seen.add(k)
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except _Duplicate as e:
        return e.args[0]
    except (ValueError, RecursionError):
        return None
    return None
