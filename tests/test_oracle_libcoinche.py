"""gyscos/libcoinche play validity (../shared/oracles/cases/libcoinche.json, 8 cases) under the `libcoinche` ruleset,
through :func:`pipeline.rescore.play.legal_cards`. P0..P3 are our seats 0..3; P0 leads the trick; a card the player
does not hold is never in the legal mask (libcoinche's CardMissing)."""

import functools

import numpy as np
import pytest

from conftest import shared_cases, shared_path
from pipeline import rules
from pipeline.cards import mask_of, parse_card, parse_strain
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.trick_order import strength

FILE = "oracles/cases/libcoinche.json"
R = functools.partial(rules.load, "libcoinche")


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 8


def _winner(cards, strain):
    """Index in ``cards`` (played in order) of the card winning the trick."""
    led = np.repeat(np.int8(cards[0] // 8), len(cards))
    return int(np.argmax(strength(np.array(cards, dtype=np.int8), led, np.repeat(np.int8(strain), len(cards)))))


@pytest.mark.parametrize("case", shared_cases(FILE, "play_validity"))
def test_play_validity(case):
    i, e = case["input"], case["expected"]
    assert i["contract"].endswith("by P0")
    strain = parse_strain(i["trump"])
    seat = int(i["seat"][1])
    trick = [parse_card(c) for c in i["trick_so_far"]]
    assert seat == len(trick)                      # P0 leads, play goes P0 P1 P2 P3
    win = _winner(trick, strain) if trick else 0
    hand = mask_of(parse_card(c) for c in i["hands_at_start"][i["seat"]])   # first trick: nothing played yet
    legal = int(legal_cards(np.array([hand], dtype=np.uint32), np.array([not trick]),
                            np.array([trick[0] // 8 if trick else 0], dtype=np.int8), np.array([strain], dtype=np.int8),
                            np.array([trick[win] if trick else 0], dtype=np.int8),
                            np.array([bool(trick) and win % 2 == seat % 2]), PlayRules.of(R()))[0])
    card = parse_card(i["card"])
    assert bool(legal >> card & 1) is e["legal"]
    if "trick_winner" in e:
        assert f"P{_winner(trick + [card], strain)}" == e["trick_winner"]
