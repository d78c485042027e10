"""Double-dummy made test of a 3-player contract: can the taker make it against any play of the two others?

With three players each for himself, the made test (:func:`pipeline.rescore.solo.solo_one`) compares the
taker's total with **each** opponent's (``contract.solo_made = "each"``): the taker must beat the better of the
two. That is not a sum of card points the taker's side takes, so the alpha-beta over card points
(:mod:`pipeline.rescore.dd_solver`, which treats the two defenders as one side) cannot answer it: the two
defenders may do better by piling their points on one of them than by keeping points from the taker. This
search answers the question itself, exactly: every hand visible, the taker choosing his cards to make the
contract and the two others choosing theirs, together, to stop him (the worst case for the taker, which is
what "makeable with best play" means).

It is a search over true/false, the taker's cards an OR and the others' an AND, with no Python object per
node (numba, an explicit stack of frames as in dd_solver). A leaf scores the hand exactly as the rescoring
does: the last trick's bonus or, when one player took every trick, ``cards.capot_last_trick``; the
``cards.capot_split_each`` to each of the two players who took a trick when the third took none; the strain's
scaling; the capot bonus; the declarations of a player who took no trick lost or given to the capot player
(``declarations.on_capot``, :func:`pipeline.rescore.declaration_contest.on_capot`), which depends on the line; then
``solo_one``'s made test with the hand's declarations and belote.

The transposition table, at trick starts, is keyed by the cards still out, the leader and which players took
a trick. The points the two defenders hold so far are not in the key: the outcome can only get worse for the
taker when a defender holds more (his total rises, the taker's falls by as much), so an entry keeps one point
(``o1``, ``o2``) where the taker was found to win (he wins wherever both defenders hold no more) and one where
he was found to lose (he loses wherever both hold no less). Equivalent cards are one move (:mod:`pipeline.rescore.dd_order`):
swapping them changes no trick's winner or points, so no made test.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.jit import njit
from pipeline.rescore.contract import _made_params
from pipeline.rescore.dd_order import around, ORDER, leading_card, legal_at, moves, trick_points
from pipeline.rescore.dd_solver import _ABOVE_TRUMP, _STRENGTH
from pipeline.rescore.declaration_contest import on_capot
from pipeline.rescore.play import flags, PlayRules
from pipeline.rescore.solo import solo_one
from pipeline.rescore.tables import build
from pipeline.rules import Ruleset

#: transposition-table slots (a power of two)
TT_BITS = 18
#: the outcomes in the taker's order of preference: a search asks whether he can force at least one of them
FAILED_RANK, LITIGE_RANK, MADE_RANK = 0, 1, 2
#: ``declarations.on_capot`` as :func:`pipeline.rescore.declaration_contest.on_capot` codes it
ON_CAPOT = ("keep", "to_capot_team", "lost")


class SoloSpec:
    """What the search needs of a 3-player ruleset, as arrays: card points per strain (``points`` int64 (6, 32)),
    the play duties (``fl``), the leaf's parameters (``fin``: last trick, capot's last trick, capot split,
    no-trump and all-trump scales, capot bonus, declarations.on_capot code, capot bonus to the taker only, whether the
    last trick is scaled, whether a capot is by points), the made test's (``mp``:
    contract._made_params), whether ``solo_made`` is "combined", and whether an outcome can be a litige."""

    def __init__(self, rules: Ruleset):
        self.points = build(rules).points.astype(np.int64)
        self.fl = np.int64(flags(PlayRules.of(rules)))
        nt_a, nt_b = rules["cards.no_trump_scale"]
        at_a, at_b = rules["cards.all_trump_scale"]
        self.fin = np.array([rules["cards.last_trick"], rules["cards.capot_last_trick"],
                             rules["cards.capot_split_each"], nt_a, nt_b, at_a, at_b, rules["cards.capot_bonus"],
                             ON_CAPOT.index(rules["declarations.on_capot"]),
                             rules["cards.capot_bonus_to"] == "takers", bool(rules["cards.scale_last_trick"]),
                             rules["cards.capot_by"] == "points"], np.int64)
        self.mp = _made_params(rules)
        self.combined = rules["contract.solo_made"] != "each"
        # outcome(): a tie is a litige only under made_vs_defence "gt" with contract.tie "litige"
        self.litige = rules["contract.made_vs_defence"] == "gt" and rules["contract.tie"] == "litige"


@njit(cache=True, nogil=True, inline="always")
def _slot(key):
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - TT_BITS))


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty table: keys (int64, -1 empty), win points and loss points (int32 (n, 2): the defenders' points)."""
    n = 1 << TT_BITS
    return np.full(n, -1, np.int64), np.zeros((n, 2), np.int32), np.zeros((n, 2), np.int32)


