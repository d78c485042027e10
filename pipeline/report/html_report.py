"""``rebelote report --html``: one self-contained static HTML page with the main reports as charts and tables.

The page opens with no network: plotly.js is inlined once in ``<head>``, every figure is a ``<div>`` plus
a ``Plotly.newPlot`` call with its data, and there is no external script, style sheet, font or image.
Every text that comes from the data (player names, sources, game ids) is HTML-escaped in tables and in
chart labels; plotly's JSON encoder escapes ``<``, ``>`` and ``/`` inside the ``<script>`` blocks.

Sections (``<section id=...>``): ``overview``, ``hand-scores``, ``margins``, ``ratings``, ``players``, ``contracts``,
``dealt-hands`` (declaration events observed vs expected, :mod:`pipeline.stats.fairness`), ``declarations``,
``partnerships``, ``head-to-head``, ``audit``. Tables show the report's display columns (the
``-- display:`` line of ``queries/<name>.sql``) and at most :data:`MAX_ROWS` rows, saying so when cut.
"""

from __future__ import annotations

import datetime as dt
import html
import shlex
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.report import html_tables

from pipeline.report import player_pages

from pipeline.stats import ratings

from pipeline.report import report_data

from pipeline.stats import reports as stats
from pipeline.stats.fairness import TRUMP_CAVEAT, fairness_on
from pipeline.report.report_charts import (DEFENCE, GREY, TAKER, LABEL_CHARS, _contracts_figure, _dealt_figures, _histogram, _layout,
                                    _margin_figure, _players_figure, plot_text)

MAX_ROWS = 2000
#: Players shown in the rating-over-time chart (the best by ordinal).
TRAIL_PLAYERS = 8
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


