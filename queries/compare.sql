-- compare: what changes when the same hands are scored under two rulesets?
--
-- Both rulesets' scores are read from the lake (`rebelote compare` scores each first when they are missing or
-- stale). The differences are counted among the hands scored under both (a hand one ruleset passes out or cannot score
-- has nothing to compare); the first row says how many of the selected hands that is, so the hands left out
-- are visible.
--
-- Parameters:
--   $ruleset   the first ruleset (A)
--   $other     the second ruleset (B)
--   $pair_by   how A's and B's hand_facts rows are paired: 'key' (on the string hand_key: always right),
--              'seq' (on the integer hand_seq) or 'position' (row by row): the last two only when both were
--              rescored over the same hand files and, for 'position', their rows are in the same order.
--              pipeline.stats.reports.hand_pairing chooses it (run_report does when it is not given); the three give
--              the same rows, 'position' about 5 times faster over millions of hands.
--
-- Columns (one row per measure):
--   ruleset, other   A and B
--   measure          'hands scored under both', 'hand score differs', 'made/failed differs',
--                    'legality differs', 'games finished under both', 'winner differs', 'end hand differs'
--   count            how many hands or games the measure counts
--   of               its denominator: 'hands scored under both' of the selected hands (A's hand_facts rows);
--                    the three hand measures of the hands scored under both; 'games finished under both'
--                    of the games compared (a game with a game_scores row under each ruleset, of the
--                    player count of both: a hand of another count is unscorable with the reason 'ruleset NAME
--                    is for N players' (pipeline/rescore/engine.py reason_texts), and its game has nothing of
--                    the ruleset's own to compare; nor a game with a hand that one ruleset scores and the other
--                    cannot (a contract it does not play, such as a coinche under a classic ruleset): its result
--                    under the other would count that hand 0 - 0; a game of score-sheet rows is compared, its
--                    recorded scores read under each ruleset's target and end rules, and so is a game with a hand
--                    neither ruleset can score); 'winner differs' of those games finished under at
--                    least one of the two (a game one ruleset finishes and the other leaves open differs);
--                    'end hand differs' of the games compared
--   of_what          what "of" counts, in words (the denominators differ from row to row)
--
-- display: measure, count, of, of_what
WITH a AS (SELECT * FROM hand_facts WHERE ruleset = $ruleset),   -- view hand_facts: pipeline/facts/hand_facts.py
     b AS (SELECT * FROM hand_facts WHERE ruleset = $other),
     h AS (SELECT a.hand_score AS sa, b.hand_score AS sb, a.contract_made AS ma, b.contract_made AS mb,
                  a.legal AS la, b.legal AS lb
           FROM a POSITIONAL JOIN b
           WHERE $pair_by = 'position' AND a.status = 'scored' AND b.status = 'scored'
           UNION ALL
           SELECT a.hand_score, b.hand_score, a.contract_made, b.contract_made, a.legal, b.legal
           FROM a JOIN b USING (hand_seq)
           WHERE $pair_by = 'seq' AND a.status = 'scored' AND b.status = 'scored'
           UNION ALL
           SELECT a.hand_score, b.hand_score, a.contract_made, b.contract_made, a.legal, b.legal
           FROM a JOIN b USING (hand_key)
           WHERE $pair_by NOT IN ('position', 'seq') AND a.status = 'scored' AND b.status = 'scored'),
     ga AS (SELECT * FROM game_scores WHERE ruleset = $ruleset),
     gb AS (SELECT * FROM game_scores WHERE ruleset = $other),
     g AS (SELECT ga.winner AS wa, gb.winner AS wb, ga.ended_at_hand AS ea, gb.ended_at_hand AS eb
           FROM ga JOIN gb USING (game_id)
           WHERE game_id NOT IN (SELECT game_id FROM scores
                                 WHERE ruleset IN ($ruleset, $other) AND status = 'unscorable'
                                   AND starts_with(reason, 'ruleset ' || ruleset || ' is for ')
                                   AND ends_with(reason, ' players'))
             AND game_id NOT IN (SELECT game_id FROM scores           -- a hand unscorable under one of the two
                                 WHERE ruleset IN ($ruleset, $other) AND status = 'unscorable'
                                 GROUP BY game_id, hand_key
                                 HAVING bool_or(ruleset = $ruleset) <> bool_or(ruleset = $other)))
SELECT $ruleset::VARCHAR AS ruleset, $other::VARCHAR AS other, measure, coalesce(count, 0)::BIGINT AS count, coalesce("of", 0)::BIGINT AS "of",
       of_what
FROM (
    SELECT 1 AS k, 'hands scored under both' AS measure, (SELECT count(*) FROM h) AS count, count(*) AS "of",
           'hands selected' AS of_what
    FROM a
    UNION ALL SELECT 2, 'hand score differs', count_if(sa IS DISTINCT FROM sb), count(*), 'hands scored under both' FROM h
    UNION ALL SELECT 3, 'made/failed differs', count_if(ma IS DISTINCT FROM mb), count(*), 'hands scored under both' FROM h
    UNION ALL SELECT 4, 'legality differs', count_if(la IS DISTINCT FROM lb), count(*), 'hands scored under both' FROM h
    UNION ALL SELECT 5, 'games finished under both', count_if(wa IS NOT NULL AND wb IS NOT NULL), count(*),
                        'games compared' FROM g
    UNION ALL SELECT 6, 'winner differs', count_if(wa IS DISTINCT FROM wb),
                        count_if(wa IS NOT NULL OR wb IS NOT NULL), 'games finished under either' FROM g
    UNION ALL SELECT 7, 'end hand differs', count_if(ea IS DISTINCT FROM eb), count(*), 'games compared' FROM g
)
ORDER BY k
