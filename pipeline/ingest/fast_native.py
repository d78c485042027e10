"""Columnar ingest of Rebelote native JSON Lines (one game per line): same lake, ~10x the speed.

The ingest driver (:mod:`pipeline.ingest.run`) hands native files to :func:`read_into` instead of the
row-by-row reader (:mod:`pipeline.ingest.native_jsonl`) unless ``REBELOTE_NATIVE_PATH=rows``. The file is
streamed in blocks of about :data:`BLOCK_BYTES` of whole lines (memory is bounded by the block, not the file):

1. lines that may be read as columns (they start with ``{``, are UTF-8, hold no ``\\x7f``) are joined, their
   ``[seat, card]`` pairs and ``"source_line":null`` keys rewritten in place (same length, see
   :mod:`pipeline.ingest.native_columns`), and parsed by ``pyarrow.json.read_json`` with an explicit schema;
2. a block pyarrow refuses (invalid JSON, a wrong type, an unknown field, a truncated line...) is split in
   halves until the lines it refuses are isolated;
3. :func:`pipeline.ingest.native_columns.convert` builds the ``hands``/``games`` rows of every line the row
   path would import unchanged, with vectorised versions of all its checks;
4. lines in file order: accepted ones are added to the lake buffer as Arrow tables (deduplicated and flushed
   exactly where the row path would), every other line goes through the row path, which imports it or
   writes its reject (file, line, game, hand, reason) as before.

So the lake's ``hands``, ``games`` and ``rejects`` tables are identical to the row path's
(``tests/test_fast_native.py`` compares them on clean and damaged files).
"""

from __future__ import annotations

import os
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as pj

from pipeline.ingest import native_columns as ncol, native_jsonl
from pipeline.ingest.records import GameRecord, Reject

BLOCK_BYTES = 8 << 20
"""Bytes of whole lines read, parsed and converted at a time."""
ENV = "REBELOTE_NATIVE_PATH"
"""Set to ``rows`` to read native files row by row (the reference path); anything else: columnar."""
_BOM = b"\xef\xbb\xbf"
_PARSE = pj.ParseOptions(explicit_schema=ncol.SCHEMA, unexpected_field_behavior="error")


def enabled() -> bool:
    """True unless ``REBELOTE_NATIVE_PATH=rows`` asks for the row-by-row reader."""
    return os.environ.get(ENV, "columnar").strip().lower() != "rows"


def read_into(fh, path: str, writer, take: Callable[[GameRecord | Reject], None],
              block_bytes: int | None = None) -> None:
    """Read the native JSON Lines stream ``fh`` (binary, already decompressed) into ``writer``.

    Args:
        fh: binary file object, iterated line by line (as the row path iterates it, so a damaged gzip
            stream yields the same lines before its error).
        path: the file name recorded in rows and rejects.
        writer: the driver's lake writer (``run._Writer``): its key sets, game ids, summary and buffers.
        take: the driver's handler for one row-path result (check, conflict, add or reject).
        block_bytes: block size (default :data:`BLOCK_BYTES`); any size gives the same lake.
    Raises:
        whatever reading ``fh`` raises (OSError, EOFError, zlib.error), after importing every line read
        before it; StrictError from ``take``.
    """
    size_limit = block_bytes or BLOCK_BYTES
    lines: list[bytes] = []
    size = 0
    lineno, offset = 1, 0
    try:
        for raw in fh:
            lines.append(raw)
            size += len(raw)
            if size >= size_limit:
                _block(lines, lineno, offset, path, writer, take)
                lineno += len(lines)
                offset += size
                lines, size = [], 0
    except (OSError, EOFError, zlib.error):
        if lines:
            _block(lines, lineno, offset, path, writer, take)
        raise
    if lines:
        _block(lines, lineno, offset, path, writer, take)


