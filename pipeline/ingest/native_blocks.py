"""A native JSON Lines file cut into blocks of whole lines, and each block parsed and converted as columns.

:func:`blocks` reads a file (plain by ``pread``, or a stream) in blocks of whole lines (:class:`Lines`),
held to the input limits; :meth:`Lines.prepare` finds the lines that may be read as columns (they start with
``{`` and are UTF-8) and parses them with pyarrow's JSON reader against
:data:`pipeline.ingest.native_columns.SCHEMA`, splitting a block it refuses in halves until the refused lines
are isolated; :func:`convert_groups` builds their rows. Every line left over goes to the row path
(:meth:`Lines.row_path`). The reader (:mod:`pipeline.ingest.fast_native`) and the worker processes
(:mod:`pipeline.ingest.native_pool`) both run these.
"""

from __future__ import annotations

import gzip
import os
import queue
import threading
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.json as pj

from pipeline import limits
from pipeline.ingest import native_columns as ncol
from pipeline.formats import native_jsonl
PARSE_THREADS = False
"""Let pyarrow parse a block on several threads. Off: the block being parsed already runs beside the block
being converted, and extra parse threads only added contention on two cores (docs/scale.md)."""

DEBUG_ENV = "REBELOTE_NATIVE_DEBUG"
"""When set, an unexpected error while preparing or converting a block is raised (tests) instead of sending
the block's lines to the row path."""
_BOM = b"\xef\xbb\xbf"
_PARSE = pj.ParseOptions(explicit_schema=ncol.SCHEMA, unexpected_field_behavior="error")


_WARM_LOCK = threading.Lock()
_WARM: list = []          # the warm-up thread once started (start_warm_up), or a marker once done


def warm_up() -> None:
    """Compile, or load from numba's cache, every kernel this reader uses, by reading one small line (once
    per process); waits for the warm-up :func:`start_warm_up` started. The
    worker processes of :mod:`pipeline.ingest.native_pool` are forked after it, so they start with the machine
    code instead of loading it each."""
    with _WARM_LOCK:
        started = _WARM[0] if _WARM else None
        if started is None:
            _WARM.append(True)
    if started is None:
        _warm_up()
    elif isinstance(started, threading.Thread):
        started.join()


def warm_up_started() -> bool:
    """Whether :func:`warm_up` has run or is running (in this process)."""
    return bool(_WARM)


def start_warm_up() -> None:
    """Start :func:`warm_up` on a background thread (a no-op once started or done), so that it overlaps
    the work before the file is read."""
    with _WARM_LOCK:
        if not _WARM:
            t = threading.Thread(target=_warm_up, daemon=True, name="rebelote-warm-up")
            _WARM.append(t)
            t.start()


def _warm_up() -> None:
    line = (b'{"format":"rebelote","version":2,"source":"warm","source_game_id":"1","variant":"belote",'
            b'"n_players":4,"players":["a","b","c","d"],"hands":[{"hands":[["7C"],["8C"],["9C"],["TC"]],'
            b'"dealer":0,"auction":[{"seat":0,"call":"take"}],"contract":{"taker":0,"strain":"C"},'
            b'"plays":["7C","8C","9C","TC"],"play_seats":[0,1,2,3],"recorded":{"score":[1,2]},'
            b'"provenance":{"source_line":null}}]}\n')
    lines = Lines(line, len(line), 1, 0)
    lines.prepare("<warm-up>")
    convert_groups(lines)


def convert_groups(lines: "Lines") -> list[tuple[np.ndarray, ncol.Batch]]:
    """Convert the parsed groups of a prepared block: (block line numbers of the accepted games, in order;
    their :class:`~pipeline.ingest.native_columns.Batch`) per group. A group whose conversion fails is left to
    the row path (the error is raised under ``REBELOTE_NATIVE_DEBUG``)."""
    out = []
    for table, blk, idx in lines.groups:
        try:
            batch = ncol.convert(table, blk)
        except Exception:                 # a converter bug must not cost the file: the row path reads it
            if os.environ.get(DEBUG_ENV):
                raise
            continue
        out.append((idx[batch.ok], batch))
    return out


def is_stream(fh) -> bool:
    """Whether ``fh`` is read as a stream (gzip, a bounded or CR-translated stream), not ``pread`` by file."""
    return isinstance(fh, gzip.GzipFile) or getattr(fh, "stream_only", False)


