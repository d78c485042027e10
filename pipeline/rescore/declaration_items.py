"""The declarations one by one: the items of the ``scores.declarations`` column.

Held declarations, announced ones and belotes are each listed where they are found; this module holds only
the items' layout, so that they and the engine share it without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


KINDS = ("tierce", "quarte", "quinte", "carre", "belote")


@dataclass
class Entries:
    """Declarations one per item (k items), in hand order then seat order, for the ``scores.declarations``
    column. row: int64 index of the hand in the batch; seat: int8; kind: int8 index in :data:`KINDS`;
    rank: int8 top face rank index of a sequence, rank of a carré, NULL-worthy -1 for a belote;
    suit: int8 suit of a sequence or belote, -1 for a carré; length: int8 cards in a sequence (4 for a carré,
    2 for a belote); points: int32 card points it is worth under the ruleset; scored: bool whether it scored
    for its team after the contest (before any capot transfer, ``declarations.on_capot``).
    """

    row: np.ndarray
    seat: np.ndarray
    kind: np.ndarray
    rank: np.ndarray
    suit: np.ndarray
    length: np.ndarray
    points: np.ndarray
    scored: np.ndarray

    @staticmethod
    def concat(parts: "list[Entries]") -> "Entries":
        """All parts' items, stably sorted by (row, seat)."""
        cols = {f: np.concatenate([getattr(p, f) for p in parts]) for f in Entries.__dataclass_fields__}
        # one stable sort on a combined key (seat is int8: +128 keeps its order in 8 bits); the parts come
        # sorted, which the stable sort's run detection turns into a merge
        key = (cols["row"].astype(np.int64) << 8) | (cols["seat"].astype(np.int64) + 128)
        order = np.argsort(key, kind="stable")
        return Entries(**{f: a[order] for f, a in cols.items()})

    def take(self, idx: np.ndarray) -> "Entries":
        """The items at positions ``idx`` (int array), in that order."""
        return Entries(**{f: getattr(self, f)[idx] for f in Entries.__dataclass_fields__})

    @staticmethod
    def empty() -> "Entries":
        return Entries(*(np.zeros(0, dtype=t) for t in (np.int64, np.int8, np.int8, np.int8, np.int8, np.int8,
                                                          np.int32, bool)))
