"""Speed of `rebelote ingest` on a native JSON Lines file: columnar path (default) and row path.

    python benchmarks/ingest_native.py [FILE] [--mix] [--hands N | --games N] [--rules NAME] [--repeat K]
                                       [--workers N] [--rows] [--json OUT]

FILE defaults to /tmp/rebelote-native-bench.jsonl; when it does not exist it is made first and kept for the next
run: `--games` games simulated under `--rules` (24,000 classic games make ~216 MB), or with `--mix` about
`--hands` hands of classic games with a coinche game after every 20th and a Bulgarian one after every 25th
(pipeline.bench.data.write_mixed_native; 230,000 hands make ~204 MB). Each measurement ingests the whole file
into a fresh temporary lake, Parquet write included, in a fresh process (pipeline.bench.native_ingest.measure),
and prints wall and CPU seconds (the process and its worker processes), MB/s (1e6 bytes of the file per wall
second), MB per CPU second, hands/s, the peak resident memory of the process and of its largest worker, and
the load average. `--workers 1` reads in one process (REBELOTE_INGEST_WORKERS). The parse stage alone (read,
pyarrow's JSON parse, one thread; pipeline.ingest.fast_native.measure_parse) is timed first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's pipeline, not an installed one

from pipeline.ingest.fast_native import measure_parse  # noqa: E402

_CHILD = """
import json, resource, sys
sys.path.insert(0, {root!r})
from pipeline.bench.native_ingest import measure
r = measure({path!r}, rows={rows!r})
r["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
r["worker_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(r))
"""


def run_once(path: Path, rows: bool = False, workers: int | None = None) -> dict:
    """One measurement in a fresh Python process (so peak memory and compiled-kernel loading are its own)."""
    env = dict(os.environ)
    if workers is not None:
        env["REBELOTE_INGEST_WORKERS"] = str(workers)
    load = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), path=str(path), rows=rows)],
                         env=env, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["load"] = round((load + os.getloadavg()[0]) / 2, 2)
    return r


def make_file(a) -> None:
    t = time.perf_counter()
    if a.mix:
        from pipeline.bench.data import base_games, write_mixed_native
        bases = {"classic": base_games("belote-classic", 50_000), "coinche": base_games("pagat-coinche", 5000, seed=3),
                 "bulgarian": base_games("bulgarian", 5000, seed=5)}
        games, hands = write_mixed_native(bases, {"coinche": 20, "bulgarian": 25}, a.hands, a.file)
    else:
        from pipeline.simulate.games import simulate_to_file
        games, hands = simulate_to_file(a.rules, a.games, 7, a.file)
    print(f"made {games} games, {hands} hands -> {a.file} ({a.file.stat().st_size / 1e6:.0f} MB, "
          f"{time.perf_counter() - t:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="/tmp/rebelote-native-bench.jsonl", type=Path)
    ap.add_argument("--mix", action="store_true", help="make FILE of classic games mixed with coinche and Bulgarian ones")
    ap.add_argument("--hands", type=int, default=230_000, help="hands of the --mix file when FILE is missing")
    ap.add_argument("--games", type=int, default=24_000, help="games to simulate when FILE is missing")
    ap.add_argument("--rules", default="belote-classic", help="ruleset of the simulated games")
    ap.add_argument("--repeat", type=int, default=3, help="columnar runs (the median is reported)")
    ap.add_argument("--workers", type=int, help="worker processes (default: the CPUs available)")
    ap.add_argument("--rows", action="store_true", help="also time the row-by-row path once (slow)")
    ap.add_argument("--json", type=Path, help="write the measurements to this file")
    a = ap.parse_args(argv)
    if not a.file.exists():
        make_file(a)
    for _ in range(a.repeat):
        p = measure_parse(a.file)
        print(f"parse      {p['bytes'] / 1e6:8.1f} MB {p['seconds']:8.2f} s wall {p['cpu_seconds']:8.2f} s cpu "
              f"{p['mb_per_s']:8.1f} MB/s ({p['cpu_mb_per_s']:.1f} MB per CPU second; read, pyarrow parse)")
    runs = [run_once(a.file, workers=a.workers) for _ in range(a.repeat)]
    if a.rows:
        runs.append(run_once(a.file, rows=True))
    for r in runs:
        print(f"{r['path']:9} {r['bytes'] / 1e6:8.1f} MB {r['seconds']:7.2f} s wall {r['cpu_seconds']:6.2f} s cpu "
              f"{r['mb_per_s']:7.1f} MB/s {r['bytes'] / r['cpu_seconds'] / 1e6:6.1f} MB/cpu-s "
              f"{r['hands_per_s']:>9,} hands/s  rss {r['rss_mb']:.0f} MB, worker {r['worker_rss_mb']:.0f} MB  "
              f"load {r['load']}  ({r['hands']} hands, {r['rejected']} rejected)")
    cols = [r for r in runs if r["path"] == "columnar"]
    med = statistics.median(r["seconds"] for r in cols)
    best = min(r["seconds"] for r in cols)
    print(f"columnar median: {med:.2f} s, {cols[0]['bytes'] / med / 1e6:.1f} MB/s, {cols[0]['hands'] / med:,.0f} hands/s; "
          f"best {best:.2f} s, {cols[0]['bytes'] / best / 1e6:.1f} MB/s")
    if a.json:
        a.json.write_text(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
