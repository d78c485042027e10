"""A reject lives as long as its file raises it: listed by `rebelote rejects`, reported (exit 1) while its file is
skipped unchanged, cleared when the file is fixed and read again. Found by a new-user trial: a fixed file's old
reject stayed in the table forever, and re-running ingest on the still-broken file exited 0."""

import json

import orjson
from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, native_game, native_hand
from pipeline.storage import lake as lakemod
from pipeline.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _games(broken: bool) -> list[dict]:
    g2 = native_game("g2", [native_hand(DEAL_K, 1, taker=0)])
    if broken:   # the second play repeats the first card: card_played_twice (trick 1, play 2)
        plays = g2["hands"][0]["plays"]
        plays[1] = [plays[1][0], plays[0][1]]
    return [native_game("g1", [native_hand(DEAL_A, 1, taker=0)]), g2]


def test_reject_reported_while_skipped_then_cleared_when_fixed(tmp_path):
    lake = tmp_path / "lake"
    path = write_jsonl(tmp_path / "games.jsonl", _games(broken=True))
    r = run("ingest", path, "--lake", lake, "-q")
    assert r.exit_code == 1 and "1 game, 1 hand" in r.stdout and "1 rejected (card_played_twice 1)" in r.stdout
    # unchanged file: skipped without reading, but its stored reject is still a problem of this import
    r = run("ingest", path, "--lake", lake, "-q")
    assert r.exit_code == 1, r.output
    assert "1 unchanged file skipped; 1 reject from earlier runs remain" in r.stdout
    r = run("rejects", "--lake", lake, "--format", "json")
    rows = json.loads(r.stdout)
    assert [(x["source_line"], x["game_id"], x["hand_no"], x["reason_code"]) for x in rows] == \
        [(2, "test:g2", 1, "card_played_twice")]
    assert rows[0]["source_file"] == str(path)
    # fixed: g2 is imported, its reject cleared, exit 0
    write_jsonl(path, _games(broken=False))
    r = run("ingest", path, "--lake", lake, "-q")
    assert r.exit_code == 0, r.output
    assert "1 game, 1 hand, 1 duplicate skipped, 0 rejected" in r.stdout
    assert "1 reject of changed files cleared" in r.stdout
    assert lakemod.read(lake, "rejects").num_rows == 0
    r = run("rejects", "--lake", lake)
    assert r.exit_code == 0 and "no rejects in the lake" in r.stdout


def test_a_reject_still_raised_by_the_changed_file_stays(tmp_path):
    lake = tmp_path / "lake"
    path = write_jsonl(tmp_path / "games.jsonl", _games(broken=True))
    run("ingest", path, "--lake", lake, "-q")
    # another game added to the file; g2 still broken: its reject (same key) stays, one row only
    games = _games(broken=True) + [native_game("g3", [native_hand(DEAL_A, 2, taker=1)])]
    write_jsonl(path, games)
    r = run("ingest", path, "--lake", lake, "-q")
    assert r.exit_code == 1 and "1 rejected (card_played_twice 1)" in r.stdout and "cleared" not in r.stdout
    assert lakemod.read(lake, "rejects").column("game_id").to_pylist() == ["test:g2"]


def test_rejects_filters(tmp_path):
    lake = tmp_path / "lake"
    bad = write_jsonl(tmp_path / "bad.jsonl", _games(broken=True))
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    run("ingest", bad, empty, "--lake", lake, "-q")
    r = run("rejects", "--lake", lake, "--format", "json")
    assert sorted(x["reason_code"] for x in json.loads(r.stdout)) == ["card_played_twice", "empty_file"]
    r = run("rejects", "--lake", lake, "--reason", "empty_file", "--format", "json")
    assert [x["source_file"] for x in json.loads(r.stdout)] == [str(empty)]
    r = run("rejects", "--lake", lake, "--file", "bad.jsonl", "--format", "json")
    assert [x["game_id"] for x in json.loads(r.stdout)] == ["test:g2"]
    r = run("rejects", "--lake", lake, "--reason", "unknown_card")
    assert "no rejects match the filters" in r.stdout
    assert orjson.loads(run("rejects", "--lake", lake, "--raw", "--format", "json").stdout)[0]["raw"] is not None
