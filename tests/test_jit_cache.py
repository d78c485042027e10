"""Where the compiled kernels are cached (pipeline/jit.py): beside the source when its __pycache__ can be
written, else in the user cache folder, so a read-only install compiles once, not in every process."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from pipeline import jit

ROOT = Path(__file__).resolve().parents[1]


def _unwritable(tmp_path: Path) -> Path:
    """A folder that cannot be made even by root: its parent is a regular file."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    return blocker / "__pycache__"


def test_read_only_package_cache_moves_to_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("REBELOTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)   # restored after the test
    assert not jit.writable(_unwritable(tmp_path))
    assert jit.choose_cache_dir(_unwritable(tmp_path)) == str(tmp_path / "cache" / "numba")
    assert numba.config.CACHE_DIR == str(tmp_path / "cache" / "numba")


def test_writable_package_cache_or_explicit_numba_dir_stays(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert jit.choose_cache_dir(tmp_path / "pkg" / "__pycache__") is None    # writable: numba's own choice
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert jit.choose_cache_dir(_unwritable(tmp_path)) is None               # NUMBA_CACHE_DIR always wins
    assert numba.config.CACHE_DIR == ""


def test_user_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("REBELOTE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert jit.user_cache_dir() == tmp_path / "rebelote" / "numba"


@pytest.mark.slow
def test_kernels_compile_and_cache_from_a_read_only_install(tmp_path):
    """A copy of the package whose rescore/__pycache__ cannot be made: the first process compiles the legality
    kernel and writes its cache under REBELOTE_CACHE_DIR; the second loads it. (slow: a cold compile)"""
    pkg = tmp_path / "site"
    shutil.copytree(ROOT / "pipeline", pkg / "pipeline", ignore=shutil.ignore_patterns("__pycache__"))
    for extra in ("schemas", "queries"):
        if (ROOT / extra).exists():
            shutil.copytree(ROOT / extra, pkg / extra)
    (pkg / "pipeline" / "rescore" / "__pycache__").write_text("a file where numba would put its cache")
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(pkg), REBELOTE_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    # the player holds 7C 8C AC (bits 0, 1, 7) and 8D (bit 9), clubs are led (hearts trump, QC winning): he must
    # follow suit, so the legal cards are the three clubs, mask 0b10000011 = 131 (cards.py encoding)
    code = ("import numpy as np; from pipeline import jit; from pipeline.rescore import play; "
            "pr = play.PlayRules(True, True, True, True, True, True, False); "
            "print(jit.CACHE_DIR, int(play.legal_cards(np.array([131 | (1 << 9)], np.uint32), [False], [0], [2], "
            "[5], [False], pr)[0]))")
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout.split() == [str(cache / "numba"), "131"]
        assert "NumbaWarning" not in p.stderr
    assert list(cache.rglob("*.nbi")), "no numba index written in the user cache"
