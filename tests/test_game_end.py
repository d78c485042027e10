"""Game-level rules of issue #3: who receives a held litige (game.litige_to), equal totals over the target
(game.end_tie) and a win on belote points alone (game.no_win_on_belote_alone), per rules.md R29 / R36.

Two layers: the game pass on hand-written ``scores`` rows (the expected totals are sums done by hand), and the
hostile tester's reproductions (tests/fixtures/game_end/, copies of /tmp/b5/repro/g-*.jsonl) scored end to end.
"""

import json
from pathlib import Path

import pyarrow as pa
import pytest

from helpers import game_results, score
from pipeline import rules
from pipeline.rescore.game import game_pass
from pipeline.stats.show_game import unfinished_reason

FIXTURES = Path(__file__).parent / "fixtures" / "game_end"


def _rows(hands, game_id="g"):
    """``scores`` rows for one game: each hand is (hand_score, held_points, litige, taker_team, contract_made,
    capot_team)."""
    n = len(hands)
    return pa.table({
        "game_id": pa.array([game_id] * n), "hand_no": pa.array(range(1, n + 1), type=pa.int32()),
        "source": pa.array(["t"] * n), "status": pa.array(["scored"] * n),
        "hand_score": pa.array([h[0] for h in hands], type=pa.list_(pa.int32())),
        "held_points": pa.array([h[1] for h in hands], type=pa.int32()),
        "litige": pa.array([h[2] for h in hands]), "taker_team": pa.array([h[3] for h in hands], type=pa.int8()),
        "contract_made": pa.array([h[4] for h in hands], type=pa.bool_()),
        "capot_team": pa.array([h[5] for h in hands], type=pa.int8())})


def _game(ruleset, hands):
    (g,) = game_pass(_rows(hands), rules.load(ruleset)).to_pylist()
    return g


def _fixture(name, game_id):
    for line in (FIXTURES / name).read_text().splitlines():
        g = json.loads(line)
        if g["source_game_id"] == game_id:
            return g
    raise LookupError(game_id)


# A litige (81 held for team 0's takers), then team 0 fails (defence 162), then team 0 makes 135-47.
LITIGE_FAIL_MADE = [([0, 81], 81, True, 0, None, None), ([0, 162], 0, False, 0, False, None),
                    ([135, 47], 0, False, 0, True, None)]


def test_litige_to_next_made_contract_waits_past_a_failed_contract():
    # FFB-B16 §10.1.3 (rules.md R29): the 81 go to the team that makes the next contract, team 0 at hand 3:
    # team 0 = 0 + 0 + 135 + 81 = 216, team 1 = 81 + 162 + 47 = 290
    g = _game("ffb-classic", LITIGE_FAIL_MADE)
    assert g["totals"] == [216, 290] and g["unresolved_held"] == 0


def test_litige_to_next_hand_winner_goes_to_the_defence_that_beat_a_failed_contract():
    # seed 000 (belote-classic): the winner of the next hand, the defence of hand 2: team 1 = 81 + 162 + 81 + 47
    g = _game("belote-classic", LITIGE_FAIL_MADE)
    assert g["totals"] == [135, 371] and g["unresolved_held"] == 0


def test_litige_next_made_contract_still_held_when_no_contract_is_made():
    # only the litige and the failed hand: nothing made, the 81 stay held
    g = _game("ffb-coinche-2015", LITIGE_FAIL_MADE[:2])
    assert g["totals"] == [0, 243] and g["unresolved_held"] == 81


def test_ffb_litige_repro_end_to_end():
    # /tmp/b5/repro/g-ffb.jsonl: hand 1 81-81, hand 2 failed 0-162, hand 3 made 135-47 (issue #3 item 2)
    (g,) = game_results("ffb-classic", _fixture("g-ffb.jsonl", "ffblit"))
    assert g["totals"] == [216, 290] and g["winner"] is None


# team 0 at 1990 fails a contract scoring only its belote 20; the defence scores 290 (FFB-Co15 §10.3)
BELOTE_ALONE = [([1990, 0], 0, False, 0, True, None), ([20, 290], 0, False, 0, False, None)]


def test_no_win_on_belote_alone_after_a_failed_contract():
    # 1990 + 20 = 2010 >= 2000, but without the belote 1990 < 2000: the game goes on
    g = _game("ffb-coinche-2015", BELOTE_ALONE)
    assert g["totals"] == [2010, 290] and g["winner"] is None and g["ended_at_hand"] is None


def test_win_on_belote_allowed_where_the_rule_is_absent():
    # pagat-coinche has no such rule: 2010 >= 2000 ends the game at hand 2
    g = _game("pagat-coinche", BELOTE_ALONE)
    assert (g["winner"], g["ended_at_hand"], g["totals_at_end"]) == (0, 2, [2010, 290])


def test_no_win_on_belote_alone_when_capot():
    # team 1 made a capot against team 0, which keeps only its belote 20: 1990 + 20 cannot win
    g = _game("ffb-coinche-2015", [([1990, 0], 0, False, 0, True, None), ([20, 500], 0, False, 1, True, 1)])
    assert g["totals"] == [2010, 500] and g["winner"] is None


def test_belote_alone_only_for_the_failed_takers():
    # team 0 at 2010 ties team 1 (play on); team 0 then fails, keeping its belote 20, while team 1 scores 0
    # (a made-up row): 2030 vs 2010; without the 20 team 0 has 2010, tied, so it would not win: blocked
    g = _game("ffb-coinche-2015", [([2010, 2010], 0, False, 0, True, None), ([20, 0], 0, False, 0, False, None)])
    assert g["winner"] is None
    # the same 20 scored as the defence of team 1's failed contract is not a belote-only score: team 0 wins
    g = _game("ffb-coinche-2015", [([2010, 2010], 0, False, 0, True, None), ([20, 0], 0, False, 1, False, None)])
    assert (g["winner"], g["ended_at_hand"], g["totals_at_end"]) == (0, 2, [2030, 2010])