@njit(cache=True, nogil=True)
def _leaf(acc, took, last_winner, P, taker, strain, fin, D, B, mp, combined, C, Dl, tk, made, litige, decided, Pout,
          score, held):
    """The outcome rank (FAILED_RANK...) of a finished hand: ``acc`` each player's card points from his tricks,
    ``took`` the players who took a trick (bit per seat), ``last_winner`` the last trick's, ``D`` the
    declarations after the contest (before on_capot); scored as :mod:`pipeline.rescore.card_points`
    and :func:`~pipeline.rescore.solo.solo_one` score it. ``C``, ``Dl`` (1, P) and ``tk`` (1, P) are scratch."""
    n_took = 0
    capt = -1
    scoring = 0     # the players counted as taking a trick
    for p in range(P):
        C[0, p] = acc[p]
        Dl[0, p] = D[0, p]
        tk[0, p] = took >> p & 1 == 1
        # cards.capot_by "points": tricks worth nothing, not the last, count as none taken
        if took >> p & 1 and (fin[11] == 0 or acc[p] > 0 or p == last_winner):
            n_took += 1
            capt = p
            scoring |= 1 << p
    if n_took != 1:
        capt = -1
    bonus = fin[1] if capt >= 0 else fin[0]
    if fin[2] != 0 and n_took == P - 1:     # one player took no trick: the two others score the split
        bonus = 0
        for p in range(P):
            if scoring >> p & 1:
                C[0, p] += fin[2]
    if fin[10]:     # cards.scale_last_trick: the bonus scaled with the card points, else added after
        C[0, last_winner] += bonus
    if strain == NO_TRUMP and fin[3] != fin[4]:
        for p in range(P):
            C[0, p] = (C[0, p] * fin[3] * 2 + fin[4]) // (2 * fin[4])
    elif strain == ALL_TRUMP and fin[5] != fin[6]:
        for p in range(P):
            C[0, p] = (C[0, p] * fin[5] * 2 + fin[6]) // (2 * fin[6])
    if not fin[10]:
        C[0, last_winner] += bonus
    if capt >= 0 and (fin[9] == 0 or capt == taker):     # cards.capot_bonus_to "takers": the taker's only
        C[0, capt] += fin[7]
    on_capot(Dl, 0, P, capt, tk, fin[8])
    solo_one(0, C, Dl, B, taker, mp, combined, 0, False, False, 0, False, made, litige, decided, Pout, score, held)
    return MADE_RANK if made[0] else (LITIGE_RANK if litige[0] else FAILED_RANK)


