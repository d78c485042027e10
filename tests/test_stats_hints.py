"""What `rebelote stats` tells a user whose report comes out empty or stale (found by a new user's trial): the
double-dummy reports say they read `rebelote analyse`'s table, and the rescore a stale house ruleset needs names
its file."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate


def _lake(tmp_path, seed: int = 1):
    f = tmp_path / f"g{seed}.jsonl"
    objs = list(simulate(load("belote-classic"), 2, seed))
    for g in objs:
        g["game_id"] = f"{g['game_id']}-s{seed}"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in objs) + b"\n")
    ingest_paths([f], tmp_path / "lake")
    return tmp_path / "lake"


def test_a_double_dummy_report_before_analyse_says_to_run_it(tmp_path):
    lake = _lake(tmp_path)
    rescore_lake(lake, load("belote-classic"))
    r = CliRunner().invoke(app, ["stats", "dd-players", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 0
    assert "run `rebelote analyse` first" in r.stderr
    r = CliRunner().invoke(app, ["stats", "audit", "--rules", "belote-classic", "--lake", str(lake)])
    assert "analyse" not in r.stderr


def test_the_warning_on_a_stale_house_ruleset_names_its_file(tmp_path, monkeypatch):
    lake = _lake(tmp_path)
    (tmp_path / "my-club.toml").write_text('extends = "belote-classic"\n[game]\ntarget = 501\n')
    monkeypatch.chdir(tmp_path)
    rescore_lake(lake, load("my-club.toml"))
    _lake(tmp_path, 2)      # more hands, not scored under my-club
    # by its stored name (as `status` lists it) the report reads the scores as they stand and warns; the rescore
    # it names must be one that runs: the file, not the bare name
    r = CliRunner().invoke(app, ["stats", "players", "--rules", "my-club", "--lake", str(lake)])
    assert "`rebelote rescore --rules my-club.toml`" in r.stderr, r.stderr