def test_co15_repro_end_to_end():
    # /tmp/b5/repro/g-co15.jsonl: 350, 1640, then team 0 fails its 110 D keeping its belote 20: [2010, 290]
    (g,) = game_results("ffb-coinche-2015", _fixture("g-co15.jsonl", "co15belote"))
    assert g["totals"] == [2010, 290] and g["winner"] is None
    last = score("ffb-coinche-2015", _fixture("g-co15.jsonl", "co15belote"))[-1]
    text, param = unfinished_reason(g["totals"], 2000, last, rules.load("ffb-coinche-2015"))
    assert param == "game.no_win_on_belote_alone"
    assert text == ("not finished: team 0 reached 2010 on hand 3, where it failed its contract: it cannot win on "
                    "the 20 points it kept (its belote) alone: play on")


# both teams end at 2010 on a hand that team 1 won as the takers
TIE = [([1950, 1730], 0, False, 0, True, None), ([60, 280], 0, False, 1, True, None)]


def test_end_tie_latest_deal_winner():
    # PAGAT-C (rules.md R36): equal totals over the target -> the winners of the latest deal (team 1)
    g = _game("pagat-coinche", TIE)
    assert (g["winner"], g["ended_at_hand"], g["totals_at_end"]) == (1, 2, [2010, 2010])


def test_end_tie_latest_deal_winner_defence():
    # team 0's contract failed on the tying hand: the defence, team 1, won it and wins the game
    g = _game("pagat-coinche", [([1950, 1730], 0, False, 0, True, None), ([60, 280], 0, False, 0, False, None)])
    assert (g["winner"], g["ended_at_hand"]) == (1, 2)


@pytest.mark.parametrize("ruleset, target", [("ffb-coinche-2015", 2000), ("coinche-cli", 1000)])
def test_end_tie_play_on(ruleset, target):
    # FFB-Co15 §10.3 and coinche-cli FORMAT.md 'End of game': equal -> another deal; the next one decides.
    # totals: target+10 each after hand 2, then the defence's 160 makes team 1 target+170
    d = 2000 - target
    hands = [([1950 - d, 1730 - d], 0, False, 0, True, None), ([60, 280], 0, False, 1, True, None),
             ([0, 160], 0, False, 0, False, None)]
    g = _game(ruleset, hands)
    assert (g["winner"], g["ended_at_hand"], g["totals_at_end"]) == (1, 3, [target + 10, target + 170])


def test_pagat_tie_repro_end_to_end():
    # /tmp/b5/repro/g-pagat.jsonl: [2010, 2010] after hand 8, which team 1 made (130, 60-280)
    (g,) = game_results("pagat-coinche", _fixture("g-pagat.jsonl", "pagattie"))
    assert (g["winner"], g["ended_at_hand"], g["totals_at_end"]) == (1, 8, [2010, 2010])


def test_classic_equal_totals_repro_says_why():
    # /tmp/b5/repro/g-end.jsonl: belote-classic ends at [1030, 1030]: FFB-B16 §10.4.2, equal -> new deal(s)
    (g,) = game_results("belote-classic", _fixture("g-end.jsonl", "bothequal"))
    assert g["totals"] == [1030, 1030] and g["winner"] is None
    text, param = unfinished_reason(g["totals"], 1000, None, rules.load("belote-classic"))
    assert (text, param) == ("not finished: team 0 and team 1 reached 1000 with equal totals (1030): play on",
                             "game.end_tie")


def test_end_tie_option_is_validated(tmp_path):
    p = tmp_path / "house.toml"
    p.write_text('name = "house"\nextends = "base"\n[game]\nend_tie = "draw"\n')
    with pytest.raises(rules.RulesetError, match="game.end_tie = 'draw' is not supported"):
        rules.load(p)


def test_target_strict_needs_a_total_over_the_target(tmp_path):
    """game.target_strict (new: FFB-B16 §10.4 ends the game when a team reaches the target, BGA's engine only when a
    score is strictly greater, bga.md §7 option 100). Target 2000: hand 1 [2000, 100] reaches it exactly; hand 2
    [90, 80] takes team 0 over: [2090, 180]. At or above (default): over at hand 1; strictly (bga-coinche): at
    hand 2, and show says why hand 1 did not end it."""
    hands = [([2000, 100], 0, False, 0, True, None), ([90, 80], 0, False, 0, True, None)]
    house = tmp_path / "reach.toml"
    house.write_text('name = "reach"\nextends = "pagat-coinche"\n')      # pagat-coinche: target 2000, not strict
    g = _game(str(house), hands)
    assert (g["ended_at_hand"], g["winner"], g["totals_at_end"]) == (1, 0, [2000, 100])
    assert rules.load("bga-coinche")["game.target_strict"] is True
    house.write_text('name = "reach"\nextends = "pagat-coinche"\n[game]\ntarget_strict = true\n')
    g = _game(str(house), hands)
    assert (g["ended_at_hand"], g["winner"], g["totals_at_end"]) == (2, 0, [2090, 180])
    g = _game(str(house), hands[:1])
    assert g["ended_at_hand"] is None and g["winner"] is None
    assert unfinished_reason([2000, 100], 2000, None, rules.load(str(house))) == (
        "not finished: 2000 reaches the target 2000 without going over it", "game.target_strict")
