"""Ratings of players and partnerships from game results in time order, with their uncertainty.

The rating model is openskill's Plackett-Luce model (Weng and Lin 2011, "A Bayesian approximation method for
online ranking"; the ``openskill`` package, its default parameters: mu 25, sigma 25/3, beta 25/6, tau 25/300),
made for teams: each player has a rating ``mu`` and an uncertainty ``sigma``, a team's strength is the sum of
its players', and every game moves the ratings of its players by how surprising its result was. Rebelote only
decides what a game's teams and result are, and in what order the games are rated; the arithmetic is the
library's, called once per game (``tests/test_ratings.py`` checks the ratings against the library run directly).

What a game gives (one row per finished game of the report's scoring, its own rules by default):

* a 4-player game: two teams of two (seats 0 and 2, seats 1 and 3), the winner's team ranked first;
* a 2-player game: the two players, the winner first; a 3-player game: each player alone, the winner first
  and the two others by their final totals (equal totals: equal ranks);
* the winner is the game's ``game_scores.winner`` under the ruleset, or the source's recorded winner for a game
  with summary-level hands (no cards to rescore), as the players report counts a game won;
* with ``partnerships``, each 4-player team is one entity (the sorted pair of names): pairs are rated against
  pairs, and 2- and 3-player games give nothing;
* a name on both seats of one team is that team's one member (colver's records name each seat by its team's
  pair of bots, so a team of bots is rated as one player).

A player is a name as its source spells it, as in the players report: the same name in two sources is two
entries. Games a rating cannot use are counted, not rated: unfinished (no winner), a name missing, a name on
both teams of a game (a bot playing itself).

Order: games with a recorded time (``games.played_at``) first, by time; then the games without one, by source
and by the source's game id, runs of the digits 0-9 compared as numbers (``g9`` before ``g10``), which for every shipped reader
is the order the source played them. The ratings therefore do not depend on how the records were split into
files or how the lake stores them. ``RatingSummary.undated`` says how many games were placed that way.

Calibration: the last ``hold_back`` share of the games in that order is held back: the ratings are computed from
the others, then each held-back game's result is predicted from them (the library's ``predict_win``, ratings
frozen) and scored by log-loss and Brier score, beside the figures of a prediction that gives every team the
same chance (log-loss ln k for k teams, Brier 0.25 for two).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from pipeline.stats.views import GAME_ID_SQL, natural_sql

#: the rating model: openskill's PlackettLuce with its default parameters (module text)
MODEL = "openskill PlackettLuce (mu 25, sigma 25/3, beta 25/6, tau 25/300)"


def _model():
    from openskill.models import PlackettLuce
    return PlackettLuce()


class _Teams(list):
    """A game's teams (lists of the library's rating objects) for ``model.rate``, whose deep copy shares those
    objects. ``rate`` deep-copies its input so as not to change the ratings given, and that copy was two thirds of
    its time (a new object and a random id per player: docs/bench-results.md, "Ratings without the deep copy").
    Each rating given is replaced by the one ``rate`` returns, so nothing reads the ratings given afterwards: the
    library updates the shared objects in place and returns them, with the same values as from fresh copies
    (the default model leaves ``limit_sigma`` off, the one option that compares its result with the ratings
    given). ``tests/test_ratings.py`` holds every rating equal to the library run with its own copies."""

    def __deepcopy__(self, memo: dict) -> list:
        return [list(team) for team in self]


#: one finished game of the report's scoring, in rating order (SQL over the stats views)
RESULTS_SQL = """
SELECT g.game_id, g.source, g.source_game_id, g.n_players, g.players, g.played_at,
       CASE WHEN sh.game_id IS NOT NULL THEN g.recorded_winner ELSE gs.winner END::INTEGER AS winner,
       gs.totals
FROM (SELECT game_id, any_value(source) AS source, any_value(source_game_id) AS source_game_id,
             any_value(n_players) AS n_players, any_value(players) AS players, any_value(played_at) AS played_at,
             any_value(recorded_winner) AS recorded_winner
      FROM games GROUP BY game_id) AS g
