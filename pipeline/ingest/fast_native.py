"""Columnar ingest of Rebelote native JSON Lines (one game per line): same lake as the row path, several times faster.

The ingest driver (:mod:`pipeline.ingest.run`) hands native files to :func:`read_into` instead of the
row-by-row reader (:mod:`pipeline.formats.native_jsonl`) unless ``REBELOTE_NATIVE_PATH=rows``. The file is
streamed in blocks of about :data:`BLOCK_BYTES` of whole lines (memory is bounded by the block, not the file):

1. (:mod:`pipeline.ingest.native_blocks`) lines that may be read as columns (they start with ``{`` and are
   UTF-8) are parsed as they stand by
   ``pyarrow.json.read_json`` with an explicit schema (:data:`pipeline.ingest.native_columns.SCHEMA`: version 2
   of the format gives every field one JSON type); a version 1 line (``[seat, card]`` pairs, which no typed
   reader can read) does not parse and takes the row path;
2. a block pyarrow refuses (invalid JSON, a wrong type, an unknown field, a truncated line...) is split in
   halves until the lines it refuses are isolated (also :mod:`~pipeline.ingest.native_blocks`);
3. :func:`pipeline.ingest.native_columns.convert` builds the ``hands``/``games`` rows of every line the row
   path would import unchanged, with vectorised versions of all its checks;
4. lines in file order: accepted ones are added to the lake buffer as Arrow tables (deduplicated and flushed
   exactly where the row path would), every other line goes through the row path, which imports it or
   writes its reject (file, line, game, hand, reason) as before.

Steps 1-2 run on a background thread for the next block while steps 3-4 run for the current one. So the
lake's ``hands``, ``games`` and ``rejects`` tables are identical to the row path's (``tests/test_fast_native.py``
compares them on clean and damaged files). :func:`measure_parse` times the parse stage alone.
"""

from __future__ import annotations

import gzip
import os
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipeline import limits
from pipeline.ingest import kernels, native_blocks as nb, native_columns as ncol, native_pool
from pipeline.formats import native_jsonl
from pipeline.formats.records import GameRecord, Reject

BLOCK_BYTES = 8 << 20
"""Bytes of whole lines read, parsed and converted at a time."""
ENV = "REBELOTE_NATIVE_PATH"
"""Set to ``rows`` to read native files row by row (the reference path); anything else: columnar."""
DEBUG_ENV = nb.DEBUG_ENV


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
        plain = None if nb.is_stream(fh) else getattr(fh, "name", None)
        plain = plain if isinstance(plain, str) else None
        with native_pool.BlockPool(n) as pool:
            if forked:
                forked()
            for lines, converted in pool.converted(nb.blocks(fh, limit, counted=plain is not None, bounds=bounds),
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
        prefetch = nb.Prefetch(_plain_python(_prepared(fh, path, limit, bounds), plain))
        try:
            for lines in prefetch:
                _block(lines, nb.convert_groups(lines), path, writer, take)
        finally:
            prefetch.close()


def forks_for(path: Path) -> bool:
    """Whether reading ``path`` as native JSON Lines uses the worker processes (:func:`read_into`)."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        return False
    return enabled() and size >= native_pool.POOL_MIN_BYTES and native_pool.workers() >= 2


def prepare_for(path: Path) -> None:
    """Start :func:`pipeline.ingest.native_blocks.warm_up` on a background thread when ``path`` is a native
    file big enough for the worker processes (it then overlaps reading the lake's keys, the manifest's hash of the file and the sniffing); a
    no-op otherwise or once started."""
    if nb.warm_up_started() or not forks_for(path):
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
    nb.start_warm_up()


def _plain_python(items, on: bool):
    """``items``, iterated with the kernels as plain Python (:func:`pipeline.ingest.kernels.plain_python`) in
    the thread that iterates them."""
    with kernels.plain_python(on):
        yield from items


def _prepared(fh, path: str, limit: int, bounds: limits.Limits = limits.DEFAULT):
    """Blocks of whole lines of ``fh`` (:class:`nb.Lines`), each with its candidate lines parsed; raises what
    reading raises, after yielding the lines read before."""
    for lines in nb.blocks(fh, limit, bounds=bounds):
        lines.prepare(path)
        yield lines


def _block(lines: nb.Lines, converted: list[tuple[np.ndarray, ncol.Batch]], path: str, writer, take) -> None:
    """Import one block: add every line in order, the accepted games of ``converted`` (see
    :func:`nb.convert_groups`) as Arrow rows, the others through the row path."""
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


def _add_run(run: list, writer, lines: nb.Lines, path: str, take) -> None:
    """Add accepted games ``run[1]..run[2]`` of batch ``run[0]`` (the first is block line ``run[3]``) as the
    driver's add_game would, one game after the other: a game whose id is already in the lake with other
    content goes through the row path (which writes the duplicate_game_id reject)."""
    batch, first, end, line0 = run
    # a changed file read again: its games replace the old ones (file_replace.FileReplacement.replace_stale needs their keys)
    h0, h1 = int(batch.hand_offsets[first]), int(batch.hand_offsets[end])
    writer.note_file_keys(batch.game_keys[first:end], batch.hands.column("hand_key").slice(h0, h1 - h0),
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

