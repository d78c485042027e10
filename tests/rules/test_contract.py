"""[contract]: the made test, the awards of a made and a failed contract, capot awards, 3-player settlement.

Hands recorded as tricks taken (harness splits: team 0 = seat 0 takes, hearts trump, base card values), dealt
``STD4`` (no declaration, no belote) unless said. Team 0 takes. Checked: ``contract_made``, ``litige``,
``hand_score`` (game points = card points with rounding "none") and ``held_points``. rules.md R27-R33.
"""

import pytest

from .harness import (CAPOT_0, CAPOT_1, SPLIT_30_132, SPLIT_81_81, SPLIT_82_80, SPLIT_102_60, STD4, deal, hand,
                      ruleset, score1, suit)
from .test_belote import BEL0
from .test_declarations import TIERCE

pytestmark = pytest.mark.rules

BASE = ruleset("base")
BID = {"auction.style": "bid"}     # coinche and capot bids are scored only under a bidding auction


def result(R, h):
    row = score1(R, h)
    assert row["status"] == "scored", row["reason"]
    return row["contract_made"], row["litige"], row["hand_score"], row["held_points"]


@pytest.mark.covers("contract.made_vs_defence")
def test_made_vs_defence():
    # "gt" (base, FFB-B16 §10.1.1): 81-81 is not more -> litige (tie): defence 81 now, takers' 81 held
    assert result(BASE, hand(STD4, **SPLIT_81_81)) == (None, True, [0, 81], 81)
    # 30 against 132 fails: defence 162
    assert result(BASE, hand(STD4, **SPLIT_30_132)) == (False, False, [0, 162], 0)
    # "ge": 81-81 is enough -> made, each its own
    assert result(ruleset("base", {"contract.made_vs_defence": "ge"}), hand(STD4, **SPLIT_81_81)) == (
        True, False, [81, 81], 0)
    # "none": no comparison with the defence: 30 against 132 is made
    assert result(ruleset("base", {"contract.made_vs_defence": "none"}), hand(STD4, **SPLIT_30_132)) == (
        True, False, [30, 132], 0)


@pytest.mark.covers("contract.tie")
def test_tie():
    # 81-81 under "gt": "litige" (base, FFB-B16 §10.1.3) -> [0, 81], 81 held; "made" -> [81, 81]; "failed" -> 162
    assert result(BASE, hand(STD4, **SPLIT_81_81)) == (None, True, [0, 81], 81)
    assert result(ruleset("base", {"contract.tie": "made"}), hand(STD4, **SPLIT_81_81)) == (True, False, [81, 81], 0)
    assert result(ruleset("base", {"contract.tie": "failed"}), hand(STD4, **SPLIT_81_81)) == (
        False, False, [0, 162], 0)


@pytest.mark.covers("contract.made_vs_bid")
def test_made_vs_bid():
    # bid 110, takers 102 vs 60. "none" (base): the bid is not tested -> made [102, 60]
    assert result(BASE, hand(STD4, **SPLIT_102_60, bid=110)) == (True, False, [102, 60], 0)
    # "ge": 102 < 110 -> failed: defence 162
    assert result(ruleset("base", {"contract.made_vs_bid": "ge"}), hand(STD4, **SPLIT_102_60, bid=110)) == (
        False, False, [0, 162], 0)


@pytest.mark.covers("contract.made_min_points")
def test_made_min_points():
    # bid 80, takers 82 vs 80, the bid tested ("ge"): 82 >= max(80, 0) -> made [82, 80]
    ge = {"contract.made_vs_bid": "ge"}
    assert result(ruleset("base", ge), hand(STD4, **SPLIT_82_80, bid=80)) == (True, False, [82, 80], 0)
    # made_min_points 83: 82 < 83 -> failed, defence 162 (pagat: a bid of 80 needs 82)
    assert result(ruleset("base", {**ge, "contract.made_min_points": 83}), hand(STD4, **SPLIT_82_80, bid=80)) == (
        False, False, [0, 162], 0)


@pytest.mark.covers("contract.made_counts_belote")
def test_made_counts_belote():
    # team 0 holds the belote (BEL0), 81-81 in cards. Counted (base): 101 > 81 -> made [101, 81]
    assert result(BASE, hand(BEL0, **SPLIT_81_81)) == (True, False, [101, 81], 0)
    # not counted: 81 = 81 -> litige: defence 81 now, takers' cards + belote 101 held
    assert result(ruleset("base", {"contract.made_counts_belote": False}), hand(BEL0, **SPLIT_81_81)) == (
        None, True, [0, 81], 101)