JOIN game_scores AS gs ON gs.game_id = g.game_id AND gs.ruleset = $ruleset
LEFT JOIN (SELECT DISTINCT game_id FROM hands WHERE completeness = 'summary') AS sh ON sh.game_id = g.game_id
"""


def every_game(lake, filters) -> duckdb.DuckDBPyConnection:
    """A connection over ``lake`` with ``filters`` (:class:`pipeline.stats.report_filters.Filters`) less its
    players: what ratings under ``--player`` read. A player's rating depends on its opponents' other games, so
    every game of the other filters is rated and the players' rows are kept afterwards (``stats ratings``, the
    HTML report and ``export duckdb`` alike)."""
    import dataclasses

    from pipeline.stats.views import connect
    return connect(lake, dataclasses.replace(filters, players=None))


def game_results(con: duckdb.DuckDBPyConnection, ruleset: str) -> pa.Table:
    """The games of the connection's views (:func:`pipeline.stats.reports.connect`, filters applied) with their result
    under ``ruleset``: game_id, source, source_game_id, n_players, players (by seat), played_at, winner (team, or
    seat with 3 players; null when unfinished), totals (per team, per player with 3). Not yet in rating order.
    Pseudonymized views key the game ids, so their connection's ``_game_order``
    (:func:`pipeline.stats.views.game_order_sql`) adds ``natural_rank``: each game's place in the natural order of
    its stored ids."""
    sql = RESULTS_SQL
    if con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = '_game_order'").fetchall()[0][0]:
        sql = f"SELECT r.*, o.natural_rank FROM ({RESULTS_SQL}) AS r LEFT JOIN _game_order AS o USING (game_id)"
    return con.sql(sql, params={"ruleset": ruleset}).to_arrow_table()


#: The rating order over a results table ``r`` with a row index ``i``: games with a time first, by time, then by
#: source (null as ''), then by the game id (the source's, else ours) in natural order (:func:`natural_sql`), then
#: by our game id (then by row). Sorted by DuckDB, not by Python tuples: about half the CPU (docs/bench-results.md,
#: "Ratings without the deep copy").
ORDER_SQL = f"""
SELECT i FROM r
ORDER BY played_at IS NULL, played_at, coalesce(source, ''), {natural_sql(GAME_ID_SQL)}, game_id, i
"""
#: :data:`ORDER_SQL` over games whose ids are keyed (pseudonyms): their ``natural_rank`` (the stored ids' order)
#: first, the keyed ids only after it (a game without a rank: none is expected)
RANKED_ORDER_SQL = f"""
SELECT i FROM r
ORDER BY played_at IS NULL, played_at, coalesce(source, ''), natural_rank, {natural_sql(GAME_ID_SQL)}, game_id, i
"""


def rating_order(results: pa.Table) -> list[int]:
    """Row indexes of ``results`` in rating order (:data:`ORDER_SQL`, or :data:`RANKED_ORDER_SQL` when ``results``
    has ``natural_rank``): dated games by time (ties by source and natural game id), then undated games by source
    and natural game id (module text)."""
    import numpy as np

    from pipeline.storage.duck import duckdb_connection

    ranked = "natural_rank" in results.column_names
    r = results.select(["played_at", "source", "source_game_id", "game_id"] + (["natural_rank"] if ranked else [])
                       ).append_column("i", pa.array(np.arange(results.num_rows, dtype=np.int64)))
    con = duckdb_connection()
    try:
        con.register("r", r)
        return con.sql(RANKED_ORDER_SQL if ranked else ORDER_SQL).fetchnumpy()["i"].tolist()
    finally:
        con.close()


@dataclass
class Entity:
    """One rated player (``names`` one name) or partnership (two names, sorted), of ``source``."""

    names: tuple[str, ...]
    source: str
    rating: Any                      # the library's rating object (mu, sigma, ordinal())
    games: int = 0
    won: int = 0
    last_played: datetime | None = None


@dataclass
class RatingSummary:
    """Ratings after the games rated, and what was not rated. ``history``: per game of a ``history_of`` player,
    its row (entity key, game, rating after); with ``history_points``, ``trails`` holds instead, per entity,
    that many to twice that many (game number, mu, sigma) points spread over its games (after a first item, the
    stride between them), and ``recent`` its last
    :data:`RECENT` rows; ``calibration``: figures over the held-back games (empty when none)."""

    entities: dict[tuple, Entity] = field(default_factory=dict)
    rated: int = 0
    undated: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    history: list[dict] = field(default_factory=list)
    trails: dict[tuple, list] = field(default_factory=dict)
    recent: dict[tuple, list] = field(default_factory=dict)
    calibration: dict[str, float] = field(default_factory=dict)
    partnerships: bool = False

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def line(self, ruleset: str) -> str:
        """One line: how many games were rated under ``ruleset``, how many were placed without a time, what was
        not rated and why, and the model."""
        skipped = ", ".join(f"{n:,} {why}" for why, n in sorted(self.skipped.items()))
        return (f"ratings [{ruleset}]: {self.rated:,} game{'' if self.rated == 1 else 's'} rated"
                + (f" ({self.undated:,} without a recorded time, placed after the dated ones by source and game "
                   "id)" if self.undated else "") + (f"; not rated: {skipped}" if skipped else "") + f"; {MODEL}")

    def calibration_line(self) -> str:
        """The calibration figures in one line ('' when no game was held back)."""
        c = self.calibration
        if not c:
            return ""
        line = (f"calibration on the last {c['held_back_games']:,} games held back: log-loss {c['log_loss']:.4f} "
                f"(even prediction {c['log_loss_even']:.4f}), favourite won {c['accuracy']:.1%}")
        if "brier" in c:
            line += f", Brier {c['brier']:.4f} (even {c['brier_even']:.4f}) over {c['two_team_games']:,} two-team games"
        return line


def _teams(n: int, players: list, winner: int, totals: list | None, partnerships: bool):
    """(teams as lists of name tuples, ranks) of one game, or the reason it cannot be rated. In a 4-player game
    a name on both seats of one team is that team's one member (colver names each seat by its team's bots)."""
    if n not in (2, 3, 4) or players is None or len(players) != n:
        return "not a 2-, 3- or 4-player game with every seat named"
    if None in players:
        return "a seat without a name"
    if n == 4:
        a, b, c, d = players
        teams = [(a,) if a == c else (a, c), (b,) if b == d else (b, d)]
        if a in teams[1] or c in teams[1]:
            return "a name on both teams"
        if not 0 <= winner < 2:
            return "a winner that is no team of the game"
        members = [[tuple(sorted(t))] if partnerships else [(p,) for p in t] for t in teams]
        return members, [0 if i == winner else 1 for i in range(2)]
    if len(set(players)) != n:
        return "a name on two seats"
    if partnerships:
        return "no partnerships (a 2- or 3-player game)"
    if not 0 <= winner < (3 if n == 3 else 2):
        return "a winner that is no player of the game"
    ranks = [0 if i == winner else 1 for i in range(n)]
    if n == 3 and totals is not None and len(totals) == 3:
        # the two others by their final totals: the higher second, equal totals the same rank
        a, b = [i for i in range(3) if i != winner]
        if totals[a] is not None and totals[b] is not None and totals[a] != totals[b]:
            ranks[a if totals[a] < totals[b] else b] = 2
    return [[(p,)] for p in players], ranks


#: the last games of each entity kept for ``RatingSummary.recent``
RECENT = 10


def rate(results: pa.Table, partnerships: bool = False, history_of: str | Collection[str] | None = None,
         hold_back: float = 0.0, history_points: int | None = None) -> RatingSummary:
    """Rate the finished games of ``results`` (:func:`game_results`) in rating order (module text).
    ``history_of``: a player name (or names) whose rating after each of its games is kept
    (``RatingSummary.history``), or, with ``history_points``, a trail of at most about that many points and
    the last games (``trails``, ``recent``: memory bounded whatever the number of games);
    ``hold_back``: the share (0 to 0.9) of the last games left out of the ratings and predicted from them
    instead (``RatingSummary.calibration``). Raises ValueError for a share out of range."""
    if not 0.0 <= hold_back <= 0.9:
        raise ValueError(f"hold back a share of the games from 0 to 0.9, not {hold_back}")
    model = _model()
    out = RatingSummary(partnerships=partnerships)
    wanted = {history_of} if isinstance(history_of, str) else set(history_of or ())
    cols = {c: results.column(c).to_pylist() for c in ("source", "n_players", "players", "played_at", "winner",
                                                        "totals", "game_id")}
    games = []
    made: dict[tuple, Any] = {}     # a lineup and result met before: its teams (games repeat lineups)
    for i in rating_order(results):
        if cols["winner"][i] is None:
            out.skip("unfinished (no winner)")
            continue
        n, players, totals = cols["n_players"][i], cols["players"][i], cols["totals"][i]
        lineup = (n, None if players is None else tuple(players), cols["winner"][i],
                  tuple(totals) if n == 3 and totals is not None else None)
        teams = made.get(lineup)
        if teams is None:
            teams = made[lineup] = _teams(n, players, cols["winner"][i], totals, partnerships)
        if isinstance(teams, str):
            out.skip(teams)
            continue
        games.append((i, teams))
    held = math.floor(len(games) * hold_back)
    rated, predicted = games[:len(games) - held], games[len(games) - held:]
    entities = out.entities
    tracked: dict[tuple, bool] = {}     # entity key -> whether a history_of name is in it (asked once)
    for i, (teams, ranks) in rated:
        source, when = cols["source"][i], cols["played_at"][i]
        keys = [[(names, source) for names in team] for team in teams]
        for team in keys:
            for k in team:
                if k not in entities:
                    entities[k] = Entity(k[0], source, model.rating())
                    tracked[k] = bool(wanted) and not wanted.isdisjoint(k[0])
        new = model.rate(_Teams([[entities[k].rating for k in team] for team in keys]), ranks=ranks)
        for team, rank, ratings in zip(keys, ranks, new):
            for k, r in zip(team, ratings):
                e = entities[k]
                e.rating, e.games, e.won, e.last_played = r, e.games + 1, e.won + (rank == 0), when or e.last_played
                if tracked[k]:
                    row = {"game_id": cols["game_id"][i], "played_at": when, "entity": k, "won": rank == 0,
                           "mu": r.mu, "sigma": r.sigma}
                    if history_points is None:
                        out.history.append(row)
                    else:
                        _trail(out, k, e.games, row, history_points)
        out.rated += 1
        out.undated += when is None
    if predicted:
        out.calibration = _calibration(model, entities, predicted, cols["source"])
    return out


def _trail(out: RatingSummary, key: tuple, n: int, row: dict, points: int) -> None:
    """Keep entity ``key``'s ``n``-th game (``row``) in its trail and its recent games. The trail keeps its first
    game and every ``stride``-th; past ``2 * points`` points the stride doubles and the points off it are
    dropped, so a trail holds about ``points`` to ``2 * points`` points spread evenly over the games so far."""
    recent = out.recent.setdefault(key, [])
    recent.append(row)
    if len(recent) > RECENT:
        del recent[0]
    trail = out.trails.setdefault(key, [1])         # its first item: the stride
    stride = trail[0]
    if n % stride == 0 or n == 1:
        trail.append((n, row["mu"], row["sigma"]))
        if len(trail) - 1 > 2 * points:
            trail[0] = stride = stride * 2
            trail[1:] = [p for p in trail[1:] if p[0] % stride == 0 or p[0] == 1]


def _calibration(model, entities: dict, games: list, sources: list) -> dict[str, float]:
    """Log-loss and Brier score of the predictions of held-back ``games`` from frozen ``entities``, beside those
    of an even prediction (module text). A name not rated before counts with the library's initial rating."""
    fresh = model.rating()
    loss = base_loss = brier = base_brier = 0.0
    two = right = 0
    for i, (teams, ranks) in games:
        src = sources[i]
        p = model.predict_win([[entities[(names, src)].rating if (names, src) in entities else fresh
                                for names in team] for team in teams])
        w = ranks.index(0)
        loss -= math.log(max(p[w], 1e-300))
        base_loss += math.log(len(teams))
        best = max(p)
        favourites = [i for i, x in enumerate(p) if x == best]
        right += (w in favourites) / len(favourites)          # an even prediction is half right
        if len(teams) == 2:
            two += 1
            brier += (p[0] - (w == 0)) ** 2
            base_brier += 0.25
    n = len(games)
    out = {"held_back_games": n, "log_loss": loss / n, "log_loss_even": base_loss / n,
           "accuracy": right / n}
    if two:
        out.update(brier=brier / two, brier_even=base_brier / two, two_team_games=two)
    return out


