"""--on-error lenient (pipeline/formats/lenient.py): damaged hands kept at the completeness their data supports.

Ground truth: each damaged record is cut or spoiled from a complete, legal deal of tests/deals.py, so the
expected repaired hand is the original one (a forced last trick) or the original minus what was spoiled.
"""

import copy

import orjson
import pytest

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline.storage import lake as lakemod
from pipeline.cards import parse_card
from pipeline.ingest.run import ingest_paths


def _hands(lake):
    return {(h["game_id"], h["hand_no"]): h for h in lakemod.read(lake, "hands").to_pylist()}


@pytest.mark.parametrize("deal", [DEAL_A, DEAL_K, DEAL_L], ids=["A", "K", "L"])
@pytest.mark.parametrize("missing", [1, 3, 4])
def test_truncated_last_trick_is_completed_with_the_forced_cards(tmp_path, deal, missing):
    # With 1 to 4 cards of the last trick missing, each seat that has not played holds exactly one card; the
    # order follows the turn (or, with the whole trick missing, the previous trick's winner leads). The
    # completed record must be the original one, card for card.
    full = native_game("t", [native_hand(deal, 1, taker=0)])
    cut = copy.deepcopy(full)
    cut["hands"][0]["plays"] = cut["hands"][0]["plays"][:-missing]
    f = write_jsonl(tmp_path / "cut.jsonl", [cut])
    kept = []
    s = ingest_paths([f], tmp_path / "lake", lenient=True, on_repair=kept.append)
    assert (s.games, s.hands, s.kept_leniently, sum(s.rejected.values())) == (1, 1, 1, 0)
    h = _hands(tmp_path / "lake")[("test:t", 1)]
    assert h["completeness"] == "full_play"
    assert h["plays"] == [parse_card(c) for _, c in full["hands"][0]["plays"]]
    assert h["play_seats"] == [s for s, _ in full["hands"][0]["plays"]]
    assert len(h["errors"]) == 1 and h["errors"][0].startswith("truncated_play: ")
    (rep,) = kept
    assert rep.code == "truncated_play" and "last trick completed" in rep.message()
    assert rep.message().startswith(f"{f}:1, game test:t, hand 1: ")


def test_damaged_hands_are_kept_at_summary_level_and_the_rest_of_the_game_stays_whole(tmp_path):
    twice = native_hand(DEAL_A, 1, taker=0, recorded=[92, 70])
    twice["plays"][5] = [1, "7H"]                       # 7H was played in trick 1 already
    seven = native_hand(DEAL_K, 2, taker=1, recorded=[0, 162])
    seven["hands"][3] = seven["hands"][3][:7]           # a 7-card hand
    fine = native_hand(DEAL_L, 3, taker=2)
    early = native_hand(DEAL_K, 4, taker=0)
    early["plays"] = early["plays"][:20]                # stops in trick 5: the plays cannot be completed
    game = native_game("d", [twice, seven, fine, early])
    f = write_jsonl(tmp_path / "d.jsonl", [game])
    skip = ingest_paths([f], tmp_path / "skip")          # default: the whole game goes to rejects
    assert (skip.games, skip.hands, dict(skip.rejected)) == (0, 0, {"card_played_twice": 1})

    s = ingest_paths([f], tmp_path / "lake", lenient=True)
    assert (s.games, s.hands, s.kept_leniently, sum(s.rejected.values())) == (1, 4, 3, 0)
    assert "3 damaged hands kept (lenient)" in str(s)
    h = _hands(tmp_path / "lake")
    one, two, three, four = (h[("test:d", i)] for i in (1, 2, 3, 4))
    # hand 1: plays dropped, deal and recorded score kept
    assert (one["completeness"], one["plays"], one["play_seats"]) == ("summary", None, None)
    assert len(one["initial_hands"]) == 4 and one["recorded_score"] == [92, 70] and one["taker"] == 0
    assert "card_played_twice: play 6 (trick 2): 7H was already played" in one["errors"][0]
    # hand 2: the deal is unusable: hands and plays dropped
    assert (two["completeness"], two["initial_hands"], two["plays"]) == ("summary", None, None)
    assert two["recorded_score"] == [0, 162] and "wrong_hand_size" in two["errors"][0]
    # hand 3 untouched; hand 4: 20 of 32 cards, not only the last trick missing: summary
    assert (three["completeness"], three["errors"]) == ("full_play", [])
    assert (four["completeness"], four["plays"]) == ("summary", None)
    assert four["errors"][0].startswith("truncated_play: 20 cards played, expected 32")


def test_what_cannot_be_kept_honestly_is_still_rejected(tmp_path):
    bad = native_hand(DEAL_A, 1, taker=0)
    bad["contract"] = None                               # cards played but no contract: nothing honest to keep
    f = write_jsonl(tmp_path / "n.jsonl", [native_game("n", [bad])])
    s = ingest_paths([f], tmp_path / "lake", lenient=True)
    assert (s.games, s.hands, s.kept_leniently) == (0, 0, 0)
    assert dict(s.rejected) == {"no_contract": 1}


def test_cli_on_error_lenient(tmp_path):
    from typer.testing import CliRunner
    from pipeline.cli import app

    cut = native_game("c", [native_hand(DEAL_A, 1, taker=0)])
    cut["hands"][0]["plays"] = cut["hands"][0]["plays"][:-2]
    f = tmp_path / "c.jsonl"
    f.write_bytes(orjson.dumps(cut) + b"\n")
    r = CliRunner().invoke(app, ["ingest", str(f), "--lake", str(tmp_path / "lake"), "--on-error", "lenient"])
    assert r.exit_code == 0, r.output
    assert "kept" in r.output and "1 damaged hand kept (lenient)" in r.output
    r = CliRunner().invoke(app, ["ingest", str(f), "--lake", str(tmp_path / "l2"), "--strict", "--on-error", "lenient"])
    assert r.exit_code == 2 and "contradicts" in r.output


def test_show_says_what_lenient_did(tmp_path):
    from typer.testing import CliRunner
    from pipeline.cli import app

    twice = native_hand(DEAL_A, 1, taker=0, recorded=[92, 70])
    twice["plays"][5] = [1, "7H"]
    f = write_jsonl(tmp_path / "t.jsonl", [native_game("s", [twice])])
    lake = str(tmp_path / "lake")
    ingest_paths([f], tmp_path / "lake", lenient=True)
    r = CliRunner().invoke(app, ["show", "--game", "test:s", "--hand", "1", "--rules", "belote-classic", "--lake", lake])
    assert r.exit_code == 0, r.output
    assert "Record" in r.output and "summary" in r.output and "card_played_twice" in r.output
