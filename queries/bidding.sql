-- bidding: how often are contracts made, by what the taker's team held?
--
-- One row per (players, strain kind, level, measure, value) over the hands with a contract and a known taker seat whose
-- dealt cards are recorded (hands.initial_hands; score sheets and colver CFN records have none). The contract
-- comes from `hands`, its result from `scores` rescored under the ruleset; a hand the ruleset could not score
-- counts in contracts only.
--
-- The taker's team's cards: the taker's and, with 4 players, the partner's (seat + 2), as dealt in full
-- (hands.initial_hands). In classic belote the taker held 5 of their 8 cards at the auction and the partner's
-- are never seen: these measures say what the team's cards allowed, not what the taker knew. With 2 and 3
-- players the team is the taker alone.
--
-- Measures (the cards of the taker's team):
--   trumps                cards of the trump suit (suit contracts only)
--   jacks_nines_of_trump  the jack and nine of trump (0-2, suit contracts), or every jack and nine (0-8,
--                         all-trump contracts, where every suit is trump); none for no-trump
--   aces                  aces, any suit (0-4)
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns:
--   ruleset          the ruleset reported
--   n_players        players at the table (2, 3 or 4): a team's cards are 16 with 4 players, 8 or 10 alone, so the
--                    measures of different tables are not compared in one row
--   strain_kind      'suit' (C D H S: the measures are of the trump suit), 'NT' (no-trump), 'AT' (all-trump)
--   level            the bid: its value in card points ('80' ... '160'), 'take' for a classic prise, 'capot'
--   measure, value   one of the measures above and its value
--   contracts        contracts of the row
--   made, decided    made / scored with a result (status 'scored', not litige); made_of = 'made/decided'
--   success_rate     made / decided, rounded to 4 decimals (NULL when none decided)
--
-- Order: players, strain kind (suit, NT, AT), take, bids by value, capot, measure, value.
--
-- display: n_players, strain_kind, level, measure, value, contracts, made_of, success_rate
WITH t AS (
    SELECT h.n_players,
           CASE WHEN h.strain IN ('C', 'D', 'H', 'S') THEN 'suit' ELSE h.strain END          AS strain_kind,
           CASE WHEN h.capot_bid THEN 'capot' WHEN h.bid IS NULL THEN 'take' ELSE h.bid::VARCHAR END AS level,
           CASE WHEN h.capot_bid THEN 100000 WHEN h.bid IS NULL THEN -1 ELSE h.bid END           AS level_order,
           h.initial_hands[h.taker + 1]
             | CASE WHEN h.n_players = 4 THEN h.initial_hands[(h.taker + 2) % 4 + 1] ELSE 0 END::UINTEGER AS team,
           list_position(['C', 'D', 'H', 'S'], h.strain) - 1                                    AS trump,
           coalesce(sc.contract_made, false)                                                    AS made,
           coalesce(sc.status = 'scored' AND NOT sc.litige, false)                              AS decided
    FROM hands AS h
    LEFT JOIN scores AS sc ON sc.hand_key = h.hand_key AND sc.ruleset = $ruleset
    WHERE h.taker IS NOT NULL AND h.strain IS NOT NULL AND len(h.initial_hands) = h.n_players
),
m AS (
    SELECT n_players, strain_kind, level, level_order, made, decided, 1 AS measure_order, 'trumps' AS measure,
           bit_count((team >> (8 * trump)) & 255) AS value
    FROM t WHERE trump IS NOT NULL
    UNION ALL
    SELECT n_players, strain_kind, level, level_order, made, decided, 2, 'jacks_nines_of_trump',
           CASE WHEN trump IS NOT NULL THEN bit_count((team >> (8 * trump)) & 20)   -- bits 2 (nine) and 4 (jack)
                ELSE bit_count(team & 336860180) END                                -- 0x14141414: every J and 9
    FROM t WHERE trump IS NOT NULL OR strain_kind = 'AT'
    UNION ALL
    SELECT n_players, strain_kind, level, level_order, made, decided, 3, 'aces',
           bit_count(team & 2155905152)                                             -- 0x80808080: the four aces
    FROM t
)
SELECT $ruleset::VARCHAR                                        AS ruleset,
       n_players, strain_kind, level, measure, value::INTEGER   AS value,
       count(*)                                                 AS contracts,
       count_if(made)::BIGINT                                   AS made,
       count_if(decided)::BIGINT                                AS decided,
       count_if(made) || '/' || count_if(decided)               AS made_of,
       round(count_if(made) / nullif(count_if(decided), 0), 4)  AS success_rate
FROM m
GROUP BY n_players, strain_kind, level, level_order, measure_order, measure, value
ORDER BY n_players, coalesce(list_position(['suit', 'NT', 'AT'], strain_kind), 99), strain_kind, level_order, measure_order, value
