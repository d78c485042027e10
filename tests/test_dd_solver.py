"""The double-dummy solver (pipeline/rescore/dd_solver.py, issue 22) against a second oracle and hand-checked
endings.

The oracle is a plain minimax over every legal card (no pruning, no table, no equivalent cards), written here in
Python: the legal cards come from `play.legal_cards` (the rules the rescoring applies), the trick's winner from
`trick_order.strength`, the points from the ruleset's tables. On random 3-trick endings (and a few of 4 tricks)
under every shipped ruleset family's play rules, with tricks in progress, the solver must give the oracle's value
exactly. The hand-checked endings each pin one play duty: removing the duty from the ruleset changes the value,
so the test fails if the solver stops applying it.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.cards import parse_card
from pipeline.rescore import dd_solver as dd
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.rescore.tables import build
from pipeline.rules import load
from pipeline.trick_order import strength

#: one ruleset per family of play rules and card points (classic, contrée, Bulgarian with its no-trump and
#: all-trump, the 3- and 2-player games, FFB with undertrump, libcoinche's partner raise, BGA's capot last trick worth less
#: than the plain one: 0 against 10)
FAMILIES = ("belote-classic", "colver", "bulgarian", "belote-3p", "belote-2p", "ffb-contree-2016", "libcoinche",
            "openspiel", "bga-coinche")


def mask(*cards: str) -> int:
    return sum(1 << parse_card(c) for c in cards)


def oracle(rules, hands: list[int], strain: int, leader: int, trick: list[int], side: list[int],
           took: int = 0) -> int:
    """Side 0's card points with best play, by trying every legal card at every turn."""
    pts = build(rules).points[strain]
    pr = PlayRules.of(rules)
    last, capot_last = rules["cards.last_trick"], rules["cards.capot_last_trick"]
    P = len(hands)

    def value(hands, leader, trick, took):
        if not trick and not any(hands):
            return 0
        seat = (leader + len(trick)) % P
        if trick:
            st = strength(np.array(trick, np.int8), np.repeat(trick[0] // 8, len(trick)),
                          np.repeat(strain, len(trick)))
            w = int(np.argmax(st))
            legal = int(legal_cards(np.array([hands[seat]], np.uint32), np.array([False]),
                                    np.array([trick[0] // 8]), np.array([strain], np.int8),
                                    np.array([trick[w]], np.int8), np.array([P == 4 and (leader + w) % 2 == seat % 2]),
                                    pr)[0])
        else:
            legal = hands[seat]
        results = []
        for c in range(32):
            if not legal >> c & 1:
                continue
            h = list(hands)
            h[seat] &= ~(1 << c)
            t = trick + [c]
            if len(t) < P:
                results.append(value(h, leader, t, took))
                continue
            st = strength(np.array(t, np.int8), np.repeat(t[0] // 8, P), np.repeat(strain, P))
            winner = (leader + int(np.argmax(st))) % P
            s = side[winner]
            now = took | 1 << s
            gain = int(sum(pts[x] for x in t))
            if not any(h):
                gain += capot_last if now == 1 << s else last
            results.append((gain if s == 0 else 0) + value(h, winner, [], now))
        return max(results) if side[seat] == 0 else min(results)

    return value(hands, leader, list(trick), took)


def random_ending(rng, P: int, tricks: int, on_table: int):
    """Hands of ``tricks`` cards a seat (one fewer for the seats that already played to the trick on the
    table), the trick so far, and the leader."""
    cards = rng.permutation(32)
    leader = int(rng.integers(P))
    need = [tricks - (1 if (s - leader) % P < on_table else 0) for s in range(P)]
    hands, i = [], 0
    for s in range(P):
        hands.append(int(sum(1 << int(c) for c in cards[i:i + need[s]])))
        i += need[s]
    trick = [int(c) for c in cards[i:i + on_table]]
    return hands, leader, trick


@pytest.mark.parametrize("name", FAMILIES)
def test_the_solver_gives_the_oracles_value_on_random_endings(name):
    rules = load(name)
    spec = dd.Spec(rules)
    tt = dd.new_table()
    rng = np.random.default_rng(22)
    P = load(name)["deal.n_players"]
    strains = [0, 1, 2, 3] + ([4, 5] if name == "bulgarian" else [])
    checked = 0
    for i in range(40):
        strain = strains[i % len(strains)]
        tricks = 4 if i % 10 == 0 else 3
        hands, leader, trick = random_ending(rng, P, tricks, on_table=i % P)
        side = list(dd.side_of(P, taker=int(rng.integers(P))))
        took = int(rng.integers(4))
        want = oracle(rules, hands, strain, leader, trick, side, took)
        got = dd.solve(spec, hands, strain, leader, trick, side, took, tt=tt, tricks_left=tricks)
        assert got == want, (name, i, hands, strain, leader, trick, side, took)
        checked += 1
    assert checked == 40


def _classic(**play) -> "object":
    """belote-classic with some ``[play]`` duties changed."""
    import copy
    import dataclasses
    rules = load("belote-classic")
    params = copy.deepcopy(rules.params)
    params["play"].update(play)
    return dataclasses.replace(rules, params=params)


HEARTS = parse_card("AH") // 8
BOTH_TOOK = 3        # both sides took a trick before the ending: no capot in these endings


def _flips(param: str, hands: list[int], trick: list[int], want: dict[bool, int], strain: int = HEARTS) -> None:
    """North-South's value of a hand-checked ending (North led ``trick``) with ``play.<param>`` on and off: the
    oracle and the solver both give ``want[value]``."""
    for value, points in want.items():
        rules = _classic(**{param: value})
        assert oracle(rules, hands, strain, 0, trick, [0, 1, 0, 1], BOTH_TOOK) == points, value
        assert dd.solve(dd.Spec(rules), hands, strain, 0, trick, took=BOTH_TOOK) == points, value


def test_hand_checked_must_trump():
    """Hearts trump; North led the ace of spades. East (void in spades) holds the 7 of hearts and the 10 of
    clubs; South the 7 of spades and the 8 of clubs; West the 8 of spades and the 9 of clubs; North keeps the
    ace of clubs. With play.must_trump, East, an opponent winning, must trump: East takes the spades (11
    points), then leads the 10 of clubs, which North's ace takes (10 + 11, and 10 for the last trick): North-South
    31. Without the duty East discards the 10 of clubs under the ace (North-South 21) and trumps North's ace of
    clubs at the last trick (11 + 10 to East-West): North-South 21."""
    hands = [mask("AC"), mask("7H", "TC"), mask("7S", "8C"), mask("8S", "9C")]
    trick = [parse_card("AS")]
    _flips("must_trump", hands, trick, {True: 31, False: 21})


def test_hand_checked_partner_exemption():
    """Hearts trump; North led the ace of spades and East followed with the 7 of spades. South (void in spades)
    holds the 7 of hearts and the 10 of clubs; West the 8 of spades and the 8 of clubs; North the 9 of clubs; East
    the ace of clubs. With play.partner_exemption South, partner winning, discards the 10 of clubs (21 to
    North-South), then trumps East's ace of clubs at the last trick (11 + 10): North-South 42. Without it South
    must trump the ace of spades (11) and East's ace of clubs then takes the 10 at the last trick: North-South 11."""
    hands = [mask("9C"), mask("AC"), mask("7H", "TC"), mask("8S", "8C")]
    trick = [parse_card("AS"), parse_card("7S")]
    _flips("partner_exemption", hands, trick, {True: 42, False: 11})


def test_hand_checked_partner_exemption_must_raise():
    """Hearts trump; North led the 7 of spades and East trumped with the 8 of hearts. South holds the 8 of spades and
    the 9 of hearts (he follows with the 8 of spades); West, void in spades, the jack and the 7 of hearts; North
    keeps the ace of clubs, East the 10 of clubs. West's partner wins with a trump, so the partner exemption frees
    him. With play.partner_exemption_must_raise (libcoinche) a trump he plays must still beat the 8: the jack
    (trick 1, 20 points to East-West); he then leads the 7 of hearts, South's 9 of hearts takes it with the ace and
    the 10 of clubs (0 + 11 + 10 + 14, and 10 for the last trick): North-South 45. Without it West plays the 7 under
    his partner's 8 (0 points to East-West), East leads the 10 of clubs, South must trump it with the 9 and West's
    jack takes everything (10 + 14 + 20 + 11, and 10): North-South 0."""
    hands = [mask("AC"), mask("TC"), mask("8S", "9H"), mask("JH", "7H")]
    trick = [parse_card("7S"), parse_card("8H")]
    _flips("partner_exemption_must_raise", hands, trick, {True: 45, False: 0})


def test_hand_checked_capot_and_last_trick():
    """One trick left, North leads the jack of hearts (trump) and every other card is a small spade: North-South
    take the trick's 20 points and the last trick. Having taken every trick before (East-West took none) it is a
    capot: 20 + cards.capot_last_trick (100); otherwise 20 + cards.last_trick (10)."""
    rules = load("belote-classic")
    hands = [mask("JH"), mask("7S"), mask("8S"), mask("9S")]
    spec = dd.Spec(rules)
    assert dd.solve(spec, hands, HEARTS, 0, took=1) == 20 + rules["cards.capot_last_trick"] == 120
    assert dd.solve(spec, hands, HEARTS, 0, took=3) == 20 + rules["cards.last_trick"] == 30
    assert dd.solve(spec, hands, HEARTS, 0, took=2) == 30


def test_hand_checked_must_overtrump():
    """Hearts trump; North led the 7 of spades and East trumped with the 9 of hearts (14). South (void in spades)
    holds the jack and the 8 of hearts; West the 8 of spades and the king of clubs; North the queen of clubs; East
    the 10 of hearts. With play.must_overtrump South must beat the 9: the jack takes 34, and East's 10 of hearts
    takes the last trick (8H, KC, QC, TH: 17 + 10): North-South 34. Without it South under-trumps with the 8 (East
    takes 14) and keeps the jack for East's 10 at the last trick (10 + 20 + 4 + 3 + 10): North-South 47."""
    hands = [mask("QC"), mask("TH"), mask("JH", "8H"), mask("8S", "KC")]
    trick = [parse_card("7S"), parse_card("9H")]
    _flips("must_overtrump", hands, trick, {True: 34, False: 47})


def test_hand_checked_must_undertrump():
    """Hearts trump; North led the 7 of spades and East trumped with the jack of hearts. South (void in spades)
    holds the 8 of hearts and the 7 of diamonds; West the 8 of spades and the 9 of clubs; North the queen of
    diamonds; East the 10 of clubs. With play.must_undertrump South must play the 8 of hearts under the jack, and
    East's 10 of clubs then takes the last trick (13 + 10): North-South 0. Without it South discards the 7 of
    diamonds and ruffs the 10 of clubs with the 8 of hearts (10 + 3 + 10): North-South 23."""
    hands = [mask("QD"), mask("TC"), mask("8H", "7D"), mask("8S", "9C")]
    trick = [parse_card("7S"), parse_card("JH")]
    _flips("must_undertrump", hands, trick, {True: 0, False: 23})


def test_a_capot_last_trick_worth_less_than_the_plain_one():
    """bga-coinche scores the capot's last trick 0 (its capot is a bonus) and the plain last trick 10. While
    East-West have taken nothing, the most North-South can still take must count the plain last trick's 10 (East-West
    may yet take a trick): in this 3-trick ending (clubs trump, South leads, found by a review against the oracle)
    the oracle's value is 61; the bound that counted the capot's 0 cut the best line off and gave 53."""
    rules = load("bga-coinche")
    assert rules["cards.capot_last_trick"] < rules["cards.last_trick"]
    hands = [mask("8H", "QS", "AS"), mask("7C", "QD", "TS"), mask("JC", "9D", "KD"), mask("7H", "9H", "JS")]
    assert oracle(rules, hands, 0, 2, [], [0, 1, 0, 1], took=0) == 61
    assert dd.solve(dd.Spec(rules), hands, 0, 2, took=0, tricks_left=3) == 61


def test_hand_checked_overtrump_on_trump_lead():
    """Hearts trump; North led the 8 of hearts. East holds the jack and the 7 of hearts; South the queen and the 8
    of spades; West the 10 and the 7 of clubs; North the 9 of hearts. With play.overtrump_on_trump_lead East must
    beat the 8: the jack takes the trick (West adds the 10 of clubs: 30 to East-West) and North's 9 of hearts
    takes the last trick (7H, QS, 7C, 9H: 17 + 10): North-South 27. Without it East ducks with the 7, North's 8
    takes a trick South adds the queen to (3), and East's jack takes North's 9 at the last trick: North-South 3."""
    hands = [mask("9H"), mask("JH", "7H"), mask("QS", "8S"), mask("TC", "7C")]
    trick = [parse_card("8H")]
    _flips("overtrump_on_trump_lead", hands, trick, {True: 27, False: 3})


def test_hand_checked_partner_exemption_on_trump_lead():
    """Hearts trump; North led the 9 of hearts. East holds the 10 and the 8 of hearts; South the jack and the 7 of
    hearts; West the queen and the ace of spades; North the king of spades. Without
    play.partner_exemption_on_trump_lead South must beat his partner's 9 with the jack (37 to North-South: 9H, 8H,
    JH, QS), and East's 10 of hearts then takes South's 7 at the last trick: North-South 37. With it (seed 002)
    South plays the 7 under the 9 (17), keeps the jack for East's 10 at the last trick (KS, TH, JH, AS: 45 + 10):
    North-South 72, every point."""
    hands = [mask("KS"), mask("TH", "8H"), mask("JH", "7H"), mask("QS", "AS")]
    trick = [parse_card("9H")]
    _flips("partner_exemption_on_trump_lead", hands, trick, {False: 37, True: 72})


def test_hand_checked_all_trump_must_head():
    """All-trump (J 14, 9 9, A 6, 10 5, K 3, Q 1: cards.all_trump); North led the king of spades. East holds the
    ace and the 7 of spades; South the jack of spades and the 7 of diamonds; West the 8 of spades and the ace of
    diamonds; North the 8 of diamonds. With play.all_trump_must_head East must beat the king with his ace, which
    South's jack takes (KS, AS, JS, 8S: 23 to North-South); West's ace of diamonds takes the last trick (6 + 10):
    North-South 23. Without it East ducks with the 7 (North-South 17) and puts his ace on West's winning ace of
    diamonds at the last trick (12 + 10 to East-West): North-South 17."""
    hands = [mask("8D"), mask("AS", "7S"), mask("JS", "7D"), mask("8S", "AD")]
    trick = [parse_card("KS")]
    all_trump = 5
    _flips("all_trump_must_head", hands, trick, {True: 23, False: 17}, strain=all_trump)
