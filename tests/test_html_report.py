"""`rebelote report --html`: one self-contained page (pipeline/report/html_report.py, pipeline/report/report_data.py).

The lake is simulated (tests/helpers.simulated_lake): 4 classic games from source 'club' (36 hands) and 2
contrée games from source 'online' (25 hands), rescored under belote-classic and colver. The simulated
player 'Alice' is renamed to a name full of HTML so that escaping is tested on real pages.

Two tests render the page in Debian's headless Chromium (/usr/bin/chromium; .ci/run installs it, and they skip
without it): one in the default run sorts a table, pages it and opens a player's page with no network; the
screenshot of the whole page (marker ``browser``, run with ``-m browser``) checks that plotly drew every chart.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest
from typer.testing import CliRunner

from helpers import simulated_lake
from pipeline.report import html_report
from pipeline.storage import lake as lakemod
from pipeline.report import report_charts
from pipeline.report import report_data
from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.stats.fairness import TRUMP_CAVEAT, depends_on_trump, exact_probabilities, fairness_report
from pipeline.stats.pseudonymize import pseudonym
from pipeline.simulate.games import PLAYERS

HOSTILE = '<img src=x onerror=alert(1)>Zoé & "Co"'
RULES = "belote-classic"
CHROMIUM = Path("/usr/bin/chromium")
runner = CliRunner()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return simulated_lake(tmp_path_factory.mktemp("html") / "lake", rename={"Alice": HOSTILE})


@pytest.fixture(scope="module")
def page(lake) -> str:
    text, used, hands, figures = html_report.build_html(lake, RULES)
    # 8 charts: scores, margins, ratings, players, contracts, 3 dealt (the simulated games have no time: no activity)
    assert (used, hands, figures) == (RULES, 61, 8)
    return text


class _Refs(HTMLParser):
    """Collects every attribute that loads something (src, href, data, poster, srcset) and the tags seen."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href", "data", "poster", "srcset", "action"):
                self.refs.append((tag, k, v or ""))
            if k == "id":
                self.ids.append(v)


def _parse(page: str) -> _Refs:
    p = _Refs()
    p.feed(page)
    return p


def figure_data(page: str, fig_id: str) -> list[dict]:
    """The traces of figure ``fig-<fig_id>``, decoded from its ``Plotly.newPlot("fig-<id>", [...], ...)`` call."""
    m = re.search(r'Plotly\.newPlot\(\s*"fig-' + re.escape(fig_id) + r'",\s*', page)
    assert m, fig_id
    data, _ = json.JSONDecoder().raw_decode(page, m.end())
    return data


def test_sections_and_self_contained(page):
    p = _parse(page)
    for sid, title in html_report.SECTIONS:
        assert sid in p.ids and f'<a href="#{sid}">' in page
    # nothing loaded from anywhere: no src/href other than in-page anchors, no <link>, no CSS import/url()
    assert [r for r in p.refs if not (r[1] == "href" and r[2].startswith("#"))] == []
    assert "link" not in p.tags and "iframe" not in p.tags
    assert not re.search(r"@import|url\(", page.split("<script", 1)[0])
    assert not re.search(r'<(script|link|img)[^>]+(src|href)\s*=\s*["\']?https?://', page)
    # plotly.js inlined exactly once, one newPlot per chart and one in the player pages' script
    assert page.count("plotly.js v") == 1 and page.count("Plotly.newPlot(") == 8 + 1
    # plotly's, the tables' and pages' script (pipeline/report/html_tables.py); the pages' data is JSON, not a script
    assert page.count('<script type="text/javascript">') == 2
    assert page.count('<script type="application/json" id="player-data">') == 1


def test_player_names_escaped(page, lake):
    assert HOSTILE not in page and "<img" not in page
    players = stats.run_report(lake, "players", RULES)
    names = {r["player"] for r in players.to_pylist()}
    assert HOSTILE in names and len(names) == 8
    for name in names:
        assert f"<td>{html.escape(name)}</td>" in page          # in the players table, escaped
    # chart labels are escaped too (plotly draws a few HTML tags in labels, and decodes &amp; &lt; &gt;): the
    # bars' x values, cut to 24 characters
    labels = figure_data(page, "players")[0]["y"]
    assert '&lt;img src=x onerror=aler… · club' in labels
    assert '&lt;img src=x onerror=alert(1)&gt;Zoé &amp; "Co" · club' in figure_data(page, "players")[0]["customdata"]


