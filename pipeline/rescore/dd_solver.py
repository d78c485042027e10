"""Double-dummy solver: the card points each side takes from a position when every player sees every card and
plays best (issue 22).

The search is alpha-beta over the legal cards, compiled (numba), with no Python object per node:

* hands are ``int64`` bitmasks (card ``suit * 8 + rank``, :mod:`pipeline.cards`); the legal cards of a seat are
  :func:`pipeline.rescore.play.legal_one`'s, the one implementation of the ruleset's ``[play]`` duties, so the
  solver plays by exactly the rules the rescoring checks;
* the value is found by null-window searches that halve the range it lies in (:func:`_mtdf`);
* a transposition table keyed at trick starts by (cards still out, leader, sides that took a trick so far)
  keeps the lower and upper bounds found for the rest of the hand and the best card (the cards still out say
  who holds what: the hands are fixed by the deal); a table inside tricks cost more than it saved;
* at a trick's start, bounds before any search (:mod:`pipeline.rescore.dd_bounds`): side 0 takes at most the
  points still out and the last trick's bonus; the top trumps out held by one side are that side's, whoever
  plays them; the leader's masters that it can cash while every player able to ruff follows suit are its side's;
* the last card of a trick first looks up the next trick's starts it leads to: one known to cut the position
  off, or all of them known to fail, end it without a search; with two tricks left, the first trick's cards
  are tried by a plain loop (the last trick is forced; with 4 players four nested loops, the values in
  registers, and the exact value is stored without asking the bounds first), and the last trick is scored on
  entry (:mod:`pipeline.rescore.dd_endings`);
* a frame of the search (a row of one 2-d array) keeps what its position holds as the cards are played (the
  cards in hands, side 0's, their points, the trick's points and winner): no position reads all the hands;
* the moves and their order (:mod:`pipeline.rescore.dd_order`): one card of each group of equivalent cards,
  the table's best card first, then masters, winners, and cheap or dear cards by whose the trick is.

The value is card points with the last trick's bonus (``cards.last_trick``, dix de der), or, when one side takes
every trick, ``cards.capot_last_trick`` instead (252 in all: FFB-B16 §9.2), for a "side" of the game: in
4-player games the two partnerships (seat % 2), in 3-player games the taker against the two defenders (as one
side: ``cards.capot_split_each``, the 3-player split when one player takes no trick, is not modelled), in
2-player games each player. ``cards.capot_bonus`` (added after scaling) is not in the value: a caller that
needs to know whether a side can take every trick solves with a large capot_last_trick
(:func:`pipeline.stats.analyse.capot_spec`). Side 0 maximises, side 1 minimises; :func:`solve` returns side 0's points,
from the position given (the points of a trick in progress included).
"""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit
from pipeline.rescore.bits import lowest
from pipeline.rescore.dd_bounds import bounds
from pipeline.rescore.dd_endings import two_tricks, two_tricks4
from pipeline.rescore.dd_order import leading_card, legal_cards, moves, ORDER, trick_points
from pipeline.rescore.play import flags, PlayRules
from pipeline.rescore.tables import ABOVE_TRUMP, build
from pipeline.rules import Ruleset
from pipeline.trick_order import STRENGTH

#: transposition-table slots (a power of two): 2^18 of 16 bytes, 4 MiB (a larger table saves few positions)
TT_BITS = 18
_STRENGTH = STRENGTH.astype(np.int64)
_ABOVE_TRUMP = ABOVE_TRUMP.astype(np.int64)
_INF = np.int64(1 << 20)
#: the fields of a search frame, a row of _solve's F (one 2-d array: as 16 arrays, each access reloaded a pointer,
#: about 6 % slower): the trick position (cards of the trick played, leader, tricks left, sides that took a trick,
#: in one word), the bound beta, the best value so far, the table slot and key, the moves and the one tried, the
#: points the card played gains, the seat, the best card; and what the position holds, kept as the cards are
#: played (not recomputed from the hands): the cards still in hands, those of side 0, their points, the cards at
#: the trick's start (the hands and the trick on the table), the trick's points so far and which card wins it
_ST = 0
_BETA = 1
_BEST = 2
_SLOT = 3
_KEY = 4
_N = 5
_I = 6
_GAIN = 7
_SEAT = 8
_BESTMOVE = 9
_REM = 10
_S0 = 11
_PTS = 12
_LIVE = 13
_TP = 14
_W = 15
_FIELDS = 16


