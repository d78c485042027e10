"""Pass 1 of the compiled passes (:mod:`pipeline.rescore.hand_pass`): the play of each scored hand replayed.

Whether a hand is scored is decided before (:mod:`pipeline.rescore.classify`); a scored hand with a full play
record is replayed here (:func:`pipeline.rescore.play.play_one`: trick winners, card points, legality); the
points at a claim, the tricks taken of the others, the last trick, the capot and the strain's scaling are summed
after (:mod:`pipeline.rescore.card_points`): all the later passes need of the cards.
"""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit
from pipeline.rescore.pass_layout import (F_FULL, F_ILLEGAL, F_LEGAL, F_OK, F_PLAYED, O_HANDS, O_PLAYS, O_SEATS,
                                          P_FLAGS, P_PLAYERS, P_REVOKE_EACH, P_REVOKE_FOLLOW, P_TEAMS, P_TRICKS,
                                          S_ILL_CARD, S_ILL_COUNT, S_ILL_RULE,
                                          S_ILL_SEAT, S_ILL_TRICK, S_LAST_TEAM, S_STRAIN, T_ILLEGAL, V_DEALER)
from pipeline.rescore.play import play_one


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def cards_pass(n, rp, vals, offs, plays_v, seats_v, hands_v, points, strength, above_trump, C, took, no_tp, flags,
               small, winners, team16):
    """Pass 1 over the n hands: the play of each scored hand with a full play record (``F_OK`` and ``F_FULL``,
    :mod:`pipeline.rescore.classify`) replayed (:func:`pipeline.rescore.play.play_one`): its card points of the
    tricks each team took (``C``, int64 (n, K)), whether it took a trick (``took``, bool (n, K)), the trick
    winners, the team of the last trick, the illegal plays (the first one, and how many per team). Inputs: the
    columns of :class:`pass_layout.Inputs` (rows ``V_*``, ``O_*``), the tables of :class:`pass_layout.Tables`."""
    P = rp[P_PLAYERS]
    T = rp[P_TRICKS]
    K = rp[P_TEAMS]
    fl = rp[P_FLAGS]
    for i in range(n):
        if (flags[F_OK, i] & flags[F_FULL, i]) == 0:
            continue
        st = np.int64(small[S_STRAIN, i])
        p0 = offs[O_PLAYS, i]
        s0 = offs[O_SEATS, i]
        lt, first_bad, code, bad_teams, revokes, first_revoke = play_one(
            plays_v, p0, seats_v, s0, hands_v, offs[O_HANDS, i], P, T, vals[V_DEALER, i], st, points, strength, fl,
            above_trump, K, i, winners, no_tp, C, took)
        n_bad = 0
        for t in range(K):
            n_bad += (bad_teams >> (8 * t)) & 0xFF
            # the plays the revoke award counts (hand_finish.revoke_penalty): every illegal one, or with
            # play.revoke_on = "follow_suit" those breaking the duty to follow suit (each, or the first: 1)
            if rp[P_REVOKE_FOLLOW] == 0:
                team16[T_ILLEGAL, i, t] = (bad_teams >> (8 * t)) & 0xFF
            elif rp[P_REVOKE_EACH]:
                team16[T_ILLEGAL, i, t] = (revokes >> (8 * t)) & 0xFF
            else:
                team16[T_ILLEGAL, i, t] = 1 if first_revoke >= 0 and first_revoke % K == t else 0
        small[S_ILL_COUNT, i] = min(n_bad, 127)
        flags[F_PLAYED, i] = True
        flags[F_LEGAL, i] = first_bad < 0
        flags[F_ILLEGAL, i] = first_bad >= 0
        if first_bad >= 0:
            small[S_ILL_TRICK, i] = first_bad // P + 1
            small[S_ILL_SEAT, i] = seats_v[s0 + first_bad]
            small[S_ILL_CARD, i] = plays_v[p0 + first_bad]
        small[S_ILL_RULE, i] = code
        small[S_LAST_TEAM, i] = lt
