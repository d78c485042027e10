"""Card notations (pipeline/cards.py): every notation real sources use, and bad tokens."""

import numpy as np
import pytest

from pipeline.cards import (ALL_TRUMP, NO_TRUMP, CardError, card_str, cards_of, mask_of, parse_card, parse_cards,
                            parse_strain, popcount32)

# Encoding from the module docstring: suit*8 + rank, suits C D H S, ranks 7 8 9 10 J Q K A.
EXPECTED = {"7C": 0, "AC": 7, "TD": 11, "JH": 20, "QH": 21, "KS": 30, "AS": 31, "8D": 9, "9S": 26}


@pytest.mark.parametrize("text,card", sorted(EXPECTED.items()))
def test_canonical_round_trip(text, card):
    assert parse_card(text) == card
    assert card_str(card) == text


@pytest.mark.parametrize("token,expected", [
    ("10H", "TH"), ("XH", "TH"), ("th", "TH"), ("H10", "TH"), ("HT", "TH"),      # ten: 10 / T / X, either order
    ("VS", "JS"), ("DH", "QH"), ("RC", "KC"), ("1D", "AD"), ("D1", "AD"),        # French letters: valet dame roi as
    ("DD", "QD"), ("CD", "QC"),                                                   # D is both dame and diamonds
    ("11S", "JS"), ("12C", "QC"), ("13D", "KD"), ("14H", "AH"), ("S14", "AS"),    # 7-14 numbering
    ("A♠", "AS"), ("♠A", "AS"), ("10♥", "TH"), ("♦K", "KD"), ("7♣", "7C"), ("Q♡", "QH"),  # symbols
    ("king of hearts", "KH"), ("Ace of Spades", "AS"), ("10 of clubs", "TC"),     # English words
    ("roi de cœur", "KH"), ("as de pique", "AS"), ("valet de carreau", "JD"), ("dame de trèfle", "QC"),
    ("sept de coeur", "7H"), (" JS ", "JS"),
])
def test_notations(token, expected):
    assert card_str(parse_card(token)) == expected


@pytest.mark.parametrize("token", ["", "ZZ", "1", "6H", "15S", "JX", "HH", "king of stars", "A♠♠", "10", "JOKER"])
def test_bad_tokens_quote_the_token(token):
    with pytest.raises(CardError) as e:
        parse_card(token)
    assert repr(token) in str(e.value)


def test_non_text_token():
    with pytest.raises(CardError):
        parse_card(7)  # type: ignore[arg-type]


def test_parse_cards_and_masks():
    cards = parse_cards("7C, AS JH")
    assert cards == [0, 31, 20]
    m = mask_of(cards)
    assert m == (1 << 0) | (1 << 31) | (1 << 20)
    assert cards_of(m) == [0, 20, 31]
    assert popcount32(np.array([m, 0, 0xFFFFFFFF], dtype=np.uint32)).tolist() == [3, 0, 32]


@pytest.mark.parametrize("token,strain", [("S", 3), ("♥", 2), ("carreau", 1), ("NT", NO_TRUMP), ("SA", NO_TRUMP),
                                          ("no-trump", NO_TRUMP), ("TA", ALL_TRUMP), ("all trumps", ALL_TRUMP)])
def test_strains(token, strain):
    assert parse_strain(token) == strain


def test_bad_strain():
    with pytest.raises(CardError, match="'Z'"):
        parse_strain("Z")


def test_card_str_range():
    with pytest.raises(CardError):
        card_str(32)
