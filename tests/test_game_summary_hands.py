"""Hostile finding (issue #4): hands kept at summary level by ``--on-error lenient`` counted 0-0 in
``game_scores``, while the reports count their recorded score. The game pass now counts a summary hand's recorded
score, as it does for a score sheet's hands (tests/test_ingest_scoresheets.py), and ``show`` says so.

The game, under belote-classic (values by hand, deals from tests/deals.py):
  hand 1: DEAL_A coinched: belote-classic has no coinche, so unscorable, 0-0;
  hand 2: DEAL_K, seat 0 capot in hearts: 252 (capot, FFB-B16 §9.2) + 20 belote (seat 2, team 0) = 272-0;
  hand 3: DEAL_A with a card played twice, recorded [92, 90]: kept at summary level, counts 92-90.
  Totals: 0 + 272 + 92 = 364 and 0 + 0 + 90 = 90, under the target of 1000: no winner.
"""

import re

from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, native_game, native_hand
from pipeline import rules
from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake


def _lake(tmp_path):
    coinched = native_hand(DEAL_A, 1, taker=0, coinche=1)
    capot = native_hand(DEAL_K, 2, taker=0)
    twice = native_hand(DEAL_A, 3, taker=0, recorded=[92, 90])
    twice["plays"][5] = [1, "7H"]                      # 7H was played in trick 1 already
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("g", [coinched, capot, twice])])
    s = ingest_paths([f], tmp_path / "lake", lenient=True)
    assert (s.games, s.hands, s.kept_leniently) == (1, 3, 1)
    return tmp_path / "lake"


def test_lenient_summary_hand_counts_its_recorded_score_in_game_scores(tmp_path):
    lake = _lake(tmp_path)
    for derived in (True, False):
        rescore_lake(lake, rules.load("belote-classic"), derived=derived)
        (g,) = lakemod.read(lake, "game_scores").to_pylist()
        assert (g["n_hands"], g["unscorable_hands"], g["totals"], g["winner"], g["unresolved_held"]) == \
            (3, 2, [364, 90], None, 0)


