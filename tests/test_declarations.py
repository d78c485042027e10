"""Declarations and belote detection (pipeline/rescore/declarations.py, belote.py), hands built by hand.

Values: tierce 20, quarte 50, quinte 100, carré J 200, 9 150, A/10/K/Q 100 (PAGAT-B, FFB-Co15 §8; rules.md R18).
Contest: only the team with the best declaration scores, all of its declarations; exact tie -> the first
announcer under belote-classic (PAGAT-B; R23): with dealer 3 (as here) that is seat 0. The tie rule itself is
tested in test_declaration_tie.py.
"""

import numpy as np
import pytest

from pipeline import rules
from pipeline.cards import mask_of, parse_cards, parse_strain
from pipeline.rescore.belote import belote_seat
from pipeline.rescore.declarations import build_tables, detect

R = rules.load("belote-classic")
DT = build_tables(R)


def hands(*seats: str) -> np.ndarray:
    return np.array([[mask_of(parse_cards(s)) for s in seats]], dtype=np.uint32)


def run(seats, strain="H", ruleset=R, dealer=3):
    h = hands(*seats)
    st = np.array([parse_strain(strain)], dtype=np.int8)
    d = detect(h, st, ruleset, build_tables(ruleset), dealer=np.array([dealer]))
    return (d.seq_points + d.carre_points)[0].tolist(), d.team_points[0].tolist()


# filler cards that form nothing: each seat gets what it needs plus junk
@pytest.mark.parametrize("seats,held,team", [
    # tierce 7-8-9 of clubs for seat 0 vs quarte J-Q-K-A of diamonds for seat 1: the quarte wins, team 1 scores 50
    (["7C 8C 9C", "JD QD KD AD", "", ""], [20, 50, 0, 0], [0, 50]),
    # seat 0: tierce + quarte (two runs in one suit: 7 8 9 and J Q K A of spades) = 70; team 0 scores both
    (["7S 8S 9S JS QS KS AS", "", "", ""], [70, 0, 0, 0], [70, 0]),
    # a run of 6 counts as a quinte (100)
    (["7D 8D 9D TD JD QD", "", "", ""], [100, 0, 0, 0], [100, 0]),
    # carré of nines (150) beats a quarte (50); (every quinte holds a jack, so no opponent quinte beside a carré of jacks)
    (["9C 9D 9H 9S", "JH QH KH AH", "", ""], [150, 50, 0, 0], [150, 0]),
    # carré of kings (100) beats a quinte (100) at equal value ("un carré de 100 bat un cent")
    (["KC KD KH KS", "7S 8S 9S TS JS", "", ""], [100, 100, 0, 0], [100, 0]),
    # carré of 8s is worth nothing; the tierce scores
    (["8C 8D 8H 8S", "QC KC AC", "", ""], [0, 20, 0, 0], [0, 20]),
    # equal tierces (same top card, neither in trump): the first announcer's team scores (PAGAT-B, rules.md R23);
    # dealer 3, so seat 0 announces first: team 0 scores its 20
    (["8C 9C TC", "8D 9D TD", "", ""], [20, 20, 0, 0], [20, 0]),
    # equal tierces, one in trump (hearts): the trump one wins
    (["8C 9C TC", "8H 9H TH", "", ""], [20, 20, 0, 0], [0, 20]),
    # higher top card wins between equal lengths; partners' declarations add up (seat 2's tierce scores too)
    (["9C TC JC", "8D 9D TD", "7S 8S 9S", ""], [20, 20, 20, 0], [40, 0]),
    # a card in a carré may also count in a sequence (no ruleset forbids it yet): carré Q + tierce J Q K of spades
    (["QC QD QH QS JS KS", "", "", ""], [120, 0, 0, 0], [120, 0]),
])
def test_contest(seats, held, team):
    assert run(seats) == (held, team)


def test_declarations_disabled_in_colver_and_in_no_trump():
    seats = ["JC JD JH JS", "", "", ""]
    assert run(seats, ruleset=rules.load("colver")) == ([0, 0, 0, 0], [0, 0])
    assert run(seats, strain="NT") == ([0, 0, 0, 0], [0, 0])   # declarations.in_no_trump = false


def test_belote_seat():
    h = hands("KH QH 7C", "KS", "QS", "")
    strain = np.array([parse_strain("H"), parse_strain("S"), parse_strain("NT")] , dtype=np.int8)
    three = np.repeat(h, 3, axis=0)
    assert belote_seat(three, strain, R).tolist() == [0, -1, -1]   # hearts: seat 0; spades split; none in NT
