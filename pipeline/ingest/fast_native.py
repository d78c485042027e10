"""Columnar ingest of Rebelote native JSON Lines (one game per line): same lake, 5-9x the speed.

The ingest driver (:mod:`pipeline.ingest.run`) hands native files to :func:`read_into` instead of the
row-by-row reader (:mod:`pipeline.ingest.native_jsonl`) unless ``REBELOTE_NATIVE_PATH=rows``. The file is
streamed in blocks of about :data:`BLOCK_BYTES` of whole lines (memory is bounded by the block, not the file):

1. lines that may be read as columns (they start with ``{`` and are UTF-8) are parsed as they stand by
   ``pyarrow.json.read_json`` with an explicit schema (:data:`pipeline.ingest.native_columns.SCHEMA`: version 2
   of the format gives every field one JSON type); a version 1 line (``[seat, card]`` pairs, which no typed
   reader can read) does not parse and takes the row path;
2. a block pyarrow refuses (invalid JSON, a wrong type, an unknown field, a truncated line...) is split in
   halves until the lines it refuses are isolated;
3. :func:`pipeline.ingest.native_columns.convert` builds the ``hands``/``games`` rows of every line the row
   path would import unchanged, with vectorised versions of all its checks;
4. lines in file order: accepted ones are added to the lake buffer as Arrow tables (deduplicated and flushed
   exactly where the row path would), every other line goes through the row path, which imports it or
   writes its reject (file, line, game, hand, reason) as before.

Steps 1-2 run on a background thread for the next block while steps 3-4 run for the current one. So the
lake's ``hands``, ``games`` and ``rejects`` tables are identical to the row path's (``tests/test_fast_native.py``
compares them on clean and damaged files). :func:`measure` times an ingest (``benchmarks/ingest_native.py``).
"""

from __future__ import annotations

import gzip
import os
import queue
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as pj

from pipeline import limits
from pipeline.ingest import kernels, native_columns as ncol, native_jsonl, native_pool
from pipeline.ingest.records import GameRecord, Reject

BLOCK_BYTES = 8 << 20
"""Bytes of whole lines read, parsed and converted at a time."""
PARSE_THREADS = False
"""Let pyarrow parse a block on several threads. Off: the block being parsed already runs beside the block
being converted (measured on the 2-core test machine, extra parse threads only added contention)."""
ENV = "REBELOTE_NATIVE_PATH"
"""Set to ``rows`` to read native files row by row (the reference path); anything else: columnar."""
DEBUG_ENV = "REBELOTE_NATIVE_DEBUG"
"""When set, an unexpected error while preparing or converting a block is raised (tests) instead of sending
the block's lines to the row path."""
_BOM = b"\xef\xbb\xbf"
_PARSE = pj.ParseOptions(explicit_schema=ncol.SCHEMA, unexpected_field_behavior="error")


def enabled() -> bool:
    """True unless ``REBELOTE_NATIVE_PATH=rows`` asks for the row-by-row reader."""
    return os.environ.get(ENV, "columnar").strip().lower() != "rows"


