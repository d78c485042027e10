"""[declarations]: what is declared, what it is worth, and the contest between teams (rules.md R17-R24).

Deals are constructed so that exactly the declarations named in each comment exist (each test also checks the
``declarations`` items, which proves the deal). Hearts trump unless said, dealer seat 3. Hands are recorded as
tricks taken: seat 0 takes hearts and clubs (team 0: 92 + 10), seat 1 the rest, unless said, so the contract is
made and ``declaration_points`` (per team, after the contest and ``on_capot``) is what is checked.
Base values (PAGAT-B, FFB-Co15 §8; R18-R19): tierce 20, quarte 50, quinte 100; carré J 200, 9 150, 10 Q K A 100
(suit contract); no-trump carré A 200, 10 150, K Q J 9 100.
"""

import pytest

from .harness import PACK, RANKS, STD4, deal, hand, rest, ruleset, score1, suit

pytestmark = pytest.mark.rules

ON = {"declarations.enabled": True}
STRAINS6 = {"auction.strains": ["C", "D", "H", "S", "NT", "AT"]}
D = ruleset("base", ON)
WON = [suit("H") + " " + suit("C"), rest(suit("H"), suit("C"))]


def decl(R, hands, strain="H", won=WON, last=0, **kw):
    """(declaration_points, items as (seat, kind, points, scored)) of one hand, belotes left out (the carré of
    queens gives seat 0 KH QH)."""
    row = score1(R, hand(hands, won, last, strain=strain, **kw))
    assert row["status"] == "scored", row["reason"]
    return row["declaration_points"], [(d["seat"], d["kind"], d["points"], d["scored"]) for d in row["declarations"]
                                      if d["kind"] != "belote"]


# STD4 with two swaps: seat 0 holds 7C 9C TC JC (a tierce 9-10-J of clubs) and no other run; nobody else has one.
TIERCE = deal("7C 9C TC JC 9H KH TS AS", "8C QC 9D KD TH AH 7S JS", "KC 8D TD AD 7H JH 8S QS",
              "AC 7D JD QD 8H QH 9S KS")
# seat 0: 8C 9C TC JC, a quarte
QUARTE = deal("8C 9C TC JC 9H KH TS AS", "7C QC 9D KD TH AH 7S JS", "KC 8D TD AD 7H JH 8S QS",
              "AC 7D JD QD 8H QH 9S KS")
# seat 0: 7C 8C 9C TC JC, a quinte
QUINTE = deal("7C 8C 9C TC JC KH TS AS", "9H QC 9D KD TH AH 7S JS", "KC 8D TD AD 7H JH 8S QS",
              "AC 7D JD QD 8H QH 9S KS")


@pytest.mark.covers("declarations.enabled")
def test_enabled():
    assert decl(D, TIERCE) == ([20, 0], [(0, "tierce", 20, True)])
    assert decl(ruleset("base"), TIERCE) == ([0, 0], [])       # base: no declarations


@pytest.mark.parametrize("key,hands,kind,value,changed", [
    pytest.param("tierce", TIERCE, "tierce", 20, 30, marks=pytest.mark.covers("declarations.tierce")),
    pytest.param("quarte", QUARTE, "quarte", 50, 40, marks=pytest.mark.covers("declarations.quarte")),
    pytest.param("quinte", QUINTE, "quinte", 100, 150, marks=pytest.mark.covers("declarations.quinte")),
])
def test_sequence_values(key, hands, kind, value, changed):
    assert decl(D, hands) == ([value, 0], [(0, kind, value, True)])
    assert decl(ruleset("base", {**ON, f"declarations.{key}": changed}), hands) == ([changed, 0],
                                                                                    [(0, kind, changed, True)])


@pytest.mark.covers("declarations.in_no_trump")
def test_in_no_trump():
    R = ruleset("base", {**ON, **STRAINS6})
    assert decl(R, TIERCE, strain="NT") == ([0, 0], [])                    # base: none in no-trump
    assert decl(ruleset("base", {**ON, **STRAINS6, "declarations.in_no_trump": True}), TIERCE,
                strain="NT") == ([20, 0], [(0, "tierce", 20, True)])


