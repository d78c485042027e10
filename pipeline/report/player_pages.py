"""The data of the HTML report's page per player (issue 21): one JSON object per player of the players table
(at most :data:`MAX_PLAYERS`, those with the most hands), drawn by the page's script (pipeline/report/html_tables.py)
when its address ends in ``#player=N``.

A page holds: the player's figures from the players report; the rating after each game (pipeline/stats/ratings.py,
at most about 2 x :data:`TRAIL_POINTS` points spread over the games); the contracts the player took by strain and
level, with success rates; partners (the partnerships report's rows of the player) and opponents (the
head-to-head rows of the player's pairs); declarations by kind (the declaration-kinds report's rows); the last
games rated, the first :data:`EXPLAINED_PER_PLAYER` of them (while the page has fewer than
:data:`EXPLAINED_GAMES` games explained) linked to the game explained hand by hand in the page itself (the text
``rebelote show --game`` prints, computed from the rows of the page's own views, so a pseudonymized page shows
pseudonyms and keyed game ids); the others give the ``show`` command. Every number is one of those reports' or
the ratings', for the same ruleset and filters as the page.
"""

from __future__ import annotations

import shlex
from decimal import Decimal

import duckdb
import pyarrow as pa

from pipeline.stats import ratings

from pipeline.stats import report_rules

from pipeline.stats import show_game
MAX_PLAYERS = 300
TRAIL_POINTS = 150
#: rows at most in each table of a page (partners and opponents: those with the most games)
TABLE_ROWS = 200
#: games explained in the page at most (a game's text is about 1.5 kB a hand), and per player page (its last ones)
EXPLAINED_GAMES = 200
EXPLAINED_PER_PLAYER = 3

#: the contracts a player took, by strain and level, under the ruleset (hand_facts: contract and result)
CONTRACTS_SQL = """
SELECT players[taker + 1] AS player, source, strain,
       CASE WHEN capot_bid THEN 'capot' WHEN bid IS NULL THEN 'take' ELSE bid::VARCHAR END AS level,
       CASE WHEN capot_bid THEN 100000 WHEN bid IS NULL THEN -1 ELSE bid END AS level_order,
       count(*) AS contracts, count_if(coalesce(contract_made, false)) AS made,
       count_if(coalesce(status = 'scored' AND NOT litige, false)) AS decided
FROM hand_facts
WHERE ruleset = $ruleset AND taker IS NOT NULL AND players IS NOT NULL
GROUP BY player, source, strain, level, level_order
ORDER BY player, source, coalesce(list_position(['C', 'D', 'H', 'S', 'NT', 'AT'], strain), 99), strain, level_order
"""


def _percent(made: int, decided: int) -> float | None:
    """Contracts made of those decided, in percent (one decimal), as the page shows rates."""
    return round(100 * made / decided, 1) if decided else None


def _json_value(v):
    """A value as JSON takes it: a time as text (UTC), a DuckDB decimal as a float."""
    if hasattr(v, "isoformat"):
        return v.strftime("%Y-%m-%d %H:%M")
    if isinstance(v, Decimal):
        return float(v)
    return v


def explanations(con: duckdb.DuckDBPyConnection, rules, game_ids: list[str]) -> dict[str, str]:
    """game id -> the game explained as ``rebelote show --game`` prints it, for the games of ``game_ids`` in the
    connection's views, under ``rules`` (a loaded ruleset, or ``own``: each game under its own)."""
    if not game_ids:
        return {}
    rows = con.sql("SELECT * FROM hands WHERE game_id IN (SELECT unnest($ids)) ORDER BY game_id, hand_no",
                   params={"ids": game_ids}).to_arrow_table().to_pylist()
    targets = dict(con.sql("SELECT game_id, target FROM games WHERE game_id IN (SELECT unnest($ids))",
                           params={"ids": game_ids}).fetchall())
    by_game: dict[str, list] = {}
    for r in rows:
        by_game.setdefault(r["game_id"], []).append(r)
    return {gid: show_game.game_text(hands, report_rules.game_rules(rules, hands[0]), targets.get(gid) or None)
            for gid, hands in by_game.items()}


