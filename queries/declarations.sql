-- declarations: how often are declarations and belote-rebelote scored under one ruleset, by whom, worth how much?
--
-- One row per source, then a total row with source '(all)'. Only hands the ruleset scored with a result
-- (scores.status = 'scored') count: passed-out and unscorable hands have no declarations.
-- Declaration points are those of scores.declaration_points: tierce, quarte, quinte, carré after the
-- contest between teams (belote-rebelote is counted apart), in CARD POINTS, whatever the contract's
-- outcome (a failed taker's declarations may then go to the defence in hand_score; not here).
--
-- Parameters:
--   $ruleset   ruleset name (scores.ruleset)
--
-- Columns:
--   ruleset               the ruleset reported
--   source                source of the hands, '(all)' on the total row
--   hands_scored          hands with status 'scored' (the denominator of the rates below)
--   decl_hands            hands where some team scored declaration points
--   decl_hands_team0      hands where team 0 (seats 0 and 2) scored declaration points (2- and 4-player hands)
--   decl_hands_team1      hands where team 1 (seats 1 and 3) scored declaration points (2- and 4-player hands)
--   decl_hands_taker      hands where the taker's team scored declaration points
--   decl_hands_defence    hands where the defending team (3-player: either opponent) scored declaration points
--   decl_points           declaration points scored, both teams (card points)
--   decl_points_taker     ... by the taker's team (card points)
--   decl_points_defence   ... by the defence (card points)
--   decl_points_per_hand  decl_points / hands_scored, card points, rounded to 2 decimals
--   belote_hands          hands where a team has belote-rebelote points (hand_facts.belote_teams <> 0: in
--                         all-trump both teams may, and the hand counts once)
--   belote_taker_hands    ... the taker's team among them
--   belote_share          belote_hands / hands_scored, rounded to 4 decimals
--   decided_hands         hands the declarations decided (scores.declarations_decided): without the tierce ..
--                         carré points of both teams (belote kept) the outcome made / failed / litige differs
--   made_thanks_to_decl   ... of which the contract was made (it would have failed or been a litige without)
--   failed_because_of_decl ... of which it failed (the defence's declarations sank it)
--   failed_despite_decl   contracts that failed although the taker's team scored declaration points
--
-- Order: sources alphabetically, then the total row.
--
-- display: source, hands_scored, decl_hands, decl_points, decl_points_per_hand, belote_hands, belote_share, decided_hands, made_thanks_to_decl, failed_because_of_decl
WITH h AS (
    -- view hand_facts (pipeline/facts/hand_facts.py): the declaration points per team, taker and defence
    SELECT source,
           -- team columns for two teams; 3-player hands (one list entry per player) count in the totals
           decl_points_team0 AS d0, decl_points_team1 AS d1, decl_points AS d_all, decl_points_taker AS d_taker,
           decl_points - decl_points_taker AS d_defence,
           belote_teams, taker_team, declarations_decided, contract_made
    FROM hand_facts
    WHERE ruleset = $ruleset AND status = 'scored'
)
SELECT $ruleset::VARCHAR                                            AS ruleset,
       CASE WHEN grouping(source) = 1 THEN '(all)' ELSE source END   AS source,
       count(*)                                                     AS hands_scored,
       count_if(d_all > 0)::BIGINT                                  AS decl_hands,
       count_if(d0 > 0)::BIGINT                                     AS decl_hands_team0,
       count_if(d1 > 0)::BIGINT                                     AS decl_hands_team1,
       count_if(d_taker > 0)::BIGINT                                AS decl_hands_taker,
       count_if(d_defence > 0)::BIGINT                              AS decl_hands_defence,
       coalesce(sum(d_all), 0)::BIGINT                              AS decl_points,
       coalesce(sum(d_taker), 0)::BIGINT                            AS decl_points_taker,
       coalesce(sum(d_defence), 0)::BIGINT                          AS decl_points_defence,
       round(sum(d_all) / nullif(count(*), 0), 2)                   AS decl_points_per_hand,
       count_if(belote_teams <> 0)::BIGINT                          AS belote_hands,
       count_if((belote_teams >> taker_team) & 1 = 1)::BIGINT       AS belote_taker_hands,
       round(count_if(belote_teams <> 0) / nullif(count(*), 0), 4)  AS belote_share,
       count(*) FILTER (WHERE declarations_decided)                       AS decided_hands,
       count(*) FILTER (WHERE declarations_decided AND contract_made)     AS made_thanks_to_decl,
       count(*) FILTER (WHERE declarations_decided AND NOT contract_made) AS failed_because_of_decl,
       count(*) FILTER (WHERE d_taker > 0 AND NOT contract_made)          AS failed_despite_decl
FROM h
GROUP BY GROUPING SETS ((source), ())
ORDER BY grouping(source), source