@pytest.mark.covers("contract.made_counts_declarations")
def test_made_counts_declarations():
    # team 0's tierce (20, TIERCE), 81-81 in cards. Counted (base): 101 > 81 -> made [101, 81]
    on = {"declarations.enabled": True}
    assert result(ruleset("base", on), hand(TIERCE, **SPLIT_81_81)) == (True, False, [101, 81], 0)
    # not counted: litige, the takers' 81 + 20 held
    assert result(ruleset("base", {**on, "contract.made_counts_declarations": False}),
                  hand(TIERCE, **SPLIT_81_81)) == (None, True, [0, 81], 101)


@pytest.mark.covers("contract.made_test_rounded")
def test_made_test_rounded():
    # rounding to the nearest ten (5 up); 82 vs 80. Not rounded before the test (base, FFB): 82 > 80 -> made,
    # scores rounded: 82 -> 80, 80 -> 80
    r5 = {"rounding.mode": "nearest10_5up"}
    assert result(ruleset("base", r5), hand(STD4, **SPLIT_82_80)) == (True, False, [80, 80], 0)
    # rounded first (kydos): 80 vs 80 -> litige: defence 80 now, takers' 82 -> 80 held
    assert result(ruleset("base", {**r5, "contract.made_test_rounded": True}), hand(STD4, **SPLIT_82_80)) == (
        None, True, [0, 80], 80)


@pytest.mark.covers("contract.made_adds_bid")
def test_made_adds_bid():
    # bid 80, made 102 vs 60: [102, 60]; adding the bid: 102 + 80 = 182
    assert result(BASE, hand(STD4, **SPLIT_102_60, bid=80))[2] == [102, 60]
    assert result(ruleset("base", {"contract.made_adds_bid": True}), hand(STD4, **SPLIT_102_60, bid=80))[2] == [182, 60]


@pytest.mark.covers("contract.fail_base")
def test_fail_base():
    # failed 30 vs 132: the defence scores fail_base 162 (FFB-B16 §10.2); 160 when changed
    assert result(BASE, hand(STD4, **SPLIT_30_132))[2] == [0, 162]
    assert result(ruleset("base", {"contract.fail_base": 160}), hand(STD4, **SPLIT_30_132))[2] == [0, 160]


@pytest.mark.covers("contract.fail_base_defence_capot")
def test_fail_base_defence_capot():
    # the defence takes every trick: 252 (FFB-B16 §10.2); 250 when changed; fail_base is not used
    assert result(BASE, hand(STD4, **CAPOT_1))[2] == [0, 252]
    assert result(ruleset("base", {"contract.fail_base_defence_capot": 250}), hand(STD4, **CAPOT_1))[2] == [0, 250]
    assert result(ruleset("base", {"contract.fail_base": 100}), hand(STD4, **CAPOT_1))[2] == [0, 252]


@pytest.mark.covers("contract.fail_adds_bid")
def test_fail_adds_bid():
    # bid 80 failed (30 vs 132): 162; with the bid: 162 + 80 = 242
    assert result(BASE, hand(STD4, **SPLIT_30_132, bid=80))[2] == [0, 162]
    assert result(ruleset("base", {"contract.fail_adds_bid": True}), hand(STD4, **SPLIT_30_132, bid=80))[2] == [0, 242]


# Two players, 9 tricks (18 cards in play, 14 out): seat 0 took the clubs (30), seat 1 the hearts and 7D 8D
# (62) + last trick 10 = 72. KH with seat 0, QH not dealt: no belote.
TWO = {"deal.n_players": 2, "deal.tricks": 9}
DEAL2 = deal("7C JC 8D QD 9H KH TS AS 8C", "QC 9D KD TH AH 7S JS 9C KC")


@pytest.mark.covers("contract.fail_takes_played")
def test_fail_takes_played():
    h = hand(DEAL2, [suit("C"), suit("H") + " 7D 8D"], last=1, dealer=1)
    # failed 30 < 72: the defence scores fail_base 162 (base) ...
    assert result(ruleset("base", TWO), h)[2] == [0, 162]
    # ... or the points actually played: 30 + 72 = 102
    assert result(ruleset("base", {**TWO, "contract.fail_takes_played": True}), h)[2] == [0, 102]


