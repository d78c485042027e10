"""Per-player facts of each hand and game under a ruleset: the ``player_hands`` and ``player_games`` tables.

The per-player reports (``queries/players.sql``) add these up. Deriving them means unnesting every hand's
players and joining the hand's score, which costs tens of seconds over millions of hands; so the rescore makes
each batch's ``player_hands`` rows as it scores it (:mod:`pipeline.facts.batch_facts`) and adds them up into
``player_games`` (:mod:`pipeline.facts.game_sums`), which it writes and the reports read. ``player_hands`` itself
is not stored (layout version 6): its view computes the rows from the ``hands`` and ``scores`` views
(:func:`live_hands_sql`, for the hands scored). A lake rescored before ``player_games`` existed, or a hand-made
one, gets its rows computed on the fly too. Both give the same reports while every hand has been rescored. They
differ for hands imported after the last rescore: the written table does not have them yet (the report warns
that hands lack scores and names the rescore to run), the on-the-fly rows count them in hands and takes.

Rules of the derivation (as the players report has always counted): one row per (hand, distinct name); a name
seated twice (bots) counts the hand once, with its team's points, and none when its seats are on two teams (layout
version 10: before, its lowest seat's team's points, a figure of the other side too); it is the taker when any of
its seats is; team = seat % 2 with 2 or 4 players, the seat itself with 3. Hands without a score under the
ruleset still give a row (they count in hands and takes, in no result). A summary-level hand (points only, as on
a score sheet: no cards, so no ruleset can rescore it) takes its points from the recorded score
(``hands.recorded_score``) instead, and counts in the points as taker or defender; it has no made/failed result.
"""

from __future__ import annotations

from pipeline.facts.summary_points import summary_points_sql

_TEAM = "CASE WHEN n_players = 3 THEN {s} ELSE {s} % 2 END"

#: the columns both derivations of ``player_hands`` compute alike, from ``is_taker`` and the hand's score
_SAME = """coalesce(is_taker AND contract_made, false)                                   AS made,
       coalesce(is_taker AND status = 'scored' AND NOT litige, false)                AS decided,
       coalesce(is_taker AND litige, false)                                          AS taker_litige,
       contract_made = false                                                         AS failed,
       coalesce(status = 'scored', false)                                            AS scored,
       CASE strain WHEN 'NT' THEN 'nt' WHEN 'AT' THEN 'at' ELSE 'suit' END           AS strain_kind,
       coalesce(summary, false)                                                      AS summary"""


def live_hands_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None,
                   general: bool = False, summary: str | None = None) -> str:
    """SELECT producing ``player_hands`` rows (schema column order) from relations ``hands`` and ``scores``,
    for every ruleset of ``scores`` (or the rulesets listed by the SELECT ``rulesets``).

    Two derivations of the same rows: a hand whose every seat holds its own name (nearly all) gives one row per
    seat, computed with plain expressions (the lists of the seats that coinched or declared made once per hand);
    any other hand (a name on two seats, a missing name, a list of another length) one row per distinct name,
    from the list of its seats. The second is the rules' statement (module text); the first is that statement
    for a one-seat list, and cheaper.
    ``general``: every hand through the second (tests compare the two).
    ``summary``: a relation of the summary hands' points (:func:`pipeline.facts.summary_points.summary_points_sql`
    rows) to read instead of computing them from ``hands``, which may hold only part of a game (a batch)."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    team_of = _TEAM.format(s="s")
    one_seat_each = ("false" if general else
                     "coalesce(len(h.players) = h.n_players AND len(list_distinct(h.players)) = h.n_players, false)")
    return f"""