class Spec:
    """What the search needs of a ruleset, as arrays the compiled code takes: card points per strain
    (``points``: int64 (6, 32)), the play duties (``fl``: :func:`pipeline.rescore.play.flags`), the last trick's
    bonus and the capot's last trick (card points)."""

    def __init__(self, rules: Ruleset):
        self.points = build(rules).points.astype(np.int64)
        self.suit_points = suit_points(self.points)
        self.fl = np.int64(flags(PlayRules.of(rules)))
        self.last = np.int64(rules["cards.last_trick"])
        self.capot_last = np.int64(rules["cards.capot_last_trick"])


def new_table() -> np.ndarray:
    """An empty transposition table: int64 (2^TT_BITS + 1, 2), each slot a key and beside it, in the same cache
    line, the lower bound, the upper bound and the best card + 1 (bits 0-15, 16-31, 32-). A key holds the
    position (bits 0-35) and the table's generation (bits 40-), kept in the last row: :func:`clear` starts a new
    one, so the entries before no longer match, and wipes the table only when the generations run out. One
    table serves one deal and strain: clear it between."""
    tt = np.zeros(((1 << TT_BITS) + 1, 2), np.int64)
    tt[-1, 0] = 1
    return tt


#: generations before the table is wiped (bits 40-62 of a key)
GENERATIONS = (1 << 23) - 1


def clear(tt) -> None:
    """Forget every entry: a new generation (the table's 4 MiB are wiped only when the generations run out)."""
    if tt[-1, 0] >= GENERATIONS:
        tt.fill(0)
    tt[-1, 0] = tt[-1, 0] % GENERATIONS + 1


def suit_points(points: np.ndarray) -> np.ndarray:
    """``SP[strain * 4 + suit, m]``: the card points of the cards of ``suit`` in the 8-bit mask ``m``, under
    ``strain`` (``points``: (6, 32))."""
    out = np.zeros((24, 256), np.int64)
    for strain in range(6):
        for suit in range(4):
            for m in range(256):
                out[strain * 4 + suit, m] = sum(int(points[strain, suit * 8 + r]) for r in range(8) if m >> r & 1)
    return out


@njit(cache=True, nogil=True, inline="always")
def _hash(key):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - TT_BITS))