@njit(cache=True, nogil=True)
def _search(hands0, P, taker, strain, leader0, tl0, pts, fl, above, order, side, fin, D, B, mp, combined,
            target, tt_keys, tt_win, tt_loss, nodes):
    """Whether the taker can force an outcome of rank ``target`` or better from the deal (``tl0`` tricks, no
    card played yet): an explicit stack of frames, one per card played (numba cannot cache a recursive
    function); frame ``d`` is the position before the ``d``-th card."""
    hands = hands0.copy()
    DEPTH = tl0 * P + 2
    tcards = np.zeros((tl0 + 1, P), np.int64)
    tseats = np.zeros((tl0 + 1, P), np.int64)
    acc = np.zeros(P, np.int64)
    d1, d2 = (taker + 1) % P, (taker + 2) % P
    fk = np.zeros(DEPTH, np.int64)
    fleader = np.zeros(DEPTH, np.int64)
    ftl = np.zeros(DEPTH, np.int64)
    ftook = np.zeros(DEPTH, np.int64)
    fseat = np.zeros(DEPTH, np.int64)
    fn = np.zeros(DEPTH, np.int64)
    fi = np.zeros(DEPTH, np.int64)
    fres = np.zeros(DEPTH, np.bool_)
    fwin = np.full(DEPTH, -1, np.int64)
    fgain = np.zeros(DEPTH, np.int64)
    fslot = np.full(DEPTH, -1, np.int64)
    fkey = np.zeros(DEPTH, np.int64)
    mv = np.zeros((DEPTH, 32), np.int64)
    mkeys = np.zeros(32, np.int64)
    C = np.zeros((1, P), np.int64)
    Dl = np.zeros((1, P), np.int64)
    tk = np.zeros((1, P), np.bool_)
    made = np.zeros(1, np.bool_)
    litige = np.zeros(1, np.bool_)
    decided = np.zeros(1, np.bool_)
    Pout = np.zeros((1, P), np.int64)
    score = np.zeros((1, P), np.int32)
    held = np.zeros(1, np.int32)
    d = 0
    fk[0], fleader[0], ftl[0], ftook[0] = 0, leader0, tl0, 0
    entering = True
    ret = False
    while True:
        if entering:
            entering = False
            nodes[0] += 1
            k, leader, tl, took = fk[d], fleader[d], ftl[d], ftook[d]
            done = False
            fslot[d] = -1
            if k == 0 and tl == 0:
                ret = _leaf(acc, took, leader, P, taker, strain, fin, D, B, mp, combined, C, Dl, tk, made, litige,
                            decided, Pout, score, held) >= target
                done = True
            elif k == 0:
                out_cards = np.int64(0)
                for s in range(P):
                    out_cards |= hands[s]
                key = out_cards | (leader << 32) | (took << 34)
                slot = _slot(key)
                fkey[d], fslot[d] = key, slot
                if tt_keys[slot] == key:
                    o1, o2 = acc[d1], acc[d2]
                    if o1 <= tt_win[slot, 0] and o2 <= tt_win[slot, 1]:
                        ret, done = True, True
                    elif o1 >= tt_loss[slot, 0] and o2 >= tt_loss[slot, 1]:
                        ret, done = False, True
            if not done:
                seat = (leader + k) % P
                fseat[d] = seat
                legal, row = legal_at(hands, seat, tcards, tseats, tl, k, strain, P, fl, above)
                others, mates, best, ours = around(seat, hands, tcards, tseats, tl, k, row, side)
                fn[d] = moves(legal, hands[seat], others, mates, best, ours, k == P - 1, k, strain, row, pts, order,
                              mv, d, mkeys)
                fi[d] = 0
                fres[d] = seat != taker      # the taker's cards: any one that works; the others': all must
        else:
            # a child returned ``ret``: undo its move, fold its answer into this frame
            seat = fseat[d]
            hands[seat] ^= np.int64(1) << mv[d, fi[d]]
            if fwin[d] >= 0:
                acc[fwin[d]] -= fgain[d]
                fwin[d] = -1
            if seat == taker:
                fres[d] = fres[d] or ret
            else:
                fres[d] = fres[d] and ret
            fi[d] += 1
            done = False
        if not done and fi[d] < fn[d] and fres[d] == (fseat[d] != taker):
            # the answer is still open: play the next move and enter the child position
            k, leader, tl, took = fk[d], fleader[d], ftl[d], ftook[d]
            seat = fseat[d]
            c = mv[d, fi[d]]
            hands[seat] ^= np.int64(1) << c
            tcards[tl, k] = c
            tseats[tl, k] = seat
            if k + 1 < P:
                fk[d + 1], fleader[d + 1], ftl[d + 1], ftook[d + 1] = k + 1, leader, tl, took
            else:
                row2 = strain * 128 + (tcards[tl, 0] >> 3) * 32
                w = leading_card(tcards, tl, P, row2)
                trick_pts = trick_points(tcards, tl, P, pts)
                winner = tseats[tl, w]
                acc[winner] += trick_pts
                fwin[d], fgain[d] = winner, trick_pts
                fk[d + 1], fleader[d + 1], ftl[d + 1], ftook[d + 1] = 0, winner, tl - 1, took | (np.int64(1) << winner)
            d += 1
            entering = True
            continue
        if not done:
            ret = fres[d]
            slot = fslot[d]
            if slot >= 0:
                if tt_keys[slot] != fkey[d]:
                    tt_keys[slot] = fkey[d]
                    tt_win[slot, 0], tt_win[slot, 1] = -1, -1
                    tt_loss[slot, 0], tt_loss[slot, 1] = 1 << 30, 1 << 30
                if ret:
                    tt_win[slot, 0], tt_win[slot, 1] = acc[d1], acc[d2]
                else:
                    tt_loss[slot, 0], tt_loss[slot, 1] = acc[d1], acc[d2]
        if d == 0:
            return ret
        d -= 1