def test_players_numbers(page, lake):
    players = stats.run_report(lake, "players", RULES).to_pylist()
    take, success = figure_data(page, "players")
    shown = players[:report_charts.CHART_PLAYERS]
    # the bars are the report's rates, labelled with their numerator/denominator
    assert take["x"] == [r["take_rate"] for r in shown]
    assert take["text"] == [f"{r['taken']}/{r['hands']}" for r in shown]
    assert success["text"] == [r["made_of"] for r in shown]
    assert success["x"] == [r["made"] / r["decided"] if r["decided"] else None for r in shown]
    for r in players:
        # e.g. a row "... 28 | 6 | 21.43% | 4/5 ..." (take_rate 0.2143 of the report shown as a percentage)
        row = (f'<td class="num">{r["hands"]}</td><td class="num">{r["taken"]}</td>'
               f'<td class="num" data-v="{r["take_rate"]}">{r["take_rate"] * 100:.2f}%</td><td>{r["made_of"]}</td>')
        assert row in page, row


def test_a_long_tail_leaves_the_bins_narrow():
    # issue 21: a few coinched capots at 2,000 points among hands of 0 to 300 made 100-point bins on a
    # 2,000-point axis. 1,000 values 0..299 and 3 at 2,000: the 99 % in the middle set the bins (10 wide,
    # 0 to 299), the 3 are counted beyond them, and the legend counts all
    import duckdb
    con = duckdb.connect()
    values = [(v % 300, "taker") for v in range(1000)] + [(2000, "taker")] * 3
    con.execute("CREATE TABLE v (value INTEGER, kind VARCHAR)")
    con.executemany("INSERT INTO v VALUES (?, ?)", values)
    bins = report_data._bins(con, "SELECT * FROM v", {}, ["taker"])
    assert (bins.width, bins.starts[0], bins.starts[-1]) == (10, 0, 290)
    assert bins.outside == {"taker": 3} and bins.total("taker") == 1000 and bins.all("taker") == 1003
    # no long tail: the whole range, nothing beyond
    bins = report_data._bins(con, "SELECT * FROM v WHERE value < 1000", {}, ["taker"])
    assert bins.outside == {"taker": 0} and bins.total("taker") == 1000


def test_hand_score_and_margin_distributions(page, lake):
    # independent of the SQL: the scores and hands Parquet files read with pyarrow and binned with numpy
    sc = lakemod.read(lake, "scores").filter(pc.equal(pc.field("ruleset"), RULES))
    sc = sc.filter(pc.equal(sc["status"], "scored")).to_pylist()
    hands = {h["hand_key"]: h for h in lakemod.read(lake, "hands").to_pylist()}
    taker = [s["hand_score"][s["taker_team"]] for s in sc]
    defence = [sum(s["hand_score"]) - s["hand_score"][s["taker_team"]] for s in sc]
    bins = report_data.hand_score_bins(stats.connect(lake), RULES)
    edges = bins.starts + [bins.starts[-1] + bins.width]

    def inside(values):        # [first edge, last edge): what the bars draw; the rest is counted beyond them
        return [v for v in values if edges[0] <= v < edges[-1]]
    assert bins.counts["taker"] == np.histogram(inside(taker), edges)[0].tolist()
    assert bins.counts["defence"] == np.histogram(inside(defence), edges)[0].tolist()
    assert bins.outside == {"taker": len(taker) - len(inside(taker)), "defence": len(defence) - len(inside(defence))}
    traces = figure_data(page, "hand-scores")
    assert [t["y"] for t in traces] == [bins.counts["taker"], bins.counts["defence"]]
    assert traces[0]["name"] == f"taker's team ({len(sc)})"
    bid = [s["contract_points"][s["taker_team"]] - hands[s["hand_key"]]["bid"] for s in sc
           if hands[s["hand_key"]]["bid"] is not None and not hands[s["hand_key"]]["capot_bid"]]
    prise = [s["contract_points"][s["taker_team"]] - s["contract_points"][1 - s["taker_team"]] for s in sc
             if hands[s["hand_key"]]["bid"] is None and not hands[s["hand_key"]]["capot_bid"]]
    mb, capots = report_data.margin_bins(stats.connect(lake), RULES)
    edges = mb.starts + [mb.starts[-1] + mb.width]
    assert (mb.counts["bid"], mb.counts["prise"]) == (np.histogram(inside(bid), edges)[0].tolist(),
                                                      np.histogram(inside(prise), edges)[0].tolist())
    assert capots == sum(1 for s in sc if hands[s["hand_key"]]["capot_bid"])
    # the margins are those the contracts report averages, bids and takes alike: same count, same total
    contracts = [r for r in stats.run_report(lake, "contracts", RULES).to_pylist() if r["avg_margin"] is not None]
    for kind, values in (("bid", bid), ("prise", prise)):
        rows = [r for r in contracts if (r["level"] == "take") == (kind == "prise")]
        assert len(values) == sum(r["margin_hands"] for r in rows), kind
        assert sum(values) == pytest.approx(sum(r["avg_margin"] * r["margin_hands"] for r in rows), abs=0.01 * len(rows))
    assert [t["y"] for t in figure_data(page, "margins")] == [mb.counts["bid"], mb.counts["prise"]]