@njit(cache=True, nogil=True)
def _solve(hands0, side, P, strain, tcard0, tseat0, k0, leader0, tl0, took0, pts, fl, above, last, capot_last, order,
           tt, nodes, beta0):
    """Whether side 0's card points from the position given (the trick on the table included), with best play,
    reach ``beta0``: a null-window alpha-beta search (the window [beta0 - 1, beta0] at the root, shifted by the
    points taken on the way), fail-soft: a value of at least ``beta0`` is a lower bound of the points, a smaller
    one an upper bound. Written as a loop over an explicit stack of frames (one per card played; numba cannot
    cache a recursive function). Frame ``d`` is the position before the ``d``-th card from the root; the trick
    on the table is row ``tricks_left`` of ``tcards``/``tseats``."""
    hands = hands0.copy()
    gen = tt[tt.shape[0] - 1, 0] << 40
    D = tl0 * P + 2
    tcards = np.zeros((tl0 + 1, P), np.int64)
    tseats = np.zeros((tl0 + 1, P), np.int64)
    tcards[tl0, :] = tcard0
    tseats[tl0, :] = tseat0
    F = np.zeros((D, _FIELDS), np.int64)
    mv = np.zeros((D, 32), np.int64)
    mkeys = np.zeros(32, np.int64)
    s_cards = np.zeros(P, np.int64)
    s_tried = np.zeros(P, np.int64)
    s_best = np.zeros(P, np.int64)
    d = 0
    F[0, _ST] = k0 | (leader0 << 4) | (tl0 << 8) | (took0 << 16)
    F[0, _BETA] = beta0
    for s in range(P):
        F[0, _REM] |= hands[s]
        if side[s] == 0:
            F[0, _S0] |= hands[s]
    for c in range(32):
        if (F[0, _REM] >> c) & 1:
            F[0, _PTS] += pts[c]
    F[0, _LIVE] = F[0, _REM]
    if k0 > 0:
        for j in range(k0):
            F[0, _LIVE] |= np.int64(1) << tcards[tl0, j]
        F[0, _TP] = trick_points(tcards, tl0, k0, pts)
        F[0, _W] = leading_card(tcards, tl0, k0, strain * 128 + (tcards[tl0, 0] >> 3) * 32)
    entering = True
    cut = False
    ret = np.int64(0)
    while True:
        if entering:
            entering = False
            nodes[0] += 1
            st = F[d, _ST]
            k, leader, tl, took = st & 15, (st >> 4) & 15, (st >> 8) & 255, st >> 16
            beta = F[d, _BETA]
            done = False
            if tl <= 1:
                # the last trick: every card is forced (none left: nothing more to take)
                ret = np.int64(0)
                done = True
                if tl == 1:
                    trick_pts = np.int64(0)
                    row2, wv, winner = np.int64(0), np.int64(-1), leader
                    for j in range(P):
                        if j < k:
                            c = tcards[tl, j]
                        else:
                            c = lowest(hands[(leader + j) % P])
                        if j == 0:
                            row2 = strain * 128 + (c >> 3) * 32
                        if _STRENGTH[row2 + c] > wv:
                            wv, winner = _STRENGTH[row2 + c], (leader + j) % P
                        trick_pts += pts[c]
                    ws = side[winner]
                    if ws == 0:
                        ret = trick_pts + (capot_last if took | 1 == 1 else last)
            if not done and k == 0:
                out_cards = F[d, _REM]
                side0 = F[d, _S0]
                key = out_cards | (leader << 32) | (took << 34) | gen
                slot = _hash(key)
                F[d, _KEY], F[d, _SLOT] = key, slot
                if tt[slot, 0] == key:
                    data = tt[slot, 1]
                    lo, hi = data & 0xFFFF, (data >> 16) & 0xFFFF
                    if lo >= beta:
                        ret, done = lo, True
                    elif hi < beta:
                        ret, done = hi, True
                # with two tricks left and 4 players, the exact value (stored, which the last cards of the trick
                # before look up) costs little more than the bounds: 7 % fewer positions
                if not done and k == 0 and not (tl == 2 and P == 4):
                    least, most = bounds(hands, P, side, leader, took, out_cards, side0, F[d, _PTS], strain, pts, order,
                                         last, capot_last)
                    if most < beta:
                        ret, done = most, True
                    elif least >= beta:
                        ret, done = least, True
                if not done and k == 0 and tl == 2:
                    if P == 4:
                        ret = two_tricks4(hands, side, leader, took, strain, pts, fl, above, last, capot_last)
                    else:
                        ret = two_tricks(hands, P, side, leader, took, strain, pts, fl, above, last, capot_last,
                                          s_cards, s_tried, s_best)
                    done = True
                    tt[slot, 0] = key
                    tt[slot, 1] = ret | (ret << 16)
            if not done:
                seat = leader + k
                if seat >= P:
                    seat -= P
                F[d, _SEAT] = seat
                # dd_order.legal_at written out: as a call returning a pair it slowed the search (docs/bench-results.md)
                led = tcards[tl, 0] >> 3 if k > 0 else np.int64(0)
                row = strain * 128 + led * 32
                mine = hands[seat]
                best_v = np.int64(-2)
                ours = False
                if k == 0:
                    legal = mine
                else:
                    win_j = F[d, _W]
                    partner = P == 4 and (tseats[tl, win_j] & 1) == (seat & 1)
                    legal, why = legal_cards(mine, False, led, strain, tcards[tl, win_j], partner, fl, above)
                    best_v = _STRENGTH[row + tcards[tl, win_j]]
                    ours = side[tseats[tl, win_j]] == side[seat]
                if legal & (legal - 1) == 0:
                    # one legal card: nothing to order
                    F[d, _N] = 1
                    mv[d, 0] = lowest(legal)
                else:
                    mates = (F[d, _S0] if side[seat] == 0 else F[d, _REM] & ~F[d, _S0]) & ~mine
                    F[d, _N] = moves(legal, mine, F[d, _LIVE] & ~mine, mates, best_v, ours, k == P - 1, k, strain, row,
                                  pts, order, mv, d, mkeys)
                if k == 0 and tt[F[d, _SLOT], 0] == F[d, _KEY] and (tt[F[d, _SLOT], 1] >> 32) > 0:
                    # the card that was best (or cut off) here before is tried first
                    first = (tt[F[d, _SLOT], 1] >> 32) - 1
                    for j in range(F[d, _N]):
                        if mv[d, j] == first:
                            for q in range(j, 0, -1):
                                mv[d, q] = mv[d, q - 1]
                            mv[d, 0] = first
                            break
                if k == P - 1 and tl > 2:
                    # the last card of a trick: a next trick's start already known to cut this position off
                    # ends it without a search, and so do the next trick's starts all known to fail
                    out_cards = F[d, _REM]
                    row2 = strain * 128 + (tcards[tl, 0] >> 3) * 32
                    w = F[d, _W]
                    base_pts = F[d, _TP]
                    fails = True
                    bound = -_INF if side[seat] == 0 else _INF
                    for i in range(F[d, _N]):
                        c = mv[d, i]
                        if _STRENGTH[row2 + c] > _STRENGTH[row2 + tcards[tl, w]]:
                            winner = seat
                        else:
                            winner = tseats[tl, w]
                        ws = side[winner]
                        gain = base_pts + pts[c] if ws == 0 else np.int64(0)
                        took2 = took | (np.int64(1) << ws)
                        key2 = (out_cards & ~(np.int64(1) << c)) | (winner << 32) | (took2 << 34) | gen
                        slot2 = _hash(key2)
                        if tt[slot2, 0] != key2:
                            fails = False
                            continue
                        data = tt[slot2, 1]
                        if side[seat] == 0:
                            if (data & 0xFFFF) + gain >= beta:
                                ret, done = (data & 0xFFFF) + gain, True
                                break
                            if ((data >> 16) & 0xFFFF) + gain < beta:
                                bound = max(bound, ((data >> 16) & 0xFFFF) + gain)
                            else:
                                fails = False
                        else:
                            if ((data >> 16) & 0xFFFF) + gain < beta:
                                ret, done = ((data >> 16) & 0xFFFF) + gain, True
                                break
                            if (data & 0xFFFF) + gain >= beta:
                                bound = min(bound, (data & 0xFFFF) + gain)
                            else:
                                fails = False
                    if not done and fails:
                        ret, done = bound, True
            if not done:
                F[d, _I] = 0
                F[d, _BEST] = -_INF if side[seat] == 0 else _INF
                F[d, _BESTMOVE] = mv[d, 0]
                cut = False
        else:
            # a child returned ``ret``: undo its move, fold its value into this frame
            seat = F[d, _SEAT]
            hands[seat] ^= np.int64(1) << mv[d, F[d, _I]]
            v = F[d, _GAIN] + ret
            if side[seat] == 0:
                if v > F[d, _BEST]:
                    F[d, _BEST] = v
                    F[d, _BESTMOVE] = mv[d, F[d, _I]]
                cut = F[d, _BEST] >= F[d, _BETA]
            else:
                if v < F[d, _BEST]:
                    F[d, _BEST] = v
                    F[d, _BESTMOVE] = mv[d, F[d, _I]]
                cut = F[d, _BEST] < F[d, _BETA]
            F[d, _I] += 1
            done = False
        if not done and F[d, _I] < F[d, _N] and not cut:
            # try the next move: play it and enter the child position
            st = F[d, _ST]
            k, leader, tl, took = st & 15, (st >> 4) & 15, (st >> 8) & 255, st >> 16
            seat = F[d, _SEAT]
            c = mv[d, F[d, _I]]
            hands[seat] ^= np.int64(1) << c
            tcards[tl, k] = c
            tseats[tl, k] = seat
            bit = np.int64(1) << c
            F[d + 1, _REM] = F[d, _REM] ^ bit
            F[d + 1, _S0] = F[d, _S0] ^ bit if side[seat] == 0 else F[d, _S0]
            F[d + 1, _PTS] = F[d, _PTS] - pts[c]
            w = F[d, _W]
            if k > 0 and _STRENGTH[strain * 128 + (tcards[tl, 0] >> 3) * 32 + c] > \
                    _STRENGTH[strain * 128 + (tcards[tl, 0] >> 3) * 32 + tcards[tl, w]]:
                w = k
            gain = np.int64(0)
            if k + 1 < P:
                F[d + 1, _ST] = F[d, _ST] + 1
                F[d + 1, _LIVE] = F[d, _LIVE]
                F[d + 1, _TP] = F[d, _TP] + pts[c]
                F[d + 1, _W] = w
            else:
                # the trick is complete: its winner leads the next one (never the last trick: solved on entry)
                trick_pts = F[d, _TP] + pts[c]
                winner = tseats[tl, w]
                ws = side[winner]
                gain = trick_pts if ws == 0 else np.int64(0)
                F[d + 1, _ST] = (winner << 4) | ((tl - 1) << 8) | ((took | (np.int64(1) << ws)) << 16)
                F[d + 1, _LIVE] = F[d + 1, _REM]
                F[d + 1, _TP] = 0
                F[d + 1, _W] = 0
            F[d, _GAIN] = gain
            F[d + 1, _BETA] = F[d, _BETA] - gain
            d += 1
            entering = True
            continue
        if not done:
            # every move tried (or cut off): store what was learnt at a trick's start, return the best
            ret = F[d, _BEST]
            if F[d, _ST] & 15 == 0:
                slot, key = F[d, _SLOT], F[d, _KEY]
                lo, hi = np.int64(0), np.int64(0xFFFF)
                if tt[slot, 0] == key:
                    lo, hi = tt[slot, 1] & 0xFFFF, (tt[slot, 1] >> 16) & 0xFFFF
                if ret < F[d, _BETA]:
                    hi = min(hi, ret)
                else:
                    lo = max(lo, ret)
                tt[slot, 0] = key
                tt[slot, 1] = lo | (hi << 16) | ((F[d, _BESTMOVE] + 1) << 32)
        if d == 0:
            return ret
        d -= 1


