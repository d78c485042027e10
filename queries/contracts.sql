-- contracts: which contracts are played, how often are they made, by how much, under one ruleset?
--
-- One row per (strain, level, coinche level) among the hands with a contract (a taker seat in hands.taker, or
-- only the taker's team in scores.taker_team when the source names no seat, as colver CFN; passed-out hands are
-- left out).
-- The contract comes from `hands`, its result from `scores` rescored under the ruleset,
-- both read from the view hand_facts (pipeline/hand_facts.py: written when the ruleset is rescored, else derived
-- from `hands` and `scores`). Hands the ruleset could not score count in contracts/share but in no result
-- column; hands imported after the last rescore are left out until the next rescore (`rebelote stats` warns).
-- Sources and variants are mixed: use --source / --variant to split them.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset          the ruleset reported
--   strain           hands.strain: 'C' 'D' 'H' 'S' (trump suit), 'NT' (no-trump), 'AT' (all-trump)
--   level            the bid: its value in card points ('80' ... '160'), 'take' for a classic prise (no
--                    bid value), 'capot' for a capot bid (hands.capot_bid)
--   coinche          doubling level (hands.coinche): 0 none, 1 coinche/contre, 2 surcoinche
--   contracts        hands with this contract
--   share            contracts / all contracts of the report, rounded to 4 decimals
--   made, decided    contracts made / contracts scored with a result (status 'scored', not litige);
--                    made_of = 'made/decided'
--   success_rate     made / decided, rounded to 4 decimals (NULL when none decided)
--   litiges          contracts scored as litige (neither made nor failed)
--   unscored         contracts with no result: status 'unscorable', or no score under the ruleset
--   margin_hands     scored contracts (status 'scored', litiges included) with a bid value
--   avg_margin       average over margin_hands of the taker team's contract_points minus the bid, in card
--                    points, rounded to 2 decimals (negative when short of the bid); NULL for 'take' and
--                    'capot' (no bid value)
--   taker_capots     scored contracts where the taker's team won every trick (capot_team = taker_team)
--
-- Order: strain (C D H S NT AT, then others), take, bids by value, capot, then coinche level.
--
-- display: strain, level, coinche, contracts, share, made_of, success_rate, litiges, avg_margin, taker_capots
WITH
-- view hand_facts: one row per hand under the ruleset, contract and result side by side (pipeline/hand_facts.py)
c AS (
    SELECT strain,
           CASE WHEN capot_bid THEN 'capot' WHEN bid IS NULL THEN 'take' ELSE bid::VARCHAR END AS level,
           CASE WHEN capot_bid THEN 100000 WHEN bid IS NULL THEN -1 ELSE bid END             AS level_order,
           coinche,
           coalesce(contract_made, false)                                                   AS made,
           coalesce(status = 'scored' AND NOT litige, false)                                AS decided,
           coalesce(status = 'scored' AND litige, false)                                    AS litige,
           status IS DISTINCT FROM 'scored'                                                 AS unscored,
           CASE WHEN status = 'scored' AND NOT capot_bid AND bid IS NOT NULL
                THEN taker_contract_points - bid END                                        AS margin,
           coalesce(status = 'scored' AND capot_team = taker_team, false)                   AS taker_capot
    FROM hand_facts
    WHERE ruleset = $ruleset AND (taker IS NOT NULL OR taker_team IS NOT NULL)
)
SELECT $ruleset::VARCHAR                                                   AS ruleset,
       strain, level, coinche,
       count(*)                                                            AS contracts,
       round(count(*) / sum(count(*)) OVER (), 4)                          AS share,
       count_if(made)::BIGINT                                              AS made,
       count_if(decided)::BIGINT                                           AS decided,
       count_if(made) || '/' || count_if(decided)                          AS made_of,
       round(count_if(made) / nullif(count_if(decided), 0), 4)             AS success_rate,
       count_if(litige)::BIGINT                                            AS litiges,
       count_if(unscored)::BIGINT                                          AS unscored,
       count(margin)                                                       AS margin_hands,
       round(avg(margin), 2)                                               AS avg_margin,
       count_if(taker_capot)::BIGINT                                       AS taker_capots
FROM c
GROUP BY strain, level, level_order, coinche
ORDER BY coalesce(list_position(['C', 'D', 'H', 'S', 'NT', 'AT'], strain), 99), strain, level_order, coinche