def test_contracts_and_dealt_hands(page, lake):
    contracts = stats.run_report(lake, "contracts", RULES)
    by_strain = html_report.strain_results(contracts)
    traces = figure_data(page, "contracts")
    made, failed = traces[0]["y"], traces[1]["y"]
    assert made == [sum(r["made"] for r in contracts.to_pylist() if r["strain"] == s) for s in by_strain]
    assert failed == [sum(r["decided"] - r["made"] for r in contracts.to_pylist() if r["strain"] == s) for s in by_strain]
    # every hand with a taker is a contract of the report
    con = stats.connect(lake)
    assert sum(d["contracts"] for d in by_strain.values()) == con.sql(
        "SELECT count(*) FROM hands WHERE taker IS NOT NULL").fetchall()[0][0]
    con.close()
    fair = {r["event"]: r for r in fairness_report(lake, "all").to_pylist()}
    # 61 deals with initial hands x 4 seats = 244 seat hands
    assert fair["void"]["hands"] == 244
    carres = figure_data(page, "carres")
    assert carres[0]["x"] == ["J", "9", "A", "10", "K", "Q", "any"]
    assert carres[0]["y"] == [fair[f"carre_{x}"]["observed"] for x in carres[0]["x"]]
    assert carres[1]["y"] == [fair[f"carre_{x}"]["expected"] for x in carres[0]["x"]]
    trump = figure_data(page, "trump")
    assert trump[0]["x"] == [str(k) for k in range(9)] + ["J9"]
    assert trump[0]["y"] == [fair[f"trump_len_{k}"]["observed"] for k in range(9)] + [fair["trump_J9"]["observed"]]
    assert figure_data(page, "patterns")[0]["x"] == ["run_3", "run_4", "run_5", "void"]
    row = f'<td>void</td><td class="num">244</td><td class="num">{fair["void"]["observed"]}</td>'
    assert row in page


def test_dealt_hands_separate_the_trump_events(page):
    """The events that depend on the chosen trump are shown apart, under the caveat `stats fairness` prints;
    the 'should end inside them' reading is given for the events of the deal alone only."""
    section = page.split('<section id="dealt-hands">')[1].split("</section>")[0]
    deal_part, trump_part = section.split("<h3>Events that depend on the chosen trump")
    assert "most observed bars should end inside them" in deal_part
    assert "most observed bars should end inside them" not in trump_part
    assert html.escape(TRUMP_CAVEAT) in trump_part
    # every event in its part's table, and in that part only (tables rows start with the event name)
    for event in exact_probabilities():
        cell = f"<tr><td>{event}</td>"
        assert (cell in trump_part, cell in deal_part) == (depends_on_trump(event), not depends_on_trump(event)), event
    assert 'id="fig-trump"' in trump_part and 'id="fig-carres"' in deal_part and 'id="fig-patterns"' in deal_part


