"""Parse and convert the blocks of a native JSON Lines file in worker processes, every core busy.

The columnar reader (:mod:`pipeline.ingest.fast_native`) spends most of its time in three steps per block of
lines: finding the lines to read as columns, pyarrow's JSON parse and the conversion to ``hands``/``games`` rows with their keys
(:func:`pipeline.ingest.native_columns.convert`). Much of the conversion holds the GIL (many small numpy and
pyarrow calls, one sha256 per hand), so threads cannot run two blocks at once; processes can. A
:class:`BlockPool` forks ``n`` workers (the ``fork`` start method: a worker starts with every module already
imported and every numba kernel already compiled, in a few milliseconds) and hands each one a block (its bytes,
first line number and byte offset); the worker returns the block's converted groups (accepted line numbers and
Arrow tables with keys), which :meth:`BlockPool.converted` yields back in file order. The parent process keeps
everything that depends on the lake and on earlier lines (duplicate keys, game ids, the row path for the lines
the workers leave, rejects, the Parquet write), so the lake is the same as with one process.

At most ``n + 1`` blocks are in flight, so memory stays bounded by the block size, not the file size.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import sys
import tempfile
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Self

import numpy as np
import pyarrow as pa
import pyarrow.ipc

from pipeline.ingest import native_blocks as nb

WORKERS_ENV = "REBELOTE_INGEST_WORKERS"
"""Number of worker processes (``1``: parse in this process, with one background thread). Default: the CPUs
this process may run on."""
POOL_MIN_BYTES = 16 << 20
"""Files smaller than this (bytes as stored) are read in this process: forking workers costs more than it
saves on a few blocks."""


def workers() -> int:
    """Worker processes to use: ``$REBELOTE_INGEST_WORKERS`` when set (at least 1), else the CPUs available to
    this process (``os.sched_getaffinity``, or ``os.cpu_count``); 1 where processes cannot be forked.

    Raises ValueError when the variable is not a whole number."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    env = os.environ.get(WORKERS_ENV, "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"{WORKERS_ENV}={env!r}: expected a whole number of worker processes") from None
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


def _work(src, end: int, lineno: int, offset: int, path: str, out_dir: str) -> list:
    """In a worker: prepare (find the lines, parse them) and convert one block, whose lines are those of the parent's
    :class:`~pipeline.ingest.native_blocks.Lines`. ``src``: the block's bytes, or the name of the plain file
    they are read from (``end`` bytes at ``offset``). Returns (:func:`pipeline.ingest.native_blocks.convert_groups`'
    list, each batch's tables written to Arrow IPC files in ``out_dir`` (see :func:`_ship`); the block's line
    starts)."""
    if isinstance(src, str):
        data = bytearray(end)        # read straight into one buffer, no copy
        fd = os.open(src, os.O_RDONLY)
        try:
            got = os.preadv(fd, [data], offset)
        finally:
            os.close(fd)
        if got != end:
            raise OSError(f"{src}: {got} bytes read at offset {offset}, {end} expected (file changed?)")
        lines = nb.Lines(data, end, lineno, offset)
    else:
        lines = nb.Lines(src, end, lineno, offset)
    lines.prepare(path)
    out = nb.convert_groups(lines)
    for _, batch in out:
        _ship(batch, out_dir)
    return out, lines.starts


_SHIPPED = [0]


