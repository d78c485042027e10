"""The passes of :func:`pipeline.rescore.engine.score_batch`: every hand, start to finish (:func:`run`).

Three passes over the hands, each in a module named after it: two compiled, each one loop that reads the input
columns' buffers in place (list columns by their offsets: no gather into temporary arrays) and writes the output
columns' buffers as it goes, and the declarations pass in numpy over all the hands at once (table look-ups and a
contest over 2 to 4 seats: compiling it was a third of the first rescore after an install); between them the
steps that are a few operations on whole columns, vectorised (numpy), each in its module:

0. :func:`pipeline.rescore.classify.classify`: whether each hand can be scored (its ``reason``);
1. :func:`pipeline.rescore.cards_pass.cards_pass`: the play replayed (``play.play_one``); then
   :mod:`pipeline.rescore.card_points`: the tricks taken summed, the last trick, capot and strain scaling;
2. :func:`pipeline.rescore.declarations_pass.declarations_pass`: the declarations held
   (:func:`pipeline.rescore.declarations.held`, listed one by one) or recorded as announced,
   belote-rebelote, ``declarations.on_capot``;
3. :func:`pipeline.rescore.contract_pass.contract_pass` (two teams, :func:`pipeline.rescore.contract.settle_one`)
   or :func:`pipeline.rescore.contract_pass.solo_pass` (three players, :func:`pipeline.rescore.solo.solo_one`):
   the contract; then :mod:`pipeline.rescore.hand_finish`: revoke penalty, points written out, recorded score
   compared.

The rules themselves live in those per-hand functions, which the batch kernels of their modules also run. The
passes hand each other per-hand values through ``Scratch`` and ``Outputs`` (:mod:`pipeline.rescore.pass_layout`).
Separate passes rather than one keep each compiled function small (numba's compile time grows faster than the size
of a function) and let a ruleset compile only the settlement it uses (and only the rare rules it has,
:func:`run`); what is not per-hand logic stays out of them, so that the first rescore after an install does not
compile it.

The compiled passes and the per-hand functions they call (:func:`pipeline.jit.njit_inner`) are compiled without numba's
reference counting (``_nrt=False``): they allocate nothing (their working arrays, ``Scratch``, come from the
caller), and with it every call took and dropped a reference to each array argument, atomically, in every hand.

Ruleset parameters come as one int64 vector (``pass_layout.params``, indices ``P_*``) and the ruleset's tables
as ``Tables``; the input columns as ``Inputs``. Declarations recorded as announced are settled beforehand in
Python (:func:`pipeline.rescore.declarations.from_announced`) and passed in per row.
"""

from __future__ import annotations

import numpy as np

from pipeline.jit import scalar_loops
from pipeline.rescore.card_points import card_totals, claim_points, tricks_taken
from pipeline.rescore.cards_pass import cards_pass
from pipeline.rescore.classify import classify
from pipeline.rescore.contract_pass import contract_pass, solo_pass
from pipeline.rescore.declaration_points import belote_team, from_record
from pipeline.rescore.declarations_pass import declarations_pass
from pipeline.rescore.hand_finish import match_recorded, revoke_penalty, write_points
from pipeline.rescore.pass_layout import (Inputs, Outputs, P_BELOTE_LED, P_BG, P_PLAYERS, P_TEAMS,
                                          P_TRICKS, Tables, scratch)


def run(n: int, rp: np.ndarray, tab: Tables, inp: Inputs, ann: np.ndarray,
        classify_only: bool) -> tuple[Outputs, int]:
    """Score n hands: classify them, then run the passes and the vectorised steps between them in order (only the
    classification with ``classify_only``). ``ann``: int64 (2, n, K) team points and belote of the rows that take
    their declarations from the record. Returns (outputs, declaration items)."""
    T, K = int(rp[P_TRICKS]), int(rp[P_TEAMS])
    out = Outputs(n, K, T)
    classify(rp, inp, out.flags, out.small)
    if classify_only:
        return out, 0
    with scalar_loops():     # the passes' loops run over 2 to 4 seats or teams (pipeline.jit.scalar_loops)
        items = _score(n, rp, tab, inp, ann, out)
    return out, items


def _score(n: int, rp: np.ndarray, tab: Tables, inp: Inputs, ann: np.ndarray, out: Outputs) -> int:
    """The passes over n classified hands into ``out``. Returns the number of declaration items. (``bg`` is
    None for a ruleset without Bulgarian awards: numba drops that code unseen.)"""
    P, T, K = int(rp[P_PLAYERS]), int(rp[P_TRICKS]), int(rp[P_TEAMS])
    led, bg = bool(rp[P_BELOTE_LED]), (rp[P_BG] if rp[P_BG] else None)
    w = scratch(n, K, P, T)
    C, D, B = w.cdb
    cards_pass(n, rp, inp.vals, inp.offs, inp.plays, inp.seats, inp.hands, tab.points, tab.strength, tab.above_trump,
               C, w.took, w.no_tp, out.flags, out.small, out.winners, out.team16)
    claim_points(rp, inp, tab.points, out.winners, out.flags, out.small, out.team16)
    tricks_taken(rp, inp, tab.points, C, w.took, out.flags, out.small)
    card_totals(rp, C, w.took, out.flags, out.small)
    from_record(ann, out.flags, D, B)
    entries, out.item_offsets = declarations_pass(rp, inp, tab.decl, w.cdb, w.took, out.flags, out.small, led)
    out.set_entries(entries)
    belote_team(D, B, out.flags, out.small)
    settle = contract_pass if K == 2 else solo_pass
    settle(n, rp, inp.vals, inp.valid, tab.made, tab.award, w.cdb, w.outcome, out.flags, out.small, out.team16,
           out.score, out.held, bg)
    revoke_penalty(rp, out.flags, out.small, out.team16, out.score)
    write_points(C, D, B, w.outcome, out.flags, out.team16)
    match_recorded(rp, inp, out.flags, out.score)
    return len(entries.row)