def blocks(fh, limit: int, counted: bool = False, bounds: limits.Limits = limits.DEFAULT):
    """Blocks of whole lines of ``fh`` (:class:`Lines`, about ``limit`` bytes each, not parsed yet); raises
    what reading raises, after yielding the lines read before. ``counted``: the lines of each block are only
    counted (:class:`Lines`). A plain file read by ``pread`` is held to ``bounds`` here: a line longer than
    ``bounds.max_line_bytes`` or more than ``bounds.max_bytes`` bytes raise LimitExceeded (a stream is a
    :class:`pipeline.limits.Bounded`, which does it)."""
    at = [1, 0]                      # line number and byte offset of the next block

    def block(data: bytes, end: int) -> Lines:
        lines = Lines(data, end, at[0], at[1], counted=counted)
        at[0] += lines.n
        at[1] += end
        return lines

    if is_stream(fh) and hasattr(fh, "read_block"):   # a bounded stream: whole lines by chunks, no object per line
        while data := fh.read_block(limit):
            yield block(data, len(data))
        return
    if is_stream(fh):
        pending: list[bytes] = []
        size = 0
        try:
            for raw in fh:
                pending.append(raw)
                size += len(raw)
                if size >= limit:
                    data = b"".join(pending)
                    pending, size = [], 0
                    yield block(data, len(data))
        except (OSError, EOFError, zlib.error, limits.LimitExceeded):
            if pending:
                data = b"".join(pending)
                yield block(data, len(data))
            raise
        if pending:
            data = b"".join(pending)
            yield block(data, len(data))
        return
    try:
        fd, pos = fh.fileno(), fh.tell()
    except (AttributeError, OSError, ValueError):      # not a file (io.UnsupportedOperation is an OSError)
        yield from _read_blocks(fh, block, limit)
        return
    size = os.fstat(fd).st_size
    stop = min(size, bounds.max_bytes)      # no byte past the limit is read
    while pos < size:                # whole lines from pos: up to the last newline of the next `limit` bytes
        if pos >= stop:
            _too_large(bounds, at)
        data = os.pread(fd, min(limit, stop - pos), pos)
        while True:
            cut = data.rfind(b"\n") + 1
            if cut or pos + len(data) >= stop:
                if not cut and len(data) > bounds.max_line_bytes:
                    _line_too_long(bounds, at)
                break
            if len(data) > bounds.max_line_bytes:               # a line without end is never held whole
                _line_too_long(bounds, at)
            more = os.pread(fd, min(limit, stop - pos - len(data)), pos + len(data))   # a line longer than the block
            if not more:
                break
            data += more
        if cut > bounds.max_line_bytes:     # (never with the default limits: a block is shorter than a line may be)
            bad = _long_line(bounds, data, cut)
            if bad is not None:             # the lines before it are imported, then the reject
                if bad:
                    yield block(data, bad)
                _line_too_long(bounds, at)
        if not cut:
            if pos + len(data) < size:      # the limit cuts this line: the lines before it were imported
                _too_large(bounds, at)
            cut = len(data)          # the file's last line, without a newline
        if not cut:
            break
        yield block(data, cut)
        pos += cut


def _too_large(bounds: limits.Limits, at: list) -> None:
    """Raise LimitExceeded: the file holds more than ``bounds.max_bytes``; the line at ``at`` is not imported."""
    raise limits.LimitExceeded("file_too_large", f"file too large: it holds more than {bounds.max_bytes:,} bytes "
                               f"(--max-bytes raises the limit); the records after line {at[0] - 1} are not imported",
                               at[0], at[1])


def _line_too_long(bounds: limits.Limits, at: list) -> None:
    """Raise LimitExceeded for the line at line ``at[0]``, offset ``at[1]`` (the next block's first), longer than
    ``bounds.max_line_bytes``."""
    line, start = at
    raise limits.LimitExceeded("line_too_long", f"line {line} is longer than {bounds.max_line_bytes:,} bytes "
                               "(--max-line-bytes raises the limit); it and the lines after it are not imported",
                               line, start)


def _long_line(bounds: limits.Limits, data: bytes, cut: int) -> int | None:
    """Byte offset in ``data`` of the first line of ``data[:cut]`` longer than ``bounds.max_line_bytes``, or None."""
    pos = 0
    while pos < cut:
        nl = data.find(b"\n", pos, cut)
        end = cut if nl < 0 else nl
        if end - pos > bounds.max_line_bytes:
            return pos
        pos = end + 1
    return None


