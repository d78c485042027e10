"""The scored hands' card points but the replay of a play record
(:func:`pipeline.rescore.cards_pass.cards_pass`), vectorised over the batch (numpy) after the compiled pass 1
(:mod:`pipeline.rescore.hand_pass`): each team's points at a recorded claim, the tricks each team took as recorded
(``completeness = "tricks_taken"``) summed, then for every scored hand the last trick or capot bonus, the split of
a 3-player capot, the strain's scaling and the capot's team.

A few operations on whole columns: done here rather than in the compiled pass, they are not compiled (numba's
compile time grows with the code it is given, and the first rescore after an install compiled this too).
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.pass_layout import (F_CAPOT, F_CLAIM, F_FULL, F_OK, Inputs, O_PLAYS, O_TT, P_AT_A, P_AT_B,
                                          P_CAPOT_BONUS, P_CAPOT_BONUS_TAKERS, P_CAPOT_BY_POINTS, P_CAPOT_LAST_TRICK,
                                          P_CAPOT_SPLIT, P_LAST_TRICK, P_NT_A, P_NT_B, P_PLAYERS, P_SCALE_LAST,
                                          P_TEAMS, P_TRICKS, S_CAPOT_TEAM, S_LAST_TEAM, S_STRAIN, S_TAKER_TEAM,
                                          T_CLAIM, T_COUNTING, V_CLAIM, V_LTS)


def tricks_taken(rp: np.ndarray, inp: Inputs, points: np.ndarray, C: np.ndarray, took: np.ndarray,
                 flags: np.ndarray, small: np.ndarray) -> None:
    """The scored hands recorded as the tricks each seat took (not a full play): each team's card points
    (``points``: int64 (6 * 32,) of card c in strain s at s * 32 + c) and whether it took a trick into rows of
    ``C`` and ``took``, and the team of the last trick (``last_trick_seat``) into ``small[S_LAST_TEAM]``."""
    P, K = int(rp[P_PLAYERS]), int(rp[P_TEAMS])
    rows = np.flatnonzero(flags[F_OK] & ~flags[F_FULL])
    if not len(rows):
        return
    masks = inp.tt[inp.offs[O_TT, rows][:, None] + np.arange(P)].astype(np.int64)     # (m, P) cards each seat took
    value = points[small[S_STRAIN, rows].astype(np.int64)[:, None] * 32 + np.arange(32)]     # (m, 32)
    for t in range(K):
        mask = np.bitwise_or.reduce(masks[:, t::K], axis=1)
        C[rows, t] = (((mask[:, None] >> np.arange(32)) & 1) * value).sum(axis=1)
        took[rows, t] = mask != 0
    small[S_LAST_TEAM, rows] = np.mod(inp.vals[V_LTS, rows], K)


def card_totals(rp: np.ndarray, C: np.ndarray, took: np.ndarray, flags: np.ndarray, small: np.ndarray) -> None:
    """For the scored hands (``flags[F_OK]``): add the last trick's bonus to the team of ``small[S_LAST_TEAM]``
    in ``C`` (int64 (n, K) card points of the tricks taken), or the capot's when one team took every trick
    (``took``, bool (n, K); ``cards.capot_by = "points"``: every point); with 3 players
    (``cards.capot_split_each``), when one took no trick (by points: none worth a point, nor the last), the split
    to each of the others instead; scale no-trump and all-trump (``cards.*_scale``: x a / b, rounded half up; the
    bonus added before the scaling, or after it without ``cards.scale_last_trick``);
    add ``cards.capot_bonus`` (``cards.capot_bonus_to = "takers"``: only to the taker's team). Writes ``small[S_CAPOT_TEAM]`` and ``flags[F_CAPOT]``. (The rows of the other
    hands in ``C`` are left as they were: garbage the passes do not read.)"""
    K = int(rp[P_TEAMS])
    ok = flags[F_OK].view(np.bool_)
    if rp[P_CAPOT_BY_POINTS]:   # cards.capot_by "points": tricks worth nothing, not the last, count as none taken
        took = took & ((C[:, :K] > 0) | (small[S_LAST_TEAM][:, None] == np.arange(K)))
    if K == 2:     # team 1 took nothing: team 0's capot; else team 0 nothing: team 1's; else none (-1)
        t0, t1 = took[:, 0], took[:, 1]
        capt = (~t1).view(np.int8) + 2 * (t1 & ~t0).view(np.int8) - 1
    else:
        n_took = took.sum(axis=1)
        capt = np.where(n_took == 1, np.argmax(took, axis=1), -1).astype(np.int8)
    is_capot = capt >= 0
    last, capot_last = int(rp[P_LAST_TRICK]), int(rp[P_CAPOT_LAST_TRICK])
    bonus = last + (capot_last - last) * is_capot.view(np.int8).astype(np.int64)
    split = int(rp[P_CAPOT_SPLIT])
    if split:     # 3 players, one took no trick: the others score the split
        shared = ok & (n_took == K - 1)
        bonus[shared] = 0
        C[shared] += split * took[shared]
    lt = small[S_LAST_TEAM]
    scaled = bool(rp[P_SCALE_LAST])     # cards.scale_last_trick: the bonus before the scaling, else after it
    if scaled:
        for t in range(K):
            C[:, t] += bonus * (lt == t)
    st = small[S_STRAIN]
    for strain, a, b in ((NO_TRUMP, int(rp[P_NT_A]), int(rp[P_NT_B])), (ALL_TRUMP, int(rp[P_AT_A]), int(rp[P_AT_B]))):
        if a != b:
            rows = np.flatnonzero(ok & (st == strain))
            C[rows] = (C[rows] * a * 2 + b) // (2 * b)
    if not scaled:
        for t in range(K):
            C[:, t] += bonus * (lt == t)
    is_capot &= ok
    earns = is_capot & (capt == small[S_TAKER_TEAM]) if rp[P_CAPOT_BONUS_TAKERS] else is_capot
    rows = np.flatnonzero(earns)
    C[rows, capt[rows]] += rp[P_CAPOT_BONUS]
    small[S_CAPOT_TEAM] = np.where(ok, capt, np.int8(-1))
    flags[F_CAPOT] = is_capot


def claim_points(rp: np.ndarray, inp: Inputs, points: np.ndarray, winners: np.ndarray, flags: np.ndarray,
                 small: np.ndarray, team16: np.ndarray) -> None:
    """The replayed hands with a recorded claim (``hands.claim``): each team's points at the claim, after
    ``claim.trick`` tricks (``T_CLAIM``: card points of the tricks it won up to then, no last-trick bonus, no
    strain scaling) and whether it had won a trick holding a card worth points by then (``T_COUNTING``, seed
    001: until then it counts no declaration), from the trick ``winners`` (int8 (n, T)); ``F_CLAIM``."""
    P, T, K = int(rp[P_PLAYERS]), int(rp[P_TRICKS]), int(rp[P_TEAMS])
    claim = inp.vals[V_CLAIM]
    rows = np.flatnonzero(flags[F_OK] & flags[F_FULL] & (claim >= 0))
    if not len(rows):
        return
    cards = inp.plays[inp.offs[O_PLAYS, rows][:, None] + np.arange(P * T)].astype(np.int64)
    at = small[S_STRAIN, rows].astype(np.int64)[:, None] * 32 + cards
    pts = np.take(points, at, mode="wrap").reshape(len(rows), T, P).sum(axis=2)      # (m, T) each trick's
    pts[np.arange(T) >= np.minimum(claim[rows], T)[:, None]] = 0                      # up to the claim only
    team = np.mod(winners[rows].astype(np.int64), K)
    for t in range(K):
        won = team == t
        team16[T_CLAIM, rows, t] = (pts * won).sum(axis=1)
        team16[T_COUNTING, rows, t] = ((pts > 0) & won).any(axis=1)
    flags[F_CLAIM, rows] = 1
