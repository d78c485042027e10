-- players: how did each player do under one ruleset?
--
-- One row per (player, source): a player is a name as the source spells it, so the same name in two
-- sources gives two rows. Facts about the deal (games, hands, takes) come from `hands` (view `seats`);
-- results come from `scores` and `game_scores` rescored under the ruleset. Hands not rescored under the
-- ruleset still count in games/hands/taken but in no result column.
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
--                    'passed_out', the latter scoring 0)
--   points_per_hand  points / points_hands, game points, rounded to 2 decimals (NULL when no such hand)
--   team_belotes     scored hands where the player's TEAM held belote-rebelote (belote_team = team;
--                    scores do not say which partner held it)
--   illegal_plays    scored hands whose first illegal play (legal = false) was made by the player
--   won, finished    games the player's team won / games with a winner (game_scores.winner not NULL)
--                    under the ruleset; won_of = 'won/finished'. A name seated on both teams of a game
--                    (bots) counts that game once, as won.
--
-- Order: hands desc, player, source.
--
-- display: player, source, games, hands, taken, take_rate, made_of, points_per_hand, team_belotes, illegal_plays, won_of
WITH
sc AS (SELECT * FROM scores WHERE ruleset = $ruleset),
per_seat AS (
    SELECT s.player, s.source, s.game_id, s.hand_key, s.seat, s.team, s.is_taker,
           sc.status, sc.contract_made, sc.litige, sc.belote_team, sc.legal, sc.illegal_seat,
           sc.hand_score[s.team + 1] AS own_score
    FROM seats AS s LEFT JOIN sc ON sc.hand_key = s.hand_key
),
-- one row per (player, hand): a name seated twice in a hand (bots) counts the hand once; its points are
-- those of its lowest seat's team
per_hand AS (
    SELECT player, source, game_id, hand_key,
           bool_or(is_taker)                                                       AS is_taker,
           bool_or(coalesce(is_taker AND contract_made, false))                    AS made,
           bool_or(coalesce(is_taker AND status = 'scored' AND NOT litige, false)) AS decided,
           bool_or(coalesce(is_taker AND litige, false))                           AS taker_litige,
           arg_min(own_score, seat)                                                AS own_score,
           bool_or(coalesce(belote_team = team, false))                            AS team_belote,
           bool_or(coalesce(legal = false AND illegal_seat = seat, false))         AS illegal
    FROM per_seat
    GROUP BY player, source, game_id, hand_key
),
by_hand AS (
    SELECT player, source,
           count(DISTINCT game_id)                  AS games,
           count(*)                                 AS hands,
           count_if(is_taker)::BIGINT               AS taken,
           count_if(made)::BIGINT                   AS made,
           count_if(decided)::BIGINT                AS decided,
           count_if(taker_litige)::BIGINT           AS taker_litiges,
           coalesce(sum(own_score), 0)::BIGINT      AS points,
           count(own_score)                         AS points_hands,
           count_if(team_belote)::BIGINT            AS team_belotes,
           count_if(illegal)::BIGINT                AS illegal_plays
    FROM per_hand
    GROUP BY player, source
),
by_game AS (
    -- DISTINCT game_id: a name seated on both teams of one game (bots do this) counts the game once
    SELECT p.player, p.source,
           count(DISTINCT g.game_id) FILTER (WHERE g.winner = p.team)     AS won,
           count(DISTINCT g.game_id) FILTER (WHERE g.winner IS NOT NULL) AS finished
    FROM (SELECT DISTINCT player, source, game_id, team FROM seats) AS p
    JOIN game_scores AS g ON g.game_id = p.game_id AND g.ruleset = $ruleset
    GROUP BY p.player, p.source
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
       coalesce(g.won, 0)                                  AS won,
       coalesce(g.finished, 0)                             AS finished,
       coalesce(g.won, 0) || '/' || coalesce(g.finished, 0) AS won_of
FROM by_hand AS h
LEFT JOIN by_game AS g ON g.player IS NOT DISTINCT FROM h.player AND g.source = h.source
ORDER BY h.hands DESC, h.player, h.source
