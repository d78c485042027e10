"""Pass 2 of the passes (:mod:`pipeline.rescore.hand_pass`): each scored hand's declarations and belote held
(those taken from the record, and the belote team, are set around it: :mod:`pipeline.rescore.declaration_points`).

The declarations held (:func:`pipeline.rescore.declarations.held`, listed one by one) or recorded as announced
(settled beforehand, :func:`pipeline.rescore.declarations.from_announced`), belote-rebelote
(:mod:`pipeline.rescore.belote`), then ``declarations.on_capot``: the rules stay in those functions. Unlike the two
other passes this one is numpy over all the hands at once, not compiled: its per-hand work is table look-ups and
a contest over 2 to 4 seats, as fast vectorised, and compiling it was a third of the first rescore after an
install.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.belote import belote_not_led, belote_suits, popcount4
from pipeline.rescore.declaration_contest import on_capot_rows, settle_rows
from pipeline.rescore.declaration_items import Entries
from pipeline.rescore.declarations import DeclarationTables, held, held_items
from pipeline.rescore.pass_layout import (F_BELOTE_ANN, F_FROM_ANN, F_FULL, F_HANDS, F_OK, O_HANDS, O_PLAYS,
                                          P_BELOTE_AT, P_BELOTE_ON, P_BELOTE_VALUE, P_CARRE_IN_SEQ, P_CONTEST,
                                          P_DECL_AT, P_DECL_NT, P_DECL_ON, P_ON_CAPOT, P_PLAYERS, P_TEAMS, P_TIE,
                                          P_TRICKS, P_TRUMP_BONUS, S_CAPOT_TEAM, S_STRAIN, V_DEALER, Inputs)


def declarations_pass(rp: np.ndarray, inp: Inputs, dt: DeclarationTables, cdb: np.ndarray, took: np.ndarray,
                      flags: np.ndarray, small: np.ndarray, led: bool) -> tuple[Entries, np.ndarray]:
    """Pass 2 over the hands :func:`pipeline.rescore.cards_pass.cards_pass` found scorable (``F_OK``): their
    declaration points (``cdb[1]``, int64 (n, K), after the contest and ``declarations.on_capot``) and belote
    points (``cdb[2]``), added to those taken from the record (:func:`pipeline.rescore.declaration_points.from_record`)
    when the rows do not take them from it: detected in the initial hands (``V_DEALER``: each hand's dealer
    seat, for ``declarations.tie = "first_announcer"``). ``led``: the ruleset counts an all-trump belote only
    when led or followed (``belote.all_trump = "per_suit_led"``). Returns (the items held, one by one, and
    int32 (n + 1,) each hand's first item)."""
    D, B = cdb[1], cdb[2]
    n = flags.shape[1]
    P, T, K = int(rp[P_PLAYERS]), int(rp[P_TRICKS]), int(rp[P_TEAMS])
    ok = flags[F_OK].view(np.bool_)
    from_ann = flags[F_FROM_ANN].view(np.bool_)
    bel_held = bool(rp[P_BELOTE_ON]) & ~flags[F_BELOTE_ANN].view(np.bool_)
    rows = np.flatnonzero(ok & flags[F_HANDS].view(np.bool_) & ~(from_ann & ~bel_held))
    entries = Entries.empty()
    if len(rows):
        h = seat_hands(inp, rows, n, P)
        st = small[S_STRAIN, rows].astype(np.int64)
        active = (bool(rp[P_DECL_ON]) & ~from_ann[rows] & ((st != NO_TRUMP) | bool(rp[P_DECL_NT]))
                  & ((st != ALL_TRUMP) | bool(rp[P_DECL_AT])))
        hd = held(h, st, dt, bool(rp[P_CARRE_IN_SEQ]), int(rp[P_TRUMP_BONUS]))
        won, seq_wins, carre_wins = settle_rows(hd.sp, hd.sk, hd.cp, hd.ck, active, int(rp[P_CONTEST]), K,
                                                int(rp[P_TIE]), inp.vals[V_DEALER, rows])
        np.add.at(D, (rows[won[0]], won[1]), won[2])    # 0 there before: declaration_points.from_record
        belote = None
        if rp[P_BELOTE_ON]:
            value = int(rp[P_BELOTE_VALUE])
            suits = belote_suits(h, st, bool(rp[P_BELOTE_AT])) * bel_held[rows][:, None]
            q = np.flatnonzero(suits)
            np.add.at(B, (rows[q // P], q % P % K), value * popcount4(suits.ravel()[q]))
            lost = np.zeros(len(rows), np.int64)
            if led:
                j = np.flatnonzero(bel_held[rows] & flags[F_FULL, rows].view(np.bool_) & (st == ALL_TRUMP))
                j = j[suits[j].any(axis=1)]
                if len(j):
                    plays = inp.plays[inp.offs[O_PLAYS, rows[j]][:, None] + np.arange(P * T)]
                    taken, lost[j] = belote_not_led(h[j], plays, value, K)
                    B[rows[j]] -= taken
            belote = (suits, lost, value)
        entries = held_items(rows, hd, st, active, seq_wins, carre_wins, dt, belote)
    on_capot_rows(D, ok, K, small[S_CAPOT_TEAM], took, int(rp[P_ON_CAPOT]))   # declarations.on_capot
    offsets = np.zeros(n + 1, np.int32)
    offsets[1:] = np.cumsum(np.bincount(entries.row, minlength=n))
    return entries, offsets


def seat_hands(inp: Inputs, rows: np.ndarray, n: int, P: int) -> np.ndarray:
    """uint32 (len(rows), P): the initial hands of the hands ``rows`` (each holds P); a slice of the column's
    values when every hand of the batch holds P (the usual case), else gathered."""
    o = inp.offs[O_HANDS]
    if o[n] - o[0] == n * P and (o[1:n + 1] - o[:n] == P).all():
        return inp.hands[o[0]:o[n]].reshape(n, P)[rows]
    return inp.hands[o[rows][:, None] + np.arange(P)]
