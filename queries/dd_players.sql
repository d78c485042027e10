-- dd_players: how close to best play does each player play, and bid, against what the cards allowed?
--
-- One row per (player, source) with a hand analysed double-dummy (`rebelote analyse`, table dd_hands: every
-- hand visible, best play by all, under the ruleset's play rules). A card's cost is the card points it cost
-- its player's side against the best card the player held then (0: an optimal card); a hand's cost for a
-- player is the sum over that player's own cards (over both seats for a name that sits on two, as colver names a
-- team of bots). Taker: the seat that took the contract; defender: a seat of the other side (the taker's partner
-- counts in neither; with 2 or 3 players, every other seat).
--
-- Parameters:
--   $ruleset   ruleset name (dd_hands.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset          the ruleset reported
--   player, source   the player's name as the source spells it, and the source
--   hands            hands analysed in which the player sat
--   cards, optimal_cards   cards the player played, of them optimal; optimal_share = optimal / cards, 4 decimals
--   taker_hands      hands the player took; lost_as_taker = the player's cost per such hand (2 decimals)
--   defender_hands   hands the player defended; lost_as_defender = the player's cost per such hand (2 decimals)
--   makeable, contracts   of the player's contracts, those makeable with best play (a litige counts in neither);
--                    makeable_of = 'makeable/contracts'; overbids = contracts not makeable
--   made_unmakeable  contracts made although not makeable with best play (the defence erred)
--   failed_makeable  contracts failed although makeable (the declarer's side erred)
--   par_strain_share contracts whose strain was the taker's side's best (par_strain), 4 decimals
--   coinches, coinches_right   coinches the player called on an analysed contract, of them on a contract not
--                    makeable with best play; coinches_right_of = 'right/coinches'
--
-- Order: hands desc, player, source.
--
-- display: player, source, hands, optimal_share, lost_as_taker, lost_as_defender, makeable_of, failed_makeable, coinches_right_of
WITH d AS (
    SELECT d.*, h.players, h.taker, h.auction, h.n_players
    FROM dd_hands AS d JOIN hands AS h ON h.hand_key = d.hand_key
    WHERE d.ruleset = $ruleset
),
cards AS (     -- one row per card played: its seat, its cost
    SELECT hand_key, source, players, taker, n_players, unnest(play_seats) AS seat, unnest(play_cost) AS cost
    FROM d
),
per_hand AS (   -- one row per hand and name (a name on two seats, as colver names a team of bots, is one row)
    SELECT hand_key, source, players[seat + 1] AS player,
           bool_or(seat = taker)                                                AS took_it,
           bool_or(CASE WHEN n_players = 4 THEN seat % 2 <> taker % 2 ELSE seat <> taker END) AS defended,
           count(*) AS cards, count_if(cost = 0) AS optimal, sum(cost)::INTEGER AS lost
    FROM cards GROUP BY ALL
),
played AS (
    SELECT player, source,
           count(*)::INTEGER                                                    AS hands,
           sum(cards)::INTEGER                                                  AS cards,
           sum(optimal)::INTEGER                                                AS optimal_cards,
           count_if(took_it)::INTEGER                                           AS taker_hands,
           round(avg(lost) FILTER (WHERE took_it), 2)                           AS lost_as_taker,
           count_if(defended)::INTEGER                                          AS defender_hands,
           round(avg(lost) FILTER (WHERE defended), 2)                          AS lost_as_defender
    FROM per_hand WHERE player IS NOT NULL
    GROUP BY ALL
),
took AS (
    SELECT players[taker + 1] AS player, source,
           count_if(makeable IS NOT NULL)                                       AS contracts,
           count_if(coalesce(makeable, false))                                  AS makeable,
           count_if(coalesce(makeable = false, false))                          AS overbids,
           count_if(coalesce(makeable = false AND made, false))                 AS made_unmakeable,
           count_if(coalesce(makeable AND made = false, false))                 AS failed_makeable,
           round(avg((par_strain = strain)::INTEGER), 4)                        AS par_strain_share
    FROM d WHERE players[taker + 1] IS NOT NULL
    GROUP BY ALL
),
coinched AS (
    SELECT players[call.seat + 1] AS player, source,
           count(*)                                                             AS coinches,
           count_if(coalesce(makeable = false, false))                          AS coinches_right
    FROM (SELECT *, unnest(auction) AS call FROM d)
    WHERE call.call = 'coinche' AND makeable IS NOT NULL AND players[call.seat + 1] IS NOT NULL
    GROUP BY ALL
)
SELECT $ruleset::VARCHAR                                                        AS ruleset,
       p.player, p.source, p.hands, p.cards, p.optimal_cards,
       round(p.optimal_cards / nullif(p.cards, 0), 4)                           AS optimal_share,
       p.taker_hands, p.lost_as_taker, p.defender_hands, p.lost_as_defender,
       coalesce(t.makeable, 0)::INTEGER                                         AS makeable,
       coalesce(t.contracts, 0)::INTEGER                                        AS contracts,
       coalesce(t.makeable, 0) || '/' || coalesce(t.contracts, 0)               AS makeable_of,
       coalesce(t.overbids, 0)::INTEGER                                         AS overbids,
       coalesce(t.made_unmakeable, 0)::INTEGER                                  AS made_unmakeable,
       coalesce(t.failed_makeable, 0)::INTEGER                                  AS failed_makeable,
       t.par_strain_share,
       coalesce(c.coinches, 0)::INTEGER                                         AS coinches,
       coalesce(c.coinches_right, 0)::INTEGER                                   AS coinches_right,
       coalesce(c.coinches_right, 0) || '/' || coalesce(c.coinches, 0)          AS coinches_right_of
FROM played AS p
LEFT JOIN took AS t USING (player, source)
LEFT JOIN coinched AS c USING (player, source)
ORDER BY hands DESC, player, source