@njit(cache=True, nogil=True)
def _mtdf(hands, side, P, strain, tcard, tseat, k, leader, tl, took, pts, fl, above, last, capot_last, order, tt, nodes,
          hi):
    """The exact value by null-window searches that halve the range [0, ``hi``] it lies in (fail-soft: each
    search's result also narrows it), the transposition table carrying what each learnt to the next. Stepping
    from a guess (MTD(f)) moved one point a search here: card points are fine-grained, bisection is not."""
    lo = np.int64(0)
    while lo < hi:
        beta = (lo + hi + 1) // 2
        g = _solve(hands, side, P, strain, tcard, tseat, k, leader, tl, took, pts, fl, above, last, capot_last, order,
                   tt, nodes, beta)
        if g >= beta:
            lo = g
        else:
            hi = g
    return lo


def side_of(n_players: int, taker: int | None = None) -> np.ndarray:
    """Side of each seat (int64 (P,)): partnerships seat % 2 with 4 players, the taker (side 0) against the
    others with 3, each player its own side with 2."""
    if n_players == 4:
        return np.array([0, 1, 0, 1], np.int64)
    if n_players == 3:
        return np.array([0 if s == taker else 1 for s in range(3)], np.int64)
    return np.array([0, 1], np.int64)


def solve(spec: Spec, hands, strain: int, leader: int, trick=(), side=None, took: int = 0, tt=None,
          tricks_left: int | None = None, nodes: np.ndarray | None = None, fresh: bool = True) -> int:
    """Side 0's card points with best play from a position: ``hands`` the cards each seat holds (masks),
    ``strain`` 0-5, ``leader`` the seat that led (or leads) the trick on the table, ``trick`` its cards so far
    (in order from the leader), ``side`` per seat (:func:`side_of`; default partnerships of 4 seats), ``took``
    the sides that took a trick before (bit per side: decides capot), ``tricks_left`` counting the trick on
    the table (default: from the cards held). ``tt``: a table from :func:`new_table`, cleared here unless not
    ``fresh`` (what it holds stays true for every position of the same deal and strain, so the positions of one
    hand share it); ``nodes``: int64 (1,) adding up the positions searched."""
    hands = np.asarray(hands, np.int64)
    P = len(hands)
    side = side_of(P) if side is None else np.asarray(side, np.int64)
    k = len(trick)
    tcard = np.zeros(P, np.int64)
    tseat = np.zeros(P, np.int64)
    for j, c in enumerate(trick):
        tcard[j], tseat[j] = c, (leader + j) % P
    if tricks_left is None:
        tricks_left = (sum(bin(int(h)).count("1") for h in hands) + k) // P
    if tt is None:
        tt = new_table()
    elif fresh:
        clear(tt)
    nodes = np.zeros(1, np.int64) if nodes is None else nodes
    most = int(spec.suit_points[strain * 4:strain * 4 + 4].max(axis=1).sum() + max(spec.last, spec.capot_last))
    return int(_mtdf(hands, side, np.int64(P), np.int64(strain), tcard, tseat, np.int64(k), np.int64(leader),
                     np.int64(tricks_left), np.int64(took), spec.points[strain], spec.fl,
                     _ABOVE_TRUMP, spec.last, spec.capot_last, ORDER, tt, nodes,
                     np.int64(most)))


