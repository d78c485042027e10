"""Announced declarations count only when the announcer's cards make them (found by an audit of the seed rulesets).

A ruleset with ``declarations.count = "announced"`` (or ``"announced_else_held"``) takes the declarations from the
record's announcements. Every seed text defines a declaration as cards the player holds: seed 004
(../shared/seeds/004_d127db038aaa4e12.txt) describes a run as three or more consecutive cards of one suit and a
carré as the four cards of a rank, and says that one card can serve in only one declaration; seed 001
(001_27c05ad297f1f058.txt) counts the combinations in the player's hand, and the belote as the king and queen
of trump he holds. The engine scored an announced carré its seat was not
dealt, a belote without the king, and a tierce through a card of the same seat's carré
(:func:`pipeline.rescore.declarations.announced_held`). The hands are full legal plays; the card points were
counted independently of the engine, and every total below is worked out by hand.
"""

from __future__ import annotations

import pytest

from .harness import ruleset, score, score1

pytestmark = pytest.mark.rules

# seat 0 holds JC JD JH JS TC QC QH TS: a carré of jacks, and TC JC QC a tierce only through the carré's JC.
# Hearts, seat 0 takes on 100; card points 100 - 62.
CARRE_AND_TIERCE = {'dealer': 3, 'hands': [['JC', 'JD', 'JH', 'JS', 'TC', 'QC', 'QH', 'TS'], ['AC', '7C', '7S', 'AS', 'QS', '8H', 'KH', 'KC'], ['KS', 'AH', '9C', 'KD', '8S', '7H', '8D', '9D'], ['TH', '9S', '7D', '9H', 'TD', 'QD', '8C', 'AD']], 'auction': [], 'contract': {'taker': 0, 'strain': 'H', 'bid': 100, 'capot_bid': False, 'coinche': 0}, 'completeness': 'full_play', 'plays': [[0, 'QH'], [1, 'KH'], [2, 'AH'], [3, '9H'], [3, '7D'], [0, 'JD'], [1, '8H'], [2, '9D'], [1, '7C'], [2, '9C'], [3, '8C'], [0, 'JC'], [0, 'TC'], [1, 'KC'], [2, 'KS'], [3, 'TH'], [3, '9S'], [0, 'JS'], [1, '7S'], [2, '8S'], [0, 'TS'], [1, 'QS'], [2, '8D'], [3, 'QD'], [0, 'JH'], [1, 'AC'], [2, '7H'], [3, 'TD'], [0, 'QC'], [1, 'AS'], [2, 'KD'], [3, 'AD']]}

# no seat holds any combination; seat 0 holds two jacks (JD JH). Hearts, seat 0 takes on 80; card points 95 - 67.
TWO_JACKS = {'dealer': 3, 'hands': [['QH', 'TC', 'JH', 'TD', '7D', '9C', 'QC', 'JD'], ['9S', 'AS', 'QD', '8H', 'QS', 'KH', '8S', 'AD'], ['8D', 'TS', '7H', 'JS', '9H', 'AH', '9D', 'KD'], ['7S', '7C', 'TH', 'AC', 'KC', 'KS', '8C', 'JC']], 'auction': [], 'contract': {'taker': 0, 'strain': 'H', 'bid': 80, 'capot_bid': False, 'coinche': 0}, 'completeness': 'full_play', 'plays': [[0, 'JD'], [1, 'QD'], [2, '9D'], [3, 'KC'], [1, '9S'], [2, 'JS'], [3, '7S'], [0, '7D'], [2, '8D'], [3, 'TH'], [0, 'TD'], [1, 'AD'], [3, '8C'], [0, 'TC'], [1, 'KH'], [2, '9H'], [2, 'AH'], [3, '7C'], [0, 'JH'], [1, '8H'], [0, 'QC'], [1, 'QS'], [2, 'TS'], [3, 'AC'], [3, 'KS'], [0, 'QH'], [1, '8S'], [2, 'KD'], [0, '9C'], [1, 'AS'], [2, '7H'], [3, 'JC']]}

# 2 players, 9 cards each; seat 0 holds QH but not KH (out of play), two jacks. Hearts, seat 0 takes; 48 - 53.
TWO_PLAYER = {'dealer': 1, 'hands': [['8S', 'QH', 'QD', 'QC', 'JD', '8C', 'TC', 'JH', '7H'], ['7S', 'AS', 'TS', 'AD', 'TH', 'KC', '7C', 'KD', '7D']], 'auction': [], 'contract': {'taker': 0, 'strain': 'H', 'bid': None, 'capot_bid': False, 'coinche': 0}, 'completeness': 'full_play', 'plays': [[0, 'QH'], [1, 'TH'], [1, 'AD'], [0, 'JD'], [1, 'TS'], [0, '8S'], [1, 'AS'], [0, '7H'], [0, 'QC'], [1, '7C'], [0, 'TC'], [1, 'KC'], [0, 'JH'], [1, '7S'], [0, 'QD'], [1, 'KD'], [1, '7D'], [0, '8C']]}