def read_into(fh, path: str, writer, take: Callable[[GameRecord | Reject], None],
              block_bytes: int | None = None, size: int | None = None,
              forked: Callable[[], None] | None = None, bounds: limits.Limits = limits.DEFAULT) -> None:
    """Read the native JSON Lines stream ``fh`` (binary, already decompressed) into ``writer``.

    Two ways, same lake: a file of at least :data:`pipeline.ingest.native_pool.POOL_MIN_BYTES` (``size``) on a
    machine with two CPUs or more is parsed and converted in worker processes, one block per task, every
    core busy (:mod:`pipeline.ingest.native_pool`), while this process adds the blocks to the lake buffer in
    file order and the lake writer encodes Parquet on its thread. Otherwise a background thread reads and
    parses the next block while this one converts the current block and adds it (pyarrow and
    numpy release the GIL). Either way at most a few blocks are in memory. A file smaller than
    :data:`pipeline.ingest.kernels.COMPILED_MIN_BYTES` runs the byte kernels as plain Python
    (:mod:`pipeline.ingest.kernels`: same rows, no numba compile or cache load).

    Args:
        fh: binary file object. A gzip stream is iterated line by line, as the row path iterates it, so a
            damaged stream fails after the same lines; a plain file is read in blocks.
        path: the file name recorded in rows and rejects.
        writer: the driver's lake writer (``writer.Writer``): its key sets, game ids, summary and buffers.
        take: the driver's handler for one row-path result (check, conflict, add or reject).
        block_bytes: block size (default :data:`BLOCK_BYTES`); any size gives the same lake.
        size: bytes of the file as stored (decides between the two ways, and compiled or plain kernels;
            None: the in-process way, compiled).
        forked: called once the worker processes are forked (at once when none are): a thread that might hold
            a lock the workers need (OpenSSL's, hashing) may start then.
        bounds: the line and size limits of a plain file read by ``pread`` (a stream is a
            :class:`pipeline.limits.Bounded` that applies them itself).
    Raises:
        whatever reading ``fh`` raises (OSError, EOFError, zlib.error, LimitExceeded), after importing every
        line read before it; StrictError from ``take``.
    """
    limit = block_bytes or BLOCK_BYTES
    n = native_pool.workers()
    if size is not None and n >= 2 and size >= native_pool.POOL_MIN_BYTES:
        writer.wait()              # no Parquet write runs on the writer's thread while the workers fork
        plain = None if _is_stream(fh) else getattr(fh, "name", None)
        plain = plain if isinstance(plain, str) else None
        with native_pool.BlockPool(n, sys.modules[__name__]) as pool:
            if forked:
                forked()
            for lines, converted in pool.converted(_blocks(fh, limit, counted=plain is not None, bounds=bounds),
                                                   path, plain):
                _block(lines, converted, path, writer, take)
        if pool.lost is not None:      # a worker died: the file was read on in this process, from that block
            writer.summary.workers_lost.append(f"{path} (from line {pool.lost})")
        return
    # a small file: the kernels' plain Python functions (no compiling or loading of machine code; kernels.py),
    # in this thread and in the prefetch thread
    if forked:
        forked()
    plain = not kernels.use_compiled(size)
    with kernels.plain_python(plain):
        prefetch = _Prefetch(_plain_python(_prepared(fh, path, limit, bounds), plain))
        try:
            for lines in prefetch:
                _block(lines, convert_groups(lines), path, writer, take)
        finally:
            prefetch.close()


_WARM_LOCK = threading.Lock()
_WARM: list = []          # the warm-up thread once started (prepare_for), or a marker once done


def forks_for(path: Path) -> bool:
    """Whether reading ``path`` as native JSON Lines uses the worker processes (:func:`read_into`)."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        return False
    return enabled() and size >= native_pool.POOL_MIN_BYTES and native_pool.workers() >= 2


def prepare_for(path: Path) -> None:
    """Start :func:`warm_up` on a background thread when ``path`` is a native file big enough for the worker
    processes (it then overlaps reading the lake's keys, the manifest's hash of the file and the sniffing); a
    no-op otherwise or once started."""
    if _WARM or not forks_for(path):
        return
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as f:
                head = f.read(65536)
    except (OSError, EOFError, zlib.error):
        return
    if not native_jsonl.sniff(Path(path).name, head.decode("utf-8", errors="replace").removeprefix("\ufeff")):
        return
    with _WARM_LOCK:
        if not _WARM:
            t = threading.Thread(target=_warm_up, daemon=True, name="rebelote-warm-up")
            _WARM.append(t)
            t.start()


def warm_up() -> None:
    """Compile, or load from numba's cache, every kernel this reader uses, by reading one small line (about
    0.4 s in a fresh process, once; 0 afterwards); waits for the warm-up :func:`prepare_for` started. The
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


