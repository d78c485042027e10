"""``rebelote stats REPORT --sort/--limit/--columns`` (issue 17: a report of 47 columns and thousands of rows had
no way to be cut to what fits). The expected rows come from the same report run whole, sorted here in Python."""

from __future__ import annotations

import csv
import io

import orjson
import pytest
from typer.testing import CliRunner

from pipeline import stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate import simulate


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    d = tmp_path_factory.mktemp("shape")
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(load("belote-classic"), 6, 4)) + b"\n")
    ingest_paths([f], d / "lake")
    rescore_lake(d / "lake", load("belote-classic"))
    return d / "lake"


def _csv(args) -> list[list[str]]:
    r = CliRunner().invoke(app, ["stats", *args, "--format", "csv"])
    assert r.exit_code == 0, r.output
    return list(csv.reader(io.StringIO(r.stdout)))


def test_sort_limit_and_columns(lake):
    whole = stats.run_report(lake, "players", "belote-classic").to_pylist()
    assert len(whole) >= 4
    want = sorted(whole, key=lambda r: (-r["hands"], r["player"]))[:3]
    rows = _csv(["players", "--lake", str(lake), "--sort=-hands", "--sort", "player", "--limit", "3",
                 "--columns", "player,hands,made_of"])
    assert rows == [["player", "hands", "made_of"]] + [[r["player"], str(r["hands"]), r["made_of"]] for r in want]
    # ascending by a text column, every column kept
    rows = _csv(["players", "--lake", str(lake), "--sort", "player"])
    assert [r[rows[0].index("player")] for r in rows[1:]] == sorted(r["player"] for r in whole)


def test_an_unknown_column_lists_the_report_columns(lake):
    r = CliRunner().invoke(app, ["stats", "players", "--lake", str(lake), "--columns", "player,takes"])
    assert r.exit_code == 2 and "no column 'takes' in this report; its columns: ruleset, player," in r.output
    r = CliRunner().invoke(app, ["stats", "players", "--lake", str(lake), "--sort", "-nope"])
    assert r.exit_code == 2 and "no column 'nope'" in r.output
