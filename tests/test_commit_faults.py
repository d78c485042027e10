"""Crash safety of the lake's commits (pipeline.storage.commits, issue 19): a writer stopped at any step of ``ingest``,
``rescore`` or ``compact`` leaves a lake that reads exactly as before the command or exactly as after it; running
the command again completes it; and no stray file stays.

The steps are enumerated, not sampled: a first run records every file-system change the command makes
(:func:`pipeline.storage.commits.step`), then the command is run once per step, stopped there by
:class:`pipeline.storage.commits.FaultInjected`, and from then on every further step fails too, as after ``kill -9``
(no clean-up runs). A subprocess test then kills a real ingest with ``os._exit`` at sampled steps, to show that
the in-process stop models a real kill.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from pipeline.storage import commits

from pipeline.maintenance import compaction

from pipeline.storage import lake as lakemod

from pipeline.storage import schema
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

RULES = load("belote-classic")
TX = re.compile(r"-[0-9a-f]{12}-(\d+|tmp)")


def _games(seed: int, prefix: str) -> list[bytes]:
    out = []
    for g in simulate(RULES, 3, seed):
        g["game_id"] = f"{prefix}{g['game_id']}"
        out.append(orjson.dumps(g))
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("inputs")
    a, b = d / "a.jsonl", d / "b.jsonl"
    a.write_bytes(b"\n".join(_games(1, "a-")) + b"\n")
    # b: three new games and a broken line, so ingest writes a reject too
    b.write_bytes(b"\n".join(_games(2, "b-")) + b"\n{\"version\": 1, \"game_id\": \n")
    return a, b


def state(lake: Path) -> dict:
    """Everything a reader of the lake sees, from another process's point of view: every table's rows (sorted),
    the files they are read from (their names without transaction ids: compaction changes only those), the
    ingest manifest and each ruleset's record of its parameters. Volatile fields are left out: the hand files'
    names, sizes and times that a rescore records (other names after a second run)."""
    assert commits.active(lakemod.locate(lake)) is None
    out = {"visible": sorted(TX.sub("-TX-n", f.path[len(str(lake)):]) for t in schema.ALL_TABLES
                             for f in lakemod.list_files(lake, t))}
    for table in schema.ALL_TABLES:
        rows = lakemod.read(lake, table).to_pylist()
        out[table] = sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
                            for r in rows)
    out["manifest"] = lakemod.read_bytes(lake, "_manifest.json")
    for part in lakemod.partitions(lake, "scores"):
        raw = lakemod.read_bytes(lake, f"scores/{part}/_ruleset.json")
        rec = orjson.loads(raw) if raw else None
        for k in ("hands_files", "games_files", "hand_seq_files"):
            (rec or {}).pop(k, None)
        out[part] = rec
    return out


def files(lake: Path) -> list[str]:
    """The files on disk, transaction ids taken out of their names (two runs of one command name them apart)."""
    return sorted(TX.sub("-TX-n", str(p.relative_to(lake))) for p in lake.rglob("*") if p.is_file())


class _Stop:
    """A fault hook: records the steps; from the ``at``-th on, every step raises FaultInjected."""

    def __init__(self, at: int | None = None):
        self.at, self.labels = at, []

    def __call__(self, label: str) -> None:
        self.labels.append(label)
        if self.at is not None and len(self.labels) >= self.at:
            raise commits.FaultInjected(label)


def _ingest(lake, inputs):
    ingest_paths([inputs[1]], lake)


def _rescore(lake, inputs):
    rescore_lake(lake, RULES)


def _update(lake, inputs):
    rescore_lake(lake, RULES, update=True)     # only the games imported since (pipeline.rescore.stale)


def _compact(lake, inputs):
    compaction.compact(lake)


@pytest.fixture(scope="module")
def lakes(tmp_path_factory, inputs) -> dict[str, Path]:
    """The lake each command starts from: a and b imported and a rescored, for ``ingest`` before b."""
    d = tmp_path_factory.mktemp("lakes")
    first = d / "first"
    ingest_paths([inputs[0]], first)
    rescore_lake(first, RULES)
    second = d / "second"
    shutil.copytree(first, second)
    ingest_paths([inputs[1]], second)      # b imported since the rescore: the scores are stale
    return {"ingest": first, "rescore": second, "update": second, "compact": second}


@pytest.mark.parametrize("command", [_ingest, _rescore, _update, _compact], ids=["ingest", "rescore", "update", "compact"])
def test_a_writer_stopped_at_every_step_leaves_the_lake_as_before_or_after(command, lakes, inputs, tmp_path):
    start = lakes[command.__name__[1:]]
    before = state(start)
    clean = tmp_path / "clean"
    shutil.copytree(start, clean)
    trace = _Stop()
    with commits.faults(trace):
        command(clean, inputs)
    after, after_files = state(clean), files(clean)
    assert after != before
    steps = trace.labels
    assert steps[0] == "begin" and "commit" in steps and steps[-1] == "clear record", steps
    seen = {"before": 0, "after": 0}
    for k in range(1, len(steps) + 1):
        lake = tmp_path / f"at-{k}"
        shutil.copytree(start, lake)
        with pytest.raises(commits.FaultInjected), commits.faults(_Stop(k)):
            command(lake, inputs)
        now = state(lake)
        where = "before" if now == before else "after" if now == after else None
        assert where, f"stopped at step {k} ({steps[k - 1]}): the lake reads neither as before nor as after"
        # the commit point: stopped at it or before (a step stops before its change), the lake reads as before
        assert where == ("after" if k > steps.index("commit") + 1 else "before"), (k, steps[k - 1], where)
        seen[where] += 1
        command(lake, inputs)              # run again: completes the command (rolls forward or redoes it)
        assert state(lake) == after, f"stopped at step {k} ({steps[k - 1]}), then run again"
        assert files(lake) == after_files, f"stray files after a stop at step {k} ({steps[k - 1]})"
        shutil.rmtree(lake)
    assert seen["before"] and seen["after"]


def test_a_reader_during_a_pending_write_sees_the_lake_as_before(lakes, inputs, tmp_path):
    lake = tmp_path / "lake"
    shutil.copytree(lakes["ingest"], lake)
    before = state(lake)
    labels = []

    def hook(label):   # stop just before the commit: every file of the ingest is written
        labels.append(label)
        if label == "commit":
            raise commits.FaultInjected(label)
    with pytest.raises(commits.FaultInjected), commits.faults(hook):
        _ingest(lake, inputs)
    rec = commits.read_record(lakemod.locate(lake))
    assert rec["state"] == "pending"
    pending = [p for p in lake.rglob("*.parquet") if commits.tag(rec["tx"]) in p.name]
    assert pending, "the ingest wrote its files before the commit"
    assert state(lake) == before
    # the next writer rolls the pending transaction back before it starts
    assert commits.recover(lakemod.locate(lake)) == "rolled back"
    assert not any(p.exists() for p in pending) and not (lake / commits.RECORD).exists()


KILL = """
import sys
from pipeline.ingest.run import ingest_paths
ingest_paths([sys.argv[2]], sys.argv[1])
"""


def test_a_killed_ingest_process_is_rolled_back_or_forward(lakes, inputs, tmp_path):
    """A real kill (``os._exit`` at the step, from REBELOTE_FAULT_AT) at the first write, just before the commit
    and just after it: the next ingest finds the lake as before or after and completes it."""
    start = lakes["ingest"]
    clean = tmp_path / "clean"
    shutil.copytree(start, clean)
    trace = _Stop()
    with commits.faults(trace):
        _ingest(clean, inputs)
    after = state(clean)
    steps = trace.labels
    at_commit = steps.index("commit") + 1
    for k in (2, at_commit, at_commit + 1):
        lake = tmp_path / f"kill-{k}"
        shutil.copytree(start, lake)
        env = dict(os.environ, REBELOTE_FAULT_AT=str(k))
        r = subprocess.run([sys.executable, "-c", KILL, str(lake), str(inputs[1])], env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 137, r.stderr[-2000:]
        assert (lake / commits.RECORD).exists()
        assert state(lake) == (after if k > at_commit else state(start))
        _ingest(lake, inputs)
        assert state(lake) == after and files(lake) == files(clean)


POOL = """
import os, sys, time
from pipeline.ingest.native_pool import BlockPool
pool = BlockPool(2)
print(" ".join(str(p) for p in pool._ex._processes), flush=True)
time.sleep(60)
"""


def test_ingest_workers_die_with_their_parent():
    """``kill -9`` of the process that owns the ingest's worker pool takes the workers with it
    (native_pool.die_with_parent), instead of leaving them running."""
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-c", POOL], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(x) for x in p.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(w) for w in workers)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "a worker outlived its parent"


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped by init, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_object_storage_refuses_a_second_writer_and_recover_says_the_first_is_gone(lakes, inputs, tmp_path):
    """memory:// (fsspec) has no lock: a writer that finds another's pending transaction refuses with a message
    naming it and the way out (LakeBusy, an OSError: one line and exit 2 from the CLI); `rebelote recover` rolls
    it back and the write then goes through."""
    import uuid
    import warnings

    from typer.testing import CliRunner

    from pipeline.cli import app

    url = f"memory://rebelote-commit-{uuid.uuid4().hex}/lake"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lakemod.LakeWarning)
        ingest_paths([inputs[0]], url)
        before = lakemod.read(url, "hands").num_rows
        with pytest.raises(commits.FaultInjected), commits.faults(_StopAt("commit")):
            ingest_paths([inputs[1]], url)      # a writer stopped (or still running) before its commit
        assert lakemod.read(url, "hands").num_rows == before
        with pytest.raises(commits.LakeBusy, match=r"another writer's transaction [0-9a-f]{12} is open .*"
                                                    r"rebelote recover --lake memory://"):
            ingest_paths([inputs[1]], url)
        r = CliRunner().invoke(app, ["ingest", str(inputs[1]), "--lake", url])
        assert r.exit_code == 2 and "another writer's transaction" in r.output and "Traceback" not in r.output
        r = CliRunner().invoke(app, ["recover", "--lake", url])
        assert r.exit_code == 0 and "recover: rolled back" in r.output, r.output
        s = ingest_paths([inputs[1]], url)
        assert s.games == 3 and lakemod.read(url, "hands").num_rows > before


def test_recover_command_on_a_local_lake(lakes, inputs, tmp_path):
    lake = tmp_path / "lake"
    shutil.copytree(lakes["ingest"], lake)
    with pytest.raises(commits.FaultInjected), commits.faults(_StopAt("clear record")):
        _ingest(lake, inputs)                       # committed, not yet cleaned up
    from typer.testing import CliRunner

    from pipeline.cli import app
    r = CliRunner().invoke(app, ["recover", "--lake", str(lake)])
    assert r.exit_code == 0 and "recover: rolled forward" in r.output, r.output
    assert not (lake / commits.RECORD).exists()
    r = CliRunner().invoke(app, ["recover", "--lake", str(lake)])
    assert "nothing to do" in r.output


class _StopAt:
    """A fault hook stopping the writer at the first step with this label (and every step after it)."""

    def __init__(self, label: str):
        self.label, self.fired = label, False

    def __call__(self, label: str) -> None:
        self.fired = self.fired or label == self.label
        if self.fired:
            raise commits.FaultInjected(label)