def test_show_prints_why_a_hand_is_not_rescored_instead_of_none(tmp_path):
    lake = _lake(tmp_path)
    r = CliRunner().invoke(app, ["show", "--game", "test:g", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert "None" not in r.output
    lines = [ln.strip() for ln in r.output.splitlines() if re.match(r"\s*hand \d+:", ln)]
    assert lines == [
        "hand 1: counts 0 - 0: unscorable (ruleset belote-classic has no coinche and no capot bid (auction.style: "
        "prise)) -> totals [0, 0]   [game.litige_to]",
        "hand 2: [272, 0] -> totals [272, 0]   [game.litige_to]",
        "hand 3: [92, 90] as recorded (summary hands carry no cards: nothing to rescore) -> totals [364, 90]   "
        "[game.litige_to]",
    ]


def test_summary_hand_without_contract_counts_its_recorded_score_in_game_scores(tmp_path):
    # A summary-level hand nobody took but whose source recorded a score: carg's special rounds (misère, misdeal,
    # foul play: "only its score counts", pipeline/formats/carg_json.py) give taker None and the round's score.
    # The engine calls it passed out (0 - 0), but its recorded score is what the game's totals hold, as the reports
    # (player_facts: coalesce(recorded_score, hand_score) for summary hands) and the source's totals count it.
    #   hand 1: DEAL_K, seat 0 capot in hearts: 252 + 20 belote = 272 - 0 (as in _lake above);
    #   hand 2: summary, no contract, recorded [0, 160] (a foul-play penalty to team 1): counts 0 - 160.
    #   Totals: 272 - 160 (target 1000: no winner).
    capot = native_hand(DEAL_K, 1, taker=0)
    foul = {"hand_no": 2, "dealer": 0, "completeness": "summary", "hands": None, "auction": [], "contract": None,
            "plays": None, "recorded": {"score": [0, 160]}}
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("f", [capot, foul])])
    assert ingest_paths([f], tmp_path / "lake").hands == 2
    lake = tmp_path / "lake"
    for derived in (True, False):
        rescore_lake(lake, rules.load("belote-classic"), derived=derived)
        (g,) = lakemod.read(lake, "game_scores").to_pylist()
        assert (g["n_hands"], g["totals"], g["winner"]) == (2, [272, 160], None)
    # show's game view says what the totals count for it (it printed [0, 0] while the totals moved by 160)
    r = CliRunner().invoke(app, ["show", "--game", "test:f", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    lines = [ln.strip() for ln in r.output.splitlines() if re.match(r"\s*hand \d+:", ln)]
    assert lines == [
        "hand 1: [272, 0] -> totals [272, 0]   [game.litige_to]",
        "hand 2: [0, 160] as recorded (passed out: a summary hand nobody took counts the score its source recorded)"
        " -> totals [272, 160]   [game.litige_to]",
    ]
    # ... and so does its own view (it said "no contract: 0 - 0")
    r = CliRunner().invoke(app, ["show", "--game", "test:f", "--hand", "2", "--rules", "belote-classic",
                                 "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert ("passed out: no contract: counts 0 - 160 as recorded (a summary hand: its recorded score counts in the "
            "game)   [auction.style]") in [ln.strip() for ln in r.output.splitlines()]


def _three_player_sheet(tmp_path):
    """A 3-player summary game (one recorded score per player): hands [80, 0, 0] and [0, 50, 100]."""
    def summary(no, dealer, taker, score):
        return {"hand_no": no, "dealer": dealer, "completeness": "summary", "hands": None, "auction": [],
                "contract": {"taker": taker, "strain": "H", "bid": None, "capot_bid": False, "coinche": 0},
                "plays": None, "recorded": {"score": score}}
    game = {"format": "rebelote", "version": 1, "source": "test", "source_game_id": "three", "variant": "belote-3p",
            "n_players": 3, "players": ["A", "B", "C"], "hands": [summary(1, 2, 0, [80, 0, 0]),
                                                                 summary(2, 0, 2, [0, 50, 100])]}
    ingest_paths([write_jsonl(tmp_path / "three.jsonl", [game])], tmp_path / "lake")
    return tmp_path / "lake"


def test_players_note_leaves_out_summary_hands_unscorable_for_another_reason(tmp_path):
    # Under belote-classic the 3-player sheet's hands are unscorable as "for 4 players", not as summary hands, and
    # the note said they "add no points" while the players report counts their recorded scores: A 80, B 50,
    # C 100 (the two hands' scores by seat). Summary hands are left out of the note whatever the reason.
    lake = _three_player_sheet(tmp_path)
    rescore_lake(lake, rules.load("belote-classic"))
    r = CliRunner().invoke(app, ["stats", "players", "--rules", "belote-classic", "--format", "csv",
                                 "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert "unscorable" not in r.output
    rows = {ln.split(",")[1].strip('"'): ln.split(",")[11] for ln in r.output.splitlines()[1:] if ln.count(",") > 10}
    assert rows == {"A": "80", "B": "50", "C": "100"}


def test_show_of_a_three_player_summary_game_under_a_two_team_ruleset_counts_0_0(tmp_path):
    # A 3-player score sheet's hands (one recorded score per player) shown under belote-classic (2 teams): the game
    # pass cannot count a 3-value score for 2 teams and counts 0 - 0 (game_scores totals [0, 0]); show printed
    # "[80, 0, 0] as recorded ... -> totals [0, 0]", a score it said counted but did not add.
    lake = _three_player_sheet(tmp_path)
    r = CliRunner().invoke(app, ["show", "--game", "test:three", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    lines = [ln.strip() for ln in r.output.splitlines() if re.match(r"\s*hand \d+:", ln)]
    assert lines == [
        "hand 1: counts 0 - 0: unscorable (ruleset belote-classic is for 4 players; its recorded score [80, 0, 0] "
        "has 3 values, the ruleset 2 teams) -> totals [0, 0]   [game.litige_to]",
        "hand 2: counts 0 - 0: unscorable (ruleset belote-classic is for 4 players; its recorded score [0, 50, 100] "
        "has 3 values, the ruleset 2 teams) -> totals [0, 0]   [game.litige_to]",
    ]