WITH joined AS (
    SELECT r.ruleset, h.hand_key, h.game_id, h.source, h.n_players, h.taker, h.strain, h.auction,
           h.completeness = 'summary' AS summary, coalesce(sp.points, h.recorded_score) AS recorded_score,
           sc.status, sc.contract_made, sc.litige, sc.belote_points, sc.legal, sc.illegal_seat, sc.capot_team,
           sc.matches_recorded, sc.hand_score, sc.declarations, h.players,
           {one_seat_each} AS one_seat_each,
           -- the seats that called coinche, and those that declared (belote aside), listed once per hand
           list_transform(list_filter(h.auction, lambda a: a.call = 'coinche'), lambda a: a.seat) AS coinche_seats,
           list_transform(list_filter(sc.declarations, lambda d: d.kind <> 'belote'), lambda d: d.seat) AS declared_seats
    FROM ({rs}) AS r
    CROSS JOIN {hands} AS h
    LEFT JOIN {scores} AS sc ON sc.hand_key = h.hand_key AND sc.ruleset = r.ruleset
    LEFT JOIN {summary or f'({summary_points_sql(hands)})'} AS sp ON sp.hand_key = h.hand_key
),
-- one row per seat: the name's seats are [seat], its teams [team]
seated AS (
    SELECT *, {_TEAM.format(s="seat")} AS team, {_TEAM.format(s="taker")} AS taker_team,
           coalesce(seat = taker, false) AS is_taker
    FROM (SELECT *, unnest(range(n_players)) AS seat FROM joined WHERE one_seat_each)
),
-- one row per distinct name, with the list of its seats
named AS (
    SELECT *, name AS player, list_filter(range(n_players), lambda s: players[s + 1] = name) AS seats_of
    FROM (SELECT *, unnest(list_distinct(players)) AS name FROM joined WHERE NOT one_seat_each)
),
teamed AS (
    SELECT *,
           list_distinct(list_transform(seats_of, lambda s: {team_of})) AS teams,
           {_TEAM.format(s="seats_of[1]")} AS low_team,
           {_TEAM.format(s="taker")} AS taker_team,
           coalesce(list_contains(seats_of, taker), false) AS is_taker
    FROM named
)
SELECT ruleset, hand_key, game_id, source, players[seat + 1] AS player,
       (1 << team)::TINYINT                                                          AS team_mask,
       is_taker,
       coalesce(team <> taker_team, false)                                           AS is_defender,
       {_SAME},
       (CASE WHEN summary THEN coalesce(recorded_score, hand_score)
             ELSE hand_score END)[team + 1]::INTEGER                                 AS own_score,
       coalesce(belote_points[team + 1] > 0, false)                                  AS team_belote,
       coalesce(legal = false AND seat = illegal_seat, false)                        AS illegal,
       (CASE WHEN len(coinche_seats) = 0 THEN 0
             ELSE len(list_filter(coinche_seats, lambda x: x = seat)) END)::SMALLINT AS coinches,
       coalesce(team = capot_team, false)                                            AS capot_made,
       coalesce(team <> capot_team, false)                                           AS capot_suffered,
       coalesce(CASE WHEN len(declared_seats) = 0 THEN 0
                     ELSE len(list_filter(declared_seats, lambda x: x = seat)) END, 0)::SMALLINT AS declared,
       matches_recorded,
       players
FROM seated
UNION ALL
SELECT ruleset, hand_key, game_id, source, player,
       list_sum(list_transform(teams, lambda t: 1 << t))::TINYINT                    AS team_mask,
       is_taker,
       coalesce(len(list_filter(teams, lambda t: t <> taker_team)) > 0, false)       AS is_defender,
       {_SAME},
       -- a name on both teams scored both sides' points: none of them is its own
       (CASE WHEN len(teams) = 1 THEN (CASE WHEN summary THEN coalesce(recorded_score, hand_score)
                                            ELSE hand_score END)[low_team + 1] END)::INTEGER AS own_score,
       coalesce(len(list_filter(teams, lambda t: belote_points[t + 1] > 0)) > 0, false) AS team_belote,
       coalesce(legal = false AND list_contains(seats_of, illegal_seat), false)      AS illegal,
       len(list_filter(auction, lambda a: a.call = 'coinche'
                                         AND list_contains(seats_of, a.seat)))::SMALLINT AS coinches,
       coalesce(list_contains(teams, capot_team) AND len(teams) = 1, false)          AS capot_made,
       coalesce(NOT list_contains(teams, capot_team), false)                         AS capot_suffered,
       coalesce(len(list_filter(declarations, lambda d: d.kind <> 'belote'
                                                   AND list_contains(seats_of, d.seat))), 0)::SMALLINT AS declared,
       matches_recorded,
       players
