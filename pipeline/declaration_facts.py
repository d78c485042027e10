"""Declaration items of the hands scored under a ruleset: the ``declaration_items`` table.

The declaration_kinds report (``queries/declaration_kinds.sql``) counts items per player, source and kind.
Deriving them means unnesting every scored hand's declarations and joining the hand for the name at each
item's seat; written once when the ruleset is rescored (:func:`pipeline.derived.materialize`), the report
reads one narrow table (schemas/declaration_items.toml). A lake without it gets the same rows computed on the
fly (:func:`live_sql`).

Only hands scored with a result (scores.status = 'scored') have items. Two kinds of row: ``announced = false``
for each item of scores.declarations (what the ruleset counts, with its points and whether it scored),
``announced = true`` for each item of hands.announced (what the source recorded as announced) whose kind is
one the report lists (tierce, quarte, quinte, carré, belote).
"""

from __future__ import annotations

#: SQL of the report's kind of an item ``x`` (a struct with ``kind`` and ``rank``): carrés by rank; ``{other}``
#: for the kinds that are not tierce, quarte, quinte, carre or belote.
_KIND = ("CASE WHEN {x}.kind = 'carre' THEN 'carre_' || ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'][{x}.rank + 1] "
         "WHEN {x}.kind IN ('tierce', 'quarte', 'quinte', 'belote') THEN {x}.kind ELSE {other} END")


def live_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None) -> str:
    """SELECT producing ``declaration_items`` rows (schema column order) from relations ``hands`` and
    ``scores``, for every ruleset of ``scores`` (or those listed by the SELECT ``rulesets``)."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    return f"""
WITH hs AS (
    SELECT r.ruleset, h.hand_key, h.source, h.players, h.announced, sc.declarations, sc.declarations_from,
           h.announced IS NOT NULL AS records_announced
    FROM ({rs}) AS r
    JOIN {scores} AS sc ON sc.ruleset = r.ruleset AND sc.status = 'scored'
    JOIN {hands} AS h ON h.hand_key = sc.hand_key
),
counted AS (
    SELECT ruleset, hand_key, source, players[d.seat + 1] AS player, false AS announced, {_KIND.format(x='d', other='d.kind')} AS kind,
           d.points, d.scored, declarations_from, records_announced
    FROM (SELECT *, unnest(declarations) AS d FROM hs WHERE len(declarations) > 0)
),
recorded AS (
    SELECT ruleset, hand_key, source, players[a.seat + 1] AS player, true AS announced, {_KIND.format(x='a', other='NULL')} AS kind,
           NULL::SMALLINT AS points, NULL::BOOLEAN AS scored, declarations_from, records_announced
    FROM (SELECT *, unnest(announced) AS a FROM hs WHERE len(announced) > 0)
)
SELECT * FROM counted
UNION ALL
SELECT * FROM recorded WHERE kind IS NOT NULL
"""
