"""numba set-up for the compiled kernels: where their machine code is cached.

The kernels use ``@njit(cache=True)``, so the first process compiles them and every later one loads the
machine code from disk. numba keeps it in the ``__pycache__`` folder beside the source; when that folder
cannot be written (a system-wide or read-only install) this module points numba at a user cache folder,
``$REBELOTE_CACHE_DIR/numba``, else ``$XDG_CACHE_HOME/rebelote/numba``, else ``~/.cache/rebelote/numba``.
An explicit ``NUMBA_CACHE_DIR`` always wins. When no folder can be written either, numba warns and
compiles in memory in every process (slower start, same results).

Import :data:`njit` from here, not from numba, so the cache folder is chosen before anything compiles.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numba

_PACKAGE_CACHE = Path(__file__).resolve().parent / "__pycache__"


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
njit = numba.njit