def leaderboard(summary: RatingSummary, min_games: int = 1) -> pa.Table:
    """The rated entities with at least ``min_games`` games, best first by the conservative ordinal
    (mu - 3 sigma: the library's ``ordinal()``): rank, player (or player_a, player_b), source, rating (mu),
    uncertainty (sigma), ordinal, games, won, last_played."""
    rows = [e for e in summary.entities.values() if e.games >= min_games]
    rows.sort(key=lambda e: (-e.rating.ordinal(), -e.rating.mu, e.source, e.names))
    pairs = summary.partnerships
    cols: dict[str, list] = {"rank": list(range(1, len(rows) + 1))}
    if pairs:
        cols["player_a"] = [e.names[0] for e in rows]
        # one name: a team of bots, its name on both seats; shown twice, as the partnerships report shows the pair
        cols["player_b"] = [e.names[1] if len(e.names) > 1 else e.names[0] for e in rows]
    else:
        cols["player"] = [e.names[0] for e in rows]
    cols.update(
        source=[e.source for e in rows],
        rating=[round(e.rating.mu, 3) for e in rows],
        uncertainty=[round(e.rating.sigma, 3) for e in rows],
        ordinal=[round(e.rating.ordinal(), 3) for e in rows],
        games=[e.games for e in rows],
        won=[e.won for e in rows],
        last_played=[e.last_played for e in rows],
    )
    types = {"rank": pa.int32(), "games": pa.int32(), "won": pa.int32(), "rating": pa.float64(),
             "uncertainty": pa.float64(), "ordinal": pa.float64(), "last_played": pa.timestamp("us", tz="UTC")}
    return pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in cols.items()})


