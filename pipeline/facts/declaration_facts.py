"""Declaration items of the hands scored under a ruleset: the ``declaration_items`` table.

The declaration_kinds report (``queries/declaration_kinds.sql``) counts items per player, source and kind.
Deriving them means unnesting every scored hand's declarations and joining the hand for the name at each
item's seat; written once when the ruleset is rescored (:func:`pipeline.facts.derived.materialize`), the report
reads one narrow table (schemas/declaration_items.toml). A lake without it gets the same rows computed on the
fly (:func:`live_sql`).

Only hands scored with a result (scores.status = 'scored') have items. Two kinds of row: ``announced = false``
for each item of scores.declarations (what the ruleset counts, with its points and whether it scored),
``announced = true`` for each item of hands.announced (what the source recorded as announced) whose kind is
one the report lists (tierce, quarte, quinte, carré, belote). ``first_for_player`` / ``first_in_hand`` mark an
item that is the first of its kind in its list held by its name / by anyone, so that "hands with one" is a count
of flags rather than a count of distinct hands.
"""

from __future__ import annotations

#: SQL of the report's kind of an item ``x`` (a struct with ``kind`` and ``rank``): carrés by rank; ``{other}``
#: for the kinds that are not tierce, quarte, quinte, carre or belote.
_KIND = ("CASE WHEN {x}.kind = 'carre' THEN 'carre_' || ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'][{x}.rank + 1] "
         "WHEN {x}.kind IN ('tierce', 'quarte', 'quinte', 'belote') THEN {x}.kind ELSE {other} END")


def live_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None) -> str:
    """SELECT producing ``declaration_items`` rows (schema column order) from relations ``hands`` and
    ``scores``, for every ruleset of ``scores`` (or those listed by the SELECT ``rulesets``). Row-local: the
    ``first_*`` flags compare an item with the items before it in the same list."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    return f"""
WITH hs AS (
    SELECT r.ruleset, h.hand_key, h.source, h.announced IS NOT NULL AS records_announced, sc.declarations_from, h.players,
           list_transform(sc.declarations, lambda d: {{'player': h.players[d.seat + 1], 'kind': {_KIND.format(x='d', other='d.kind')},
                                                       'points': d.points, 'scored': d.scored}}) AS counted,
           list_transform(h.announced, lambda a: {{'player': h.players[a.seat + 1], 'kind': {_KIND.format(x='a', other='NULL')},
                                                   'points': NULL::SMALLINT, 'scored': NULL::BOOLEAN}}) AS recorded
    FROM ({rs}) AS r
    JOIN {scores} AS sc ON sc.ruleset = r.ruleset AND sc.status = 'scored'
    JOIN {hands} AS h ON h.hand_key = sc.hand_key
),
items AS (
    SELECT ruleset, hand_key, source, records_announced, declarations_from, players, false AS announced, counted AS list,
           unnest(range(1, len(counted) + 1)) AS i
    FROM hs WHERE len(counted) > 0
    UNION ALL
    SELECT ruleset, hand_key, source, records_announced, declarations_from, players, true, recorded,
           unnest(range(1, len(recorded) + 1))
    FROM hs WHERE len(recorded) > 0
)
SELECT ruleset, hand_key, source, list[i].player AS player, announced, list[i].kind AS kind, list[i].points AS points,
       list[i].scored AS scored,
       len(list_filter(list[1:i - 1], lambda x: x.kind = list[i].kind
                                              AND x.player IS NOT DISTINCT FROM list[i].player)) = 0 AS first_for_player,
       len(list_filter(list[1:i - 1], lambda x: x.kind = list[i].kind)) = 0                   AS first_in_hand,
       declarations_from, records_announced, players
FROM items
WHERE list[i].kind IS NOT NULL
"""
