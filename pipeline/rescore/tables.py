"""Lookup tables the engine indexes by strain and card, built once per ruleset.

Strength orders are the same in every variant we know (rules.md R6/R7): trump J 9 A 10 K Q 8 7, plain
A 10 K Q J 9 8 7. Points come from the ruleset's ``[cards]`` tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP, SUIT_MASKS
from pipeline.rules import Ruleset

# strength of each rank index (7 8 9 10 J Q K A) in trump order and in plain order; higher wins
TRUMP_ORDER = np.array([0, 1, 6, 4, 7, 2, 3, 5], dtype=np.int8)
PLAIN_ORDER = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int8)

CARD_SUIT = np.arange(32, dtype=np.int8) // 8
CARD_RANK = np.arange(32, dtype=np.int8) % 8


def _above(order: np.ndarray) -> np.ndarray:
    """ABOVE[c]: mask of the cards of c's suit strictly stronger than c under ``order``; ABOVE[32] = all."""
    out = np.zeros(33, dtype=np.uint32)
    for c in range(32):
        s, r = divmod(c, 8)
        m = 0
        for r2 in range(8):
            if order[r2] > order[r]:
                m |= 1 << (s * 8 + r2)
        out[c] = m
    out[32] = 0xFFFFFFFF
    return out


ABOVE_TRUMP = _above(TRUMP_ORDER)
ABOVE_PLAIN = _above(PLAIN_ORDER)
BIT = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)


@dataclass(frozen=True)
class Tables:
    """Per-ruleset tables. ``points[strain, card]`` (int16, shape (6, 32)) are card points;
    ``trump_mask[strain]`` (uint32, shape (6,)) the trump cards of a strain (all cards in all-trump)."""

    points: np.ndarray
    trump_mask: np.ndarray

    @property
    def points_flat(self) -> np.ndarray:
        """``points`` flattened: card points of card c in strain s at index ``s * 32 + c``."""
        return self.points.reshape(-1)


def build(rules: Ruleset) -> Tables:
    """Build :class:`Tables` from a ruleset's ``[cards]`` section."""
    trump = np.array(rules.rank_table("cards.trump"), dtype=np.int16)
    plain = np.array(rules.rank_table("cards.plain"), dtype=np.int16)
    nt = np.array(rules.rank_table("cards.no_trump"), dtype=np.int16)
    at = np.array(rules.rank_table("cards.all_trump"), dtype=np.int16)
    points = np.zeros((6, 32), dtype=np.int16)
    for strain in range(4):
        for c in range(32):
            points[strain, c] = trump[c % 8] if c // 8 == strain else plain[c % 8]
    points[NO_TRUMP] = np.tile(nt, 4)
    points[ALL_TRUMP] = np.tile(at, 4)
    trump_mask = np.zeros(6, dtype=np.uint32)
    trump_mask[:4] = SUIT_MASKS
    trump_mask[ALL_TRUMP] = 0xFFFFFFFF
    return Tables(points=points, trump_mask=trump_mask)


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
