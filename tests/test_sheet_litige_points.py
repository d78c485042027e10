"""A score sheet's litige: the points it held go to the team the sheet's running totals give them to, in
``game_scores`` totals, in ``show``'s running totals and in the players' ``points`` (new-user trial, issue 1).

The sheet below (written for this test, layout of docs/scoresheet-csv.md), by hand:
  hand 1: Ben (team B) takes hearts, litige: the defence (team A) writes 81, team B's 81 are held -> 81 - 0;
  hand 2: Ana (team A) takes spades and makes it 100 - 62; the sheet's totals add the 81 held to team A:
          81 + 100 + 81 = 262 and 0 + 62 = 62 (the sheet's own total_a/total_b);
  hand 3: Dan (team B) takes clubs and makes it 40 - 122: 262 + 40 = 302 and 62 + 122 = 184.
So team A (Ana, Cat) has 302 points, as the sheet's last totals say, team B (Ben, Dan) 184; hand 2 counts
181 - 62 for the team that received the held points.
"""

import re

from typer.testing import CliRunner

from pipeline import rules

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake

SHEET = ("game_id,hand_no,variant,player1,player2,player3,player4,dealer,taker,strain,made,score_a,score_b,"
         "total_a,total_b\n"
         "g,1,belote,Ana,Ben,Cat,Dan,Ana,Ben,H,litige,81,0,81,0\n"
         "g,2,,,,,,,Ana,S,yes,100,62,262,62\n"
         "g,3,,,,,,,Dan,C,yes,40,122,302,184\n")


def _lake(tmp_path):
    f = tmp_path / "sheet.csv"
    f.write_text(SHEET, encoding="utf-8")
    lake = tmp_path / "lake"
    assert ingest_paths([f], lake).hands == 3
    return lake


def test_litige_points_count_in_game_totals_and_players_points(tmp_path):
    lake = _lake(tmp_path)
    for derived in (True, False):
        rescore_lake(lake, rules.load("belote-classic"), derived=derived)
        (g,) = lakemod.read(lake, "game_scores").to_pylist()
        # the sheet's final totals (line 4): 302 - 184, nothing left held
        assert (g["totals"], g["unresolved_held"]) == ([302, 184], 0)
        rows = stats.run_report(lake, "players", "belote-classic").to_pylist()
        assert {r["player"]: r["points"] for r in rows} == {"Ana": 302, "Cat": 302, "Ben": 184, "Dan": 184}
    # the stored hand keeps the sheet's own cells (score_a, score_b before the carry-over)
    hands = sorted(lakemod.read(lake, "hands").to_pylist(), key=lambda h: h["hand_no"])
    assert [h["recorded_score"] for h in hands] == [[81, 0], [100, 62], [40, 122]]


