"""The scored hands' declaration and belote points around the compiled pass 2
(:func:`pipeline.rescore.declarations_pass.declarations_pass`), vectorised over the batch (numpy): before it,
those taken from the record (or none), to which the pass adds what the hands hold; after it, the belote team and
whether a team has declaration points.

A few operations on whole columns: done here rather than in the compiled pass, they are not compiled (numba's
compile time grows with the code it is given, and the first rescore after an install compiled this too).
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.pass_layout import F_BELOTE, F_BELOTE_ANN, F_DECIDED_V, F_FROM_ANN, F_OK, S_BELOTE_TEAM


def from_record(ann: np.ndarray, flags: np.ndarray, D: np.ndarray, B: np.ndarray) -> None:
    """``D``, ``B`` (int64 (n, K) declaration and belote points): the record's (``ann``: int64 (2, n, K), or
    (2, 1, K) when no hand takes them from it) where a hand takes them from it (``F_FROM_ANN``,
    ``F_BELOTE_ANN``), else 0."""
    if ann.shape[1] != len(D):
        D[:] = 0
        B[:] = 0
        return
    np.multiply(ann[0], flags[F_FROM_ANN, :, None], out=D)
    np.multiply(ann[1], flags[F_BELOTE_ANN, :, None], out=B)


def belote_team(D: np.ndarray, B: np.ndarray, flags: np.ndarray, small: np.ndarray) -> None:
    """For the scored hands: the team of the belote (``S_BELOTE_TEAM``, ``F_BELOTE``) when exactly one team has
    belote points (``B``), and whether a team has declaration points (``D``) after the contest and
    ``declarations.on_capot`` (``F_DECIDED_V``: the made test's ``declarations_decided`` is then known)."""
    ok = flags[F_OK].view(np.bool_)
    n_bel = np.zeros(len(ok), np.int8)
    team = np.full(len(ok), -1, np.int8)
    has_decl = np.zeros(len(ok), np.bool_)
    for t in range(B.shape[1]):
        has = B[:, t] > 0
        n_bel += has
        team[has & (team < 0)] = t
        has_decl |= D[:, t] != 0
    one = ok & (n_bel == 1)
    small[S_BELOTE_TEAM] = np.where(one, team, np.int8(-1))
    flags[F_BELOTE] = one
    flags[F_DECIDED_V] = ok & has_decl
