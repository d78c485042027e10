"""Per-pair facts of each 4-player hand and game under a ruleset: the ``pair_hands`` and ``pair_games`` tables.

The partnerships report (``queries/partnerships.sql``) adds these up. Deriving them means splitting every hand
into its two teams and joining the hand's score on its string key, which costs tens of seconds over millions of
hands; so the rescore makes each batch's ``pair_hands`` rows as it scores it and adds them up into ``pair_games``,
which it writes and the report reads (schemas/pair_games.toml). ``pair_hands`` is not stored (layout version 6):
its view computes the rows on the fly (:func:`live_hands_sql`), as for a lake without ``pair_games``.

Rules of the derivation (as the partnerships report has always counted): a pair is the two names of a team of a
4-player hand (seats t and t + 2, team t = 0 or 1), sorted (player_a <= player_b); 2- and 3-player hands have
none. When both teams of a hand are the same pair (bots), the hand is one row: it took when either team took,
and it has no points (both teams' points are its own: no figure of the pair's; the game has no result for it
either, queries/partnerships.sql). Hands without a score under the ruleset still give rows (they count in hands and takes,
in no result). A summary-level hand (points only: no cards to rescore) takes its points from its recorded score.
"""

from __future__ import annotations

from pipeline.facts.summary_points import summary_points_sql


def live_hands_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None, summary: str | None = None) -> str:
    """SELECT producing ``pair_hands`` rows (schema column order) from relations ``hands`` and ``scores``, for
    every ruleset of ``scores`` (or those listed by the SELECT ``rulesets``). Row-local: team 0's row always,
    team 1's row unless the two teams are the same pair (then team 0's row stands for both).
    ``summary``: a relation of the summary hands' points (:func:`pipeline.facts.summary_points.summary_points_sql`
    rows) to read instead of computing them from ``hands``, which may hold only part of a game (a batch)."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    return f"""
WITH pairs AS (
    -- the taker's team: from the seat, or as the source names it when the seat is unknown (colver CFN)
    SELECT r.ruleset, h.hand_key, h.game_id, h.source, coalesce(h.taker % 2, h.taker_team) AS taker_side,
           list_sort([h.players[1], h.players[3]]) AS pair0,
           list_sort([h.players[2], h.players[4]]) AS pair1,
           sc.status, sc.contract_made, sc.litige, sc.hand_score,
           coalesce(h.completeness = 'summary', false) AS summary,
           coalesce(sp.points, h.recorded_score) AS recorded_score, h.players
    FROM ({rs}) AS r
    CROSS JOIN (SELECT * FROM {hands} WHERE n_players = 4) AS h
    LEFT JOIN {scores} AS sc ON sc.hand_key = h.hand_key AND sc.ruleset = r.ruleset
    LEFT JOIN {summary or f'({summary_points_sql(hands)})'} AS sp ON sp.hand_key = h.hand_key
),
teams AS (
    SELECT *, pair0 IS NOT DISTINCT FROM pair1 AS same,
           unnest(CASE WHEN pair0 IS NOT DISTINCT FROM pair1 THEN [0] ELSE [0, 1] END) AS team
    FROM pairs
),
took AS (
    SELECT *,
           CASE WHEN same THEN pair0 WHEN team = 0 THEN pair0 ELSE pair1 END               AS pair,
           (CASE WHEN same THEN 3 ELSE 1 << team END)::TINYINT                            AS team_mask,
           CASE WHEN same THEN taker_side IS NOT NULL ELSE coalesce(taker_side = team, false) END AS took_
    FROM teams
)
SELECT ruleset, hand_key, game_id, source, pair[1] AS player_a, pair[2] AS player_b, team_mask,
       took_                                                         AS took,
       coalesce(took_ AND contract_made, false)                      AS made,
       coalesce(took_ AND status = 'scored' AND NOT litige, false)   AS decided,
       coalesce(took_ AND litige, false)                             AS taker_litige,
       summary,
       -- the same pair on both teams scored both sides' points: none of them is its own
       (CASE WHEN NOT same THEN (CASE WHEN summary THEN coalesce(recorded_score, hand_score)
                                      ELSE hand_score END)[team + 1] END)::INTEGER AS own_score,
       players
FROM took
"""


#: The per-game sums of ``pair_games`` (schemas/pair_games.toml): column -> aggregate over the game's
#: ``pair_hands`` rows of one pair. Counts are hands; ``points`` are game points.
GAME_SUMS = {
    "hands": "count(*)",
    "taken": "count(*) FILTER (WHERE took)",
    "made": "count(*) FILTER (WHERE made)",
    "decided": "count(*) FILTER (WHERE decided)",
    "taker_litiges": "count(*) FILTER (WHERE taker_litige)",
    "points": "coalesce(sum(own_score), 0)",
    "points_hands": "count(own_score)",
    "summary_hands": "count(*) FILTER (WHERE summary)",
}


def games_sql(pair_hands: str = "pair_hands", seated_hands: str | None = None) -> str:
    """SELECT producing ``pair_games`` rows from a ``pair_hands`` relation: per game and pair, the teams the
    pair sat as (OR of its hands' team masks), the sums of :data:`GAME_SUMS` over its hands and the game's
    winner from the relation ``game_scores`` (:func:`pipeline.facts.player_facts.per_game_sql`; ``seated_hands``:
    :func:`seated_hands_sql`)."""
    from pipeline.facts.player_facts import per_game_sql
    return per_game_sql(pair_hands, "player_a, player_b", GAME_SUMS, seated_hands=seated_hands)


def seated_hands_sql(hands: str, rulesets: str) -> str:
    """SELECT of (ruleset, game_id, players) over the relation ``hands``, one row per ruleset listed by the SELECT
    ``rulesets`` and hand that has ``pair_hands`` rows (every 4-player hand): what
    :func:`pipeline.facts.player_facts.seated_sql` reads, half the rows of ``pair_hands`` with the same lists."""
    return (f"SELECT r.ruleset, h.game_id, h.players FROM ({rulesets}) AS r CROSS JOIN {hands} AS h "
            "WHERE h.n_players = 4")
