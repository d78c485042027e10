"""`rebelote show`: whole-text golden files for hand-computed deals (one per ruleset family), the JSON form's
totals against the scores table for every hand of a simulated lake, and the CLI.

The golden files were generated once and read line by line against tests/deals.py's arithmetic (card points
92-70, belote 20 to team 1, etc.); regenerate with REBELOTE_REGEN_GOLDEN=1 only after such a review.
"""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline import lake as lakemod, native, rules
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.show import explain, render
from pipeline.simulate import simulate

GOLDEN = Path(__file__).parent / "golden"


def rows_of(game):
    return native.game_to_rows(game, "rebelote", "<test>", None)[1]


CASES = {
    # French classic: DEAL_A taken by seat 0 (made 92-90 with the defence's belote); DEAL_L: a litige
    "show_classic_made": (native_game("a", [native_hand(DEAL_A, 1, taker=0)]), ["belote-classic"]),
    "show_classic_litige": (native_game("l", [native_hand(DEAL_L, 1, taker=0)]), ["belote-classic"]),
    # contrée: DEAL_A, 80 hearts coinched by the defence, made: 162 + 80 x 2 + 20 = 342, against FFB contrée 2016
    "show_coinche_compare": (native_game("c", [native_hand(DEAL_A, 1, taker=0, bid=80, coinche=1)], variant="coinche"),
                             ["colver", "ffb-contree-2016"]),
    # Bulgarian: DEAL_K (a valat) as a hearts contract under the 2001 rules
    "show_bulgarian_valat": (native_game("b", [native_hand(DEAL_K, 1, taker=0)], variant="bulgarian"), ["bulgarian-2001"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_breakdowns(name):
    game, names = CASES[name]
    (hand,) = rows_of(game)
    text = render([explain(hand, rules.load(r)) for r in names]) + "\n"
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("REBELOTE_REGEN_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_json_totals_equal_the_scores_table(tmp_path):
    r = rules.load("belote-classic")
    f = write_jsonl(tmp_path / "sim.jsonl", list(simulate(r, 8, 3)))
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, r)
    scores = {s["hand_key"]: s["hand_score"] for s in lakemod.read(lake, "scores").to_pylist()}
    hands = lakemod.read(lake, "hands").to_pylist()
    assert len(hands) > 50
    for h in hands:
        assert explain(h, r)["score"] == scores[h["hand_key"]]


def test_cli(tmp_path):
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0),
                                                              native_hand(DEAL_L, 2, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    runner = CliRunner()
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--hand", "1"])
    assert r.exit_code == 0, r.output
    assert "hand score: 92 - 90" in r.stdout and "[belote-classic]" in r.stdout
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "test:g1", "--format", "json", "--rules", "ffb-classic"])
    data = json.loads(r.stdout)
    assert [[b["score"] for b in hand] for hand in data[:2]] == [[[92, 90]], [[0, 81]]]
    # the game summary: hand 2 is a litige (81 held, pending after the last hand): totals 92 - 171
    assert data[2][0]["totals"] == [92, 171] and data[2][0]["winner"] is None
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1"])
    assert "hand 2: [0, 81], 81 held -> totals [92, 171] (pending 81)" in r.stdout
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "nope"])
    assert r.exit_code == 2 and "no game 'nope'" in r.stderr
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--hand", "7"])
    assert r.exit_code == 2 and "has no hand 7" in r.stderr
