"""Pass 3 of the compiled passes (:mod:`pipeline.rescore.hand_pass`): each scored hand's contract, the revoke
penalty, and every hand's score compared with the recorded one.

Two teams settle with :func:`pipeline.rescore.contract.settle_one` (:func:`contract_pass`), three players each
for himself with :func:`pipeline.rescore.solo.solo_one` (:func:`solo_pass`): two kernels, so that a ruleset
compiles only the settlement it uses.
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.arith import mod
from pipeline.rescore.contract import settle_one
from pipeline.jit import njit, njit_inner
from pipeline.rescore.pass_layout import (B_BID, B_CBID, B_MARGIN, B_REC, F_CLAIM, F_DECIDED, F_FULL, F_LITIGE, F_MADE,
                                          F_MADE_V, F_MATCH, F_MATCH_V, F_OK, F_SCORE_V, O_REC, P_FAIL_DECL,
                                          P_PENALTY, P_RCODE, P_REVOKE_EACH, P_SOLO_COMBINED, P_SOLO_SHARE, P_TEAMS,
                                          P_TO_DEFENCE, S_CAPOT_TEAM, S_ILL_RULE, S_ILL_SEAT, S_STRAIN, S_TAKER_TEAM,
                                          T_BELOTE, T_CARD, T_CLAIM, T_CONTRACT, T_COUNTING, T_DECL, T_ILLEGAL,
                                          V_BID, V_COINCHE, V_MARGIN)
from pipeline.rescore.play import OK
from pipeline.rescore.solo import solo_one


@njit_inner
def _finish_row(i, K, penalty, each, C, D, B, made, litige, decided, flags, small, team16, score):
    """After the settlement of scored hand i: the revoke penalty (each of the offender's opponents scores it,
    rules.md R37; once per hand for the first illegal play, or with ``each`` (play.revoke_count = "each") once
    per illegal play, seed 001) and the per-team points and outcome flags written to the outputs."""
    if penalty and flags[F_FULL, i] and small[S_ILL_RULE, i] != OK:
        if each:
            for u in range(K):
                c = np.int64(team16[T_ILLEGAL, i, u])
                for t in range(K):
                    if t != u:
                        score[i, t] += penalty * c
        else:
            off_team = mod(np.int64(small[S_ILL_SEAT, i]), K)
            for t in range(K):
                if t != off_team:
                    score[i, t] += penalty
    for t in range(K):
        team16[T_CARD, i, t] = C[i, t]
        team16[T_DECL, i, t] = D[i, t]
        team16[T_BELOTE, i, t] = B[i, t]
        if flags[F_CLAIM, i] and team16[T_COUNTING, i, t]:   # declarations and belote count once it won points
            team16[T_CLAIM, i, t] += D[i, t] + B[i, t]
    flags[F_DECIDED, i] = decided[i]
    flags[F_MADE, i] = made[i]
    flags[F_MADE_V, i] = not litige[i]
    flags[F_LITIGE, i] = litige[i]


@njit_inner
def _match_row(i, K, vals, valid, offs, rec_v, flags, score):
    """Whether hand i's score (scored or passed out) matches the recorded score, or the recorded margin of
    two teams."""
    r0 = offs[O_REC, i]
    rec_ok = valid[B_REC, i] != 0 and offs[O_REC, i + 1] - r0 == K
    match = False
    if rec_ok:
        match = True
        for t in range(K):
            if np.int64(rec_v[r0 + t]) != np.int64(score[i, t]):
                match = False
    elif K == 2 and valid[B_MARGIN, i]:
        rec_ok = True
        match = np.int64(score[i, 0]) - np.int64(score[i, 1]) == np.int64(vals[V_MARGIN, i])
    flags[F_MATCH_V, i] = rec_ok and flags[F_SCORE_V, i] != 0
    flags[F_MATCH, i] = match


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def contract_pass(n, rp, vals, valid, offs, rec_v, made_p, award_p, cdb, outcome, flags, small, team16, score, held,
                  bg):
    """Pass 3 with two teams: each scored hand's contract (:func:`pipeline.rescore.contract.settle_one`: made,
    litige, whether the declarations decide it, contract points, hand score and held points in game points),
    the revoke penalty; for every hand, the recorded score compared."""
    K = rp[P_TEAMS]
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
            _finish_row(i, K, rp[P_PENALTY], rp[P_REVOKE_EACH], C, D, B, made, litige, decided, flags, small, team16,
                        score)
        _match_row(i, K, vals, valid, offs, rec_v, flags, score)


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def solo_pass(n, rp, vals, valid, offs, rec_v, made_p, award_p, cdb, outcome, flags, small, team16, score, held, bg):
    """Pass 3 when each player plays for himself: each scored hand's contract
    (:func:`pipeline.rescore.solo.solo_one`), as :func:`contract_pass` (``bg``: unused)."""
    K = rp[P_TEAMS]
    C, D, B = cdb[0], cdb[1], cdb[2]
    made, litige, decided = outcome[0], outcome[1], outcome[2]
    CP = team16[T_CONTRACT]
    for i in range(n):
        if flags[F_OK, i]:
            decided[i] = False
            solo_one(i, C, D, B, np.int64(small[S_TAKER_TEAM, i]), made_p, rp[P_SOLO_COMBINED] != 0,
                     rp[P_FAIL_DECL], rp[P_TO_DEFENCE] != 0, rp[P_SOLO_SHARE] != 0, rp[P_RCODE], True, made, litige,
                     decided, CP, score, held)
            _finish_row(i, K, rp[P_PENALTY], rp[P_REVOKE_EACH], C, D, B, made, litige, decided, flags, small, team16,
                        score)
        _match_row(i, K, vals, valid, offs, rec_v, flags, score)
