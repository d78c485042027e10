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
from pipeline.rescore.pass_layout import (COMP_DEAL, COMP_FULL, COMP_OTHER, COMP_TT, COUNT_ANNOUNCED, COUNT_ELSE_HELD,
                                          F_BELOTE_ANN, F_CAPOT, F_CLAIM, F_FROM_ANN, F_FULL, F_HANDS, F_HAS_TAKER,
                                          F_ILLEGAL, F_LEGAL, F_OK, F_PLAYED, F_REASON, F_SCORE_V, P_AT_A, P_AT_B,
                                          P_BELOTE_COUNT, P_BELOTE_ON, P_CAPOT_BONUS, P_CAPOT_LAST_TRICK, P_CAPOT_SPLIT,
                                          P_COUNT, P_DECK24, P_DECL_ON, P_FLAGS, P_LAST_TRICK, P_NEEDS_BID, P_NT_A,
                                          P_NT_B, P_PLAYERS, P_PRISE, P_STRAIN_MASK, P_TEAMS, P_TRICKS, R_3P, R_BID,
                                          R_DEAL, R_DECK24, R_HANDS, R_NEEDS_HANDS, R_PLAYERS, R_PLAYS, R_PRISE,
                                          R_STRAIN, R_STRAIN_OFF, R_SUMMARY, R_TRICKS_TAKEN, S_BELOTE_TEAM,
                                          S_CAPOT_TEAM, S_ILL_CARD, S_ILL_COUNT, S_ILL_RULE, S_ILL_SEAT, S_ILL_TRICK,
                                          S_LAST_TEAM, S_REASON, S_STATUS, S_STRAIN, S_TAKER_TEAM, T_CLAIM, T_COUNTING,
                                          T_ILLEGAL, _bit)
from pipeline.rescore.play import play_one


@njit_inner
def _text_code(offsets, data, i, t_offsets, t_data):
    """Index of row i's string (offsets/data, :func:`columns.string_parts`) among the texts (t_offsets/t_data),
    -1 when it is none of them."""
    a, b = offsets[i], offsets[i + 1]
    for k in range(len(t_offsets) - 1):
        ta, tb = t_offsets[k], t_offsets[k + 1]
        if tb - ta != b - a:
            continue
        same = True
        for j in range(b - a):
            if data[a + j] != t_data[ta + j]:
                same = False
                break
        if same:
            return k
    return -1


