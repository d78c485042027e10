"""The game-level derived tables (``player_games``, ``pair_games``) added up from each batch of the hand pass.

Each of their columns is a count or a sum over the game's hand-level rows (``GAME_SUMS`` of
:mod:`pipeline.facts.player_facts` and :mod:`pipeline.facts.pair_facts`), and the names seated in the game are
counts too: a name is in ``players_every_hand`` when the hands it sat in are all the game's hands. So each batch's
``player_hands`` and ``pair_hands`` rows are summed as they are made: the lake's hands are stored game by game, so
a plain hand's rows are summed per run of hands of one game with the same names seat by seat (numpy, no sort),
the others with Arrow's grouping, giving one partial row per game and name (or pair) in the batch, about a
tenth of the hand-level rows. Once the game pass run beside the hand pass (:mod:`pipeline.rescore.batch_games`)
has closed games, their partial rows wait until :data:`CLOSE_ROWS` of them are ready (or the last batch); then
one DuckDB query per table adds them up (a game carried over from one batch to the next has rows of two
batches) and joins their winners. Computing the
tables from their parents' files instead grouped the 40 M ``player_hands`` rows of 10^7 hands with 30 filtered
aggregates, and the seated names from every hand's list (docs/bench-results.md, "Game-level tables from the hand
pass's partial sums").

``tests/test_batch_facts.py`` holds the rows equal to :func:`pipeline.facts.derived.materialize`'s (the tables'
SQL over the whole lake) with games split between batches, substitutes and odd name lists.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.facts import pair_facts
from pipeline.facts import player_facts
from pipeline.storage import schema


def _bools(col) -> np.ndarray:
    """bool (n,): ``col`` true (null counting false)."""
    return pc.fill_null(col, False).to_numpy(zero_copy_only=False)


def _ints(col) -> np.ndarray:
    """int64 (n,): ``col`` with nulls as 0."""
    return pc.fill_null(col, 0).to_numpy(zero_copy_only=False).astype(np.int64)


def _player_terms(t: pa.Table) -> dict[str, np.ndarray]:
    """Per ``player_hands`` row, its int64 term of each :data:`pipeline.facts.player_facts.GAME_SUMS` column
    (a ``count(*) FILTER (WHERE x)`` term is x as 0/1, a ``sum(v) FILTER (WHERE x)`` term v or 0)."""
    score, has = _ints(t.column("own_score")), pc.is_valid(t.column("own_score")).to_numpy(zero_copy_only=False)
    counted = _bools(t.column("scored")) | _bools(t.column("summary"))
    taker, defender = counted & _bools(t.column("is_taker")), counted & _bools(t.column("is_defender"))
    made, decided = _bools(t.column("made")), _bools(t.column("decided"))
    coinches = _ints(t.column("coinches"))
    matches = t.column("matches_recorded")
    terms = {
        "hands": np.ones(t.num_rows, np.int64),
        "taken": _bools(t.column("is_taker")),
        "made": made,
        "decided": decided,
        "taker_litiges": _bools(t.column("taker_litige")),
        "points": score,
        "points_hands": has,
        "team_belotes": _bools(t.column("team_belote")),
        "illegal_plays": _bools(t.column("illegal")),
        "taker_points": np.where(taker, score, 0),
        "taker_points_hands": taker & has,
        "defender_points": np.where(defender, score, 0),
        "defender_points_hands": defender & has,
        "coinches": coinches,
        "coinches_won": np.where(_bools(t.column("failed")), coinches, 0),
        "coinches_decided": np.where(pc.is_valid(t.column("failed")).to_numpy(zero_copy_only=False), coinches, 0),
        "capots_made": _bools(t.column("capot_made")),
        "capots_suffered": _bools(t.column("capot_suffered")),
        "declarations": _ints(t.column("declared")),
        "scored_hands": _bools(t.column("scored")),
        "mismatches": _bools(pc.invert(matches)),
        "compared": pc.is_valid(matches).to_numpy(zero_copy_only=False),
        "summary_hands": _bools(t.column("summary")),
    }
    for k in ("suit", "nt", "at"):
        is_k = _bools(pc.equal(t.column("strain_kind"), k))
        terms[f"made_{k}"], terms[f"decided_{k}"] = made & is_k, decided & is_k
    return terms


def _pair_terms(t: pa.Table) -> dict[str, np.ndarray]:
    """Per ``pair_hands`` row, its int64 term of each :data:`pipeline.facts.pair_facts.GAME_SUMS` column."""
    return {
        "hands": np.ones(t.num_rows, np.int64),
        "taken": _bools(t.column("took")),
        "made": _bools(t.column("made")),
        "decided": _bools(t.column("decided")),
        "taker_litiges": _bools(t.column("taker_litige")),
        "points": _ints(t.column("own_score")),
        "points_hands": pc.is_valid(t.column("own_score")).to_numpy(zero_copy_only=False),
        "summary_hands": _bools(t.column("summary")),
    }


#: per game-level table: its parent, the name columns it groups by, the per-row terms, the columns it sums
TABLES = {
    "player_games": ("player_hands", ("player",), _player_terms, tuple(player_facts.GAME_SUMS)),
    "pair_games": ("pair_hands", ("player_a", "player_b"), _pair_terms, tuple(pair_facts.GAME_SUMS)),
}
PARENTS = {parent: table for table, (parent, *_) in TABLES.items()}


def _partial(table: str, rows: pa.Table, group: np.ndarray, n_groups: int, first: np.ndarray,
             same_team: bool = False) -> pa.Table:
    """Partial rows of ``table``: ``rows`` (its parent's) summed by ``group`` (int64 (len(rows),), each row's
    group, < ``n_groups``); ``first`` (int64 (n_groups,)): a row of each group, whose game, names and source it
    takes; groups without rows are left out. Columns: game_id, the names, source, team_mask (OR of the rows';
    ``same_team``: every row of a group has the same), each summed column (int64)."""
    _, names, terms_of, sums = TABLES[table]
    terms = terms_of(rows)
    count = np.bincount(group, minlength=n_groups)
    keep = count > 0
    take = pa.array(first[keep])
    cols = {"game_id": rows.column("game_id").take(take), **{n: rows.column(n).take(take) for n in names},
            "source": rows.column("source").take(take)}
    if same_team:       # one team per group: its first row's
        cols["team_mask"] = rows.column("team_mask").take(take)
    else:
        mask = np.zeros(n_groups, np.int64)
        np.bitwise_or.at(mask, group, _ints(rows.column("team_mask")))
        cols["team_mask"] = pa.array(mask[keep].astype(np.int8))
    for c in sums:      # integer sums by float64 bincount: exact below 2^53
        cols[c] = pa.array(np.bincount(group, weights=terms[c], minlength=n_groups)[keep].astype(np.int64))
    return pa.table(cols)


def _grouped(table: str, rows: pa.Table) -> pa.Table:
    """Partial rows of ``table`` from any rows of its parent: grouped by game and names with Arrow."""
    names = TABLES[table][1]
    keys = pa.table({"game_id": rows.column("game_id"), **{n: rows.column(n) for n in names}})
    groups = keys.append_column("_row", pa.array(np.arange(rows.num_rows, dtype=np.int64))).group_by(
        ["game_id", *names], use_threads=False).aggregate([("_row", "list")])
    lists = groups.column("_row_list").combine_chunks()
    group = np.empty(rows.num_rows, np.int64)
    group[lists.values.to_numpy()] = np.repeat(np.arange(len(lists)), np.diff(lists.offsets.to_numpy()))
    first = lists.values.to_numpy()[lists.offsets.to_numpy()[:-1]]
    return _partial(table, rows, group, len(lists), first)


def _runs(hands: pa.Table) -> np.ndarray:
    """int64 (n,): each plain hand's run, runs being consecutive hands of one game with the same names seat by
    seat (``hands`` plain: each of its n_players seats holds its own name); numbered from 0."""
    n = hands.num_rows
    start = np.zeros(n, bool)
    if n:
        start[0] = True
    if n > 1:
        g = hands.column("game_id")
        same = _bools(pc.equal(g.slice(1), g.slice(0, n - 1)))
        npl = _ints(hands.column("n_players"))
        same &= npl[1:] == npl[:-1]
        players = hands.column("players").combine_chunks()
        off, values = players.offsets.to_numpy()[:-1].astype(np.int64), players.values
        for s in range(4):
            has = npl > s
            if not has.any():
                break
            name = values.take(pa.array(np.where(has, off + s, 0)))
            same &= _bools(pc.equal(name.slice(1), name.slice(0, n - 1))) | ~has[1:]
        start[1:] = ~same
    return np.cumsum(start) - 1


def _laid_out(table: str, rows: pa.Table, hands: pa.Table, run: np.ndarray) -> pa.Table:
    """Partial rows of ``table`` from its parent's rows of the plain ``hands`` as :mod:`pipeline.facts.batch_facts`
    lays them out (``player_hands``: each hand's seats in order; ``pair_hands``: the 4-player hands' team 0 rows,
    then their team 1 rows), summed per run (:func:`_runs`) and seat or team: within a run a seat holds one name."""
    npl = _ints(hands.column("n_players"))
    if table == "player_games":
        hand = np.repeat(np.arange(len(npl)), npl)
        seat = np.arange(len(hand)) - np.repeat(np.cumsum(npl) - npl, npl)
        group, width = run[hand] * 4 + seat, 4
    else:
        four = np.flatnonzero(npl == 4)
        group, width = np.tile(run[four], 2) * 2 + np.repeat(np.arange(2), len(four)), 2
    n_groups = (int(run.max()) + 1 if len(run) else 0) * width
    first = np.zeros(n_groups, np.int64)
    first[group] = np.arange(len(group))
    return _partial(table, rows, group, n_groups, first, same_team=True)


def _seated_runs(hands: pa.Table, run: np.ndarray | None) -> pa.Table:
    """(game_id, players, n_players, n): the lists of names of ``hands``, one row per run of ``run`` (int64 per
    hand, consecutive) with its number of hands ``n``, or one row per hand when ``run`` is None."""
    if run is None:
        take, n = np.arange(hands.num_rows), np.ones(hands.num_rows, np.int64)
    else:
        take = np.flatnonzero(np.diff(run, prepend=-1))
        n = np.diff(np.append(take, len(run)))
    cols = {c: hands.column(c).take(pa.array(take)) for c in ("game_id", "players", "n_players")}
    return pa.table({**cols, "n": pa.array(n.astype(np.int64))})


def _merged(table: str, part: pa.Table) -> pa.Table:
    """``part`` (partial rows of ``table``) with the rows of one game and names added into one: a game whose
    names change seat or come back within a batch has several runs."""
    _, names, _, sums = TABLES[table]
    keys = ["game_id", *names]
    if part.num_rows == part.group_by(keys, use_threads=False).aggregate([]).num_rows:
        return part
    bits = {f"_bit{b}": pc.not_equal(pc.bit_wise_and(part.column("team_mask"), pa.scalar(1 << b, pa.int8())),
                                     pa.scalar(0, pa.int8())) for b in range(3)}
    t = part
    for k, v in bits.items():
        t = t.append_column(k, v)
    g = t.group_by(keys, use_threads=False).aggregate(
        [("source", "first")] + [(k, "any") for k in bits] + [(c, "sum") for c in sums])
    mask = np.zeros(g.num_rows, np.int8)
    for b, k in enumerate(bits):
        mask |= _bools(g.column(f"{k}_any")).astype(np.int8) << b
    cols = {k: g.column(k) for k in keys}
    cols.update({"source": g.column("source_first"), "team_mask": pa.array(mask)})
    cols.update({c: g.column(f"{c}_sum") for c in sums})
    return pa.table(cols).select(part.column_names)


#: Partial ``player_games`` rows of closed games held before they are added up (about four batches of the hand
#: pass): the cost of the query per table is mostly fixed, so fewer, larger queries cost about half
#: (docs/bench-results.md, "Closed games added up four batches at a time").
CLOSE_ROWS = 50_000


class GameSums:
    """Collects the partial rows of the game-level tables batch by batch (:meth:`begin`, :meth:`add_parent`,
    :meth:`end`) and gives the tables' rows of the games the game pass has closed (:meth:`close_games`), by one
    DuckDB query each on connection ``con`` over those games' partial rows, once :data:`CLOSE_ROWS` of them are
    ready (or at the last call); the rows of a game not closed yet (the last of a batch, which may go on in the
    next) wait for a later call."""

    def __init__(self, con, ruleset: str):
        self.con, self.ruleset = con, ruleset
        self.batch = 0
        self.pending: dict[str, list[pa.Table]] = {}    # partial rows of the games not closed yet, by table
        self.ready: dict[str, list[pa.Table]] = {}      # partial rows of closed games not added up yet, by table
        self.ready_results: list[pa.Table] = []         # those games' results

    def begin(self, plain: pa.Table, other: pa.Table | None) -> None:
        """Start a batch: its ``plain`` hands (:func:`pipeline.facts.batch_facts._plain_hands`) and the ``other``
        ones (None: none), whose seated names are taken here; then :meth:`add_parent` for each parent table as its
        rows are made (a caller need not hold both at once), and :meth:`end`."""
        self._plain, self._run = plain, _runs(plain)
        self._pending("seated", [_seated_runs(plain, self._run)]
                      + ([_seated_runs(other, None)] if other is not None else []))

    def add_parent(self, parent: str, laid: pa.Table | None, *rest: pa.Table | None) -> None:
        """The rows of parent table ``parent`` (``player_hands``, ``pair_hands``) of the batch begun: those of the
        plain hands laid out as :func:`_laid_out` reads them (``laid``; None: not so laid out), and any others."""
        table = PARENTS[parent]
        pieces = [_laid_out(table, laid, self._plain, self._run)] if laid is not None else []
        rest = [r for r in rest if r is not None and r.num_rows]
        if rest:
            pieces.append(_grouped(table, pa.concat_tables(rest)))
        self._pending(table, [_merged(table, pa.concat_tables(pieces))] if pieces else [])

    def end(self) -> None:
        """End the batch begun."""
        self._plain = self._run = None
        self.batch += 1

    def _pending(self, name: str, pieces: list[pa.Table]) -> None:
        pieces = [p.append_column("batch", pa.array(np.full(p.num_rows, self.batch, np.int32))) for p in pieces]
        self.pending.setdefault(name, []).extend(pieces)

    def close_games(self, closed: pa.Array, late: pa.Array, results: pa.Table,
                    last: bool = False) -> dict[str, pa.Table]:
        """The rows of each game-level table for the games ``closed`` (ids; every hand of theirs given to
        :meth:`begin`), with the winners of ``results`` (their ``game_scores`` rows), and for those of earlier
        calls not given yet: given once :data:`CLOSE_ROWS` partial rows are ready, or when ``last``. The partial
        rows of the games ``late`` (ids: scored again elsewhere) are dropped; the others wait."""
        for name, pieces in self.pending.items():
            if not pieces:
                continue
            t = pa.concat_tables(pieces, promote_options="permissive")
            gid = t.column("game_id")
            done = pc.is_in(gid, value_set=closed)
            keep = pc.invert(pc.or_(done, pc.is_in(gid, value_set=late)))
            self.ready.setdefault(name, []).append(t.filter(done))
            self.pending[name] = [t.filter(keep)]
        if len(closed):
            self.ready_results.append(results.select(["game_id", "ruleset", "winner"]))
        if not last and sum(p.num_rows for p in self.ready.get("player_games", [])) < CLOSE_ROWS:
            return {}
        taken = {name: pa.concat_tables(pieces, promote_options="permissive")
                 for name, pieces in self.ready.items() if pieces}
        results = pa.concat_tables(self.ready_results) if self.ready_results else None
        self.ready, self.ready_results = {}, []
        out = {}
        if "seated" not in taken or results is None or not taken["seated"].num_rows:
            return out
        self.con.register("_runs", taken["seated"])
        self.con.register("_w", results)
        try:
            for table in TABLES:
                if table not in taken:
                    continue
                self.con.register("_p", taken[table])
                try:
                    names = schema.schema(table).names
                    out[table] = schema.conform(table, self.con.sql(self.sql(table, "_p", "_runs", "_w"))
                                                .to_arrow_table().select(names))
                finally:
                    self.con.unregister("_p")
        finally:
            self.con.unregister("_runs")
            self.con.unregister("_w")
        return out

    def sql(self, table: str, part: str, runs: str, game_scores: str) -> str:
        """SELECT of ``table``'s rows (schema order) from the relations ``part`` (partial rows), ``runs`` (the
        seated names' runs) and ``game_scores`` (game_id, ruleset, winner). The partial rows of a game added in
        several batches are added up. The seated names are :func:`pipeline.facts.player_facts.seated_sql`'s, read
        off the runs' lists weighted by their hands (a game of one run: that run's list): the hands with a name
        for ``player_games`` (``player_facts.seated_hands_sql``), every 4-player hand for ``pair_games``, where
        one without a list makes "every hand" unknown (``pair_facts.seated_hands_sql``)."""
        _, names, _, sums = TABLES[table]
        keys = ", ".join(names)
        kept = ", ".join(f"{c}::INTEGER AS {c}" for c in sums)
        added = ", ".join(f"sum({c})::INTEGER AS {c}" for c in sums)
        r = "'" + self.ruleset.replace("'", "''") + "'"
        seated = ("len(list_distinct(players)) > 0" if table == "player_games" else "n_players = 4")
        return f"""