@pytest.mark.covers("declarations.in_all_trump")
def test_in_all_trump():
    R = ruleset("base", {**ON, **STRAINS6})
    assert decl(R, TIERCE, strain="AT") == ([20, 0], [(0, "tierce", 20, True)])   # base: counted in all-trump
    assert decl(ruleset("base", {**ON, **STRAINS6, "declarations.in_all_trump": False}), TIERCE,
                strain="AT") == ([0, 0], [])


@pytest.mark.covers("declarations.count")
def test_count():
    tierce = [{"seat": 0, "kind": "tierce", "cards": ["9C", "TC", "JC"]}]
    # "held" (base): the tierce in seat 0's hand counts whatever the record says
    assert decl(D, TIERCE, announced=[])[0] == [20, 0]
    # "announced": only what the record announced: nothing -> 0; the tierce -> 20
    ann = ruleset("base", {**ON, "declarations.count": "announced"})
    assert decl(ann, TIERCE, announced=[])[0] == [0, 0]
    assert decl(ann, TIERCE, announced=tierce)[0] == [20, 0]
    # "announced_else_held": the record's list when it has one (empty: 0), else held (20)
    either = ruleset("base", {**ON, "declarations.count": "announced_else_held"})
    assert decl(either, TIERCE, announced=[])[0] == [0, 0]
    assert decl(either, TIERCE)[0] == [20, 0]


def carre_deal(rank: str) -> list[list[str]]:
    """STD4 with seat 0 given the four cards of ``rank``: in each suit where it lacks that card, seat 0 swaps
    its lower card of the suit with the holder's. Every seat still holds at most two cards of a suit, so
    no run exists; the test checks the items (no other carré)."""
    hands = [list(h) for h in STD4]
    for s in "CDHS":
        card = rank + s
        holder = next(i for i, h in enumerate(hands) if card in h)
        if holder:
            give = min((c for c in hands[0] if c[1] == s), key=lambda c: RANKS.index(c[0]))
            hands[0][hands[0].index(give)] = card
            hands[holder][hands[holder].index(card)] = give
    return deal(*(" ".join(h) for h in hands))


CARRE = {"7": 0, "8": 0, "9": 150, "T": 100, "J": 200, "Q": 100, "K": 100, "A": 100}
CARRE_NT = {"7": 0, "8": 0, "9": 100, "T": 150, "J": 100, "Q": 100, "K": 100, "A": 200}


@pytest.mark.covers("declarations.carre")
@pytest.mark.parametrize("rank", list(RANKS))
def test_carre_table(rank):
    key = "10" if rank == "T" else rank
    v = CARRE[rank]
    hands = carre_deal(rank)
    assert decl(D, hands) == ([v, 0], [(0, "carre", v, True)] if v else [])
    # that rank's carré worth 10 more; the no-trump table's change alters nothing in a suit contract
    assert decl(ruleset("base", {**ON, "declarations.carre": {key: v + 10}}), hands) == (
        [v + 10, 0], [(0, "carre", v + 10, True)])
    assert decl(ruleset("base", {**ON, "declarations.carre_no_trump": {key: v + 30}}), hands)[0] == [v, 0]


@pytest.mark.covers("declarations.carre_no_trump")
@pytest.mark.parametrize("rank", list(RANKS))
def test_carre_no_trump_table(rank):
    key = "10" if rank == "T" else rank
    v = CARRE_NT[rank]
    nt = {**ON, **STRAINS6, "declarations.in_no_trump": True}
    hands = carre_deal(rank)
    assert decl(ruleset("base", nt), hands, strain="NT") == ([v, 0], [(0, "carre", v, True)] if v else [])
    assert decl(ruleset("base", {**nt, "declarations.carre_no_trump": {key: v + 10}}), hands, strain="NT") == (
        [v + 10, 0], [(0, "carre", v + 10, True)])
    # the suit-contract table is not read in no-trump
    assert decl(ruleset("base", {**nt, "declarations.carre": {key: v + 30}}), hands, strain="NT")[0] == [v, 0]


# seat 0 carré of kings (100), seat 3 carré of queens (100), seat 1 quinte 7-J of diamonds (100); no other run.
CONTEST = deal("KC KD KH KS 7C 9C 7H 9H", "7D 8D 9D TD JD 7S 9S AD", "8C TC JC 8H TH JH 8S TS",
               "QC QD QH QS AC AH JS AS")


