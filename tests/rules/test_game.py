"""[rounding] and [game]: rounding of hand scores, and the game pass (target, litige carry-over, end of game).

Hands recorded as tricks taken (harness splits), hearts trump, team 0 takes unless said. Per hand (base):
SPLIT_102_60 made -> [102, 60]; SPLIT_81_81 litige -> [0, 81], 81 held; SPLIT_30_132 failed -> [0, 162];
CAPOT_0 -> [252, 0]. ``game`` gives the game_scores row: totals, ended_at_hand, winner, unresolved_held.
"""

import pytest

from .harness import (CAPOT_0, SPLIT_30_132, SPLIT_81_81, SPLIT_82_80, SPLIT_85_77, SPLIT_102_60, STD4, game,
                      hand, ruleset, score1)
from .test_belote import BEL0
from .test_double import BEL1

pytestmark = pytest.mark.rules

MADE = hand(STD4, **SPLIT_102_60)


def end(row):
    return row["totals"], row["ended_at_hand"], row["winner"]


@pytest.mark.covers("rounding.mode")
def test_rounding_mode():
    h = hand(STD4, **SPLIT_85_77)          # made, 85 vs 77
    assert score1(ruleset("base"), h)["hand_score"] == [85, 77]                          # "none" (FFB-B16)
    assert score1(ruleset("base", {"rounding.mode": "nearest10_5up"}), h)["hand_score"] == [90, 80]
    assert score1(ruleset("base", {"rounding.mode": "nearest10_6up"}), h)["hand_score"] == [80, 80]  # 85 -> 80
    # Bulgarian game points in tens: suit contract, the leader's 85 rounds up from 7 (-> 8), the trailer's 77
    # from 6 (-> 8)
    assert score1(ruleset("base", {"rounding.mode": "bg_modern"}), h)["hand_score"] == [8, 8]
    # bg_2001: the leader 85 -> 8, the trailer the rest of the rounded total: 16 - 8 = 8
    assert score1(ruleset("base", {"rounding.mode": "bg_2001"}), h)["hand_score"] == [8, 8]


@pytest.mark.covers("game.target")
def test_target():
    # two made hands: [204, 120]. Target 1000 (base): not over; 200: ends after hand 2, team 0 wins
    assert end(game(ruleset("base"), MADE, MADE)) == ([204, 120], None, None)
    assert end(game(ruleset("base", {"game.target": 200}), MADE, MADE)) == ([204, 120], 2, 0)
    assert end(game(ruleset("base", {"game.target": 205}), MADE, MADE)) == ([204, 120], None, None)


@pytest.mark.covers("game.target_strict")
def test_target_strict():
    # target 204: reaching it is enough (base, FFB) -> ends after hand 2; strictly over (BGA) -> goes on
    assert end(game(ruleset("base", {"game.target": 204}), MADE, MADE)) == ([204, 120], 2, 0)
    assert end(game(ruleset("base", {"game.target": 204, "game.target_strict": True}), MADE, MADE)) == (
        [204, 120], None, None)


@pytest.mark.covers("game.target_from_record")
def test_target_from_record():
    # the game records a target of 200: ignored (base: 1000 -> goes on); used with target_from_record
    assert end(game(ruleset("base"), MADE, MADE, target=200)) == ([204, 120], None, None)
    from_record = ruleset("base", {"game.target_from_record": True})
    assert end(game(from_record, MADE, MADE, target=200)) == ([204, 120], 2, 0)
    assert end(game(from_record, MADE, MADE)) == ([204, 120], None, None)    # no record target: 1000


@pytest.mark.covers("game.no_exit_on_capot")
def test_no_exit_on_capot():
    # target 300: [102, 60], then a capot [252, 0] -> [354, 60]: over after hand 2 (base)
    capot = hand(STD4, **CAPOT_0)
    assert end(game(ruleset("base", {"game.target": 300}), MADE, capot, MADE)) == ([456, 120], 2, 0)
    # "no exit on a capot" (Bulgarian): one more hand: [456, 120] after hand 3
    assert end(game(ruleset("base", {"game.target": 300, "game.no_exit_on_capot": True}), MADE, capot, MADE)) == (
        [456, 120], 3, 0)


@pytest.mark.covers("game.litige_to")
def test_litige_to():
    litige, failed = hand(STD4, **SPLIT_81_81), hand(STD4, **SPLIT_30_132)
    # hand 1 litige: [0, 81], 81 held; hand 2 team 0 fails: [0, 162], the defence (team 1) wins it
    # "next_hand_winner" (base): the 81 to team 1: [0, 81 + 162 + 81]
    row = game(ruleset("base"), litige, failed)
    assert (row["totals"], row["unresolved_held"]) == ([0, 324], 0)
    # "next_made_contract" (FFB-B16 §10.1.3): a failed contract leaves them held
    row = game(ruleset("base", {"game.litige_to": "next_made_contract"}), litige, failed)
    assert (row["totals"], row["unresolved_held"]) == ([0, 243], 81)


@pytest.mark.covers("game.litige_to")
def test_litige_to_higher_hand_score():
    # belote not counted in the made test; hand 2: team 0 makes 82 > 80, team 1 holds the belote (BEL1): the
    # hand scores [82, 100]. The taker made it (next_hand_winner: team 0 gets the 81) but team 1 scored more
    # (higher_hand_score: team 1 gets it)
    nb = {"contract.made_counts_belote": False}
    litige, h2 = hand(STD4, **SPLIT_81_81), hand(BEL1, **SPLIT_82_80)
    assert game(ruleset("base", nb), litige, h2)["totals"] == [82 + 81, 81 + 100]
    assert game(ruleset("base", {**nb, "game.litige_to": "higher_hand_score"}), litige, h2)["totals"] == [
        82, 81 + 100 + 81]


@pytest.mark.covers("game.end_tie")
def test_end_tie():
    # target 150: [102, 60], then team 1 takes and makes 102 vs 60: [162, 162], both over, equal
    swapped = {"won": SPLIT_102_60["won"][::-1], "last": 1}
    h2 = hand(STD4, **swapped, taker=1)
    assert end(game(ruleset("base", {"game.target": 150}), MADE, h2)) == ([162, 162], None, None)   # "play_on"
    # "latest_deal_winner" (pagat coinche): the winners of that deal, team 1
    assert end(game(ruleset("base", {"game.target": 150, "game.end_tie": "latest_deal_winner"}), MADE, h2)) == (
        [162, 162], 2, 1)


@pytest.mark.covers("game.no_win_on_belote_alone")
def test_no_win_on_belote_alone():
    # target 270: a capot [252, 0], then team 0 fails holding the belote (BEL0: 30 + 20 vs 132): [20, 162]
    # -> [272, 162]: team 0 over the target on its kept belote. Base: it wins after hand 2
    capot, failed = hand(STD4, **CAPOT_0), hand(BEL0, **SPLIT_30_132)
    assert end(game(ruleset("base", {"game.target": 270}), capot, failed)) == ([272, 162], 2, 0)
    # FFB-Co15 §10.3: not on its belote alone (252 without it < 270): the game goes on
    assert end(game(ruleset("base", {"game.target": 270, "game.no_win_on_belote_alone": True}), capot, failed)) == (
        [272, 162], None, None)
