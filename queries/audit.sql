-- audit: which hands does the ruleset score differently from the source's own record, and where?
--
-- One row per hand whose rescoring under the ruleset differs from the score the source recorded
-- (scores.matches_recorded = false). Hands whose source recorded no score, unscorable hands, and hands of games
-- played under another ruleset (games.ruleset_hint names another) have matches_recorded NULL and are not listed. The source records either a score per team
-- (hands.recorded_score) or only the difference team 0 - team 1 (hands.recorded_margin, OpenSpiel);
-- in the latter case the recorded per-team columns are NULL and the margins are compared.
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns:
--   ruleset                              the ruleset reported
--   game_id, hand_no, source             the hand
--   status                               scores.status: 'scored' or 'passed_out'
--   recorded_team0, recorded_team1       hands.recorded_score per team, game points (NULL for margin-only sources)
--   recorded_margin                      recorded team 0 - team 1, game points (recorded_score's difference, or
--                                        hands.recorded_margin)
--   rescored_team0, rescored_team1       scores.hand_score per team under the ruleset, game points
--   rescored_margin                      rescored team 0 - team 1, game points
--   recorded, rescored                   the same as text: 'team0 - team1' (3-player: one number per player,
--                                        'p0 - p1 - p2'), or 'margin +n' when the source records only the margin
--   recorded_cards_team0, recorded_cards_team1
--                                        hands.recorded_card_points per team (card points incl. last trick), NULL
--                                        when the source records none
--   rescored_cards_team0, rescored_cards_team1
--                                        scores.card_points per team under the ruleset (card points)
--   component                            the part of the score that differs, as far as the data says:
--                                        'card points'  rescored card points differ from the recorded ones
--                                                       (tricks, last trick, capot bonus, card values);
--                                        'award/rounding/declarations'  card points agree: the difference is
--                                                       in the award (made test, bid, multipliers, litige),
--                                                       the rounding, or the declarations / belote;
--                                        'passed out'   rescored as passed out (0 - 0) but the source scored it;
--                                        'unknown'      the source records no card points to compare
--   command                              the command that explains the rescoring step by step, with the
--                                        source's values beside it (add --lake DIR for a lake elsewhere than
--                                        the default); game id and ruleset are shell-quoted when needed
--
-- Order: game_id, hand_no.
--
-- display: game_id, hand_no, recorded, rescored, component, command
WITH a AS (
    SELECT sc.game_id, sc.hand_no, sc.source, sc.status,
           h.recorded_score[1]                                        AS recorded_team0,
           h.recorded_score[2]                                        AS recorded_team1,
           CASE WHEN len(h.recorded_score) = 2 THEN h.recorded_score[1] - h.recorded_score[2]
                ELSE h.recorded_margin END                            AS recorded_margin,
           sc.hand_score[1]                                           AS rescored_team0,
           sc.hand_score[2]                                           AS rescored_team1,
           sc.hand_score[1] - sc.hand_score[2]                        AS rescored_margin,
           len(h.recorded_score) = len(sc.hand_score)                 AS per_team,
           array_to_string(h.recorded_score, ' - ')                   AS recorded_text,
           array_to_string(sc.hand_score, ' - ')                      AS rescored_text,
           h.recorded_card_points[1]                                  AS recorded_cards_team0,
           h.recorded_card_points[2]                                  AS recorded_cards_team1,
           sc.card_points[1]                                          AS rescored_cards_team0,
           sc.card_points[2]                                          AS rescored_cards_team1
    FROM scores AS sc JOIN hands AS h ON h.hand_key = sc.hand_key
    WHERE sc.ruleset = $ruleset AND sc.matches_recorded = false
)
SELECT $ruleset::VARCHAR AS ruleset,
       game_id, hand_no, source, status,
       recorded_team0, recorded_team1, recorded_margin::BIGINT AS recorded_margin,
       rescored_team0, rescored_team1, rescored_margin::BIGINT AS rescored_margin,
       CASE WHEN per_team THEN recorded_text
            ELSE 'margin ' || printf('%+d', recorded_margin) END                        AS recorded,
       CASE WHEN per_team THEN rescored_text
            ELSE 'margin ' || printf('%+d', rescored_margin) END                        AS rescored,
       recorded_cards_team0, recorded_cards_team1,
       rescored_cards_team0::INTEGER AS rescored_cards_team0,
       rescored_cards_team1::INTEGER AS rescored_cards_team1,
       CASE WHEN status = 'passed_out' THEN 'passed out'
            WHEN recorded_cards_team0 IS NULL OR recorded_cards_team1 IS NULL THEN 'unknown'
            WHEN recorded_cards_team0 IS DISTINCT FROM rescored_cards_team0
              OR recorded_cards_team1 IS DISTINCT FROM rescored_cards_team1 THEN 'card points'
            ELSE 'award/rounding/declarations' END                                      AS component,
       'rebelote show --game '
         || CASE WHEN regexp_full_match(game_id, '[A-Za-z0-9_@%+=:,./-]+') THEN game_id
                 ELSE '''' || replace(game_id, '''', '''\''''') || '''' END
         || ' --hand ' || hand_no
         || ' --rules '
         || CASE WHEN regexp_full_match($ruleset, '[A-Za-z0-9_@%+=:,./-]+') THEN $ruleset
                 ELSE '''' || replace($ruleset, '''', '''\''''') || '''' END         AS command
FROM a
ORDER BY game_id, hand_no
