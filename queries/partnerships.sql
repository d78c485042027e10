-- partnerships: how did each pair of partners do together under one ruleset?
--
-- One row per (pair, source). A pair is two names that sat as partners (seats s and s + 2) in a 4-player
-- hand, whatever their seats; the two names are sorted (player_a <= player_b) so a pair is one row. Names
-- are as the source spells them, so the same pair in two sources gives two rows. 2- and 3-player hands
-- have no partners and are left out. Facts come from the views pair_hands and pair_games (one row per hand or
-- game and pair under the ruleset, pipeline/pair_facts.py: written when the ruleset is rescored, else derived
-- from `hands` and `scores`) and from `game_scores`. Hands not rescored under the ruleset still count in
-- games/hands/taken but in no result column.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset / game_scores.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset            the ruleset reported
--   player_a, player_b the two partners, player_a <= player_b
--   source             the source of the records
--   games              games in which the pair sat together (as partners)
--   hands              hands the pair played together (passed-out hands included; a pair seated on both
--                      teams of a hand - bots - counts it once)
--   taken              hands one of the two took (the taker was on their team)
--   take_rate          taken / hands, rounded to 4 decimals
--   made, decided      contracts the pair took and made / took and that were scored with a result
--                      (status 'scored', not litige); made_of = 'made/decided'
--   taker_litiges      contracts the pair took that ended in litige (neither made nor failed)
--   points             sum of the team's hand_score (game points, before any litige carry-over) over
--                      points_hands = the pair's hands with a hand_score (status 'scored' or 'passed_out',
--                      the latter scoring 0)
--   points_per_hand    points / points_hands, game points, rounded to 2 decimals (NULL when no such hand)
--   won, finished      games the pair's team won / games with a winner (game_scores.winner not NULL) under
--                      the ruleset; won_of = 'won/finished'. A pair seated on both teams of a game counts
--                      that game once, as won.
--   take_rate_lo, take_rate_hi, made_rate, made_rate_lo, made_rate_hi, win_rate_lo, win_rate_hi
--                      the rates with their 95 % Wilson intervals (macros wilson_lo/wilson_hi, pipeline.stats),
--                      as in the players report: made_rate = made / decided, win rate = won / finished
--
-- Order: hands desc, player_a, player_b, source.
--
-- display: player_a, player_b, source, games, hands, taken, made_of, made_rate_lo, made_rate_hi, points_per_hand, won_of
WITH
-- one row per (hand, pair): view pair_hands (pipeline/pair_facts.py; written at rescore time)
by_hand AS (
    SELECT player_a, player_b, source,
           count(*)                             AS hands,
           count_if(took)::BIGINT               AS taken,
           count_if(made)::BIGINT               AS made,
           count_if(decided)::BIGINT            AS decided,
           count_if(taker_litige)::BIGINT       AS taker_litiges,
           coalesce(sum(own_score), 0)::BIGINT  AS points,
           count(own_score)                     AS points_hands
    FROM pair_hands
    WHERE ruleset = $ruleset
    GROUP BY player_a, player_b, source
),
by_game AS (
    -- view pair_games: the teams a pair sat as in each game; a pair on both teams of one game counts it once, as won
    SELECT p.player_a, p.player_b, p.source,
           count(*)                                                  AS games,
           count(*) FILTER (WHERE (p.team_mask >> g.winner) & 1 = 1) AS won,
           count(*) FILTER (WHERE g.winner IS NOT NULL)              AS finished
    FROM (SELECT * FROM pair_games WHERE ruleset = $ruleset) AS p
    LEFT JOIN game_scores AS g ON g.game_id = p.game_id AND g.ruleset = $ruleset
    GROUP BY p.player_a, p.player_b, p.source
)
SELECT $ruleset::VARCHAR                                    AS ruleset,
       h.player_a, h.player_b, h.source,
       g.games, h.hands, h.taken,
       round(h.taken / h.hands, 4)                          AS take_rate,
       h.made, h.decided,
       h.made || '/' || h.decided                           AS made_of,
       h.taker_litiges,
       h.points, h.points_hands,
       round(h.points / nullif(h.points_hands, 0), 2)       AS points_per_hand,
       coalesce(g.won, 0)                                   AS won,
       coalesce(g.finished, 0)                              AS finished,
       coalesce(g.won, 0) || '/' || coalesce(g.finished, 0) AS won_of,
       wilson_lo(h.taken, h.hands)                          AS take_rate_lo,
       wilson_hi(h.taken, h.hands)                          AS take_rate_hi,
       round(h.made / nullif(h.decided, 0), 4)              AS made_rate,
       wilson_lo(h.made, h.decided)                         AS made_rate_lo,
       wilson_hi(h.made, h.decided)                         AS made_rate_hi,
       wilson_lo(coalesce(g.won, 0), coalesce(g.finished, 0)) AS win_rate_lo,
       wilson_hi(coalesce(g.won, 0), coalesce(g.finished, 0)) AS win_rate_hi
FROM by_hand AS h
LEFT JOIN by_game AS g ON g.player_a IS NOT DISTINCT FROM h.player_a AND g.player_b IS NOT DISTINCT FROM h.player_b
                      AND g.source = h.source
ORDER BY h.hands DESC, h.player_a, h.player_b, h.source
