-- partnerships: how did each pair of partners do together under one ruleset?
--
-- One row per (pair, source). A pair is two names that sat as partners (seats s and s + 2) in a 4-player hand,
-- whatever their seats; the two names are sorted (player_a <= player_b) so a pair is one row. Names are as the
-- source spells them, so the same pair in two sources gives two rows. 2- and 3-player hands have no partners and
-- are left out. Facts come from the view pair_games (one row per game and pair under the ruleset, the sums of its
-- hands' pair_hands rows: pipeline/facts/pair_facts.py; written when the ruleset is rescored, else derived from
-- `hands` and `scores`), whose `winner` is the game's in `game_scores`. Hands the ruleset could
-- not score still count in games/hands/taken but in no result column; hands imported after the last rescore
-- are left out until the next rescore (`rebelote stats` warns).
--
-- Recorded values: a summary-level hand (hands.completeness = 'summary': points only, no cards) cannot be
-- rescored, so its points are its recorded score (hands.recorded_score, plus the litige points the source's
-- running totals add on it: pipeline/facts/summary_points.py), and a game with summary hands is
-- won/finished as games.recorded_winner says. Summary hands have no made/failed result (not in made, decided).
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
--                      the latter scoring 0); for a summary hand, its recorded score instead; a hand where
--                      the pair sat on both teams has no points for it, and is not in points_hands
--   points_per_hand    points / points_hands, game points, rounded to 2 decimals (NULL when no such hand)
--   won, finished      games the pair's team won / games with a winner (game_scores.winner not NULL) under
--                      the ruleset, or for a game with summary hands the recorded winner (games.recorded_winner
--                      not NULL); won_of = 'won/finished'. A game where the pair sat on both teams
--                      (bots playing themselves) has no result for it: it is in games, not in won or finished.
--   take_rate_lo, take_rate_hi, made_rate, made_rate_lo, made_rate_hi, win_rate_lo, win_rate_hi
--                      the rates with their 95 % Wilson intervals (macros wilson_lo/wilson_hi, pipeline.stats.reports),
--                      as in the players report: made_rate = made / decided, win rate = won / finished
--
-- Order: hands desc, player_a, player_b, source.
--
-- display: player_a, player_b, source, games, hands, taken, made_of, made_rate_lo, made_rate_hi, points_per_hand, won_of
WITH
-- view pair_games (pipeline/facts/pair_facts.py; written at rescore time): one row per (game, pair), with the sums of
-- the pair's hands in that game (pair_hands), the teams it sat as and the game's winner (game_scores: carried in
-- the row, not joined on the string game_id); a pair on both teams of one game has no result in it
per_game AS (
    SELECT * FROM pair_games WHERE ruleset = $ruleset AND coalesce(summary_hands, 0) = 0
    UNION ALL BY NAME
    -- a game with summary hands (no cards: its rescored totals leave them out) is won as its source recorded
    SELECT p.* REPLACE (r.recorded_winner::TINYINT AS winner)
    FROM (SELECT * FROM pair_games WHERE ruleset = $ruleset AND summary_hands > 0) AS p
    LEFT JOIN (SELECT game_id, any_value(recorded_winner) AS recorded_winner FROM games
               WHERE game_id IN (SELECT game_id FROM pair_games WHERE ruleset = $ruleset AND summary_hands > 0)
               GROUP BY game_id) AS r ON r.game_id = p.game_id
),
h AS (
    SELECT player_a, player_b, source,
           count(*)                                              AS games,
           sum(hands)::BIGINT                                    AS hands,
           sum(taken)::BIGINT                                    AS taken,
           sum(made)::BIGINT                                     AS made,
           sum(decided)::BIGINT                                  AS decided,
           sum(taker_litiges)::BIGINT                            AS taker_litiges,
           sum(points)::BIGINT                                   AS points,
           sum(points_hands)::BIGINT                             AS points_hands,
           count(*) FILTER (WHERE (team_mask >> winner) & 1 = 1 AND bit_count(team_mask) = 1) AS won,
           count(*) FILTER (WHERE winner IS NOT NULL AND bit_count(team_mask) = 1)            AS finished
    FROM per_game
    GROUP BY player_a, player_b, source
)
SELECT $ruleset::VARCHAR                                    AS ruleset,
       h.player_a, h.player_b, h.source,
       h.games, h.hands, h.taken,
       round(h.taken / h.hands, 4)                          AS take_rate,
       h.made, h.decided,
       h.made || '/' || h.decided                           AS made_of,
       h.taker_litiges,
       h.points, h.points_hands,
       round(h.points / nullif(h.points_hands, 0), 2)       AS points_per_hand,
       h.won, h.finished, h.won || '/' || h.finished        AS won_of,
       wilson_lo(h.taken, h.hands)                          AS take_rate_lo,
       wilson_hi(h.taken, h.hands)                          AS take_rate_hi,
       round(h.made / nullif(h.decided, 0), 4)              AS made_rate,
       wilson_lo(h.made, h.decided)                         AS made_rate_lo,
       wilson_hi(h.made, h.decided)                         AS made_rate_hi,
       wilson_lo(h.won, h.finished)                         AS win_rate_lo,
       wilson_hi(h.won, h.finished)                         AS win_rate_hi
FROM h
ORDER BY h.hands DESC, h.player_a, h.player_b, h.source
