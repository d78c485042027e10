"""`rebelote show` errors say what to do next (new-user trial, issue 4): an unknown game id names the closest ids
and the command that lists the lake's games (`rebelote games`); an unknown hand number gives the game's hands.

The lake (built here): native games g1 (hands 1 and 2) and g2 (hand 1) of source 'test' (tests/deals.py), so
game ids 'test:g1' and 'test:g2'."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths


def _lake(tmp_path):
    f = write_jsonl(tmp_path / "g.jsonl", [
        native_game("g1", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_L, 2, taker=0)]),
        native_game("g2", [native_hand(DEAL_K, 1, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    return lake


def _show(lake, *args):
    return CliRunner().invoke(app, ["show", "--lake", str(lake), *args])


def test_unknown_game_names_the_closest_ids_and_the_listing_command(tmp_path):
    lake = _lake(tmp_path)
    r = _show(lake, "--game", "test:g3")
    assert r.exit_code == 2
    # difflib's ratio: 'test:g3' is 2*6/14 = 0.86 like each of the two ids; equally alike, by name
    assert " ".join(r.stderr.split()) == (f"error: no game 'test:g3' in the lake {lake}; the closest game ids: "
                                          f"test:g1, test:g2 (`rebelote games --lake {lake}` lists the 2 games)")
    r = _show(lake, "--game", "nope")       # nothing like it: only the listing command
    assert " ".join(r.stderr.split()) == (f"error: no game 'nope' in the lake {lake} "
                                          f"(`rebelote games --lake {lake}` lists the 2 games)")


def test_unknown_hand_gives_the_games_hands(tmp_path):
    lake = _lake(tmp_path)
    r = _show(lake, "--game", "g1", "--hand", "99")
    assert r.exit_code == 2
    assert " ".join(r.stderr.split()) == "error: game 'test:g1' has no hand 99: its hands are 1..2"


def test_games_lists_the_lakes_games(tmp_path):
    lake = _lake(tmp_path)
    r = CliRunner().invoke(app, ["games", "--lake", str(lake), "--format", "csv"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith('"game_id","source","variant","n_hands"')
    assert [ln.split(",")[:4] for ln in lines[1:]] == [['"test:g1"', '"test"', '"belote"', "2"],
                                                       ['"test:g2"', '"test"', '"belote"', "1"]]
