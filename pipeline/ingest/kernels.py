"""The native reader's kernels, run compiled (numba) or as plain Python: same code, same results.

The columnar native reader (:mod:`pipeline.ingest.fast_native`) checks hands with small loops compiled by
numba (``@njit(cache=True)`` in :mod:`~pipeline.ingest.native_fields`). Compiling them the first time after an
install, and even loading them from numba's cache in each process, costs more than reading a small file takes.
So a file smaller than :data:`COMPILED_MIN_BYTES` is read with the kernels' own Python functions
(``dispatcher.py_func``), which run the very same source, one byte at a time in the interpreter, and never
touch numba's compiler or cache (docs/scale.md has the figures).

Plain Python differs from numba in one way that matters here: numba widens every integer to 64 bits, while a
numpy scalar read from a ``uint8`` array stays 8 bits wide in Python arithmetic (NumPy 2 casts the plain
``int`` to the array's type: ``np.uint8(5) * 100`` wraps). :func:`pure` therefore hands each kernel its array
arguments as a ``bytearray`` (``uint8``) or a list (``int`` and ``bool`` values, arbitrary precision; no kernel
leaves int64 range) and copies them back into their arrays afterwards; a value the array cannot hold raises
(ValueError, OverflowError), and the block then goes to the row path like any converter error. Arrays a kernel makes itself (``np.empty``...)
stay numpy arrays of int64/bool/uint8, written with values in range.
"""

from __future__ import annotations

import contextlib
import threading
import types
from collections.abc import Callable, Iterator

import numpy as np
from numba.core.dispatcher import Dispatcher

COMPILED_MIN_BYTES = 2 << 20
"""Native files (bytes as stored) at least this big use the compiled kernels; smaller ones the plain Python
functions: near where the two break even with a warm cache (a whole ingest in a fresh process; a first run
also saves the compile: docs/scale.md)."""

class _Mode(threading.local):
    compiled = True


_STATE = _Mode()          # per thread: a warm-up thread loading machine code beside a small file's reading
_PURE: dict[Dispatcher, Callable] = {}
_RAW: dict[Dispatcher, types.FunctionType] = {}


def compiled() -> bool:
    """Whether kernels called from this thread run compiled (the default), or as plain Python (inside
    :func:`plain_python`)."""
    return _STATE.compiled


@contextlib.contextmanager
def plain_python(on: bool = True) -> Iterator[None]:
    """Run every kernel this thread calls through :func:`call` as plain Python while the block runs (``on``;
    False: leave the mode as it is). The mode is the calling thread's own: a thread working for the same file
    enters it too (:func:`pipeline.ingest.fast_native.read_into`'s prefetch thread)."""
    if not on:
        yield
        return
    before = _STATE.compiled
    _STATE.compiled = False
    try:
        yield
    finally:
        _STATE.compiled = before


def use_compiled(size: int | None) -> bool:
    """Whether a native file of ``size`` bytes (as stored; None: unknown, e.g. a stream) is read with the
    compiled kernels."""
    return size is None or size >= COMPILED_MIN_BYTES


def call(kernel, *args):
    """``kernel(*args)``: compiled, or its plain Python function via :func:`pure` (see :func:`plain_python`)."""
    if _STATE.compiled or not isinstance(kernel, Dispatcher):
        return kernel(*args)
    return pure(kernel)(*args)


def pure(kernel: Dispatcher) -> Callable:
    """The plain Python version of a numba kernel: its source function, with every kernel it calls replaced by
    that kernel's own plain copy, called with array arguments as lists (see the module doc), the lists it wrote
    copied back into their arrays. Raises what the function raises, OverflowError when it wrote a value its
    array cannot hold."""
    fn = _PURE.get(kernel)
    if fn is None:
        raw = _raw(kernel)

        def fn(*args):
            plain = [_plain(a) for a in args]
            out = raw(*plain)
            for a, v in zip(args, plain):
                if isinstance(a, np.ndarray) and a.flags.writeable:
                    _write_back(a, v)
            return out

        fn.__name__ = kernel.py_func.__name__
        fn.__doc__ = kernel.py_func.__doc__
        _PURE[kernel] = fn
    return fn


def _raw(kernel: Dispatcher) -> types.FunctionType:
    """A copy of ``kernel.py_func`` whose globals map every kernel it names to that kernel's raw copy."""
    fn = _RAW.get(kernel)
    if fn is not None:
        return fn
    py = kernel.py_func
    env = dict(py.__globals__)
    fn = types.FunctionType(py.__code__, env, py.__name__, py.__defaults__, py.__closure__)
    _RAW[kernel] = fn                       # before the callees: a kernel calling itself finds its copy
    for name in py.__code__.co_names:
        value = env.get(name)
        if isinstance(value, Dispatcher):
            env[name] = _raw(value)
    return fn


def _plain(a):
    """An array argument as the plain function takes it: ``uint8`` as a bytearray (its items are ``int``, a
    copy in one memcpy), any other array as a list of Python values; anything else as it is."""
    if not isinstance(a, np.ndarray):
        return a
    if a.dtype == np.uint8 and a.ndim == 1:
        return bytearray(a.tobytes())
    return a.tolist()


def _write_back(a: np.ndarray, v) -> None:
    """Copy the plain copy ``v`` of ``a`` (:func:`_plain`), as the kernel left it, back into ``a``. A bytearray
    only holds 0-255 (it raised ValueError on any other write); NumPy raises OverflowError for a Python int out
    of another dtype's range."""
    if isinstance(v, bytearray):
        a[...] = np.frombuffer(v, np.uint8)
    elif v:
        a[...] = np.asarray(v, a.dtype)
