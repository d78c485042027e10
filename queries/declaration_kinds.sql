-- declaration_kinds: how often is each kind of declaration held, by whom, worth how much, and (where the source
-- records announcements) how often was it announced?
--
-- One row per (player, source, kind), plus rows with player '(all)' for the whole source. Kinds: tierce, quarte,
-- quinte (any run of 5 or more), one carré per rank (carre_9, carre_J, ...) and belote (belote-rebelote).
-- Items come from scores.declarations under the ruleset (what the ruleset counts: held in the initial hands,
-- or announced when the ruleset reads the source's announcements, see scores.declarations_from), only in hands
-- scored with a result (status 'scored') and in strains where the ruleset plays declarations. A player's items
-- are those of the player's own seat.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns:
--   ruleset               the ruleset reported
--   player                name as the source spells it, '(all)' for every seat together
--   source                source of the hands
--   kind                  tierce, quarte, quinte, carre_<rank> (7 8 9 10 J Q K A) or belote
--   hands                 scored hands the player sat in ('(all)': scored hands of the source)
--   items                 declarations of this kind held (or announced) by the player
--   hands_with            hands where the player held at least one of this kind
--   per_100_hands         items / hands x 100, rounded to 2 decimals
--   points                card points those items are worth under the ruleset
--   scored_items          items that scored for their team after the contest between teams
--   scored_points         card points of those items
--   announced_items       ('(all)' rows only) items of this kind in the source's recorded announcements
--                         (hands.announced), over the scored hands whose source records announcements
--   held_where_announced  ('(all)' rows only) items held in those same hands, when the ruleset detects
--                         declarations in the initial hands (declarations_from = 'held'); NULL otherwise.
--                         held_where_announced - announced_items = declarations held but not announced.
--
-- A kind that no scored hand of a source has (its '(all)' row holds 0 items and 0 announced: a ruleset without
-- declarations, or a kind that never came up) is left out for that source, with every player's row of it, so a
-- source scored without declarations shows only its belote rows instead of eleven rows of zeros per player.
--
-- Order: source, player ('(all)' first), kind in the order above.
--
-- display: player, source, kind, hands, items, per_100_hands, scored_items, scored_points, announced_items, held_where_announced
WITH
-- views hand_facts (one row per hand), declaration_items (one row per item) and player_games (one row per game
-- and name), written at rescore time (pipeline/facts/hand_facts.py, declaration_facts.py, player_facts.py)
sc AS (SELECT * FROM hand_facts WHERE ruleset = $ruleset AND status = 'scored'),
kinds(kind, ord) AS (VALUES ('tierce', 1), ('quarte', 2), ('quinte', 3), ('carre_7', 4), ('carre_8', 5),
                            ('carre_9', 6), ('carre_10', 7), ('carre_J', 8), ('carre_Q', 9), ('carre_K', 10),
                            ('carre_A', 11), ('belote', 12)),
items AS (SELECT * FROM declaration_items WHERE ruleset = $ruleset AND NOT announced),
-- hands played: per player (a name seated twice in a hand counts it once) and per source
hands_of AS (
    SELECT player, source, sum(scored_hands)::BIGINT AS hands
    FROM player_games
    WHERE ruleset = $ruleset
    GROUP BY player, source
    HAVING sum(scored_hands) > 0
),
source_hands AS (
    SELECT source, count(*) AS hands, count(*) FILTER (WHERE records_announced) AS announced_hands
    FROM sc
    GROUP BY source
),
announced AS (
    SELECT source, kind, count(*) AS announced_items
    FROM declaration_items
    WHERE ruleset = $ruleset AND announced
    GROUP BY ALL
),
per_player AS (
    SELECT player, source, kind, count(*) AS items, count_if(first_for_player) AS hands_with,
           sum(points) AS points, count_if(scored) AS scored_items, sum(points) FILTER (WHERE scored) AS scored_points
    FROM items GROUP BY player, source, kind
),
per_source AS (
    SELECT source, kind, count(*) AS items, count_if(first_in_hand) AS hands_with,
           sum(points) AS points, count_if(scored) AS scored_items, sum(points) FILTER (WHERE scored) AS scored_points,
           count(*) FILTER (WHERE records_announced AND declarations_from = 'held') AS held_where_announced
    FROM items GROUP BY source, kind
),
present AS (   -- the kinds each source has at all, held or announced (the other kinds' rows are all 0)
    SELECT source, kind FROM per_source UNION SELECT source, kind FROM announced
),
grid AS (   -- every present kind for every player and source, so a player without one shows 0
    SELECT p.player, p.source, p.hands, k.kind, k.ord FROM hands_of AS p CROSS JOIN kinds AS k
    SEMI JOIN present AS x ON x.source = p.source AND x.kind = k.kind
    UNION ALL
    SELECT '(all)', s.source, s.hands, k.kind, k.ord FROM source_hands AS s CROSS JOIN kinds AS k
    SEMI JOIN present AS x ON x.source = s.source AND x.kind = k.kind
)
SELECT $ruleset::VARCHAR                                                     AS ruleset,
       g.player, g.source, g.kind, g.hands,
       coalesce(p.items, s.items, 0)::BIGINT                                AS items,
       coalesce(p.hands_with, s.hands_with, 0)::BIGINT                      AS hands_with,
       round(coalesce(p.items, s.items, 0) * 100 / nullif(g.hands, 0), 2) AS per_100_hands,
       coalesce(p.points, s.points, 0)::BIGINT                              AS points,
       coalesce(p.scored_items, s.scored_items, 0)::BIGINT                  AS scored_items,
       coalesce(p.scored_points, s.scored_points, 0)::BIGINT                AS scored_points,
       CASE WHEN g.player = '(all)' AND sh.announced_hands > 0
            THEN coalesce(a.announced_items, 0) END::BIGINT                  AS announced_items,
       CASE WHEN g.player = '(all)' AND sh.announced_hands > 0
                 AND NOT EXISTS (SELECT 1 FROM sc WHERE sc.source = g.source AND sc.declarations_from <> 'held')
            THEN coalesce(s.held_where_announced, 0) END::BIGINT             AS held_where_announced
FROM grid AS g
LEFT JOIN per_player AS p ON g.player <> '(all)' AND p.player IS NOT DISTINCT FROM g.player
                          AND p.source = g.source AND p.kind = g.kind
LEFT JOIN per_source AS s ON g.player = '(all)' AND s.source = g.source AND s.kind = g.kind
LEFT JOIN source_hands AS sh ON sh.source = g.source
LEFT JOIN announced AS a ON a.source = g.source AND a.kind = g.kind
ORDER BY g.source, g.player <> '(all)', g.player, g.ord
