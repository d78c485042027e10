"""Speed of `rebelote ingest` on a native JSON Lines file: columnar path (default) and row path.

    python benchmarks/ingest_native.py [FILE] [--games N] [--rules NAME] [--repeat K] [--rows] [--json OUT]

FILE defaults to /tmp/rebelote-native-bench.jsonl; when it does not exist it is simulated first (`--games`
games under `--rules`; 24,000 classic games make ~216 MB) and kept for the next run. Each measurement
ingests the whole file into a fresh temporary lake, Parquet write included (pipeline.ingest.fast_native.measure),
and prints wall and CPU seconds, MB/s (1e6 bytes of the file per wall second) and hands/s. The parse stage alone
(read, rewrite, pyarrow's JSON parse; pipeline.ingest.fast_native.measure_parse) is timed first, as many times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # this checkout's pipeline, not an installed one

from pipeline.ingest.fast_native import measure, measure_parse  # noqa: E402
from pipeline.simulate import simulate_to_file  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="/tmp/rebelote-native-bench.jsonl", type=Path)
    ap.add_argument("--games", type=int, default=24_000, help="games to simulate when FILE is missing")
    ap.add_argument("--rules", default="belote-classic", help="ruleset of the simulated games")
    ap.add_argument("--repeat", type=int, default=3, help="columnar runs (the median is reported)")
    ap.add_argument("--rows", action="store_true", help="also time the row-by-row path once (slow)")
    ap.add_argument("--json", type=Path, help="write the measurements to this file")
    a = ap.parse_args(argv)
    if not a.file.exists():
        t = time.perf_counter()
        games, hands = simulate_to_file(a.rules, a.games, 7, a.file)
        print(f"simulated {games} games, {hands} hands -> {a.file} ({a.file.stat().st_size / 1e6:.0f} MB, "
              f"{time.perf_counter() - t:.0f} s)")
    for _ in range(a.repeat):
        p = measure_parse(a.file)
        print(f"parse      {p['bytes'] / 1e6:8.1f} MB {p['seconds']:8.2f} s wall {p['cpu_seconds']:8.2f} s cpu "
              f"{p['mb_per_s']:8.1f} MB/s ({p['cpu_mb_per_s']:.1f} MB per CPU second; read, rewrite, pyarrow parse)")
    runs = [measure(a.file) for _ in range(a.repeat)]
    if a.rows:
        runs.append(measure(a.file, rows=True))
    for r in runs:
        print(f"{r['path']:9} {r['bytes'] / 1e6:8.1f} MB {r['seconds']:8.2f} s wall {r['cpu_seconds']:8.2f} s cpu "
              f"{r['mb_per_s']:8.1f} MB/s {r['hands_per_s']:>10,} hands/s  ({r['hands']} hands, {r['rejected']} rejected)")
    cols = [r for r in runs if r["path"] == "columnar"]
    med = statistics.median(r["seconds"] for r in cols)
    print(f"columnar median: {med:.2f} s, {cols[0]['bytes'] / med / 1e6:.1f} MB/s, {cols[0]['hands'] / med:,.0f} hands/s")
    if a.json:
        a.json.write_text(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