def test_show_totals_agree_with_the_sheet_and_name_the_carried_points(tmp_path):
    lake = _lake(tmp_path)
    rescore_lake(lake, rules.load("belote-classic"))
    r = CliRunner().invoke(app, ["show", "--game", "scoresheet:g", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    lines = [ln.strip() for ln in r.output.splitlines() if re.match(r"\s*hand \d+:", ln)]
    assert lines[1] == ("hand 2: [100, 62] as recorded + 81 held by a litige to team 0 (the source's running totals "
                        "add them) = [181, 62] (summary hands carry no cards: nothing to rescore) -> totals [262, 62] "
                        "(recorded [262, 62])   [game.litige_to]")
    # the running totals agree with the sheet's own (printed as "recorded") on every hand
    assert lines[2].endswith("-> totals [302, 184] (recorded [302, 184])   [game.litige_to]")


def _native_summary_game(tmp_path, numbers):
    """A native game of two summary hands numbered ``numbers``: a litige (team 0 took, its 80 held: 0 - 80,
    totals 0 - 80), then team 1 makes 162 and its totals add the 80 held: 0 - 322 (80 + 162 + 80)."""
    import json

    def summary(no, taker, score, totals):
        return {"hand_no": no, "dealer": 3, "completeness": "summary", "hands": None, "auction": [],
                "contract": {"taker": taker, "strain": "H", "bid": None, "capot_bid": False, "coinche": 0},
                "plays": None, "recorded": {"score": score, "totals": totals}}
    game = {"format": "rebelote", "version": 1, "source": "t", "source_game_id": "g", "variant": "belote",
            "n_players": 4, "players": ["A", "B", "C", "D"],
            "hands": [summary(numbers[0], 0, [0, 80], [0, 80]), summary(numbers[1], 1, [0, 162], [0, 322])]}
    tmp_path.mkdir()
    f = tmp_path / "g.jsonl"
    f.write_text(json.dumps(game) + "\n")
    assert ingest_paths([f], tmp_path / "lake").hands == 2
    return tmp_path / "lake"


def test_litige_carry_of_summary_hands_not_numbered_from_one(tmp_path):
    # a record that starts at hand 2, or skips a number (a hand not kept), is summary-level throughout: the totals'
    # 80 held still count on the hand that adds them (0 + 80 + 162 + 80 = 322, the record's own last totals).
    # summary_points tested "every earlier hand is summary" as row_number = hand_no: the carry was lost (242).
    for numbers in ((2, 3), (1, 3)):
        lake = _native_summary_game(tmp_path / f"n{numbers[0]}{numbers[1]}", numbers)
        rescore_lake(lake, rules.load("belote-classic"))
        (g,) = lakemod.read(lake, "game_scores").to_pylist()
        assert g["totals"] == [0, 322], numbers
        rows = stats.run_report(lake, "players", "belote-classic").to_pylist()
        assert {r["player"]: r["points"] for r in rows} == {"A": 0, "C": 0, "B": 322, "D": 322}, numbers


def test_totals_that_are_no_litige_carry_are_not_read_as_one(tmp_path):
    # A native summary record whose totals differ from the running sum in a way no litige gives (held points go to
    # one team, the winners of a later hand, and are positive): a 20-point penalty on team 0 at hand 2 (totals
    # 180 - 124 after [100, 62] twice), and a game resumed with totals already 500 - 562 at hand 1. show said
    # "+ -20 held by a litige to team 0" and "400 held by a litige to team 0 and 500 held by a litige to team 1".
    # Only a litige carry is read from the totals: these hands count their recorded scores, 200 - 124 each game.
    import json

    def summary(no, score, totals):
        return {"hand_no": no, "dealer": 3, "completeness": "summary", "hands": None, "auction": [],
                "contract": {"taker": no % 2, "strain": "H", "bid": None, "capot_bid": False, "coinche": 0},
                "plays": None, "recorded": {"score": score, "totals": totals}}
    games = [{"format": "rebelote", "version": 1, "source": "t", "source_game_id": gid, "variant": "belote",
              "n_players": 4, "players": ["A", "B", "C", "D"], "hands": hands}
             for gid, hands in (("penalty", [summary(1, [100, 62], [100, 62]), summary(2, [100, 62], [180, 124])]),
                                ("resumed", [summary(1, [100, 62], [500, 562]), summary(2, [100, 62], [600, 624])]))]
    f = tmp_path / "g.jsonl"
    f.write_text("".join(json.dumps(g) + "\n" for g in games))
    lake = tmp_path / "lake"
    assert ingest_paths([f], lake).hands == 4
    rescore_lake(lake, rules.load("belote-classic"))
    assert {g["game_id"]: g["totals"] for g in lakemod.read(lake, "game_scores").to_pylist()} == \
        {"t:penalty": [200, 124], "t:resumed": [200, 124]}
    for gid in ("t:penalty", "t:resumed"):
        r = CliRunner().invoke(app, ["show", "--game", gid, "--rules", "belote-classic", "--lake", str(lake)])
        assert r.exit_code == 0 and "held by a litige" not in r.output, r.output