@njit_inner
def _low_cards(hands_v, h0, P):
    """Whether any of the P hands from h0 holds a 7 or an 8."""
    m = np.int64(0)
    for p in range(P):
        m |= np.int64(hands_v[h0 + p])
    return m & 0x03030303 != 0


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def cards_pass(n, rp, n_pl, taker, taker_bits, taker_off, tteam, tteam_bits, tteam_off,
               comp_o, comp_d, comp_bits, comp_off, comp_texts_o, comp_texts_d,
               strain_o, strain_d, strain_bits, strain_off, strain_texts_o, strain_texts_d,
               plays_o, plays_v, plays_bits, plays_off, seats_o, seats_v, hands_o, hands_v, hands_bits, hands_off,
               tt_o, tt_v, tt_bits, tt_off, lts, lts_bits, lts_off, ann_bits, ann_off, dealer, coinche,
               cbid_bits, cbid_off, bid_bits, bid_off, points, strength, above_trump, C, took, no_tp, classify_only,
               flags, small, winners, team16, claim_trick):
    """Pass 1 over n hands: what each record holds and whether it can be scored (the first reason that applies;
    ``S_REASON``, ``S_STATUS``, ``F_OK``...), then for the scored hands their card points (``C``, int64 (n, K):
    the play replayed, or the tricks taken summed; last trick or capot bonus, the split of a 3-player capot,
    strain scaling, capot bonus), who took a trick (``took``, bool (n, K)), the trick winners, the first illegal play,
    the last trick's and the capot's team. With ``classify_only``, only the classification. Inputs:
    the columns of :class:`pass_layout.Inputs`, the tables of :class:`pass_layout.Tables`."""
    P = rp[P_PLAYERS]
    T = rp[P_TRICKS]
    K = rp[P_TEAMS]
    count_mode = rp[P_COUNT]
    decl_on = rp[P_DECL_ON] != 0
    belote_on = rp[P_BELOTE_ON] != 0
    fl = rp[P_FLAGS]
    for i in range(n):
        has_taker_seat = _bit(taker_bits, taker_off, i)
        team_only = _bit(tteam_bits, tteam_off, i) and not has_taker_seat
        if team_only:
            t_team = np.int64(tteam[i])
        else:
            t_team = mod(np.int64(taker[i]), K) if has_taker_seat else np.int64(0)
        comp = _text_code(comp_o, comp_d, i, comp_texts_o, comp_texts_d) \
            if _bit(comp_bits, comp_off, i) else -1
        if comp < 0:
            comp = COMP_OTHER
        deal_only = comp == COMP_DEAL
        passed = not has_taker_seat and not team_only and not deal_only
        is_full = comp == COMP_FULL
        is_tt = comp == COMP_TT
        plays_len = plays_o[i + 1] - plays_o[i] if _bit(plays_bits, plays_off, i) else 0
        hands_ok = _bit(hands_bits, hands_off, i) and hands_o[i + 1] - hands_o[i] == P
        tt_len = tt_o[i + 1] - tt_o[i] if _bit(tt_bits, tt_off, i) else 0
        st = _text_code(strain_o, strain_d, i, strain_texts_o, strain_texts_d) \
            if _bit(strain_bits, strain_off, i) else -1
        has_ann = _bit(ann_bits, ann_off, i)
        from_ann = count_mode == COUNT_ANNOUNCED or (count_mode == COUNT_ELSE_HELD and has_ann)
        # belote.count: the belote from the record's announcements (said, or lost), or held in the initial hands
        bel_ann = belote_on and (rp[P_BELOTE_COUNT] == COUNT_ANNOUNCED
                                 or (rp[P_BELOTE_COUNT] == COUNT_ELSE_HELD and has_ann))
        needs_hands = (not from_ann and decl_on) or (not bel_ann and belote_on)
        cb = _bit(cbid_bits, cbid_off, i)
        reason = 0
        if n_pl[i] != P:
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
            elif is_tt and (tt_len != P or not _bit(lts_bits, lts_off, i)):
                reason = R_TRICKS_TAKEN
            elif is_tt and needs_hands and not hands_ok:
                reason = R_NEEDS_HANDS
            elif st < 0:
                reason = R_STRAIN
            elif not (rp[P_STRAIN_MASK] >> st) & 1:
                reason = R_STRAIN_OFF
            elif K != 2 and (coinche[i] > 0 or cb):
                reason = R_3P
            elif rp[P_PRISE] and (coinche[i] > 0 or cb):
                reason = R_PRISE
            elif rp[P_DECK24] and hands_ok and _low_cards(hands_v, hands_o[i], P):
                reason = R_DECK24
            elif rp[P_NEEDS_BID] and not _bit(bid_bits, bid_off, i) and not cb:
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
            p0 = plays_o[i]
            s0 = seats_o[i]
            lt, first_bad, code, bad_teams = play_one(plays_v, p0, seats_v, s0, hands_v, hands_o[i], P, T,
                                                      dealer[i], st, points, strength, fl, above_trump, K, i,
                                                      winners, no_tp, C, took)
            n_bad = 0
            for t in range(K):
                team16[T_ILLEGAL, i, t] = (bad_teams >> (8 * t)) & 0xFF
                n_bad += team16[T_ILLEGAL, i, t]
            small[S_ILL_COUNT, i] = min(n_bad, 127)
            if claim_trick[i] >= 0:
                _claim_tricks(i, P, K, min(np.int64(claim_trick[i]), T), plays_v, p0, st, points, winners, team16)
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
            t0 = tt_o[i]
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
            lt = mod(np.int64(lts[i]), K)
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
