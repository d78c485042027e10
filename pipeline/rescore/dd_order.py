"""The double-dummy solver's moves (:mod:`pipeline.rescore.dd_solver`, issue 22): which of a seat's legal cards
are worth trying and in what order, compiled (numba).

One card stands for each group of equivalent cards: cards of one suit in one hand that are adjacent in the suit's
strength order once the cards played are gone (no card of another hand, nor of the trick on the table, between
them) **and** worth the same card points (a king and a queen next to each other are not interchangeable, as they
would be in bridge). The order makes cut-offs come early; it changes how much is searched, never the value.
"""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit, renamed
from pipeline.rescore.bits import highest, lowest
from pipeline.rescore.play import legal_one
from pipeline.trick_order import STRENGTH

_STRENGTH = STRENGTH.astype(np.int64)


def _orders() -> tuple[np.ndarray, np.ndarray]:
    """``ORDER[strain * 4 + suit]``: the suit's 8 cards strongest first under ``strain`` (trump order for the
    trump suit and in all-trump, plain order otherwise); ``RANK[strain * 32 + card]``: the card's place in that
    order (7 = strongest)."""
    order = np.zeros((24, 8), np.int64)
    rank = np.zeros(6 * 32, np.int64)
    for strain in range(6):
        for suit in range(4):
            trumpish = strain == 5 or suit == strain
            row = (5 if trumpish else 4) * 128 + suit * 32
            cards = sorted(range(suit * 8, suit * 8 + 8), key=lambda c: -int(STRENGTH[row + c]))
            order[strain * 4 + suit] = cards
            for place, c in enumerate(cards):
                rank[strain * 32 + c] = 7 - place
    return order, rank


ORDER, RANK = _orders()


#: play.legal_one (the one implementation of the play rules), compiled a second time without reference counting
#: (the search calls it at every position; counting the array passed cost more than the rules)
legal_cards = njit(cache=True, nogil=True, _nrt=False)(renamed(legal_one.py_func, "legal_one_without_refcounts"))