def _round3(values: list[float]) -> np.ndarray:
    """``[round(v, 3) for v in values]`` as a float64 array, to the bit, without a Python call per value.

    Python rounds the exact binary value to 3 decimals (half to even) and returns the nearest float to that
    decimal k / 1000. Here k = rint(v * 1000): the product carries at most half an ulp of error, so k is the
    same integer unless v * 1000 lies within 1e-6 of a half (those few values, and any not finite or too large,
    go through ``round`` itself); k / 1000.0 is then the nearest float to k / 1000, as IEEE division is
    correctly rounded. ``tests/test_ratings.py`` compares both on exact halves and random values."""
    x = np.asarray(values, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        y = x * 1000.0
        out = np.rint(y) / 1000.0
        odd = ~(np.abs(y) < 2.0 ** 40) | (np.abs(np.abs(y - np.trunc(y)) - 0.5) < 1e-6)
    for j in np.flatnonzero(odd):
        out[j] = round(float(x[j]), 3)
    return out


def history_table(summary: RatingSummary) -> pa.Table:
    """The rating of the ``history_of`` player after each of its games: game_no (1, 2 ... per entity), game_id,
    played_at, player or pair, source, won, rating, uncertainty, ordinal (the library's ``ordinal()``:
    mu - 3 sigma, the same float operations), each rounded to 3 decimals as ``round`` does."""
    hist = summary.history
    seen: dict[tuple, int] = {}
    game_no = []
    for h in hist:
        n = seen[h["entity"]] = seen.get(h["entity"], 0) + 1
        game_no.append(n)
    schema = pa.schema([("game_no", pa.int32()), ("game_id", pa.string()), ("played_at", pa.timestamp("us", tz="UTC")),
                        ("player", pa.string()), ("source", pa.string()), ("won", pa.bool_()),
                        ("rating", pa.float64()), ("uncertainty", pa.float64()), ("ordinal", pa.float64())])
    # built column by column (a dict per row cost more than the ratings of the history: 4 rows a game)
    mu = np.array([h["mu"] for h in hist], np.float64)
    sigma = np.array([h["sigma"] for h in hist], np.float64)
    cols = [game_no, [h["game_id"] for h in hist], [h["played_at"] for h in hist],
            [" + ".join(h["entity"][0]) for h in hist], [h["entity"][1] for h in hist], [h["won"] for h in hist],
            _round3(mu), _round3(sigma), _round3(1.0 * ((mu - 3.0 * sigma) + 0.0))]   # ordinal(): z 3, alpha 1, target 0
    return pa.table([pa.array(c, f.type) for c, f in zip(cols, schema)], schema=schema)


def as_rated(names: Collection[str], salt: str, results: pa.Table) -> list[str]:
    """``--player`` names given to pseudonymized ratings, as the ratings name them: a real name becomes
    ``PSEUDONYM@SOURCE`` for each source of ``results`` (``NAME@SOURCE``: that one) whose games it played, as
    the other reports accept a real name or a pseudonym; a pseudonym, or a name that played nowhere, stays as
    given (:func:`find` then says what it can)."""
    from pipeline.stats.pseudonymize import PREFIX, pseudonym

    played = {(n, s) for ps, s in zip(results.column("players").to_pylist(), results.column("source").to_pylist())
              for n in ps or () if n is not None}
    sources = sorted({s for _, s in played})
    out = []
    for given in names:
        name, _, source = given.partition("@")
        found = [] if name.startswith(PREFIX) else [
            f"{pseudonym(salt, s, name)}@{s}" for s in ([source] if source else sources)
            if (pseudonym(salt, s, name), s) in played]
        out += found or [given]
    return out


def find(summary: RatingSummary, name: str) -> tuple:
    """``((name,), source)`` of the rated player ``name`` (``NAME@SOURCE`` when the name is rated in several
    sources); with partnerships, of a name that some rated pair holds. Raises ValueError naming the sources,
    or the close names, when there is not exactly one."""
    name, _, source = name.partition("@")
    found = sorted({(( name,), k[1]) for k in summary.entities if name in k[0] and (not source or k[1] == source)},
                   key=lambda k: k[1])
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"{name} is rated in several sources ({', '.join(k[1] for k in found)}): "
                         f"write NAME@SOURCE")
    import difflib
    names = sorted({n for k in summary.entities for n in k[0]})
    close = difflib.get_close_matches(name, names, n=3)
    raise ValueError(f"no rated player {name!r}" + (f" in source {source!r}" if source else "")
                     + (f"; did you mean {', '.join(close)}?" if close else ""))