def _warm_up() -> None:
    line = (b'{"format":"rebelote","version":2,"source":"warm","source_game_id":"1","variant":"belote",'
            b'"n_players":4,"players":["a","b","c","d"],"hands":[{"hands":[["7C"],["8C"],["9C"],["TC"]],'
            b'"dealer":0,"auction":[{"seat":0,"call":"take"}],"contract":{"taker":0,"strain":"C"},'
            b'"plays":["7C","8C","9C","TC"],"play_seats":[0,1,2,3],"recorded":{"score":[1,2]},'
            b'"provenance":{"source_line":null}}]}\n')
    lines = _Lines(line, len(line), 1, 0)
    lines.prepare("<warm-up>")
    convert_groups(lines)


def _plain_python(items, on: bool):
    """``items``, iterated with the kernels as plain Python (:func:`pipeline.ingest.kernels.plain_python`) in
    the thread that iterates them."""
    with kernels.plain_python(on):
        yield from items


def _prepared(fh, path: str, limit: int, bounds: limits.Limits = limits.DEFAULT):
    """Blocks of whole lines of ``fh`` (:class:`_Lines`), each with its candidate lines parsed; raises what
    reading raises, after yielding the lines read before."""
    for lines in _blocks(fh, limit, bounds=bounds):
        lines.prepare(path)
        yield lines


def convert_groups(lines: "_Lines") -> list[tuple[np.ndarray, ncol.Batch]]:
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


def _is_stream(fh) -> bool:
    """Whether ``fh`` is read as a stream (gzip, a bounded or CR-translated stream), not ``pread`` by file."""
    return isinstance(fh, gzip.GzipFile) or getattr(fh, "stream_only", False)


def _blocks(fh, limit: int, counted: bool = False, bounds: limits.Limits = limits.DEFAULT):
    """Blocks of whole lines of ``fh`` (:class:`_Lines`, about ``limit`` bytes each, not parsed yet); raises
    what reading raises, after yielding the lines read before. ``counted``: the lines of each block are only
    counted (:class:`_Lines`). A plain file read by ``pread`` is held to ``bounds`` here: a line longer than
    ``bounds.max_line_bytes`` or more than ``bounds.max_bytes`` bytes raise LimitExceeded (a stream is a
    :class:`pipeline.limits.Bounded`, which does it)."""
    at = [1, 0]                      # line number and byte offset of the next block

    def block(data: bytes, end: int) -> _Lines:
        lines = _Lines(data, end, at[0], at[1], counted=counted)
        at[0] += lines.n
        at[1] += end
        return lines

    if hasattr(fh, "read_block"):     # a bounded stream: whole lines by chunks, no object per line
        while data := fh.read_block(limit):
            yield block(data, len(data))
        return
    if _is_stream(fh):
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
    while pos < size:                # whole lines from pos: up to the last newline of the next `limit` bytes
        if pos >= bounds.max_bytes:
            raise limits.LimitExceeded("file_too_large", f"file too large: it holds more than {bounds.max_bytes:,} "
                                       "bytes (--max-bytes raises the limit); the records after line "
                                       f"{at[0] - 1} are not imported", at[0], at[1])
        data = os.pread(fd, min(limit, bounds.max_bytes - pos), pos)
        while True:
            cut = data.rfind(b"\n") + 1
            if cut or pos + len(data) >= size:
                if not cut and len(data) > bounds.max_line_bytes:
                    _line_too_long(bounds, at)
                break
            if len(data) > bounds.max_line_bytes:               # a line without end is never held whole
                _line_too_long(bounds, at)
            more = os.pread(fd, limit, pos + len(data))      # a line longer than the block
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
            cut = len(data)          # the file's last line, without a newline
        if not cut:
            break
        yield block(data, cut)
        pos += cut


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
    """:func:`_blocks` of a binary stream that is not a file, cut where the pread version cuts: from each block's
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


class _Prefetch:
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


class _Lines:
    """The lines of a block: ``data[starts[i]:starts[i+1]]`` is line ``lineno + i``, at byte ``offset +
    starts[i]`` of the (decompressed) file. :meth:`prepare` parses the candidate lines.

    ``counted``: only count the lines now (``n``); ``starts`` are set later (a worker found
    them: :class:`pipeline.ingest.native_pool.BlockPool`)."""

    def __init__(self, data: bytes, end: int, lineno: int, offset: int, counted: bool = False):
        self.data, self.end, self.lineno, self.offset = data, end, lineno, offset
        self.groups: list[tuple[pa.Table, ncol.Block, np.ndarray]] = []
        if counted:
            self.starts = None
            self.n = data.count(b"\n", 0, end) + (end > 0 and data[end - 1:end] != b"\n")
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
        _row_path(lineno, int(self.offset + self.starts[i]), text, path, take)


def _row_path(lineno: int, offset: int, text: str | bytes | None, path: str, take) -> None:
    for rec in native_jsonl.read(iter([(lineno, offset, text)]), path):
        take(rec)


def _block(lines: _Lines, converted: list[tuple[np.ndarray, ncol.Batch]], path: str, writer, take) -> None:
    """Import one block: add every line in order, the accepted games of ``converted`` (see
    :func:`convert_groups`) as Arrow rows, the others through the row path."""
    if getattr(writer, "on_bytes", None) is not None:
        writer.on_bytes(lines.offset + lines.end)
    accepted: dict[int, tuple[ncol.Batch, int]] = {}
    for idx, batch in converted:
        for k, i in enumerate(idx.tolist()):
            accepted[i] = (batch, k)
    run: list = []            # consecutive accepted games of one batch: [batch, first, end, first line]
    # an empty line ("\n", "\r\n") gives the row path nothing (json_lines skips it): not visited one by one
    length = np.diff(lines.starts)
    blank = (length <= 1) | ((length == 2) & (np.frombuffer(lines.data, np.uint8, count=lines.end)[
        np.minimum(lines.starts[:-1], max(lines.end - 1, 0))] == 13))
    if len(blank) and length[-1] == 1 and lines.data[lines.end - 1:lines.end] != b"\n":
        blank[-1] = False          # a last line of one byte without a newline is content
    for i in np.flatnonzero(~blank).tolist() if blank.any() else range(lines.n):
        hit = accepted.get(i)
        if hit is not None:
            batch, k = hit
            if run and run[0] is batch and run[2] == k:
                run[2] += 1
                continue
            if run:
                _add_run(run, writer, lines, path, take)
            run = [batch, k, k + 1, i]
            continue
        if run:
            _add_run(run, writer, lines, path, take)
            run = []
        lines.row_path(i, path, take)
    if run:
        _add_run(run, writer, lines, path, take)


def _candidates(lines: _Lines) -> tuple[np.ndarray, tuple[bytearray, np.ndarray]]:
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
    """Whether ``text`` is valid UTF-8, by Arrow's (vectorised) validation: 6x faster than ``decode``."""
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
    # one pyarrow block for the whole text: one chunk per column (no copy to combine them), and a few % faster
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


