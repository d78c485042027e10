"""Declarations (tierce, quarte, quinte, carré) and belote-rebelote, detected from the initial hands.

Sequences run in face order 7 8 9 10 J Q K A within a suit (rules.md R21); each suit's run pattern is
read from a 256-entry lookup table indexed by the suit's byte of the hand bitmask. A carré is the four
cards of one rank, valued by the ruleset's ``declarations.carre`` table (8s and 7s are worth 0 and are
not declarations). Between teams only the team holding the single best declaration scores, all of its
declarations (rules.md R23); an exact tie scores for nobody (``declarations.tie = "none"``, FFB-Co15 §8.3).

Ranking of declarations (rules.md R23): higher value first; at equal value a carré beats a sequence
("un carré de 100 bat un cent"); then the longer sequence; then the higher top card; then a sequence in
trump beats one outside trump. Equal-valued carrés rank by face order of their rank.

A card may count in a carré and in a sequence at once (no ruleset here forbids it yet).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rules import Ruleset


def _runs(byte: int) -> list[tuple[int, int]]:
    """Maximal runs (length, top rank index) of set bits in a suit byte."""
    out, r = [], 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            out.append((r - start, r - 1))
        else:
            r += 1
    return out


@dataclass(frozen=True)
class DeclarationTables:
    seq_points: np.ndarray   # int32 (256,): points of all sequences in a suit byte
    seq_key: np.ndarray      # int64 (256,): ranking key of the best sequence in the byte (0 = none)
    carre_points: np.ndarray  # int32 (2, 8): points of a carré by rank index; row 1 = in no-trump
    carre_key: np.ndarray     # int64 (2, 8)


def _seq_value(length: int, rules: Ruleset) -> int:
    if length >= 5:
        return int(rules["declarations.quinte"])
    return int({3: rules["declarations.tierce"], 4: rules["declarations.quarte"]}.get(length, 0))


def build_tables(rules: Ruleset) -> DeclarationTables:
    """Lookup tables for the ruleset's declaration values."""
    seq_points = np.zeros(256, dtype=np.int32)
    seq_key = np.zeros(256, dtype=np.int64)
    for b in range(256):
        for length, top in _runs(b):
            v = _seq_value(length, rules)
            if v <= 0:
                continue
            seq_points[b] += v
            key = v * 100000 + 0 * 10000 + min(length, 8) * 1000 + top * 10
            seq_key[b] = max(seq_key[b], key)
    tables = [rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")]
    carre_points = np.array(tables, dtype=np.int32)
    carre_key = np.array([[v * 100000 + 1 * 10000 + 4 * 1000 + r * 10 if v > 0 else 0 for r, v in enumerate(t)]
                          for t in tables], dtype=np.int64)
    return DeclarationTables(seq_points, seq_key, carre_points, carre_key)


@dataclass
class Declarations:
    """Per-hand results, n hands, 4 seats, teams = seat % 2.

    held_points: int32 (n, 4) points of all declarations each seat holds.
    best_key: int64 (n, 4) ranking key of each seat's best declaration (0 = none).
    team_points: int32 (n, 2) points each team scores after the contest (card points).
    """

    held_points: np.ndarray
    best_key: np.ndarray
    team_points: np.ndarray


def detect(hands: np.ndarray, strain: np.ndarray, rules: Ruleset, dt: DeclarationTables) -> Declarations:
    """Detect declarations in ``hands`` (uint32 (n, 4)) and settle the contest between teams.

    Declarations are counted as held (the sources we score announce automatically). None are scored
    when ``declarations.enabled`` is false, in no-trump unless ``in_no_trump``, in all-trump unless
    ``in_all_trump``.
    """
    n, p = hands.shape
    h = hands.astype(np.uint32)
    points = np.zeros((n, p), dtype=np.int32)
    key = np.zeros((n, p), dtype=np.int64)
    strain64 = strain.astype(np.int64)
    for s in range(4):
        byte = ((h >> np.uint32(8 * s)) & np.uint32(0xFF)).astype(np.int64)
        points += dt.seq_points[byte]
        k = dt.seq_key[byte]
        k = np.where((k > 0) & (strain64[:, None] == s), k + 1, k)  # sequence in trump ranks higher
        key = np.maximum(key, k)
    nt = (strain64 == NO_TRUMP).astype(np.int64)[:, None]
    for r in range(8):
        if dt.carre_points[:, r].max() <= 0:
            continue
        all4 = (h >> np.uint32(r)) & (h >> np.uint32(r + 8)) & (h >> np.uint32(r + 16)) & (h >> np.uint32(r + 24)) & np.uint32(1)
        has = all4.astype(bool)
        points += np.where(has, dt.carre_points[nt, r], 0)
        key = np.maximum(key, np.where(has, dt.carre_key[nt, r], 0))
    active = np.full(n, bool(rules["declarations.enabled"]))
    active &= (strain64 != NO_TRUMP) | bool(rules["declarations.in_no_trump"])
    active &= (strain64 != ALL_TRUMP) | bool(rules["declarations.in_all_trump"])
    points = np.where(active[:, None], points, 0)
    key = np.where(active[:, None], key, 0)
    team_key = np.stack([key[:, 0::2].max(axis=1), key[:, 1::2].max(axis=1)], axis=1)
    team_held = np.stack([points[:, 0::2].sum(axis=1), points[:, 1::2].sum(axis=1)], axis=1)
    win0 = team_key[:, 0] > team_key[:, 1]
    win1 = team_key[:, 1] > team_key[:, 0]
    team_points = np.stack([np.where(win0, team_held[:, 0], 0), np.where(win1, team_held[:, 1], 0)], axis=1)
    return Declarations(points, key, team_points.astype(np.int32))


def transfer_on_capot(team_points: np.ndarray, capot_team: np.ndarray, rules: Ruleset) -> np.ndarray:
    """``declarations.on_capot``: "keep" (each team keeps what it won in the contest); "to_capot_team"
    (FFB-Co15: the capoted team's declarations go to the team that took every trick); "lost" (pagat reading:
    a team that took no trick scores none). int32 (n, 2) in, out."""
    mode = rules["declarations.on_capot"]
    if mode == "keep":
        return team_points
    out = team_points.copy()
    for t in (0, 1):
        capoted = capot_team == 1 - t
        if mode == "to_capot_team":
            out[:, 1 - t] += np.where(capoted, out[:, t], 0)
        out[:, t] = np.where(capoted, 0, out[:, t])
    return out


def belote_seat(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Seat holding king and queen of trump (belote-rebelote) in suit contracts, -1 when none; int8 (n,)."""
    n, p = hands.shape
    out = np.full(n, -1, dtype=np.int8)
    if not rules["belote.enabled"]:
        return out
    s = np.clip(strain.astype(np.int64), 0, 3)
    kq = (np.uint32(1) << (8 * s + 6).astype(np.uint32)) | (np.uint32(1) << (8 * s + 5).astype(np.uint32))
    for seat in range(p):
        has = (hands[:, seat].astype(np.uint32) & kq) == kq
        out = np.where(has & (strain < 4) & (out < 0), seat, out).astype(np.int8)
    return out


def belote_points(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Belote-rebelote points held by each team, int32 (n, 2) (rules.md R25).

    Suit contracts: king and queen of trump in one hand. All-trump (``belote.all_trump = "per_suit"``):
    each suit's king and queen in one hand, up to four. None in no-trump. The cards are always played in
    a complete hand, so holding them is scoring them.
    """
    n, p = hands.shape
    out = np.zeros((n, 2), dtype=np.int32)
    if not rules["belote.enabled"]:
        return out
    value = int(rules["belote.value"])
    h = hands.astype(np.uint32)
    strain64 = strain.astype(np.int64)
    for suit in range(4):
        kq = np.uint32((1 << (8 * suit + 6)) | (1 << (8 * suit + 5)))
        counts = (strain64 == suit) | ((strain64 == ALL_TRUMP) & (rules["belote.all_trump"] == "per_suit"))
        for seat in range(p):
            has = ((h[:, seat] & kq) == kq) & counts
            out[:, seat % 2] += np.where(has, value, 0)
    return out