WITH p AS (SELECT * FROM {part}),
split AS (SELECT game_id FROM p GROUP BY game_id HAVING min(batch) <> max(batch)),
x AS (
    SELECT {r} AS ruleset, game_id, source, {keys}, team_mask::TINYINT AS team_mask, {kept}
    FROM p ANTI JOIN split USING (game_id)
    UNION ALL
    SELECT {r} AS ruleset, game_id, any_value(source) AS source, {keys}, bit_or(team_mask)::TINYINT AS team_mask,
           {added}
    FROM p SEMI JOIN split USING (game_id) GROUP BY game_id, {keys}),
runs AS (SELECT * FROM {runs} WHERE {seated}),
single AS (SELECT game_id FROM runs GROUP BY game_id HAVING count(*) = 1),
g AS (SELECT game_id, sum(n) AS hands, sum(n) FILTER (WHERE players IS NULL) AS unlisted
      FROM runs ANTI JOIN single USING (game_id) GROUP BY game_id),
k AS (SELECT game_id, name, sum(n) AS hands
      FROM (SELECT game_id, n, unnest(list_distinct(players)) AS name FROM runs ANTI JOIN single USING (game_id))
      GROUP BY game_id, name),
s AS (
    SELECT game_id, coalesce(list_sort(list_distinct(players)), []::VARCHAR[]) AS players,
           list_sort(list_distinct(players)) AS players_every_hand
    FROM runs SEMI JOIN single USING (game_id)
    UNION ALL
    SELECT g.game_id,
           coalesce(list_sort(list(k.name) FILTER (WHERE k.name IS NOT NULL)), []::VARCHAR[]) AS players,
           CASE WHEN g.unlisted IS NULL THEN
                coalesce(list_sort(list(k.name) FILTER (WHERE k.hands = g.hands)), []::VARCHAR[]) END
                                                                                    AS players_every_hand
    FROM g LEFT JOIN k ON k.game_id = g.game_id
    GROUP BY g.game_id, g.hands, g.unlisted)
SELECT x.*, s.players, s.players_every_hand, w.winner
FROM x
LEFT JOIN s ON s.game_id = x.game_id
LEFT JOIN {game_scores} AS w ON w.game_id = x.game_id AND w.ruleset = x.ruleset
"""
