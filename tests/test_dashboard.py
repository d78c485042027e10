"""`rebelote export duckdb`: the dashboard database (pipeline/report/dashboard.py) and its documentation.

The lake is simulated (tests/helpers.simulated_lake): 4 classic games from source 'club' (36 hands), 2
contrée games from source 'online' (25 hands), one bad line (a reject), rescored under belote-classic and
colver.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import orjson
import pytest
from typer.testing import CliRunner

from helpers import simulated_lake
from pipeline.report import dashboard
from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.stats.fairness import fairness_report
from pipeline.stats.pseudonymize import RAW_REMOVED, pseudonym
from pipeline.rules import load
from pipeline.simulate.games import PLAYERS, simulate

runner = CliRunner()
RULESETS = ["belote-classic", "colver"]
DOCS = Path(__file__).resolve().parents[1] / "docs" / "dashboards.md"


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return simulated_lake(tmp_path_factory.mktemp("dash") / "lake", extra_lines=["{broken"])


def _objects(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (table type, column names) of a DuckDB file."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
        cols: dict[str, list[str]] = {}
        for t, c in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                "ORDER BY table_name, ordinal_position").fetchall():
            cols.setdefault(t, []).append(c)
    finally:
        con.close()
    return {t: (kinds[t], cols[t]) for t in kinds}


def _query(path: Path, sql: str):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_views_file_matches_its_documentation(lake, tmp_path, monkeypatch):
    out = tmp_path / "dash.duckdb"
    summary = dashboard.export_duckdb(lake, out)
    assert summary.mode == "views" and summary.rulesets == RULESETS and summary.hands == 36 + 25
    objs = _objects(out)
    described = {o.name: [c for c, _, _ in o.columns] for o in dashboard.describe()}
    # every object of the file is documented, with its columns in order, and nothing else is in the file
    assert {t: cols for t, (_, cols) in objs.items()} == described
    assert {t for t, (kind, _) in objs.items() if kind == "VIEW"} == set(stats.VIEWS)
    # the views name the lake by absolute path: the file works from any directory
    monkeypatch.chdir(tmp_path)
    os.mkdir("elsewhere")
    monkeypatch.chdir("elsewhere")
    assert _query(out, "SELECT count(*) FROM hands") == [(61,)]
    assert _query(out, "SELECT count(*) FROM rejects") == [(1,)]
    assert _query(out, "SELECT ruleset, count(*) FROM scores GROUP BY 1 ORDER BY 1") == [
        ("belote-classic", 61), ("colver", 61)]
    assert _query(out, "SELECT count(*) FROM seats") == [(61 * 4,)]
    info = dict(_query(out, "SELECT key, value FROM export_info"))
    assert info["mode"] == "views" and info["lake"] == str(lake.resolve()) and info["rulesets"] == "belote-classic,colver"


def test_report_tables_are_the_reports(lake, tmp_path):
    out = tmp_path / "dash.duckdb"
    dashboard.export_duckdb(lake, out)
    con = duckdb.connect(str(out), read_only=True)
    lake_con = stats.connect(lake)
    try:
        for name in dashboard.REPORTS:
            got = con.sql(f"SELECT * FROM report_{name}").to_arrow_table()
            rows = 0
            for r in RULESETS:
                want = stats.run_report_on(lake_con, name, r)
                part = con.sql(f"SELECT * FROM report_{name} WHERE ruleset = $r", params={"r": r}).to_arrow_table()
                assert part.to_pylist() == want.to_pylist(), (name, r)
                rows += want.num_rows
            assert got.num_rows == rows
        # the rating history: every player's rating after each game, as `stats ratings --history` gives it
        from pipeline.stats import ratings
        for r in RULESETS:
            results = ratings.game_results(lake_con, r)
            want = ratings.history_table(ratings.rate(results, history_of=PLAYERS)).to_pylist()
            got = con.sql("SELECT * EXCLUDE (ruleset) FROM report_rating_history WHERE ruleset = $r",
                          params={"r": r}).to_arrow_table().to_pylist()
            assert got == want and len({g["player"] for g in got}) > 4, r
            one = ratings.history_table(ratings.rate(results, history_of="Bruno")).to_pylist()
            assert [g for g in got if g["player"] == "Bruno"] == one and one
        for by in dashboard.FAIRNESS_GROUPINGS:
            part = con.sql("SELECT * EXCLUDE (grouped_by) FROM report_fairness WHERE grouped_by = $b",
                           params={"b": by}).to_arrow_table()
            assert part.to_pylist() == fairness_report(lake, by).to_pylist(), by
    finally:
        con.close()
        lake_con.close()


def test_materialized_file_is_self_contained(lake, tmp_path):
    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    views, tables = tmp_path / "views.duckdb", tmp_path / "tables.duckdb"
    dashboard.export_duckdb(copy, views)
    dashboard.export_duckdb(copy, tables, materialize=True)
    kinds = {t: k for t, (k, _) in _objects(tables).items()}
    assert set(kinds.values()) == {"BASE TABLE"}
    before = _query(tables, "SELECT count(*), sum(len(players)) FROM hands")
    shutil.rmtree(copy)                                   # the lake is gone
    assert _query(tables, "SELECT count(*), sum(len(players)) FROM hands") == before == [(61, 244)]
    assert _query(tables, "SELECT count(*) FROM seats WHERE is_taker") == _query(
        tables, "SELECT count(*) FROM hands WHERE taker IS NOT NULL")
    with pytest.raises(duckdb.Error):                    # views need the lake
        _query(views, "SELECT count(*) FROM hands")


def test_filters_and_rulesets(lake, tmp_path):
    out = tmp_path / "d.duckdb"
    s = dashboard.export_duckdb(lake, out, ["colver"], stats.Filters(sources=("online",), min_hands=10))
    assert s.rulesets == ["colver"] and s.hands == 25
    assert _query(out, "SELECT DISTINCT source FROM hands") == [("online",)]
    assert _query(out, "SELECT DISTINCT ruleset FROM report_players") == [("colver",)]
    assert _query(out, "SELECT count(*) FROM scores WHERE source <> 'online'") == [(0,)]
    want = stats.run_report(lake, "players", "colver", stats.Filters(sources=("online",), min_hands=10))
    assert _query(out, "SELECT player, hands FROM report_players") == [(r["player"], r["hands"]) for r in want.to_pylist()]
    assert min(h for (h,) in _query(out, "SELECT hands FROM report_players")) >= 10
    with pytest.raises(stats.StatsError, match="no scores for ruleset 'ffb-classic'.*belote-classic, colver"):
        dashboard.export_duckdb(lake, out, ["ffb-classic"])


def test_pseudonymized_file(lake, tmp_path):
    out = tmp_path / "p.duckdb"
    s = dashboard.export_duckdb(lake, out, filters=stats.Filters(players=("Bruno",), pseudonymize="pepper"))
    assert s.mode == "tables"                              # pseudonymization always copies the rows
    con = duckdb.connect(str(out), read_only=True)
    try:
        for t in [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]:
            text = " ".join(v for (v,) in con.execute(f"SELECT CAST(x AS VARCHAR) FROM {t} AS x").fetchall())
            assert not [n for n in PLAYERS if n in text], t       # no name in any column of any table
        assert con.execute("SELECT DISTINCT raw FROM rejects").fetchall() == [(RAW_REMOVED,)]
        # report_players keeps only Bruno's rows (per source), under both rulesets, with the same numbers
        rows = con.execute("SELECT ruleset, player, source, hands, made_of FROM report_players ORDER BY ALL").fetchall()
        want = sorted((r["ruleset"], pseudonym("pepper", r["source"], r["player"]), r["source"], r["hands"], r["made_of"])
                      for rs in RULESETS
                      for r in stats.run_report(lake, "players", rs, stats.Filters(players=("Bruno",))).to_pylist())
        assert rows == want and len(rows) == 4
        # the same pseudonyms in every table: seats, hands.players and the report
        seats = {p for (p,) in con.execute("SELECT DISTINCT player FROM seats").fetchall()}
        hands = {p for (p,) in con.execute("SELECT DISTINCT unnest(players) FROM hands").fetchall()}
        assert seats == hands and {r[1] for r in rows} <= seats
        assert dict(con.execute("SELECT key, value FROM export_info").fetchall())["players"].startswith("(1 names")
    finally:
        con.close()


def test_no_scores_gives_empty_report_tables(tmp_path):
    lake = simulated_lake(tmp_path / "lake", plan=(("belote-classic", 1, 3, "club"),))
    shutil.rmtree(lake / "scores")
    shutil.rmtree(lake / "game_scores")
    out = tmp_path / "d.duckdb"
    s = dashboard.export_duckdb(lake, out)
    assert s.rulesets == []
    objs = _objects(out)
    assert objs["report_players"][1] == [c for c, _, _ in next(o for o in dashboard.describe()
                                                              if o.name == "report_players").columns]
    assert _query(out, "SELECT count(*) FROM report_players") == [(0,)]
    # one row per event: 6 carrés, any carré, 3 runs, void, trump length 0..8, J+9 of trump = 21
    assert _query(out, "SELECT count(*) FROM report_fairness WHERE grouped_by = 'all'") == [(21,)]
    # the 10 events of the chosen trump are flagged apart from the 11 of the deal alone
    assert _query(out, "SELECT depends_on_trump, count(*) FROM report_fairness WHERE grouped_by = 'all' "
                       "GROUP BY ALL ORDER BY 1") == [(False, 11), (True, 10)]
    assert _query(out, "SELECT list(event ORDER BY event) FROM report_fairness WHERE grouped_by = 'all' "
                       "AND depends_on_trump") == [(sorted([f"trump_len_{k}" for k in range(9)] + ["trump_J9"]),)]


def test_cli_export_duckdb(lake, tmp_path):
    out = tmp_path / "cli.duckdb"
    r = runner.invoke(app, ["export", "duckdb", str(out), "--lake", str(lake), "--rules", "colver", "--materialize"])
    assert r.exit_code == 0, r.output
    # 6 lake views + 7 derived tables (player_hands, player_games, hand_facts, pair_hands, pair_games,
    # declaration_items, dealt_events) and the analysis table dd_hands copied in; 11 SQL reports (queries/ minus
    # compare; dd_players and dd_bids empty here), ratings, rating history, 3 monthly reports and fairness
    assert "export duckdb: 61 hands; 14 tables copied in; 17 report tables" in r.stdout and "rulesets: colver" in r.stdout
    assert _query(out, "SELECT DISTINCT ruleset FROM report_contracts") == [("colver",)]
    r = runner.invoke(app, ["export", "duckdb", str(out), "--lake", str(lake), "--rules", "nope"])
    assert r.exit_code == 2 and "unknown ruleset 'nope'" in r.stderr
    r = runner.invoke(app, ["export", "duckdb", str(tmp_path / "x.duckdb"), "--lake", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "lake folder not found" in r.stderr
    # the JSON Lines export: as before, and as a subcommand
    for args in (["export", "--format", "jsonl"], ["export", "jsonl"]):
        r = runner.invoke(app, args + ["--lake", str(lake), "-o", str(tmp_path / "g.jsonl")])
        assert r.exit_code == 0 and "export: 6 games, 61 hands" in r.stderr, r.output
        assert len(tmp_path.joinpath("g.jsonl").read_text().splitlines()) == 6
    r = runner.invoke(app, ["export", "--format", "duckdb", "--lake", str(lake)])
    assert r.exit_code == 2 and "rebelote export duckdb FILE.duckdb" in r.stderr


def test_docs_are_generated():
    assert DOCS.read_text() == dashboard.markdown(), "run: rebelote schema --dashboards > docs/dashboards.md"
    r = runner.invoke(app, ["schema", "--dashboards"])
    assert r.exit_code == 0 and r.stdout == dashboard.markdown()
    text = DOCS.read_text()
    for obj in dashboard.describe():       # every object has a section, every report its SQL header
        assert f"## `{obj.name}`" in text
        if obj.name in [f"report_{n}" for n in dashboard.REPORTS]:
            assert stats.report_doc(obj.name.removeprefix("report_")) in text
    assert json.dumps(sorted(o.name for o in dashboard.describe())) == json.dumps(sorted(
        list(stats.VIEWS) + [f"report_{n}" for n in dashboard.REPORTS]
        + [f"report_{n}_by_month" for n in dashboard.MONTHLY]
        + ["report_ratings", "report_rating_history", "report_fairness", "export_info"]))


def test_cli_export_duckdb_scores_first_and_names_a_missing_folder(tmp_path):
    # found by a new user: a lake imported with --no-score exported empty report tables ("rulesets: none
    # scored") while every other report scores each game under its own ruleset first; and a file in a folder
    # that does not exist ended in DuckDB's traceback rather than the one-line error the other exports give
    src = Path(__file__).resolve().parents[1] / "data"
    lk = tmp_path / "lk"
    r = runner.invoke(app, ["ingest", str(src), "--lake", str(lk), "--no-score", "-q"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["export", "duckdb", str(tmp_path / "nodir" / "x.duckdb"), "--lake", str(lk)])
    assert r.exit_code == 2 and "cannot write" in r.stderr and "no folder" in r.stderr, r.output
    assert not (lk / "scores").exists()          # refused before anything was scored
    out = tmp_path / "x.duckdb"
    r = runner.invoke(app, ["export", "duckdb", str(out), "--lake", str(lk)])
    assert r.exit_code == 0, r.output
    assert "scoring the lake under own first" in r.stderr and "rulesets: own" in r.stdout
    # the sample's 347 hands (data/README.md), every one in the players report's own ruleset
    assert _query(out, "SELECT DISTINCT ruleset FROM report_contracts") == [("own",)]
    assert _query(out, "SELECT count(*) FROM scores WHERE ruleset = 'own'") == [(347,)]
    # another ruleset exported by default whose scores went stale (hands imported since it was scored): named in
    # a warning with the command that updates it (a new user found the file silently without those games)
    r = runner.invoke(app, ["rescore", "--rules", "colver", "--lake", str(lk)])
    assert r.exit_code == 0, r.output
    extra = tmp_path / "more.jsonl"
    extra.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(load("belote-classic"), 1, 77)) + b"\n")
    assert runner.invoke(app, ["ingest", str(extra), "--lake", str(lk), "-q"]).exit_code == 0
    r = runner.invoke(app, ["export", "duckdb", str(tmp_path / "y.duckdb"), "--lake", str(lk)])
    assert r.exit_code == 0, r.output
    said = " ".join(r.stderr.split())
    assert "the scores under colver are stale (hands imported or replaced since its last rescore)" in said
    assert f"rebelote rescore --rules colver --lake {lk}" in said and "scores under own are stale" not in said


@pytest.mark.parametrize("option", ["--materialize", "--pseudonymize=salt-9"])
def test_a_copied_file_of_a_lake_with_stale_scores(tmp_path, option):
    # new-user trial: with another ruleset's scores stale (a game imported since its rescore), the copied files
    # (--materialize, --pseudonymize) failed: the rows were read through a cursor, another connection, which
    # does not see the temporary table of the stale games the views leave out. Now the file is written, with the
    # warnings, and each ruleset's scores as they stand: game a's hand alone (game b's are not there yet).
    from conftest import write_jsonl
    from deals import DEAL_A, DEAL_K, native_game, native_hand
    lake = tmp_path / "lake"
    a = write_jsonl(tmp_path / "a.jsonl", [native_game("a", [native_hand(DEAL_A, 1, taker=0)])])
    b = write_jsonl(tmp_path / "b.jsonl", [native_game("b", [native_hand(DEAL_K, 1, taker=0)])])
    run = CliRunner().invoke
    assert run(app, ["ingest", str(a), "--lake", str(lake), "--no-score"]).exit_code == 0
    assert run(app, ["rescore", "--rules", "belote-classic", "--rules", "pagat-coinche",
                     "--lake", str(lake)]).exit_code == 0
    assert run(app, ["ingest", str(b), "--lake", str(lake), "--no-score"]).exit_code == 0
    out = tmp_path / "x.duckdb"
    r = run(app, ["export", "duckdb", str(out), option, "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    said = " ".join(r.stderr.split())
    assert "the scores under belote-classic are stale" in said and "the scores under pagat-coinche are stale" in said
    db = duckdb.connect(str(out), read_only=True)
    try:
        assert db.execute("SELECT count(*) FROM hands").fetchall() == [(2,)]
        # (own, the lake's default, is scored by the export first, both hands)
        assert db.execute("SELECT ruleset, count(*) FROM scores GROUP BY ALL ORDER BY 1").fetchall() == [
            ("belote-classic", 1), ("own", 2), ("pagat-coinche", 1)]
    finally:
        db.close()
