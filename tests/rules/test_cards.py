"""[cards]: card points per rank and strain, the last trick, capot, strain scaling.

Hands are recorded as tricks taken (which cards each seat took), dealt as ``STD4`` (no declaration, no
belote), so ``card_points`` (per team, last trick / capot included, after scaling) is all that is checked.
Base values (FFB-B16 §2, rules.md R6-R9): trump J20 9:14 A11 10:10 K4 Q3 8:0 7:0 (62 a suit); plain A11 10:10
K4 Q3 J2 (30 a suit); no-trump A19 10:10 K4 Q3 J2 (38); all-trump J14 9:9 A6 10:5 K3 Q1 (38).
"""

import pytest

from .harness import STD4, RANKS, deal, hand, rest, ruleset, score1, suit

pytestmark = pytest.mark.rules

STRAINS6 = {"auction.strains": ["C", "D", "H", "S", "NT", "AT"]}
RANK_KEYS = ["10" if r == "T" else r for r in RANKS]
BASE_TABLES = {
    "trump": {"7": 0, "8": 0, "9": 14, "10": 10, "J": 20, "Q": 3, "K": 4, "A": 11},
    "plain": {"7": 0, "8": 0, "9": 0, "10": 10, "J": 2, "Q": 3, "K": 4, "A": 11},
    "no_trump": {"7": 0, "8": 0, "9": 0, "10": 10, "J": 2, "Q": 3, "K": 4, "A": 19},
    "all_trump": {"7": 0, "8": 0, "9": 9, "10": 5, "J": 14, "Q": 1, "K": 3, "A": 6},
}
# (table, strain, the suit team 0 takes, its points under base, team 1's: the other 24 cards + last trick 10)
#   trump: team 0 all hearts (trump) 62; team 1 three plain suits 90 + 10 = 100
#   plain: team 0 all clubs (hearts trump) 30; team 1 hearts 62 + diamonds 30 + spades 30 + 10 = 132
#   no_trump: team 0 all clubs 38; team 1 3 x 38 + 10 = 124
#   all_trump: team 0 all clubs 38; team 1 3 x 38 + 10 = 124
# (covers() takes literal strings, which test_coverage.py reads without running the tests)
CASES = [pytest.param("trump", "H", "H", 62, 100, marks=pytest.mark.covers("cards.trump"), id="trump"),
         pytest.param("plain", "H", "C", 30, 132, marks=pytest.mark.covers("cards.plain"), id="plain"),
         pytest.param("no_trump", "NT", "C", 38, 124, marks=pytest.mark.covers("cards.no_trump"), id="no_trump"),
         pytest.param("all_trump", "AT", "C", 38, 124, marks=pytest.mark.covers("cards.all_trump"), id="all_trump")]


def _points(R, strain, taken):
    row = score1(R, hand(STD4, [suit(taken), rest(suit(taken))], last=1, strain=strain))
    return row["card_points"]


@pytest.mark.parametrize("table,strain,taken,t0,t1", CASES)
def test_rank_table_as_a_whole(table, strain, taken, t0, t1):
    assert _points(ruleset("base", STRAINS6), strain, taken) == [t0, t1]
    # the whole table replaced by 1 point a rank: team 0's eight cards are worth 8; team 1's: trump, its three
    # plain suits keep theirs (100); plain, its hearts keep the trump table's 62, its diamonds and spades 8 each,
    # + 10 = 88; NT / AT, its 24 cards are 24 + 10 = 34
    ones = {k: 1 for k in RANK_KEYS}
    other = {"trump": 100, "plain": 62 + 16 + 10}.get(table, 3 * 8 + 10)
    assert _points(ruleset("base", {**STRAINS6, f"cards.{table}": ones}), strain, taken) == [8, other]


@pytest.mark.parametrize("table,strain,taken,t0,t1", CASES)
@pytest.mark.parametrize("rank", RANK_KEYS)
def test_each_rank(table, strain, taken, t0, t1, rank):
    # one rank worth 7 more than its base value: team 0, which took the one card of that rank in its suit,
    # scores 7 more; team 1's cards of that rank under the same table add 7 each: none (trump: its suits are
    # plain), 2 x 7 = 14 (plain: diamonds and spades), 3 x 7 = 21 (NT / AT: every suit)
    bumped = ruleset("base", {**STRAINS6, f"cards.{table}": {rank: BASE_TABLES[table][rank] + 7}})
    more = {"trump": 0, "plain": 14}.get(table, 21)
    assert _points(bumped, strain, taken) == [t0 + 7, t1 + more]