def _read_blocks(fh, block, limit: int):
    """:func:`blocks` of a binary stream that is not a file, cut where the pread version cuts: from each block's
    start, the lines that end in its next ``limit`` bytes (more bytes when no line ends there)."""
    buf, eof = b"", False
    while True:
        if len(buf) < limit and not eof:
            more = fh.read(limit - len(buf))
            eof, buf = not more, buf + more
        if not buf:
            return
        cut = buf.rfind(b"\n") + 1
        while not cut and not eof:                   # a line longer than the block
            more = fh.read(limit)
            eof, buf = not more, buf + more
            cut = buf.rfind(b"\n") + 1
        cut = cut or len(buf)                        # the file's last line, without a newline
        yield block(buf, cut)
        buf = buf[cut:]


class Prefetch:
    """Run an iterator in a background thread, one item ahead; its exceptions are raised by the consumer
    at the point where they happened. :meth:`close` stops the thread."""

    _END = object()

    def __init__(self, items):
        self._q: queue.Queue = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(items,), daemon=True, name="rebelote-prefetch")
        self._thread.start()

    def _run(self, items) -> None:
        try:
            for item in items:
                if not self._put((True, item)):
                    return
            self._put((True, self._END))
        except BaseException as e:  # handed to the consumer, raised there
            self._put((False, e))
        finally:
            close = getattr(items, "close", None)
            if close:
                close()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self):
        while True:
            ok, item = self._q.get()
            if not ok:
                raise item
            if item is self._END:
                return
            yield item

    def close(self) -> None:
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._q.get(timeout=0.05)
            except queue.Empty:
                pass
        self._thread.join()


class Lines:
    """The lines of a block: ``data[starts[i]:starts[i+1]]`` is line ``lineno + i``, at byte ``offset +
    starts[i]`` of the (decompressed) file. :meth:`prepare` parses the candidate lines.

    ``counted``: only count the lines now (``n``); ``starts`` are set later (a worker found
    them: :class:`pipeline.ingest.native_pool.BlockPool`)."""

    def __init__(self, data: bytes, end: int, lineno: int, offset: int, counted: bool = False):
        self.data, self.end, self.lineno, self.offset = data, end, lineno, offset
        self.groups: list[tuple[pa.Table, ncol.Block, np.ndarray]] = []
        if counted:
            self.starts = None
            newlines = int(np.count_nonzero(np.frombuffer(data, np.uint8, count=end) == 10))
            self.n = newlines + (end > 0 and data[end - 1:end] != b"\n")
            return
        # vectorised: a block of blank lines (a gzip of them) costs no Python object per line
        ends = np.flatnonzero(np.frombuffer(data, np.uint8, count=end) == 10) + 1 if end else np.zeros(0, np.int64)
        tail = [end] if end and (not len(ends) or ends[-1] != end) else []   # the last line, without a newline
        self.starts = np.concatenate([[0], ends, tail]).astype(np.int64)
        self.n = len(self.starts) - 1

    def prepare(self, path: str) -> None:
        """Find the candidate lines and parse them: ``groups`` of (table, block, block line numbers).
        An unexpected error leaves every line to the row path (raised under ``REBELOTE_NATIVE_DEBUG``)."""
        try:
            cand, text = _candidates(self)
            if len(cand):
                self.groups = list(_parsed(cand, text, self.lineno, path))
        except Exception:
            if os.environ.get(DEBUG_ENV):
                raise
            self.groups = []

    def raw(self, i: int) -> bytes:
        return self.data[self.starts[i]:self.starts[i + 1]]

    def row_path(self, i: int, path: str, take) -> None:
        """Read line ``i`` with the row path (``run._lines`` then ``native_jsonl.read``)."""
        raw, lineno = self.raw(i), self.lineno + i
        try:
            text: str | None = raw.decode("utf-8")
            if lineno == 1:
                text = text.removeprefix("\ufeff")
        except UnicodeDecodeError:
            text = bytes(raw)                          # native_jsonl.read names the game it shows
        read_line(lineno, int(self.offset + self.starts[i]), text, path, take)


def read_line(lineno: int, offset: int, text: str | bytes | None, path: str, take) -> None:
    for rec in native_jsonl.read(iter([(lineno, offset, text)]), path):
        take(rec)


