-- head_to_head: how did two pairs of partners do against each other under one ruleset?
--
-- One row per (pair A, pair B, source): the 4-player games where pair A (one team) played pair B (the
-- other team). A pair is the two names of a team, seats s and s + 2 of `games.players`, sorted as in the
-- partnerships report; pair A is the smaller of the two pairs (by first name, then second name), so a
-- match-up is one row whichever team each pair sat on. Games come from `games` (2- and 3-player games
-- have no pairs and are left out); results from `game_scores` rescored under the ruleset. A game not
-- rescored under the ruleset counts in games but not in finished.
--
-- Recorded values: a game with summary-level hands (hands.completeness = 'summary': points only, no cards)
-- cannot be rescored, so its result is the recorded one (games.recorded_winner; null: unfinished or unknown).
--
-- Parameters:
--   $ruleset   ruleset name (game_scores.ruleset)
--
-- Columns:
--   ruleset            the ruleset reported
--   pair_a, pair_b     the two pairs as 'name & name' (pair_a <= pair_b)
--   pair_a_1, pair_a_2, pair_b_1, pair_b_2
--                      the four names (pair_x_1 <= pair_x_2)
--   source             the source of the games
--   games              games the two pairs played against each other
--   finished           those with a winner under the ruleset (game_scores.winner not NULL), or for a game
--                      with summary hands a recorded winner
--   a_won, b_won       games won by pair A / pair B (a_won + b_won = finished); when the same pair sits
--                      on both teams (bots), pair A is team 0
--   result             'a_won-b_won'
--
-- Order: games desc, pair_a, pair_b, source.
--
-- display: pair_a, pair_b, source, games, finished, a_won, b_won
WITH
teams AS (
    SELECT game_id, source, recorded_winner,
           list_sort([players[1], players[3]]) AS pair0,
           list_sort([players[2], players[4]]) AS pair1
    FROM games
    WHERE n_players = 4
),
summary_games AS (
    SELECT DISTINCT game_id FROM hands WHERE completeness = 'summary'
),
matchups AS (
    SELECT game_id, source, recorded_winner,
           CASE WHEN pair0 <= pair1 THEN pair0 ELSE pair1 END AS pa,
           CASE WHEN pair0 <= pair1 THEN pair1 ELSE pair0 END AS pb,
           CASE WHEN pair0 <= pair1 THEN 0 ELSE 1 END         AS team_a
    FROM teams
),
per_game AS (
    SELECT m.pa[1] AS pair_a_1, m.pa[2] AS pair_a_2, m.pb[1] AS pair_b_1, m.pb[2] AS pair_b_2,
           m.source, m.game_id, m.team_a,
           CASE WHEN sg.game_id IS NOT NULL THEN m.recorded_winner ELSE g.winner END AS winner
    FROM matchups AS m
    LEFT JOIN game_scores AS g ON g.game_id = m.game_id AND g.ruleset = $ruleset
    LEFT JOIN summary_games AS sg ON sg.game_id = m.game_id
),
by_matchup AS (
    SELECT pair_a_1, pair_a_2, pair_b_1, pair_b_2, source,
           count(*)                                 AS games,
           count(winner)                            AS finished,
           count_if(coalesce(winner = team_a, false))::BIGINT        AS a_won,
           count_if(coalesce(winner = 1 - team_a, false))::BIGINT    AS b_won
    FROM per_game
    GROUP BY pair_a_1, pair_a_2, pair_b_1, pair_b_2, source
)
SELECT $ruleset::VARCHAR                          AS ruleset,
       concat(pair_a_1, ' & ', pair_a_2)          AS pair_a,
       concat(pair_b_1, ' & ', pair_b_2)          AS pair_b,
       pair_a_1, pair_a_2, pair_b_1, pair_b_2,
       source, games, finished, a_won, b_won,
       a_won || '-' || b_won                      AS result
FROM by_matchup
ORDER BY games DESC, pair_a, pair_b, source
