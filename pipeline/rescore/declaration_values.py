"""What a declaration is worth, in which contracts declarations count, and how two of them rank.

A run of 3, 4, 5+ cards is a tierce, quarte, quinte; a carré is worth its rank's value in ``declarations.carre``
(``carre_no_trump`` in no-trump). Ranking key (rules.md R23): value, then a carré above a sequence of equal value
("un carré de 100 bat un cent"), then run length (``long_runs = "quinte"`` ranks any run of 5+ as a quinte, as
Bridge Belot 2001 does), then the top card (sequences by face rank; carrés by ``carre_order``: "face"
A K Q J 10 9 or "trick" A 10 K Q J 9), then (``trump_breaks_ties``) a sequence in trump above one outside.
``ranking = "value"`` keeps the value alone (seed 001: the other player announces only combinations worth more
than the mano's), so equal values tie and ``declarations.tie`` settles them.

Apart from the detection and the contest because both use them: held and announced declarations are valued
and ranked alike, and the contest compares the keys.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.trick_order import PLAIN_ORDER
from pipeline.rules import Ruleset


def _seq_value(length: int, rules: Ruleset) -> int:
    if length >= 5:
        return int(rules["declarations.quinte"])
    return int({3: rules["declarations.tierce"], 4: rules["declarations.quarte"]}.get(length, 0))


def trump_bonus(rules: Ruleset) -> int:
    """What a sequence in trump adds to its key: 1 when ``trump_breaks_ties`` ranks it above an equal one outside
    (and the ranking reads more than the value), else 0."""
    return int(bool(rules["declarations.trump_breaks_ties"]) and rules["declarations.ranking"] == "full")


def seq_key(value, length, top, trump, rules: Ruleset):
    """Ranking key of a sequence (works on ints or numpy arrays); 0 when value is 0."""
    value = np.asarray(value, dtype=np.int64)
    if rules["declarations.ranking"] == "value":
        return np.where(value > 0, value * 100000, 0)
    cap = 5 if rules["declarations.long_runs"] == "quinte" else 8
    t = np.asarray(trump, dtype=np.int64) * trump_bonus(rules)
    return np.where(value > 0, value * 100000 + np.minimum(np.asarray(length, dtype=np.int64), cap) * 1000
                    + np.asarray(top, dtype=np.int64) * 10 + t, 0)


def carre_key(value, rank, rules: Ruleset):
    """Ranking key of a carré (ints or arrays); 0 when value is 0."""
    value = np.asarray(value, dtype=np.int64)
    if rules["declarations.ranking"] == "value":
        return np.where(value > 0, value * 100000, 0)
    order = np.asarray(PLAIN_ORDER[rank] if rules["declarations.carre_order"] == "trick" else rank, dtype=np.int64)
    return np.where(value > 0, value * 100000 + 14000 + order * 10, 0)


def _active(strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    s = strain.astype(np.int64)
    on = np.full(len(s), bool(rules["declarations.enabled"]))
    on &= (s != NO_TRUMP) | bool(rules["declarations.in_no_trump"])
    on &= (s != ALL_TRUMP) | bool(rules["declarations.in_all_trump"])
    return on