@pytest.mark.covers("coinche-1000:declarations.carre_cards_in_sequences", "coinche-1000:declarations.count")
def test_an_announced_card_counts_in_one_declaration():
    ann = [{"seat": 0, "kind": "carre", "cards": ["JC", "JD", "JH", "JS"]},
           {"seat": 0, "kind": "tierce", "cards": ["TC", "JC", "QC"]}]
    # seed 004: a card counts in one declaration only: the carré (200) counts, the tierce through JC does not.
    # made: 100 + 200 + the bid 100 = 400; defence 62 -> 60.
    r = score1(ruleset("coinche-1000"), dict(CARRE_AND_TIERCE, announced=ann))
    assert (r["declaration_points"], r["hand_score"]) == ([200, 0], [400, 60])
    assert [(d["kind"], d["points"]) for d in r["declarations"]] == [("carre", 200)]
    # where a carré's cards may also make a run, the tierce's 20 counts too: 420
    both = ruleset("coinche-1000", {"declarations.carre_cards_in_sequences": True})
    r = score1(both, dict(CARRE_AND_TIERCE, announced=ann))
    assert (r["declaration_points"], r["hand_score"]) == ([220, 0], [420, 60])


@pytest.mark.covers("coinche-1000:declarations.count")
@pytest.mark.parametrize("carre", [{"seat": 0, "kind": "carre", "cards": ["JC", "JD", "JH", "JS"]},
                                   {"seat": 0, "kind": "carre", "rank": "J"}], ids=["cards", "rank"])
def test_an_announcement_the_cards_do_not_make_scores_nothing(carre):
    # seat 0 was dealt two jacks: its announced carré of jacks is no declaration. 95 + 80 = 175 -> 180; 67 -> 70
    # (the carré counted would have given 95 + 200 + 80 = 375 -> 380).
    r = score1(ruleset("coinche-1000"), dict(TWO_JACKS, announced=[carre]))
    assert (r["status"], r["declaration_points"], r["hand_score"]) == ("scored", [0, 0], [180, 70])
    assert r["declarations"] == []
    # a jack's carré its seat holds still counts: seat 1 of CARRE_AND_TIERCE holds none, seat 0 all four
    r = score1(ruleset("coinche-1000"), dict(CARRE_AND_TIERCE, announced=[{"seat": 0, "kind": "carre", "rank": "J"}]))
    assert r["declaration_points"] == [200, 0]


@pytest.mark.covers("fournier-2p:declarations.count", "fournier-2p:belote.count")
@pytest.mark.parametrize("ann, would_be", [({"seat": 0, "kind": "carre", "rank": "J"}, [248, 53]),
                                           ({"seat": 0, "kind": "belote"}, [68, 53])], ids=["carre", "belote"])
def test_two_player_announcements_need_the_cards(ann, would_be):
    # seed 001: seat 0 holds two jacks and the queen of trump without its king: neither a carré nor a belote.
    # The cards alone: 48 - 53 (the announcement counted would have given would_be).
    r = score(ruleset("fournier-2p"), dict(TWO_PLAYER, announced=[ann]), n_players=2)[0]
    assert (r["declaration_points"], r["belote_points"], r["hand_score"]) == ([0, 0], [0, 0], [48, 53])
    assert r["hand_score"] != would_be


# A second audit: tricks split so that the takers' team has 102 card points with the last trick, the defence 60
# (harness.SPLIT_102_60), seat 0 takes; the totals are card points + declarations + bid, rounded to tens, or
# ÷10 in Bulgarian.
from .harness import SPLIT_102_60, deal, hand  # noqa: E402

QUARTE_D = deal("7D 8D 9D TD 7C JC 9H KH", "8C QC JD KD TH AH 7S JS", "9C KC QD AD 7H JH 8S QS",
                "TC AC 8H QH 9S TS KS AS")       # seat 0: the quarte 7-10 of diamonds, nothing else
FOUR_JACKS = deal("JC JD JH JS 7C 9D 8H QS", "8C QC 7D KD TH AH 7S KS", "9C KC TD AD 7H 9H 8S TS",
                  "TC AC 8D QD AS QH 9S KH")     # seat 0: the carré of jacks; seat 3 the belote (KH QH)
