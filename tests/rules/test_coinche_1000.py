"""coinche-1000: the coinche of seed 004 (../shared/seeds/004_d127db038aaa4e12.txt), scored as its text says.

Totals are team totals (card points with the last trick, declarations after the contest, belote); every
expected number is worked out by hand from the text in the comment above it, and each test checks the same
position with the parameter changed (a house file) so that it fails if the rule's code is removed.
"""

from __future__ import annotations

import pytest
import numpy as np
from helpers import score
from .seedkit import game, hand, house, settle1

from pipeline import rules
from pipeline.cards import mask_of, parse_card, parse_strain
from pipeline.rescore import declarations

pytestmark = pytest.mark.rules
C = "coinche-1000"


@pytest.mark.covers("coinche-1000:contract.made_min_card_points", "contract.made_min_card_points",
                    "coinche-1000:contract.made_counts_declarations", "coinche-1000:contract.made_vs_bid",
                    "coinche-1000:contract.fail_declarations", "coinche-1000:contract.fail_adds_bid",
                    "coinche-1000:contract.fail_base")
def test_made_needs_82_card_points(tmp_path):
    # Made when the takers have at least 82 card points and their card points, declarations and belote reach the
    # bid: bid 80, cards 80 + a tierce 20 = 100 >= 80 but 80 card points < 82: failed. The defenders then score
    # 160, the bid and every declaration: 160 + 80 + 20 = 260.
    assert settle1(C, (80, 82), decl=(20, 0), bid=80) == ([0, 260], False, 0)
    # without the card-point minimum: made, 80 + 20 + 80 = 180; defence 82 -> 80.
    no_min = house(tmp_path, C, "[contract]\nmade_min_card_points = 0")
    assert settle1(no_min, (80, 82), decl=(20, 0), bid=80) == ([180, 80], True, 0)
    # 82 card points, a belote: 82 + 20 = 102 >= 100: made, 102 + 100 = 202 -> 200; defence 80.
    assert settle1(C, (82, 80), belote=(20, 0), bid=100) == ([200, 80], True, 0)


@pytest.mark.covers("coinche-1000:contract.made_adds_bid", "coinche-1000:rounding.mode",
                    "coinche-1000:contract.made_vs_defence", "coinche-1000:contract.tie")
def test_made_points_plus_bid_rounded(tmp_path):
    # Made: the takers score their points plus the bid, the defenders their own, each rounded to the nearest
    # ten: bid 110, 113 -> 113 + 110 = 223 -> 220; defence 49 -> 50. 115 + 110 = 225 -> 230 (a 5 up);
    # defence 47 -> 50. With 5 down (nearest10_6up): 220, 50.
    assert settle1(C, (113, 49), bid=110) == ([220, 50], True, 0)
    assert settle1(C, (115, 47), bid=110) == ([230, 50], True, 0)
    down = house(tmp_path, C, "[rounding]\nmode = \"nearest10_6up\"")
    assert settle1(down, (115, 47), bid=110) == ([220, 50], True, 0)
    # no comparison with the defence: 90 on a bid of 90 against 72 + a carré 100 = 172: made, 180; defence 170.
    assert settle1(C, (90, 72), decl=(0, 100), bid=90) == ([180, 170], True, 0)


@pytest.mark.covers("coinche-1000:contract.capot_bid_counts_flat", "contract.capot_bid_counts_flat",
                    "coinche-1000:contract.unbid_capot_flat", "coinche-1000:contract.capot_bid_value",
                    "coinche-1000:cards.capot_last_trick", "coinche-1000:declarations.on_capot")
def test_capot_counts_250_for_the_cards(tmp_path):
    # A team that takes every trick counts 250 for its cards instead: an unbid capot on a bid of 80:
    # 250 + 80 = 330. A capot bid made (worth 500): 250 + 250 + its quarte 50 + belote 20 = 570.
    assert settle1(C, (252, 0), capot=0, bid=80) == ([330, 0], True, 0)
    assert settle1(C, (252, 0), capot=0, capot_bid=True, decl=(50, 0), belote=(20, 0)) == ([570, 0], True, 0)
    # Without the flat on a capot bid its cards count 252: 252 + 250 + 50 + 20 = 572 (no rounding to see it).
    exact = house(tmp_path, C, "[rounding]\nmode = \"none\"")
    assert settle1(exact, (252, 0), capot=0, capot_bid=True, decl=(50, 0), belote=(20, 0)) == ([570, 0], True, 0)
    no_flat = house(tmp_path, C, "[rounding]\nmode = \"none\"\n[contract]\ncapot_bid_counts_flat = false")
    assert settle1(no_flat, (252, 0), capot=0, capot_bid=True, decl=(50, 0), belote=(20, 0)) == ([572, 0], True, 0)


