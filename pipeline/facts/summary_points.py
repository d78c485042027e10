"""The game points a summary-level hand counts: its recorded score plus the litige points its source's running
totals add on it.

A summary-level hand (``hands.completeness = 'summary'``: a score sheet's row, a carg round, a hand
``--on-error lenient`` kept without its plays) has no cards, so no ruleset rescores it: the game's totals
(``game_scores``), ``rebelote show`` and the per-player reports count its recorded score instead. On a club score
sheet, a litige hand's taker's team writes 0 (its points are held), and the sheet's running totals add those
held points to the team that wins a later hand, on top of that hand's score (docs/scoresheet-csv.md, Checks).
The hand's ``recorded_score`` keeps the sheet's own cells (before any carry-over, as the ``hands`` schema says),
so the carried points are read here from ``recorded_totals``, the way a club organiser reads the sheet:

    points of hand n = recorded_totals(n) - recorded_totals(the last earlier hand that has them; 0-0 before
                       hand 1) - the recorded scores of the hands in between

(hands without totals count their recorded score; the difference lands on the next hand with totals). Only a
difference a litige can make is carried: points added to one team, none to the other (held points go to the
winners of a later hand); any other (a penalty taken off, a record resumed with totals already running) is no
carry, and the hand counts its recorded score. This is
done only for a hand whose every earlier hand in its game is summary-level too (by hand number: a record may
start past hand 1 or skip numbers), with two teams (a 2-value
``recorded_score`` and ``recorded_totals``): before a rescored hand, the totals also hold what the rescoring
scores, and the game pass carries the litiges of rescored hands itself. For a carg game or a sheet without a
litige the totals are the running sum of the scores, so the points are the recorded scores.

Units: game points (not card points), one value per team, team 0 first.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa


def summary_points_sql(hands: str) -> str:
    """SELECT over the relation (or parenthesised subquery) ``hands`` giving one row per summary-level hand:
    ``hand_key`` VARCHAR, ``points`` INTEGER[] (game points per team the hand counts: its recorded score plus the
    carried points, see the module text; the recorded score where they cannot be read) and ``carried``
    INTEGER[] (the carried points per team, null where none or not readable). Needs the hands columns
    hand_key, game_id, hand_no, completeness, recorded_score, recorded_totals."""
    return f"""
SELECT hand_key, carried,
       CASE WHEN carried IS NULL THEN rs ELSE [rs[1] + carried[1], rs[2] + carried[2]] END::INTEGER[] AS points
FROM (
    SELECT hand_key, rs,
           CASE WHEN gap1 IS NOT NULL AND len(rs) = 2
                     AND ((gap1 - prev1 > 0 AND gap2 = prev2) OR (gap2 - prev2 > 0 AND gap1 = prev1))
                THEN [gap1 - prev1, gap2 - prev2] END::INTEGER[] AS carried
    FROM (
        SELECT *,
               coalesce(last_value(gap1 IGNORE NULLS) OVER earlier, 0) AS prev1,
               coalesce(last_value(gap2 IGNORE NULLS) OVER earlier, 0) AS prev2
        FROM (
            SELECT *,
                   CASE WHEN all_summary AND len(rt) = 2 AND len(rs) = 2 THEN rt[1] - run1 END AS gap1,
                   CASE WHEN all_summary AND len(rt) = 2 AND len(rs) = 2 THEN rt[2] - run2 END AS gap2
            FROM (
                SELECT *,
                       first_rescored IS NULL OR hand_no < first_rescored AS all_summary,
                       sum(CASE WHEN len(rs) = 2 THEN rs[1] ELSE 0 END) OVER upto AS run1,
                       sum(CASE WHEN len(rs) = 2 THEN rs[2] ELSE 0 END) OVER upto AS run2
                FROM (SELECT hand_key, any_value(game_id) AS game_id, any_value(hand_no) AS hand_no,
                             any_value(recorded_score) AS rs, any_value(recorded_totals) AS rt
                      FROM {hands} WHERE completeness = 'summary' GROUP BY hand_key)
                -- the first hand of each such game that is not summary-level (hand numbers may start past 1 or
                -- skip some: counting the summary hands before a hand would not tell)
                LEFT JOIN (SELECT game_id, min(hand_no) AS first_rescored FROM {hands}
                           WHERE completeness IS DISTINCT FROM 'summary'
                             AND game_id IN (SELECT game_id FROM {hands} WHERE completeness = 'summary')
                           GROUP BY game_id) USING (game_id)
                WINDOW upto AS (PARTITION BY game_id ORDER BY hand_no ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            )
        )
        WINDOW earlier AS (PARTITION BY game_id ORDER BY hand_no ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    )
)"""


def summary_points(hands: pa.Table) -> dict[str, dict[str, Any]]:
    """For the summary-level hands of ``hands`` (a ``hands``-schema Arrow table, e.g. one game's rows):
    hand_key -> {"points": list[int] game points per team the hand counts, "carried": list[int] | None the litige
    points its source's totals add on it}. Same rule as :func:`summary_points_sql`, which it runs with DuckDB."""
    from pipeline.storage.duck import duckdb_connection

    con = duckdb_connection()
    try:
        con.register("_summary_hands", hands.select(["hand_key", "game_id", "hand_no", "completeness",
                                                     "recorded_score", "recorded_totals"]))
        rows = con.execute(summary_points_sql("_summary_hands")).fetchall()
    finally:
        con.close()
    return {k: {"points": p, "carried": c} for k, c, p in rows}


def summary_table(lake) -> pa.Table | None:
    """(hand_key, points) of the lake's summary-level hands (:func:`pipeline.facts.summary_points.summary_points_sql`
    over the hands of the games that have one), or None when it has none. Read once per rescore: the game pass
    and the report facts both take it (a batch may hold only part of a game)."""
    from pipeline.storage import lake as lakemod
    from pipeline.storage.duck import PASS_LIMIT, duckdb_connection, table_source

    if not lakemod.has_table(lake, "hands"):
        return None
    con = duckdb_connection(default_limit=PASS_LIMIT)
    try:
        hands = table_source(con, lakemod.locate(lake), "hands")
        if con.execute(f"SELECT 1 FROM {hands} WHERE completeness = 'summary' LIMIT 1").fetchall() == []:
            return None
        games = f"(SELECT * FROM {hands} WHERE game_id IN (SELECT game_id FROM {hands} WHERE completeness = 'summary'))"
        return con.sql(f"SELECT hand_key, points FROM ({summary_points_sql(games)})").to_arrow_table()
    finally:
        con.close()
