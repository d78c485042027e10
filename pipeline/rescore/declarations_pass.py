"""Pass 2 of the compiled passes (:mod:`pipeline.rescore.hand_pass`): each scored hand's declarations and
belote held (those taken from the record, and the belote team, are set around it:
:mod:`pipeline.rescore.declaration_points`).

The declarations held (:func:`pipeline.rescore.declarations.held_one`, listed one by one) or recorded as
announced (settled beforehand, :func:`pipeline.rescore.declarations.from_announced`), belote-rebelote
(:mod:`pipeline.rescore.belote`), then ``declarations.on_capot``: the rules stay in those per-hand functions.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.arith import mod
from pipeline.rescore.belote import belote_suits, belote_items, belote_not_led
from pipeline.rescore.declaration_contest import on_capot_inner
from pipeline.rescore.declarations import held_one, seat_items
from pipeline.jit import njit
from pipeline.rescore.pass_layout import (F_BELOTE_ANN, F_FROM_ANN, F_FULL, F_HANDS, F_OK, ITEMS_PER_SEAT, O_HANDS,
                                          O_PLAYS, P_BELOTE_AT, P_BELOTE_ON, P_BELOTE_VALUE, P_CARRE_IN_SEQ,
                                          P_CONTEST, P_DECL_AT, P_DECL_NT, P_DECL_ON, P_ON_CAPOT, P_PLAYERS, P_TEAMS,
                                          P_TIE, P_TRICKS, P_TRUMP_BONUS, S_CAPOT_TEAM, S_STRAIN, V_DEALER)


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def declarations_pass(n, rp, vals, offs, hands_v, plays_v, carre_points, carre_key, seq_points, seq_key, slot,
                      slot_points, cdb, took, seat, team, wins, flags, small, item_offsets, e_row, e_small, e_points,
                      e_scored, led):
    """Pass 2 over the hands :func:`cards_pass` found scorable: their declaration points (``cdb[1]``, int64
    (n, K), after the contest and ``declarations.on_capot``) and belote points (``cdb[2]``), added to those taken
    from the record (:func:`pipeline.rescore.declaration_points.from_record`) when the rows do not take them
    from it: detected in the initial hands (``vals[V_DEALER]``: each hand's dealer seat, for
    ``declarations.tie = "first_announcer"``) and listed one by one into the ``e_*`` items (``e_small``: seat,
    kind, rank, suit, length) from ``item_offsets[i]`` on. Returns (the number of items, whether some were not written): a
    hand's items are written only when the room left (len(e_row)) holds the most a hand can have
    (ITEMS_PER_SEAT per seat), else counted, and the caller runs the pass again with room for them all. The
    other arrays: as :class:`pass_layout.Scratch` and :class:`pass_layout.Tables`."""
    D, B = cdb[1], cdb[2]
    sp, sk, cp, ck, pts, key = seat[0], seat[1], seat[2], seat[3], seat[4], seat[5]
    tk, th = team[0, 0], team[1, 0]
    seq_w, carre_w = wins[0], wins[1]
    slot_length, slot_top = slot[0], slot[1]
    e_seat, e_kind, e_rank, e_suit, e_length = e_small[0], e_small[1], e_small[2], e_small[3], e_small[4]
    P = rp[P_PLAYERS]
    T = rp[P_TRICKS]
    K = rp[P_TEAMS]
    decl_on = rp[P_DECL_ON] != 0
    belote_on = rp[P_BELOTE_ON] != 0
    value = rp[P_BELOTE_VALUE]
    at_counts = rp[P_BELOTE_AT] != 0
    in_seq = rp[P_CARRE_IN_SEQ] != 0
    cap = len(e_row)
    o = np.int64(0)     # not the literal 0: seat_items would be compiled for it too
    short = False
    item_offsets[0] = 0
    for i in range(n):
        if flags[F_OK, i]:
            st = np.int64(small[S_STRAIN, i])
            capt = np.int64(small[S_CAPOT_TEAM, i])
            lost = 0
            from_ann = flags[F_FROM_ANN, i] != 0
            bel_held = belote_on & (flags[F_BELOTE_ANN, i] == 0)
            if (flags[F_HANDS, i] != 0) & (not (from_ann & (not bel_held))):
                h0 = offs[O_HANDS, i]
                active = decl_on & (not from_ann) & ((st != NO_TRUMP) | (rp[P_DECL_NT] != 0)) & (
                    (st != ALL_TRUMP) | (rp[P_DECL_AT] != 0))
                n_items = 0
                if not from_ann:      # the contest adds to D[i] (0 here: declaration_points.from_record)
                    n_items = held_one(hands_v, h0, P, st, active, carre_points, carre_key, seq_points,
                                       seq_key, slot_points, rp[P_TRUMP_BONUS], in_seq, rp[P_CONTEST], K,
                                       sp, sk, cp, ck, 0, D, seq_w, carre_w, i, pts, key,
                                       tk, th, rp[P_TIE], mod(np.int64(vals[V_DEALER, i]) + 1, P))
                if bel_held:
                    for p in range(P):
                        suits = belote_suits(np.int64(hands_v[h0 + p]), st, at_counts)
                        for suit in range(4):
                            if suits >> suit & 1:
                                B[i, mod(p, K)] += value
                                n_items += 1
                if led is not None and bel_held and flags[F_FULL, i] and st == ALL_TRUMP:   # led: see run()
                    lost = belote_not_led(hands_v, h0, P, plays_v, offs[O_PLAYS, i], P * T, value, K, B, i)
                if n_items > 0:
                    if o + ITEMS_PER_SEAT * P <= cap:
                        for p in range(P):
                            h = np.int64(hands_v[h0 + p])
                            if active:
                                o = seat_items(h, st, carre_points, slot_length, slot_top, slot_points,
                                               in_seq, seq_w[i, mod(p, K)], carre_w[i, mod(p, K)], i, p, o,
                                               e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored)
                            if bel_held:
                                o = belote_items(belote_suits(h, st, at_counts), lost, value, i, p, o,
                                                 e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored)
                    else:                  # no room: count them, the caller runs again with room enough
                        o += n_items
                        short = True
            on_capot_inner(D, i, K, capt, took, rp[P_ON_CAPOT])     # declarations.on_capot
        item_offsets[i + 1] = min(o, cap)
    return o, short
