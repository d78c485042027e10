"""After the compiled passes (:mod:`pipeline.rescore.hand_pass`): the revoke penalty, each scored hand's points
and outcome written to the outputs, and every hand's score compared with the recorded one; vectorised over the
batch (numpy).

A few operations on whole columns: done here rather than in the compiled pass 3, they are not compiled (numba's
compile time grows with the code it is given, and the first rescore after an install compiled this too).
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.pass_layout import (B_MARGIN, B_REC, F_CLAIM, F_DECIDED, F_FULL, F_LITIGE, F_MADE, F_MADE_V,
                                          F_MATCH, F_MATCH_V, F_OK, F_SCORE_V, Inputs, O_REC, P_PENALTY,
                                          P_REVOKE_EACH, P_REVOKE_FOLLOW, P_TEAMS, S_ILL_RULE, S_ILL_SEAT, T_BELOTE, T_CARD, T_CLAIM,
                                          T_COUNTING, T_DECL, T_ILLEGAL, V_MARGIN)
from pipeline.rescore.play import OK


def revoke_penalty(rp: np.ndarray, flags: np.ndarray, small: np.ndarray, team16: np.ndarray,
                   score: np.ndarray) -> None:
    """Add the revoke penalty (``play.revoke_penalty``) to ``score`` (int32 (n, K), game points) of the scored
    hands whose play broke a rule: each of the offender's opponents scores it (rules.md R37), once per hand for
    the first illegal play, or with ``play.revoke_count = "each"`` once per illegal play (seed 001). With
    ``play.revoke_on = "follow_suit"`` only the plays that break the duty to follow suit count (seed 001: the
    award is for not following suit though able to); ``T_ILLEGAL`` then holds them (with "first" the first alone)."""
    penalty, K = int(rp[P_PENALTY]), int(rp[P_TEAMS])
    if not penalty:
        return
    if rp[P_REVOKE_FOLLOW]:
        c = team16[T_ILLEGAL].astype(np.int64)
        rows = np.flatnonzero(flags[F_OK] & flags[F_FULL] & (c.sum(axis=1) > 0))
        c = c[rows]
        score[rows] = (score[rows] + penalty * (c.sum(axis=1, keepdims=True) - c)).astype(np.int32)
        return
    rows = np.flatnonzero(flags[F_OK] & flags[F_FULL] & (small[S_ILL_RULE] != OK))
    if rp[P_REVOKE_EACH]:
        c = team16[T_ILLEGAL, rows].astype(np.int64)
        add = penalty * (c.sum(axis=1, keepdims=True) - c)
    else:
        off_team = np.mod(small[S_ILL_SEAT, rows].astype(np.int64), K)
        add = penalty * (np.arange(K) != off_team[:, None])
    score[rows] = (score[rows] + add).astype(np.int32)


def write_points(C: np.ndarray, D: np.ndarray, B: np.ndarray, outcome: np.ndarray, flags: np.ndarray,
                 team16: np.ndarray) -> None:
    """The scored hands' card, declaration and belote points (``C``, ``D``, ``B``: int64 (n, K), garbage in the
    other rows) into ``team16`` (0 for the other hands; and those counted at a recorded claim, once the team won
    a trick with points in it); their outcome (``outcome``: made, litige, decided, bool (3, n)) into ``flags``."""
    ok = flags[F_OK].view(np.bool_)
    for row, points in ((T_CARD, C), (T_DECL, D), (T_BELOTE, B)):
        np.multiply(points, ok[:, None], out=team16[row], casting="unsafe")
    claim = np.flatnonzero(flags[F_CLAIM])     # declarations and belote count once the team won points
    counting = team16[T_COUNTING, claim] != 0
    team16[T_CLAIM, claim] = team16[T_CLAIM, claim] + np.where(counting, D[claim] + B[claim], 0)
    made, litige, decided = outcome
    for row, value in ((F_DECIDED, decided), (F_MADE, made), (F_MADE_V, ~litige), (F_LITIGE, litige)):
        np.logical_and(value, ok, out=flags[row].view(np.bool_))


def match_recorded(rp: np.ndarray, inp: Inputs, flags: np.ndarray, score: np.ndarray) -> None:
    """Whether each hand's score (scored or passed out) matches the recorded score, or the recorded margin of
    two teams: ``flags[F_MATCH]``, valid (``F_MATCH_V``) where a record is there and the hand has a score."""
    K = int(rp[P_TEAMS])
    valid = inp.valid.view(np.bool_)
    start, end = inp.offs[O_REC, :-1], inp.offs[O_REC, 1:]
    recorded = valid[B_REC] & (end - start == K)
    n = len(start)
    if n and recorded.all() and end[-1] - start[0] == K * n:     # every row K items in a row: read in place
        match = (inp.rec[start[0]:end[-1]].reshape(n, K) == score).all(axis=1)
    else:
        match = np.zeros(n, np.bool_)
        rows = np.flatnonzero(recorded)
        match[rows] = (inp.rec[start[rows, None] + np.arange(K)] == score[rows]).all(axis=1)
    if K == 2:
        rows = np.flatnonzero(~recorded & valid[B_MARGIN])
        match[rows] = score[rows, 0].astype(np.int64) - score[rows, 1] == inp.vals[V_MARGIN, rows]
        recorded = recorded | valid[B_MARGIN]
    flags[F_MATCH_V] = recorded & (flags[F_SCORE_V] != 0)
    flags[F_MATCH] = match
