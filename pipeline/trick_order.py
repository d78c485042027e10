"""Which card wins a trick: the strength orders of the ranks and a card's strength in a trick.

The orders are the same in every variant we know (rules.md R6/R7): trump J 9 A 10 K Q 8 7, plain
A 10 K Q J 9 8 7. They live below both the readers (which order tricks of sources that record only the
cards) and the engine, so that neither imports the other.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP

# strength of each rank index (7 8 9 10 J Q K A) in trump order and in plain order; higher wins
TRUMP_ORDER = np.array([0, 1, 6, 4, 7, 2, 3, 5], dtype=np.int8)
PLAIN_ORDER = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int8)

CARD_SUIT = np.arange(32, dtype=np.int8) // 8
CARD_RANK = np.arange(32, dtype=np.int8) % 8


def strength(cards: np.ndarray, led_suit: np.ndarray, strain: np.ndarray) -> np.ndarray:
    """Trick strength of ``cards`` (int8 array) given the suit led and the strain, as int16.

    Trumps score 16 + trump order; cards of the suit led score their order (trump order in all-trump,
    plain order otherwise); any other card scores -1 and cannot win.
    """
    suit = CARD_SUIT[cards]
    rank = CARD_RANK[cards]
    is_suit_contract = strain < 4
    is_trump = is_suit_contract & (suit == strain)
    led = suit == led_suit
    led_order = np.where(strain == ALL_TRUMP, TRUMP_ORDER[rank], PLAIN_ORDER[rank]).astype(np.int16)
    return np.where(is_trump, 16 + TRUMP_ORDER[rank].astype(np.int16), np.where(led, led_order, -1)).astype(np.int16)


def _strength_lut() -> np.ndarray:
    """STRENGTH[strain * 128 + led * 32 + card] = :func:`strength` of the card, as int16 (768 entries)."""
    strain, led, card = np.meshgrid(np.arange(6), np.arange(4), np.arange(32), indexing="ij")
    return strength(card.reshape(-1).astype(np.int8), led.reshape(-1), strain.reshape(-1)).astype(np.int16)


STRENGTH = _strength_lut()
