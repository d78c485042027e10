"""[belote]: belote-rebelote, king and queen of trump in one hand (rules.md R25).

Hands recorded as tricks taken (harness splits), hearts trump, dealer 3; ``belote_points`` per team.
"""

import pytest

from .harness import SPLIT_30_132, SPLIT_102_60, STD4, deal, hand, pad, ruleset, score1

pytestmark = pytest.mark.rules

# STD4 with seat 0's 9H swapped for seat 3's QH: seat 0 holds KH QH (team 0's belote); no declaration.
BEL0 = deal("7C JC 8D QD QH KH TS AS", "8C QC 9D KD TH AH 7S JS", "9C KC TD AD 7H JH 8S QS",
            "TC AC 7D JD 8H 9H 9S KS")


@pytest.mark.covers("belote.enabled")
def test_enabled():
    assert score1(ruleset("base"), hand(BEL0, **SPLIT_102_60))["belote_points"] == [20, 0]
    assert score1(ruleset("base", {"belote.enabled": False}), hand(BEL0, **SPLIT_102_60))["belote_points"] == [0, 0]


@pytest.mark.covers("belote.value")
def test_value():
    # made 102 + 20 = 122 against 60 (FFB-B16 §7: 20)
    row = score1(ruleset("base"), hand(BEL0, **SPLIT_102_60))
    assert (row["belote_points"], row["hand_score"]) == ([20, 0], [122, 60])
    row = score1(ruleset("base", {"belote.value": 30}), hand(BEL0, **SPLIT_102_60))
    assert (row["belote_points"], row["hand_score"]) == ([30, 0], [132, 60])


@pytest.mark.covers("belote.on_failure")
def test_on_failure():
    # team 0 takes with 30 + belote 20 = 50 against 132: failed; the defence scores 162 (fail_base)
    # "keep" (FFB-B16 §10.2): the takers keep their 20
    assert score1(ruleset("base"), hand(BEL0, **SPLIT_30_132))["hand_score"] == [20, 162]
    # "to_defence" (FFB contrée): it goes to the defence: 162 + 20
    assert score1(ruleset("base", {"belote.on_failure": "to_defence"}),
                  hand(BEL0, **SPLIT_30_132))["hand_score"] == [0, 182]


# All-trump: seat 0 holds KS QS, seat 1 KD QD (no other K+Q together). Trick 1: seat 0 leads AS, seat 1 plays QD
# (the first of its pair, on a spade lead); seat 0 leads its QS later (the padding has seat 0 lead every trick).
AT_BEL = deal("7C JC QS TH 9H KH KS AS", "8C QC 9D KD QD AH 7S JS", "9C KC TD AD 7H JH 8S 8D",
              "TC AC 7D JD 8H QH 9S TS")
STRAINS6 = {"auction.strains": ["C", "D", "H", "S", "NT", "AT"]}


@pytest.mark.covers("belote.all_trump")
def test_all_trump():
    h = hand(AT_BEL, plays=pad(AT_BEL, ["AS", "QD", "8S", "9S"]), strain="AT")
    # "per_suit" (base): every suit's K+Q in one hand: team 0 20 (spades), team 1 20 (diamonds)
    assert score1(ruleset("base", STRAINS6), h)["belote_points"] == [20, 20]
    # "per_suit_led" (BG-HIT): only when the first of the pair leads or follows its suit: QD on a spade lead
    # does not count; seat 0's QS, led, does
    assert score1(ruleset("base", {**STRAINS6, "belote.all_trump": "per_suit_led"}), h)["belote_points"] == [20, 0]
    # "none": no belote in all-trump
    assert score1(ruleset("base", {**STRAINS6, "belote.all_trump": "none"}), h)["belote_points"] == [0, 0]
    # in a hearts contract nobody holds KH + QH: none
    assert score1(ruleset("base", STRAINS6), hand(AT_BEL, **SPLIT_102_60))["belote_points"] == [0, 0]


def test_std4_has_no_belote():
    assert score1(ruleset("base"), hand(STD4, **SPLIT_102_60))["belote_points"] == [0, 0]