FROM teamed
"""


#: The per-game sums of ``player_games`` (schemas/player_games.toml): column -> aggregate over the game's
#: ``player_hands`` rows of one name. Counts are hands; ``*points`` are game points.
GAME_SUMS = {
    "hands": "count(*)",
    "taken": "count(*) FILTER (WHERE is_taker)",
    "made": "count(*) FILTER (WHERE made)",
    "decided": "count(*) FILTER (WHERE decided)",
    "taker_litiges": "count(*) FILTER (WHERE taker_litige)",
    "points": "coalesce(sum(own_score), 0)",
    "points_hands": "count(own_score)",
    "team_belotes": "count(*) FILTER (WHERE team_belote)",
    "illegal_plays": "count(*) FILTER (WHERE illegal)",
    "made_suit": "count(*) FILTER (WHERE made AND strain_kind = 'suit')",
    "decided_suit": "count(*) FILTER (WHERE decided AND strain_kind = 'suit')",
    "made_nt": "count(*) FILTER (WHERE made AND strain_kind = 'nt')",
    "decided_nt": "count(*) FILTER (WHERE decided AND strain_kind = 'nt')",
    "made_at": "count(*) FILTER (WHERE made AND strain_kind = 'at')",
    "decided_at": "count(*) FILTER (WHERE decided AND strain_kind = 'at')",
    "taker_points": "coalesce(sum(own_score) FILTER (WHERE (scored OR summary) AND is_taker), 0)",
    "taker_points_hands": "count(own_score) FILTER (WHERE (scored OR summary) AND is_taker)",
    "defender_points": "coalesce(sum(own_score) FILTER (WHERE (scored OR summary) AND is_defender), 0)",
    "defender_points_hands": "count(own_score) FILTER (WHERE (scored OR summary) AND is_defender)",
    "coinches": "coalesce(sum(coinches), 0)",
    "coinches_won": "coalesce(sum(coinches) FILTER (WHERE failed), 0)",
    "coinches_decided": "coalesce(sum(coinches) FILTER (WHERE failed IS NOT NULL), 0)",
    "capots_made": "count(*) FILTER (WHERE capot_made)",
    "capots_suffered": "count(*) FILTER (WHERE capot_suffered)",
    "declarations": "coalesce(sum(declared), 0)",
    "scored_hands": "count(*) FILTER (WHERE scored)",
    "mismatches": "count(*) FILTER (WHERE matches_recorded = false)",
    "compared": "count(matches_recorded)",
    "summary_hands": "count(*) FILTER (WHERE summary)",
}


def per_game_sql(hands: str, names: str, game_sums: dict[str, str], game_scores: str = "game_scores",
                 seated_hands: str | None = None) -> str:
    """SELECT adding up a per-hand relation ``hands`` per game and ``names`` (its comma-separated name columns:
    ``player``, or ``player_a, player_b``): the teams they sat as (OR of the hands' team masks), each
    ``game_sums`` aggregate (column -> SQL aggregate) as an INTEGER column, and the game's ``winner`` from the
    relation ``game_scores`` (the lake's table of that name, matched on game_id and ruleset; null when it has no
    row). Shared by ``player_games`` and ``pair_games``. ``seated_hands``: a relation of (ruleset, game_id,
    players), one row per hand that has rows in ``hands``, to read the seated names from (:func:`seated_sql`)
    instead of ``hands`` itself, which repeats each hand's list once per name or pair."""
    sums = ",\n       ".join(f"({agg})::INTEGER AS {col}" for col, agg in game_sums.items())
    return f"""
WITH per_hand AS (SELECT * FROM {hands})
SELECT x.*, s.players, s.players_every_hand, g.winner
FROM (SELECT ruleset, game_id, any_value(source) AS source, {names}, bit_or(team_mask)::TINYINT AS team_mask,
             {sums}
      FROM per_hand GROUP BY ruleset, game_id, {names}) AS x
LEFT JOIN ({seated_sql(seated_hands or "per_hand")}) AS s ON s.game_id = x.game_id AND s.ruleset = x.ruleset
LEFT JOIN {game_scores} AS g ON g.game_id = x.game_id AND g.ruleset = x.ruleset
"""


def seated_sql(hands: str) -> str:
    """SELECT of (ruleset, game_id, players, players_every_hand) from a per-hand relation ``hands`` carrying each
    hand's ``players`` list (player_hands, pair_hands): per game, the names seated in any of its hands and those
    seated in every one (each sorted, distinct, VARCHAR[]). A hand with no list (null) makes
    ``players_every_hand`` null, which the filters read as "not known to cover the game". The lists are
    gathered DISTINCT: a game whose seats never change holds one list, however many hands and rows it has."""
    return f"""
SELECT ruleset, game_id,
       list_sort(list_distinct(flatten(list(DISTINCT players))))                              AS players,
       CASE WHEN count(*) = count(players) THEN
            list_sort(list_distinct(list_reduce(list(DISTINCT players), lambda x, y: list_intersect(x, y)))) END
                                                                                               AS players_every_hand
FROM {hands} GROUP BY ruleset, game_id
"""


def games_sql(player_hands: str = "player_hands", seated_hands: str | None = None) -> str:
    """SELECT producing ``player_games`` rows from a ``player_hands`` relation: per game and name, the teams the
    name sat on, the sums of :data:`GAME_SUMS` over its hands and the game's winner from the relation
    ``game_scores`` (:func:`per_game_sql`; ``seated_hands``: :func:`seated_hands_sql`)."""
    return per_game_sql(player_hands, "player", GAME_SUMS, seated_hands=seated_hands)


def seated_hands_sql(hands: str, rulesets: str) -> str:
    """SELECT of (ruleset, game_id, players) over the relation ``hands``, one row per ruleset listed by the SELECT
    ``rulesets`` and hand that has ``player_hands`` rows (a hand with at least one name): what
    :func:`seated_sql` reads, a quarter of the rows of ``player_hands`` with the same lists."""
    return (f"SELECT r.ruleset, h.game_id, h.players FROM ({rulesets}) AS r CROSS JOIN {hands} AS h "
            "WHERE len(list_distinct(h.players)) > 0")