def _add_run(run: list, writer, lines: _Lines, path: str, take) -> None:
    """Add accepted games ``run[1]..run[2]`` of batch ``run[0]`` (the first is block line ``run[3]``) as the
    driver's add_game would, one game after the other: a game whose id is already in the lake with other
    content goes through the row path (which writes the duplicate_game_id reject)."""
    batch, first, end, line0 = run
    # a changed file read again: its games replace the old ones (file_replace.FileReplacement.replace_stale needs their keys)
    writer.note_file_keys(batch.game_keys[first:end],
                          batch.hand_keys[int(batch.hand_offsets[first]):int(batch.hand_offsets[end])],
                          batch.game_ids[first:end], batch.source_files[first:end])
    gids = batch.game_ids[first:end]
    if len(set(gids)) == len(gids) and writer.game_ids.isdisjoint(gids):
        # the usual case, every game new to the lake and to the run: remembered at once, as the loop below would
        writer.remember_all(gids, batch.game_keys[first:end], batch.source_files[first:end])
        _add_games(batch, first, end, writer)
        return
    # some game id is known (a file read again) or repeated: looked up together, then game by game
    seen_all = writer.game_ids.get_many(gids)
    pending: dict[str, tuple] = {}     # games remembered since the last lookup (as writer.remember would)
    a = first
    for k in range(first, end):
        gid, gkey = batch.game_ids[k], batch.game_keys[k]
        seen = pending.get(gid) or seen_all[k - first]
        if seen is not None and seen[0] != gkey:
            _add_games(batch, a, k, writer)
            _remember(writer, pending)
            lines.row_path(line0 + (k - first), path, take)
            seen_all[k + 1 - first:] = writer.game_ids.get_many(gids[k + 1 - first:])   # as the row path left them
            a = k + 1
            continue
        if seen is None:
            pending[gid] = (gkey, batch.source_files[k], writer.reading)
    _remember(writer, pending)
    _add_games(batch, a, end, writer)