@pytest.mark.covers("declarations.contest")
def test_contest():
    items = [(0, "carre", 100, True), (1, "quinte", 100, False), (3, "carre", 100, False)]
    # "unified" (FFB-Co15 §8.3, R23): the best single declaration decides; a carré beats a run of equal value,
    # kings beat queens: team 0 scores its 100, team 1 nothing
    assert decl(D, CONTEST) == ([100, 0], items)
    # "separate" (Bulgarian): carrés (team 0's kings win: 100) and runs (team 1's quinte: 100) apart
    sep = decl(ruleset("base", {**ON, "declarations.contest": "separate"}), CONTEST)
    assert sep[0] == [100, 100]
    # "sequences_only": runs contested (team 1: 100), every carré for its holder (team 0 100, team 1 100)
    assert decl(ruleset("base", {**ON, "declarations.contest": "sequences_only"}), CONTEST)[0] == [100, 200]


# seat 0 carré of tens, seat 1 carré of kings (both 100); no run (no seat holds 7-8-9 of a suit).
TENS_KINGS = deal("TC TD TH TS 7C 8D 9H JS", "KC KD KH KS 8C 9D 7H QS", "9C JC QC AC 7D JD 7S 8S",
                  "QD AD 8H JH QH AH 9S AS")


@pytest.mark.covers("declarations.carre_order")
def test_carre_order():
    # "face" (base): A K Q J 10 9 -> the kings win: team 1 scores 100
    assert decl(D, TENS_KINGS) == ([0, 100], [(0, "carre", 100, False), (1, "carre", 100, True)])
    # "trick": A 10 K Q J 9 -> the tens win: team 0
    assert decl(ruleset("base", {**ON, "declarations.carre_order": "trick"}), TENS_KINGS)[0] == [100, 0]


# seat 0 tierce 9-10-J of hearts, seat 1 tierce 9-10-J of clubs; nothing else.
TWO_TIERCES = deal("9H TH JH 7C KC 8D QD QS", "9C TC JC 7H AH 8S TS AD", "8C QC 7D 9D JD 8H QH 7S",
                   "AC TD KD KH 9S JS KS AS")


@pytest.mark.covers("declarations.trump_breaks_ties")
def test_trump_breaks_ties():
    # equal runs (tierce, top J): the one in trump (hearts) wins (PAGAT-B, FFB-Co15 §8.3): team 0 scores 20
    assert decl(D, TWO_TIERCES) == ([20, 0], [(0, "tierce", 20, True), (1, "tierce", 20, False)])
    # without it they are equal: tie "none" -> nobody scores
    assert decl(ruleset("base", {**ON, "declarations.trump_breaks_ties": False}), TWO_TIERCES)[0] == [0, 0]


@pytest.mark.covers("declarations.tie")
def test_tie():
    # spades trump: neither tierce in trump, an exact tie. "none" (base, FFB-Co15 §8.3): nobody scores
    assert decl(D, TWO_TIERCES, strain="S")[0] == [0, 0]
    # "first_announcer": the first seat from the dealer's left holding the best: dealer 3 -> seat 0 (team 0);
    # dealer 0 -> seat 1 (team 1)
    first = ruleset("base", {**ON, "declarations.tie": "first_announcer"})
    assert decl(first, TWO_TIERCES, strain="S", dealer=3)[0] == [20, 0]
    assert decl(first, TWO_TIERCES, strain="S", dealer=0)[0] == [0, 20]


