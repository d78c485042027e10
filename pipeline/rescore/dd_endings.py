"""The last two tricks of a double-dummy search, solved exactly by plain loops (:mod:`pipeline.rescore.dd_solver`
calls them when two tricks are left): the first trick's cards are tried in turn, the last trick is forced and
scored on entry. With 4 players, four nested loops keep the values in registers (:func:`two_tricks4`); with 2 or
3, one loop over the cards in play order (:func:`two_tricks`). Values as the solver's: side 0's card points,
the last trick's bonus, or the capot's last trick when one side takes every trick."""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit
from pipeline.rescore.bits import lowest
from pipeline.rescore.dd_order import legal_cards
from pipeline.trick_order import STRENGTH

_STRENGTH = STRENGTH.astype(np.int64)
_INF = np.int64(1 << 20)


@njit(cache=True, nogil=True, _nrt=False)
def two_tricks(hands, P, side, leader, took, strain, pts, fl, above, last, capot_last, cards, tried, best):
    """Side 0's card points from a trick start with two tricks left, every card of the first trick tried (at most
    2^P ways) and the last one forced: exact, no bookkeeping per position (``cards``, ``tried``, ``best``:
    scratch of P)."""
    j = 0
    tried[0] = hands[leader]
    best[0] = -_INF if side[leader] == 0 else _INF
    row = np.int64(0)
    while True:
        seat = leader + j
        if seat >= P:
            seat -= P
        if tried[j] == 0:
            # every card of this seat tried: its best goes up to the seat before
            v = best[j]
            if j == 0:
                return v
            j -= 1
            seat = leader + j
            if seat >= P:
                seat -= P
            if side[seat] == 0:
                best[j] = max(best[j], v)
            else:
                best[j] = min(best[j], v)
            continue
        m = tried[j]
        c = lowest(m)
        tried[j] = m & (m - 1)
        cards[j] = c
        if j == 0:
            row = strain * 128 + (c >> 3) * 32
        if j + 1 < P:
            j += 1
            nxt = leader + j
            if nxt >= P:
                nxt -= P
            w = 0
            for q in range(1, j):
                if _STRENGTH[row + cards[q]] > _STRENGTH[row + cards[w]]:
                    w = q
            ws = leader + w
            if ws >= P:
                ws -= P
            partner = P == 4 and (ws & 1) == (nxt & 1)
            tried[j], why = legal_cards(hands[nxt], False, cards[0] >> 3, strain, cards[w], partner, fl, above)
            best[j] = -_INF if side[nxt] == 0 else _INF
            continue
        # the first trick complete: its winner leads the last one, every card forced
        w = 0
        p1 = np.int64(0)
        for q in range(P):
            p1 += pts[cards[q]]
            if _STRENGTH[row + cards[q]] > _STRENGTH[row + cards[w]]:
                w = q
        w1 = leader + w
        if w1 >= P:
            w1 -= P
        p2 = np.int64(0)
        row2, wv, w2 = np.int64(0), np.int64(-1), w1
        for q in range(P):
            s = w1 + q
            if s >= P:
                s -= P
            t = s - leader
            if t < 0:
                t += P
            c2 = lowest(hands[s] ^ (np.int64(1) << cards[t]))
            if q == 0:
                row2 = strain * 128 + (c2 >> 3) * 32
            if _STRENGTH[row2 + c2] > wv:
                wv, w2 = _STRENGTH[row2 + c2], s
            p2 += pts[c2]
        now = took | (np.int64(1) << side[w1]) | (np.int64(1) << side[w2])
        v = p1 if side[w1] == 0 else np.int64(0)
        if side[w2] == 0:
            v += p2 + (capot_last if now == 1 else last)
        if side[seat] == 0:
            best[j] = max(best[j], v)
        else:
            best[j] = min(best[j], v)


@njit(cache=True, nogil=True, inline="always")
def _fold(best, v, maximise):
    return max(best, v) if maximise else min(best, v)


@njit(cache=True, nogil=True, _nrt=False)
def two_tricks4(hands, side, leader, took, strain, pts, fl, above, last, capot_last):
    """:func:`two_tricks` for 4 players: the first trick's cards by four nested loops over the legal cards (each
    seat holds two), the values kept in registers rather than in arrays."""
    s1 = (leader + 1) & 3
    s2 = (leader + 2) & 3
    s3 = (leader + 3) & 3
    x0, x1, x2, x3 = side[leader] == 0, side[s1] == 0, side[s2] == 0, side[s3] == 0
    best0 = -_INF if x0 else _INF
    m0 = hands[leader]
    while m0 != 0:
        a = lowest(m0)
        m0 &= m0 - 1
        led = a >> 3
        row = strain * 128 + led * 32
        best1 = -_INF if x1 else _INF
        m1, why = legal_cards(hands[s1], False, led, strain, a, False, fl, above)
        while m1 != 0:
            b = lowest(m1)
            m1 &= m1 - 1
            w1 = 1 if _STRENGTH[row + b] > _STRENGTH[row + a] else 0
            wc1 = b if w1 == 1 else a
            best2 = -_INF if x2 else _INF
            m2, why = legal_cards(hands[s2], False, led, strain, wc1, w1 == 0, fl, above)
            while m2 != 0:
                c = lowest(m2)
                m2 &= m2 - 1
                w2, wc2 = w1, wc1
                if _STRENGTH[row + c] > _STRENGTH[row + wc1]:
                    w2, wc2 = 2, c
                best3 = -_INF if x3 else _INF
                m3, why = legal_cards(hands[s3], False, led, strain, wc2, w2 == 1, fl, above)
                while m3 != 0:
                    e = lowest(m3)
                    m3 &= m3 - 1
                    w = 3 if _STRENGTH[row + e] > _STRENGTH[row + wc2] else w2
                    # the last trick: each seat's other card, led by the first trick's winner
                    w1s = (leader + w) & 3
                    r = (np.int64(1) << a) | (np.int64(1) << b) | (np.int64(1) << c) | (np.int64(1) << e)
                    lc = lowest(hands[w1s] & ~r)
                    row2 = strain * 128 + (lc >> 3) * 32
                    p2 = np.int64(0)
                    wv, w2s = np.int64(-1), w1s
                    for q in range(4):
                        s = (w1s + q) & 3
                        c2 = lowest(hands[s] & ~r)
                        if _STRENGTH[row2 + c2] > wv:
                            wv, w2s = _STRENGTH[row2 + c2], s
                        p2 += pts[c2]
                    now = took | (np.int64(1) << side[w1s]) | (np.int64(1) << side[w2s])
                    v = pts[a] + pts[b] + pts[c] + pts[e] if side[w1s] == 0 else np.int64(0)
                    if side[w2s] == 0:
                        v += p2 + (capot_last if now == 1 else last)
                    best3 = _fold(best3, v, x3)
                best2 = _fold(best2, best3, x2)
            best1 = _fold(best1, best2, x1)
        best0 = _fold(best0, best1, x0)
    return best0
