"""Hostile checks of the ingest's deduplication state (pipeline.ingest.key_index over sorted_runs), session 7.

The behaviour expected is the one of the ``dict`` / ``set`` it replaced (commit 09f541b): setting a game id
already held changes its value and nothing else; the cost must not depend on the number of games held, as a
dict's does not (the row-path readers set every game of a changed file read again, one at a time)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from pipeline.storage import lake as lakemod
from pipeline.ingest import fast_native, run, sorted_runs
from pipeline.ingest import writer as writer_mod
from pipeline.ingest.key_index import GameIndex, KeySet


def _key(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()[:32]


@pytest.fixture(params=["in memory", "spilled"])
def spill(request, monkeypatch):
    """Runs in memory, or every run of 2 entries or more in a memory-mapped file (REBELOTE_KEY_SPILL_ROWS=2)."""
    if request.param == "spilled":
        monkeypatch.setattr(sorted_runs, "SPILL_ROWS", 2)
        monkeypatch.setattr(sorted_runs, "FENCE", 4)
    return request.param


def test_setting_a_held_game_changes_it_in_place(spill):
    """``gi[gid] = value`` for a game the runs hold overwrites its entry: no run is removed from or rewritten
    (the first version popped it, rewriting a run per game: 1.3 ms a game at 3 x 10^5 games, measured)."""
    n = 200
    gids = [f"g{i}" for i in range(n)]
    gi = GameIndex()
    gi.update_new(gids, [_key(i) for i in range(n)], ["a.jsonl"] * n, "a.jsonl")
    runs_before = [id(r["hi"]) for r in gi._runs.runs]

    def no_remove(*a, **k):
        raise AssertionError("a run was rewritten")
    gi._runs.remove = gi._runs.add = no_remove      # instance attributes, deleted below
    for i in range(0, n, 7):
        gi[gids[i]] = (_key(n + i), "b.jsonl", "c.jsonl")
    assert [id(r["hi"]) for r in gi._runs.runs] == runs_before
    # the dict model: the 29 games set (0, 7, ..., 196) carry their new value, the others their first one
    for i in range(n):
        want = (_key(n + i), "b.jsonl", "c.jsonl") if i % 7 == 0 else (_key(i), "a.jsonl", "a.jsonl")
        assert gi.get(gids[i]) == want, i
    assert len(gi) == n
    # a value whose game key is not 32 hex digits moves to the small dict, as before
    del gi._runs.remove, gi._runs.add
    gi[gids[1]] = (None, "b.jsonl", None)
    assert gi.get(gids[1]) == (None, "b.jsonl", None) and len(gi) == n


def test_discard_many_removes_only_the_given_games(spill):
    """``discard_many`` as ``dict.pop(gid, None)`` for each id: ids not held are ignored."""
    n = 100
    gids = [f"g{i}" for i in range(n)]
    gi = GameIndex()
    gi.update_new(gids[:90], [_key(i) for i in range(90)], ["a"] * 90, "a")
    gi["g95"] = (_key(95), "a", "a")           # one in the recent dict
    gi["g96"] = ("not-hex", "a", "a")           # one in the odd dict
    gi.discard_many(["g3", "g50", "g95", "g96", "g99", "nope"])
    assert len(gi) == 88
    assert [g for g in ("g3", "g50", "g95", "g96", "g4", "g89") if g in gi] == ["g4", "g89"]
    assert gi.get("g4") == (_key(4), "a", "a")


def test_single_lookups_match_batch_lookups(spill):
    """``key in KeySet`` (Runs.find_one, the row path's lookup) answers as ``contains_many`` (Runs.find) for
    held keys, absent keys, and keys sharing their first 64 bits with a held one."""
    held = [_key(i) for i in range(300)]
    ks = KeySet()
    for s in range(0, 300, 50):        # several runs
        ks.extend(held[s:s + 50])
    twin = held[10][:16] + "0" * 16    # same first 64 bits as a held key, another key
    ask = held[::3] + [_key(i) for i in range(300, 400)] + [twin]
    batch = ks.contains_many(ask)
    single = np.array([k in ks for k in ask])
    assert (batch == single).all()
    assert int(single.sum()) == 100    # held[::3] is 100 keys; the 100 others and the twin are absent


SAMPLE = Path(__file__).resolve().parents[1] / "data" / "simulated-belote-classic.jsonl"   # 20 games, 180 hands


@pytest.mark.parametrize("path", ["columnar", "rows"])
def test_a_strict_stop_leaves_no_holdings_written_ahead(tmp_path, monkeypatch, path):
    """Holdings of a long run of duplicates are written every 2 x FLUSH_HANDS rows, ahead of a flush. A
    ``--strict`` stop drops what was read since the last flush (ingest_paths: 'rows read before it are not
    written'), so those go too: the code before session 7 (09f541b) left 180 holdings rows, a's alone, and
    the first version 340 (b.jsonl, never imported, holding 160 hands, listed by a later --prune as 'holding
    removed hands no longer on disk')."""
    monkeypatch.setattr(writer_mod, "FLUSH_HANDS", 40)           # holdings written ahead every 80 rows
    monkeypatch.setenv(fast_native.ENV, path)
    lake = tmp_path / "lake"
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    shutil.copy(SAMPLE, a)
    b.write_bytes(SAMPLE.read_bytes() + b'{"format":"rebelote","version":1,"game_id":"zz"}\n')
    assert run.ingest_paths([a], lake).hands == 180
    with pytest.raises(run.StrictError):
        run.ingest_paths([b], lake, strict=True)           # 180 duplicates, then a game without its fields
    held = lakemod.read(lake, "holdings", columns=["ingest_file"]).column("ingest_file").to_pylist()
    assert (len(held), held.count(str(b))) == (180, 0)
    # imported without --strict: b's 180 holdings are written (the rejected game adds none)
    run.ingest_paths([b], lake)
    held = lakemod.read(lake, "holdings", columns=["ingest_file"]).column("ingest_file").to_pylist()
    assert (len(held), held.count(str(b))) == (360, 180)