def outcome(spec: SoloSpec, hands, strain: int, taker: int, leader: int, declarations, belote,
            tt=None, nodes: np.ndarray | None = None) -> str:
    """The made test's outcome with best play from the deal (no card played): "made" when the taker can make
    the contract whatever the two others play, else "litige" when he can force a tie that the ruleset calls a
    litige, else "failed". ``hands``: the three dealt hands (int masks); ``strain`` 0-5; ``leader``: the seat
    that leads the first trick; ``declarations``: each player's declaration points after the contest, before
    ``declarations.on_capot`` takes them from a player who took no trick (the scores' ``declarations`` items
    that scored: which player takes no trick depends on the line); ``belote``: each player's belote points as
    the rescoring scored them (3 ints each); ``tt``: a table from :func:`new_table` (cleared here); ``nodes``: int64 (1,) adding
    up the positions searched."""
    hands = np.asarray([int(h) for h in hands], np.int64)
    P = len(hands)
    if P != 3:
        raise ValueError(f"the solo made test is for 3 players, not {P}")
    tl = sum(bin(int(h)).count("1") for h in hands) // P
    tt = new_table() if tt is None else tt
    nodes = np.zeros(1, np.int64) if nodes is None else nodes
    side = np.array([0 if s == taker else 1 for s in range(P)], np.int64)
    D = np.asarray(declarations, np.int64).reshape(1, P)
    B = np.asarray(belote, np.int64).reshape(1, P)
    for target, name in ((MADE_RANK, "made"), (LITIGE_RANK, "litige")):
        if target == LITIGE_RANK and not spec.litige:
            break            # no tie is a litige under this ruleset: not made is failed
        tt[0].fill(-1)
        if _search(hands, np.int64(P), np.int64(taker), np.int64(strain), np.int64(leader), np.int64(tl),
                   spec.points[strain], spec.fl, _ABOVE_TRUMP, ORDER, side, spec.fin, D, B, spec.mp,
                   bool(spec.combined), np.int64(target), tt[0], tt[1], tt[2], nodes):
            return name
    return "failed"


def played_outcome(spec: SoloSpec, strain: int, taker: int, plays, seats, declarations, belote) -> str:
    """The made test's outcome of one line of play (``plays`` / ``seats``: every card of the hand in order),
    scored by this module's leaf: "made", "litige" or "failed" (``declarations`` as :func:`outcome` takes them).
    What the rescoring gives for the same hand is the same (``tests/test_analyse_few_players.py`` holds them
    equal); the search scores every line this way."""
    P = 3
    acc = np.zeros(P, np.int64)
    took = 0
    winner = -1
    pts = spec.points[strain]
    for t in range(len(plays) // P):
        trick = [int(c) for c in plays[t * P:(t + 1) * P]]
        row = strain * 128 + (trick[0] // 8) * 32
        w = max(range(P), key=lambda j: int(_STRENGTH[row + trick[j]]))
        winner = int(seats[t * P + w])
        acc[winner] += int(sum(int(pts[c]) for c in trick))
        took |= 1 << winner
    D = np.asarray(declarations, np.int64).reshape(1, P)
    B = np.asarray(belote, np.int64).reshape(1, P)
    rank_ = _leaf(acc, np.int64(took), np.int64(winner), np.int64(P), np.int64(taker), np.int64(strain), spec.fin,
                  D, B, spec.mp, bool(spec.combined), np.zeros((1, P), np.int64), np.zeros((1, P), np.int64),
                  np.zeros((1, P), np.bool_), np.zeros(1, np.bool_), np.zeros(1, np.bool_), np.zeros(1, np.bool_),
                  np.zeros((1, P), np.int64), np.zeros((1, P), np.int32), np.zeros(1, np.int32))
    return {MADE_RANK: "made", LITIGE_RANK: "litige"}.get(rank_, "failed")