@pytest.mark.covers("coinche-1000:contract.fail_base_capot_bid", "contract.fail_base_capot_bid",
                    "coinche-1000:contract.fail_base_defence_capot", "coinche-1000:belote.on_failure")
def test_failed_capot_bid_is_worth_500(tmp_path):
    # A capot bid is worth 500 whether made or failed: takers 150 of 162 with a belote: failed; the defence
    # 250 + 250 + its tierce 20 + its belote 20 = 540; the takers keep their belote (failed takers keep only
    # that): 20. With the 160 base: 160 + 250 + 40 = 450.
    assert settle1(C, (150, 12), capot_bid=True, decl=(0, 20), belote=(20, 20)) == ([20, 540], False, 0)
    base160 = house(tmp_path, C, "[contract]\nfail_base_capot_bid = 0")
    assert settle1(base160, (150, 12), capot_bid=True, decl=(0, 20), belote=(20, 20)) == ([20, 450], False, 0)
    # a defence that takes every trick of a bid of 80 counts 250 for its cards: 250 + 80 = 330; with the
    # fail_base_defence_capot of 160: 240.
    assert settle1(C, (0, 252), capot=1, bid=80) == ([0, 330], False, 0)
    d160 = house(tmp_path, C, "[contract]\nfail_base_defence_capot = 160")
    assert settle1(d160, (0, 252), capot=1, bid=80) == ([0, 240], False, 0)


@pytest.mark.covers("coinche-1000:double.scope", "coinche-1000:double.base", "coinche-1000:double.base_capot",
                    "coinche-1000:double.coinche", "coinche-1000:double.surcoinche",
                    "coinche-1000:double.belote_to_winner", "coinche-1000:double.belote_multiplied")
def test_coinche_winner_scores_160_plus_bid_plus_declarations_times_two(tmp_path):
    # After a coinche the team that wins the hand scores 160 (250 after a capot or a capot bid) plus the bid and
    # every declaration counted, times two, or times four after a surcoinche, each team keeping its belote: bid 100
    # made, the takers' tierce 20, the defence's belote: (160 + 100 + 20) x 2 = 560, defence 20; x 4 = 1120.
    assert settle1(C, (120, 42), decl=(20, 0), belote=(0, 20), bid=100, coinche=1) == ([560, 20], True, 0)
    assert settle1(C, (120, 42), decl=(20, 0), belote=(0, 20), bid=100, coinche=2) == ([1120, 20], True, 0)
    # failed under coinche: the defence (160 + 100 + 20) x 2 = 560, the takers keep nothing but a belote (none)
    assert settle1(C, (70, 92), decl=(20, 0), bid=100, coinche=1) == ([0, 560], False, 0)
    # a capot bid made and coinched: (250 + 250) x 2 = 1000; a defence capot on a bid of 80: (250 + 80) x 2 = 660
    assert settle1(C, (252, 0), capot=0, capot_bid=True, coinche=1) == ([1000, 0], True, 0)
    assert settle1(C, (0, 252), capot=1, bid=80, coinche=1) == ([0, 660], False, 0)
    # the belote inside the product would give (160 + 100 + 20 + 20) x 2 = 600 to ... the takers' own belote:
    inside = house(tmp_path, C, "[double]\nbelote_multiplied = true")
    assert settle1(inside, (120, 42), decl=(20, 0), belote=(20, 0), bid=100, coinche=1) == ([600, 0], True, 0)
    assert settle1(C, (120, 42), decl=(20, 0), belote=(20, 0), bid=100, coinche=1) == ([580, 0], True, 0)


# Declarations of seed 004 on full hands (dealer 3, seat 0 leads). Seat 0 holds every heart (trump) and takes the
# 8 heart tricks' worth of leads... each hand below is described where it is used.
FOUR_NINES = ["9H 9C 9D 9S AH AC AD AS", "7H 8H 7C 8C 7D 8D 7S 8S", "TH JH TC JC TD JD TS JS",
              "QH KH QC KC QD KD QS KS"]