def esc(value) -> str:
    """Text for HTML (and plotly labels): None -> '', escaped (quotes too)."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True)


def fmt(column: str, value) -> str:
    """A table cell, escaped. Floats: columns named ``*rate`` / ``*share`` as percentages with 2 decimals
    (0.1892 -> 18.92%, the report's 4 decimals exactly), ``p_value`` with 3 significant digits, others with 2
    decimals (3 significant digits below 0.1). Other values as text."""
    if isinstance(value, float):
        if column.endswith("rate") or column.endswith("share"):
            return f"{value * 100:.2f}%"
        if column == "p_value" or (value != 0 and abs(value) < 0.1):
            return f"{value:.3g}"
        return f"{value:.2f}"
    return esc(value)


@dataclass
class Figure:
    """A plotly figure to place in the page, under ``id`` (the div id, ``fig-<id>``)."""

    id: str
    figure: object

    def html(self) -> str:
        import plotly.io as pio
        return pio.to_html(self.figure, include_plotlyjs=False, full_html=False, div_id=f"fig-{self.id}",
                           config=PLOTLY_CONFIG, default_width="100%", default_height=f"{self.height}px")

    @property
    def height(self) -> int:
        return int(self.figure.layout.height or 380)


def _cls(column: str, numeric: set[str]) -> str:
    if column in numeric:
        return ' class="num"'
    return ' class="cmd"' if column == "command" else ""


#: The players table of the page: counts with their rates and 95 % Wilson intervals (the terminal's display
#: columns are narrower; every column is in the CSV/JSON output of `stats players`).
PLAYER_COLUMNS = ["player", "source", "games", "hands", "taken", "take_rate", "made_of", "made_rate_lo",
                  "made_rate_hi", "points_per_hand", "taker_points_per_hand", "defender_points_per_hand",
                  "coinches_won_of", "declarations_per_100", "illegal_plays", "mismatches_of", "won_of"]


def _table(table: pa.Table, columns: list[str] | None, caption: str = "", more: str = "", tid: str | None = None,
           links: dict[str, list[str | None]] | None = None) -> str:
    """An HTML table of ``table``'s ``columns`` (all when None), at most MAX_ROWS rows; numbers right-aligned, with
    their value in ``data-v`` for sorting. ``tid``: the table's id (``table-TID``, for ``#sort=TID:COLUMN``);
    ``links``: column -> the href of each row's cell (None: no link). Sorting, search and pages: html_tables."""
    cols = [c for c in (columns or table.column_names) if c in table.column_names]
    numeric = {c for c in cols if pa.types.is_integer(table.schema.field(c).type)
               or pa.types.is_floating(table.schema.field(c).type)}
    rows = table.select(cols).slice(0, MAX_ROWS).to_pylist()
    links = links or {}
    head = "".join(f'<th{_cls(c, numeric)}>{esc(c)}</th>' for c in cols)

    def td(c: str, r: dict, i: int) -> str:
        text = fmt(c, r[c])
        href = links[c][i] if c in links else None
        if href is not None:
            text = f'<a href="{esc(href)}">{text}</a>'
        # a number shown otherwise than as it is (a rate as a percentage, a rounded float) sorts by its value
        value = f' data-v="{"" if r[c] is None else r[c]}"' if c in numeric and text != str(r[c]) else ""
        return f'<td{_cls(c, numeric)}{value}>{text}</td>'
    body = "\n".join("<tr>" + "".join(td(c, r, i) for c in cols) + "</tr>" for i, r in enumerate(rows))
    note = ""
    if table.num_rows > MAX_ROWS:
        note = f'<p class="note">Showing {MAX_ROWS} of {table.num_rows} rows{esc(more)}.</p>'
    if not rows:
        body = f'<tr><td colspan="{len(cols)}" class="empty">no rows</td></tr>'
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    ident = f' id="table-{esc(tid)}"' if tid else ""
    return (f'<div class="table-wrap"><table class="data"{ident}>{cap}<thead><tr>{head}</tr></thead><tbody>\n{body}\n'
            f'</tbody></table></div>{note}')


def strain_results(contracts: pa.Table) -> dict[str, dict[str, int]]:
    """Contracts per strain from the contracts report: strain -> {contracts, made, failed (decided - made),
    litiges, unscored}, strains in the report's order."""
    out: dict[str, dict[str, int]] = {}
    for r in contracts.to_pylist():
        d = out.setdefault(r["strain"] or "?", dict(contracts=0, made=0, failed=0, litiges=0, unscored=0))
        d["contracts"] += r["contracts"]
        d["made"] += r["made"]
        d["failed"] += r["decided"] - r["made"]
        d["litiges"] += r["litiges"]
        d["unscored"] += r["unscored"]
    return out


_CSS = """
:root { --fg: #1f2933; --muted: #52606d; --line: #d9e2ec; --bg: #f5f7fa; --accent: #1f6feb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); }
header { background: #102a43; color: #fff; padding: 20px 32px 12px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 0; color: #bcccdc; }
nav { margin-top: 12px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: #9fb3c8; text-decoration: none; font-size: 13px; }
nav a:hover { color: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 8px 24px 48px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; margin: 20px 0; padding: 4px 24px 16px; }
h2 { font-size: 19px; margin: 16px 0 6px; }
p.lead, p.note { color: var(--muted); margin: 4px 0 12px; max-width: 900px; }
p.note { font-size: 12px; }
h3 { font-size: 15px; margin: 18px 0 4px; }
p.caveat { color: var(--fg); border-left: 3px solid #d97706; background: #fffbeb; padding: 6px 10px;
           margin: 4px 0 12px; max-width: 900px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; flex: 1 1 0; min-width: 90px; }
.card b { display: block; font-size: 20px; font-variant-numeric: tabular-nums; }
.card span { color: var(--muted); font-size: 12px; }
.table-wrap { overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; text-align: left; }
th { background: #f0f4f8; position: sticky; top: 0; }
td.num, th.num { text-align: right; }
tbody tr:nth-child(even) { background: #fafbfc; }
td.empty { color: var(--muted); font-style: italic; }
td.cmd { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; white-space: normal;
         min-width: 360px; }
.plot { width: 100%; }
code { background: #f0f4f8; padding: 1px 4px; border-radius: 3px; }
"""

SECTIONS = (("overview", "Overview"), ("hand-scores", "Hand scores"), ("margins", "Contract margins"),
            ("ratings", "Ratings"), ("players", "Players"), ("contracts", "Contracts"), ("dealt-hands", "Dealt hands"),
            ("declarations", "Declarations"), ("partnerships", "Partnerships"), ("head-to-head", "Head to head"),
            ("double-dummy", "Double-dummy"), ("audit", "Score audit"))


@dataclass
class ReportSummary:
    """What :func:`write_html_report` wrote: file, ruleset, hands, figures, bytes."""

    path: Path
    ruleset: str
    hands: int
    figures: int
    size: int

    def __str__(self) -> str:
        return (f"report [{self.ruleset}]: {self.hands} hands, {len(SECTIONS)} sections, {self.figures} charts, "
                f"{self.size / 1e6:.1f} MB -> {self.path}")


def _filters_text(filters: stats.Filters) -> str:
    parts = []
    for label, values in (("source", filters.sources), ("variant", filters.variants)):
        if values:
            parts.append(f"{label} {', '.join(values)}")
    if filters.players:
        parts.append(f"{len(filters.players)} player(s)" if filters.pseudonymize else
                     f"player {', '.join(filters.players)}")
    if filters.min_hands:
        parts.append(f"rows with at least {filters.min_hands} hands")
    return "; ".join(parts) or "none"


_SECTIONS = ("players", "partnerships", "head_to_head", "contracts", "declarations", "declaration_kinds", "dd_players",
             "audit")


def build_html(lake: Path | str, ruleset: str | None = None, filters: stats.Filters | None = None,
               now: dt.datetime | None = None, progress=None) -> tuple[str, str, int, int]:
    """The page for ``lake`` under ``ruleset`` (None: the only one scored) with ``filters`` (sources,
    variants, players, min_hands, pseudonymize, as for ``rebelote stats``).

    ``progress(stage, done, total)``: called before each query (a report's name, then "charts"), for a bar.
    Returns (html text, ruleset used, hands in the filtered lake, number of charts). Raises
    :class:`pipeline.stats.reports.StatsError` (missing lake, ruleset not scored or ambiguous).
    """
    import plotly.offline

    progress = progress or (lambda *a: None)
    filters = filters or stats.Filters()
    now = now or dt.datetime.now(dt.timezone.utc)
    con = stats.connect(lake, filters)
    try:
        ruleset = stats.resolve_ruleset(con, ruleset)
        rep = {}
        for i, name in enumerate(_SECTIONS):
            progress(name, i, len(_SECTIONS) + 1)
            rep[name] = stats.run_report_on(con, name, ruleset, filters)
        progress("charts", len(_SECTIONS), len(_SECTIONS) + 1)
        every = ratings.every_game(lake, filters) if filters.players else con
        try:
            results = ratings.game_results(every, ruleset)
        finally:
            if every is not con:
                every.close()
        pages, page_of, rated = player_pages.player_data(con, ruleset, rep, results,
                                                         f" --lake {shlex.quote(str(lake))}",
                                                         rules=_explaining_rules(lake, ruleset),
                                                         commands=not filters.pseudonymize)
        activity = con.sql(ACTIVITY_SQL).to_arrow_table()
        ov = report_data.overview(con, ruleset)
        score_bins = report_data.hand_score_bins(con, ruleset)
        margin_bins, capot_bids = report_data.margin_bins(con, ruleset)
        fair = fairness_on(con, "all", filters)
    finally:
        con.close()
    monthly = stats.run_report_by_month(lake, "players", ruleset, filters) if activity.num_rows else None

    figures: list[Figure] = []

    def fig(id_: str, figure) -> str:
        figures.append(Figure(id_, figure))
        return f'<div class="plot">{figures[-1].html()}</div>'

    cmd = f" (all rows: rebelote stats {{}} --rules {ruleset})"
    body: list[str] = []
    pseudo = " Player names are pseudonyms (salted hashes)." if filters.pseudonymize else ""
    cards = [("games", ov["games"]), ("hands", ov["hands"]), ("contracts", ov["contracts"]),
             ("players", ov["players"]), ("sources", ov["sources"]), ("scored", ov["scored"]),
             ("passed out", ov["passed_out"]), ("unscorable", ov["unscorable"]),
             ("not rescored", ov["unscored"])]
    body.append(_section("overview", "Overview",
                         f'<p class="lead">Hands of the lake after the filters ({esc(_filters_text(filters))}), '
                         f'scored under <b>{esc(ruleset)}</b>.{pseudo}</p><div class="cards">'
                         + "".join(f'<div class="card"><b>{v:,}</b><span>{esc(k)}</span></div>' for k, v in cards)
                         + "</div>"))
    body.append(_section("hand-scores", "Hand scores",
                         '<p class="lead">Game points each side scored on every hand with a result (status '
                         "'scored'), after multipliers and rounding, before any litige carry-over.</p>"
                         + fig("hand-scores", _histogram(score_bins, {"taker": ("taker's team", TAKER),
                                                                      "defence": ("defence", DEFENCE)},
                                                         "Game points per hand", "game points"))))
    body.append(_section("margins", "Contract margins",
                         '<p class="lead">How far the taker was from what the contract needed, in card points '
                         "(the totals the made test compares: cards, last trick and what the ruleset adds). "
                         "Bid contracts: the taker's points minus the bid. Takes without a bid value (classic "
                         "prise): the taker's points minus the defence's. A bid is reached from 0 up; a prise is made above 0 "
                         "(0 is a tie, a litige under most rulesets). The contracts table's avg_margin averages the same "
                         "margins (queries/contracts.sql).</p>"
                         + fig("margins", _margin_figure(margin_bins))
                         + (f'<p class="note">{capot_bids} capot bids left out (they need every trick, not a '
                            "number of points).</p>" if capot_bids else "")))
    players = rep["players"]
    only = {(r["player"], r["source"]) for r in rep["players"].select(["player", "source"]).to_pylist()} \
        if filters.players else None
    body.append(_section("ratings", "Ratings", _ratings_content(rated, page_of, activity, fig, only)))
    player_links = {"player": [f"#player={page_of[(p, src)]}" if (p, src) in page_of else None
                               for p, src in zip(players.column("player").to_pylist(),
                                                 players.column("source").to_pylist())]}
    body.append(_section("players", "Players",
                         '<p class="lead">Take rate = hands taken / hands played; success rate = contracts made '
                         "/ contracts decided (litiges and unscorable hands are not decided). The bar labels "
                         "give the numerator and denominator.</p>"
                         + (fig("players", _players_figure(players)) if players.num_rows else "")
                         + _table(players, PLAYER_COLUMNS, more=cmd.format("players"), tid="players",
                                  links=player_links)
                         + '<p class="note">A player\'s name opens their page: rating over time, contracts by '
                           "strain and level, partners, opponents, declarations and last games.</p>"
                         + _monthly_content(monthly, ruleset)))
    by_strain = strain_results(rep["contracts"])
    body.append(_section("contracts", "Contracts",
                         (fig("contracts", _contracts_figure(by_strain)) if by_strain else "")
                         + _table(rep["contracts"], stats.display_columns("contracts"), more=cmd.format("contracts"),
                                  tid="contracts")))
    dealt = dict(_dealt_figures(fair)) if fair.num_rows else {}
    fair_cols = ["event", "hands", "observed", "expected", "ratio", "p_value"]
    trump_rows = pc.field("depends_on_trump")
    body.append(_section("dealt-hands", "Dealt hands: observed vs expected",
                         '<p class="lead">How often the dealt hands held each declaration-worthy pattern, '
                         "against its exact probability for a fairly shuffled deck (pipeline/stats/fairness.py, "
                         "docs/fairness.md). Each seat's hand of each 4-player deal is one trial. The events "
                         "come in two groups: those of the deal alone, which test the shuffle, and those that "
                         "depend on the trump the taker chose, which do not.</p>"
                         + ("" if dealt else '<p class="note">No 4-player deal with its initial hands.</p>')
                         + "<h3>Events of the deal alone: carrés, runs, voids</h3>"
                         '<p class="lead">The bars on the expected counts are ± 2 standard deviations: with a '
                         "fair shuffle, most observed bars should end inside them.</p>"
                         + "".join(fig(fid, dealt[fid]) for fid in ("carres", "patterns") if fid in dealt)
                         + _table(fair.filter(~trump_rows), fair_cols)
                         + "<h3>Events that depend on the chosen trump: trump length, J+9 of trump</h3>"
                         f'<p class="caveat"><b>Caveat:</b> {esc(TRUMP_CAVEAT)} These events count only suit contracts, '
                         "and a small p-value here says how the players bid, not that the shuffle is biased "
                         "(docs/fairness.md, Caveats).</p>"
                         + (fig("trump", dealt["trump"]) if "trump" in dealt else "")
                         + _table(fair.filter(trump_rows), fair_cols)))
    body.append(_section("declarations", "Declarations scored",
                         '<p class="lead">Declarations (tierce, quarte, quinte, carré) and belote-rebelote '
                         "scored under the ruleset, per source. Points are card points.</p>"
                         + _table(rep["declarations"], stats.display_columns("declarations"))))
    body.append(_section("partnerships", "Partnerships",
                         _table(rep["partnerships"], stats.display_columns("partnerships"),
                                more=cmd.format("partnerships"), tid="partnerships")))
    body.append(_section("head-to-head", "Head to head",
                         _table(rep["head_to_head"], stats.display_columns("head_to_head"),
                                more=cmd.format("head-to-head"), tid="head-to-head")))
    dd = rep["dd_players"]
    body.append(_section("double-dummy", "Double-dummy: play and bids against best play",
                         '<p class="lead">Each hand analysed with every hand visible and best play by all '
                         "(<code>rebelote analyse</code>, pipeline/rescore/dd_solver.py): a card's cost is the card "
                         "points it cost its side against the best card its player held; a contract is makeable when "
                         "best play makes it under the ruleset's made test.</p>"
                         + (_table(dd, stats.display_columns("dd_players"), more=cmd.format("dd-players"),
                                   tid="double-dummy") if dd.num_rows else
                            f'<p class="note">No hand analysed under {esc(ruleset)}: run <code>rebelote analyse '
                            f"--rules {esc(ruleset)}</code> (--sample N for a part of a large lake).</p>")))
    audit = rep["audit"]
    by_component: dict[str, int] = {}
    for c in audit.column("component").to_pylist():
        by_component[c] = by_component.get(c, 0) + 1
    audit_lead = (f"{audit.num_rows} hands whose recorded score differs from the rescoring"
                  + (": " + ", ".join(f"{n} {c}" for c, n in sorted(by_component.items())) if by_component else "")
                  + ". Run the command of a row to see why, step by step.")
    body.append(_section("audit", "Score audit", f'<p class="lead">{esc(audit_lead)}</p>'
                         + _table(audit, stats.display_columns("audit"), more=cmd.format("audit"), tid="audit")))

    nav = "".join(f'<a href="#{sid}">{esc(title)}</a>' for sid, title in SECTIONS)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rebelote report: {esc(ruleset)}</title>
<style>{_CSS}{html_tables.CSS}</style>
<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script>
</head>
<body>
<header>
<h1>Rebelote report</h1>
<p>Ruleset {esc(ruleset)} · {ov['hands']:,} hands · filters: {esc(_filters_text(filters))} · generated {esc(now.strftime('%Y-%m-%d %H:%M UTC'))}</p>
<nav>{nav}</nav>
</header>
<main>
<section id="player-page" hidden></section>
{chr(10).join(body)}
</main>
<script type="application/json" id="player-data">{_json_script(pages)}</script>
<script type="text/javascript">{html_tables.JS}</script>
</body>
</html>
"""
    return page, ruleset, ov["hands"], len(figures)


def _explaining_rules(lake, ruleset: str):
    """``ruleset`` loaded to explain the player pages' last games, or None (no game explained: the pages give
    the ``show`` command) when it cannot be (a house ruleset the lake holds no record of)."""
    from pipeline.stats import report_rules
    from pipeline.rules import RulesetError
    try:
        return report_rules.load_rules(ruleset, lake)
    except (RulesetError, OSError):
        return None


#: games per month with a recorded time (the views' games: the page's filters)
ACTIVITY_SQL = """
SELECT strftime(date_trunc('month', played_at), '%Y-%m') AS month, count(*) AS games
FROM (SELECT game_id, any_value(played_at) AS played_at FROM games GROUP BY game_id)
WHERE played_at IS NOT NULL GROUP BY 1 ORDER BY 1
"""


def _ratings_content(rated, page_of: dict, activity: pa.Table, fig, only: set | None = None) -> str:
    """The ratings section: the rating over time of the best rated players with a page, the games per month,
    and the leaderboard (pipeline/stats/ratings.py), names linked to their pages; ``only``: the (player,
    source) rows the leaderboard keeps (the page's players under ``--player``, with their ranks among all)."""
    import plotly.graph_objects as go

    board = ratings.leaderboard(rated)
    if only is not None:
        board = board.filter(pa.array([k in only for k in zip(board.column("player").to_pylist(),
                                                               board.column("source").to_pylist())], pa.bool_()))
    best = [e for e in sorted(rated.entities.values(), key=lambda e: -e.rating.ordinal())
            if rated.trails.get((e.names, e.source))][:TRAIL_PLAYERS]
    out = ('<p class="lead">Ratings from the games\' results in time order (openskill\'s Plackett-Luce model: in '
           "4-player games two teams of two, in 2- and 3-player games each player alone). The leaderboard ranks by "
           "the ordinal, rating - 3 x uncertainty, so a player with few games is not ranked on luck. Games with no "
           "recorded time come after the dated ones, by source and game id"
           + (f" ({rated.undated:,} of the {rated.rated:,} games rated have no recorded time)" if rated.undated else "")
           + (". With a player filter, every game of the other filters is rated, and the leaderboard keeps the "
              "players selected" if only is not None else "") + ".</p>")
    if best:
        figure = go.Figure()
        for e in best:
            trail = rated.trails[(e.names, e.source)][1:]
            figure.add_trace(go.Scatter(x=[t[0] for t in trail], y=[t[1] for t in trail], mode="lines",
                                        name=plot_text(e.names[0], LABEL_CHARS)))
        _layout(figure, f"Rating after each game: the {len(best)} best rated", "games played", "rating (mu)")
        out += fig("ratings", figure)
    if activity.num_rows:
        figure = go.Figure(go.Bar(x=activity.column("month").to_pylist(), y=activity.column("games").to_pylist(),
                                  marker_color=GREY))
        _layout(figure, "Games per month", "month", "games", height=300)
        figure.update_xaxes(type="category")        # months as labels, not as instants on a time axis
        out += fig("activity", figure)
    else:
        out += '<p class="note">No game records when it was played: no activity over time to show.</p>'
    links = {"player": [f"#player={page_of[(p, s)]}" if (p, s) in page_of else None
                        for p, s in zip(board.column("player").to_pylist(), board.column("source").to_pylist())]}
    return out + _table(board, None, tid="ratings", links=links)


#: the players report's columns in the month-by-month table
MONTHLY_COLUMNS = ["month", "player", "source", "games", "hands", "taken", "take_rate", "made_of", "points_per_hand",
                   "won_of"]


def _monthly_content(monthly: pa.Table | None, ruleset: str) -> str:
    """The players report month by month (``rebelote stats players --by month``), newest month first."""
    if monthly is None or not monthly.num_rows:
        return ""
    idx = pc.sort_indices(monthly, [("month", "descending"), ("hands", "descending")])
    return ("<h3>Month by month</h3>"
            '<p class="lead">The players report over each month\'s games (UTC; games with no recorded time are in no '
            "month). Search a name to follow a player over time.</p>"
            + _table(monthly.take(idx), MONTHLY_COLUMNS, tid="players-by-month",
                     more=f" (all columns: rebelote stats players --by month --rules {ruleset})"))


def _json_script(data) -> str:
    """``data`` as JSON text safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` written as JSON escapes,
    so no tag (and no ``</script>``) can occur in it, whatever the names hold."""
    import json
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _section(sid: str, title: str, content: str) -> str:
    return f'<section id="{sid}">\n<h2>{esc(title)}</h2>\n{content}\n</section>'


def write_html_report(lake: Path | str, path: Path | str, ruleset: str | None = None,
                      filters: stats.Filters | None = None, progress=None) -> ReportSummary:
    """Write :func:`build_html`'s page to ``path`` (UTF-8), ``progress`` as it takes it. Raises StatsError as it
    does, OSError on write."""
    page, used, hands, n_figs = build_html(lake, ruleset, filters, progress=progress)
    path = Path(path)
    data = page.encode("utf-8")
    path.write_bytes(data)
    return ReportSummary(path, used, hands, n_figs, len(data))
