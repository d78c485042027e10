"""Rescoring: recompute every hand of the lake under a ruleset.

* :func:`pipeline.rescore.engine.score_batch` — the pure, row-local function hands batch -> scores batch;
* :func:`pipeline.rescore.game.game_pass` — the per-game pass (totals, litige, winner);
* :func:`rescore_lake` — streams the lake's hands through both and writes ``scores`` and
  ``game_scores`` partitions for the ruleset (locally, or on Ray Data with ``engine="ray"``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import commits


from pipeline.storage import lake_write
from pipeline.storage import lake as lakemod
from pipeline.rules import Ruleset
from pipeline.rules.own import OwnRules
from pipeline import engine_version
from pipeline.rescore.reasons import SUMMARY_REASON
from pipeline.words import count

# score_batch, game_pass and game_results are imported on first use (__getattr__ below, and inside the
# functions): importing a submodule such as pipeline.rescore.tables then does not import the engine, DuckDB
# and every compiled kernel's module too
_LAZY = {"score_batch": "pipeline.rescore.engine",
         "game_pass": "pipeline.rescore.game", "game_results": "pipeline.rescore.sorted_games"}


def __getattr__(name: str):
    """``score_batch``, ``game_pass``, ``game_results``: imported from their modules on
    first access (PEP 562). Raises AttributeError for any other missing name."""
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["score_batch", "game_pass", "rescore_lake", "RescoreSummary", "ENGINES"]


@dataclass
class RescoreSummary:
    """Counts of one rescoring run; ``str()`` is the one-line summary."""

    ruleset: str
    hands: int = 0
    games: int = 0
    status: Counter = field(default_factory=Counter)
    illegal: int = 0
    recorded: int = 0
    matches: int = 0
    games_recorded: int = 0
    games_matched: int = 0
    games_partial: int = 0   # games with recorded totals not compared: some hands unscorable (totals partial)
    unscorable: Counter = field(default_factory=Counter)    # scores.reason of the unscorable hands -> hands
    by_source: dict = field(default_factory=dict)   # source -> [recorded, matched]
    other_rules: int = 0    # recorded scores not compared: their game's source plays another ruleset
    unknown_hints: list = field(default_factory=list)   # ruleset_hint values naming no shipped ruleset
    members: set = field(default_factory=set)   # under own rules: the rulesets the games were scored under
    update: bool = False    # only the games new or changed since the last rescore were scored (pipeline.rescore.stale)
    seconds: float = 0.0
    seconds_compile: float = 0.0    # compiling the rules engine before the run (the CLI's warm-up), in ``seconds``
    seconds_hands: float = 0.0      # the hand pass (read, score_batch, write scores; locally also the game pass and
                                    # the report tables, pipeline.rescore.batch_games)
    seconds_games: float = 0.0      # the sorted game pass (on Ray; locally only for games found late)
    seconds_derived: float = 0.0    # the report tables computed after it (pipeline.facts.derived.materialize)
    # CPU seconds of this process (every thread: DuckDB's, the scoring threads') in each phase, as above
    cpu_hands: float = 0.0
    cpu_games: float = 0.0
    cpu_derived: float = 0.0

    def to_dict(self) -> dict:
        """The counts as plain JSON types (``rebelote rescore --json``), with the one-line summary as ``summary``."""
        d = {k: (dict(v) if isinstance(v, Counter) else sorted(v) if isinstance(v, set) else v)
             for k, v in vars(self).items()}
        d["by_source"] = {k: {"recorded": r, "matched": m} for k, (r, m) in self.by_source.items()}
        d["summary"] = str(self)
        return d

    def __str__(self) -> str:
        run = self.seconds - self.seconds_compile      # the rate of the rescore itself, not of the compile
        rate = self.hands / run if run > 0 else 0.0
        st = ", ".join(f"{v} {k}" for k, v in sorted(self.status.items()))
        rec = f", recorded score matched {self.matches}/{self.recorded}" if self.recorded else ""
        compared = [f"{k} {m}/{r}" for k, (r, m) in sorted(self.by_source.items()) if r]
        if rec and len(self.by_source) > 1 and compared:   # a lake of several sources: each source's own agreement
            rec += " (" + ", ".join(compared) + ")"
        if self.games_recorded:
            rec += f", recorded game totals matched {self.games_matched}/{self.games_recorded}"
        if self.games_partial:
            n = self.games_partial
            whose, they = ("games'", "they have") if n > 1 else ("game's", "it has")
            rec += (f", {n} {whose} recorded totals not compared ({they} hands not rescored: a summary hand counts "
                    "its recorded score, any other unscorable hand 0 - 0)")
        if self.other_rules:
            rec += f", {self.other_rules} recorded scores of games played under another ruleset not compared"
        if self.unknown_hints:
            rec += (f" (games name rulesets that are not shipped: {', '.join(self.unknown_hints[:5])}"
                    f"{' ...' if len(self.unknown_hints) > 5 else ''}; rescore under that name to compare them)")
        why = ""
        if self.unscorable:     # what could not be rescored, and why (the commonest reasons)
            top = self.unscorable.most_common(3)
            why = "; unscorable: " + ", ".join(f"{n} {reason}" for reason, n in top)
            if len(self.unscorable) > 3:
                why += f", {sum(self.unscorable.values()) - sum(n for _, n in top)} for other reasons"
            if SUMMARY_REASON in self.unscorable:
                why += " (summary hands keep their recorded scores, which the reports count)"
        compiled = (f" (of which {self.seconds_compile:.1f} s compiling the rules engine, once)"
                    if self.seconds_compile >= 1.0 else "")
        notes = [f"each game under its own ruleset: {', '.join(sorted(self.members))}"] if self.members else []
        if self.update:
            if not self.hands and not self.games:
                return f"rescore [{self.ruleset}]: up to date, {self.seconds:.2f} s"
            notes.append("only the games new or changed since its last rescore")
        under = f" ({'; '.join(notes)})" if notes else ""
        return (f"rescore [{self.ruleset}]{under}: {count(self.hands, 'hand')} ({st}), "
                f"{count(self.games, 'game')}, {self.illegal} with an "
                f"illegal play{rec}, {self.seconds:.2f} s{compiled}, {rate:,.0f} hands/s{why}")


ENGINES = ("local", "ray")
BATCH = 32_768
"""Hands read and scored at a time by the hand pass: each batch's scores, game results and report rows are held
together, so this sets most of the pass's memory (docs/bench-results.md, "The game pass on the hand pass's
batches": 32,768 against 65,536 hands, 564 against 739 MB at 10^6 hands in process with the system allocator)."""
DERIVED_BUFFER = 8 << 20
"""Bytes of rows each table the hand pass writes (scores, game_scores and the report tables) buffers before
writing a row group: nine tables written side by side."""