def test_pseudonymized_page(lake, tmp_path):
    out = tmp_path / "p.html"
    r = runner.invoke(app, ["report", "--html", str(out), "--lake", str(lake), "--rules", RULES,
                            "--pseudonymize", "pepper"])
    assert r.exit_code == 0, r.output
    assert re.match(r"report \[belote-classic\]: 61 hands, 12 sections, 8 charts, \d+\.\d MB -> ", r.stdout)
    text = out.read_text()
    assert [n for n in PLAYERS + (HOSTILE, html.escape(HOSTILE)) if n in text] == []
    assert f"<td>{pseudonym('pepper', 'club', 'Bruno')}</td>" in text
    # the numbers do not change: the take-rate bars are the same
    plain = figure_data(html_report.build_html(lake, RULES)[0], "players")[0]["x"]
    assert sorted(figure_data(text, "players")[0]["x"]) == sorted(plain)


def test_cli_errors(lake, tmp_path):
    # two rulesets scored over every hand: the report scores each game under its own first (issue 17: it refused
    # with "several rulesets scored"); on a copy, so that the module's lake keeps its two rulesets
    import shutil
    shutil.copytree(lake, tmp_path / "copy")
    r = runner.invoke(app, ["report", "--html", str(tmp_path / "x.html"), "--lake", str(tmp_path / "copy")])
    assert r.exit_code == 0 and "note: scoring the lake under own first (no scores under it yet" in r.stderr
    r = runner.invoke(app, ["report", "--html", str(tmp_path / "x.html"), "--lake", str(tmp_path / "none")])
    assert r.exit_code == 2 and "lake folder not found" in r.stderr
    r = runner.invoke(app, ["report", "--html", str(tmp_path / "x.html"), "--lake", str(lake), "--rules", "colver",
                            "--source", "online", "--player", "Bruno"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "x.html").read_text()
    assert "filters: source online; player Bruno" in text
    # --player keeps Bruno's row only in the per-player chart and table (Bruno played all 25 hands of 'online')
    assert figure_data(text, "players")[0]["y"] == ["Bruno"]
    assert '<tr><td><a href="#player=0">Bruno</a></td><td>online</td><td class="num">2</td><td class="num">25</td>' in text


def _chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--no-first-run", f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
                           "--v=0", *args], capture_output=True, text=True, timeout=180)


@pytest.mark.browser
def test_page_renders_in_chromium(lake, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to render the page")
    out = tmp_path / "report.html"
    html_report.write_html_report(lake, out, RULES)
    r = _chromium("--dump-dom", out.as_uri(), tmp=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    dom = r.stdout
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "Uncaught" in line or "Error" in line], console
    # plotly drew every chart: each figure div holds its <svg class="main-svg">
    figs = re.findall(r'<div id="fig-([\w-]+)"', dom)
    assert sorted(figs) == sorted(["hand-scores", "margins", "players", "contracts", "carres", "patterns", "trump"])
    chunks = re.split(r'<div id="fig-', dom)[1:]
    assert all('class="main-svg"' in c for c in chunks)
    assert "&lt;img src=x onerror=aler…" in dom      # the name drawn as text (cut to 24 characters)
    assert "<img src=\"x\"" not in dom
    png = tmp_path / "report.png"
    r = _chromium("--hide-scrollbars", "--window-size=1280,6000", f"--screenshot={png}", out.as_uri(), tmp=tmp_path)
    assert r.returncode == 0 and png.stat().st_size > 50_000
    if shutil.which("file"):
        assert "PNG image data, 1280 x 6000" in subprocess.run(["file", str(png)], capture_output=True, text=True).stdout


def _dom(url: str, tmp: Path) -> tuple[str, list[str]]:
    """The page's DOM after its scripts ran, and the console lines, in headless Chromium with every network
    request sent to a proxy that does not exist (a request would fail and say so on the console)."""
    r = _chromium("--proxy-server=127.0.0.1:9", "--virtual-time-budget=10000", "--dump-dom", url, tmp=tmp)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout, [line for line in r.stderr.splitlines() if "CONSOLE" in line or "net::" in line]


def _column(dom: str, table_id: str, column: str) -> list[str]:
    """The cells of ``column`` in the rows table ``table_id`` shows, as text or data-v, in DOM order."""
    table = dom.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    heads = re.findall(r"<th[^>]*>(.*?)</th>", table.split("</thead>", 1)[0])
    i = heads.index(column)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1])
    cells = [re.findall(r"<td([^>]*)>(.*?)</td>", r)[i] for r in rows]
    return [(re.search(r'data-v="([^"]*)"', attrs) or re.search(r"(.*)", text)).group(1) for attrs, text in cells]


