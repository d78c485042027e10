"""pipeline.ingest.kernels: a numba kernel run as plain Python computes what the compiled kernel computes."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.ingest import kernels
from pipeline.jit import njit


@njit(cache=False)
def _digit_value(a, out):
    # the NumPy 2 trap: a uint8 item times a Python int stays uint8 in NumPy (wraps), int64 in numba
    v = 0
    for i in range(len(a)):
        v = v * 10 + (a[i] - 48)
    out[0] = v
    return v


@njit(cache=False)
def _outer(a, out):
    return _digit_value(a, out) + 1      # a kernel calling a kernel: the plain copy calls the plain copy


@njit(cache=False)
def _store(a, v):
    a[0] = v


def test_plain_python_widens_bytes_like_numba():
    digits = np.frombuffer(b"4096", np.uint8)
    out = np.zeros(1, np.int64)
    # 4096: the digits' value; 4097 = 4096 + 1 from _outer
    assert kernels.pure(_outer)(digits, out) == 4097 and out.tolist() == [4096]
    out[0] = 0
    assert _outer(digits, out) == 4097 and out.tolist() == [4096]      # the compiled kernel agrees


def test_plain_python_writes_back_and_refuses_what_the_array_cannot_hold():
    a = np.zeros(2, np.uint8)
    kernels.pure(_store)(a, 200)
    assert a.tolist() == [200, 0]
    with pytest.raises(ValueError):            # 300 does not fit a byte (numba would have stored 300 % 256)
        kernels.pure(_store)(a, 300)
    b = np.zeros(2, np.int32)
    with pytest.raises(OverflowError):
        kernels.pure(_store)(b, 2**40)


def test_call_follows_the_mode():
    a = np.zeros(1, np.int64)
    with kernels.plain_python():
        assert not kernels.compiled()
        kernels.call(_store, a, 7)
    assert kernels.compiled() and a.tolist() == [7]
    with kernels.plain_python(False):
        assert kernels.compiled()


def test_the_mode_is_the_threads_own():
    # a warm-up thread loading machine code for a big file while a small file is read must stay compiled
    import threading
    seen = []
    with kernels.plain_python():
        t = threading.Thread(target=lambda: seen.append(kernels.compiled()))
        t.start()
        t.join()
        assert not kernels.compiled()
    assert seen == [True]
