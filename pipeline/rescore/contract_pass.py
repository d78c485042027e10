"""Pass 3 of the compiled passes (:mod:`pipeline.rescore.hand_pass`): each scored hand's contract (the revoke
penalty and the recorded score compared come after: :mod:`pipeline.rescore.hand_finish`).

Two teams settle with :func:`pipeline.rescore.contract.settle_one` (:func:`contract_pass`), three players each
for himself with :func:`pipeline.rescore.solo.solo_one` (:func:`solo_pass`): two kernels, so that a ruleset
compiles only the settlement it uses.
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.contract import settle_one
from pipeline.jit import njit
from pipeline.rescore.pass_layout import (B_BID, B_CBID, F_OK, P_FAIL_DECL, P_RCODE, P_SOLO_COMBINED, P_SOLO_SHARE,
                                          P_TO_DEFENCE, S_CAPOT_TEAM, S_STRAIN, S_TAKER_TEAM, T_CONTRACT, V_BID,
                                          V_COINCHE)
from pipeline.rescore.solo import solo_one


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def contract_pass(n, rp, vals, valid, made_p, award_p, cdb, outcome, flags, small, team16, score, held, bg):
    """Pass 3 with two teams: each scored hand's contract (:func:`pipeline.rescore.contract.settle_one`: made,
    litige, whether the declarations decide it (``outcome``: bool (3, n)), contract points, hand score and held
    points in game points)."""
    C, D, B = cdb[0], cdb[1], cdb[2]
    made, litige, decided = outcome[0], outcome[1], outcome[2]
    CP = team16[T_CONTRACT]
    for i in range(n):
        if flags[F_OK, i]:
            decided[i] = False
            bid_i = np.int64(vals[V_BID, i]) if valid[B_BID, i] else np.int64(0)
            settle_one(i, C, D, B, np.int64(small[S_TAKER_TEAM, i]), bid_i, valid[B_CBID, i] != 0,
                       np.int64(vals[V_COINCHE, i]), np.int64(small[S_CAPOT_TEAM, i]), np.int64(small[S_STRAIN, i]),
                       made_p, award_p, rp[P_RCODE], bg, True, made, litige, decided, CP, score, held)


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def solo_pass(n, rp, vals, valid, made_p, award_p, cdb, outcome, flags, small, team16, score, held, bg):
    """Pass 3 when each player plays for himself: each scored hand's contract
    (:func:`pipeline.rescore.solo.solo_one`), as :func:`contract_pass` (``bg``: unused)."""
    C, D, B = cdb[0], cdb[1], cdb[2]
    made, litige, decided = outcome[0], outcome[1], outcome[2]
    CP = team16[T_CONTRACT]
    for i in range(n):
        if flags[F_OK, i]:
            decided[i] = False
            solo_one(i, C, D, B, np.int64(small[S_TAKER_TEAM, i]), made_p, rp[P_SOLO_COMBINED] != 0,
                     rp[P_FAIL_DECL], rp[P_TO_DEFENCE] != 0, rp[P_SOLO_SHARE] != 0, rp[P_RCODE], True, made, litige,
                     decided, CP, score, held)