def _remember(writer, pending: dict[str, tuple]) -> None:
    """``writer.remember`` for games none of which the writer knows, ids all different; empties ``pending``."""
    if pending:
        gids = list(pending)
        writer.remember_all(gids, [pending[g][0] for g in gids], [pending[g][1] for g in gids])
        pending.clear()


def _add_games(batch: ncol.Batch, a: int, b: int, writer) -> None:
    """Buffer accepted games a..b: hands already in the lake (or earlier in the run) are duplicates, a game
    whose key is known is not added again, and the buffer is flushed after the game that reaches the
    driver's flush size, exactly as ``writer.Writer.add_game`` does row by row."""
    if b <= a:
        return
    ho = batch.hand_offsets
    h0, h1 = int(ho[a]), int(ho[b])
    # a game's hands are looked up together before any is added; games one at a time
    new = writer.keys["hands"].add_new(batch.hands.column("hand_key").slice(h0, h1 - h0), ho[a:b + 1] - h0)
    new_per_game = np.add.reduceat(new, ho[a:b] - h0) if h1 > h0 else np.zeros(b - a, np.int64)
    game_new = writer.keys["games"].add_new(batch.games.column("game_key").slice(a, b - a))
    s = writer.summary
    s.duplicates += int((h1 - h0) - new.sum())
    s.hands += int(new.sum())
    s.games += int(game_new.sum())

    def push(x: int, y: int) -> None:
        hx, hy = int(ho[x]) - h0, int(ho[y]) - h0
        hands = batch.hands.slice(int(ho[x]), hy - hx)
        writer.hold_rows(hands)         # the file holds them all, new or already stored
        if not new[hx:hy].all():
            hands = hands.filter(pa.array(new[hx:hy]))
        games = batch.games.slice(x, y - x)
        if not game_new[x - a:y - a].all():
            games = games.filter(pa.array(game_new[x - a:y - a]))
        writer.add_rows(hands, games)

    buffered = writer.buffered_hands
    start = a
    reach = np.cumsum(new_per_game)        # new hands of games a..g, to find each game that reaches the flush size
    done = 0                               # new hands of the games before start
    while start < b:
        g = start + int(np.searchsorted(reach[start - a:], writer.flush_hands - buffered + done))
        if g >= b:
            break
        push(start, g + 1)                 # game g brings the buffer to FLUSH_HANDS or more
        writer.flush_later()
        buffered, done, start = 0, int(reach[g - a]), g + 1
    if start < b:
        push(start, b)


def measure_parse(path: str | Path) -> dict:
    """Time the parse stage alone on one plain (not gzip) native file: read it in blocks, find the lines to
    read as columns and parse them
    with pyarrow, on one thread; no conversion, no checks, no lake.

    Returns ``{"bytes", "seconds" (wall), "cpu_seconds" (this thread), "mb_per_s" (1e6 bytes per wall second),
    "cpu_mb_per_s" (per CPU second), "rows" (lines parsed as columns)}``.
    """
    path = Path(path)
    rows = 0
    t0, c0 = time.perf_counter(), time.thread_time()
    with path.open("rb") as fh:
        for lines in _prepared(fh, str(path), BLOCK_BYTES):
            rows += sum(t.num_rows for t, _, _ in lines.groups)
    dt, cpu = time.perf_counter() - t0, time.thread_time() - c0
    size = path.stat().st_size
    return {"bytes": size, "seconds": round(dt, 3), "cpu_seconds": round(cpu, 3), "mb_per_s": round(size / dt / 1e6, 1),
            "cpu_mb_per_s": round(size / cpu / 1e6, 1), "rows": rows}

