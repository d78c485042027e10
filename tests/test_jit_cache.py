"""Where the compiled kernels are cached (pipeline/jit.py): beside the source when its __pycache__ can be
written, else in the user cache folder, so a read-only install compiles once, not in every process."""

import json
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
            "pr = play.PlayRules(True, True, True, True, True, True, False, False); "
            "print(jit.CACHE_DIR, int(play.legal_cards(np.array([131 | (1 << 9)], np.uint32), [False], [0], [2], "
            "[5], [False], pr)[0]))")
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout.split() == [str(cache / "numba"), "131"]
        assert "NumbaWarning" not in p.stderr
    assert list(cache.rglob("*.nbi")), "no numba index written in the user cache"


def test_scalar_loops_turns_the_loop_vectorizer_off_inside_and_back_after(monkeypatch):
    """The rescore passes compile with LLVM's loop vectorizer off (jit.scalar_loops), nested or not; numba's own
    setting is back once the outer block ends, and an explicit NUMBA_LOOP_VECTORIZE is left alone."""
    monkeypatch.delenv("NUMBA_LOOP_VECTORIZE", raising=False)
    monkeypatch.setattr(numba.config, "LOOP_VECTORIZE", 1)
    with jit.scalar_loops():
        assert not numba.config.LOOP_VECTORIZE
        with jit.scalar_loops():
            assert not numba.config.LOOP_VECTORIZE
        assert not numba.config.LOOP_VECTORIZE
    assert numba.config.LOOP_VECTORIZE == 1
    monkeypatch.setenv("NUMBA_LOOP_VECTORIZE", "1")
    with jit.scalar_loops():
        assert numba.config.LOOP_VECTORIZE == 1


# a hand of each seat holding one whole suit, scored from the tricks taken (tests/test_hand_pass.py's _game)
_SUITS = [f"7{s} 8{s} 9{s} T{s} J{s} Q{s} K{s} A{s}".split() for s in "CDHS"]
_GAME = {"format": "rebelote", "version": 1, "source": "test", "source_game_id": "g1", "variant": "belote",
         "n_players": 4, "players": ["a", "b", "c", "d"],
         "hands": [{"hand_no": 1, "dealer": 3, "completeness": "tricks_taken", "hands": _SUITS,
                    "contract": {"taker": 0, "strain": "C"}, "tricks_taken": _SUITS, "last_trick_seat": 0}]}
_COUNT_COMPILES = """
import json, sys
from numba.core import event
top = []
class Top(event.Listener):
    depth = 0
    def on_start(self, ev):
        Top.depth += 1
        if Top.depth == 1:
            top.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        Top.depth -= 1
event.register("numba:compile", Top())
from helpers import hands_table
from pipeline.rescore import score_batch
from pipeline.rules import load
t = hands_table(json.loads(sys.argv[1]))
for name in sys.argv[2:]:
    top.clear()
    score_batch(t, load(name))
    print(name, len(top))
"""


@pytest.mark.slow
def test_rescore_passes_come_from_the_cache_in_the_next_process_and_for_a_ruleset_of_the_same_family(tmp_path):
    """The first process compiles the passes of belote-classic into an empty cache; the next one compiles
    nothing, neither for belote-classic nor for belote-classic-501 (same family: the same kernels serve both).
    (slow: a cold compile)"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    env.pop("NUMBA_LOOP_VECTORIZE", None)
    counts = []
    for names in (["belote-classic"], ["belote-classic", "belote-classic-501"]):
        p = subprocess.run([sys.executable, "-c", _COUNT_COMPILES, json.dumps(_GAME), *names], env=env, cwd=tmp_path,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        counts.append(dict(line.split() for line in p.stdout.split("\n") if line))
    assert int(counts[0]["belote-classic"]) > 0
    assert counts[1] == {"belote-classic": "0", "belote-classic-501": "0"}
