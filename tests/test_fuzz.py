"""Fuzzing every reader (hypothesis): mutated records must never crash the ingest driver, and nothing may vanish
silently: a file that a reader accepts ends up as imported hands or as rejects (or both)."""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_samples import beside as _beside, mutated_samples as _mutated_samples, samples as _samples
from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths

PYTHON_ERROR = re.compile(r"\b(KeyError|TypeError|ValueError|IndexError|AttributeError)\b|NoneType|object is not "
                          r"(subscriptable|iterable)|has no attribute|invalid literal for")


def _reasons_in_words(lake: Path) -> None:
    """Issue #4.2: no reject reason is a bare Python error (``KeyError 'deal_no'``); a reader bug, the one case
    allowed to name its exception, has its own code (reader_error)."""
    rej = lakemod.read(lake, "rejects", columns=["reason_code", "reason"]).to_pylist()
    bare = [r["reason"] for r in rej if r["reason_code"] != "reader_error" and PYTHON_ERROR.search(r["reason"])]
    assert bare == []


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(min_value=0), st.integers(min_value=0, max_value=255)),
    st.tuples(st.just("cut"), st.integers(min_value=0), st.just(0)),
    st.tuples(st.just("drop_line"), st.integers(min_value=0), st.just(0)),
    st.tuples(st.just("dup_line"), st.integers(min_value=0), st.just(0)),
    st.tuples(st.just("swap_digits"), st.integers(min_value=0), st.just(0)),
)


def mutate(data: bytes, ops) -> bytes:
    for op, pos, val in ops:
        if not data:
            break
        i = pos % len(data)
        if op == "flip":
            data = data[:i] + bytes([val]) + data[i + 1:]
        elif op == "cut":
            data = data[:i]
        elif op in ("drop_line", "dup_line"):
            lines = data.splitlines(keepends=True)
            k = pos % len(lines)
            lines = lines[:k] + lines[k + 1:] if op == "drop_line" else lines[:k + 1] + lines[k:]
            data = b"".join(lines)
        elif op == "swap_digits":
            digits = [j for j, c in enumerate(data) if 48 <= c <= 57]
            if digits:
                j = digits[pos % len(digits)]
                data = data[:j] + bytes([48 + (data[j] - 48 + 7) % 10]) + data[j + 1:]
    return data


READERS = ["rebelote", "colver", "colver-cfn", "openspiel-jsonl", "openspiel-state", "bridgebelot2001", "bga",
           "scoresheet-csv", "carg-json"]
MULTI_FILE_READERS = ["colver-games", "coinche-cli"]
_FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# the default run tries 15 (20) mutations per reader; `pytest -m slow` 10 times as many


@pytest.mark.parametrize("examples", [15, pytest.param(150, marks=pytest.mark.slow)])
@pytest.mark.parametrize("reader", READERS)
def test_mutated_records_never_crash_and_are_accounted_for(tmp_path_factory, reader, examples):
    _fuzz(examples, lambda ops: _mutated_records(tmp_path_factory, reader, ops))


def _fuzz(examples: int, check) -> None:
    """``check(ops)`` on ``examples`` random lists of 1-4 mutations (hypothesis, shrinking a failure)."""
    settings(max_examples=examples, **_FUZZ)(given(ops=st.lists(mutation, min_size=1, max_size=4))(check))()


def _mutated_records(tmp_path_factory, reader: str, ops) -> None:
    """One mutated sample of ``reader`` ingested (skip and lenient): no crash, every input accounted for."""
    tmp = tmp_path_factory.mktemp("fuzz")
    samples = _samples(tmp)
    if reader not in samples:
        pytest.skip(f"no sample for {reader} (../shared absent)")
    name, data = samples[reader]
    f = tmp / name
    f.write_bytes(mutate(data, ops))
    s = ingest_paths([f], tmp / "lake", fmt=reader)      # forced: the reader itself is under test
    assert s.files == 1
    _reasons_in_words(tmp / "lake")
    if f.read_bytes().strip():
        assert s.hands + s.duplicates + sum(s.rejected.values()) > 0, "the input vanished without a trace"
    # lenient keeps at least what skip keeps, and everything it keeps was checked again after the repair
    s2 = ingest_paths([f], tmp / "lenient", fmt=reader, lenient=True)
    assert s2.hands >= s.hands and s2.hands + s2.duplicates + sum(s2.rejected.values()) >= s.hands
    if s2.kept_leniently:
        kept = [h for h in lakemod.read(tmp / "lenient", "hands").to_pylist()
                if any("--on-error lenient" in e for e in h["errors"])]
        assert len(kept) == s2.kept_leniently
        assert all(h["completeness"] in ("full_play", "summary") for h in kept)


@pytest.mark.parametrize("examples", [20, pytest.param(200, marks=pytest.mark.slow)])
@pytest.mark.parametrize("reader", MULTI_FILE_READERS)
def test_mutated_file_beside_intact_ones_never_crashes_and_is_accounted_for(tmp_path_factory, reader, examples):
    _fuzz(examples, lambda ops: _mutated_beside(tmp_path_factory, reader, ops))


def _mutated_beside(tmp_path_factory, reader: str, ops) -> None:
    """The readers whose unit is more than one file: colver's games.jsonl (compared with deals.jsonl beside it,
    it gives no rows of its own) and a coinche-cli game folder (its entry stream mutated, the other seats' streams
    and server.log intact). The folder's records still end up as hands or rejects."""
    tmp = tmp_path_factory.mktemp("fuzz")
    samples, beside = _mutated_samples(tmp), _beside(reader, tmp)
    if reader not in samples or not beside:
        pytest.skip(f"no sample for {reader} (../shared absent)")
    d = tmp / "game"
    d.mkdir()
    for name, data in beside.items():
        (d / name).write_bytes(data)
    name, data = samples[reader]
    (d / name).write_bytes(mutate(data, ops))
    s = ingest_paths([d], tmp / "lake")
    assert s.hands + s.duplicates + sum(s.rejected.values()) > 0, "the game vanished without a trace"
    _reasons_in_words(tmp / "lake")
    if reader == "colver-games":
        # deals.jsonl is intact: its 13 deals are imported, or rejected for disagreeing with games.jsonl
        assert s.hands + sum(s.rejected.values()) >= 13 or s.rejected
