-- dd_bids: were the contracts bid what the cards allowed? Bids against double-dummy best play, by strain and level
--
-- One row per (source, strain, level) of the contracts analysed double-dummy (`rebelote analyse`, table
-- dd_hands) under the ruleset. Level: the bid (80 ... 160), 'capot' for a capot bid, 'take' for a classic prise
-- (no bid value: over- and underbids are not defined). makeable_bid is the highest level the taker's side could
-- have made in that strain with best play (the ruleset's made test, with the hand's declarations and belote).
--
-- Parameters:
--   $ruleset   ruleset name (dd_hands.ruleset)
--
-- Columns (x/y pairs are given as two integers and as the text 'x/y'):
--   ruleset          the ruleset reported
--   source, strain, level   the contracts' source, strain (C D H S NT AT) and level
--   contracts        contracts analysed (a litige under best play counts in none of the next columns)
--   makeable, made   of them, makeable with best play / made in the play recorded; makeable_of, made_of
--   overbids         bid above what best play makes (not makeable)
--   underbids        makeable at a higher level than bid (makeable_bid above the level; a capot bid counts none)
--   par_strain       contracts whose strain was the taker's side's best (dd_hands.par_strain); par_of
--   avg_dd_points, avg_points   the taker's side's card points with best play / in the play recorded, on average
--
-- Order: source, strain (C D H S NT AT), level.
--
-- display: source, strain, level, contracts, makeable_of, made_of, overbids, underbids, par_of, avg_dd_points
WITH d AS (
    SELECT d.*, h.bid, h.capot_bid,
           CASE WHEN h.capot_bid THEN 'capot' WHEN h.bid IS NULL THEN 'take' ELSE h.bid::VARCHAR END AS level,
           CASE WHEN h.capot_bid THEN 100000 WHEN h.bid IS NULL THEN -1 ELSE h.bid END             AS level_order
    FROM dd_hands AS d JOIN hands AS h ON h.hand_key = d.hand_key
    WHERE d.ruleset = $ruleset
)
SELECT $ruleset::VARCHAR                                                        AS ruleset,
       source, strain, level,
       count(*)::INTEGER                                                        AS contracts,
       count_if(coalesce(makeable, false))::INTEGER                             AS makeable,
       count_if(coalesce(makeable, false)) || '/' || count(*)                   AS makeable_of,
       count_if(coalesce(made, false))::INTEGER                                 AS made,
       count_if(coalesce(made, false)) || '/' || count(*)                       AS made_of,
       count_if(coalesce(makeable = false AND level_order > 0, false))::INTEGER AS overbids,
       count_if(coalesce(bid IS NOT NULL AND NOT capot_bid AND makeable_bid > bid, false))::INTEGER AS underbids,
       count_if(par_strain = strain)::INTEGER                                   AS par_strain,
       count_if(par_strain = strain) || '/' || count(*)                         AS par_of,
       round(avg(dd_points), 2)                                                 AS avg_dd_points,
       round(avg(taker_points), 2)                                              AS avg_points
FROM d
GROUP BY source, strain, level, level_order
ORDER BY source, list_position(['C', 'D', 'H', 'S', 'NT', 'AT'], strain), level_order