# No-trump, seat 0 leads its aces then its nines: each ace trick A 7 T Q -> seat 2's ten loses to the ace;
# the nine tricks 9 8 J K -> the king wins (seat 3), then seat 3 leads ... the plays are given trick by trick.
NT_TRICKS = ["AH 7H TH QH", "AC 7C TC QC", "AD 7D TD QD", "AS 7S TS QS",
             "9H 8H JH KH", "KC 9C 8C JC", "KD 9D 8D JD", "KS 9S 8S JS"]


@pytest.mark.covers("coinche-1000:declarations.count", "coinche-1000:declarations.carre_no_trump",
                    "coinche-1000:declarations.in_no_trump", "coinche-1000:cards.no_trump",
                    "coinche-1000:auction.strains", "coinche-1000:auction.style", "coinche-1000:declarations.enabled")
def test_no_trump_carres_and_announcements(tmp_path):
    # No-trump A19 10:10 K4 Q3 J2. Tricks 1-4 (seat 0's aces): 19 + 0 + 10 + 3 = 32 each -> team 0 128.
    # Trick 5: 9H 8H JH KH -> KH wins (seat 3): 0 + 0 + 2 + 4 = 6; seat 3 leads KC 9C 8C JC (the king is the best
    # club left: 4 + 0 + 0 + 2 = 6), KD ... 6, KS ... 6 + last trick 10 -> team 1 34. 128 + 34 = 162.
    # Seat 0 holds four nines and four aces: in no-trump four aces are worth 200 ... and there is no carré of
    # nines. Declarations count only when announced (one not called does not score).
    ann = [{"seat": 0, "kind": "carre", "rank": "A"}, {"seat": 0, "kind": "carre", "rank": "9"}]
    bid = dict(taker=0, strain="NT", dealer=3, bid=100)
    r = score(C, game([hand(FOUR_NINES, NT_TRICKS, announced=ann, **bid)]))[0]
    # 128 + 200 = 328 >= 100: made, 328 + 100 = 428 -> 430; defence 34 -> 30.
    assert (r["legal"], r["card_points"], r["declaration_points"], r["hand_score"]) == (True, [128, 34], [200, 0], [430, 30])
    # nothing announced: 128 + 100 = 228 -> 230
    r = score(C, game([hand(FOUR_NINES, NT_TRICKS, announced=[], **bid)]))[0]
    assert (r["declaration_points"], r["hand_score"]) == ([0, 0], [230, 30])
    # the base no-trump carré table (nines 100): 128 + 300 + 100 = 528 -> 530
    nines = house(tmp_path, C, '[declarations]\ncarre_no_trump = { "9" = 100 }')
    r = score(nines, game([hand(FOUR_NINES, NT_TRICKS, announced=ann, **bid)]))[0]
    assert r["declaration_points"] == [300, 0]


def held_points(ruleset, seats: list[str], strain: str, dealer: int = 3) -> list[int]:
    """Declaration points each team scores from the cards held (seats: 8 cards each), after the contest."""
    R = rules.load(ruleset)
    hands = np.array([[mask_of(parse_card(c) for c in h.split()) for h in seats]], dtype=np.uint32)
    dec = declarations.detect(hands, np.array([parse_strain(strain)], dtype=np.int8), R, declarations.build_tables(R),
                              dealer=np.array([dealer]))
    return dec.team_points[0].tolist()


# seat 0: the four jacks and 9H TH (a run 9-10-J of hearts through JH); nobody else holds a declaration.
JACKS = ["JH 9H TH JC JD JS AC AD", "7H 8H 7C 8C QD KD 7S 8S", "QH KH QC KC 7D 8D QS KS",
         "AH 9C TC 9D TD 9S TS AS"]


@pytest.mark.covers("coinche-1000:declarations.carre_cards_in_sequences", "coinche-1000:declarations.carre",
                    "coinche-1000:declarations.in_all_trump", "coinche-1000:declarations.contest")
def test_a_card_counts_in_one_declaration_only(tmp_path):
    # A card counts in one declaration only: JH is in the carré of jacks (200), so 9H TH are no tierce: 200.
    # The others hold three of a rank at most and runs of two. Reading JH into both: 200 + 20 = 220. In all-trump
    # (declarations count in every contract) the same 200; the suit-contract carré of jacks is 200 there too.
    assert held_points(C, JACKS, "H") == [200, 0]
    assert held_points(C, JACKS, "AT") == [200, 0]
    both = house(tmp_path, C, "[declarations]\ncarre_cards_in_sequences = true")
    assert held_points(both, JACKS, "H") == [220, 0]
    off = house(tmp_path, C, "[declarations]\nin_all_trump = false")
    assert held_points(off, JACKS, "AT") == [0, 0]


