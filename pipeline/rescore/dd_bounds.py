"""The double-dummy solver's bounds at a trick's start (:mod:`pipeline.rescore.dd_solver`, issue 22): what side 0
takes at least and at most from there, found without a search, so a null-window test they decide ends there.

* side 0 takes at most every card still out and the last trick's bonus (while side 1 has taken nothing, the
  larger of the capot's and the plain one: a ruleset may make the capot's smaller);
* the top trumps out held by one side are that side's whatever happens (each wins its trick or falls under a
  higher one of the same side), and that side takes a trick;
* the leader's masters in the other suits, cashed one after the other while every other player who could ruff
  still follows suit, are the leader's side's too.
"""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit
from pipeline.rescore.bits import count


# inlined into the search: it runs at most trick starts
@njit(cache=True, nogil=True, inline="always")
def bounds(hands, P, side, leader, took, out_cards, side0, out_points, strain, pts, order, last, capot_last):
    """(least, most): side 0's card points from the trick start where ``leader`` leads, ``took`` the sides that
    took a trick, ``out_cards`` the cards still in hands (``side0`` side 0's, ``out_points`` their points)."""
    most = out_points
    least = np.int64(0)
    sure_side = np.int64(-1)
    if strain < 4:
        sure = np.int64(0)
        for a in range(8):
            c = order[strain * 5, a]
            bit = np.int64(1) << c
            if out_cards & bit == 0:
                continue
            s_of = np.int64(0) if side0 & bit else np.int64(1)
            if sure_side < 0:
                sure_side = s_of
            elif s_of != sure_side:
                break
            sure += pts[c]
        if sure_side == 0:
            least = sure
        elif sure_side == 1:
            most -= sure
    mine = hands[leader]
    cash = np.int64(0)
    cashed = False
    for suit in range(4):
        if suit == strain or (mine >> (8 * suit)) & 0xFF == 0:
            continue
        lim = np.int64(-1)
        run = np.int64(0)
        for a in range(8):
            c = order[strain * 4 + suit, a]
            bit = np.int64(1) << c
            if out_cards & bit == 0:
                continue
            if mine & bit == 0:
                break
            if lim < 0:
                lim = np.int64(8)
                if strain < 4:
                    for s in range(P):
                        if s != leader and (hands[s] >> (8 * strain)) & 0xFF != 0:
                            lim = min(lim, count((hands[s] >> (8 * suit)) & 0xFF))
            if run >= lim:
                break
            cash += pts[c]
            run += 1
        cashed = cashed or run > 0
    if side[leader] == 0:
        least += cash
    else:
        most -= cash
    no_capot = sure_side == 1 or (cashed and side[leader] == 1)
    most += max(capot_last, last) if took & 2 == 0 and not no_capot else last
    return least, most
