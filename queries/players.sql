-- players: how did each player do under one ruleset?
--
-- One row per (player, source): a player is a name as the source spells it, so the same name in two sources
-- gives two rows. Facts come from the view player_games (one row per game and name under the ruleset, the sums
-- of its hands' player_hands rows: pipeline/facts/player_facts.py; written when the ruleset is rescored, else
-- derived from `hands` and `scores`), whose `winner` is the game's in `game_scores`. Hands the
-- ruleset could not score
-- still count in games/hands/taken but in no result column; hands imported after the last rescore are left
-- out until the next rescore (`rebelote stats` warns).
--
-- Recorded values: a summary-level hand (hands.completeness = 'summary': a score sheet or score keeper's
-- round, points only, no cards) cannot be rescored under any ruleset, so the report uses what its source
-- recorded: its points (points, points_per_hand, taker_points_per_hand, defender_points_per_hand) are
-- hands.recorded_score plus the points a litige held that the source's running totals add on the hand
-- (pipeline/facts/summary_points.py), and a game with summary hands is won/finished as games.recorded_winner says
-- (null: unfinished or unknown). Every other number is the rescoring's: summary hands have no made/failed result
-- (they are not in made, decided, made_of), and no declarations, capots or illegal plays.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset / game_scores.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset          the ruleset reported
--   player, source   the player's name and the source of the records
--   games            games the player sat in
--   hands            hands the player sat in (passed-out hands included; a name in two seats of a
--                    hand counts it once)
--   taken            hands the player took (was the taker), whatever their score status
--   take_rate        taken / hands, rounded to 4 decimals
--   made, decided    contracts the player took and made / took and that were scored with a result
--                    (status 'scored', not litige); made_of = 'made/decided'
--   taker_litiges    contracts the player took that ended in litige (neither made nor failed)
--   points           sum of the player's team hand_score (game points, before any litige carry-over)
--                    over points_hands = the player's hands with a hand_score (status 'scored' or
--                    'passed_out', the latter scoring 0); for a summary hand, its recorded score instead
--                    (with the litige points its source's totals add on it); a hand where the name sat on
--                    both teams (bots playing themselves) has no points for it, and is not in points_hands
--   points_per_hand  points / points_hands, game points, rounded to 2 decimals (NULL when no such hand)
--   team_belotes     scored hands where the player's TEAM has belote-rebelote points (scores.belote_points of
--                    the team > 0; in all-trump both teams may; scores do not say which partner held it)
--   illegal_plays    scored hands whose first illegal play (legal = false) was made by the player
--   won, finished    games the player's team won / games with a winner (game_scores.winner not NULL)
--                    under the ruleset, or for a game with summary hands the recorded winner
--                    (games.recorded_winner not NULL); won_of = 'won/finished'. A game where the name sat on
--                    both teams (bots playing themselves) has no result for it: it is in games, not in won or
--                    finished (the ratings leave it out too).
--   take_rate_lo, take_rate_hi  95 % Wilson interval of taken / hands (macros wilson_lo/wilson_hi, pipeline.stats.reports)
--   made_rate            made / decided, rounded to 4 decimals; made_rate_lo, made_rate_hi its Wilson interval
--   win_rate_lo, win_rate_hi  Wilson interval of won / finished
--   made_suit_of, made_nt_of, made_at_of   contracts made / decided as taker by strain: a suit (C D H S),
--                    no-trump, all-trump ('x/y' text; the integers are made_suit, decided_suit, ...)
--   taker_points_per_hand     the player's team hand_score (game points) per scored hand the player took
--                    (a litige counts, with what the team scored in that hand); a summary hand counts
--                    with its recorded score
--   defender_points_per_hand  ... per scored (or summary) hand where the other team (in 3-player: another
--                    player) took
--   coinches, coinches_won, coinches_decided  times the player called coinche (auction call 'coinche'), and of
--                    those the contracts that then failed / that were scored with a result (made or failed: a
--                    litige, an unscorable or abandoned hand has none); coinches_won_of = 'won/decided', as
--                    bidders.sql's coinches_right_of
--   capots_made, capots_suffered  scored hands where the player's team took every trick / the other did (a
--                    name seated on both teams, as bots playing themselves are, counts neither: as its game,
--                    the capot has no result for it)
--   declarations     declarations (tierce .. carré, belote excluded) the player held or announced in scored
--                    hands, from scores.declarations; declarations_per_100 = per 100 scored hands
--   mismatches, compared  hands whose source-recorded score differs from the rescoring (matches_recorded =
--                    false) / hands with a recorded score comparable under this ruleset (the game's
--                    ruleset_hint is this ruleset or unset); mismatches_of = 'x/y'
--
-- Order: hands desc, player, source.
--
-- display: player, source, games, hands, take_rate, made_of, made_rate_lo, made_rate_hi, points_per_hand, coinches_won_of, declarations_per_100, mismatches_of, won_of
WITH
-- view player_games (pipeline/facts/player_facts.py; written at rescore time): one row per (game, name), with the
-- sums of the name's hands in that game (player_hands), the teams it sat on and the game's winner (game_scores:
-- carried in the row, not joined on the string game_id, or the recorded one for a game with summary hands: no
-- cards, its rescored totals leave those hands out); a name seated on both teams of one game (bots do this)
-- has no result in it (team_mask with two bits)
per_game AS (
    SELECT * FROM player_games WHERE ruleset = $ruleset AND coalesce(summary_hands, 0) = 0
    UNION ALL BY NAME
    SELECT p.* REPLACE (r.recorded_winner::TINYINT AS winner)
    FROM (SELECT * FROM player_games WHERE ruleset = $ruleset AND summary_hands > 0) AS p
    LEFT JOIN (SELECT game_id, any_value(recorded_winner) AS recorded_winner FROM games
               WHERE game_id IN (SELECT game_id FROM player_games WHERE ruleset = $ruleset AND summary_hands > 0)
               GROUP BY game_id) AS r ON r.game_id = p.game_id
),
totals AS (
    SELECT player, source,
           count(*)                                                  AS games,
           count(*) FILTER (WHERE (team_mask >> winner) & 1 = 1 AND bit_count(team_mask) = 1) AS won,
           count(*) FILTER (WHERE winner IS NOT NULL AND bit_count(team_mask) = 1)            AS finished,
           sum(hands)::BIGINT AS hands, sum(taken)::BIGINT AS taken, sum(made)::BIGINT AS made,
           sum(decided)::BIGINT AS decided, sum(taker_litiges)::BIGINT AS taker_litiges,
           sum(points)::BIGINT AS points, sum(points_hands)::BIGINT AS points_hands,
           sum(team_belotes)::BIGINT AS team_belotes, sum(illegal_plays)::BIGINT AS illegal_plays,
           sum(made_suit)::BIGINT AS made_suit, sum(decided_suit)::BIGINT AS decided_suit,
           sum(made_nt)::BIGINT AS made_nt, sum(decided_nt)::BIGINT AS decided_nt,
           sum(made_at)::BIGINT AS made_at, sum(decided_at)::BIGINT AS decided_at,
           round(sum(taker_points) / nullif(sum(taker_points_hands), 0), 2)       AS taker_points_per_hand,
           round(sum(defender_points) / nullif(sum(defender_points_hands), 0), 2) AS defender_points_per_hand,
           sum(coinches)::BIGINT AS coinches, sum(coinches_won)::BIGINT AS coinches_won,
           sum(coinches_decided)::BIGINT AS coinches_decided,
           sum(capots_made)::BIGINT AS capots_made, sum(capots_suffered)::BIGINT AS capots_suffered,
           sum(declarations)::BIGINT AS declarations, sum(scored_hands)::BIGINT AS scored_hands,
           sum(mismatches)::BIGINT AS mismatches, sum(compared)::BIGINT AS compared
    FROM per_game
    GROUP BY player, source
)
SELECT $ruleset::VARCHAR                                   AS ruleset,
       h.player, h.source,
       h.games, h.hands, h.taken,
       round(h.taken / h.hands, 4)                         AS take_rate,
       h.made, h.decided,
       h.made || '/' || h.decided                          AS made_of,
       h.taker_litiges,
       h.points, h.points_hands,
       round(h.points / nullif(h.points_hands, 0), 2)      AS points_per_hand,
       h.team_belotes, h.illegal_plays,
       h.won, h.finished, h.won || '/' || h.finished       AS won_of,
       wilson_lo(h.taken, h.hands)                          AS take_rate_lo,
       wilson_hi(h.taken, h.hands)                          AS take_rate_hi,
       round(h.made / nullif(h.decided, 0), 4)              AS made_rate,
       wilson_lo(h.made, h.decided)                         AS made_rate_lo,
       wilson_hi(h.made, h.decided)                         AS made_rate_hi,
       wilson_lo(h.won, h.finished)                         AS win_rate_lo,
       wilson_hi(h.won, h.finished)                         AS win_rate_hi,
       h.made_suit, h.decided_suit, h.made_suit || '/' || h.decided_suit AS made_suit_of,
       h.made_nt, h.decided_nt, h.made_nt || '/' || h.decided_nt         AS made_nt_of,
       h.made_at, h.decided_at, h.made_at || '/' || h.decided_at         AS made_at_of,
       h.taker_points_per_hand, h.defender_points_per_hand,
       h.coinches, h.coinches_won, h.coinches_decided,
       h.coinches_won || '/' || h.coinches_decided                        AS coinches_won_of,
       h.capots_made, h.capots_suffered,
       h.declarations, round(100 * h.declarations / nullif(h.scored_hands, 0), 2) AS declarations_per_100,
       h.mismatches, h.compared, h.mismatches || '/' || h.compared       AS mismatches_of
FROM totals AS h
ORDER BY h.hands DESC, h.player, h.source