def test_named_ranks():
    # a couple of ranks by name: trump J 20 and 9 14 (the 9 is 0 in a plain suit), no-trump A 19
    R = ruleset("base", STRAINS6)
    assert score1(R, hand(STD4, ["JH 9H", rest("JH 9H")], last=1))["card_points"] == [34, 128]   # 20 + 14
    assert score1(R, hand(STD4, ["9C", rest("9C")], last=1))["card_points"] == [0, 162]
    assert score1(R, hand(STD4, ["AC", rest("AC")], last=1, strain="NT"))["card_points"] == [19, 143]


@pytest.mark.covers("cards.last_trick")
def test_last_trick():
    # team 0 all hearts 62, team 1 the rest 90; the last trick's 10 to whoever took it (FFB-B16 §9.1)
    assert _points(ruleset("base"), "H", "H") == [62, 100]
    assert score1(ruleset("base"), hand(STD4, [suit("H"), rest(suit("H"))], last=0))["card_points"] == [72, 90]
    assert _points(ruleset("base", {"cards.last_trick": 20}), "H", "H") == [62, 110]
    assert _points(ruleset("base", {"cards.last_trick": 0}), "H", "H") == [62, 90]


ALL = rest()   # the whole pack


@pytest.mark.covers("cards.capot_last_trick")
def test_capot_last_trick():
    # team 0 takes every trick: 152 + 100 instead of 10 for the last trick = 252 (FFB-B16 §9.2)
    assert score1(ruleset("base"), hand(STD4, [ALL]))["card_points"] == [252, 0]
    assert score1(ruleset("base", {"cards.capot_last_trick": 90}), hand(STD4, [ALL]))["card_points"] == [242, 0]


@pytest.mark.covers("cards.capot_bonus")
def test_capot_bonus():
    # the capot team adds capot_bonus after scaling (Bulgarian valat +90): 252 + 90 = 342
    assert score1(ruleset("base"), hand(STD4, [ALL]))["card_points"] == [252, 0]
    assert score1(ruleset("base", {"cards.capot_bonus": 90}), hand(STD4, [ALL]))["card_points"] == [342, 0]
    # not without a capot: 62 / 100 as in test_last_trick
    assert _points(ruleset("base", {"cards.capot_bonus": 90}), "H", "H") == [62, 100]


@pytest.mark.covers("cards.no_trump_scale")
def test_no_trump_scale():
    # no-trump, team 0 all clubs 38, team 1 124: x 2 / 1 (Bulgarian) -> 76, 248; suit contracts unscaled
    assert _points(ruleset("base", STRAINS6), "NT", "C") == [38, 124]
    doubled = ruleset("base", {**STRAINS6, "cards.no_trump_scale": [2, 1]})
    assert _points(doubled, "NT", "C") == [76, 248]
    assert _points(doubled, "H", "H") == [62, 100]


@pytest.mark.covers("cards.all_trump_scale")
def test_all_trump_scale():
    # all-trump, team 0 clubs 38, team 1 124: x 162 / 258 rounded to nearest (FFB-B16 §11.3):
    # 38 x 162 / 258 = 23.86 -> 24; 124 x 162 / 258 = 77.86 -> 78
    assert _points(ruleset("base", STRAINS6), "AT", "C") == [38, 124]
    scaled = ruleset("base", {**STRAINS6, "cards.all_trump_scale": [162, 258]})
    assert _points(scaled, "AT", "C") == [24, 78]
    assert _points(scaled, "NT", "C") == [38, 124]


# Three players, 8 tricks (24 cards in play): seat 0 took the hearts (62), seat 1 the clubs (30), seat 2 nothing.
STD3 = deal(*(" ".join(h) for h in STD4[:3]))
THREE = {"deal.n_players": 3, "deal.tricks": 8}


@pytest.mark.covers("cards.capot_split_each")
def test_capot_split_each():
    h = hand(STD3, [suit("H"), suit("C"), ""], last=1)
    # split 0 (base): the last trick's 10 as usual, to seat 1: [62, 40, 0]
    assert score1(ruleset("base", THREE), h)["card_points"] == [62, 40, 0]
    # split 50 (ADPOKER3): one player took no trick, each of the two others scores 50 instead of the 10
    assert score1(ruleset("base", {**THREE, "cards.capot_split_each": 50}), h)["card_points"] == [112, 80, 0]