def test_the_page_sorts_pages_and_opens_a_player_in_chromium(lake, tmp_path):
    """Issue 21, in the default run (.ci/run installs Debian's chromium): in a real browser, from file:// with no
    network, the players table sorts (the address chooses the sort: #sort=players:-points_per_hand), shows 25
    rows a page, and a player's page (#player=N) draws its rating chart and its tables, with no console error
    and no request."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium; .ci/run does)")
    out = tmp_path / "report.html"
    html_report.write_html_report(lake, out, RULES)
    players = stats.run_report(lake, "players", RULES).to_pylist()
    dom, console = _dom(out.as_uri() + "#sort=players:-points_per_hand", tmp_path)
    assert console == [] or not [c for c in console if "Uncaught" in c or "Error" in c or "net::" in c], console
    shown = [float(x) for x in _column(dom, "table-players", "points_per_hand")]
    want = sorted((p["points_per_hand"] for p in players), reverse=True)
    assert shown == [float(x) for x in want[:25]] and len(players) > 1
    assert 'aria-sort="descending">points_per_hand</th>' in dom
    # the players table shows every row (fewer than a page); the ratings table is paged when longer than 25
    assert f"{len(players)} of {len(players)} rows" in dom and len(players) <= 25
    # the hostile name's page: drawn as text, its chart rendered
    n = next(i for i, p in enumerate(players) if p["player"] == HOSTILE)
    dom, console = _dom(out.as_uri() + f"#player={n}", tmp_path)
    assert not [c for c in console if "Uncaught" in c or "Error" in c or "net::" in c], console
    page = dom.split('<section id="player-page"', 1)[1].split("</section>", 1)[0]
    assert 'hidden' not in page.split(">", 1)[0] and '<body class="player-view"' in dom
    assert html.escape(HOSTILE, quote=False) in page and "<img src" not in dom
    assert 'id="fig-player-rating"' in page and 'class="main-svg"' in page.split('id="fig-player-rating"', 1)[1]
    for title in ("Contracts taken, by strain and level", "Partners", "Opponents", "Declarations by kind",
                  "Last games rated"):
        assert f"<h3>{title}</h3>" in page, title
    # the last games link to their explanation in the page itself: #game=ID draws show's text
    gid = html.unescape(re.search(r'<a href="#game=([^"]+)">', page).group(1))
    from urllib.parse import unquote
    gid = unquote(gid)
    dom, console = _dom(out.as_uri() + "#game=" + gid, tmp_path)
    assert not [c for c in console if "Uncaught" in c or "Error" in c or "net::" in c], console
    pre = html.unescape(dom.split('<pre class="explained">', 1)[1].split("</pre>", 1)[0])
    assert pre == _show_text(lake, gid) and pre.startswith(f"game {gid} hand 1")


def _show_text(lake, gid: str, rules: str = RULES) -> str:
    """What `rebelote show --game GID --rules RULES` prints (piped: plain text), without its last blank line."""
    r = runner.invoke(app, ["show", "--game", gid, "--rules", rules, "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    return r.output.rstrip("\n")


def test_a_player_pages_last_games_are_explained_as_show_prints_them(lake):
    """Issue 21: the page holds the last games of each player page explained hand by hand, the very text
    `rebelote show --game` prints (pipeline/report/player_pages.py, explanations); the rows of those games link to it
    (column kind 'game') and say so instead of giving the command; the others keep the command. At most
    EXPLAINED_PER_PLAYER games of a page are explained."""
    from pipeline.report import player_pages
    text, *_ = html_report.build_html(lake, RULES)
    data = json.loads(text.split('id="player-data">', 1)[1].split("</script>", 1)[0])
    games = data["games"]
    assert games
    for gid in list(games)[:3]:
        assert games[gid] == _show_text(lake, gid)
    for p in data["players"]:
        last = next(t for t in p["tables"] if t["title"] == "Last games rated")
        assert last["columns"][0] == ["game_id", 0, "game"]
        linked = [r for r in last["rows"] if r[0] in games]
        assert [r[0] for r in linked] == [r[0] for r in last["rows"][:player_pages.EXPLAINED_PER_PLAYER]]
        assert all(r[4].startswith("explained") for r in linked)
        assert all(r[4].startswith("rebelote show --game") for r in last["rows"] if r[0] not in games)
    assert len(games) <= player_pages.EXPLAINED_GAMES


def test_explained_games_of_a_pseudonymized_page_show_no_name(lake):
    """--pseudonymize: the explained games come from the page's own (pseudonymized) views, so their text names
    players by pseudonym and games by keyed id; with those put back it is exactly show's text of the real game.
    No row gives a `show` command (a keyed id would not find the game)."""
    from pipeline.stats.pseudonymize import keyed

    salt = "pepper"
    text, *_ = html_report.build_html(lake, RULES, stats.Filters(pseudonymize=salt))
    data = json.loads(text.split('id="player-data">', 1)[1].split("</script>", 1)[0])
    real_ids = [r[0] for r in stats.connect(lake).sql("SELECT game_id FROM games").fetchall()]
    by_key = {keyed(salt, g): g for g in real_ids}
    assert data["games"]
    names = set(PLAYERS) | {HOSTILE}
    for gid, explained in data["games"].items():
        assert gid in by_key and not any(n in explained for n in names)
        real = _show_text(lake, by_key[gid])
        back = explained.replace(gid, by_key[gid])
        for source in ("club", "online"):
            for n in names:
                back = back.replace(pseudonym(salt, source, n), n)
        assert back == real
    for p in data["players"]:
        last = next(t for t in p["tables"] if t["title"] == "Last games rated")
        assert not any(str(r[4]).startswith("rebelote show") for r in last["rows"])


def test_a_player_page_holds_the_reports_rows_of_that_player(lake):
    """pipeline/report/player_pages.py: a page's partners, opponents, contracts and declarations are the rows of the
    partnerships, head-to-head, hand_facts and declaration-kinds reports for that player; its last games are
    the last games of its rating history, each with a quoted `show` command; its trail ends at its rating."""
    import shlex

    from pipeline.report import player_pages

    from pipeline.stats import ratings
    con = stats.connect(lake)
    try:
        rep = {n: stats.run_report_on(con, n, RULES) for n in ("players", "partnerships", "head_to_head",
                                                                "declaration_kinds")}
        results = ratings.game_results(con, RULES)
        data, index, rated = player_pages.player_data(con, RULES, rep, results, " --lake L")
    finally:
        con.close()
    n = index[("Bruno", "club")]
    page = data["players"][n]
    tables = {t["title"]: t for t in page["tables"]}
    pairs = [r for r in rep["partnerships"].to_pylist() if r["source"] == "club" and "Bruno" in (r["player_a"], r["player_b"])]
    assert sorted(r[0] for r in tables["Partners"]["rows"]) == sorted(
        r["player_b"] if r["player_a"] == "Bruno" else r["player_a"] for r in pairs) and pairs
    h2h = [r for r in rep["head_to_head"].to_pylist() if r["source"] == "club"
           and "Bruno" in (r["pair_a_1"], r["pair_a_2"], r["pair_b_1"], r["pair_b_2"])]
    assert sum(r[2] for r in tables["Opponents"]["rows"]) == sum(r["games"] for r in h2h)
    took = [r for r in rep["players"].to_pylist() if (r["player"], r["source"]) == ("Bruno", "club")][0]
    assert sum(r[2] for r in tables["Contracts taken, by strain and level"]["rows"]) == took["taken"]
    for r in tables["Contracts taken, by strain and level"]["rows"]:     # success in percent of those decided
        made, decided = map(int, r[3].split("/"))
        assert r[4] == (round(100 * made / decided, 1) if decided else None)
    kinds = [r for r in rep["declaration_kinds"].to_pylist() if (r["player"], r["source"]) == ("Bruno", "club")]
    assert [r[0] for r in tables["Declarations by kind"]["rows"]] == [r["kind"] for r in kinds]
    history = ratings.rate(results, history_of="Bruno").history
    mine = [h for h in history if h["entity"] == (("Bruno",), "club")]
    assert [r[0] for r in tables["Last games rated"]["rows"]] == [h["game_id"] for h in reversed(mine)][:10]
    assert all(r[4] == f"rebelote show --game {shlex.quote(r[0])} --rules {RULES} --lake L"
               for r in tables["Last games rated"]["rows"])
    e = rated.entities[(("Bruno",), "club")]
    assert (page["trail"]["x"][-1], page["trail"]["mu"][-1]) == (e.games, round(e.rating.mu, 3))
