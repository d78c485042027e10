"""[double]: coinche / surcoinche (double / redouble) awards, rules.md R31-R33.

Team 0 takes with a bid of 80 and makes 102 against 60 (harness SPLIT_102_60, hearts trump, STD4: no
declaration, no belote unless said) under a bidding auction. Scope "bid" (base): the side winning the hand
scores base + bid x multiplier + every declaration + belotes, base = the deal's card points (162, 252 after a
capot); the other side nothing.
"""

import pytest

from .harness import CAPOT_0, SPLIT_102_60, STD4, deal, hand, ruleset, score1
from .test_belote import BEL0

pytestmark = pytest.mark.rules

BID = {"auction.style": "bid"}
RD = ruleset("base", BID)
# STD4 with seat 1 given KH (for its TH, to seat 0) and QH (for its AH, to seat 3): team 1's belote.
BEL1 = deal("7C JC 8D QD 9H TH TS AS", "8C QC 9D KD KH QH 7S JS", "9C KC TD AD 7H JH 8S QS",
            "TC AC 7D JD 8H AH 9S KS")


def hs(R, deal_=STD4, split=SPLIT_102_60, coinche=1, bid=80):
    row = score1(R, hand(deal_, **split, bid=bid, coinche=coinche))
    assert row["status"] == "scored", row["reason"]
    return row["hand_score"]


@pytest.mark.covers("double.coinche")
def test_coinche():
    assert hs(RD) == [162 + 80 * 2, 0]                                         # 322
    assert hs(ruleset("base", {**BID, "double.coinche": 3})) == [162 + 80 * 3, 0]   # 402


@pytest.mark.covers("double.surcoinche")
def test_surcoinche():
    assert hs(RD, coinche=2) == [162 + 80 * 4, 0]                                        # 482
    assert hs(ruleset("base", {**BID, "double.surcoinche": 6}), coinche=2) == [162 + 80 * 6, 0]   # 642


@pytest.mark.covers("double.scope")
def test_scope():
    assert hs(RD) == [322, 0]                                                  # "bid": 162 + 80 x 2
    assert hs(ruleset("base", {**BID, "double.scope": "whole"})) == [(162 + 80) * 2, 0]      # 484
    assert hs(ruleset("base", {**BID, "double.scope": "flat"})) == [320 + 80 * 2, 0]         # flat_coinche 320
    # "own": the takers' own points + bid, x 2; the defence keeps its 60
    assert hs(ruleset("base", {**BID, "double.scope": "own"})) == [(102 + 80) * 2, 60]       # 364


@pytest.mark.covers("double.base")
def test_base():
    assert hs(ruleset("base", {**BID, "double.base": 160})) == [160 + 160, 0]
    assert hs(RD) == [162 + 160, 0]


@pytest.mark.covers("double.base_capot")
def test_base_capot():
    # a capot: the deal's card points are 252 -> 252 + 160 = 412; base_capot 250 -> 410
    assert hs(RD, split=CAPOT_0) == [412, 0]
    assert hs(ruleset("base", {**BID, "double.base_capot": 250}), split=CAPOT_0) == [410, 0]


@pytest.mark.covers("double.belote_to_winner")
def test_belote_to_winner():
    # the defence holds the belote (BEL1); 102 vs 60 + 20 = 80: made. Both belotes to the winner (base):
    # 322 + 20 = 342, defence 0; each keeping its own: [322, 20]
    assert hs(RD, BEL1) == [342, 0]
    assert hs(ruleset("base", {**BID, "double.belote_to_winner": False}), BEL1) == [322, 20]


@pytest.mark.covers("double.belote_multiplied")
def test_belote_multiplied():
    # scope "whole", team 0's belote (BEL0): (162 + 80) x 2 + 20 = 504; inside the product: (162 + 80 + 20) x 2
    whole = {**BID, "double.scope": "whole"}
    assert hs(ruleset("base", whole), BEL0) == [504, 0]
    assert hs(ruleset("base", {**whole, "double.belote_multiplied": True}), BEL0) == [524, 0]


FLAT = {**BID, "double.scope": "flat"}


@pytest.mark.covers("double.flat_coinche")
def test_flat_coinche():
    assert hs(ruleset("base", FLAT)) == [320 + 160, 0]
    assert hs(ruleset("base", {**FLAT, "double.flat_coinche": 300})) == [300 + 160, 0]


@pytest.mark.covers("double.flat_surcoinche")
def test_flat_surcoinche():
    assert hs(ruleset("base", FLAT), coinche=2) == [640 + 320, 0]
    assert hs(ruleset("base", {**FLAT, "double.flat_surcoinche": 600}), coinche=2) == [600 + 320, 0]


@pytest.mark.covers("double.bid_multiplied")
def test_bid_multiplied():
    assert hs(ruleset("base", FLAT)) == [480, 0]
    assert hs(ruleset("base", {**FLAT, "double.bid_multiplied": False})) == [320, 0]


@pytest.mark.covers("double.valat_cancels")
def test_valat_cancels():
    # Bulgarian game points (bg_modern): team 0 takes every trick (252) doubled: the pot is 252 / 10 rounded,
    # 25, x 2 = 50 -> [50, 0]; valat_cancels (BG-NIK): no multiplier on a valat -> [25, 0]
    bg = {"auction.style": "strain", "rounding.mode": "bg_modern"}
    assert hs(ruleset("base", bg), split=CAPOT_0, bid=None) == [50, 0]
    assert hs(ruleset("base", {**bg, "double.valat_cancels": True}), split=CAPOT_0, bid=None) == [25, 0]