def _text(raw: bytes, lineno: int) -> str | None:
    """The row path's text of a line (run._lines): UTF-8, without the first line's byte-order mark."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.removeprefix("\ufeff") if lineno == 1 else text


def _row_path(raw: bytes, lineno: int, offset: int, path: str, take) -> None:
    for rec in native_jsonl.read(iter([(lineno, offset, _text(raw, lineno))]), path):
        take(rec)


def _block(lines: list[bytes], lineno: int, offset: int, path: str, writer, take) -> None:
    """Import one block of lines (the first is line ``lineno``, at byte ``offset``)."""
    n = len(lines)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([len(r) for r in lines], out=offsets[1:])
    offsets += offset
    cand: list[int] = []
    bodies: list[bytes] = []
    for i, raw in enumerate(lines):
        body = raw[3:] if lineno + i == 1 and raw.startswith(_BOM) else raw
        if body[:1] == b"{":
            cand.append(i)
            bodies.append(body if body.endswith(b"\n") else body + b"\n")
    cand, bodies, text = _readable(cand, bodies)
    accepted: dict[int, tuple[ncol.Batch, int]] = {}
    if cand:
        for batch, idx in _convert(cand, bodies, text, lineno, path):
            k = 0
            for r, i in enumerate(idx):
                if batch.ok[r]:
                    accepted[i] = (batch, k)
                    k += 1
    run: list = []            # consecutive accepted games of one batch: [batch, first, end]
    for i in range(n):
        hit = accepted.get(i)
        if hit is not None:
            batch, k = hit
            if run and run[0] is batch and run[2] == k:
                run[2] += 1
                continue
            if run:
                _add_run(run, writer, lines, lineno, offsets, path, take)
            run = [batch, k, k + 1, i]
            continue
        if run:
            _add_run(run, writer, lines, lineno, offsets, path, take)
            run = []
        _row_path(lines[i], lineno + i, int(offsets[i]), path, take)
    if run:
        _add_run(run, writer, lines, lineno, offsets, path, take)


def _readable(cand: list[int], bodies: list[bytes]) -> tuple[list[int], list[bytes], bytearray]:
    """Drop the lines the columnar path must not read: not UTF-8 (the row path rejects them), or holding the
    byte ``\\x7f`` or its escape (used as a marker by the rewrites). Returns the lines kept and their text."""
    text = bytearray().join(bodies)
    bad = set()
    if not text.isascii():
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            for j, b in enumerate(bodies):
                try:
                    b.decode("utf-8")
                except UnicodeDecodeError:
                    bad.add(j)
    if b"\x7f" in text or (b"\\" in text and b"\\u007" in text):
        for j, b in enumerate(bodies):
            if b"\x7f" in b or b"\\u007f" in b or b"\\u007F" in b:
                bad.add(j)
    if not bad:
        return cand, bodies, text
    keep = [j for j in range(len(cand)) if j not in bad]
    bodies = [bodies[j] for j in keep]
    return [cand[j] for j in keep], bodies, bytearray().join(bodies)


def _convert(cand: list[int], bodies: list[bytes], buf: bytearray, lineno: int, path: str):
    """Parse and convert the candidate lines (``buf``: their text, rewritten in place); yields (Batch, line
    indices of its rows) in line order."""
    starts = np.zeros(len(bodies) + 1, np.int64)
    np.cumsum([len(b) for b in bodies], out=starts[1:])
    marks = ncol.mark_pairs(buf)
    lin = ncol.mark_null_source_lines(buf)
    pairs = np.bincount(np.searchsorted(starts, marks, side="right") - 1, minlength=len(bodies))
    lin = np.bincount(np.searchsorted(starts, lin, side="right") - 1, minlength=len(bodies))
    if b"\\" in buf:
        escapes = np.array([b"\\" in b for b in bodies], bool)
    else:
        escapes = np.zeros(len(bodies), bool)
    longest = int((starts[1:] - starts[:-1]).max())
    read_opts = pj.ReadOptions(use_threads=True, block_size=max(1 << 20, 2 * longest + 1))
    cand_arr = np.asarray(cand, np.int64)
    for lo, hi, table in _parse(buf, starts, 0, len(bodies), read_opts):
        blk = ncol.Block(buf, starts[lo:hi + 1], lineno + cand_arr[lo:hi], pairs[lo:hi], escapes[lo:hi], path,
                         lin[lo:hi])
        yield ncol.convert(table, blk), cand[lo:hi]


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


def _add_run(run: list, writer, lines, lineno, offsets, path, take) -> None:
    """Add accepted games ``run[1]..run[2]`` of batch ``run[0]`` (the first is block line ``run[3]``) as the
    driver's add_game would, one game after the other: a game whose id is already in the lake with other
    content goes through the row path (which writes the duplicate_game_id reject)."""
    batch, first, end, line0 = run
    a = first
    for k in range(first, end):
        gid, gkey = batch.game_ids[k], batch.game_keys[k]
        seen = writer.game_ids.get(gid)
        if seen is not None and seen[0] != gkey:
            _add_games(batch, a, k, writer)
            i = line0 + (k - first)
            _row_path(lines[i], lineno + i, int(offsets[i]), path, take)
            a = k + 1
            continue
        writer.game_ids.setdefault(gid, (gkey, batch.source_files[k]))
    _add_games(batch, a, end, writer)


def _add_games(batch: ncol.Batch, a: int, b: int, writer) -> None:
    """Buffer accepted games a..b: hands already in the lake (or earlier in the run) are duplicates, a game
    whose key is known is not added again, and the buffer is flushed after the game that reaches the
    driver's flush size, exactly as ``run._Writer.add_game`` does row by row."""
    if b <= a:
        return
    from pipeline.ingest.run import FLUSH_HANDS
    ho = batch.hand_offsets
    h0, h1 = int(ho[a]), int(ho[b])
    keys = writer.keys["hands"]
    hk = batch.hand_keys[h0:h1]
    if keys.isdisjoint(hk) and len(set(hk)) == len(hk):
        new = np.ones(h1 - h0, bool)
        keys.update(hk)
    else:
        new = np.zeros(h1 - h0, bool)
        for g in range(a, b):
            s, e = int(ho[g]) - h0, int(ho[g + 1]) - h0
            fresh = [k not in keys for k in hk[s:e]]       # the whole game is looked up before adding
            new[s:e] = fresh
            keys.update(k for k, f in zip(hk[s:e], fresh) if f)
    new_per_game = np.add.reduceat(new, ho[a:b] - h0) if h1 > h0 else np.zeros(b - a, np.int64)
    gkeys = writer.keys["games"]
    game_new = np.zeros(b - a, bool)
    for g in range(a, b):
        if batch.game_keys[g] not in gkeys:
            gkeys.add(batch.game_keys[g])
            game_new[g - a] = True
    s = writer.summary
    s.duplicates += int((h1 - h0) - new.sum())
    s.hands += int(new.sum())
    s.games += int(game_new.sum())

    def push(x: int, y: int) -> None:
        hx, hy = int(ho[x]) - h0, int(ho[y]) - h0
        hands = batch.hands.slice(int(ho[x]), hy - hx)
        if not new[hx:hy].all():
            hands = hands.filter(pa.array(new[hx:hy]))
        games = batch.games.slice(x, y - x)
        if not game_new[x - a:y - a].all():
            games = games.filter(pa.array(game_new[x - a:y - a]))
        writer.add_rows(hands, games)

    buffered = writer.buffered_hands
    start = a
    for g in range(a, b):
        buffered += int(new_per_game[g - a])
        if buffered >= FLUSH_HANDS:
            push(start, g + 1)
            writer.flush()
            buffered = 0
            start = g + 1
    if start < b:
        push(start, b)