def player_data(con: duckdb.DuckDBPyConnection, ruleset: str, reports: dict[str, pa.Table],
                results: pa.Table, lake_option: str = "", rules=None,
                commands: bool = True) -> tuple[dict, dict[tuple[str, str], int], "ratings.RatingSummary"]:
    """(the pages' JSON object ``{"players": [...], "games": {game id: text}}``, (name, source) -> index of its
    page, the ratings with the players' trails) for the first
    :data:`MAX_PLAYERS` rows of ``reports["players"]``. ``reports`` also holds the ruleset's partnerships,
    head_to_head and declaration_kinds rows; ``results``: :func:`pipeline.stats.ratings.game_results` of the same
    connection; ``lake_option``: appended to the ``show`` commands (``--lake DIR``); ``rules``: ``ruleset``
    loaded (:func:`pipeline.stats.report_rules.load_rules`), to explain the last games (None: none explained);
    ``commands``: whether a game not explained gives its ``show`` command (not on a pseudonymized page, whose
    game ids are keyed)."""
    players = reports["players"].slice(0, MAX_PLAYERS).to_pylist()
    names = {p["player"] for p in players}
    summary = ratings.rate(results, history_of=names, history_points=TRAIL_POINTS)
    contracts: dict[tuple, list] = {}
    for r in con.sql(CONTRACTS_SQL, params={"ruleset": ruleset}).to_arrow_table().to_pylist():
        contracts.setdefault((r["player"], r["source"]), []).append(
            [r["strain"], r["level"], r["contracts"], f"{r['made']}/{r['decided']}", _percent(r["made"], r["decided"])])
    # each report's rows by (name, source), read once (a page per player must not scan every row)
    partners_of: dict[tuple, list] = {}
    for r in reports["partnerships"].to_pylist():
        for me, other in ((r["player_a"], r["player_b"]), (r["player_b"], r["player_a"])):
            partners_of.setdefault((me, r["source"]), []).append(
                [other, r["games"], r["hands"], r["made_of"], r["points_per_hand"], r["won_of"]])
            if me == other:
                break
    opponents_of: dict[tuple, list] = {}
    for r in reports["head_to_head"].to_pylist():
        for own, other, won, lost in (("a", "b", "a_won", "b_won"), ("b", "a", "b_won", "a_won")):
            if r[f"pair_{own}"] == r[f"pair_{other}"]:
                continue
            one, two = r[f"pair_{own}_1"], r[f"pair_{own}_2"]
            for me, partner in ((one, two), (two, one)) if one != two else ((one, two),):
                opponents_of.setdefault((me, r["source"]), []).append(
                    [partner, r[f"pair_{other}"], r["games"], r[won], r[lost]])
    kinds_of: dict[tuple, list] = {}
    for r in reports["declaration_kinds"].to_pylist():
        kinds_of.setdefault((r["player"], r["source"]), []).append(
            [r["kind"], r["hands"], r["items"], r["per_100_hands"], r["scored_points"]])
    index, pages = {}, []
    explained: dict[str, None] = {}       # game ids to explain, in the order the pages name them
    for n, p in enumerate(players):
        key = (p["player"], p["source"])
        index[key] = n
        ent = summary.entities.get(((p["player"],), p["source"]))
        trail = summary.trails.get(((p["player"],), p["source"]), [1])[1:]
        if ent is not None and trail and trail[-1][0] != ent.games:      # the trail ends at the rating shown
            trail = trail + [(ent.games, ent.rating.mu, ent.rating.sigma)]
        cards = [["games", p["games"]], ["hands", p["hands"]], ["take rate", _pct(p["take_rate"])],
                 ["made as taker", p["made_of"]], ["points per hand", p["points_per_hand"]],
                 ["games won", p["won_of"]]]
        if ent is not None:
            cards += [["rating", round(ent.rating.mu, 2)], ["uncertainty", round(ent.rating.sigma, 2)],
                      ["ordinal (rank by)", round(ent.rating.ordinal(), 2)]]
        partners = sorted(partners_of.get(key, []), key=lambda r: -r[1])[:TABLE_ROWS]
        opponents = sorted(opponents_of.get(key, []), key=lambda r: -r[2])[:TABLE_ROWS]
        recent = []
        for k, h in enumerate(reversed(summary.recent.get(((p["player"],), p["source"]), []))):
            gid = h["game_id"]
            if rules is not None and k < EXPLAINED_PER_PLAYER and (gid in explained or len(explained) < EXPLAINED_GAMES):
                explained.setdefault(gid, None)
            how = "explained: follow the link" if gid in explained else (
                f"rebelote show --game {shlex.quote(gid)} --rules {shlex.quote(ruleset)}{lake_option}" if commands
                else "")
            recent.append([gid, _json_value(h["played_at"]), "won" if h["won"] else "lost", round(h["mu"], 2), how])
        tables = [
            {"title": "Contracts taken, by strain and level", "id": f"p{n}-contracts",
             "columns": [["strain", 0], ["level", 0], ["contracts", 1], ["made_of", 0], ["success %", 1]],
             "rows": contracts.get(key, [])[:TABLE_ROWS]},
            {"title": "Partners", "id": f"p{n}-partners",
             "columns": [["partner", 0], ["games", 1], ["hands", 1], ["made_of", 0], ["points_per_hand", 1],
                         ["won_of", 0]], "rows": partners},
            {"title": "Opponents", "id": f"p{n}-opponents",
             "columns": [["with", 0], ["against", 0], ["games", 1], ["won", 1], ["lost", 1]], "rows": opponents},
            {"title": "Declarations by kind", "id": f"p{n}-declarations",
             "columns": [["kind", 0], ["hands", 1], ["items", 1], ["per_100_hands", 1], ["scored_points", 1]],
             "rows": kinds_of.get(key, [])},
            {"title": "Last games rated", "id": f"p{n}-games",
             "note": "A linked game id opens the game explained hand by hand (what `rebelote show` prints); "
                     "the command of another row gives the same text.",
             "columns": [["game_id", 0, "game"], ["played_at", 0], ["result", 0], ["rating after", 1],
                         ["explanation", 0]],
             "rows": recent},
        ]
        for t in tables:
            t["rows"] = [[_json_value(v) for v in row] for row in t["rows"]]
        cards = [[label, _json_value(v)] for label, v in cards]
        pages.append({"name": p["player"], "source": p["source"], "cards": cards, "tables": tables,
                      "trail": {"x": [t[0] for t in trail], "mu": [round(t[1], 3) for t in trail],
                                "lo": [round(t[1] - t[2], 3) for t in trail],
                                "hi": [round(t[1] + t[2], 3) for t in trail]}})
    games = explanations(con, rules, list(explained)) if rules is not None else {}
    return {"players": pages, "games": games}, index, summary


def _pct(x) -> str:
    return "" if x is None else f"{x * 100:.1f}%"