KQ_HEARTS = deal("7C JC 8D QD 9H KH QH AS", "8C QC 9D KD TH AH 7S KS", "9C KC TD AD 7H JH 8S JS",
                 "TC AC 7D JD 8H QS 9S TS")      # seat 0: the king and queen of hearts
KQ_SPADES = deal("7C JC 8D QD 9H KS QS AS", "8C QC 9D KD TH AH 7S KH", "9C KC TD AD 7H JH 8S JS",
                 "TC AC 7D JD 8H QH 9S TS")      # seat 0: the king and queen of spades, not of hearts


def _run(*cards):
    return {"seat": 0, "kind": {3: "tierce", 4: "quarte"}[len(cards)], "cards": list(cards)}


@pytest.mark.covers("coinche-1000:declarations.count")
@pytest.mark.parametrize("ann, total", [
    ([_run("7D", "8D", "9D", "TD")], [230, 60]),                               # 102 + 50 + 80 = 232 -> 230
    ([_run("7D", "8D", "9D"), _run("7D", "8D", "9D", "TD")], [230, 60]),       # the tierce's cards are the quarte's
    ([_run("7D", "8D", "9D"), _run("8D", "9D", "TD")], [200, 60]),             # one tierce: 102 + 20 + 80 -> 200
    ([_run("7D", "8D", "9D"), _run("7D", "8D", "9D")], [200, 60]),             # listed twice: once
], ids=["quarte", "tierce-in-quarte", "overlapping-tierces", "tierce-twice"])
def test_a_card_counts_in_one_announced_run(ann, total):
    # seed 004: one card, one declaration; the runs the record lists are one set of the seat's cards
    r = score1(ruleset("coinche-1000"), hand(QUARTE_D, **SPLIT_102_60, strain="H", taker=0, bid=80, announced=ann))
    assert r["hand_score"] == total


@pytest.mark.covers("coinche-1000:declarations.count")
def test_a_carre_listed_twice_counts_once():
    # 102 + 200 + 80 = 382 -> 380; the defence 60 + its belote 20 = 80 (scored from the hands in coinche-1000)
    c = {"seat": 0, "kind": "carre", "rank": "J"}
    r = score1(ruleset("coinche-1000"), hand(FOUR_JACKS, **SPLIT_102_60, strain="H", taker=0, bid=80, announced=[c, c]))
    assert (r["declaration_points"], r["hand_score"]) == ([200, 0], [380, 80])


@pytest.mark.covers("bulgarian:belote.count", "ffb-classic:belote.count")
@pytest.mark.parametrize("name, total", [("bulgarian", [12, 6]), ("ffb-classic", [122, 60])])
def test_one_belote_listed_twice_counts_20(name, total):
    # one king and queen of trump, one belote (seeds 000, 002): bulgarian (102 + 20) / 10 -> 12, 60 / 10 -> 6;
    # ffb-classic 102 + 20 = 122
    b = {"seat": 0, "kind": "belote"}
    for ann in ([b], [b, b], [dict(b, cards=["KH", "QH"]), dict(b, suit="H")]):
        r = score1(ruleset(name), hand(KQ_HEARTS, **SPLIT_102_60, strain="H", taker=0, bid=80, announced=ann))
        assert (r["belote_points"], r["hand_score"]) == ([20, 0], total), ann


@pytest.mark.covers("bulgarian:belote.count", "ffb-classic:belote.count")
def test_a_belote_is_of_trump_and_never_in_no_trump():
    # seat 0 holds the king and queen of spades; hearts are trump: no belote (ffb-classic 102 - 60; bulgarian
    # 102 / 10 -> 10, 6). In no-trump, bulgarian doubles the card points (seed 002: 140 - 120 -> 14 - 12) and
    # has no belote at all.
    b = {"seat": 0, "kind": "belote"}
    for ann in ([dict(b, suit="S")], [dict(b, cards=["KS", "QS"])]):
        r = score1(ruleset("ffb-classic"), hand(KQ_SPADES, **SPLIT_102_60, strain="H", taker=0, bid=80, announced=ann))
        assert (r["belote_points"], r["hand_score"]) == ([0, 0], [102, 60]), ann
        r = score1(ruleset("bulgarian"), hand(KQ_SPADES, **SPLIT_102_60, strain="H", taker=0, announced=ann))
        assert (r["belote_points"], r["hand_score"]) == ([0, 0], [10, 6]), ann
    for ann in ([b], [dict(b, suit="S")]):
        r = score1(ruleset("bulgarian"), hand(KQ_SPADES, **SPLIT_102_60, strain="NT", taker=0, announced=ann))
        assert (r["belote_points"], r["hand_score"]) == ([0, 0], [14, 12]), ann