def _perm() -> np.ndarray:
    """``PERM[trumpish, m]``: the 8-bit mask ``m`` of a suit's cards (bit = card % 8) rewritten in strength
    order (bit = the card's place in ``RANK``, 7 = strongest), for a plain suit (0) or a trump suit (1)."""
    perm = np.zeros((2, 256), np.int64)
    for trumpish, base in ((0, 4 * 4), (1, 5 * 4)):           # plain: no-trump's suit 0; trump: all-trump's
        for m in range(256):
            perm[trumpish, m] = sum(1 << int(RANK[(base // 4) * 32 + ORDER[base, a]]) for a in range(8)
                                    if m >> int(ORDER[base, a]) & 1)
    return perm


PERM = _perm()


# the searches run this at every position: inlined into them (a call cost about 6 % of dd_solver's time, and
# counting references to the arrays passed more: _nrt=False for any caller that does not inline it)
@njit(cache=True, nogil=True, _nrt=False, inline="always")
def moves(legal, mine, others, mates, best, ours, last, k, strain, row, pts, order, out, d, keys):
    """The moves worth trying among ``legal`` (one card of each group of equivalent cards, module text), in
    trial order, written to ``out[d]``; returns how many. ``mine``: the seat's cards; ``others``: the other
    hands' and the trick's on the table; ``mates``: the partners'; the ``k`` cards of the trick on the table
    (:func:`around`): ``best`` the strength of the one winning it (in row ``row`` of ``trick_order.STRENGTH``),
    ``ours`` whether the seat's side played it, ``last`` whether the seat plays the trick's last card;
    ``keys``: scratch of 32.

    * leading: the masters (no card out in another hand above them) strongest first, then low cards (weakest
      first) of the suits where a partner holds the master, then the other low cards;
    * last to the trick: dearest first when the trick is one's side's; else the cards that win it, dearest
      first, then the others cheapest first;
    * otherwise: the cards that would win the trick now, strongest first, then the others, dearest first when
      the trick is one's side's so far, cheapest first when not.

    Each suit is read as masks in strength order (:data:`PERM`), so a card's tests are shifts of masks: a
    master has no other hand's card above it; a card is left out when the nearest card still in play above
    it is a legal card worth the same points.
    """
    n = 0
    for suit in range(4):
        sh = 8 * suit
        if (legal >> sh) & 0xFF == 0:
            continue
        base = strain * 4 + suit
        t = 1 if strain == 5 or suit == strain else 0
        lo = PERM[t, (legal >> sh) & 0xFF]
        oo = PERM[t, (others >> sh) & 0xFF]
        inplay = oo | PERM[t, (mine >> sh) & 0xFF]
        # the strongest card out in the suit is a partner's
        mate_master = (PERM[t, (mates >> sh) & 0xFF] >> highest(inplay)) & 1 == 1
        todo = lo
        while todo != 0:
            r = highest(todo)
            todo ^= np.int64(1) << r
            c = order[base, 7 - r]
            above = inplay >> (r + 1)
            if above != 0:
                r2 = r + 1 + lowest(above)
                if (lo >> r2) & 1 and pts[order[base, 7 - r2]] == pts[c]:
                    continue                  # equivalent to the card just above: adjacent, same points
            if k == 0:
                if oo >> (r + 1) == 0:
                    key = (64 - r) * 64 - pts[c]
                else:
                    key = (32768 if mate_master else 65536) + r * 64 + pts[c]
            else:
                v = _STRENGTH[row + c]
                if last and not ours and v > best:
                    key = (64 - pts[c]) * 64 + v
                elif v > best and not last:
                    key = (64 - v) * 64
                elif ours:
                    key = 65536 + (64 - pts[c]) * 64 + r
                else:
                    key = 65536 + pts[c] * 64 + r
            b = n                         # insertion into the moves sorted by key
            while b > 0 and keys[b - 1] > key:
                out[d, b] = out[d, b - 1]
                keys[b] = keys[b - 1]
                b -= 1
            out[d, b] = c
            keys[b] = key
            n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def around(seat, hands, tcards, tseats, tl, k, row, side):
    """What :func:`moves` needs of the position beyond the seat's cards, found from the hands and the trick on
    the table: (others, mates, best, ours)."""
    others = np.int64(0)
    mates = np.int64(0)
    for s in range(hands.shape[0]):
        if s != seat:
            others |= hands[s]
            if side[s] == side[seat]:
                mates |= hands[s]
    for j in range(k):
        others |= np.int64(1) << tcards[tl, j]
    best = np.int64(-2)             # the strength winning the trick so far (none when leading)
    ours = False
    if k > 0:
        w = leading_card(tcards, tl, k, row)
        best = _STRENGTH[row + tcards[tl, w]]
        ours = side[tseats[tl, w]] == side[seat]
    return others, mates, best, ours


@njit(cache=True, nogil=True, inline="always")
def leading_card(tcards, tl, n, row):
    """Which of the first ``n`` cards of the trick in row ``tl`` of ``tcards`` wins it so far (its index),
    ``row`` the trick's strength row in ``trick_order.STRENGTH``: the solvers' one test of a trick's winner."""
    w = 0
    for j in range(1, n):
        if _STRENGTH[row + tcards[tl, j]] > _STRENGTH[row + tcards[tl, w]]:
            w = j
    return w


@njit(cache=True, nogil=True, inline="always")
def trick_points(tcards, tl, n, pts):
    """Card points of the first ``n`` cards of the trick in row ``tl`` of ``tcards``."""
    s = np.int64(0)
    for j in range(n):
        s += pts[tcards[tl, j]]
    return s


@njit(cache=True, nogil=True, inline="always")
def legal_at(hands, seat, tcards, tseats, tl, k, strain, P, fl, above):
    """The legal cards of ``seat`` at a position of the search (the trick on the table: the first ``k`` cards
    of row ``tl`` of ``tcards``, played by ``tseats``) and the trick's strength row; the partner exemption
    applies with 4 players only."""
    led = tcards[tl, 0] >> 3 if k > 0 else np.int64(0)
    row = strain * 128 + led * 32
    if k == 0:
        return hands[seat], row
    win_j = leading_card(tcards, tl, k, row)
    partner = P == 4 and (tseats[tl, win_j] & 1) == (seat & 1)
    legal, why = legal_cards(hands[seat], False, led, strain, tcards[tl, win_j], partner, fl, above)
    return legal, row

