"""A changed file read again replaces what it gave before: the methods of the ingest writer
(:class:`pipeline.ingest.writer.Writer`) that find the rows the file's old version gave and its new one no longer
does, remove them, and note the hands another file may take over (:mod:`pipeline.ingest.takeover`)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import lake_write
from pipeline.storage import lake as lakemod
from pipeline.ingest import holdings, takeover
from pipeline.ingest.input_files import same_file


class FileReplacement:
    """The writer's replacement of a changed file's rows (module text)."""

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
            same = self._names[recorded] = same_file(recorded, self.replacing)
        return same

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
        lake_write.delete_rows(self.lake, "games", "game_key", set(old_games))
        n = lake_write.delete_rows(self.lake, "hands", "hand_key", set(old_hands))
        # the rejects its old version raised and its new one no longer does (a bad record fixed or removed)
        rej = lakemod.read(self.lake, "rejects", columns=["reject_key", "source_file", "ingest_file"], filter=mine)
        fixed = {k for k, sf, pf in zip(*(rej.column(c).to_pylist() for c in rej.column_names))
                 if k not in self.file_rejects and (pf == self.reading or (pf is None and same_file(sf, path)))}
        lake_write.delete_rows(self.lake, "rejects", "reject_key", fixed)
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
