"""Belote-rebelote: the king and queen of trump in one hand, of every suit in all-trump (rules.md R25).

Its own rules (``[belote]``) and never contested, so apart from the declarations: held in the initial hands
here; a belote recorded as announced is read with the other announcements
(:func:`pipeline.rescore.declarations.from_announced`).
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.jit import njit, njit_inner
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


@njit_inner
def belote_suits(h, strain, all_trump_counts):
    """Suits (bit s) whose king and queen hand ``h`` holds and whose belote counts in ``strain``: the trump
    suit in a suit contract; every suit in all-trump when ``all_trump_counts``; none in no-trump."""
    if 0 <= strain < 4:
        kq = np.int64(0x60) << (8 * strain)          # queen (rank 5) and king (rank 6) of the trump suit
        return (1 << strain) if h & kq == kq else 0
    out = 0
    if strain == ALL_TRUMP and all_trump_counts:
        for suit in range(4):
            kq = np.int64(0x60) << (8 * suit)
            if h & kq == kq:
                out |= 1 << suit
    return out


@njit(cache=True, nogil=True)
def _belote_kernel(hands, strain, all_trump_counts, value, K, points, count):
    """Belote points each team holds (points, int32 (n, K), added to) and belotes held per hand (count)."""
    n, P = hands.shape
    for i in range(n):
        c = 0
        for p in range(P):
            suits = belote_suits(np.int64(hands[i, p]), strain[i], all_trump_counts)
            for suit in range(4):
                if suits >> suit & 1:
                    points[i, p % K] += value
                    c += 1
        count[i] = c


@njit_inner
def belote_not_led(hands, h0, P, plays, p0, total, value, K, points, row):
    """All-trump belotes under ``belote.all_trump = "per_suit_led"`` (BG-HIT, BG-NIK) in one fully played hand:
    a suit's belote counts only when its holder plays the first of the king and queen leading or following
    that suit. hands: uint32 flat buffer of the P initial hands from ``h0``; plays: int8 flat buffer of the
    hand's ``total`` cards from ``p0``. Takes ``value`` from the holder's team (``points[row, seat % K]``,
    card points) for each suit whose belote does not count, and returns those suits (bit s for suit s)."""
    lost = 0
    for suit in range(4):
        queen, king = suit * 8 + 5, suit * 8 + 6
        kq = (np.int64(1) << queen) | (np.int64(1) << king)
        holder = -1
        for s in range(P):
            if np.int64(hands[h0 + s]) & kq == kq:
                holder = s
                break
        if holder < 0:
            continue
        at_q = at_k = 0                       # position of each in the play (0 when not played)
        for j in range(total - 1, -1, -1):
            c = plays[p0 + j]
            if c == queen:
                at_q = j
            elif c == king:
                at_k = j
        first = min(at_q, at_k)
        if first % P != 0 and plays[p0 + first - first % P] // 8 != suit:
            points[row, holder % K] -= value
            lost |= 1 << suit
    return lost


@njit_inner
def belote_items(suits, lost, value, row, p, o, e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored):
    """List seat ``p``'s belotes of hand ``row`` (``suits``: bit s for each suit held, :func:`belote_suits`), by
    suit, from item ``o`` on, worth ``value``; a suit whose bit is set in ``lost`` did not score. Returns the
    next free item."""
    for suit in range(4):
        if suits >> suit & 1:
            e_row[o], e_seat[o], e_kind[o], e_rank[o], e_suit[o], e_length[o] = row, p, 4, -1, suit, 2
            e_points[o], e_scored[o] = value, not (lost >> suit & 1)
            o += 1
    return o


def _belote_pass(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """(team points int32 (n, K), belotes held per hand int64 (n,)) of hands (n, P); zeros when disabled."""
    n, p = hands.shape
    points = np.zeros((n, n_teams(p)), dtype=np.int32)
    count = np.zeros(n, dtype=np.int64)
    if rules["belote.enabled"]:
        _belote_kernel(np.ascontiguousarray(hands, dtype=np.uint32), np.ascontiguousarray(strain, dtype=np.int8),
                       rules["belote.all_trump"] != "none", int(rules["belote.value"]), n_teams(p), points, count)
    return points, count


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
    Never in no-trump. The per-play reference of the rule (tests, NikolayIT oracle); the engine applies it to a
    whole hand at once (:func:`belote_not_led`)."""
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
