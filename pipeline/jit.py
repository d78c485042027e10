"""numba set-up for the compiled kernels: where their machine code is cached.

The kernels use ``@njit(cache=True)``, so the first process compiles them and every later one loads the
machine code from disk. numba keeps it in the ``__pycache__`` folder beside the source; when that folder
cannot be written (a system-wide or read-only install) this module points numba at a user cache folder,
``$REBELOTE_CACHE_DIR/numba``, else ``$XDG_CACHE_HOME/rebelote/numba``, else ``~/.cache/rebelote/numba``.
An explicit ``NUMBA_CACHE_DIR`` always wins. When no folder can be written either, numba warns and
compiles in memory in every process (slower start, same results).

Import :data:`njit` from here, not from numba, so the cache folder is chosen before anything compiles.

numba checks a cached kernel against its own source file only, not against the files of the compiled
functions it calls (``cards_pass.cards_pass`` calls ``play.play_one``, ``contract_pass.contract_pass``
``contract.settle_one``...): after an
edit of ``play.py`` it would load the old machine code. The locators registered here stamp every kernel of
``pipeline/rescore`` with a hash of all that package's sources instead (:func:`package_stamp`), so an edit anywhere in
``pipeline/rescore`` recompiles them all once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import tempfile
import threading
import types
from pathlib import Path

import numba

# the package whose kernels call each other across files, so are stamped with all its sources (module doc)
_STAMPED = Path(__file__).resolve().parent / "rescore"
_PACKAGE_CACHE = _STAMPED / "__pycache__"


def writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be created in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def user_cache_dir() -> Path:
    """The user cache folder for compiled kernels (see module doc); not created here."""
    if os.environ.get("REBELOTE_CACHE_DIR"):
        return Path(os.environ["REBELOTE_CACHE_DIR"]) / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rebelote" / "numba"


def choose_cache_dir(package_cache: Path = _PACKAGE_CACHE) -> str | None:
    """Set numba's cache folder when the package's ``__pycache__`` cannot be written; returns the folder set
    (None when numba's own choice stands: ``NUMBA_CACHE_DIR`` given, or ``__pycache__`` writable)."""
    if os.environ.get("NUMBA_CACHE_DIR") or writable(package_cache):
        return None
    folder = str(user_cache_dir())
    numba.config.CACHE_DIR = folder     # read by numba each time it looks for a cache, so setting it now works
    return folder


CACHE_DIR = choose_cache_dir()


@functools.lru_cache(maxsize=8)
def _stamp(files: tuple[tuple[str, float, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in files:
        h.update(name.encode() + b"\0" + Path(name).read_bytes() + b"\0")
    return h.hexdigest()


def package_stamp(folder: Path = _PACKAGE_CACHE.parent) -> str:
    """sha256 of every ``.py`` file of ``folder`` (names and contents): the source stamp of this package's
    cached kernels. Read again only when a file's modification time or size changes."""
    files = tuple((str(p), p.stat().st_mtime, p.stat().st_size) for p in sorted(folder.glob("*.py")))
    return _stamp(files)


def _register_locators() -> bool:
    """Put the package-stamped locators in front of numba's own (see module doc); False when this numba has no
    such hook (its per-file stamps then stand)."""
    try:
        from numba.core import caching
        impl = caching.CacheImpl
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator)
        impl._locator_classes   # noqa: B018  (the hook exists)
    except (ImportError, AttributeError):
        return False
    here = str(_PACKAGE_CACHE.parent)

    def make(base):
        class PackageStamped(base):
            """numba's {base.__name__}, for this package's kernels: stamped with :func:`package_stamp`."""

            @classmethod
            def from_function(cls, py_func, py_file):
                if os.path.dirname(os.path.abspath(py_file)) != here:
                    return None
                return super().from_function(py_func, py_file)

            def get_source_stamp(self):
                return package_stamp()

        PackageStamped.__name__ = f"PackageStamped{base.__name__}"
        return PackageStamped

    ours = [make(b) for b in bases]
    impl._locator_classes = ours + [c for c in impl._locator_classes if not c.__name__.startswith("PackageStamped")]
    return True


LOCATORS = _register_locators()
njit = numba.njit


def njit_inner(fn):
    """``njit(cache=True, nogil=True)`` for a function that only compiled code calls (calling it from Python
    fails), allocating nothing. numba otherwise builds two wrappers for every function, one to call it from
    Python (unboxing each argument) and one as a C callback, and optimises and emits them with it: on the
    rescore kernels they were the larger part of a helper's compile, and the Python wrapper of a function of
    many array arguments grows faster than their count. Without reference counting (``_nrt=False``, as the
    passes that call these), a call adds no atomic reference updates of its array arguments."""
    return numba.njit(cache=True, nogil=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)(fn)


def renamed(fn, name: str):
    """``fn``'s code as a function named ``name``: numba names a cache entry after the function (not after how it
    was compiled), so a second compilation of the same code under its own name keeps its own machine code."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = name
    copy.__module__ = fn.__module__
    return copy


_SCALAR = threading.Lock()
_scalar_depth = 0
_scalar_saved = None


@contextlib.contextmanager
def scalar_loops():
    """LLVM's loop vectorizer off for what numba compiles inside the block (the process's setting back after it,
    once no thread is inside any more; an explicit ``NUMBA_LOOP_VECTORIZE`` always wins). For kernels whose
    loops run over 2 to 4 seats or teams: the vectorized copy of each loop (and the checks that choose it) never
    runs for so few, and makes LLVM's optimisation and code generation of the rescore passes about a tenth
    longer, on the first rescore after an install."""
    global _scalar_depth, _scalar_saved
    if "NUMBA_LOOP_VECTORIZE" in os.environ:
        yield
        return
    with _SCALAR:
        _scalar_depth += 1
        if _scalar_depth == 1:
            _scalar_saved = numba.config.LOOP_VECTORIZE
            numba.config.LOOP_VECTORIZE = False    # read by numba's pass builder at each compile
    try:
        yield
    finally:
        with _SCALAR:
            _scalar_depth -= 1
            if _scalar_depth == 0:
                numba.config.LOOP_VECTORIZE = _scalar_saved
