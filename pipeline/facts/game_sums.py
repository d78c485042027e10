"""The game-level derived tables (``player_games``, ``pair_games``) added up from each batch of the hand pass.

Each of their columns is a count or a sum over the game's hand-level rows (``GAME_SUMS`` of
:mod:`pipeline.facts.player_facts` and :mod:`pipeline.facts.pair_facts`), and the names seated in the game are
counts too: a name is in ``players_every_hand`` when the hands it sat in are all the game's hands. So each batch's
``player_hands`` and ``pair_hands`` rows are summed per game and name (or pair) with Arrow's grouping as they are
made; the lake's hands are stored game by game, so the partial rows are about a tenth of the hand-level ones. What
is left after the game pass is one DuckDB query adding up the partial rows of games split between batches,
with the game's winner from ``game_scores``. Computing the tables from their parents' files instead grouped
the 40 M ``player_hands`` rows of 10^7 hands with 30 filtered aggregates, and the seated names from every hand's
list (docs/bench-results.md, "Game-level tables from the hand pass's partial sums").

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

_I32 = pa.int32()


def _flag(x) -> pa.ChunkedArray:
    """1 where ``x`` (bool) is true, 0 where false or null: a ``count(*) FILTER (WHERE x)`` term."""
    return pc.cast(pc.fill_null(x, False), _I32)


def _and(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = pc.and_kleene(out, x)
    return out


def _sum_where(v, cond):
    """``v`` where ``cond`` (null counting false), else 0: a ``sum(v) FILTER (WHERE cond)`` term, nulls as 0."""
    return pc.if_else(pc.fill_null(cond, False), pc.fill_null(v, 0), pa.scalar(0, v.type))


def _player_terms(t: pa.Table) -> dict[str, pa.ChunkedArray]:
    """Per ``player_hands`` row, its term of each :data:`pipeline.facts.player_facts.GAME_SUMS` column."""
    score, has = t.column("own_score"), pc.is_valid(t.column("own_score"))
    counted = pc.or_kleene(t.column("scored"), t.column("summary"))
    taker = _and(counted, t.column("is_taker"))
    defender = _and(counted, t.column("is_defender"))
    kind = t.column("strain_kind")
    terms = {
        "taken": _flag(t.column("is_taker")),
        "made": _flag(t.column("made")),
        "decided": _flag(t.column("decided")),
        "taker_litiges": _flag(t.column("taker_litige")),
        "points": pc.cast(pc.fill_null(score, 0), _I32),
        "points_hands": _flag(has),
        "team_belotes": _flag(t.column("team_belote")),
        "illegal_plays": _flag(t.column("illegal")),
        "taker_points": pc.cast(_sum_where(score, taker), _I32),
        "taker_points_hands": _flag(_and(taker, has)),
        "defender_points": pc.cast(_sum_where(score, defender), _I32),
        "defender_points_hands": _flag(_and(defender, has)),
        "coinches": pc.cast(pc.fill_null(t.column("coinches"), 0), _I32),
        "coinches_won": pc.cast(_sum_where(t.column("coinches"), t.column("failed")), _I32),
        "capots_made": _flag(t.column("capot_made")),
        "capots_suffered": _flag(t.column("capot_suffered")),
        "declarations": pc.cast(pc.fill_null(t.column("declared"), 0), _I32),
        "scored_hands": _flag(t.column("scored")),
        "mismatches": _flag(pc.invert(t.column("matches_recorded"))),
        "compared": _flag(pc.is_valid(t.column("matches_recorded"))),
        "summary_hands": _flag(t.column("summary")),
    }
    for k in ("suit", "nt", "at"):
        is_k = pc.equal(kind, k)
        terms[f"made_{k}"] = _flag(_and(t.column("made"), is_k))
        terms[f"decided_{k}"] = _flag(_and(t.column("decided"), is_k))
    return terms


def _pair_terms(t: pa.Table) -> dict[str, pa.ChunkedArray]:
    """Per ``pair_hands`` row, its term of each :data:`pipeline.facts.pair_facts.GAME_SUMS` column."""
    score = t.column("own_score")
    return {
        "taken": _flag(t.column("took")),
        "made": _flag(t.column("made")),
        "decided": _flag(t.column("decided")),
        "taker_litiges": _flag(t.column("taker_litige")),
        "points": pc.cast(pc.fill_null(score, 0), _I32),
        "points_hands": _flag(pc.is_valid(score)),
        "summary_hands": _flag(t.column("summary")),
    }


#: per game-level table: its parent, the name columns it groups by, the per-row terms, the columns it sums
TABLES = {
    "player_games": ("player_hands", ("player",), _player_terms, tuple(player_facts.GAME_SUMS)),
    "pair_games": ("pair_hands", ("player_a", "player_b"), _pair_terms, tuple(pair_facts.GAME_SUMS)),
}


def partial_sums(table: str, rows: pa.Table) -> pa.Table:
    """The partial rows of game-level ``table`` from a batch of its parent's rows: per (game_id, names), the
    source, one bool column per team bit (``team_bit0``..``team_bit2``: some row had it) and each summed column
    (int64)."""
    _, names, terms_of, sums = TABLES[table]
    terms = terms_of(rows)
    terms["hands"] = pa.array(np.ones(rows.num_rows, np.int32))
    mask = rows.column("team_mask")
    cols = {"game_id": rows.column("game_id"), **{n: rows.column(n) for n in names}, "source": rows.column("source")}
    for bit in range(3):
        cols[f"team_bit{bit}"] = pc.not_equal(pc.bit_wise_and(mask, pa.scalar(1 << bit, mask.type)),
                                              pa.scalar(0, mask.type))
    cols.update({c: terms[c] for c in sums})
    grouped = pa.table(cols).group_by(["game_id", *names], use_threads=False).aggregate(
        [("source", "first")] + [(f"team_bit{b}", "any") for b in range(3)] + [(c, "sum") for c in sums])
    return grouped.rename_columns([n.removesuffix("_first").removesuffix("_any").removesuffix("_sum")
                                   for n in grouped.column_names])


def seated_counts(hands: pa.Table) -> tuple[pa.Table, pa.Table]:
    """From a batch of ``hands`` rows: (per game_id and non-null name, the hands it sat in (``n_all``) and the
    4-player ones (``n_four``); per game_id, its hands with a name (``named``), its 4-player hands (``four``) and
    those of them without a list of names (``four_unlisted``)), each an int64 count. What
    :func:`pipeline.facts.player_facts.seated_sql` reads off the lists, as counts."""
    players = hands.column("players").combine_chunks() if isinstance(hands.column("players"), pa.ChunkedArray) \
        else hands.column("players")
    four = pc.fill_null(pc.equal(hands.column("n_players"), 4), False)
    parent = pc.list_parent_indices(players)
    names = pa.table({"hand": parent, "name": pc.list_flatten(players)}).filter(pc.is_valid(pc.field("name")))
    names = names.group_by(["hand", "name"], use_threads=False).aggregate([])     # each name once a hand
    hand = names.column("hand")
    names = pa.table({"game_id": hands.column("game_id").take(hand), "name": names.column("name"),
                      "n_all": pa.array(np.ones(names.num_rows, np.int64)),
                      "n_four": pc.cast(four.take(hand), pa.int64())})
    name_counts = names.group_by(["game_id", "name"], use_threads=False).aggregate([("n_all", "sum"), ("n_four", "sum")])
    named_hand = pc.is_in(pa.array(range(hands.num_rows), pa.int64()), value_set=pc.unique(pc.cast(hand, pa.int64())))
    games = pa.table({"game_id": hands.column("game_id"), "named": pc.cast(named_hand, pa.int64()),
                      "four": pc.cast(four, pa.int64()),
                      "four_unlisted": pc.cast(pc.and_(four, pc.is_null(hands.column("players"))), pa.int64())})
    game_counts = games.group_by(["game_id"], use_threads=False).aggregate(
        [("named", "sum"), ("four", "sum"), ("four_unlisted", "sum")])
    return (name_counts.rename_columns(["game_id", "name", "n_all", "n_four"]),
            game_counts.rename_columns(["game_id", "named", "four", "four_unlisted"]))


class GameSums:
    """Collects the partial rows of the game-level tables batch by batch on DuckDB connection ``con`` (temporary
    tables, spilled past the connection's memory limit), then gives their rows (:meth:`rows`)."""

    def __init__(self, con, ruleset: str):
        self.con, self.ruleset = con, ruleset
        self.started: set[str] = set()

    def add(self, hands: pa.Table, rows: dict[str, pa.Table]) -> None:
        """Add one batch: ``hands`` (rows of the ``hands`` table) and the batch's hand-level rows by table."""
        parts = {f"_part_{t}": partial_sums(t, rows[parent]) for t, (parent, *_) in TABLES.items()}
        parts["_seated_names"], parts["_seated_games"] = seated_counts(hands)
        for name, part in parts.items():
            self.con.register("_batch_part", part)
            try:
                if name in self.started:
                    self.con.execute(f"INSERT INTO {name} SELECT * FROM _batch_part")
                else:
                    self.con.execute(f"CREATE TEMP TABLE {name} AS SELECT * FROM _batch_part")
                    self.started.add(name)
            finally:
                self.con.unregister("_batch_part")

    def sql(self, table: str, game_scores: str) -> str:
        """SELECT of ``table``'s rows (schema order) from the partial rows and the relation ``game_scores``."""
        _, names, _, sums = TABLES[table]
        keys = ", ".join(names)
        added = ",\n       ".join(f"sum({c})::INTEGER AS {c}" for c in sums)
        r = "'" + self.ruleset.replace("'", "''") + "'"
        # player_games: the hands with a name (player_facts.seated_hands_sql); pair_games: every 4-player hand,
        # one without a list of names making "every hand" unknown (pair_facts.seated_hands_sql)
        count, hands, unlisted = (("n_all", "named", "0") if table == "player_games"
                                  else ("n_four", "four", "sum(four_unlisted)"))
        sql = f"""
WITH x AS (
    SELECT {r} AS ruleset, game_id, any_value(source) AS source, {keys},
           (bool_or(team_bit0)::INTEGER | (bool_or(team_bit1)::INTEGER << 1)
            | (bool_or(team_bit2)::INTEGER << 2))::TINYINT AS team_mask,
           {added}
    FROM _part_{table} GROUP BY game_id, {keys}),
g AS (
    SELECT game_id, sum({hands}) AS sum_hands, {unlisted} AS sum_unlisted
    FROM _seated_games GROUP BY game_id HAVING sum({hands}) > 0),
n AS (
    SELECT game_id, name, sum({count}) AS k FROM _seated_names GROUP BY game_id, name HAVING sum({count}) > 0),
s AS (
    SELECT g.game_id,
           coalesce(list_sort(list(n.name) FILTER (WHERE n.name IS NOT NULL)), []::VARCHAR[]) AS players,
           CASE WHEN g.sum_unlisted = 0 THEN
                coalesce(list_sort(list(n.name) FILTER (WHERE n.k = g.sum_hands)), []::VARCHAR[]) END
                                                                                    AS players_every_hand
    FROM g LEFT JOIN n ON n.game_id = g.game_id
    GROUP BY g.game_id, g.sum_hands, g.sum_unlisted)
SELECT x.*, s.players, s.players_every_hand, w.winner
FROM x
LEFT JOIN s ON s.game_id = x.game_id
LEFT JOIN {game_scores} AS w ON w.game_id = x.game_id AND w.ruleset = x.ruleset
"""
        return sql

    def rows(self, table: str, game_scores: str, batch_rows: int = 262_144):
        """``table``'s rows as Arrow tables, streamed (none when no batch was added)."""
        from pipeline.storage.duck import arrow_reader
        if f"_part_{table}" not in self.started:
            return
        names = schema.schema(table).names
        for b in arrow_reader(self.con, self.sql(table, game_scores), {}, batch_rows):
            yield schema.conform(table, pa.Table.from_batches([b]).select(names))
