"""The ingest writer: buffers the rows of accepted games, hands and rejects, skips keys the lake already holds,
records which file holds which hand (:mod:`pipeline.ingest.holdings`), and appends the rows to the lake on a
background thread, one flush at a time. Which copy of a game is kept is :mod:`pipeline.ingest.copy_checks`; how a
changed file's old rows leave, :mod:`pipeline.ingest.file_replace`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import lake_write
from pipeline.storage import lake as lakemod
from pipeline.storage import schema
from pipeline.ingest import deal_copies, game_copies, holdings, key_index, takeover
from pipeline.ingest.copy_checks import DEAL_COPY_FORMATS, CopyChecks, _intern
from pipeline.ingest.file_replace import FileReplacement
from pipeline.ingest.input_files import physical_name
from pipeline.formats.records import GameRecord, Reject
from pipeline.ingest.summary import IngestSummary

FLUSH_HANDS = 50_000


class Writer(CopyChecks, FileReplacement):
    """Buffers rows and appends them to the lake, skipping keys already present. A buffer holds row dicts
and, from the columnar native reader, Arrow tables of rows already checked and deduplicated."""

    @property
    def flush_hands(self) -> int:
        """Hands buffered before a flush (:data:`FLUSH_HANDS`, read when asked): the columnar reader flushes at
        the same game as the row path without importing this module."""
        return FLUSH_HANDS

    def __init__(self, lake: Path, summary: IngestSummary):
        self.lake = lakemod.locate(lake)
        self.summary = summary
        self.keys = {t: key_index.existing_keys(self.lake, t) for t in ("hands", "games", "rejects")}
        self.buf: dict[str, list[dict | pa.Table]] = {"hands": [], "games": [], "rejects": [], "holdings": []}
        self.buffered_hands = 0
        # game id -> (game key, source_file as recorded, ingest_file: the physical file read, None before the
        # column existed), 40 bytes a game (pipeline.ingest.key_index)
        self.game_ids = key_index.GameIndex()
        for b in lakemod.iter_batches(self.lake, "games", batch_size=65_536,
                                      columns=["game_id", "game_key", "source_file", "ingest_file"]):
            self.game_ids.update_new(*(c.to_pylist() for c in b.columns))
        self.reading: str | None = None        # physical_name() of the file being read (the rows' ingest_file)
        self.replacing: Path | None = None     # a file read before, now changed: its games may replace theirs
        self.file_keys = {"hands": key_index.KeySet(), "games": key_index.KeySet()}
        # reject keys the file being read raised (new or already stored): 16 bytes a key, spilled past a bound, as a
        # file of millions of bad lines (a bomb read with --format) raises as many
        self.file_rejects = key_index.KeySet()
        # game id -> (game key, recorded source_file, file read) of the games the file being replaced gives now
        self.file_games = key_index.GameIndex()
        self._names: dict[str, bool] = {}      # recorded source_file -> names the file being replaced
        self.copies = game_copies.LakeCopies(self.lake)   # stored copies of games whose id another file gives
        self.unflushed: set[str] = set()       # game ids buffered since the last flush (not in the lake yet)
        # holdings rows to write (pipeline.ingest.holdings), and those of a file read again with the same bytes,
        # held back (not None) while they may equal its stored ones
        self.held = holdings.Rows()
        self.held_back: holdings.Rows | None = None
        self._early: dict[str | None, key_index.KeySet] = {}   # file -> hand keys of holdings written ahead of a flush
        self._holding_files: set[str] | None = None   # files with stored holdings (read when first needed)
        self.seq = 0                           # reads so far in this run; last_read: file -> seq of its last read
        self.last_read: dict[str, int] = {}
        self.orphans: list[takeover.Orphan] = []   # hands removed because their file no longer holds them
        self.reread_files: set[str] = set()    # files to read again at the end (a copy of theirs was displaced)
        # game id -> the old copy to drop: (game_key, hand keys, (source_file, ingest_file))
        self.richer: dict[str, tuple] = {}
        # sources with single-deal copies in the lake, and their deal index (loaded when first needed)
        self.copy_sources: set[str] = set(pc.unique(lakemod.read(
            self.lake, "games", columns=["source"],
            filter=pc.field("source_format").isin(sorted(DEAL_COPY_FORMATS))).column("source")).to_pylist())
        self._deals: dict[str, deal_copies.DealIndex] = {}
        self.added = key_index.KeySet(hex_keys=False)   # game ids added by this run (a replaced one is not counted)
        self.file_formats: dict[str | None, str] = {}   # ingest_file -> the reader that read it in this run
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebelote-lake-writer")
        # called with the byte offset (in the decompressed stream) reached in the file being read, for progress
        self.on_bytes: Callable[[int], None] | None = None
        self._pending: Future | None = None     # the background write of the last flush_later

    def add_game(self, rec: GameRecord) -> None:
        """Buffer a game accepted by the checks (its hands already in the lake count as duplicates) and record
        that the file being read holds it."""
        self.hold(rec, holdings.STORED)
        if self.replacing is not None:
            self.copies.forget([rec.game["game_id"]])    # the file's new version of a game replaces its old one
            self.game_ids[rec.game["game_id"]] = (rec.game["game_key"], _intern(rec.game["source_file"]), self.reading)
            self.file_keys["games"].add(rec.game["game_key"])
            self.file_keys["hands"].update(h["hand_key"] for h in rec.hands)
            self.file_games[rec.game["game_id"]] = (rec.game["game_key"], rec.game["source_file"], self.reading)
        self.remember(rec.game["game_id"], rec.game["game_key"], rec.game["source_file"])
        rec.game["ingest_file"] = self.reading
        new = [h for h in rec.hands if h["hand_key"] not in self.keys["hands"]]
        for h in new:
            h["ingest_file"] = self.reading
        self._index_game(rec)
        self.summary.duplicates += len(rec.hands) - len(new)
        self.summary.kept_leniently += sum(any("--on-error lenient" in e for e in h.get("errors") or []) for h in new)
        for h in new:
            self.keys["hands"].add(h["hand_key"])
        self.buf["hands"].extend(new)
        self.buffered_hands += len(new)
        self.summary.hands += len(new)
        if rec.game["game_key"] not in self.keys["games"]:
            # a game whose key is known is stored or buffered already (under this id: its first copy added it)
            self.unflushed.add(rec.game["game_id"])
            self.keys["games"].add(rec.game["game_key"])
            self.buf["games"].append(rec.game)
            self.summary.games += 1
        if self.buffered_hands >= FLUSH_HANDS:
            self.flush_later()

    def hold(self, rec: GameRecord, copy: str, by_deal: bool = False) -> None:
        """Record in ``holdings`` that the file being read holds the hands of ``rec`` (``copy``: stored, poorer
        or set_aside, see :mod:`pipeline.ingest.holdings`), with each hand's deal digest when ``rec`` is a
        single-deal copy or ``by_deal`` (a copy of a stored game under another id: matched by deal, not by key)."""
        single = by_deal or (rec.game["source_format"] in DEAL_COPY_FORMATS and len(rec.hands) == 1)
        (self.held if self.held_back is None else self.held_back).add_hands(self.reading, rec.hands, copy, single)
        self._held_back_overflow()
        if self._holding_files is not None:
            self._holding_files.add(self.reading)

    def hold_rows(self, hands: pa.Table) -> None:
        """:meth:`hold` for the columnar reader: ``hands`` rows of accepted games (stored now or before)."""
        (self.held if self.held_back is None else self.held_back).add_table(self.reading, hands)
        self._held_back_overflow()
        if self._holding_files is not None:
            self._holding_files.add(self.reading)

    def _held_back_overflow(self) -> None:
        """A file read again with the same bytes holds its rows back (they are dropped if nothing changed);
        past FLUSH_HANDS rows, its stored holdings are replaced now instead, so memory stays bounded.

        Holdings rows otherwise wait for the next flush, which new hands trigger: a long run of duplicates
        (a file read again, a copy of an imported one) would keep them all, 10^7 rows for a 10^7-hand file,
        and with the columnar reader the worker's tables they point into. Every 2 x FLUSH_HANDS rows they are
        written; the cut depends on the rows alone, so both readers write the same files."""
        if self.held_back is not None and len(self.held_back) >= FLUSH_HANDS:
            self._replace_holdings()
        while len(self.held) >= 2 * FLUSH_HANDS:
            rows = self.held.take_first(2 * FLUSH_HANDS)
            files = rows.column("ingest_file")
            for f in pc.unique(files).to_pylist():      # remembered until the next flush (drop_early_holdings)
                mine = rows.column("hand_key").filter(pc.equal(files, f) if f is not None else pc.is_null(files))
                self._early.setdefault(f, key_index.KeySet()).extend(mine)
            self.wait()
            self._pending = self._pool.submit(_write_buffers, self.lake, {"holdings": [rows]})

    def drop_early_holdings(self) -> int:
        """After a run stopped (``--strict``, an error, Ctrl-C): delete the holdings rows written ahead of a
        flush (:meth:`_held_back_overflow`) since the last one. A stop drops what was read since the last flush,
        as it did before holdings were written early: a file never imported must not be left holding hands
        (``--prune`` would never clear them; the summary named it as 'holding removed hands no longer on
        disk'). Returns rows removed."""
        early, self._early = self._early, {}
        n = 0
        for f, keys in early.items():
            n += lake_write.delete_rows(self.lake, holdings.TABLE, "ingest_file", {f},
                                     where=lambda t, keys=keys: pa.array(keys.contains_many(t.column("hand_key"))))
        return n

    def _replace_holdings(self) -> None:
        """Delete the stored holdings of the file being read; its new ones (any held back) are written from now on."""
        back, self.held_back = self.held_back, None
        self.flush()
        holdings.remove(self.lake, {self.reading})
        if back is not None:
            self.held.extend(back)

    def _has_holdings(self, name: str) -> bool:
        """Whether the lake stores holdings of file ``name`` (a file read before the table existed has none: read
        again, even with the same bytes, its holdings are written)."""
        if self._holding_files is None:
            self.flush()
            files = lakemod.read(self.lake, holdings.TABLE, columns=["ingest_file"]).column("ingest_file")
            self._holding_files = set(pc.unique(files).to_pylist())
        return name in self._holding_files

    def finish_holdings(self, changed: bool) -> None:
        """After a file read with the same bytes as before: replace its stored holdings only if what it gave
        ``changed`` (otherwise the rows held back are the stored ones again, and are dropped)."""
        if self.held_back is not None:
            if changed:
                self._replace_holdings()
            else:
                self.held_back = None

    def add_rows(self, hands: pa.Table, games: pa.Table) -> None:
        """Buffer new hands and games rows (tables with the lake schemas) that the columnar native reader
        has already checked and deduplicated against the keys; the caller flushes when FLUSH_HANDS is reached."""
        if hands.num_rows:
            hands = self._stamped(hands)
            self.buf["hands"].append(hands)
            self.buffered_hands += hands.num_rows
        if games.num_rows:
            self.buf["games"].append(self._stamped(games))
            self.unflushed.update(games.column("game_id").to_pylist())   # compared with once written
            self._index_rows(hands, games)

    def _stamped(self, t: pa.Table) -> pa.Table:
        """``t`` with its ``ingest_file`` column set to the file being read."""
        i = t.schema.get_field_index("ingest_file")
        return t.set_column(i, t.schema.field(i), pa.repeat(pa.scalar(self.reading, pa.string()), t.num_rows))

    def remember(self, gid: str, game_key: str, source_file: str) -> None:
        """Note that game ``gid`` (key ``game_key``, recorded ``source_file``) is in the lake, read from the
        file being read, unless the lake already had it (the first copy is the one conflicts name)."""
        if gid not in self.game_ids:
            self.game_ids[gid] = (game_key, _intern(source_file), self.reading)

    def remember_all(self, gids, game_keys, source_files) -> None:
        """:meth:`remember` for games none of which the lake has and whose ids are all different."""
        self.game_ids.update_new(gids, game_keys, source_files, self.reading)

    def add_reject(self, rej: Reject) -> None:
        row = rej.row()
        # file-level rejects (empty, unreadable...) come before start_file: they name the path they were read from
        row["ingest_file"] = self.reading or physical_name(Path(row["source_file"]))
        self.summary.rejected[rej.code] += 1
        self.file_rejects.add(row["reject_key"])
        if row["reject_key"] not in self.keys["rejects"]:
            self.keys["rejects"].add(row["reject_key"])
            self.buf["rejects"].append(row)
            if len(self.buf["rejects"]) >= FLUSH_HANDS:     # a file of bad lines alone buffers no hand to flush on
                self.flush_later()

    def note_file_keys(self, game_keys, hand_keys, game_ids=(), source_files=()) -> None:
        """Keys of games and hands read from the file being replaced (the columnar native reader's batches:
        ``hand_keys`` an Arrow string array), with the games' ids and recorded source files."""
        if self.replacing is not None:
            self.file_keys["games"].update(game_keys)
            self.file_keys["hands"].extend(hand_keys)
            self.file_games.update(list(game_ids), list(game_keys), list(source_files), self.reading)

    def start_file(self, path: Path | None, replacing: bool = False, same_bytes: bool = False) -> None:
        """Begin reading ``path`` (None: between files); ``replacing`` when the manifest says it was read
        before (and has changed): its rows then replace the ones it gave before (:meth:`replace_stale`).
        ``same_bytes``: its bytes are those read before (``--reread``, or read again to take over hands), so its
        holdings are held back until :meth:`finish_holdings` knows whether they changed; a changed file's
        stored holdings are deleted now, before its new ones are written."""
        self.held_back = None         # rows held back by a file whose read failed: its stored holdings stand
        self.reading = None if path is None else _intern(physical_name(path))
        self.replacing = path if replacing else None
        if path is not None:
            self.seq += 1
            self.last_read[self.reading] = self.seq
            if replacing and not same_bytes:
                self._replace_holdings()
            elif replacing and self._has_holdings(self.reading):
                self.held_back = holdings.Rows()
        self.file_keys = {"hands": key_index.KeySet(), "games": key_index.KeySet()}
        self.file_rejects = key_index.KeySet()
        self.file_games = key_index.GameIndex()
        self._names = {}

    def flush(self) -> None:
        """Write every buffered row to the lake and wait until it is written (and any earlier write)."""
        self.flush_later()
        self.wait()

    def flush_later(self) -> None:
        """Hand the buffered rows to the background writer and go on reading: the Parquet encoding of one
        flush overlaps the parsing of the next rows. At most one write is pending (memory stays bounded by two
        flushes of rows); an error of a write is raised here or by :meth:`wait`."""
        if len(self.held):
            self.buf["holdings"].append(self.held.table())
            self.held = holdings.Rows()
        self._early = {}       # the rest of what they were written ahead of is written now
        buf = {t: rows for t, rows in self.buf.items() if rows}
        self.buf = {t: [] for t in self.buf}
        self.buffered_hands = 0
        self.unflushed = set()
        self.wait()
        if buf:
            self._pending = self._pool.submit(_write_buffers, self.lake, buf)

    def wait(self) -> None:
        """Wait for the pending background write; raises what it raised (OSError, SchemaError...)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        """Wait for the pending write (its error is raised) and stop the background writer."""
        try:
            self.wait()
        finally:
            self._pool.shutdown(wait=True)
            self.copies.close()


def _write_buffers(lake, buf: dict[str, list]) -> None:
    """Append each table's buffered rows to the lake (the background writer's job, in flush order)."""
    for table, rows in buf.items():
        lake_write.append(lake, table, _table(table, rows))


def _table(table: str, rows: list) -> pa.Table:
    """One Arrow table (schema of ``table``) of buffered row dicts and tables, in order."""
    sch, parts, run = schema.schema(table), [], []
    for r in rows:
        if isinstance(r, pa.Table):
            if run:
                parts.append(pa.Table.from_pylist(run, schema=sch))
                run = []
            parts.append(r)
        else:
            run.append(r)
    if run:
        parts.append(pa.Table.from_pylist(run, schema=sch))
    return parts[0] if len(parts) == 1 else pa.concat_tables(parts)
