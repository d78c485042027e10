"""Hand and game keys of many rows at once: the first 32 hex digits of the sha256 of each row's text.

A key is ``hashlib.sha256(text).hexdigest()[:32]`` (:func:`pipeline.ingest.records.hand_key`). Computed one
row at a time in Python, the columnar native reader spent a quarter of its conversion time on it (about 1.3 CPU
s per 10^6 hands, most of it the interpreter's loop, not the hashing) and as much again turning the list of
Python strings into an Arrow column. :func:`sha32` hashes every row in one compiled loop that calls OpenSSL's
one-shot ``SHA256`` (the library Python's own ``hashlib`` uses), writes the hex digits straight into an Arrow
string column, and gives the Python strings the lake writer's key sets need: 3x faster.

OpenSSL's ``libcrypto`` is found as the shared library Python's ``_hashlib`` module has loaded (else
``ctypes.util.find_library``); its ``SHA256`` is checked against ``hashlib`` once. Where it cannot be found or
loaded, or disagrees, or the kernels run as plain Python (:mod:`pipeline.ingest.kernels`, small files), the
keys come from ``hashlib`` row by row: the same keys either way.
"""

from __future__ import annotations

import ctypes.util
import functools
import hashlib
import itertools

import numpy as np
import pyarrow as pa

from pipeline.ingest import kernels
from pipeline.jit import njit

_HEX = np.frombuffer(b"0123456789abcdef", np.uint8).copy()


def _libcrypto() -> str | None:
    """Path of the ``libcrypto`` shared library this process already uses for ``hashlib`` (Linux:
    ``/proc/self/maps``), else the one ``ctypes.util.find_library`` names, else None."""
    import _hashlib  # noqa: F401  (loads libcrypto, so that its path is in the process's maps)
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rsplit(None, 1)[-1] if line.count(" ") >= 5 else ""
                if "/libcrypto" in path:
                    return path
    except OSError:
        pass
    return ctypes.util.find_library("crypto")


def _external_sha256():
    """numba's handle on OpenSSL's ``SHA256(data, length, digest)`` once its library is loaded, or None."""
    try:
        import llvmlite.binding as llvm
        from numba import types

        path = _libcrypto()
        if path is None:
            return None
        llvm.load_library_permanently(path)
        return types.ExternalFunction("SHA256", types.voidptr(types.voidptr, types.uintp, types.voidptr))
    except Exception:          # no library, no symbol: the hashlib loop
        return None


_SHA256 = _external_sha256()


@njit(cache=True, nogil=True)
def _sha32_kernel(offsets, data, out, hexdigits):
    """Hex digits 0-31 of the sha256 of ``data[offsets[i]:offsets[i+1]]`` into ``out[32 i:32 i + 32]``."""
    md = np.empty(32, np.uint8)
    for i in range(len(offsets) - 1):
        a = offsets[i]
        _SHA256(data[a:].ctypes.data, offsets[i + 1] - a, md.ctypes.data)
        for j in range(16):
            out[32 * i + 2 * j] = hexdigits[md[j] >> 4]
            out[32 * i + 2 * j + 1] = hexdigits[md[j] & 15]


@functools.cache
def _kernel():
    """The compiled loop, or None when OpenSSL's ``SHA256`` cannot be used (see the module text): compiled (or
    loaded from numba's cache) and checked against ``hashlib`` on first use."""
    if _SHA256 is None:
        return None
    try:
        text = b"rebelote"
        out = np.zeros(32, np.uint8)
        _sha32_kernel(np.array([0, len(text)], np.int64), np.frombuffer(text, np.uint8), out, _HEX)
        if bytes(out).decode() != hashlib.sha256(text).hexdigest()[:32]:
            return None
    except Exception:
        return None
    return _sha32_kernel


def available() -> bool:
    """Whether the compiled loop is used (in this thread's kernel mode: not when the kernels run as plain
    Python)."""
    return kernels.compiled() and _kernel() is not None


def sha32(offsets: np.ndarray, data: np.ndarray) -> tuple[pa.StringArray, list[str]]:
    """Keys of ``n`` rows: row ``i`` is the UTF-8 text ``data[offsets[i]:offsets[i+1]]``.

    Args:
        offsets: int64 [n + 1], non-decreasing, within ``data``.
        data: uint8 bytes of the texts.
    Returns:
        (the keys as an Arrow ``string`` array, the same keys as Python strings), 32 lowercase hex digits each.
    """
    n = len(offsets) - 1
    kernel = _kernel() if kernels.compiled() else None
    if kernel is None or n == 0:
        mv = memoryview(data)
        sha = hashlib.sha256
        keys = [sha(mv[a:b]).hexdigest()[:32] for a, b in itertools.pairwise(np.asarray(offsets).tolist())]
        return pa.array(keys, pa.string()), keys
    out = np.empty(32 * n, np.uint8)
    if not len(data):
        data = np.zeros(1, np.uint8)          # every row empty: a valid pointer all the same
    kernel(np.asarray(offsets, np.int64), data, out, _HEX)
    arr = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(np.arange(0, 32 * n + 1, 32, dtype=np.int32)),
                                                 pa.py_buffer(out)])
    text = out.tobytes().decode("ascii")
    return arr, [text[i:i + 32] for i in range(0, 32 * n, 32)]
