"""Small integer helpers the compiled kernels share."""

from __future__ import annotations

import numpy as np

from pipeline.jit import njit_inner


@njit_inner
def mod(x, m):
    """``x % m`` with Python's sign rule (m > 0), as int64, without a division when 0 <= x < 2m: the seats and
    teams the kernels reduce (seat % n_players, seat % n_teams) are nearly always there, and a division by a
    number known only at run time costs tens of cycles."""
    x = np.int64(x)
    m = np.int64(m)
    if x >= 0:
        if x < m:
            return x
        if x < 2 * m:
            return x - m
    return x % m