@pytest.mark.covers("contract.fail_declarations")
def test_fail_declarations():
    # team 0's tierce (20) wins the contest; 30 + 20 = 50 vs 132 fails
    on = {"declarations.enabled": True}
    h = hand(TIERCE, **SPLIT_30_132)
    assert result(ruleset("base", on), h)[2] == [0, 182]        # "to_defence" (base): 162 + 20
    assert result(ruleset("base", {**on, "contract.fail_declarations": "keep"}), h)[2] == [20, 162]
    assert result(ruleset("base", {**on, "contract.fail_declarations": "lost"}), h)[2] == [0, 162]


@pytest.mark.covers("contract.capot_bid_value")
def test_capot_bid_value():
    # a capot bid made, the bid added (made_adds_bid): 252 + 250 = 502; worth 300: 552
    adds = {**BID, "contract.made_adds_bid": True}
    assert result(ruleset("base", adds), hand(STD4, **CAPOT_0, capot_bid=True)) == (True, False, [502, 0], 0)
    assert result(ruleset("base", {**adds, "contract.capot_bid_value": 300}),
                  hand(STD4, **CAPOT_0, capot_bid=True))[2] == [552, 0]


@pytest.mark.covers("contract.unbid_capot_flat")
def test_unbid_capot_flat():
    # an unbid capot scores its card points 252 (base) or the flat 250 (pagat)
    assert result(BASE, hand(STD4, **CAPOT_0))[2] == [252, 0]
    assert result(ruleset("base", {"contract.unbid_capot_flat": 250}), hand(STD4, **CAPOT_0))[2] == [250, 0]


@pytest.mark.covers("contract.capot_bid_made_flat")
def test_capot_bid_made_flat():
    # a made capot bid: its card points 252 (base: the bid not added), or flat 500 (FFB-Ct16)
    assert result(ruleset("base", BID), hand(STD4, **CAPOT_0, capot_bid=True))[2] == [252, 0]
    assert result(ruleset("base", {**BID, "contract.capot_bid_made_flat": 500}),
                  hand(STD4, **CAPOT_0, capot_bid=True))[2] == [500, 0]


@pytest.mark.covers("contract.capot_bid_failed_flat")
def test_capot_bid_failed_flat():
    # a capot bid with 102 vs 60 fails (not every trick): defence fail_base 162 (base), or flat 500
    assert result(ruleset("base", BID), hand(STD4, **SPLIT_102_60, capot_bid=True)) == (False, False, [0, 162], 0)
    assert result(ruleset("base", {**BID, "contract.capot_bid_failed_flat": 500}),
                  hand(STD4, **SPLIT_102_60, capot_bid=True))[2] == [0, 500]


# Three players, 8 tricks: the first three seats of STD4 (KH with seat 0, QH out of play: no belote).
THREE = {"deal.n_players": 3, "deal.tricks": 8}
STD3 = STD4[:3]


@pytest.mark.covers("contract.solo_made")
def test_solo_made():
    # taker seat 0: hearts + last trick 72; seat 1 clubs 30; seat 2 diamonds + spades 60
    h = hand(STD3, [suit("H"), suit("C"), suit("D") + " " + suit("S")], last=0)
    # "each" (base): 72 beats each opponent (max 60) -> made, each his own
    assert result(ruleset("base", THREE), h) == (True, False, [72, 30, 60], 0)
    # "combined": 72 against 30 + 60 = 90 -> failed; solo_fail "share": the taker's 72 halved, 36 each
    assert result(ruleset("base", {**THREE, "contract.solo_made": "combined"}), h) == (
        False, False, [0, 30 + 36, 60 + 36], 0)


@pytest.mark.covers("contract.solo_fail")
def test_solo_fail():
    # taker seat 0 clubs 30; seat 1 hearts + last trick 72; seat 2 diamonds + spades 60: failed (30 < 72)
    h = hand(STD3, [suit("C"), suit("H"), suit("D") + " " + suit("S")], last=1)
    # "share" (base): each keeps his own and gets half the taker's 30: 72 + 15, 60 + 15
    assert result(ruleset("base", THREE), h) == (False, False, [0, 87, 75], 0)
    # "own": each keeps only his own
    assert result(ruleset("base", {**THREE, "contract.solo_fail": "own"}), h) == (False, False, [0, 72, 60], 0)
