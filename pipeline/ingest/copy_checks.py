"""Which copy of a game or of a deal the lake keeps, when another file or format gives it again: the methods of
the ingest writer (:class:`pipeline.ingest.writer.Writer`) that compare a game read with the stored copy of the
same id (:mod:`pipeline.ingest.game_copies`), of the same content under another id, or of the same deal
(:mod:`pipeline.ingest.deal_copies`), and drop the poorer copies once the richer one is written."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import lake_write
from pipeline import formats
from pipeline.storage import lake as lakemod
from pipeline.ingest import deal_copies, game_copies
from pipeline.ingest.input_files import physical_name
from pipeline.formats.records import GameRecord, Notice, Reject
from pipeline.words import count

SAME_GAME = object()   # conflict(): the game is already in the lake from another file, same deals: skip it
DEAL_COPY_FORMATS = formats.DEAL_COPY_FORMATS
"""Readers whose one-hand games are copies of deals other files may hold too (see pipeline.ingest.deal_copies)."""


class CopyChecks:
    """The writer's copy decisions (module text); the state they read and change is the writer's own."""

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

    def _index_rows(self, hands: pa.Table, games: pa.Table) -> None:
        """What :meth:`_index_game` does for one game, for the columnar reader's rows: add them to the loaded
        deal indexes of their sources (reloading an index from the lake after every block made a file mixing
        row-path and columnar lines quadratic in the number of one-deal games)."""
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

    def drop_poorer_copies(self) -> None:
        """Remove the copies that a richer copy of the same game replaced (after the richer one is written)."""
        if not self.richer:
            return
        self.flush()
        game_keys = {k for k, _, _ in self.richer.values() if k}
        hand_keys = set().union(*(h for _, h, _ in self.richer.values()))
        files = {f for _, _, f in self.richer.values()}
        lake_write.delete_rows(self.lake, "games", "game_key", game_keys)
        lake_write.delete_rows(self.lake, "hands", "hand_key", hand_keys, where=_read_from(files))
        self.keys["games"] -= game_keys
        self.keys["hands"] -= hand_keys
        self.richer = {}


def _intern(name: str | None) -> str | None:
    """One string object per file name (the game-id map holds one per game)."""
    return None if name is None else sys.intern(name)


def _read_from(files: set[tuple[str, str | None]]) -> Callable[[pa.Table], pa.ChunkedArray]:
    """A row condition for :func:`pipeline.storage.lake_write.delete_rows` on hands: the row was read from one of ``files``,
    each a (recorded source_file, physical ingest_file) pair: by its ``ingest_file`` when the pair has one, by
    its ``source_file`` for a row whose ``ingest_file`` is null."""
    physical = pa.array(sorted({p for _, p in files if p is not None}), pa.string())
    recorded = pa.array(sorted({r for r, p in files if p is None}), pa.string())

    def cond(t: pa.Table):
        read = t.column("ingest_file")
        by_name = pc.and_(pc.is_null(read), pc.is_in(t.column("source_file"), value_set=recorded))
        return pc.or_(pc.is_in(read, value_set=physical), by_name)
    return cond
