"""The ingest driver: walk paths, detect formats, read, validate, deduplicate and write the lake.

This is the one place that decides what an error does: every Reject goes to the ``rejects`` table
(and, under ``strict``, stops the run with :class:`StrictError`). Files no reader recognises are
reported in the summary, never guessed.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import sys
import time
import zlib
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor, wait as futures_wait
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import ingest, lake as lakemod, names, schema
from pipeline.ingest import (archives, content_keys, deal_copies, fast_native, game_copies, holdings, key_index, line_ends,
                             native_columns, native_jsonl, takeover)
from pipeline import limits
from pipeline.ingest import lenient as leniency
from pipeline.ingest.records import GameRecord, Line, Notice, Provenance, Reject
from pipeline.words import count

HEAD_BYTES = 65536
FLUSH_HANDS = 50_000
PROGRESS_BYTES = 1 << 20    # the progress callback is called each time this many more bytes were read


class StrictError(RuntimeError):
    """Raised under --strict at the first rejected record; the message names file, line, game, hand."""


@dataclass
class IngestSummary:
    """Counts of one ingest run; ``str()`` is the one-line summary."""

    files: int = 0
    games: int = 0
    hands: int = 0
    duplicates: int = 0
    rejected: Counter = field(default_factory=Counter)
    unrecognised: list[str] = field(default_factory=list)
    unrecognised_named: list[str] = field(default_factory=list)   # ... of them, files named on the command line
    documentation: list[str] = field(default_factory=list)   # files in folders no reader recognised, named as docs (README.md)
    formats: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    bytes: int = 0
    unchanged: int = 0
    same_game: int = 0        # games skipped: already imported from another file with the same deals and plays
    same_content: int = 0     # games skipped: the content of a stored game under another id (a renamed folder)
    replaced_by_richer: int = 0   # ... or replaced, this copy carrying more of the source's results
    same_deal: int = 0        # single-deal copies skipped: the deal is already imported, as richly, from another file
    deal_replaced: int = 0    # single-deal copies dropped from the lake for a richer copy of their deal
    kept_leniently: int = 0   # hands kept under --on-error lenient at a lower completeness (see ingest.lenient)
    replaced: int = 0    # hands of changed files removed because the new version of the file no longer has them
    rejects_cleared: int = 0   # rejects of changed files that their new version no longer raises (removed)
    earlier_rejects: int = 0   # rejects stored by earlier runs for the unchanged files this run skipped
    gone: list[str] = field(default_factory=list)   # files imported before, now gone from a folder imported again
    gone_hands: int = 0        # ... the hands they had brought, removed (those another file holds are taken over)
    gone_rejects: int = 0      # ... and their rejects, removed
    gone_kept: bool = False    # gone files were only named (no --prune): their rows stay
    taken_over: int = 0        # hands a file no longer holds, brought back from another file that does
    reread: list[str] = field(default_factory=list)   # files read again because they hold such hands
    rechecked: list[str] = field(default_factory=list)   # files read again: a whole game disagrees with their copy
    holders_missing: int = 0   # files that held such hands but are no longer on disk (not read)
    notices: int = 0           # things readers noticed that are not errors (an exact repeat of a line)
    cr_files: list[str] = field(default_factory=list)   # files whose lines end in CR alone, read with CR as line end
    workers_lost: list[str] = field(default_factory=list)   # files whose ingest worker died: read on in this process
    # per reader that read files: {"files", "games", "hands", "duplicates", "rejected"} added while its files were
    # read, before any drop; ``dropped``: its one-deal games of this run dropped since for a richer copy
    by_format: dict[str, Counter] = field(default_factory=dict)
    dropped: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict:
        """The counts as plain JSON types (``rebelote ingest --json``), with the one-line summary as ``summary``."""
        d = {k: (dict(v) if isinstance(v, Counter) else v) for k, v in vars(self).items()}
        d["by_format"] = {k: dict(v) for k, v in self.by_format.items()}
        d["summary"] = str(self)
        return d

    def _counts(self) -> tuple[int, int, int, int]:
        """(games, hands, duplicates, rejected) added so far, drops put back (a dropped copy is 1 game of 1 hand)."""
        k = sum(self.dropped.values())
        return self.games + k, self.hands + k, self.duplicates, sum(self.rejected.values())

    def format_lines(self) -> list[str]:
        """One line per reader that read files, in name order: ``"  NAME: F files, G games, H hands, D
        duplicates skipped, R rejected"`` (this run's counts; games and hands net of the one-deal copies dropped
        for a richer copy, so the lines add up to the total line's games and hands)."""
        out = []
        for name, c in sorted(self.by_format.items()):
            games, hands = c["games"] - self.dropped[name], c["hands"] - self.dropped[name]
            out.append(f"  {name}: {count(c['files'], 'file')}, {count(games, 'game')}, {count(hands, 'hand')}, "
                       f"{count(c['duplicates'], 'duplicate')} skipped, {c['rejected']} rejected")
        return out

    def __str__(self) -> str:
        rej = sum(self.rejected.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.rejected.items()))
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        s = (f"ingest: {count(self.files, 'file')}, {count(self.games, 'game')}, {count(self.hands, 'hand')}, "
             f"{count(self.duplicates, 'duplicate')} skipped, {rej} rejected{f' ({by})' if by else ''}, {self.seconds:.2f} s, {rate:,.0f} hands/s")
        if self.documentation:
            s += f"; {count(len(self.documentation), 'documentation file')} skipped ({_names(self.documentation)})"
        if self.unrecognised:
            s += f"; {count(len(self.unrecognised), 'file')} not recognised"
            if self.unrecognised_named:
                k = len(self.unrecognised_named)
                s += (f" ({'all' if k == len(self.unrecognised) else k} named on the command line: exit status 1; "
                      "--format forces a reader)")
        if self.unchanged:
            s += f"; {count(self.unchanged, 'unchanged file')} skipped"
        if self.replaced:
            s += f"; {count(self.replaced, 'hand')} of changed files superseded (edited or removed)"
        if self.same_game or self.replaced_by_richer:
            s += (f"; {count(self.same_game + self.replaced_by_richer, 'game')} already imported from another file "
                  f"(same deals{f', {self.replaced_by_richer} replaced by a copy with more recorded results' if self.replaced_by_richer else ''})")
        if self.same_content:
            s += (f"; {count(self.same_content, 'game')} already imported under another id (the same content: a renamed "
                  "or copied game folder)")
        if self.same_deal or self.deal_replaced:
            k = self.same_deal + self.deal_replaced
            s += (f"; {k} single-deal cop{'y' if k == 1 else 'ies'} of deals already imported from "
                  f"another file ({self.same_deal} skipped, {self.deal_replaced} replaced by a richer copy)")
        if self.kept_leniently:
            s += f"; {count(self.kept_leniently, 'damaged hand')} kept (lenient)"
        if self.rejects_cleared:
            s += f"; {count(self.rejects_cleared, 'reject')} of changed files cleared (no longer raised)"
        if self.earlier_rejects:
            s += (f"; {count(self.earlier_rejects, 'reject')} from earlier runs remain in the unchanged files skipped "
                  "(`rebelote rejects` lists them)")
        if self.gone:
            s += (f"; {count(len(self.gone), 'file')} gone from {'its folder' if len(self.gone) == 1 else 'their folders'}"
                  + (" since imported (rows kept; --prune removes them)" if self.gone_kept else
                     f" since imported ({count(self.gone_hands, 'hand')}, {count(self.gone_rejects, 'reject')} removed)"))
        if self.reread:
            s += (f"; {count(len(self.reread), 'file')} read again to take over hands their file no longer holds "
                  f"({self.taken_over} taken over)")
        if self.rechecked:
            s += (f"; {count(len(self.rechecked), 'file')} read again: a whole game disagrees with "
                  f"{'its' if len(self.rechecked) == 1 else 'their'} single-deal copies")
        if self.holders_missing:
            s += f"; {count(self.holders_missing, 'file')} holding removed hands no longer on disk (not read)"
        if self.notices:
            s += f"; {count(self.notices, 'notice')}"
        if self.workers_lost:
            s += (f"; an ingest worker process died reading {count(len(self.workers_lost), 'file')}, read on in this "
                  f"process instead: {', '.join(self.workers_lost)}")
        if self.cr_files:
            s += (f"; {count(len(self.cr_files), 'file')} with old Mac line ends (CR alone) read with CR as the line "
                  "end")
        return s