def ordered_map(fn, items, threads: int):
    """``map(fn, items)`` on ``threads`` threads, results in input order, at most ``threads + 1`` items in flight
    (so memory stays bounded by a few batches). numpy releases the GIL in its array operations, which is what
    lets two threads of score_batch run faster than one."""
    if threads <= 1:
        yield from map(fn, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(threads) as ex:
        pending: deque = deque()
        for item in items:
            pending.append(ex.submit(fn, item))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def rescore_lake(lake, rules: "Ruleset | OwnRules", batch_size: int = BATCH, engine: str = "local",
                 threads: int = 1, derived: bool = True, progress=None, update: bool = False) -> RescoreSummary:
    """Rescore every hand in ``lake`` (a folder or URL, see :func:`pipeline.storage.lake.locate`) under ``rules``;
    replace ``scores/ruleset=<name>`` and ``game_scores/ruleset=<name>``. ``rules`` may be the lake's ``own``
    rules (:func:`pipeline.rules.own.plan`): each game under its own ruleset, written as ruleset ``own``.

    Both passes stream: the hand pass reads ``batch_size`` hands at a time through :func:`score_batch`
    (``engine="local"``: in this process, on ``threads`` threads; ``"ray"``: the same function under Ray Data
    ``map_batches``, see :mod:`pipeline.rescore.ray_engine`). Locally the game pass runs on the same batches
    (:mod:`pipeline.rescore.batch_games`), and with ``derived`` (the default) the report tables of
    :mod:`pipeline.facts.derived` are computed there too (:mod:`pipeline.facts.batch_facts`); on Ray the game pass
    reads the scores back sorted by game (:mod:`pipeline.rescore.sorted_games`) and the report tables follow.
    Memory is bounded by the batch size and DuckDB's limit, not the lake. Without ``derived``, any stored report
    tables of the ruleset are removed and the reports compute those rows on the fly (same rows, slower reports
    over millions of hands).

    ``progress``: called as ``progress(phase, done, total)`` while it works: ``"hands"`` after each batch
    (hands scored so far, hands in the lake), then ``"games"`` and ``"derived"`` as each phase starts (0, None).

    ``update``: when the stored rows of the ruleset were computed with the same rules
    (:func:`pipeline.rescore.stale.updatable`), score only the games new or changed since
    (:func:`pipeline.rescore.stale.stale`) and put their rows in place of the old ones, which gives the rows of
    a full rescore; otherwise (and on Ray, or when those games hold more than half the hands) rescore it all.

    Raises ValueError for an unknown engine; :class:`pipeline.rescore.ray_engine.EngineUnavailable` when
    ``engine="ray"`` and Ray is not installed; OSError on I/O failure.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    # the system allocator, with the pool's unused memory released after each batch, gives pages back that
    # pyarrow's default mimalloc keeps (docs/bench-results.md); the `rebelote` command makes it the default
    # before pyarrow loads (pipeline/cli/__init__.py), for the buffers this switch does not reach
    pool = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        return _locked(lake, rules, batch_size, engine, threads, derived, progress, update)
    finally:
        pa.set_memory_pool(pool)


def _locked(lake, rules, batch_size: int, engine: str, threads: int, derived: bool, progress,
            update: bool) -> RescoreSummary:
    """:func:`rescore_lake` under the lake's lock."""
    with lakemod.lock(lake):
        touched = None
        if update and engine == "local" and derived:
            from pipeline.rescore import stale
            if stale.updatable(lake, rules):
                touched = stale.stale(lake, rules.name)
                if touched.hands > stale.MAX_SHARE * lakemod.row_count(lake, "hands"):
                    touched = None
        return _rescore(lake, rules, batch_size, engine, threads, derived, progress or (lambda *a: None), touched)


def count_scores(summary: RescoreSummary, s: pa.Table | pa.RecordBatch) -> None:
    """Add one batch of ``scores`` rows to the summary's counts (hands, status, unscorable reasons, illegal,
    recorded matched)."""
    summary.hands += s.num_rows
    summary.status.update(dict(zip(*[c.to_pylist() for c in pc.value_counts(s.column("status")).flatten()])))
    if summary.status.get("unscorable"):
        why = s.column("reason").filter(pc.equal(s.column("status"), "unscorable"))
        summary.unscorable.update(dict(zip(*[c.to_pylist() for c in pc.value_counts(why).flatten()])))
    summary.illegal += int(pc.sum(pc.invert(pc.fill_null(s.column("legal"), True))).as_py() or 0)
    mr = s.column("matches_recorded")
    summary.recorded += s.num_rows - mr.null_count
    summary.matches += int(pc.sum(pc.fill_null(mr, False)).as_py() or 0)
    if s.num_rows:
        t = pa.table({"source": s.column("source"), "rec": pc.is_valid(mr), "ok": pc.fill_null(mr, False)})
        for row in t.group_by("source").aggregate([("rec", "sum"), ("ok", "sum")]).to_pylist():
            acc = summary.by_source.setdefault(row["source"], [0, 0])
            acc[0] += row["rec_sum"] or 0
            acc[1] += row["ok_sum"] or 0


def foreign_games(lake, rules: Ruleset) -> tuple[pa.Array, list[str]]:
    """Game ids (string array) of the lake's games whose source names another ruleset (``games.ruleset_hint``
    set and not ``rules.name``), and those hints that name no shipped ruleset (sorted; a misspelt hint in a
    user's own records would otherwise silently turn the comparison off). Their recorded scores were computed under
    other rules, so comparing them with this rescoring would count rule differences as disagreements:
    :func:`comparable_only` blanks them. Games without a hint are compared (the user chose the ruleset)."""
    from pipeline.rules import shipped_names

    # filtered as read: only the few games with another hint are held, not every game id of the lake
    games = lakemod.read(lake, "games", columns=["game_id", "ruleset_hint"],
                         filter=pc.field("ruleset_hint").is_valid() & (pc.field("ruleset_hint") != rules.name))
    unknown = sorted(set(pc.unique(games.column("ruleset_hint")).to_pylist()) - set(shipped_names()))
    return pc.unique(games.column("game_id")), unknown


def comparable_only(s: pa.Table | pa.RecordBatch, foreign: pa.Array) -> tuple[pa.Table | pa.RecordBatch, int]:
    """``s`` (scores rows) with ``matches_recorded`` set to null on the hands of ``foreign`` games (see
    :func:`foreign_games`), other columns untouched; and how many recorded scores were so left uncompared."""
    if not len(foreign) or not s.num_rows:
        return s, 0
    gone = pc.is_in(s.column("game_id"), value_set=foreign)
    if not pc.any(gone).as_py():
        return s, 0
    i = s.schema.get_field_index("matches_recorded")
    mr = s.column(i)
    n = int(pc.sum(pc.and_(gone, pc.is_valid(mr))).as_py() or 0)
    return s.set_column(i, s.schema.field(i), pc.if_else(gone, pa.scalar(None, pa.bool_()), mr)), n


def _positions(file_index: int, row: int, n: int) -> np.ndarray:
    """int64 (n,): ``hand_facts.hand_seq`` of ``n`` hands from row ``row`` of the hand file numbered ``file_index``
    (as :func:`pipeline.facts.derived.materialize` numbers them: file index << 32 | row in the file)."""
    return (np.int64(file_index) << 32) | np.arange(row, row + n, dtype=np.int64)


def game_codes(g: pa.Table, final: pa.ChunkedArray | pa.Array, foreign: pa.Array) -> np.ndarray:
    """int8 per ``game_scores`` row of ``g``: 0 its recorded totals are not compared (none, or its game is one of
    ``foreign``, ids of games whose source plays another ruleset), 1 not comparable (some hands unscorable: the
    totals are partial), 2 compared and different, 3 compared and equal (``final``: the games' ``recorded_final``,
    same order). Vectorised: one batch's closed games at a time, on the hand pass's path."""
    n = g.num_rows
    if not n:
        return np.zeros(0, np.int8)
    rec = final.combine_chunks() if isinstance(final, pa.ChunkedArray) else final
    totals = g.column("totals").combine_chunks()
    rec_len = pc.fill_null(pc.list_value_length(rec), 0).to_numpy(zero_copy_only=False)
    compared = rec_len > 0
    if len(foreign):
        compared &= ~pc.is_in(g.column("game_id"), value_set=foreign).to_numpy(zero_copy_only=False)
    unscorable = pc.fill_null(g.column("unscorable_hands"), 0).to_numpy(zero_copy_only=False) > 0
    # equal lists: the same length and every item equal (null items equal to each other)
    equal = pc.fill_null(pc.list_value_length(totals), -1).to_numpy(zero_copy_only=False) == rec_len
    rows = np.flatnonzero(equal & compared)
    if len(rows):
        lens = rec_len[rows]
        within = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        at_t = np.repeat(totals.offsets.to_numpy()[rows], lens) + within
        at_r = np.repeat(rec.offsets.to_numpy()[rows], lens) + within
        sentinel = np.iinfo(np.int64).min
        tv = pc.fill_null(totals.values.cast(pa.int64()), sentinel).to_numpy(zero_copy_only=False).astype(np.int64)[at_t]
        rv = pc.fill_null(rec.values.cast(pa.int64()), sentinel).to_numpy(zero_copy_only=False).astype(np.int64)[at_r]
        differs = np.bincount(np.repeat(np.arange(len(rows)), lens), weights=tv != rv, minlength=len(rows))
        equal[rows] = differs == 0
    return np.where(compared, np.where(unscorable, 1, 2 + equal), 0).astype(np.int8)


def _count_games(summary: RescoreSummary, tally: np.ndarray, games: int) -> None:
    """Add ``games`` games whose :func:`game_codes` are counted in ``tally`` (bincount) to the summary."""
    summary.games += games
    summary.games_partial += int(tally[1])
    summary.games_recorded += int(tally[2] + tally[3])
    summary.games_matched += int(tally[3])


def _rescore(lake, rules: Ruleset, batch_size: int, engine: str, threads: int = 1,
             write_derived: bool = True, progress=lambda *a: None, touched=None) -> RescoreSummary:
    """The rescore; with ``touched`` (:class:`pipeline.rescore.stale.Stale`) only those games: their old rows
    are deleted and the new ones appended, in the lock's transaction.

    Locally, the game pass runs beside the hand pass (:mod:`pipeline.rescore.batch_games`) and the game-level
    report tables are added up there too (:mod:`pipeline.facts.game_sums`); a game found late is scored again
    from the written scores by the sorted pass. On Ray, the sorted pass and :func:`pipeline.facts.derived.materialize`
    follow the hand pass."""
    t0, c0 = time.perf_counter(), time.process_time()
    summary = RescoreSummary(rules.name, update=touched is not None)
    games = touched.game_ids if touched is not None else None
    local = engine == "local"
    part = f"ruleset={rules.name}"
    write = lake_write.replace_partition if games is None else lake_write.append_partition
    from pipeline.facts import derived
    if games is not None:
        gids = set(games.to_pylist())
        for table in ("scores", "game_scores"):
            lake_write.delete_rows(lake, table, "game_id", gids, partition=part)
        if write_derived and local:     # the hand pass appends their rows anew
            for name in derived.STORED:
                d = derived.DERIVED[name]
                lake_write.delete_rows(lake, name, d.key, touched.hand_keys if d.key == "hand_key" else gids,
                                       partition=part)
    own = isinstance(rules, OwnRules)
    foreign, summary.unknown_hints = rules.foreign() if own else foreign_games(lake, rules)
    if own:
        summary.members = {c.ruleset for c in rules.choices}
    # the hand and game files this rescore reads (taken under the lake lock)
    hands_files, games_files = derived.hands_snapshot(lake), derived.hands_snapshot(lake, "games")
    total = lakemod.row_count(lake, "hands") if games is None else touched.hands
    loc = lakemod.locate(lake)
    tx = commits.active(loc)
    facts = None    # the derived tables, written beside the scores (pipeline.facts.batch_facts)
    batch_games = None
    if not local:
        from pipeline.rescore.ray_engine import score_batches_ray
        scored = ((None, s, None) for s in score_batches_ray(lake, rules, batch_size))
    else:
        from pipeline.facts.summary_points import summary_table
        from pipeline.rescore.batch_games import BatchGames
        from pipeline.rescore.own import score_any
        if games is None:       # hand_facts.hand_seq: on a local lake (as derived.materialize numbers them)
            read = ((b, _positions(i, row, b.num_rows) if loc.local else None)
                    for i, row, b in lakemod.iter_positioned(lake, "hands", batch_size=batch_size))
        else:
            read = ((b, None) for b in lakemod.iter_batches(lake, "hands", batch_size=batch_size,
                                                             filter=pc.field("game_id").isin(games)))
        scored = ordered_map(lambda bs: (bs[0], score_any(bs[0], rules), bs[1]), read, threads)
        sheet_points = summary_table(lake)      # the summary hands' points, for both passes
        batch_games = BatchGames(lake, rules, sheet_points)
        if write_derived:
            from pipeline.facts import batch_facts
            facts = batch_facts.BatchFacts(lake, rules.name, game_sums=True, summary=sheet_points)

    try:
        tables = ("scores",) + (("game_scores",) if local else ())
        if facts is not None:
            tables += tuple(t for t in batch_facts.HAND_LEVEL + batch_facts.GAME_LEVEL if t in derived.STORED)
        writers = {}

        def closed(res, last: bool = False) -> None:        # the games the game pass closed: their rows
            g, final, ids = res
            writers["game_scores"].write(g)
            batch_games.note(game_codes(g, final, foreign))
            if facts is not None:
                # the partial rows of the games found late in this batch dropped (those of a game found late
                # earlier went with that batch: what waits is the game carried, never late); the rows of closed
                # games come several batches at a time, all of them after the last
                for name, rows in facts.game_rows(ids, batch_games.found_late, g, last).items():
                    writers[name].write(rows)
        try:
            # the tables written side by side: row groups flushed at DERIVED_BUFFER bytes keep their buffers small
            for name in tables:
                writers[name] = lake_write.PartitionWriter(loc, name, rules.name, games is None, tx,
                                                           buffer_bytes=DERIVED_BUFFER)
            for b, s, seq in scored:
                s, uncompared = comparable_only(s, foreign)
                summary.other_rules += uncompared
                count_scores(summary, s)
                writers["scores"].write(s)
                if facts is not None:
                    for name, rows in facts.iter_rows(b, s, seq, stored_only=True):
                        writers[name].write(rows)
                if batch_games is not None:
                    closed(batch_games.add(s))
                pa.default_memory_pool().release_unused()
                progress("hands", summary.hands, total)
            if batch_games is not None:
                closed(batch_games.finish(), last=True)
            for w in writers.values():
                w.close()
        except BaseException:
            for w in writers.values():
                w.abandon()
            raise
        pa.default_memory_pool().release_unused()   # hand the hand pass's buffers back
        t1, c1 = time.perf_counter(), time.process_time()
        summary.seconds_hands, summary.cpu_hands = t1 - t0, c1 - c0

        def count_games(g: pa.Table, final: pa.ChunkedArray | pa.Array) -> None:
            _count_games(summary, np.bincount(game_codes(g, final, foreign), minlength=4), g.num_rows)

        from pipeline.rescore.sorted_games import game_results
        progress("games", 0, None)
        if batch_games is None:
            write(lake, "game_scores", rules.name, game_results(lake, rules, count_games, games=games)
                  if summary.hands else [])
            late = None
        else:
            tally = batch_games.tally()
            _count_games(summary, tally, int(tally.sum()))
            late = batch_games.late
            if len(late):      # scored again from the written scores, in place of what the batches gave
                for name in ("game_scores",) + (batch_facts.GAME_LEVEL if facts is not None else ()):
                    lake_write.delete_rows(lake, name, "game_id", set(late.to_pylist()), partition=part)
                lake_write.append_partition(lake, "game_scores", rules.name,
                                            game_results(lake, rules, count_games, games=late))
        t2, c2 = time.perf_counter(), time.process_time()
        if write_derived and (games is None or len(games)):
            progress("derived", 0, None)
            if facts is None:
                if games is not None:
                    for name in derived.STORED:
                        d = derived.DERIVED[name]
                        lake_write.delete_rows(lake, name, d.key, touched.hand_keys if d.key == "hand_key" else gids,
                                               partition=part)
                derived.materialize(lake, rules.name, games=games)
            elif late is not None and len(late):
                derived.materialize(lake, rules.name, only=batch_facts.GAME_LEVEL, games=late,
                                    written=batch_facts.HAND_LEVEL)
        elif games is None:   # none stored for this ruleset (not stale ones): the reports compute them from hands and scores
            for name in derived.STORED:
                lake_write.drop_partition(lake, name, rules.name)
        if summary.hands or games is not None:
            # which parameters these scores were computed with (pyarrow and DuckDB skip files starting with "_"),
            # and which hand and game files they cover (pipeline.facts.derived.hands_unchanged)
            lakemod.write_bytes(lake, f"scores/ruleset={rules.name}/_ruleset.json", json.dumps(
                {"name": rules.name, "chain": list(rules.chain), "params": rules.params, "sources": rules.sources,
                 engine_version.KEY: engine_version.ENGINE,
                 "hands_files": hands_files, "games_files": games_files,
                 # an update's new hand_facts rows carry no position (pipeline.facts.derived): compare pairs by key
                 "hand_seq_files": hands_files if write_derived and games is None else None},
                indent=1, ensure_ascii=False, sort_keys=True).encode())
        summary.seconds = time.perf_counter() - t0
        summary.seconds_derived = summary.seconds - (t2 - t0)
        summary.seconds_games = t2 - t1
        summary.cpu_games, summary.cpu_derived = c2 - c1, time.process_time() - c2
        return summary
    finally:
        if facts is not None:
            facts.close()
        if batch_games is not None:
            batch_games.close()