def measure(path: str | Path, lake: str | Path | None = None, rows: bool = False) -> dict:
    """Ingest one file into an empty lake and time it (reading, checks, keys and the Parquet write).

    Args:
        path: a native JSON Lines file (``.gz`` accepted).
        lake: where to write; default a temporary folder, deleted afterwards. Must not exist or be empty.
        rows: force the row-by-row reader (the reference) instead of the columnar one.
    Returns:
        ``{"path": "columnar"|"rows", "bytes": file size, "seconds": wall clock, "cpu_seconds": process CPU,
        "mb_per_s": 1e6 bytes per wall second, "hands": hands imported, "hands_per_s", "games", "rejected"}``.
    """
    from pipeline.ingest.run import ingest_paths
    path = Path(path)
    old = os.environ.get(ENV)
    os.environ[ENV] = "rows" if rows else "columnar"
    try:
        with tempfile.TemporaryDirectory(prefix="rebelote-fastnative-") as tmp:
            target = Path(lake) if lake else Path(tmp) / "lake"
            cpu0, t0 = time.process_time(), time.perf_counter()
            s = ingest_paths([path], target)
            dt, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        if old is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = old
    size = path.stat().st_size
    return {"path": "rows" if rows else "columnar", "bytes": size, "seconds": round(dt, 3),
            "cpu_seconds": round(cpu, 3), "mb_per_s": round(size / dt / 1e6, 2), "hands": s.hands,
            "hands_per_s": round(s.hands / dt), "games": s.games, "rejected": sum(s.rejected.values())}