def _ship(batch, out_dir: str) -> None:
    """Replace the batch's ``hands`` and ``games`` tables by the names of Arrow IPC files holding them (written
    once; the parent maps them without a copy, :func:`_unship`), and drop its per-line ``ok`` (the accepted
    line numbers replace it). Sending the tables through the result pipe
    copies them twice."""
    batch.ok = np.zeros(0, bool)
    for name in ("hands", "games"):
        table: pa.Table = getattr(batch, name)
        _SHIPPED[0] += 1
        f = os.path.join(out_dir, f"{os.getpid()}-{_SHIPPED[0]}-{name}.arrow")
        with pa.OSFile(f, "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
        setattr(batch, name, f)


def _unship(batch) -> None:
    """Map the tables :func:`_ship` wrote (no copy) and delete their files (the mapping stays valid)."""
    for name in ("hands", "games"):
        f = getattr(batch, name)
        table = pa.ipc.open_file(pa.memory_map(f)).read_all()
        os.unlink(f)
        setattr(batch, name, table)


def _convert_here(lines, path: str) -> tuple:
    """(lines, converted groups) of a block converted in this process, as a worker would have: the fallback when
    the pool is broken. ``lines``: the block as :meth:`BlockPool.converted` read it (its lines maybe only
    counted)."""
    here = nb.Lines(lines.data, lines.end, lines.lineno, lines.offset)
    here.prepare(path)
    return here, nb.convert_groups(here)


def die_with_parent(parent: int) -> None:
    """In a worker: ask Linux to kill this process when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``),
    so a ``kill -9`` of ``rebelote ingest`` leaves no worker behind. Elsewhere, nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)    # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:      # the parent died before the call: do not stay
        os._exit(1)


class BlockPool:
    """``n`` worker processes converting blocks; a context manager (leaving it stops the workers, also after an
    error: blocks not started are cancelled)."""

    def __init__(self, n: int):
        nb.warm_up()                   # compiled once here, inherited by every forked worker
        self.n = n
        self.lost: int | None = None   # the first line of the block a worker died on (then read in this process)
        shm = "/dev/shm"
        self._dir = tempfile.mkdtemp(prefix="rebelote-blocks-",
                                     dir=shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None)
        self._ex = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                                       initializer=die_with_parent, initargs=(os.getpid(),))
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns about forking a process with threads: the lake writer's thread is idle here
                # (its pending write was awaited) and the workers never touch it
                warnings.simplefilter("ignore", DeprecationWarning)
                for _ in range(n):       # start the workers now, from this thread, at a known quiet point
                    self._ex.submit(int).result()
        except BaseException:   # no context manager yet to clean up: the block folder must not be left behind
            self.__exit__()
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._ex.shutdown(wait=True, cancel_futures=True)
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)

    def converted(self, blocks: Iterable, path: str, file: str | None = None) -> Iterator[tuple]:
        """(lines, converted groups) for each block of ``blocks`` (:class:`~pipeline.ingest.native_blocks.Lines`,
        not prepared), in order; ``n + 1`` blocks are submitted ahead. ``file``: the plain (not compressed) file
        the blocks are read from, which the workers then read themselves; None: the blocks' bytes are sent. An error reading ``blocks`` is raised
        after the blocks read before it are yielded; a worker's error is raised where its block would be. A worker
        process that dies (killed, out of memory) breaks the pool: that block and every later one are then
        converted in this process (:func:`_convert_here`, same rows), and :attr:`lost` says from which line."""
        pending: deque[tuple[object, Future | None]] = deque()
        it = iter(blocks)
        error: BaseException | None = None
        broken = False
        while True:
            while error is None and len(pending) <= self.n:
                try:
                    lines = next(it)
                except StopIteration:
                    break
                except Exception as e:     # OSError, EOFError, zlib.error: raised after the lines read before
                    error = e
                    break
                end = lines.end
                src = file if file is not None else lines.data
                fut = None
                if not broken:
                    try:
                        fut = self._ex.submit(_work, src, end, lines.lineno, lines.offset, path, self._dir)
                    except BrokenProcessPool:
                        broken = True
                pending.append((lines, fut))
            if not pending:
                break
            lines, fut = pending.popleft()
            if self.lost is None:
                try:
                    if fut is None:
                        raise BrokenProcessPool("the pool broke before this block was submitted")
                    out, starts = fut.result()
                except BrokenProcessPool:      # a worker died: no block of this pool can be trusted to finish
                    self.lost, broken = lines.lineno, True
            if self.lost is not None:
                yield _convert_here(lines, path)
                continue
            if lines.starts is None:             # the worker found the lines the parent only counted
                lines.starts = starts
            for _, batch in out:
                _unship(batch)
            yield lines, out
        if error is not None:
            raise error