DOCUMENTATION = "documentation (skipped)"
"""What ``on_file`` is given for a README, FORMAT.md... met in a folder (:func:`pipeline.ingest.is_documentation`)."""


def _names(paths: list[str], limit: int = 3) -> str:
    """``"README.md, FORMAT.md ..."``: the distinct file names among ``paths``, the first ``limit`` of them."""
    seen = list(dict.fromkeys(Path(p).name for p in paths))
    return ", ".join(seen[:limit]) + (" ..." if len(seen) > limit else "")


class NotRegularFileError(OSError):
    """A path named on the command line that exists but is neither a regular file nor a folder."""


def walk(paths: list[Path]) -> Iterator[Path]:
    """Files under the given paths (folders recursively; a folder's own files before its subfolders', each
    sorted by name; hidden files skipped). Top-level files first means an index such as OpenSpiel's
    histories.jsonl is read before the per-deal files that repeat it. Raises FileNotFoundError for a named path
    that does not exist, NotRegularFileError for one that is a pipe, socket or device (a folder's are skipped)."""
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*"), key=lambda f: (len(f.relative_to(p).parts), str(f))):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    yield f
        elif p.is_file():
            yield p
        elif p.exists():     # a pipe (``<(zcat f.gz)``), socket or device: read twice, it would be empty (no_records)
            raise NotRegularFileError(f"{p}: not a regular file (a pipe, socket or device): the ingest reads a file "
                                      "twice (detection, then import) and records its size and content hash; save "
                                      "it to a file first")
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")


def _open(path: Path):
    with path.open("rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")


def _readable_head(path: Path) -> bytes:
    """As much of the start of a damaged (e.g. truncated gzip) file as decompresses, up to HEAD_BYTES."""
    out = b""
    try:
        with _open(path) as fh:
            while len(out) < HEAD_BYTES:
                chunk = fh.read(4096)
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError, zlib.error):
        pass
    return out[:HEAD_BYTES]


def _lines(binary, raw_bad: bool = False) -> Iterator[Line]:
    """(line number, byte offset, text) per line of ``binary``; a line that is not UTF-8 gives None, or its bytes
    with ``raw_bad`` (the native reader names the game they still show)."""
    offset = 0
    for i, raw in enumerate(binary, start=1):
        try:
            text: str | bytes | None = raw.decode("utf-8")
            if i == 1:
                text = text.removeprefix("\ufeff")   # a byte-order mark is not content
        except UnicodeDecodeError:
            text = raw if raw_bad else None
        yield i, offset, text
        offset += len(raw)


SAME_GAME = object()   # conflict(): the game is already in the lake from another file, same deals: skip it
DEAL_COPY_FORMATS = ingest.DEAL_COPY_FORMATS
"""Readers whose one-hand games are copies of deals other files may hold too (see pipeline.ingest.deal_copies)."""

SET_ASIDE_CODES = {"duplicate_game_id", "conflicting_copy"}
"""Rejects of a game only because another file's version came first: its file still holds it (holdings)."""


