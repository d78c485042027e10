"""Speed of ``score_batch`` alone, in memory, per ruleset family: hands per CPU-second and per wall second.

    taskset -c 1 python benchmarks/score_speed.py [--hands 1e6] [--family F]... [--repeat 3] [--batch 262144]

The input is what ``rebelote bench``'s stage ``score_batch (in memory)`` (pipeline/bench/stages.py) scores:
the simulated base of each family (:func:`pipeline.bench.data.base_games`, 50,000 hands) ingested into a lake,
its hands table repeated up to ``--hands`` rows. The base table of each family is cached in
``--cache`` (default /tmp/rebelote-score-speed) so later runs skip the simulation. Each repeat scores the whole
table in batches of ``--batch`` rows; the figures are of the best repeat by CPU time (``time.process_time``,
the process's CPU seconds: on a shared machine the one-core figure), with its wall time and the load average
when it ran. Run it pinned to one core (``taskset -c 1``) so that the CPU time is one core's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # this checkout's pipeline, not an installed one

from pipeline.storage import lake as lakemod  # noqa: E402
from pipeline.bench import data  # noqa: E402
from pipeline.rescore import score_batch  # noqa: E402
from pipeline.rules import load  # noqa: E402


def base_table(family: str, cache: Path) -> pa.Table:
    """The family's simulated base hands (as ingested), cached as Parquet in ``cache``."""
    path = cache / f"{family}.parquet"
    if not path.exists():
        from pipeline.ingest.run import ingest_paths
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            games = data.base_games(data.FAMILIES[family], data.BASE_HANDS)
            f = Path(tmp) / "base.jsonl"
            data.write_native(games, data.BASE_HANDS, f)
            ingest_paths([f], Path(tmp) / "lake")
            t = lakemod.read(Path(tmp) / "lake", "hands").sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
            pq.write_table(t, path)
    return pq.read_table(path)


def measure(family: str, hands: int, repeat: int, batch: int, cache: Path) -> dict:
    """Best-of-``repeat`` figures of score_batch over ``hands`` rows of ``family``."""
    base = base_table(family, cache)
    t = pa.concat_tables([base] * (hands // base.num_rows + 1)).slice(0, hands).combine_chunks()
    rules = load(data.FAMILIES[family])
    score_batch(t.slice(0, 2000), rules)      # warm-up: ruleset tables, compiled kernels loaded
    runs = []
    for _ in range(repeat):
        load1 = os.getloadavg()[0]
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(0, t.num_rows, batch):
            score_batch(t.slice(i, batch), rules)
        runs.append((time.process_time() - c0, time.perf_counter() - w0, load1))
    cpu, wall, load1 = min(runs)
    return {"family": family, "rows": t.num_rows, "cpu_s": cpu, "wall_s": wall, "per_cpu_s": t.num_rows / cpu,
            "per_wall_s": t.num_rows / wall, "load": load1, "all_cpu_s": [round(r[0], 3) for r in runs]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=float, default=1e6)
    ap.add_argument("--family", action="append", choices=list(data.FAMILIES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=262_144)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/rebelote-score-speed"))
    a = ap.parse_args(argv)
    for fam in a.family or list(data.FAMILIES):
        r = measure(fam, int(a.hands), a.repeat, a.batch, a.cache)
        print(f"{fam:10s} {r['rows']:,} hands: {r['per_cpu_s'] / 1e6:.3f} M hands/CPU-s ({r['cpu_s']:.3f} CPU-s), "
              f"wall {r['per_wall_s'] / 1e6:.3f} M/s ({r['wall_s']:.3f} s), load {r['load']:.2f}; "
              f"CPU-s of each run {r['all_cpu_s']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