def _candidates(lines: Lines) -> tuple[np.ndarray, tuple[bytearray, np.ndarray]]:
    """The lines the columnar path may read (they start with ``{`` and are UTF-8) and their text, with
    ``text[starts[j]:starts[j+1]]`` the j-th candidate (newline-terminated)."""
    data, st = lines.data, lines.starts
    body = st[:-1].copy()
    if lines.lineno == 1 and data.startswith(_BOM):
        body[0] += 3                                  # the row path drops the byte-order mark of line 1
    arr = np.frombuffer(data, np.uint8)
    ok = body < st[1:]
    ok[ok] = arr[body[ok]] == 0x7B                    # '{'
    last_open = st[-1] > 0 and data[st[-1] - 1:st[-1]] != b"\n"
    text, starts = _join(data, body, st, ok, last_open)
    if not text.isascii() and not _valid_utf8(text):
        bad = [j for j in range(len(starts) - 1) if not _utf8(text[starts[j]:starts[j + 1]])]
        idx = np.flatnonzero(ok)
        ok[idx[bad]] = False
        text, starts = _join(data, body, st, ok, last_open)
    return np.flatnonzero(ok), (text, starts)


def _valid_utf8(text: bytearray) -> bool:
    """Whether ``text`` is valid UTF-8, by Arrow's (vectorised) validation, cheaper than ``decode``."""
    arr = pa.Array.from_buffers(pa.binary(), 1, [None, pa.py_buffer(np.array([0, len(text)], np.int32)),
                                                 pa.py_buffer(text)])
    try:
        arr.cast(pa.string())
        return True
    except pa.ArrowInvalid:
        return False


def _utf8(b) -> bool:
    try:
        bytes(b).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _join(data: bytes, body: np.ndarray, st: np.ndarray, ok: np.ndarray, last_open: bool):
    """Text of the selected lines (from ``body`` to the line end), each ending with a newline, and the starts."""
    sel = np.flatnonzero(ok)
    if len(sel) == len(body) and body[0] == st[0] and not last_open:
        # the whole block, as it stands (a copy only when the block's buffer holds more than its lines)
        return (data if len(data) == st[-1] else bytes(memoryview(data)[:st[-1]])), st.copy()
    mv = memoryview(data)
    parts = [mv[body[i]:st[i + 1]] for i in sel.tolist()]
    if last_open and len(sel) and sel[-1] == len(body) - 1:
        parts.append(b"\n")
    text = bytearray().join(parts)
    lengths = st[sel + 1] - body[sel]
    if last_open and len(sel) and sel[-1] == len(body) - 1:
        lengths[-1] += 1
    starts = np.zeros(len(sel) + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    return text, starts


def _parsed(cand: np.ndarray, text_starts: tuple[bytearray, np.ndarray], lineno: int, path: str):
    """Parse the candidate lines; yields (table, Block, block line numbers of its rows) for the ranges pyarrow
    reads with one row per line, in line order."""
    buf, starts = text_starts
    longest = int((starts[1:] - starts[:-1]).max())
    # one pyarrow block for the whole text: one chunk per column (no copy to combine them)
    read_opts = pj.ReadOptions(use_threads=PARSE_THREADS, block_size=max(1 << 20, 2 * longest + 1, len(buf) + 1))
    for lo, hi, table in _parse(buf, starts, 0, len(cand), read_opts):
        yield table, ncol.Block(lineno + cand[lo:hi], path), cand[lo:hi]


def _parse(buf: bytearray, starts: np.ndarray, lo: int, hi: int, opts):
    """Tables of the candidate lines ``lo..hi`` that pyarrow reads with one row per line, in order; a range it
    refuses is split in halves until the refused lines are alone (those are left to the row path)."""
    view = memoryview(buf)
    try:
        table = pj.read_json(pa.BufferReader(pa.py_buffer(view[starts[lo]:starts[hi]])), read_options=opts,
                             parse_options=_PARSE)
    except (pa.ArrowException, ValueError):
        table = None
    if table is not None and table.num_rows == hi - lo:
        yield lo, hi, table
        return
    if hi - lo == 1:
        return
    mid = (lo + hi) // 2
    yield from _parse(buf, starts, lo, mid, opts)
    yield from _parse(buf, starts, mid, hi, opts)
