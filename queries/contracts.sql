-- contracts: which contracts are played, how often are they made, by how much, under one ruleset?
--
-- One row per (strain, level, coinche level) among the hands with a contract (a taker seat in hands.taker, or
-- only the taker's team in scores.taker_team when the source names no seat, as colver CFN; passed-out hands are
-- left out).
-- The contract comes from `hands`, its result from `scores` rescored under the ruleset,
-- both read from the view hand_facts (pipeline/facts/hand_facts.py: written when the ruleset is rescored, else derived
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
--   margin_hands     scored contracts (status 'scored', litiges included) that have a margin (below)
--   avg_margin       average margin over margin_hands, in card points, rounded to 2 decimals; NULL when
--                    no contract of the row has one
--
-- Margin: how far the taker's team was from what its contract needed, in card points, on the totals the
-- made test compares (scores.contract_points: cards, last trick, and the belote and declarations the ruleset
-- counts for the test). The same definition as the HTML report's margin chart (pipeline/report/report_data.py,
-- MARGIN_SQL):
--   * a bid (80 ... 160): the taker's team's points minus the bid (>= 0: the bid was reached);
--   * a 'take' (classic prise, no bid value) in a 2-team hand: the taker's team's points minus the defence's.
--     The classic rules judge a take against the defence, not against a number: the takers' total (cards,
--     dix de der, belote) must be strictly greater than the defenders' (FFB-B16 §10.1.1, rules.md R28;
--     docs/sources.md), so > 0 is made, 0 a tie (a litige under FFB-B16 §10.1.3) and < 0 failed;
--   * none for a capot bid (it needs every trick, not a number of points) and for a take in a 3-player hand
--     (two opponents: no single defence total to subtract).
--   The margin follows the contract the hand records, not the ruleset's made test: a bid recorded in a hand
--   rescored under a ruleset that judges every contract against the defence (contract.made_vs_bid = "none",
--   e.g. coinche records under belote-classic) still reads against the bid, so it can be >= 0 on a failed
--   contract there; made_of and success_rate follow the ruleset.
--   taker_capots     scored contracts where the taker's team won every trick (capot_team = taker_team)
--
-- Order: strain (C D H S NT AT, then others), take, bids by value, capot, then coinche level.
--
-- display: strain, level, coinche, contracts, share, made_of, success_rate, litiges, avg_margin, taker_capots
WITH
-- view hand_facts: one row per hand under the ruleset, contract and result side by side (pipeline/facts/hand_facts.py)
c AS (
    SELECT strain,
           CASE WHEN capot_bid THEN 'capot' WHEN bid IS NULL THEN 'take' ELSE bid::VARCHAR END AS level,
           CASE WHEN capot_bid THEN 100000 WHEN bid IS NULL THEN -1 ELSE bid END             AS level_order,
           coinche,
           coalesce(contract_made, false)                                                   AS made,
           coalesce(status = 'scored' AND NOT litige, false)                                AS decided,
           coalesce(status = 'scored' AND litige, false)                                    AS litige,
           status IS DISTINCT FROM 'scored'                                                 AS unscored,
           CASE WHEN status = 'scored' AND NOT capot_bid
                THEN CASE WHEN bid IS NOT NULL THEN taker_contract_points - bid
                          ELSE taker_contract_points - defence_contract_points END END      AS margin,
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