def predict(summary: RatingSummary, teams: list[str]) -> pa.Table:
    """Win probability of each team of ``teams`` (each ``A+B``, or one name per team for 2- and 3-player
    games; with partnerships, each team a rated pair) from the ratings (the library's ``predict_win``): team,
    rating (sum of mu), win_probability. Raises ValueError for an unknown name or pair, a name in two teams, or
    fewer than two teams."""
    if len(teams) < 2:
        raise ValueError("give at least two teams to predict, e.g. --predict 'A+B' --predict 'C+D'")
    names = [[n.strip() for n in t.split("+")] for t in teams]
    flat = [n.partition("@")[0] for team in names for n in team]
    if len(set(flat)) != len(flat):
        raise ValueError(f"a player in two teams: {', '.join(sorted({n for n in flat if flat.count(n) > 1}))}")
    model = _model()
    if summary.partnerships:
        members = []
        for team in names:
            keys = [find(summary, n) for n in team]
            pair = (tuple(sorted(dict.fromkeys(k[0][0] for k in keys))), keys[0][1])
            if pair not in summary.entities:
                raise ValueError(f"no rated partnership {' + '.join(team)}: rate pairs that played together")
            members.append([pair])
    else:
        members = [[find(summary, n) for n in team] for team in names]
    p = model.predict_win([[summary.entities[k].rating for k in team] for team in members])
    return pa.table({"team": teams,
                     "rating": [round(sum(summary.entities[k].rating.mu for k in team), 3) for team in members],
                     "win_probability": [round(x, 4) for x in p]})


