"""Lookup tables the engine indexes by strain and card, built once per ruleset.

Points come from the ruleset's ``[cards]`` tables; the strength orders, the same in every variant, from
:mod:`pipeline.trick_order`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP, SUIT_MASKS
from pipeline.rules import Ruleset
from pipeline.trick_order import PLAIN_ORDER, TRUMP_ORDER


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
