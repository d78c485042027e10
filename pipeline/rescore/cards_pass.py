"""Pass 1 of the compiled passes (:mod:`pipeline.rescore.hand_pass`): whether each hand can be scored, and
its card points.

What a record holds decides whether it is scored (the first reason that applies); for a scored hand the play
is replayed (:func:`pipeline.rescore.play.play_one`) or the tricks taken summed, then the last trick, the capot
and the strain's scaling: all the later passes need of the cards.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.arith import mod
from pipeline.jit import njit, njit_inner
from pipeline.rescore.pass_layout import (B_ANN, B_BID, B_CBID, B_HANDS, B_LTS, B_PLAYS, B_TAKER, B_TT, B_TTEAM,
                                          COMP_DEAL, COMP_FULL, COMP_TT, COUNT_ANNOUNCED, COUNT_ELSE_HELD, F_BELOTE_ANN,
                                          F_CAPOT, F_CLAIM, F_FROM_ANN, F_FULL, F_HANDS, F_HAS_TAKER, F_ILLEGAL,
                                          F_LEGAL, F_OK, F_PLAYED, F_REASON, F_SCORE_V, O_HANDS, O_PLAYS, O_SEATS,
                                          O_TT, P_AT_A, P_AT_B, P_BELOTE_COUNT, P_BELOTE_ON, P_CAPOT_BONUS,
                                          P_CAPOT_LAST_TRICK, P_CAPOT_SPLIT, P_COUNT, P_DECK24, P_DECL_ON, P_FLAGS,
                                          P_LAST_TRICK, P_NEEDS_BID, P_NT_A, P_NT_B, P_PLAYERS, P_PRISE,
                                          P_STRAIN_MASK, P_TEAMS, P_TRICKS, R_3P, R_BID, R_DEAL, R_DECK24, R_HANDS,
                                          R_NEEDS_HANDS, R_PLAYERS, R_PLAYS, R_PRISE, R_STRAIN, R_STRAIN_OFF,
                                          R_SUMMARY, R_TRICKS_TAKEN, S_BELOTE_TEAM, S_CAPOT_TEAM, S_ILL_CARD,
                                          S_ILL_COUNT, S_ILL_RULE, S_ILL_SEAT, S_ILL_TRICK, S_LAST_TEAM, S_REASON,
                                          S_STATUS, S_STRAIN, S_TAKER_TEAM, T_CLAIM, T_COUNTING, T_ILLEGAL, V_CLAIM,
                                          V_COINCHE, V_COMP, V_DEALER, V_LTS, V_N_PL, V_STRAIN, V_TAKER, V_TTEAM)
from pipeline.rescore.play import play_one


@njit_inner
def _low_cards(hands_v, h0, P):
    """Whether any of the P hands from h0 holds a 7 or an 8."""
    m = np.int64(0)
    for p in range(P):
        m |= np.int64(hands_v[h0 + p])
    return m & 0x03030303 != 0


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def cards_pass(n, rp, vals, valid, offs, plays_v, seats_v, hands_v, tt_v, points, strength, above_trump, C, took,
               no_tp, classify_only, flags, small, winners, team16):
    """Pass 1 over n hands: what each record holds and whether it can be scored (the first reason that applies;
    ``S_REASON``, ``S_STATUS``, ``F_OK``...), then for the scored hands their card points (``C``, int64 (n, K):
    the play replayed, or the tricks taken summed; last trick or capot bonus, the split of a 3-player capot,
    strain scaling, capot bonus), who took a trick (``took``, bool (n, K)), the trick winners, the first illegal play,
    the last trick's and the capot's team. With ``classify_only``, only the classification. Inputs:
    the columns of :class:`pass_layout.Inputs` (rows ``V_*``, ``B_*``, ``O_*``), the tables of
    :class:`pass_layout.Tables`."""
    P = rp[P_PLAYERS]
    T = rp[P_TRICKS]
    K = rp[P_TEAMS]
    count_mode = rp[P_COUNT]
    decl_on = rp[P_DECL_ON] != 0
    belote_on = rp[P_BELOTE_ON] != 0
    fl = rp[P_FLAGS]
    for i in range(n):
        has_taker_seat = valid[B_TAKER, i] != 0
        team_only = valid[B_TTEAM, i] != 0 and not has_taker_seat
        if team_only:
            t_team = np.int64(vals[V_TTEAM, i])
        else:
            t_team = mod(np.int64(vals[V_TAKER, i]), K) if has_taker_seat else np.int64(0)
        comp = vals[V_COMP, i]
        deal_only = comp == COMP_DEAL
        passed = not has_taker_seat and not team_only and not deal_only
        is_full = comp == COMP_FULL
        is_tt = comp == COMP_TT
        p0 = offs[O_PLAYS, i]
        h0 = offs[O_HANDS, i]
        t0 = offs[O_TT, i]
        plays_len = offs[O_PLAYS, i + 1] - p0 if valid[B_PLAYS, i] else 0
        hands_ok = valid[B_HANDS, i] != 0 and offs[O_HANDS, i + 1] - h0 == P
        tt_len = offs[O_TT, i + 1] - t0 if valid[B_TT, i] else 0
        st = np.int64(vals[V_STRAIN, i])
        has_ann = valid[B_ANN, i] != 0
        from_ann = count_mode == COUNT_ANNOUNCED or (count_mode == COUNT_ELSE_HELD and has_ann)
        # belote.count: the belote from the record's announcements (said, or lost), or held in the initial hands
        bel_ann = belote_on and (rp[P_BELOTE_COUNT] == COUNT_ANNOUNCED
                                 or (rp[P_BELOTE_COUNT] == COUNT_ELSE_HELD and has_ann))
        needs_hands = (not from_ann and decl_on) or (not bel_ann and belote_on)
        cb = valid[B_CBID, i] != 0
        coinche = vals[V_COINCHE, i]
        reason = 0
        if vals[V_N_PL, i] != P:
            reason = R_PLAYERS
        elif not passed:
            if deal_only:
                reason = R_DEAL
            elif not is_full and not is_tt:
                reason = R_SUMMARY
            elif is_full and plays_len != P * T:
                reason = R_PLAYS
            elif is_full and not hands_ok:
                reason = R_HANDS
            elif is_tt and (tt_len != P or not valid[B_LTS, i]):
                reason = R_TRICKS_TAKEN
            elif is_tt and needs_hands and not hands_ok:
                reason = R_NEEDS_HANDS
            elif st < 0:
                reason = R_STRAIN
            elif not (rp[P_STRAIN_MASK] >> st) & 1:
                reason = R_STRAIN_OFF
            elif K != 2 and (coinche > 0 or cb):
                reason = R_3P
            elif rp[P_PRISE] and (coinche > 0 or cb):
                reason = R_PRISE
            elif rp[P_DECK24] and hands_ok and _low_cards(hands_v, h0, P):
                reason = R_DECK24
            elif rp[P_NEEDS_BID] and not valid[B_BID, i] and not cb:
                reason = R_BID
        ok = reason == 0 and not passed
        small[S_REASON, i] = reason
        small[S_STATUS, i] = 0 if passed else (1 if ok else 2)
        small[S_STRAIN, i] = st
        has_taker = not passed and not deal_only
        small[S_TAKER_TEAM, i] = t_team if has_taker else -1
        flags[F_REASON, i] = reason > 0
        flags[F_HAS_TAKER, i] = has_taker
        flags[F_OK, i] = ok
        flags[F_FROM_ANN, i] = from_ann
        flags[F_BELOTE_ANN, i] = bel_ann
        flags[F_SCORE_V, i] = ok or passed
        flags[F_FULL, i] = is_full
        flags[F_HANDS, i] = hands_ok
        small[S_ILL_SEAT, i] = -1
        small[S_ILL_CARD, i] = -1
        small[S_CAPOT_TEAM, i] = -1
        small[S_BELOTE_TEAM, i] = -1
        if classify_only or not ok:
            continue
        # ---- card points: the play replayed, or the tricks taken summed
        if is_full:
            s0 = offs[O_SEATS, i]
            lt, first_bad, code, bad_teams = play_one(plays_v, p0, seats_v, s0, hands_v, h0, P, T,
                                                      vals[V_DEALER, i], st, points, strength, fl, above_trump, K,
                                                      i, winners, no_tp, C, took)
            n_bad = 0
            for t in range(K):
                team16[T_ILLEGAL, i, t] = (bad_teams >> (8 * t)) & 0xFF
                n_bad += team16[T_ILLEGAL, i, t]
            small[S_ILL_COUNT, i] = min(n_bad, 127)
            claim = np.int64(vals[V_CLAIM, i])
            if claim >= 0:
                _claim_tricks(i, P, K, min(claim, T), plays_v, p0, st, points, winners, team16)
                flags[F_CLAIM, i] = True
            flags[F_PLAYED, i] = True
            flags[F_LEGAL, i] = first_bad < 0
            flags[F_ILLEGAL, i] = first_bad >= 0
            if first_bad >= 0:
                small[S_ILL_TRICK, i] = first_bad // P + 1
                small[S_ILL_SEAT, i] = seats_v[s0 + first_bad]
                small[S_ILL_CARD, i] = plays_v[p0 + first_bad]
            small[S_ILL_RULE, i] = code
        else:
            for t in range(K):
                mask = np.int64(0)
                for p in range(t, P, K):
                    mask |= np.int64(tt_v[t0 + p])
                s = np.int64(0)
                for c in range(32):
                    if mask >> c & 1:
                        s += points[st * 32 + c]
                C[i, t] = s
                took[i, t] = mask != 0
            lt = mod(np.int64(vals[V_LTS, i]), K)
        # ---- last trick, capot, strain scaling
        n_took = 0
        first_took = -1
        for t in range(K):
            if took[i, t]:
                n_took += 1
                if first_took < 0:
                    first_took = t
        if K == 2:
            capt = 0 if not took[i, 1] else (1 if not took[i, 0] else -1)
        else:
            capt = first_took if n_took == 1 else -1
        bonus = rp[P_CAPOT_LAST_TRICK] if capt >= 0 else rp[P_LAST_TRICK]
        split = rp[P_CAPOT_SPLIT]
        if split != 0 and n_took == K - 1:   # 3 players, one took no trick: the others score the split
            bonus = 0
            for t in range(K):
                if took[i, t]:
                    C[i, t] += split
        C[i, lt] += bonus
        if st == NO_TRUMP and rp[P_NT_A] != rp[P_NT_B]:
            a, b = rp[P_NT_A], rp[P_NT_B]
            for t in range(K):
                C[i, t] = (C[i, t] * a * 2 + b) // (2 * b)
        elif st == ALL_TRUMP and rp[P_AT_A] != rp[P_AT_B]:
            a, b = rp[P_AT_A], rp[P_AT_B]
            for t in range(K):
                C[i, t] = (C[i, t] * a * 2 + b) // (2 * b)
        if capt >= 0:
            C[i, capt] += rp[P_CAPOT_BONUS]
        small[S_LAST_TEAM, i] = lt
        small[S_CAPOT_TEAM, i] = capt
        flags[F_CAPOT, i] = capt >= 0


@njit_inner
def _claim_tricks(i, P, K, upto, plays_v, p0, st, points, winners, team16):
    """Hand i's points per team at a claim after ``upto`` tricks: the card points of the tricks each team won up
    to then (T_CLAIM; no last-trick bonus, no strain scaling) and whether it won one holding a card worth points
    (T_COUNTING, seed 001: until then it counts no declaration)."""
    for t in range(K):
        team16[T_CLAIM, i, t] = 0
        team16[T_COUNTING, i, t] = 0
    for t in range(upto):
        pts = 0
        for k in range(P):
            pts += points[st * 32 + np.int64(plays_v[p0 + t * P + k])]
        team = mod(np.int64(winners[i, t]), K)
        team16[T_CLAIM, i, team] += pts
        if pts > 0:
            team16[T_COUNTING, i, team] = 1