@pytest.mark.covers("declarations.ranking")
def test_ranking():
    # "full" (base, rules.md R23): of two carrés of 100 the kings rank above the tens (test_carre_order), and of
    # two tierces to the J the one in trump wins (test_trump_breaks_ties)
    assert decl(D, TENS_KINGS)[0] == [0, 100] and decl(D, TWO_TIERCES)[0] == [20, 0]
    # "value" (seed 001: only combinations worth more points outrank): 100 = 100 and 20 = 20 are ties, and tie
    # "none" (base) leaves both unscored; "first_announcer" gives them to the first seat from the dealer's left
    # holding one: dealer 3 -> seat 0 (team 0), dealer 0 -> seat 1 (team 1)
    value = ruleset("base", {**ON, "declarations.ranking": "value"})
    assert decl(value, TENS_KINGS) == ([0, 0], [(0, "carre", 100, False), (1, "carre", 100, False)])
    assert decl(value, TWO_TIERCES)[0] == [0, 0]
    first = ruleset("base", {**ON, "declarations.ranking": "value", "declarations.tie": "first_announcer"})
    assert decl(first, TENS_KINGS, dealer=3)[0] == [100, 0] and decl(first, TENS_KINGS, dealer=0)[0] == [0, 100]
    assert decl(first, TWO_TIERCES, dealer=0)[0] == [0, 20]       # the trump tierce (seat 0) no longer ranks above


# seat 0 run 7-Q of clubs (6 cards), seat 1 quinte 10-A of diamonds; nothing else.
LONG = deal("7C 8C 9C TC JC QC 7H 9S", "TD JD QD KD AD 8H TH 7S", "KC 7D 8D 9H JH KH 8S QS",
            "AC 9D QH AH TS JS KS AS")


@pytest.mark.covers("declarations.long_runs")
def test_long_runs():
    items_by_length = [(0, "quinte", 100, True), (1, "quinte", 100, False)]
    # "by_length" (PAGAT-B): a 6-run beats a 5-run, though both are worth 100: team 0
    assert decl(D, LONG) == ([100, 0], items_by_length)
    # "quinte": any run of 5+ ranks as a quinte, then the top card: A (seat 1) beats Q: team 1
    assert decl(ruleset("base", {**ON, "declarations.long_runs": "quinte"}), LONG)[0] == [0, 100]


# seat 0: the four jacks and 9H 10H (a tierce 9-10-J of hearts through JH); tests/deals.py DEAL_J.
JACKS = deal("JH 9H AH TH KH JC JD JS", "7H 7C 9C QC 8D TD KD AS", "8H 8C TC KC 7D 9D QD 9S",
             "QH 7S 8S TS QS AC AD KS")


@pytest.mark.covers("declarations.carre_cards_in_sequences")
def test_carre_cards_in_sequences():
    # true (base): JH also counts in the run: 200 + 20
    assert decl(D, JACKS) == ([220, 0], [(0, "carre", 200, True), (0, "tierce", 20, True)])
    # false (Bulgarian): the carré's cards are taken out first: 9H 10H is no run: 200
    assert decl(ruleset("base", {**ON, "declarations.carre_cards_in_sequences": False}), JACKS) == (
        [200, 0], [(0, "carre", 200, True)])


# seat 0 holds the eight clubs (one run of 8); STD4's other cards shared so that nobody else has a run.
EIGHT = deal(suit("C"), "9D KD TH AH 7S JS 8D QD", "TD AD 7H JH 8S QS 9H KH", "7D JD 8H QH 9S KS TS AS")


@pytest.mark.covers("declarations.eight_run_extra_tierce")
def test_eight_run_extra_tierce():
    # a run of 8 is one quinte (100) ...
    assert decl(D, EIGHT) == ([100, 0], [(0, "quinte", 100, True)])
    # ... and with eight_run_extra_tierce (BG-NIK case 066) also a tierce: 120
    assert decl(ruleset("base", {**ON, "declarations.eight_run_extra_tierce": True}), EIGHT)[0] == [120, 0]


@pytest.mark.covers("declarations.on_capot")
def test_on_capot():
    # seat 0's tierce (team 0, 20) wins the contest, but team 1 takes every trick
    capot = dict(won=["", rest()], last=1)
    assert decl(D, TIERCE, **capot)[0] == [20, 0]                                # "keep"
    assert decl(ruleset("base", {**ON, "declarations.on_capot": "to_capot_team"}), TIERCE, **capot)[0] == [0, 20]
    assert decl(ruleset("base", {**ON, "declarations.on_capot": "lost"}), TIERCE, **capot)[0] == [0, 0]
    # no capot: "lost" changes nothing
    assert decl(ruleset("base", {**ON, "declarations.on_capot": "lost"}), TIERCE)[0] == [20, 0]


def test_pack_helpers():
    assert len(PACK) == 32 and rest() == " ".join(PACK)
