"""The game-level pass over a whole lake, streamed: a ruleset's scores sorted by game with DuckDB (which spills
to disk past its memory limit), cut into batches of whole games, each batch through
:func:`pipeline.rescore.game.game_pass`.

Memory is bounded by DuckDB's ``memory_limit`` (``$REBELOTE_DUCKDB_MEMORY``, default :data:`pipeline.storage.duck.PASS_LIMIT`) plus one batch
of ``batch_rows`` score rows, not by the number of hands in the lake.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import lake as lakemod
from pipeline.storage.duck import PASS_LIMIT, arrow_reader, duckdb_connection, table_source
from pipeline.rescore.game import SUMMARY_SCORE, game_pass
from pipeline.rules import Ruleset
from pipeline.facts.summary_points import summary_points_sql

# what game_pass reads from each score row
GAME_COLUMNS = ["game_id", "hand_no", "source", "status", "hand_score", "held_points", "litige", "taker_team",
                "contract_made", "capot_team", "carried_in", "penalty_points", "claim_team", "claim_points", "claim_note"]


def _last_game_start(gid: np.ndarray) -> int:
    """Index of the first row of the last game in a batch sorted by game_id."""
    change = np.nonzero(gid[1:] != gid[:-1])[0]
    return int(change[-1] + 1) if len(change) else 0


def sorted_game_batches(lake, ruleset: str, batch_rows: int = 1 << 18, games: pa.Array | None = None,
                        extra: tuple[str, ...] = ()) -> Iterator[pa.Table]:
    """The ``scores`` rows of ``ruleset`` (columns :data:`GAME_COLUMNS` and ``extra`` plus the game's recorded ``target``,
    ``recorded_final`` and ``game_key`` from ``games``, and, when the lake holds summary-level hands, their recorded score as
    :data:`pipeline.rescore.game.SUMMARY_SCORE`), sorted by (game_id, hand_no), in tables of about ``batch_rows``
    rows that each hold whole games (a game is never split between two tables). ``games``: only those game ids."""
    loc = lakemod.locate(lake)
    files = [f.path for f in lakemod.list_files(loc, "scores", f"ruleset={ruleset}")]
    if not files:
        return
    con = duckdb_connection(default_limit=PASS_LIMIT)
    try:
        scores = table_source(con, loc, "scores", files)
        if lakemod.has_table(loc, "games"):
            games_sql = ("(SELECT game_id, any_value(target) AS target, any_value(recorded_final) AS recorded_final, "
                         f"any_value(game_key) AS game_key FROM {table_source(con, loc, 'games')} GROUP BY game_id)")
        else:
            games_sql = ("(SELECT NULL::VARCHAR AS game_id, NULL::INTEGER AS target, NULL::INTEGER[] AS recorded_final, "
                         "NULL::VARCHAR AS game_key)")
        cols = ", ".join(f"s.{c}" for c in GAME_COLUMNS + list(extra))
        summary, join = _summary_scores(con, loc)
        only = ""
        if games is not None:
            con.register("_only_arrow", pa.table({"game_id": games}))
            only = " AND s.game_id IN (SELECT game_id FROM _only_arrow)"
        reader = arrow_reader(con, f"SELECT {cols}, g.target, g.recorded_final, g.game_key{summary} FROM {scores} s LEFT JOIN "
                              f"{games_sql} g USING (game_id){join} WHERE s.ruleset = $r{only} "
                              "ORDER BY s.game_id, s.hand_no", {"r": ruleset}, batch_rows)
        carry: pa.Table | None = None
        for b in reader:
            t = pa.Table.from_batches([b]) if carry is None else pa.concat_tables([carry, pa.Table.from_batches([b])])
            if t.num_rows == 0:
                continue
            cut = _last_game_start(t.column("game_id").to_numpy(zero_copy_only=False))
            if cut:
                yield t.slice(0, cut)
            carry = t.slice(cut)
        if carry is not None and carry.num_rows:
            yield carry
    finally:
        con.close()


def _summary_scores(con, loc) -> tuple[str, str]:
    """(select-list item, join clause) adding the points of every summary-level hand (its recorded score plus
    carried litige points, :mod:`pipeline.facts.summary_points`) to the score rows (``s``) as :data:`~pipeline.rescore.game.SUMMARY_SCORE`; ('', '') when the lake has no such hand (the test
    reads only the ``completeness`` column, and Parquet statistics let DuckDB skip row groups without one)."""
    if not lakemod.has_table(loc, "hands"):
        return "", ""
    hands = table_source(con, loc, "hands")
    if con.execute(f"SELECT 1 FROM {hands} WHERE completeness = 'summary' LIMIT 1").fetchall() == []:
        return "", ""
    # the recorded score plus the litige points the source's running totals add on the hand (a score sheet's)
    return (f", sh.points AS {SUMMARY_SCORE}",
            f" LEFT JOIN ({summary_points_sql(hands)}) sh ON sh.hand_key = s.hand_key")


def _extra_columns(rules: Ruleset) -> tuple[str, ...]:
    """Score columns the game pass reads under ``rules`` beyond :data:`GAME_COLUMNS`: ``card_points`` for
    ``game.exit_needs = "loser_cards"`` (whether the losers took card points in the deal)."""
    return ("card_points",) if rules["game.exit_needs"] == "loser_cards" else ()


def _pass_columns(t: pa.Table, rules: Ruleset) -> pa.Table:
    return t.select(GAME_COLUMNS + list(_extra_columns(rules)) + [c for c in (SUMMARY_SCORE,) if c in t.column_names])


def results_of(t: pa.Table, rules: Ruleset) -> tuple[pa.Table, pa.ChunkedArray]:
    """The ``game_scores`` rows of ``t`` (score rows of whole games, any order, with the columns
    :func:`sorted_game_batches` gives) under ``rules`` (a ruleset or ``own`` rules), sorted by game, with each
    game's ``game_key``; and the games' ``recorded_final`` values in the same order."""
    from pipeline.rescore.own import game_pass_own
    from pipeline.rules.own import OwnRules

    def one(rows: pa.Table, m: Ruleset) -> pa.Table:
        targets = None
        if m["game.target_from_record"]:
            targets = {g: x for g, x in zip(rows.column("game_id").to_pylist(), rows.column("target").to_pylist()) if x}
        return game_pass(_pass_columns(rows, m), m, targets)

    g = game_pass_own(t, rules, one) if isinstance(rules, OwnRules) else one(t, rules)
    # one game_key and recorded_final per game (its first row's), in game_pass's output order
    idx = pc.index_in(g.column("game_id"), value_set=t.column("game_id"))
    g = g.set_column(g.column_names.index("game_key"), g.schema.field("game_key"), t.column("game_key").take(idx))
    return g, t.column("recorded_final").take(idx)


def extra_columns(rules: Ruleset) -> tuple[str, ...]:
    """:func:`_extra_columns` of ``rules`` or, under ``own`` rules, of every member ruleset."""
    from pipeline.rules.own import OwnRules

    members = [*rules.members.values(), *rules.by_variant.values()] if isinstance(rules, OwnRules) else [rules]
    return tuple(sorted({c for m in members for c in _extra_columns(m)}))


def game_results(lake, rules: Ruleset, on_game_batch=None, batch_rows: int = 1 << 18,
                 games: pa.Array | None = None) -> Iterator[pa.Table]:
    """``game_scores`` tables for ``rules`` over the lake's scores (already written for that ruleset), streamed.

    ``on_game_batch(games, recorded_final)`` is called with each output table and the matching
    ``recorded_final`` values (list per game, or None) so the caller can count recorded totals matched.
    ``games``: only those game ids."""
    for t in sorted_game_batches(lake, rules.name, batch_rows, games, extra_columns(rules)):
        g, final = results_of(t, rules)
        if on_game_batch is not None:
            on_game_batch(g, final)
        yield g