# seat 0 a run of six hearts 7-Q, seat 1 a run of five spades 9-K; clubs trump; no other declaration.
RUNS = ["7H 8H 9H TH JH QH 7C 8C", "9S TS JS QS KS 7D 8D AC", "KH AH AS 7S JD 9C QC AD",
        "8S TC JC KC TD 9D QD KD"]


@pytest.mark.covers("coinche-1000:declarations.long_runs", "coinche-1000:declarations.quinte")
def test_a_run_of_six_is_one_quinte(tmp_path):
    # A run of six or more cards is one quinte: 7-Q of hearts is a quinte (100) ranked as one, so
    # the contest goes to the higher top card: seat 1's K beats seat 0's Q: team 1 100. Ranking by length
    # (long_runs = "by_length"): the six beats the five: team 0 100.
    assert held_points(C, RUNS, "C") == [0, 100]
    longer = house(tmp_path, C, '[declarations]\nlong_runs = "by_length"')
    assert held_points(longer, RUNS, "C") == [100, 0]


# seat 0 a tierce 9-10-J of hearts, seat 1 a tierce 9-10-J of diamonds; nothing else.
TIERCES = ["9H TH JH 7C 9C JC 7S 9S", "9D TD JD 8C TC QC 8S TS", "7H QH 7D QD KC AC JS KS",
           "8H KH AH 8D KD AD QS AS"]


@pytest.mark.covers("coinche-1000:declarations.tie", "coinche-1000:declarations.trump_breaks_ties",
                    "coinche-1000:declarations.tierce")
def test_equal_best_declarations_score_for_nobody(tmp_path):
    # Clubs trump: two tierces of equal length and top card, neither in trump: when the two best are still equal
    # no declaration counts: [0, 0]. To the first announcer (seat 0, dealer 3): [20, 0]. Hearts trump: in a suit
    # contract the contest's last step is a run in trump: seat 0's wins: [20, 0]; without that rule: [0, 0].
    assert held_points(C, TIERCES, "C") == [0, 0]
    first = house(tmp_path, C, '[declarations]\ntie = "first_announcer"')
    assert held_points(first, TIERCES, "C") == [20, 0]
    assert held_points(C, TIERCES, "H") == [20, 0]
    no_trump_rank = house(tmp_path, C, "[declarations]\ntrump_breaks_ties = false")
    assert held_points(no_trump_rank, TIERCES, "H") == [0, 0]


# seat 0 holds a carré and no run; nobody else holds a declaration (checked by hand: no four of a rank, no
# three in sequence in one suit)
NT_CARRES = {
    "T": ["TH TC TD TS 7D 7C 9S AC", "QS 9C QD 8H JS 9D KD 8C", "7S 9H AH JD 8S QH KS JC", "8D KC JH AD QC KH AS 7H"],
    "K": ["KH KC KD KS 7D 7C 9S AC", "JS 9C JD 8H TS 9D QD 8C", "7S 9H AH TD 8S JH QS TC", "8D QC TH AD JC QH AS 7H"],
    "Q": ["QH QC QD QS 7D 7C 9S AC", "JS 9C JD 8H TS 9D KD 8C", "7S 9H AH TD 8S JH KS TC", "8D KC TH AD JC KH AS 7H"],
    "J": ["JH JC JD JS 7D 7C 9S AC", "QS 9C QD 8H TS 9D KD 8C", "7S 9H AH TD 8S QH KS TC", "8D KC TH AD QC KH AS 7H"],
    "A": ["AH AC AD AS 7D 7C 9S KC", "JS 9C JD 8H TS 9D QD 8C", "7S 9H KH TD 8S JH QS TC", "8D QC TH KD JC QH KS 7H"],
}


@pytest.mark.covers("coinche-1000:declarations.carre_no_trump")
@pytest.mark.parametrize("rank,value", [("A", 200), ("T", 150), ("K", 100), ("Q", 100), ("J", 100)])
def test_no_trump_carre_values_rank_by_rank(rank, value):
    # Seed 004: in no-trump four aces are worth 200, four tens 150, four kings, queens or jacks 100 each.
    assert held_points(C, NT_CARRES[rank], "NT") == [value, 0]
