"""[deal] and [auction]: which records a ruleset scores (seats, tricks, pack, contracts it has).

A record the ruleset cannot play is ``unscorable`` with a ``reason``; nothing is guessed.
"""

import pytest

from .harness import SPLIT_102_60, STD4, deal, hand, pad, ruleset, score1

pytestmark = pytest.mark.rules


def status(R, h):
    row = score1(R, h)
    return row["status"], row["reason"]


@pytest.mark.covers("deal.n_players")
def test_n_players():
    four = hand(STD4, **SPLIT_102_60)
    assert status(ruleset("base"), four) == ("scored", None)
    R2 = ruleset("base", {"deal.n_players": 2})
    assert status(R2, four) == ("unscorable", f"ruleset {R2.name} is for 2 players")
    two = hand(STD4[:2], ["JH", "AH"], last=1, dealer=1)
    assert status(R2, two) == ("scored", None)
    # passed out too: a hand nobody took under another player count has no 0 - 0 of this ruleset's teams (it was
    # 'passed_out' with [0, 0], counted as a 0-point hand by the players report for two of three seats)
    R4 = ruleset("base")
    row = score1(R4, hand(STD4[:3], taker=None))
    assert (row["status"], row["reason"], row["hand_score"]) == ("unscorable", f"ruleset {R4.name} is for 4 players",
                                                                  None)
    assert score1(ruleset("base"), hand(STD4, taker=None))["status"] == "passed_out"
    # team = seat with 3 players: a per-player score list of 3
    assert len(score1(ruleset("base", {"deal.n_players": 3}), hand(STD4[:3], ["JH"]))["hand_score"]) == 3


@pytest.mark.covers("deal.tricks")
def test_tricks():
    # two players, 8 cards each, fully played: 16 cards
    hands = STD4[:2]
    h = hand(hands, plays=pad(hands, ["7C", "8C"], dealer=1), dealer=1)
    assert status(ruleset("base", {"deal.n_players": 2}), h) == ("scored", None)
    assert status(ruleset("base", {"deal.n_players": 2, "deal.tricks": 9}), h) == (
        "unscorable", "play record is not 18 cards")


@pytest.mark.covers("deal.deck")
def test_deck():
    three = {"deal.n_players": 3}
    low = hand(STD4[:3], ["JH"])                     # 7s and 8s dealt
    assert status(ruleset("base", three), low)[0] == "scored"
    R24 = ruleset("base", {**three, "deal.deck": 24})
    assert status(R24, low) == ("unscorable", f"a 7 or an 8 is dealt, but ruleset {R24.name} plays a 24-card pack")
    nines_up = deal("9C TC JC QC KC AC 9D TD", "JD QD KD AD 9H TH JH QH", "KH AH 9S TS JS QS KS AS")
    assert status(R24, hand(nines_up, ["JH"]))[0] == "scored"


@pytest.mark.covers("auction.style")
def test_style():
    coinched = hand(STD4, **SPLIT_102_60, bid=80, coinche=1)
    R = ruleset("base")       # "prise": no coinche
    assert status(R, coinched) == ("unscorable", f"ruleset {R.name} has no coinche and no capot bid (auction.style: prise)")
    assert status(ruleset("base", {"auction.style": "bid"}), coinched) == ("scored", None)


@pytest.mark.covers("auction.strains")
def test_strains():
    nt = hand(STD4, **SPLIT_102_60, strain="NT")
    R = ruleset("base")       # the four suits only
    assert status(R, nt) == ("unscorable", f"ruleset {R.name} has no contract in this strain (auction.strains: C D H S)")
    assert status(ruleset("base", {"auction.strains": ["C", "D", "H", "S", "NT"]}), nt) == ("scored", None)