def board(summary: RatingSummary, players: Collection[str] = (), min_games: int = 1, history: bool = False,
          predict_teams: Collection[str] = ()) -> pa.Table:
    """What ``rebelote stats ratings`` prints: the win probabilities of ``predict_teams`` (:func:`predict`), or the
    ``history_of`` player's trajectory (``history``: the one name of ``players``, :func:`history_table` of its
    source), or the leaderboard (:func:`leaderboard`) kept to the rows of ``players`` (with partnerships, the
    pairs holding one). Raises ValueError for an unknown or ambiguous name (:func:`find`) or a bad prediction."""
    if predict_teams:
        return predict(summary, list(predict_teams))
    if history:
        import pyarrow.compute as pc
        key = find(summary, next(iter(players)))          # one rated player: a clear error otherwise
        table = history_table(summary)
        return table.filter(pc.equal(table.column("source"), key[1]))
    table = leaderboard(summary, min_games)
    if not players:
        return table
    keep = {find(summary, p) for p in players}
    sources = table.column("source").to_pylist()
    if summary.partnerships:          # a pair holding the player as either name
        mask = [any((a in k[0] or b in k[0]) and s == k[1] for k in keep)
                for a, b, s in zip(table.column("player_a").to_pylist(), table.column("player_b").to_pylist(), sources)]
    else:
        mask = [((n,), s) in keep for n, s in zip(table.column("player").to_pylist(), sources)]
    return table.filter(pa.array(mask, pa.bool_()))