def card_values(spec: Spec, hands, strain: int, leader: int, trick=(), side=None, took: int = 0, tt=None,
                tricks_left: int | None = None, nodes: np.ndarray | None = None) -> dict[int, int]:
    """Side 0's card points with best play after each legal card of the seat to play (card -> points, the
    trick on the table included), from the position :func:`solve` takes. ``tt`` is not cleared: pass a fresh
    table (:func:`new_table`, :func:`clear`) for a new deal or strain."""
    from pipeline.rescore.play import legal_one as legal_py

    hands = [int(h) for h in hands]
    P = len(hands)
    side = side_of(P) if side is None else np.asarray(side, np.int64)
    trick = list(trick)
    if tricks_left is None:
        tricks_left = (sum(bin(h).count("1") for h in hands) + len(trick)) // P
    tt = new_table() if tt is None else tt
    seat = (leader + len(trick)) % P
    if trick:
        row = strain * 128 + (trick[0] // 8) * 32
        w = max(range(len(trick)), key=lambda j: int(_STRENGTH[row + trick[j]]))
        partner = P == 4 and ((leader + w) & 1) == (seat & 1)
        legal, _ = legal_py(np.int64(hands[seat]), False, np.int64(trick[0] // 8), np.int64(strain),
                            np.int64(trick[w]), partner, spec.fl, _ABOVE_TRUMP)
    else:
        legal = hands[seat]
    out = {}
    for c in range(32):
        if not int(legal) >> c & 1:
            continue
        after = list(hands)
        after[seat] &= ~(1 << c)
        t = trick + [c]
        if len(t) < P:
            out[c] = solve(spec, after, strain, leader, t, side, took, tt, tricks_left, nodes, fresh=False)
            continue
        row = strain * 128 + (t[0] // 8) * 32
        w = max(range(P), key=lambda j: int(_STRENGTH[row + t[j]]))
        winner = (leader + w) % P
        s = int(side[winner])
        now = took | 1 << s
        gain = int(sum(spec.points[strain][x] for x in t))
        if tricks_left == 1:
            gain += int(spec.capot_last if now == 1 << s else spec.last)
            out[c] = gain if s == 0 else 0
            continue
        rest = solve(spec, after, strain, winner, (), side, now, tt, tricks_left - 1, nodes, fresh=False)
        out[c] = (gain if s == 0 else 0) + rest
    return out
