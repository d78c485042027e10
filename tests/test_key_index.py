"""pipeline.ingest.key_index: the ingest's key sets and game-id map, checked against Python's set and dict.

The expected values come from the models they replace: ``set[str]`` for :class:`KeySet` and ``dict`` for
:class:`GameIndex` (the ingest held exactly those until session 7), and for ``add_new`` the row path's rule
(``writer.Writer.add_game``: a game's hands are looked up together, then its new ones added)."""

from __future__ import annotations

import hashlib
import itertools
import random
import tempfile
import tracemalloc

import numpy as np
import pyarrow as pa
import pytest

from pipeline.ingest import key_index, sorted_runs
from pipeline.ingest.key_index import GameIndex, KeySet, digests


def _key(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()[:32]


def _reference_new(keys: set, items: list, groups) -> list[bool]:
    """The row path's rule, one group (game) at a time: looked up whole, then its new keys added."""
    out = []
    for s, e in itertools.pairwise(groups):
        fresh = [k not in keys for k in items[s:e]]
        out += fresh
        keys.update(k for k, f in zip(items[s:e], fresh) if f)
    return out


def test_digest_of_a_hex_key_is_its_bits():
    """A key of 32 hex digits is stored as its own 128 bits; any other string as its BLAKE2b-128 digest."""
    hi, lo = digests(["0123456789abcdeffedcba9876543210", "game:1"])
    assert (int(hi[0]), int(lo[0])) == (0x0123456789ABCDEF, 0xFEDCBA9876543210)
    b = hashlib.blake2b(b"game:1", digest_size=16).digest()
    assert (int(hi[1]), int(lo[1])) == (int.from_bytes(b[:8], "big"), int.from_bytes(b[8:], "big"))
    # the Arrow path and the list path agree, upper-case hex is hashed (hexdigest never writes it)
    keys = [_key(i) for i in range(50)] + ["ABCDEF0123456789ABCDEF0123456789", "é" * 16, ""]
    a = digests(pa.array(keys))
    b2 = digests(keys)
    assert (a[0] == b2[0]).all() and (a[1] == b2[1]).all()
    assert int(b2[0][50]) == int.from_bytes(hashlib.blake2b(keys[50].encode(), digest_size=16).digest()[:8], "big")


@pytest.fixture(params=["in memory", "spilled"])
def spill(request, monkeypatch):
    """Runs kept in memory, or spilled to memory-mapped files from 16 entries on and merged 8 at a time (the
    same code that spills half a million keys)."""
    if request.param == "spilled":
        monkeypatch.setattr(sorted_runs, "SPILL_ROWS", 16)
        monkeypatch.setattr(sorted_runs, "CHUNK", 8)
        monkeypatch.setattr(sorted_runs, "FENCE", 4)
        monkeypatch.setattr(sorted_runs, "FENCED_QUERIES", 3)
    return request.param


@pytest.mark.parametrize("seed", range(6))
def test_key_set_behaves_as_a_set(seed, monkeypatch, spill):
    """Random adds, batch adds, removals and lookups give what a set[str] gives (small FOLD: folds and merges
    of runs happen often)."""
    monkeypatch.setattr(key_index, "FOLD", 7)
    rng = random.Random(seed)
    pool = [_key(i) for i in range(400)] + [f"game-{i}" for i in range(40)]
    ks, model = KeySet(pool[:50]), set(pool[:50])
    for _ in range(300):
        op = rng.random()
        if op < 0.3:
            k = rng.choice(pool)
            ks.add(k)
            model.add(k)
        elif op < 0.45:
            batch = rng.sample(pool, rng.randint(0, 90))
            ks.update(batch)
            model.update(batch)
        elif op < 0.55:
            batch = rng.sample(pool, rng.randint(0, 20))
            ks -= batch
            model -= set(batch)
        elif op < 0.6:
            k = rng.choice(pool)
            ks.discard(k)
            model.discard(k)
        elif op < 0.8:
            items = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
            cuts = sorted(rng.sample(range(1, len(items)), min(len(items) - 1, rng.randint(0, 6)))) if items else []
            groups = [0, *cuts, len(items)]
            expected = _reference_new(model, items, groups)
            got = ks.add_new(pa.array(items, pa.string()) if rng.random() < 0.5 else items, np.array(groups))
            assert got.tolist() == expected
        else:
            probe = rng.sample(pool, 25)
            assert ks.contains_many(probe).tolist() == [k in model for k in probe]
            assert ks.isdisjoint(probe) == model.isdisjoint(probe)
        assert len(ks) == len(model)
    assert [k in ks for k in pool] == [k in model for k in pool]


def test_add_new_one_group_per_key_by_default():
    """Without groups each key is its own group: the second copy of a key in a batch is a duplicate."""
    ks = KeySet([_key(1)])
    assert ks.add_new([_key(1), _key(2), _key(2), _key(3)]).tolist() == [False, True, False, True]
    assert ks.add_new([_key(2), _key(4)]).tolist() == [False, True]


def test_keys_sharing_their_first_64_bits_stay_apart(spill):
    """Two keys equal in their first 16 hex digits (sorted runs are ordered by those 64 bits only) are told
    apart by the rest, whichever run holds them."""
    a, b, c = "0" * 16 + "1" * 16, "0" * 16 + "2" * 16, "0" * 16 + "3" * 16
    ks = KeySet([a])
    assert b not in ks and a in ks
    assert ks.add_new([c, b, a]).tolist() == [True, True, False]
    ks.add_new([_key(i) for i in range(20)])
    assert [k in ks for k in (a, b, c, "0" * 16 + "4" * 16)] == [True, True, True, False]
    ks.discard(b)
    assert [k in ks for k in (a, b, c)] == [True, False, True]


@pytest.mark.parametrize("seed", range(4))
def test_game_index_behaves_as_a_dict(seed, monkeypatch, spill):
    monkeypatch.setattr(key_index, "FOLD", 5)
    rng = random.Random(seed)
    gids = [f"src:game-{i}" for i in range(120)]
    files = ["a.jsonl", "b.jsonl", None]

    def value():
        key = rng.choice([_key(rng.randint(0, 10**6)), None, "not-a-hex-key"]) if rng.random() < 0.1 \
            else _key(rng.randint(0, 10**6))
        return key, rng.choice(files), rng.choice(files)

    first = gids[:30]
    vals = [value() for _ in first]
    gi = GameIndex.from_arrow(pa.array(first), pa.array([v[0] for v in vals], pa.string()),
                              pa.array([v[1] for v in vals], pa.string()), pa.array([v[2] for v in vals], pa.string()))
    model = dict(zip(first, vals))
    for _ in range(300):
        op = rng.random()
        g = rng.choice(gids)
        if op < 0.35:
            model[g] = v = value()
            gi[g] = v
        elif op < 0.45:
            assert gi.pop(g, "none") == model.pop(g, "none")
        elif op < 0.5 and g in model:
            del model[g]
            del gi[g]
        elif op < 0.6:
            batch = [x for x in rng.sample(gids, 10) if x not in model]
            vs = [value() for _ in batch]
            reading = rng.choice(files)
            gi.update_new(batch, [v[0] for v in vs], [v[1] for v in vs], reading)
            model.update({x: (v[0], v[1], reading) for x, v in zip(batch, vs)})
        else:
            probe = rng.sample(gids, 8)
            assert gi.isdisjoint(probe) == model.keys().isdisjoint(probe)
        assert gi.get(g) == model.get(g)
        assert (g in gi) == (g in model)
        assert len(gi) == len(model)
    assert [gi.get(g) for g in gids] == [model.get(g) for g in gids]
    with pytest.raises(KeyError):
        del gi["no such game"]


def test_memory_per_key():
    """The point of the module: 16 bytes a hand key, 40 a game once folded (the sets and dict it replaced held
    ~117 bytes a key and ~450 a game), plus the filter: 2^21 bits (256 KB) for 200,000 keys, 2^18 for 20,000
    games (8-16 bits a key). Measured with tracemalloc; the bound allows 64 KB for the names list and NumPy's
    array headers."""
    keys = [_key(i) for i in range(200_000)]
    arrow = pa.array(keys)
    gids = [f"simulate:game-{i:08d}" for i in range(20_000)]
    gkeys = pa.array([_key(-i) for i in range(20_000)])
    del keys
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    ks = KeySet(arrow)
    gi = GameIndex.from_arrow(pa.array(gids), gkeys, pa.array(["f.jsonl"] * 20_000), pa.array([None] * 20_000, pa.string()))
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert ks.nbytes() == 16 * 200_000 and gi.nbytes() == 40 * 20_000
    assert held < 16 * 200_000 + 40 * 20_000 + (2**21 + 2**18) // 8 + 65_536


def test_spilled_runs_are_unlinked_files_merged_in_chunks(monkeypatch, tmp_path):
    """Past SPILL_ROWS entries the runs live in unlinked memory-mapped files (nothing left in the temporary
    folder), merges go chunk by chunk, and the entries stay sorted and whole."""
    monkeypatch.setattr(sorted_runs, "SPILL_ROWS", 1000)
    monkeypatch.setattr(sorted_runs, "CHUNK", 97)
    monkeypatch.setattr(sorted_runs, "FENCE", 7)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    keys = [_key(i) for i in range(5000)]
    ks = KeySet()
    for s in range(0, 5000, 300):
        assert ks.add_new(keys[s:s + 300]).all()
    runs = ks._runs.runs
    assert any(isinstance(r["hi"], np.memmap) for r in runs)
    assert ks._runs.spilled_bytes() + ks.nbytes() == 16 * 5000
    assert list(tmp_path.iterdir()) == []
    for r in runs:
        assert (np.diff(np.asarray(r["hi"]).astype(np.float64)) >= 0).all()
    hi, _ = digests(keys)
    assert sorted(np.concatenate([np.asarray(r["hi"]) for r in runs]).tolist()) == sorted(hi.tolist())
    assert ks.contains_many(keys).all() and not ks.contains_many([_key(-1), _key(10**6)]).any()
    ks -= keys[:2500:2]
    assert ks.contains_many(keys).tolist() == [i >= 2500 or i % 2 == 1 for i in range(5000)]
    assert len(ks) == 5000 - 1250


@pytest.mark.parametrize("mode", ["columnar", "rows"])
def test_an_ingest_with_spilled_runs_gives_the_same_lake(tmp_path, monkeypatch, mode):
    """The whole ingest (both readers), its runs spilled from 16 entries on, FOLD 5: the same tables, summaries
    and messages as with the index in memory, over a sequence that uses every operation of the index: a first
    import, a second file with the same games (duplicates), the first file changed (a game dropped, one
    edited: rows replaced and keys removed), then new games."""
    from test_fast_native import _base, _ingest, _simulated, _write

    base = _base()
    edited = base[1].replace(b'"dealer":', b'"played_at":"2020-01-01T00:00:00Z","dealer":', 1)
    steps = [[("a.jsonl", base)], [("b.jsonl", base[::-1])], [("a.jsonl", [base[0], edited, *base[2:5]])],
             [("c.jsonl", _simulated("belote-classic", 4, seed=11))]]

    def run_all(tag: str) -> list:
        lake, out = tmp_path / f"lake-{tag}", []
        (tmp_path / "in").mkdir(exist_ok=True)
        for step in steps:     # the same input paths for both lakes: rows record the file they were read from
            files = [_write(tmp_path / "in", name, lines) for name, lines in step]
            result, _ = _ingest(files, lake, mode, monkeypatch, block=3000, flush=7)
            del result["files"]                  # Parquet file names are random
            out.append(result)
        for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
            (tmp_path / "in" / name).unlink(missing_ok=True)
        return out

    in_memory = run_all("memory")
    monkeypatch.setattr(sorted_runs, "SPILL_ROWS", 16)
    monkeypatch.setattr(sorted_runs, "CHUNK", 8)
    monkeypatch.setattr(sorted_runs, "FENCE", 4)
    monkeypatch.setattr(key_index, "FOLD", 5)
    spilled = run_all("spilled")
    assert spilled == in_memory
    # the changed file: its edited hand replaces the old one (1 game, 1 hand imported; 34 hands in the lake)
    assert in_memory[2]["summary"][1:3] == (1, 1) and len(in_memory[2]["hands"]) == 34
    assert in_memory[1]["summary"][3] == in_memory[0]["summary"][2]     # the second file: all duplicates
    assert in_memory[-1]["summary"][1] == 4                              # the new games were imported


def test_spill_rows_from_the_environment(monkeypatch):
    """$REBELOTE_KEY_SPILL_ROWS sets the spill size; a value that is not a number is named in a warning and
    the default (2^19) is used."""
    monkeypatch.setenv(sorted_runs.SPILL_ENV, "1000")
    assert sorted_runs._spill_rows() == 1000
    monkeypatch.setenv(sorted_runs.SPILL_ENV, "lots")
    with pytest.warns(UserWarning, match="REBELOTE_KEY_SPILL_ROWS='lots'"):
        assert sorted_runs._spill_rows() == 1 << 19
    monkeypatch.delenv(sorted_runs.SPILL_ENV)
    assert sorted_runs._spill_rows() == 1 << 19
