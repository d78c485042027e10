"""The data of the HTML report's page per player (issue 21): one JSON object per player of the players table
(at most :data:`MAX_PLAYERS`, those with the most hands), drawn by the page's script (pipeline/html_tables.py)
when its address ends in ``#player=N``.

A page holds: the player's figures from the players report; the rating after each game (pipeline/ratings.py,
at most about 2 x :data:`TRAIL_POINTS` points spread over the games); the contracts the player took by strain and
level, with success rates; partners (the partnerships report's rows of the player) and opponents (the
head-to-head rows of the player's pairs); declarations by kind (the declaration-kinds report's rows); the last
games rated, each with the ``rebelote show`` command that explains it hand by hand. Every number is one of those
reports' or the ratings', for the same ruleset and filters as the page.
"""

from __future__ import annotations

import shlex
from decimal import Decimal

import duckdb
import pyarrow as pa

from pipeline import ratings

MAX_PLAYERS = 300
TRAIL_POINTS = 150
#: rows at most in each table of a page (partners and opponents: those with the most games)
TABLE_ROWS = 200

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


def _rate(made: int, decided: int) -> float | None:
    return round(made / decided, 4) if decided else None


def _json_value(v):
    """A value as JSON takes it: a time as text (UTC), a DuckDB decimal as a float."""
    if hasattr(v, "isoformat"):
        return v.strftime("%Y-%m-%d %H:%M")
    if isinstance(v, Decimal):
        return float(v)
    return v


def player_data(con: duckdb.DuckDBPyConnection, ruleset: str, reports: dict[str, pa.Table],
                results: pa.Table, lake_option: str = "") -> tuple[dict, dict[tuple[str, str], int], "ratings.RatingSummary"]:
    """(the pages' JSON object ``{"players": [...]}``, (name, source) -> index of its page, the ratings with the
    players' trails) for the first
    :data:`MAX_PLAYERS` rows of ``reports["players"]``. ``reports`` also holds the ruleset's partnerships,
    head_to_head and declaration_kinds rows; ``results``: :func:`pipeline.ratings.game_results` of the same
    connection; ``lake_option``: appended to the ``show`` commands (``--lake DIR``)."""
    players = reports["players"].slice(0, MAX_PLAYERS).to_pylist()
    names = {p["player"] for p in players}
    summary = ratings.rate(results, history_of=names, history_points=TRAIL_POINTS)
    contracts: dict[tuple, list] = {}
    for r in con.sql(CONTRACTS_SQL, params={"ruleset": ruleset}).to_arrow_table().to_pylist():
        contracts.setdefault((r["player"], r["source"]), []).append(
            [r["strain"], r["level"], r["contracts"], f"{r['made']}/{r['decided']}", _rate(r["made"], r["decided"])])
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
        recent = [[h["game_id"], _json_value(h["played_at"]), "won" if h["won"] else "lost", round(h["mu"], 2),
                   f"rebelote show --game {shlex.quote(h['game_id'])} --rules {shlex.quote(ruleset)}{lake_option}"]
                  for h in reversed(summary.recent.get(((p["player"],), p["source"]), []))]
        tables = [
            {"title": "Contracts taken, by strain and level", "id": f"p{n}-contracts",
             "columns": [["strain", 0], ["level", 0], ["contracts", 1], ["made_of", 0], ["success_rate", 1]],
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
             "note": "The command of a row explains the game hand by hand.",
             "columns": [["game_id", 0], ["played_at", 0], ["result", 0], ["rating after", 1], ["command", 0]],
             "rows": recent},
        ]
        for t in tables:
            t["rows"] = [[_json_value(v) for v in row] for row in t["rows"]]
        cards = [[label, _json_value(v)] for label, v in cards]
        pages.append({"name": p["player"], "source": p["source"], "cards": cards, "tables": tables,
                      "trail": {"x": [t[0] for t in trail], "mu": [round(t[1], 3) for t in trail],
                                "lo": [round(t[1] - t[2], 3) for t in trail],
                                "hi": [round(t[1] + t[2], 3) for t in trail]}})
    return {"players": pages}, index, summary


def _pct(x) -> str:
    return "" if x is None else f"{x * 100:.1f}%"
