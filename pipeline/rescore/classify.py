"""Whether each hand can be scored, before the compiled passes (:mod:`pipeline.rescore.hand_pass`): its reason,
status and the flags the passes read (``F_OK``, ``F_FULL``...), vectorised over the batch (numpy).

What a record holds decides whether it is scored: the first reason that applies, in the order of
:func:`pipeline.rescore.engine.reason_texts`. This is a few comparisons per hand over whole columns; done here
rather than in the compiled pass 1, it is not compiled at all (numba's compile time grows with the code it is
given, and the first rescore after an install compiled this too).
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.pass_layout import (B_ANN, B_BID, B_CBID, B_HANDS, B_LTS, B_PLAYS, B_TAKER, B_TT, B_TTEAM,
                                          COMP_DEAL, COMP_FULL, COMP_TT, COUNT_ANNOUNCED, COUNT_ELSE_HELD, F_BELOTE_ANN,
                                          F_FROM_ANN, F_FULL, F_HANDS, F_HAS_TAKER, F_OK, F_REASON, F_SCORE_V, Inputs,
                                          O_HANDS, O_PLAYS, O_TT, P_BELOTE_COUNT, P_BELOTE_ON, P_COUNT, P_DECK24,
                                          P_DECL_ON, P_NEEDS_BID, P_PLAYERS, P_PRISE, P_STRAIN_MASK, P_TEAMS, P_TRICKS,
                                          R_3P, R_BID, R_DEAL, R_DECK24, R_HANDS, R_NEEDS_HANDS, R_PLAYERS, R_PLAYS,
                                          R_PRISE, R_STRAIN, R_STRAIN_OFF, R_SUMMARY, R_TRICKS_TAKEN, S_BELOTE_TEAM,
                                          S_CAPOT_TEAM, S_ILL_CARD, S_ILL_SEAT, S_REASON, S_STATUS, S_STRAIN,
                                          S_TAKER_TEAM, V_COINCHE, V_COMP, V_N_PL, V_STRAIN, V_TAKER, V_TTEAM)


def _from_record(mode: int, has_ann: np.ndarray) -> np.ndarray:
    """Rows that take their declarations (or belote) from the record under ``declarations.count`` (or
    ``belote.count``) mode ``mode``: all with "announced", those with announcements with "announced_else_held"."""
    if mode == COUNT_ANNOUNCED:
        return np.ones_like(has_ann)
    return has_ann if mode == COUNT_ELSE_HELD else np.zeros_like(has_ann)


def _low_cards(inp: Inputs, P: int, rows: np.ndarray) -> np.ndarray:
    """Whether any of the P initial hands of each of ``rows`` (whose P hands are all there) holds a 7 or an 8."""
    at = inp.offs[O_HANDS, rows][:, None] + np.arange(P)
    return np.bitwise_or.reduce(inp.hands[at], axis=1) & 0x03030303 != 0


def _mod(x: np.ndarray, K: int) -> np.ndarray:
    """``x % K`` (Python's sign rule) of int8 seats, without a division where 0 <= x < 2K (nearly always)."""
    out = x - K * (x >= K).view(np.int8)
    odd = (x < 0) | (x >= 2 * K)
    if odd.any():
        out[odd] = np.mod(x[odd], K)
    return out


def _reasons(conds: list[tuple[np.ndarray, int]], n: int) -> np.ndarray:
    """int8 (n,): the code of the first condition (bool (n,)) that holds in each row, 0 where none does; the
    rows are looked at one condition after another only where one holds (usually few)."""
    reason = np.zeros(n, np.int8)
    anyone = np.zeros(n, np.bool_)
    for cond, _ in conds:
        anyone |= cond
    rows = np.flatnonzero(anyone)
    if len(rows):
        sub = np.zeros(len(rows), np.int8)
        for cond, code in reversed(conds):
            sub[cond[rows]] = code
        reason[rows] = sub
    return reason


def classify(rp: np.ndarray, inp: Inputs, flags: np.ndarray, small: np.ndarray) -> None:
    """Classify the n hands of ``inp`` under the ruleset's parameters ``rp``: write the rows ``S_REASON``,
    ``S_STATUS``, ``S_STRAIN``, ``S_TAKER_TEAM`` of ``small`` (-1 in ``S_ILL_SEAT``, ``S_ILL_CARD``,
    ``S_CAPOT_TEAM``, ``S_BELOTE_TEAM``, which the passes set for scored hands) and ``F_REASON``,
    ``F_HAS_TAKER``, ``F_OK``, ``F_FROM_ANN``, ``F_BELOTE_ANN``, ``F_SCORE_V``, ``F_FULL``, ``F_HANDS`` of
    ``flags`` (:class:`pipeline.rescore.pass_layout.Outputs`)."""
    P, T, K = int(rp[P_PLAYERS]), int(rp[P_TRICKS]), int(rp[P_TEAMS])
    v, b, o = inp.vals, inp.valid.view(np.bool_), inp.offs
    n = v.shape[1]
    has_seat = b[B_TAKER]
    team_only = b[B_TTEAM] & ~has_seat
    comp = v[V_COMP]
    deal_only = comp == COMP_DEAL
    passed = ~(has_seat | team_only | deal_only)
    is_full = comp == COMP_FULL
    is_tt = comp == COMP_TT
    hands_ok = b[B_HANDS] & (o[O_HANDS, 1:] - o[O_HANDS, :-1] == P)
    st = v[V_STRAIN]
    from_ann = _from_record(int(rp[P_COUNT]), b[B_ANN])
    bel_ann = _from_record(int(rp[P_BELOTE_COUNT]), b[B_ANN]) & bool(rp[P_BELOTE_ON])
    needs_hands = (~from_ann & bool(rp[P_DECL_ON])) | (~bel_ann & bool(rp[P_BELOTE_ON]))
    doubled = (v[V_COINCHE] > 0) | b[B_CBID]
    strain_off = np.zeros(n, np.bool_)
    for s in range(6):
        if not int(rp[P_STRAIN_MASK]) >> s & 1:
            strain_off |= st == s
    # the reasons in order, the first that applies (R_DECK24 looks at the hands only when due); past the player
    # count, none for a passed-out hand
    live = ~passed
    chain = [(deal_only, R_DEAL), (~is_full & ~is_tt, R_SUMMARY),
             (is_full & ((o[O_PLAYS, 1:] - o[O_PLAYS, :-1] != P * T) | ~b[B_PLAYS]), R_PLAYS),
             (is_full & ~hands_ok, R_HANDS),
             (is_tt & ((o[O_TT, 1:] - o[O_TT, :-1] != P) | ~b[B_TT] | ~b[B_LTS]), R_TRICKS_TAKEN),
             (is_tt & needs_hands & ~hands_ok, R_NEEDS_HANDS), (st < 0, R_STRAIN), (strain_off, R_STRAIN_OFF),
             (doubled & (K != 2), R_3P), (doubled & bool(rp[P_PRISE]), R_PRISE)]
    if rp[P_DECK24]:
        low = np.zeros(n, np.bool_)
        rows = np.flatnonzero(hands_ok & live)
        low[rows] = _low_cards(inp, P, rows)
        chain.append((low, R_DECK24))
    if rp[P_NEEDS_BID]:
        chain.append((~b[B_BID] & ~b[B_CBID], R_BID))
    other_count = v[V_N_PL] != P
    conds = [(other_count, R_PLAYERS)] + [(cond & live, code) for cond, code in chain]
    reason = _reasons(conds, n)
    bad = reason != 0
    ok = ~bad & live
    # a hand of another player count is unscorable even when nobody took: its 0 - 0 would count as a hand of
    # this ruleset's teams (a 3-player hand's seats are not a 4-player ruleset's two teams)
    passed = passed & ~other_count
    small[S_REASON] = reason
    small[S_STATUS] = 2 - ok.view(np.int8) - 2 * passed.view(np.int8)
    small[S_STRAIN] = st
    has_taker = live & ~deal_only
    team = np.where(team_only, v[V_TTEAM].astype(np.int8), _mod(v[V_TAKER].astype(np.int8), K) * has_seat)
    small[S_TAKER_TEAM] = np.where(has_taker, team, np.int8(-1))
    for row in (S_ILL_SEAT, S_ILL_CARD, S_CAPOT_TEAM, S_BELOTE_TEAM):
        small[row] = -1
    for row, value in ((F_REASON, bad), (F_HAS_TAKER, has_taker), (F_OK, ok), (F_FROM_ANN, from_ann),
                       (F_BELOTE_ANN, bel_ann), (F_SCORE_V, ok | passed), (F_FULL, is_full), (F_HANDS, hands_ok)):
        flags[row] = value
