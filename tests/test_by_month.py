"""`rebelote stats REPORT --by month` (pipeline.stats.reports.run_report_by_month; issue 21): the report once per month of
the games' recorded time, each month's rows exactly the report over that month's games, stacked with a month
column; games with no time in no month."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone

import orjson
import pytest
from typer.testing import CliRunner

from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

UTC = timezone.utc
RULES = "belote-classic"


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    d = tmp_path_factory.mktemp("months")
    games = list(simulate(load(RULES), 5, 61))
    # two games in January, two in March (one on the last second of March 31st, UTC), one with no time
    for g, when in zip(games, ["2026-01-03T10:00:00Z", "2026-01-31T23:00:00Z", "2026-03-02T08:00:00Z",
                               "2026-03-31T23:59:59Z", None]):
        g["played_at"] = when
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in games) + b"\n")
    lake = d / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, load(RULES))
    return lake, games


def test_each_month_is_the_report_over_its_games(lake):
    lake, games = lake
    assert stats.months(lake) == [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)]
    # every report of the ruleset alone: a month's connection makes only the derived views the report reads
    # (views.derived_needed), so a report reading one it did not make would fail here
    reports = [r for r in stats.list_reports() if stats.report_params(r) == ["ruleset"]]
    assert {"players", "contracts", "partnerships", "declaration_kinds"} <= set(reports)
    for report in reports:
        table = stats.run_report_by_month(lake, report, RULES)
        assert table.column_names[:2] == ["ruleset", "month"]
        assert set(table.column("month").to_pylist()) <= {"2026-01", "2026-03"}   # no rows: audit, dd_* here
        if report in ("players", "contracts"):
            assert sorted(set(table.column("month").to_pylist())) == ["2026-01", "2026-03"]
        for month, (since, until) in {"2026-01": ("2026-01-01", "2026-02-01"),
                                      "2026-03": ("2026-03-01", "2026-04-01")}.items():
            want = stats.run_report(lake, report, RULES, stats.Filters(since=stats.parse_when(since),
                                                                       until=stats.parse_when(until)))
            got = [{k: v for k, v in r.items() if k != "month"} for r in table.to_pylist() if r["month"] == month]
            assert got == want.to_pylist(), (report, month)
    # the players' hands add up to the hands of the dated games: the undated game is in no month
    hands = sum(len(g["hands"]) for g in games[:4])
    players = stats.run_report_by_month(lake, "players", RULES).to_pylist()
    assert sum(r["hands"] for r in players) == 4 * hands       # four names per hand, each its own row


def test_the_command(lake):
    lake, _ = lake
    r = CliRunner().invoke(app, ["stats", "players", "--by", "month", "--rules", RULES, "--lake", str(lake),
                                 "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert {row["month"] for row in rows} == {"2026-01", "2026-03"}
    assert "1 game that matches the other filters records no time" in " ".join(r.stderr.split())
    assert "left out by --by month" in " ".join(r.stderr.split())
    r = CliRunner().invoke(app, ["stats", "players", "--by", "week", "--lake", str(lake)])
    assert r.exit_code == 2 and "--by month" in r.output


def test_the_dashboard_file_holds_the_monthly_tables(lake, tmp_path):
    """Issue 21: `export duckdb` writes report_<name>_by_month for players, partnerships and bidders, each the
    rows of `stats NAME --by month` (pipeline.report.dashboard.monthly_tables), and documents them."""
    import duckdb

    from pipeline.report import dashboard
    lake, _ = lake
    out = tmp_path / "d.duckdb"
    dashboard.export_duckdb(lake, out)
    con = duckdb.connect(str(out), read_only=True)
    try:
        for name in dashboard.MONTHLY:
            got = con.sql(f"SELECT * FROM report_{name}_by_month").to_arrow_table().to_pylist()
            want = stats.run_report_by_month(lake, name, RULES).to_pylist()
            assert got == want and got, name
            assert {r["month"] for r in got} == {"2026-01", "2026-03"}
    finally:
        con.close()
    described = {o.name: [c for c, _, _ in o.columns] for o in dashboard.describe()}
    assert described["report_players_by_month"][:3] == ["ruleset", "month", "player"]


def test_monthly_rows_read_as_stored_equal_those_computed(lake, tmp_path):
    # A month is a filter on dates only, which selects whole games: its game-level rows are the stored ones
    # (pipeline/stats/views.py, _filtered_games), and equal the rows computed from hands and scores on a copy
    # without the stored derived tables.
    import shutil

    from pipeline.facts.derived import STORED

    lake, _ = lake
    copy = tmp_path / "computed"
    shutil.copytree(lake, copy)
    for name in STORED:
        shutil.rmtree(copy / name)
    window = stats.Filters(since=stats.parse_when("2026-01-01"), until=stats.parse_when("2026-02-01"))
    con = stats.connect(lake, window)
    try:
        sql = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'player_games'").fetchone()[0]
        assert "_all_player_games" in sql and "_added_player_games" not in sql, sql
    finally:
        con.close()
    for report in ("players", "partnerships", "bidders"):
        got = stats.run_report_by_month(lake, report, RULES).to_pylist()
        assert got and got == stats.run_report_by_month(copy, report, RULES).to_pylist(), report
