"""Contract result when every player plays for himself: 3-player belote, the taker against the two others.

Inputs are per-hand numpy arrays with one column per player (team = seat, ``Ruleset.n_teams`` = 3); card
points in, game points out (equal when ``rounding.mode`` is "none"). The parameters are those of the
4-player settlement (:mod:`pipeline.rescore.contract`) plus two for three players (rules.md R28, R30 and the
``contract.solo_*`` comments of ``rulesets/base.toml``):

Made test
    Each player's total is his card points (with last trick or capot bonus) plus his declarations
    (``made_counts_declarations``) and belote (``made_counts_belote``). ``solo_made = "each"``: the taker's
    total is compared with the better opponent's (FUNBELOTE: "must win more points than either of his two
    opponents"); "combined": with the two opponents' totals added. ``made_vs_defence`` ("gt", "ge", "none")
    and ``tie`` ("litige", "made", "failed") then apply as with two teams.

Awards
    Made: every player scores his own total. Failed: the taker keeps what ``fail_declarations = "keep"`` and
    ``belote.on_failure = "keep"`` leave him; with ``solo_fail = "share"`` what he loses (his card points, and
    his declarations / belote when they go to the defence) is halved between the two opponents, an odd point
    going to the opponent seated next after the taker, on top of each one's own total; with "own" each
    opponent scores only his own total. Litige: the opponents score their own totals now, the taker's total
    is held for the game pass. Rounding (``rounding.mode``) applies to each player's score and to the held
    points. There are no bids or doubles in 3-player belote (the ruleset loader requires the prise auction).
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.contract import (FAILED, LITIGE, MADE, outcome, round1)
from pipeline.jit import njit_inner


@njit_inner
def solo_one(i, C, D, B, t, mp, combined, fd, to_def, share, rcode, awards, made, litige, decided, P, score, held):
    """Settle hand ``i`` of K players each for himself: the one implementation of the 3-player made test and
    awards, compiled, called by :func:`pipeline.rescore.contract_pass.solo_pass` for each hand. C/D/B: int64
    (n, K) card, declaration, belote points; ``t``: the taker's seat; ``mp``: :func:`contract._made_params`;
    ``combined``: ``solo_made = "combined"``; ``fd``: ``fail_declarations`` code; ``to_def``: belote.on_failure
    is "to_defence"; ``share``: solo_fail is "share"; ``rcode``: rounding code; ``awards``: compute the scores
    (game points), not only the outcome. Writes row i of made/litige/decided (bool), P (the totals compared,
    card points; int16 (n, K) in the hand pass), score (int32 (n, K), game points) and held (int32, game
    points)."""
    m_decl, m_bel, min_pts, vs, tie_rule = mp[0], mp[1], mp[4], mp[5], mp[6]
    K = C.shape[1]
    has_decl = False
    for k in range(K):
        has_decl = has_decl or D[i, k] != 0
    res = FAILED
    for with_decl in (True, False):
        if not with_decl and not has_decl:
            break
        pT = 0
        pO = 0 if combined else np.int64(-(1 << 62))   # below any total
        for k in range(K):
            p = C[i, k] + (B[i, k] if m_bel else 0) + (D[i, k] if m_decl and with_decl else 0)
            if with_decl:
                P[i, k] = p
            if k == t:
                pT = p
            elif combined:
                pO += p
            else:
                pO = max(pO, p)
        ok = pT >= min_pts if min_pts != 0 else True
        r = outcome(ok, pT, pO, False, vs, tie_rule)
        if with_decl:
            res = r
            made[i] = r == MADE
            litige[i] = r == LITIGE
        else:
            decided[i] = r != res
    if not awards:
        return
    cT, dT, bT = C[i, t], D[i, t], B[i, t]
    given = cT + (dT if fd == 0 else 0) + (bT if to_def else 0)
    kept = (dT if fd == 1 else 0) + (0 if to_def else bT)
    nxt = (t + 1) % K
    for k in range(K):
        own = C[i, k] + D[i, k] + B[i, k]
        if res == MADE:
            s = own
        elif res == LITIGE:   # the opponents score their own totals now, the taker's is held
            s = 0 if k == t else own
        elif k == t:
            s = kept
        else:
            s = own
            if share:
                s += given // 2 + (given % 2 if k == nxt else 0)
        score[i, k] = round1(s, rcode)
    held[i] = round1(C[i, t] + D[i, t] + B[i, t], rcode) if res == LITIGE else 0
