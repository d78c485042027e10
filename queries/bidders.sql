-- bidders: how well does each player bid, against what the cards held, and how well do they coinche?
--
-- One row per (player, source) that took a contract or called coinche in a hand whose dealt cards are recorded
-- (hands.initial_hands; score sheets and colver CFN records have none) and whose taker seat is known. The
-- contract comes from `hands`, its result from `scores` rescored under the ruleset; a hand the ruleset could
-- not score counts in contracts only. The team's cards are as in the bidding report (queries/bidding.sql): the
-- taker's and, with 4 players, the partner's, as dealt in full.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset          the ruleset reported
--   player, source   the taker's (or the coinche caller's) name as the source spells it, and the source
--   contracts        contracts the player took
--   made, decided    made / scored with a result (status 'scored', not litige); made_of = 'made/decided'
--   success_rate     made / decided, rounded to 4 decimals (NULL when none decided)
--   suit_contracts   contracts in a suit (the trump measures below are theirs)
--   avg_trumps       the trumps the taker's team held, on average over suit contracts, 2 decimals
--   avg_jacks_nines  the jack and nine of trump the team held (0-2), on average over suit contracts, 2 decimals
--   avg_aces         the aces the team held (0-4), on average over every contract, 2 decimals
--   failed_with_5_trumps  suit contracts failed although the team held 5 trumps or more
--   coinches         coinches the player called (auction call 'coinche')
--   coinches_right, coinches_decided   of those, contracts that then failed / that were scored with a result;
--                    coinches_right_of = 'right/decided'
--
-- Order: contracts desc, player, source.
--
-- display: player, source, contracts, made_of, success_rate, avg_trumps, avg_jacks_nines, avg_aces, coinches_right_of
WITH t AS (
    SELECT h.hand_key, h.source, h.players, h.taker, h.auction,
           h.initial_hands[h.taker + 1]
             | CASE WHEN h.n_players = 4 THEN h.initial_hands[(h.taker + 2) % 4 + 1] ELSE 0 END::UINTEGER AS team,
           list_position(['C', 'D', 'H', 'S'], h.strain) - 1                                    AS trump,
           sc.contract_made,
           coalesce(sc.status = 'scored' AND NOT sc.litige, false)                              AS decided
    FROM hands AS h
    LEFT JOIN scores AS sc ON sc.hand_key = h.hand_key AND sc.ruleset = $ruleset
    WHERE h.taker IS NOT NULL AND h.strain IS NOT NULL AND len(h.initial_hands) = h.n_players
),
taken AS (
    SELECT players[taker + 1] AS player, source,
           count(*)                                                              AS contracts,
           count_if(coalesce(contract_made, false))                              AS made,
           count_if(decided)                                                     AS decided,
           count(trump)                                                          AS suit_contracts,
           round(avg(bit_count((team >> (8 * trump)) & 255)), 2)                 AS avg_trumps,
           round(avg(bit_count((team >> (8 * trump)) & 20)), 2)                  AS avg_jacks_nines,   -- bits 2 and 4
           round(avg(bit_count(team & 2155905152)), 2)                           AS avg_aces,          -- 0x80808080
           count_if(decided AND contract_made = false
                    AND bit_count((team >> (8 * trump)) & 255) >= 5)             AS failed_with_5_trumps
    FROM t WHERE players[taker + 1] IS NOT NULL
    GROUP BY ALL
),
coinched AS (
    SELECT players[call.seat + 1] AS player, source,
           count(*)                                                              AS coinches,
           count_if(decided AND contract_made = false)                           AS coinches_right,
           count_if(decided)                                                     AS coinches_decided
    FROM (SELECT *, unnest(auction) AS call FROM t)
    WHERE call.call = 'coinche' AND players[call.seat + 1] IS NOT NULL
    GROUP BY ALL
)
SELECT $ruleset::VARCHAR                                                       AS ruleset,
       player, source,
       coalesce(k.contracts, 0)                                                AS contracts,
       coalesce(k.made, 0)                                                     AS made,
       coalesce(k.decided, 0)                                                  AS decided,
       coalesce(k.made, 0) || '/' || coalesce(k.decided, 0)                    AS made_of,
       round(k.made / nullif(k.decided, 0), 4)                                 AS success_rate,
       coalesce(k.suit_contracts, 0)                                           AS suit_contracts,
       k.avg_trumps, k.avg_jacks_nines, k.avg_aces,
       coalesce(k.failed_with_5_trumps, 0)                                     AS failed_with_5_trumps,
       coalesce(c.coinches, 0)                                                 AS coinches,
       coalesce(c.coinches_right, 0)                                           AS coinches_right,
       coalesce(c.coinches_decided, 0)                                         AS coinches_decided,
       coalesce(c.coinches_right, 0) || '/' || coalesce(c.coinches_decided, 0) AS coinches_right_of
FROM taken AS k FULL OUTER JOIN coinched AS c USING (player, source)
ORDER BY contracts DESC, player, source
