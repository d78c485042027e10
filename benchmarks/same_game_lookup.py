"""Memory and time of the same-game check of `rebelote ingest` (a game id already in the lake with other content).

    python benchmarks/same_game_lookup.py [--hands N[,N...]] [--clashes K] [--workdir DIR]

For each N, a lake of N simulated classic hands is imported (pipeline.bench.data: a simulated base repeated with
fresh ids), then, in a fresh process, a file holding poorer copies of K of its games (the same play without the
recorded results: skipped as "already imported from another file"). That process's peak resident memory
(VmHWM) and wall time are printed, with its peak once the modules are imported. Everything else the run holds grows with the lake too (the
keys of every hand and game, about 100 bytes each), so compare the runs of two checkouts at the same N: the
check itself read every hand list of the lake before (about 2.5 GB at 10^6 hands) and now reads the rows of the
clashing games only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's pipeline, not an installed one

import orjson  # noqa: E402

from pipeline.bench.data import base_games, write_native  # noqa: E402
from pipeline.ingest.run import ingest_paths  # noqa: E402

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pipeline.ingest.run import ingest_paths

def peak_mb():
    # VmHWM, reset below: ru_maxrss would also count the parent's pages at the fork
    try:
        return round(int(next(x for x in open("/proc/self/status") if x.startswith("VmHWM")).split()[1]) / 1024)
    except (OSError, StopIteration):
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

try:
    open("/proc/self/clear_refs", "w").write("5")
except OSError:
    pass
before = peak_mb()
t = time.perf_counter()
s = ingest_paths([{copy!r}], {lake!r})
print(json.dumps({{"seconds": round(time.perf_counter() - t, 2), "same_game": s.same_game, "hands": s.hands,
                  "peak_mb_after_imports": before, "peak_mb": peak_mb()}}))
"""


def measure(hands: int, clashes: int, work: Path) -> dict:
    """Build the lake of ``hands`` hands under ``work`` and time the import of ``clashes`` poorer copies."""
    native, lake, copy = work / f"sim-{hands}.jsonl", work / f"lake-{hands}", work / f"copies-{hands}.jsonl"
    games, n = write_native(base_games("belote-classic", hands), hands, native)
    ingest_paths([native], lake)
    with native.open("rb") as f, copy.open("wb") as out:
        for line, _ in zip(f, range(clashes)):
            g = orjson.loads(line)
            g.update(recorded_final=None, recorded_winner=None, hands=[dict(h, recorded=None) for h in g["hands"]])
            out.write(orjson.dumps(g) + b"\n")
    res = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), copy=str(copy), lake=str(lake))],
                         capture_output=True, text=True, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    return {"lake_hands": n, "lake_games": games, "clashes": clashes, **out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", default="100000", help="lake sizes, comma-separated (default 100000)")
    ap.add_argument("--clashes", type=int, default=1, help="games of the lake copied poorer (default 1)")
    ap.add_argument("--workdir", type=Path, help="where to build the lakes (default: a temporary folder)")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rebelote-lookup-", dir=a.workdir) as tmp:
        for n in (int(float(x)) for x in a.hands.split(",")):
            print(json.dumps(measure(n, a.clashes, Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
