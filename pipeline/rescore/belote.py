"""Belote-rebelote: the king and queen of trump in one hand, of every suit in all-trump (rules.md R25).

Its own rules (``[belote]``) and never contested, so apart from the declarations: held in the initial hands
here; a belote recorded as announced is read with the other announcements
(:func:`pipeline.rescore.declarations.from_announced`).
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rules import Ruleset, n_teams


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


def belote_suits(h: np.ndarray, strain: np.ndarray, all_trump_counts: bool) -> np.ndarray:
    """uint8 (m, P): the suits (bit s) whose king and queen each seat's hand holds (``h``: uint32 (m, P) card
    masks) and whose belote counts in the hand's ``strain`` (int (m,)): the trump suit in a suit contract; every
    suit in all-trump when ``all_trump_counts``; none in no-trump."""
    h = np.asarray(h, dtype=np.uint32)
    st = np.asarray(strain, dtype=np.int64)
    trump = np.clip(st, 0, 3)[:, None]
    kq = ((h >> (8 * trump + 5).astype(np.uint32)) & 3) == 3      # queen (rank 5) and king (rank 6) of trump
    out = (kq & ((st >= 0) & (st < 4))[:, None]).astype(np.uint8) << trump.astype(np.uint8)
    if all_trump_counts:
        at = np.flatnonzero(st == ALL_TRUMP)
        if len(at):
            b = np.ascontiguousarray(h[at], dtype="<u4").view(np.uint8).reshape(len(at), -1, 4) & 0x60
            out[at] = sum((b[..., s] == 0x60).astype(np.uint8) << s for s in range(4))
    return out


def belote_not_led(h: np.ndarray, plays: np.ndarray, value: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """All-trump belotes under ``belote.all_trump = "per_suit_led"`` (BG-HIT, BG-NIK) in m fully played hands:
    a suit's belote counts only when its holder plays the first of the king and queen leading or following
    that suit. h: uint32 (m, P) the initial hands; plays: int (m, P * tricks) the cards in the order played.
    Returns (int64 (m, K) the points to take from each team (card points), int64 (m,) the suits whose belote
    does not count, bit s for suit s)."""
    m, P = h.shape
    taken = np.zeros((m, K), np.int64)
    lost = np.zeros(m, np.int64)
    for suit in range(4):
        queen, king = suit * 8 + 5, suit * 8 + 6
        has = ((h >> queen) & (h >> king) & 1).astype(bool)
        rows = np.flatnonzero(has.any(axis=1))          # the hands where a seat holds both
        if not len(rows):
            continue
        pl = plays[rows]
        first = np.minimum(np.argmax(pl == queen, axis=1), np.argmax(pl == king, axis=1))   # 0 when not played
        led = pl[np.arange(len(rows)), first - first % P]
        bad = (first % P != 0) & (led // 8 != suit)
        holder = np.argmax(has[rows], axis=1)           # the first seat holding both
        taken[rows[bad], holder[bad] % K] += value
        lost[rows[bad]] |= 1 << suit
    return taken, lost


def _belote_pass(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """(team points int32 (n, K), belotes held per hand int64 (n,)) of hands (n, P); zeros when disabled."""
    n, p = hands.shape
    K = n_teams(p)
    points = np.zeros((n, K), dtype=np.int32)
    count = np.zeros(n, dtype=np.int64)
    if rules["belote.enabled"]:
        held = popcount4(belote_suits(hands, strain, rules["belote.all_trump"] != "none"))
        for seat in range(p):
            points[:, seat % K] += int(rules["belote.value"]) * held[:, seat]
        count = held.sum(axis=1)
    return points, count


_POPCOUNT4 = np.array([bin(b).count("1") for b in range(16)], dtype=np.int64)


def popcount4(suits: np.ndarray) -> np.ndarray:
    """int64: how many of the 4 low bits of each of ``suits`` (uint8) are set."""
    return np.take(_POPCOUNT4, suits & 15)


def belote_points(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Belote-rebelote points held by each team, int32 (n, K) for hands (n, P) (rules.md R25), card points.

    Suit contracts: king and queen of trump in one hand. All-trump (``belote.all_trump = "per_suit"`` or
    ``"per_suit_led"``): each suit's king and queen in one hand, up to four; under "per_suit_led" the engine
    then takes away those not led or followed (:func:`belote_not_led`). None in no-trump. The cards are
    always played in a complete hand, so holding them is scoring them.
    """
    return _belote_pass(hands, strain, rules)[0]


def belote_announceable(strain: int, hand: int, trick: list[int], card: int, rules: Ruleset) -> bool:
    """Whether playing ``card`` (a K or Q) from ``hand`` (bitmask, before the play) onto ``trick`` (cards so far)
    announces belote-rebelote (rules.md R25; BG-HIT: on playing the first of the pair when leading or
    following). Suit contracts: king or queen of trump with its partner card still held. All-trump:
    any suit, and with ``belote.all_trump = "per_suit_led"`` only when leading or following that suit.
    Never in no-trump. The per-play reference of the rule (tests, NikolayIT oracle); the engine applies it to
    whole hands at once (:func:`belote_not_led`)."""
    rank, suit = card % 8, card // 8
    if rank not in (5, 6) or strain == NO_TRUMP or not rules["belote.enabled"]:
        return False
    if strain == ALL_TRUMP:
        mode = rules["belote.all_trump"]
        if mode == "none" or (mode == "per_suit_led" and trick and trick[0] // 8 != suit):
            return False
    elif suit != strain:
        return False
    partner = suit * 8 + (11 - rank)
    return bool(hand >> partner & 1)