class _Writer:
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
        self.file_rejects: set[str] = set()    # reject keys the file being read raised (new or already stored)
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

    def _copy_in_lake(self, gid: str, source: str) -> "game_copies.Copy | None":
        """The copy of game ``gid`` already imported (:class:`pipeline.ingest.game_copies.LakeCopies`: only the
        rows of that game are read, or one streamed pass over its source once many games clash)."""
        if gid in self.unflushed:
            self.flush()      # a copy still buffered (by the columnar reader or earlier in the run) is compared once written
        else:
            self.wait()
        if gid in self.richer and gid not in self.copies.cache:
            self.drop_poorer_copies()     # the lake must hold one copy of the game when it is read
        return self.copies.get(gid, source)

    def conflict(self, rec: GameRecord) -> Reject | None:
        """A game whose id is already in the lake with other content (the same game from another file or format):
        it is not imported a second time; the reject says where the first one came from. The exception is a
        changed file read again: its games replace the ones it gave before (see :meth:`replace_stale`)."""
        gid = rec.game["game_id"]
        seen = self.game_ids.get(gid)
        if seen is None or seen[0] == rec.game["game_key"]:
            return None
        if self.replacing is not None and self._from_replaced_file(seen[1], seen[2], rec.game["source_file"]):
            return None
        source = rec.game["source"]
        old = self._copy_in_lake(gid, source)
        same_play = old is not None and old.fingerprint == game_copies.fingerprint(rec.hands)
        new_identity = game_copies.identity(rec.game) if same_play else None
        if same_play and old.identity is not None and new_identity is not None and old.identity != new_identity:
            # the same deals and plays but another game (a player renamed, another target): a conflicting copy
            line = f", line {old.first_line}" if old.first_line is not None else ""
            return Reject(rec.where, "duplicate_game_id",
                          f"game {gid} is already in the lake from {seen[1]}{line} with the same deals and plays but "
                          f"other {game_copies.differences(old.identity, new_identity)}; "
                          "not imported twice", "", gid)
        if same_play:
            # the same deals and plays from another file or format (OpenSpiel's state files repeat its histories):
            # not a conflict. The copy that carries more of the source's results is kept.
            richness = game_copies.richness(rec.game, rec.hands)
            if richness > old.richness:
                # every hand of the richer copy is written (with its own provenance); the old copy's rows,
                # matched by key and file, are dropped once it is (drop_poorer_copies)
                old_keys = self.copies.hand_keys(gid, source)
                self.richer[gid] = (old.game_key, old_keys, (seen[1], seen[2]))
                self.keys["hands"] -= old_keys
                self.summary.replaced_by_richer += 1
                self.game_ids[gid] = (rec.game["game_key"], _intern(rec.game["source_file"]), self.reading)
                self.copies.put(gid, game_copies.Copy(old.fingerprint, richness, rec.game["game_key"],
                                                      {h["hand_key"] for h in rec.hands},
                                                      game_copies.identity(rec.game),
                                                      min((h["source_line"] for h in rec.hands
                                                           if h.get("source_line") is not None), default=None)))
                return None
            self.summary.duplicates += len(rec.hands)
            self.summary.same_game += 1
            return SAME_GAME
        read = f", file read: {seen[2]}" if seen[2] is not None and seen[2] != seen[1] else ""
        return Reject(rec.where, "duplicate_game_id",
                      f"game {gid} is already in the lake with other content (imported from {seen[1]}{read}); "
                      "not imported twice", "", gid)

    def same_content(self, rec: GameRecord) -> Notice | None:
        """A game read by a reader whose game ids come from the file's path (``GAME_ID_FROM_PATH``: a coinche-cli
        game is named after its folder) under an id the lake does not hold, whose content
        (:func:`pipeline.ingest.game_copies.content`: every hand's deal, auction, plays, players and results, and
        the game's) is that of a stored game of its source under another id: the same game from a renamed or
        copied folder. Returns the notice saying so, naming the stored game and its file (the caller skips the
        game as a duplicate and records that the file holds it, by deal, so that it takes the rows over once the
        stored game's file is gone and pruned: :mod:`pipeline.ingest.takeover`); None otherwise."""
        gid, source = rec.game["game_id"], rec.game["source"]
        if gid in self.game_ids:
            return None       # the same id: conflict() and add_game() decide
        for e in self._stored_content(source, game_copies.content(rec.game, rec.hands)):
            seen = self.game_ids.get(e.game_id)
            if e.game_id == gid or seen is None or seen[0] != e.game_key:
                continue      # left the lake, or edited, since it was indexed
            if self.replacing is not None and seen[2] == self.reading:
                continue      # given before by the changed file being read: about to be replaced
            self.summary.same_content += 1
            self.summary.duplicates += len(rec.hands)
            where = seen[2] or seen[1]
            return Notice(rec.where, f"the same game as {e.game_id}, already imported from {where} (same deals, "
                          f"auctions, plays, players and results; a renamed or copied game folder?): not imported "
                          f"twice ({count(len(rec.hands), 'hand')} skipped as duplicates)", gid)
        return None

    def _stored_content(self, source: str, digest: tuple) -> list:
        """The stored games of ``source`` with content ``digest`` (the index is read after a flush, so that it sees
        every game written so far)."""
        if source not in self.copies.contents:
            self.flush()
        return self.copies.same_content(source, digest)

    def same_deal(self, rec: GameRecord) -> object | None:
        """Single-deal copies (:mod:`pipeline.ingest.deal_copies`): SAME_GAME when ``rec`` is a single-deal copy
        of a deal already imported as richly from another file (skip it); otherwise None (import it), after
        marking the poorer single-deal copies of its deals in the lake to be dropped (:meth:`drop_poorer_copies`)."""
        source = rec.game["source"]
        single = rec.game["source_format"] in DEAL_COPY_FORMATS and len(rec.hands) == 1
        if not single and source not in self.copy_sources:
            return None
        index = self._deal_index(source)
        if any(e.hand_key == h["hand_key"] for h in rec.hands for e in index.matches(h)):
            return None     # the very hand already imported: a plain duplicate, which add_game counts and keeps
        # the copies the changed file being read gave before are about to be replaced: they do not count
        before = lambda e: self.replacing is not None and e.files[1] == self.reading  # noqa: E731
        if single:
            h = rec.hands[0]
            clash = [e for e in index.conflicts(h) if not before(e)]
            if clash:     # another copy of this deal says something else: the first one read is kept
                e = clash[0]
                diff = deal_copies.difference(deal_copies.content(h), e.content)
                return Reject(rec.where, "conflicting_copy", f"this deal is already imported from {e.where()} "
                              f"with other content: {diff} (this copy vs that one); this copy is not imported",
                              "", rec.game["game_id"], h["hand_no"])
            if any(e.richness >= deal_copies.richness(h) for e in index.matches(h) if not before(e)):
                self.summary.same_deal += 1
                self.summary.duplicates += 1
                return SAME_GAME
        for h in rec.hands:
            for e in index.matches(h):
                if e.single and e.richness < deal_copies.richness(h):
                    self._drop_copy(index, e)
            if not single:
                # a whole game is the source's own record of its deals: a single-deal copy that disagrees with it
                # leaves the lake, and its file is read again at the end, which rejects it (conflicting_copy)
                for e in index.conflicts(h):
                    if e.single and not before(e):
                        self._drop_copy(index, e, counted=False)
                        self.reread_files.add(e.files[1] or physical_name(Path(e.files[0])))
        return None

    def _index_game(self, rec: GameRecord) -> None:
        """Keep the deal index of the game's source (when loaded) and the sources with copies up to date."""
        index = self._deals.get(rec.game["source"])
        if index is not None:
            index.add(rec.hands, {rec.game["game_id"]: rec.game["game_key"]}, DEAL_COPY_FORMATS,
                      {rec.game["game_id"]: len(rec.hands)})
        if rec.game["source_format"] in DEAL_COPY_FORMATS:
            self.copy_sources.add(rec.game["source"])
        self.added.add(rec.game["game_id"])
        if rec.game["source"] in self.copies.contents:
            self.copies.add_content(rec.game["source"], game_copies.content(rec.game, rec.hands), game_copies.Stored(
                rec.game["game_id"], rec.game["game_key"], rec.game["source_file"], self.reading))

    def _deal_index(self, source: str) -> "deal_copies.DealIndex":
        """The deal index of ``source``: the lake's hands of that source, read once (after a flush)."""
        index = self._deals.get(source)
        if index is None:
            self.flush()
            only = pc.field("source") == source
            hands = lakemod.read(self.lake, "hands", columns=deal_copies.COLUMNS, filter=only).to_pylist()
            games = lakemod.read(self.lake, "games", columns=["game_id", "game_key", "n_hands"], filter=only)
            keys = dict(zip(games.column("game_id").to_pylist(), games.column("game_key").to_pylist()))
            n_hands = dict(zip(games.column("game_id").to_pylist(), games.column("n_hands").to_pylist()))
            index = self._deals[source] = deal_copies.DealIndex()
            index.add(hands, keys, DEAL_COPY_FORMATS, n_hands)
        return index

    def _drop_copy(self, index: "deal_copies.DealIndex", e: "deal_copies.Copy", counted: bool = True) -> None:
        """Mark a single-deal copy to be dropped from the lake once the copy that displaces it is written
        (``counted``: a poorer copy, counted in ``deal_replaced``; a conflicting one is counted when rejected)."""
        index.remove(e)
        self.richer[e.game_id] = (e.game_key, {e.hand_key}, e.files)
        self.keys["hands"].discard(e.hand_key)
        self.game_ids.pop(e.game_id, None)
        self.copies.forget([e.game_id])
        self.summary.deal_replaced += counted
        if e.game_id in self.added:      # imported earlier in this run: it no longer counts as imported
            self.added.discard(e.game_id)
            self.summary.games -= 1
            self.summary.hands -= 1
            self.summary.dropped[self.file_formats.get(e.files[1])] += 1

    def _from_replaced_file(self, recorded: str, physical: str | None, recorded_now: str | None) -> bool:
        """Whether a lake row (its ``source_file`` and ``ingest_file``) came from the changed file
        being read again. A row that records the physical file it was read from is matched by that alone, so
        two files that record the same ``source_file`` (two exports, two simulate outputs) never match each
        other's rows. A row written before ``ingest_file`` existed (null) is matched by the old rule: its
        ``source_file`` names the file, or the file gives the row's game now with the same recorded
        ``source_file`` (``recorded_now``; an edited export or simulate output)."""
        if physical is not None:
            return physical == self.reading
        if recorded == recorded_now:
            return True
        same = self._names.get(recorded)
        if same is None:      # once per distinct name: resolving a path per row took minutes at 10^6 rows
            same = self._names[recorded] = _same_file(recorded, self.replacing)
        return same

    def check(self, rec: GameRecord) -> Reject | None:
        """Checks shared by every reader, on the finished rows: a safe source name (it becomes a folder),
        values that fit the schema, hand numbers 1..n without repeats, at least one hand."""
        gid = rec.game.get("game_id")

        def rej(code: str, reason: str, hand_no=None) -> Reject:
            return Reject(rec.where, code, reason, "", gid, hand_no)
        source = rec.game.get("source")
        if not names.is_plain(source):
            return rej("bad_source", f"source {source!r} is not a plain name ({names.RULE}; it names a lake "
                                     "folder)")
        if not rec.hands:
            return rej("no_hands", "the game has no hands")
        err = schema.check_row("games", rec.game, ("game_key",))
        if err:
            return rej("bad_value", err)
        target, winner, n = rec.game.get("target"), rec.game.get("recorded_winner"), rec.game.get("n_players")
        if target is not None and target <= 0:
            return rej("bad_value", f"game target {target} must be a positive number of game points")
        if winner is not None and not 0 <= winner < (3 if n == 3 else 2):
            return rej("bad_value", f"recorded winner {winner} is not a team of this {n}-player game "
                                    f"(0..{2 if n == 3 else 1})")
        numbers = [h.get("hand_no") for h in rec.hands]
        if None in numbers:     # else two such hands would read as "hand number None appears twice"
            return rej("missing_field", f"the game's hand {numbers.index(None) + 1} (in record order) has no hand "
                                        "number")
        if len(set(numbers)) != len(numbers):
            dup = next(x for x in numbers if numbers.count(x) > 1)
            return rej("duplicate_hand_no", f"hand number {dup} appears twice", dup)
        for h in rec.hands:
            err = schema.check_row("hands", h, ("hand_key",))
            if err:
                return rej("bad_value", err, h.get("hand_no"))
        return None

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
            n += lakemod.delete_rows(self.lake, holdings.TABLE, "ingest_file", {f},
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

    def _index_rows(self, hands: pa.Table, games: pa.Table) -> None:
        """What :meth:`_index_game` does for one game, for the columnar reader's rows: add them to the loaded
        deal indexes of their sources (reloading an index from the lake after every block made a file mixing
        row-path and columnar lines quadratic: 74 s for 2,677 one-deal games)."""
        gid = games.column("game_id").to_pylist()
        self.added.update(gid)
        copies = pc.is_in(games.column("source_format"), value_set=pa.array(sorted(DEAL_COPY_FORMATS), pa.string()))
        self.copy_sources.update(pc.unique(games.column("source").filter(copies)).to_pylist())
        for src, index in self._deals.items():
            mine = hands.filter(pc.equal(hands.column("source"), src)) if hands.num_rows else hands
            if mine.num_rows:
                index.add(mine.select(deal_copies.COLUMNS).to_pylist(),
                          dict(zip(gid, games.column("game_key").to_pylist())), DEAL_COPY_FORMATS,
                          dict(zip(gid, games.column("n_hands").to_pylist())))
        for src in self.copies.contents:     # the loaded content indexes (same_content) learn the new games too
            mine = games.filter(pc.equal(games.column("source"), src))
            if not mine.num_rows:
                continue
            by_game: dict[str, list[dict]] = {}
            for h in hands.filter(pc.equal(hands.column("source"), src)).to_pylist() if hands.num_rows else ():
                by_game.setdefault(h["game_id"], []).append(h)
            for g in mine.to_pylist():
                own = by_game.get(g["game_id"], [])
                if len(own) == g["n_hands"]:     # a game some of whose hands were already stored is indexed once read
                    self.copies.add_content(src, game_copies.content(g, own), game_copies.Stored(
                        g["game_id"], g["game_key"], g["source_file"], self.reading))

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

    def note_file_keys(self, game_keys, hand_keys, game_ids=(), source_files=()) -> None:
        """Keys of games and hands read from the file being replaced (the columnar native reader's batches),
        with the games' ids and recorded source files."""
        if self.replacing is not None:
            self.file_keys["games"].update(game_keys)
            self.file_keys["hands"].update(hand_keys)
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
        self.file_rejects = set()
        self.file_games = key_index.GameIndex()
        self._names = {}

    def replace_stale(self) -> int:
        """After a changed file was read again: remove the rows it gave before that its new version no longer
        has (edited or deleted games and hands). What was computed from them (scores, game results, derived rows)
        is not ingest's: the next rescore finds it stale by its keys (:mod:`pipeline.rescore.stale`). A gone file
        is replaced this way by nothing. The hands removed are noted (:meth:`_note_orphans`) so that another file
        holding them takes them over. Returns hands removed."""
        path = self.replacing
        if path is None:
            return 0
        self.flush()
        # rows read from this file (ingest_file), and rows written before that column existed (null)
        mine = (pc.field("ingest_file") == self.reading) | pc.field("ingest_file").is_null()

        def old_rows(table: str, key: str) -> dict[str, str]:
            """key -> game id of the rows the file gave before and no longer gives, read batch by batch (memory:
            a batch, and the stale rows)."""
            out: dict[str, str] = {}
            names: dict[str | None, bool] = {}
            for b in lakemod.iter_batches(self.lake, table, columns=[key, "game_id", "source_file", "ingest_file"],
                                          filter=mine):
                keys, gids, sfs = (b.column(c) for c in (key, "game_id", "source_file"))
                stale = ~self.file_keys[table].contains_many(keys)
                if not stale.any():
                    continue
                # of the rows without ingest_file, only those naming the file or of a game it gives can be its own
                for n in pc.unique(sfs).to_pylist():
                    if n not in names:
                        names[n] = self._from_replaced_file(n, None, None)
                named = pa.array([n for n, mine_ in names.items() if mine_], pa.string())
                gid_list = gids.to_pylist()
                maybe = (pc.is_valid(b.column("ingest_file")).to_numpy(zero_copy_only=False)
                         | pc.is_in(sfs, value_set=named).to_numpy(zero_copy_only=False)
                         | self.file_games.contains_many(gid_list))
                rows = b.filter(pa.array(stale & maybe)).to_pylist()
                for r in rows:
                    now = self.file_games.get(r["game_id"])
                    if self._from_replaced_file(r["source_file"], r["ingest_file"], now and now[1]):
                        out[r[key]] = r["game_id"]
            return out
        old_games = old_rows("games", "game_key")
        old_hands = old_rows("hands", "hand_key")
        self._note_orphans(set(old_hands))
        lakemod.delete_rows(self.lake, "games", "game_key", set(old_games))
        n = lakemod.delete_rows(self.lake, "hands", "hand_key", set(old_hands))
        # the rejects its old version raised and its new one no longer does (a bad record fixed or removed)
        rej = lakemod.read(self.lake, "rejects", columns=["reject_key", "source_file", "ingest_file"], filter=mine)
        fixed = {k for k, sf, pf in zip(*(rej.column(c).to_pylist() for c in rej.column_names))
                 if k not in self.file_rejects and (pf == self.reading or (pf is None and _same_file(sf, path)))}
        lakemod.delete_rows(self.lake, "rejects", "reject_key", fixed)
        self.keys["rejects"] -= fixed
        self.summary.rejects_cleared += len(fixed)
        self.keys["games"] -= set(old_games)
        self.keys["hands"] -= set(old_hands)
        # games gone from the file (an edited one was re-keyed above), removed together
        gone = sorted(set(old_games.values()))
        self.game_ids.discard_many([g for g, v in zip(gone, self.game_ids.get_many(gone))
                                    if v is not None and v[0] in old_games])
        touched = set(old_games.values()) | set(old_hands.values())
        self.copies.forget(touched)
        for index in self._deals.values():
            index.drop_games(touched)
        self.replacing = None
        return n

    def _note_orphans(self, hand_keys: set[str]) -> None:
        """Remember the hands about to leave the lake because the file being replaced no longer holds them:
        at the end of the run, other files that hold a copy (:mod:`pipeline.ingest.holdings`) are read again."""
        if not hand_keys:
            return
        rows = lakemod.read(self.lake, "hands", columns=["hand_key", "game_id", "source", "n_players", "dealer",
                                                         "initial_hands"],
                            filter=pc.field("hand_key").isin(pa.array(sorted(hand_keys), pa.string())))
        for h in rows.to_pylist():
            deal = holdings.deal_digest(h["source"], h["n_players"], h["dealer"], h["initial_hands"])
            self.orphans.append(takeover.Orphan(h["hand_key"], h["game_id"], deal, self.reading, self.seq))

    def drop_poorer_copies(self) -> None:
        """Remove the copies that a richer copy of the same game replaced (after the richer one is written)."""
        if not self.richer:
            return
        self.flush()
        game_keys = {k for k, _, _ in self.richer.values() if k}
        hand_keys = set().union(*(h for _, h, _ in self.richer.values()))
        files = {f for _, _, f in self.richer.values()}
        lakemod.delete_rows(self.lake, "games", "game_key", game_keys)
        lakemod.delete_rows(self.lake, "hands", "hand_key", hand_keys, where=_read_from(files))
        self.keys["games"] -= game_keys
        self.keys["hands"] -= hand_keys
        self.richer = {}

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
        lakemod.append(lake, table, _table(table, rows))


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


def _intern(name: str | None) -> str | None:
    """One string object per file name (the game-id map holds one per game)."""
    return None if name is None else sys.intern(name)


def physical_name(path: Path) -> str:
    """The name of a file that ingest reads, as the manifest keys it and the ``ingest_file`` column records
    it: the absolute path, symbolic links resolved."""
    return str(Path(path).resolve())


def _read_from(files: set[tuple[str, str | None]]) -> Callable[[pa.Table], pa.ChunkedArray]:
    """A row condition for :func:`pipeline.lake.delete_rows` on hands: the row was read from one of ``files``,
    each a (recorded source_file, physical ingest_file) pair: by its ``ingest_file`` when the pair has one, by
    its ``source_file`` for a row whose ``ingest_file`` is null."""
    physical = pa.array(sorted({p for _, p in files if p is not None}), pa.string())
    recorded = pa.array(sorted({r for r, p in files if p is None}), pa.string())

    def cond(t: pa.Table):
        read = t.column("ingest_file")
        by_name = pc.and_(pc.is_null(read), pc.is_in(t.column("source_file"), value_set=recorded))
        return pc.or_(pc.is_in(read, value_set=physical), by_name)
    return cond


MANIFEST = "_manifest.json"


def _load_manifest(lake) -> dict:
    data = lakemod.read_bytes(lake, MANIFEST)
    try:
        return orjson.loads(data) if data else {}
    except orjson.JSONDecodeError:
        return {}


def _stamp(path: Path, fmt: str) -> list:
    """The manifest's record of a file: [size, modification time (ns), reader asked for]; the content hash is
    appended once the file is read (see :func:`_content_hash`)."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, fmt]


def _sidecar_record(path: Path, reader) -> list:
    """The manifest's record of the files beside ``path`` that its reader also reads (``reader.SIDECARS``: file
    names, e.g. colver's ``games.jsonl``): ``[{path: content hash or None when absent}]``, or ``[]`` when the
    reader has none. A changed sidecar makes the file "changed" on the next run, so what it decided (a game
    rejected for disagreeing with it) is decided again."""
    names = getattr(reader, "SIDECARS", ())
    if not names:
        return []
    return [{str(path.parent / n): (_content_hash(path.parent / n) if (path.parent / n).is_file() else None)
             for n in names}]


def _sidecars_unchanged(prev: list) -> bool:
    """Whether the sidecars recorded in a manifest entry (see :func:`_sidecar_record`) still hold the same bytes."""
    if len(prev) < 5:
        return True
    return all((_content_hash(Path(p)) if Path(p).is_file() else None) == h for p, h in prev[4].items())


_HASH_THREAD_BYTES = 8 << 20     # files from this size on are hashed on a thread (_hash_later)


def _hash_later(path: Path) -> Future:
    """:func:`_content_hash` of ``path`` computed on a thread (hashlib releases the GIL on large reads, so it
    overlaps the reading of the file); a file under 8 MB is hashed here at once (a thread per small file cost
    more than the hash: 2,400 OpenSpiel files took 3.8 s instead of 0.8)."""
    try:
        small = path.stat().st_size < _HASH_THREAD_BYTES
    except OSError:
        small = True        # the hash raises the error where the caller reads the future
    if small:
        done: Future = Future()
        try:
            done.set_result(_content_hash(path))
        except OSError as e:
            done.set_exception(e)
        return done
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebelote-hash")
    try:
        return pool.submit(_content_hash, path)
    finally:
        pool.shutdown(wait=False)


def _content_hash(path: Path) -> str:
    """SHA-256 of the file's bytes (as stored, compressed or not), for the manifest: a file touched but not
    changed (copied back, restored from a backup) is recognised as unchanged without being parsed."""
    import hashlib
    h = hashlib.sha256()
    with path.open("rb", buffering=0) as f:
        # 16 MB reads: hashlib releases the GIL while it hashes one, so on a thread (_hash_later) a few reads
        # leave the GIL to the main thread most of the time; a smaller file gets a buffer of its size, not 16 MB
        buf = bytearray(max(1, min(16 << 20, os.fstat(f.fileno()).st_size + 1)))
        view = memoryview(buf)
        while n := f.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def ingest_paths(paths: list[Path], lake: Path, fmt: str | None = None, strict: bool = False,
                 on_reject: Callable[[Reject], None] | None = None,
                 on_file: Callable[[Path, str | None], None] | None = None, reread: bool = False,
                 lenient: bool = False, on_repair: Callable[["leniency.Repair"], None] | None = None,
                 on_notice: Callable[[str], None] | None = None, prune: bool = False,
                 bounds: limits.Limits = limits.DEFAULT,
                 on_bytes: Callable[[int], None] | None = None) -> IngestSummary:
    """Import every file under ``paths`` into ``lake`` (a folder or URL, see :func:`pipeline.lake.locate`).

    Nothing is lost: a file imported before from inside a folder of ``paths`` and now gone from it keeps its
    games, hands and rejects in the lake (a notice names it and the summary counts it) unless ``prune``; a hand
    that leaves the lake because its file no longer holds it (edited, or gone and pruned) is taken over by
    another imported file that still holds a copy, which is read again (:mod:`pipeline.ingest.takeover`).

    A file no reader recognises is skipped and listed in the summary's ``unrecognised``; when ``paths`` names it
    (not met inside a folder) it is listed in ``unrecognised_named`` too, which the CLI turns into exit status 1.

    Args:
        fmt: force this reader (name from :func:`pipeline.ingest.names`) instead of detection.
        strict: raise :class:`StrictError` at the first reject (rows read before it are not written).
        lenient: keep a hand that fails a check at the completeness its data still supports, with the reason
            in its ``errors`` (:mod:`pipeline.ingest.lenient`); what cannot be kept honestly is still rejected.
        on_repair: called with each hand kept that way (the CLI prints them).
        prune: remove the games, hands and rejects of the files gone from a folder of ``paths`` since they were
            imported (their source is gone, so this cannot be undone by importing again; hence opt-in).
        bounds: the reading limits (:mod:`pipeline.limits`: decompressed bytes, line length, JSON depth);
            a file crossing one gives a reject of its own code, after the records read before it.
        reread: read every file even when the lake's manifest (``_manifest.json``: path, size, modification
            time, reader and content hash of each file read before) says it is unchanged; by default unchanged
            files are skipped without being opened (or, when only their time changed, after hashing them).
        on_reject: called with each Reject (the CLI prints them).
        on_file: called with each file and the reader chosen (None: not recognised; :data:`DOCUMENTATION`: a
            file documenting its folder, skipped).
        on_bytes: called, while a file is read, with the byte offset reached in it (decompressed: a gzip
            file's offsets run past its size on disk), for a progress bar.
        on_notice: called with a one-line message for what is worth saying but is no error: a reader's
            :class:`~pipeline.ingest.records.Notice`, a file gone since imported, a file read again to take
            over hands.
    Raises:
        FileNotFoundError for a missing path; KeyError for an unknown ``fmt``; StrictError.
    """
    for p in paths:                    # a big file named directly: its reader's kernels load while the lake's
        if fmt in (None, native_jsonl.NAME) and Path(p).is_file():     # keys are read (see fast_native.prepare_for)
            fast_native.prepare_for(Path(p))
    with lakemod.lock(lake), limits.applied(bounds):
        if not lenient:
            return _ingest(paths, lake, fmt, strict, on_reject, on_file, reread, on_notice, prune, on_bytes)
        with leniency.collecting() as repairs:
            summary = _ingest(paths, lake, fmt, strict, on_reject, on_file, reread, on_notice, prune, on_bytes)
        for r in repairs if on_repair else ():
            on_repair(r)
        return summary


def _ingest(paths, lake, fmt, strict, on_reject, on_file, reread=False, on_notice=None,
            prune=False, on_bytes=None) -> IngestSummary:
    t0 = time.perf_counter()
    summary = IngestSummary()
    writer = _Writer(lake, summary)
    writer.on_bytes = on_bytes
    run = _Run(lake, _load_manifest(lake), writer, strict, on_reject, on_file, on_notice)
    try:
        _ingest_files(paths, fmt, reread, run, prune)
    except BaseException:
        with contextlib.suppress(Exception):   # the run's own error is the one to report
            writer.close()
        with contextlib.suppress(Exception):
            writer.drop_early_holdings()
        raise
    writer.close()
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class _Run:
    """What every file of one ingest run shares: the lake, its manifest (written at the end), the writer and
    the callbacks."""

    lake: object
    manifest: dict
    writer: "_Writer"
    strict: bool
    on_reject: Callable[[Reject], None] | None
    on_file: Callable[[Path, str | None], None] | None
    on_notice: Callable[[str], None] | None
    _rejected_files: set[str] | None = None    # files the stored rejects came from (read_before), read once
    named: frozenset = frozenset()     # physical names of the files given on the command line (not met in a folder)

    def notice(self, text: str) -> None:
        if self.on_notice:
            self.on_notice(text)

    def read_before(self, key: str) -> bool:
        """Whether file ``key`` (a physical name) gave rows or rejects to the lake before this run: it is in the
        manifest, or it gave only rejects (empty, unreadable, UTF-16: such files are not in the manifest), which
        its next read clears once it no longer raises them."""
        if key in self.manifest:
            return True
        if self._rejected_files is None:
            self._rejected_files = set()
            if lakemod.has_table(lakemod.locate(self.lake), "rejects"):
                col = lakemod.read(self.lake, "rejects", columns=["ingest_file"]).column("ingest_file")
                self._rejected_files = {f for f in pc.unique(col).to_pylist() if f is not None}
        return key in self._rejected_files


def _ingest_files(paths, fmt, reread, run: _Run, prune: bool = False) -> None:
    writer, summary, manifest = run.writer, run.writer.summary, run.manifest
    forced = ingest.get(fmt) if fmt else None
    skipped: set[str] = set()     # physical names of the unchanged files skipped
    walked: set[str] = set()
    named = {physical_name(Path(p)) for p in paths if Path(p).is_file()}   # files given by name, not met in a folder
    run.named = frozenset(named)
    loc = lakemod.locate(run.lake)
    own = os.path.realpath(loc.root) + os.sep if loc.local else None      # the lake's files are not input
    noted = False
    for path in walk(paths):
        if own is not None and os.path.realpath(path).startswith(own):
            if not noted:
                run.notice(f"{loc.root}: the lake's own folder is inside a folder being imported: its files are not read")
                noted = True
            continue
        summary.files += 1
        key = physical_name(path)
        walked.add(key)
        unrecognised = len(summary.unrecognised)
        if not _import_file(path, key, forced, fmt or "auto", reread, run):
            skipped.add(key)
        if len(summary.unrecognised) > unrecognised and key in named:
            summary.unrecognised_named.append(str(path))
    writer.flush()
    writer.drop_poorer_copies()
    _drop_gone(paths, walked, run, prune)
    _take_over(run)
    lakemod.write_bytes(run.lake, MANIFEST, orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS))
    summary.earlier_rejects = _stored_rejects(run.lake, skipped) if skipped else 0


def _import_file(path: Path, key: str, forced, label: str, reread: bool, run: _Run, again: bool = False) -> bool:
    """Read one file into the lake unless the manifest says it is unchanged (then return False). ``forced``: the
    reader to use (None: detect it); ``label``: the manifest's record of that choice ('auto' or a reader name);
    ``again``: read again because of other files (:func:`_take_over`), so what it gave before is checked in
    full even when its bytes and counts are unchanged (a reject it raised may no longer hold)."""
    writer, summary, manifest = run.writer, run.writer.summary, run.manifest
    strict, on_reject, on_file = run.strict, run.on_reject, run.on_file
    prev, stamp = manifest.get(key), _stamp(path, label)
    sidecars_same = prev is None or _sidecars_unchanged(prev)
    if not reread and prev is not None and prev[:3] == stamp and sidecars_same:
        summary.unchanged += 1
        return False
    fast_native.prepare_for(path)      # a big native file: its compiled kernels load meanwhile
    # a file never read before needs its hash only for the manifest, once read: hashed on a thread meanwhile
    # (a big native file's once its worker processes are forked, see below)
    forking = prev is None and fast_native.forks_for(path)
    digest: str | Future | None = (None if forking else _hash_later(path)) if prev is None else _content_hash(path)
    if not reread and prev is not None and prev[2:4] == [stamp[2], digest] and sidecars_same:
        manifest[key] = stamp + [digest] + prev[4:]      # touched, same bytes: nothing to read
        summary.unchanged += 1
        return False
    try:
        with _open(path) as fh:
            head_bytes = fh.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as e:
        # a gzip cut short may still start with readable records: read what can be read
        head_bytes = _readable_head(path)
        if not head_bytes:
            _file_reject(path, label if forced else None, "unreadable_file", f"cannot read the file ({e})", writer,
                         strict, on_reject)
            if on_file:
                on_file(path, None)
            return True
    utf16 = "" if head_bytes[:2] in (b"\xff\xfe", b"\xfe\xff") else _utf16_without_bom(head_bytes)
    if utf16 is not None:
        _file_reject(path, label if forced else None, "bad_encoding",
                     f"the file is UTF-16 text{utf16}; convert it to UTF-8", writer, strict, on_reject)
        if on_file:
            on_file(path, None)
        return True
    packed = archives.packed(head_bytes)
    if packed is not None:      # a zip, xz, bzip2...: named for what it is instead of read as text
        _file_reject(path, label if forced else None, "unreadable_file", packed, writer, strict, on_reject)
        if on_file:
            on_file(path, None)
        return True
    head = head_bytes.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not head_bytes.strip():
        rej = empty_file_reject(path, label if forced else None)
        if strict:
            raise StrictError(rej.message())
        emptied = run.read_before(key)      # emptied since: what it gave leaves, as from any edited file
        writer.start_file(path, replacing=emptied)
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)
        if emptied:
            summary.replaced += writer.replace_stale()
            manifest.pop(key, None)    # a file that gives only rejects is not in the manifest
        writer.start_file(None)
        return True
    reader = forced or ingest.detect(path.name, head)
    if reader is None and key not in run.named and ingest.is_documentation(path.name):
        run.writer.summary.documentation.append(str(path))
        if on_file:
            on_file(path, DOCUMENTATION)
        return True
    if on_file:
        on_file(path, reader.NAME if reader else None)
    if reader is None:
        summary.unrecognised.append(str(path))
        return True
    summary.formats[reader.NAME] += 1
    summary.bytes += path.stat().st_size
    counted = summary.by_format.setdefault(reader.NAME, Counter())
    counted["files"] += 1
    before = summary._counts()
    if digest is None and not (reader is native_jsonl and fast_native.enabled()):
        digest = _hash_later(path)         # no worker processes to wait for: hashed while it is read
    stamp = _stamp(path, label) + [digest]
    same_bytes = prev is not None and prev[2:4] == stamp[2:] and sidecars_same
    # a file read before (it is in the manifest) and read again has changed, or --reread was given:
    # its new content replaces what it gave before
    writer.start_file(path, replacing=run.read_before(key), same_bytes=same_bytes)
    writer.file_formats[writer.reading] = reader.NAME
    added_before = summary.games + summary.hands + sum(summary.rejected.values())
    hint = forced_hint(forced, path.name, head)
    cr_lines = _cr_lines(path, head_bytes)
    if cr_lines:
        summary.cr_files.append(str(path))
        run.notice(f"{path}: lines end in CR alone (old Mac line ends): read with each CR as a line end")

    def forked() -> None:
        """The hash thread starts once the worker processes exist: a thread inside OpenSSL while they fork could
        leave a lock held in them (waiting for the hash first cost 0.8 s of a 9 s import, one core idle)."""
        if stamp[3] is None:
            stamp[3] = _hash_later(path)
    try:
        _read_file(path, reader, writer, strict, on_reject, run.notice, hint,
                   claimed=forced is None or bool(forced.sniff(path.name, head)), cr_lines=cr_lines, forked=forked,
                   version_1=reader is native_jsonl and native_jsonl.first_version(head) == 1)
    except StrictError:
        raise
    except limits.LimitExceeded as e:
        rej = Reject(Provenance(reader.NAME, str(path), e.line, e.offset), e.code, e.reason, "")
        if strict:
            raise StrictError(rej.message()) from None
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)
    except (OSError, EOFError, zlib.error) as e:
        _file_reject(path, reader.NAME, "unreadable_file", f"cannot read the file ({e}); records after the "
                     "point of failure are not imported", writer, strict, on_reject)
    except Exception as e:  # a reader bug must not lose the batch; the reject keeps the evidence
        _file_reject(path, reader.NAME, "reader_error", f"the {reader.NAME} reader failed on this file: "
                     f"{type(e).__name__}: {e}{hint}", writer, strict, on_reject)
    else:
        forked()                           # (a reader that forked nothing)
        if isinstance(stamp[3], Future):
            stamp[3] = stamp[3].result()
        manifest[key] = stamp + _sidecar_record(path, reader)
        unchanged = (same_bytes and not again
                     and summary.games + summary.hands + sum(summary.rejected.values()) == added_before)
        disputed = bool(hint) and writer.replacing is not None   # --format against detection: a doubtful read
        if disputed:
            run.notice(f"{path}: read with --format {label}, which detection disputes (it reads this file as "
                       f"'{ingest.detect(path.name, head).NAME}'): nothing the file gave before is removed")
        writer.finish_holdings(changed=not (unchanged or disputed))
        if unchanged or disputed:
            # --reread of unchanged bytes that gave nothing new: the same rows as before, none stale (checking
            # reads the lake, per file: it made re-reading a folder of small files 4x slower than importing it)
            writer.replacing = None
        summary.replaced += writer.replace_stale()
    if isinstance(stamp[3], Future):
        futures_wait([stamp[3]])           # a failed read leaves no hash thread running into the next file's fork
    for k, was, now in zip(("games", "hands", "duplicates", "rejected"), before, summary._counts()):
        counted[k] += now - was
    writer.start_file(None)
    return True


def _drop_gone(paths, walked: set[str], run: _Run, prune: bool = False) -> None:
    """Files imported before from inside a folder of ``paths`` and gone from it since (:func:`takeover.gone_files`).

    Without ``prune`` they are only named (a notice each, counted in ``summary.gone``): their rows stay, since
    their source is gone and removing them could not be undone. With ``prune`` their games, hands and rejects
    leave the lake, with their holdings and manifest entries, as if each had been emptied and read again; the
    hands another file holds are then taken over (:func:`_take_over`)."""
    writer, summary = run.writer, run.writer.summary
    if not any(Path(p).is_dir() for p in paths):
        return
    # the manifest knows the files read whole; a file that only gave rejects (empty, unreadable) is not in it
    rejected_by = pc.unique(lakemod.read(run.lake, "rejects", columns=["ingest_file"]).column("ingest_file"))
    known = set(run.manifest) | {f for f in rejected_by.to_pylist() if f is not None}
    for f in takeover.gone_files(paths, walked, known):
        if not prune:
            summary.gone.append(f)
            summary.gone_kept = True
            run.notice(f"{f}: gone from its folder since it was imported; its rows stay in the lake "
                       "(ingest --prune removes them)")
            continue
        cleared = summary.rejects_cleared
        writer.start_file(Path(f), replacing=True)
        hands = writer.replace_stale()
        writer.start_file(None)
        gone_rejects = summary.rejects_cleared - cleared
        summary.rejects_cleared = cleared
        summary.gone.append(f)
        summary.gone_hands += hands
        summary.gone_rejects += gone_rejects
        run.manifest.pop(f, None)
        run.notice(f"{f}: gone from its folder since it was imported: its {count(hands, 'hand')} and "
                   f"{count(gone_rejects, 'reject')} leave the lake")


def _take_over(run: _Run) -> None:
    """Read again the files that hold hands which left the lake in this run because their file no longer holds
    them (:func:`takeover.files_to_read`), and the files whose single-deal copy a whole game displaced, until
    none is left (each file at most once more); their copies take over with their own provenance."""
    writer, summary = run.writer, run.writer.summary
    done: set[str] = set()
    while True:
        writer.flush()
        writer.drop_poorer_copies()
        orphans, writer.orphans = writer.orphans, []
        todo = takeover.files_to_read(run.lake, orphans, writer.keys["hands"], writer.last_read)
        for f in writer.reread_files:
            todo.setdefault(f, 0)
        writer.reread_files = set()
        todo = {f: n for f, n in todo.items() if f not in done}
        if not todo:
            return
        for f, n in sorted(todo.items()):
            done.add(f)
            path = Path(f)
            if not path.is_file():
                summary.holders_missing += 1
                continue
            prev = run.manifest.get(f)
            label = prev[2] if prev else "auto"
            forced = ingest.get(label) if label != "auto" and label in ingest.names() else None
            hands_before = summary.hands
            run.notice(f"{f}: read again, to take over {count(n, 'hand')} that the file which brought "
                       f"{'it' if n == 1 else 'them'} no longer holds" if n else
                       f"{f}: read again: a whole game read from another file disagrees with one of its single-deal "
                       "copies")
            _import_file(path, f, forced, label if forced else "auto", True, run, again=True)
            if n:
                summary.reread.append(f)
                summary.taken_over += summary.hands - hands_before
            else:
                summary.rechecked.append(f)


def _stored_rejects(lake, files: set[str]) -> int:
    """How many rows of the lake's ``rejects`` table came from ``files`` (physical names): by ``ingest_file``, or,
    for rows written before that column existed, by the recorded ``source_file`` resolved the same way."""
    rej = lakemod.read(lake, "rejects", columns=["source_file", "ingest_file"])
    names: dict[str, bool] = {}
    n = 0
    for sf, pf in zip(rej.column("source_file").to_pylist(), rej.column("ingest_file").to_pylist()):
        if pf is None:
            if sf not in names:
                names[sf] = physical_name(Path(sf)) in files
            n += names[sf]
        else:
            n += pf in files
    return n


def _file_reject(path: Path, fmt: str | None, code: str, reason: str, writer: "_Writer", strict: bool,
                 on_reject) -> None:
    rej = Reject(Provenance(fmt, str(path)), code, reason, "")
    if strict:
        raise StrictError(rej.message())
    writer.add_reject(rej)
    if on_reject:
        on_reject(rej)


def _utf16_without_bom(head: bytes) -> str | None:
    """`` (little-endian, no byte-order mark)`` (or big-endian) when a file's first bytes ``head`` are UTF-16 text
    without a BOM: in their first 512 bytes every byte at odd (even) offsets is 0, and none at the others, as
    ASCII text reads in UTF-16 (UTF-8 text holds no 0 byte). None otherwise."""
    sample = head[:512]
    sample = sample[:len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) == len(odd) and 0 not in even:
        return " (little-endian, no byte-order mark)"
    if even.count(0) == len(even) and 0 not in odd:
        return " (big-endian, no byte-order mark)"
    return None


def forced_hint(forced, name: str, head: str) -> str:
    """What to add to the reason of every reject of a file read with a reader forced by ``--format`` (``forced``,
    a reader module; None: detected) when detection would have chosen another reader for it (file ``name``,
    decoded ``head``): `` (detection reads this file as 'rebelote'; drop --format)``. '' otherwise, and when no
    reader recognises the file (forcing a reader is then what --format is for)."""
    if forced is None:
        return ""
    detected = ingest.detect(name, head)
    if detected is None or detected is forced:
        return ""
    return f" (detection reads this file as '{detected.NAME}'; drop --format)"


def _cr_lines(path: Path, head: bytes) -> bool:
    """Whether the lines of ``path`` (whose first bytes, decompressed, are ``head``) end in CR alone
    (:func:`pipeline.ingest.line_ends.cr_only`); a file longer than ``head`` is opened again to read on past it
    when that is needed. False when the file cannot be read further (reading it will then say why)."""
    if len(head) < HEAD_BYTES or b"\n" in head:
        return line_ends.cr_only(head)
    try:
        with _open(path) as fh:
            return line_ends.cr_only(fh.read(HEAD_BYTES), fh)
    except (OSError, EOFError, zlib.error):
        return False


def _read_file(path: Path, reader, writer: "_Writer", strict: bool, on_reject,
               on_notice: Callable[[str], None] | None = None, hint: str = "", claimed: bool = True,
               cr_lines: bool = False, forked: Callable[[], None] | None = None, version_1: bool = False) -> None:
    """Feed one file through its reader; every reject goes to the writer (or stops the run under strict), every
    notice to ``on_notice``; what the file holds goes to its holdings (:meth:`_Writer.hold`). ``hint`` ends the
    reason of every reject (:func:`forced_hint`); ``claimed``: the reader's own detection recognises the file
    (False when --format forced it on a file it would not claim: a file that then gives nothing is rejected as
    ``no_records`` even from a reader whose side files give nothing by design); ``cr_lines``: the file's lines end
    in CR alone (:mod:`pipeline.ingest.line_ends`), each read as a line end; ``forked``: called once the
    columnar native reader's worker processes are forked (:func:`pipeline.ingest.fast_native.read_into`);
    ``version_1``: a native file whose first record is version 1, read by the row path (its lines would each fail
    the columnar parse, and be keyed one by one)."""
    def reject(rej: Reject) -> None:
        if hint and not rej.reason.endswith(hint):
            rej.reason += hint
        if strict:
            raise StrictError(rej.message())
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)

    taken = 0
    path_ids = bool(getattr(reader, "GAME_ID_FROM_PATH", False))

    reported = 0

    def take(rec: GameRecord | Reject | Notice) -> None:
        nonlocal taken, reported
        taken += not isinstance(rec, Notice)
        if writer.on_bytes is not None and (rec.where.offset or 0) >= reported + PROGRESS_BYTES:
            reported = rec.where.offset       # a call per MiB read, not per record: this is the row path's hot loop
            writer.on_bytes(reported)
        if isinstance(rec, Reject):
            reject(rec)
            return
        if isinstance(rec, Notice):
            writer.summary.notices += 1
            if on_notice:
                on_notice(rec.message())
            return
        rej = writer.check(rec)
        if rej is not None:
            reject(rej)
            return
        if rec.game.get("game_key") is None:        # not keyed with its batch (see keyed)
            try:
                content_keys.key_records([rec])
            except KEY_ERRORS as e:                  # a value the checks let through but its column cannot hold
                reject(Reject(rec.where, "bad_value", f"a value does not fit its column ({e})", "",
                              rec.game.get("game_id")))
                return
        rej = writer.conflict(rec) or (path_ids and writer.same_content(rec)) or writer.same_deal(rec)
        if rej is None:
            writer.add_game(rec)
        elif rej is SAME_GAME:
            writer.hold(rec, holdings.POORER)
        elif isinstance(rej, Notice):      # the same game under another id (same_content): held by deal
            writer.hold(rec, holdings.POORER, by_deal=True)
            if on_notice:
                on_notice(rej.message())
        else:
            if rej.code in SET_ASIDE_CODES:     # the file still holds it: it may take over one day
                writer.hold(rec, holdings.SET_ASIDE)
            reject(rej)

    s = writer.summary
    before = s.games + s.hands + s.duplicates + s.deal_replaced + sum(s.rejected.values())
    leniency.reading(str(path))
    bounds = limits.active()
    with _bounded(path, cr_lines, bounds) as fh:
        if (reader is native_jsonl and fast_native.enabled() and not version_1
                and bounds.max_depth >= native_columns.DEPTH):
            # columnar reading of whole blocks; lines it cannot vouch for come back through `take`
            fast_native.read_into(fh, str(path), writer, take, size=path.stat().st_size, forked=forked,
                                  bounds=bounds)
        else:
            for rec in keyed(reader.read(_lines(fh, reader is native_jsonl), str(path))):
                take(rec)
    # a recognised file that gave neither a game nor a reject (a CSV header alone, an envelope with an empty
    # list) must not vanish; readers whose side files are read through another file say so (SIDE_FILES)
    # (a game that displaced as many copies of its deals as it has hands leaves the counts as they were: the
    # records taken say it was there)
    if (not taken and s.games + s.hands + s.duplicates + s.deal_replaced + sum(s.rejected.values()) == before
            and (not getattr(reader, "SIDE_FILES", False) or not claimed)):
        reject(Reject(Provenance(reader.NAME, str(path)), "no_records",
                      f"the {reader.NAME} reader found no game record in the file "
                      + ("(only a header or an empty envelope?)" if claimed else
                         f"(it does not look like a {reader.NAME} file)"), ""))


KEY_BATCH = 512
"""Game records keyed at a time by :func:`keyed`."""
KEY_ERRORS = (pa.ArrowException, OverflowError, TypeError, ValueError)
"""What keying raises for a value that does not fit its column (:func:`pipeline.ingest.content_keys.key_rows`)."""


def keyed(items: Iterator) -> Iterator:
    """A reader's results in order, its game records keyed (:func:`pipeline.ingest.content_keys.key_records`)
    :data:`KEY_BATCH` at a time. In a batch holding a value that does not fit its column, the record holding it is
    found by halves and passed on without keys, for the checks to reject. When reading raises, the results read
    before are given first, then the error is raised, as if read one at a time."""
    batch: list = []

    def key(records: list) -> None:
        """Key ``records`` together; a value that does not fit its column is isolated by halves, and the record
        holding it stays unkeyed."""
        try:
            content_keys.key_records(records)
        except KEY_ERRORS:
            if len(records) == 1:
                records[0].game["game_key"] = None
                return
            key(records[:len(records) // 2])
            key(records[len(records) // 2:])

    def keyed_batch():
        key([r for r in batch if isinstance(r, GameRecord)])
        yield from batch
        batch.clear()

    it = iter(items)
    while True:
        try:
            item = next(it)
        except StopIteration:
            break
        except Exception:          # reading failed (a damaged stream...): what was read before is taken first
            yield from keyed_batch()
            raise
        batch.append(item)
        if len(batch) >= KEY_BATCH:
            yield from keyed_batch()
    yield from keyed_batch()


def _bounded(path: Path, cr_lines: bool, bounds: limits.Limits):
    """The stream a reader reads of ``path``, held to ``bounds`` (:class:`pipeline.limits.Bounded`): a gzip
    or CR-translated file as a bounded stream; a plain file as itself when the columnar native reader may read it
    by ``pread`` (which applies the limits itself), else bounded too."""
    stored = _open(path)
    compressed = isinstance(stored, gzip.GzipFile)
    fh = line_ends.as_lf(stored) if cr_lines else stored
    if not (compressed or cr_lines) and fast_native.enabled():
        # the row readers iterate it: bounded; the columnar reader checks `stream_only` and preads
        return limits.Bounded(fh, bounds, path.stat().st_size, False, plain=fh)
    return limits.Bounded(fh, bounds, path.stat().st_size, compressed)


def _same_file(recorded: str, path: Path) -> bool:
    """Whether a lake row's ``source_file`` names ``path`` (as given then, relative to the current folder)."""
    try:
        return recorded == str(path) or Path(recorded).resolve() == path.resolve()
    except OSError:
        return False


def empty_file_reject(path: Path, reader: str | None) -> Reject:
    """The reject for a file with no record at all."""
    return Reject(Provenance(reader, str(path)), "empty_file", "file is empty: no records", "")
