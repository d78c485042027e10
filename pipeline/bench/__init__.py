"""Benchmarks of each stage (``rebelote bench``) at several input sizes.

For each size N (hands) it measures, each stage in a fresh process (:mod:`pipeline.bench.stages`) so that the
peak resident memory of a stage is its own:

* ``ingest`` of the native format: a simulated JSON Lines file of N hands (MB/s, hands/s), then ``compact`` and
  ``export`` of the lake it made, and its Parquet bytes per hand (only for N up to ``ingest_max``: at the
  current ingest speed a 10^7-hand file takes the better part of an hour);
* ``ingest`` of each real format in ``../shared`` (coinche-cli, colver, openspiel JSONL and state files,
  bridgebelot2001), once per run (size-independent);
* for each ruleset family (:data:`pipeline.bench.data.FAMILIES`), a lake of N hands
  (:func:`pipeline.bench.data.replicate_lake`), then ``rescore`` in three phases: the hand pass (read, score,
  the game pass and the report tables on the same batches, write), the sorted game pass and the report tables
  computed after it (on Ray; locally only for games found late), each with its CPU seconds and peak memory, and the
  whole ``rescore`` (its CPU seconds, hands per CPU-second, and the process's peak); ``score_batch`` alone on min(N, 10^6) hands in memory
  (the engine's speed), and,
  for the classic family, every report of ``queries/`` (seconds per report) and bytes per hand of each table.

:func:`growth` turns the rows of several sizes into a log-log table: seconds per stage against N, with the
slope of log(seconds) on log(N) (1 = linear).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import orjson

from pipeline.storage import lake as lakemod
from pipeline.words import count

SHARED = Path(os.environ.get("REBELOTE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
REAL_INPUTS = [   # (format, path under ../shared)
    ("coinche-cli", "data/real/coinche-cli/games"),
    ("colver", "data/real/colver/deals.jsonl"),
    ("openspiel-jsonl", "data/real/openspiel/histories.jsonl"),
    ("openspiel-state", "data/real/openspiel/games"),
    ("bridgebelot2001", "oracles/bridgebelot2001/golden_score.json"),
]


@dataclass
class Row:
    """One measurement. ``size``: the N of the run (0 for the size-independent real-format ingests);
    ``rate`` in ``unit``; ``peak_rss_mb``: the stage's (or phase's) peak resident memory, MB."""

    size: int
    stage: str
    what: str
    rows: int
    seconds: float
    rate: float
    unit: str
    peak_rss_mb: float = 0.0
    note: str = ""
    extra: dict = field(default_factory=dict)


def _rate(rows: int, seconds: float) -> float:
    """rows per second, 0 for a phase that took no measurable time."""
    return rows / seconds if seconds > 0 else 0.0


def parse_sizes(values: list[str]) -> list[int]:
    """Sizes from ``--hands`` values: integers, ``1e6`` or ``10^6`` forms, comma-separated or repeated.
    Raises ValueError naming a bad value."""
    out = []
    for v in values:
        for part in str(v).replace("_", "").split(","):
            p = part.strip()
            if not p:
                continue
            try:
                n = int(10 ** int(p[3:])) if p.startswith("10^") else int(float(p))
            except ValueError:
                raise ValueError(f"--hands {p!r}: not a number of hands (e.g. 100000, 1e6, 10^6)") from None
            if n < 1000:
                raise ValueError(f"--hands {p}: at least 1000 hands")
            out.append(n)
    return sorted(set(out))


def run_stage(stage: str, **args) -> dict:
    """Run one stage of :mod:`pipeline.bench.stages` in a fresh Python process; its JSON result.
    Raises RuntimeError with the child's error output when it fails."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "pipeline.bench.stages", orjson.dumps(dict(args, stage=stage)).decode()],
                       capture_output=True, env=env, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"bench stage {stage} failed (exit {p.returncode}):\n{p.stderr[-4000:]}")
    return orjson.loads(p.stdout.strip().splitlines()[-1])


def _cpu(phase: dict) -> str:
    """A phase's CPU seconds and hands per CPU-second, as the bench's note says them."""
    cpu = phase["cpu_seconds"]
    return f"{cpu:.2f} CPU s, {phase['rows'] / cpu if cpu > 0 else 0:,.0f} hands per CPU-second"


def _bytes(lake: Path, table: str) -> int:
    return sum(f.size for f in lakemod.list_files(lake, table))


def _ingest_stages(rows: list[Row], n: int, games: list[dict], tmp: Path, log) -> None:
    """Ingest a native file of n hands into a fresh lake, then compact and export that lake."""
    from pipeline.bench import data
    f = tmp / "native.jsonl"
    data.write_native(games, n, f)
    os.sync()      # the file just written goes to disk now, not during the ingest it would slow
    lake = tmp / "ingested"
    r = run_stage("ingest", paths=[str(f)], lake=str(lake))
    ph = r["phases"]["ingest"]
    rows.append(Row(n, "ingest", "rebelote (native)", ph["rows"], ph["seconds"],
                    ph["bytes"] / ph["seconds"] / 1e6, "MB/s", ph["peak_rss_mb"],
                    f"{ph['rows'] / ph['seconds']:,.0f} hands/s, {ph['bytes'] / 1e6:,.0f} MB, "
                    f"{ph['cpu_seconds']:.2f} CPU s, workers' peak {ph['worker_peak_rss_mb']:.0f} MB",
                    {"baseline_rss_mb": r["baseline_rss_mb"], "hands_per_s": ph["rows"] / ph["seconds"],
                     "cpu_seconds": ph.get("cpu_seconds"), "worker_peak_rss_mb": ph.get("worker_peak_rss_mb")}))
    log(f"N={n:,}: ingest native {ph['rows']:,} hands {ph['seconds']:.1f} s")
    f.unlink()
    files_ingested = len(lakemod.list_files(lake, "hands"))
    rows.append(Row(n, "parquet size", "hands (as ingested)", ph["rows"], 0.0,
                    _bytes(lake, "hands") / max(ph["rows"], 1), "bytes/hand", 0.0, count(files_ingested, 'file')))
    r = run_stage("compact", lake=str(lake))
    ph = r["phases"]["compact"]
    rows.append(Row(n, "compact", "all tables", ph["rows"], ph["seconds"], ph["rows"] / ph["seconds"], "rows/s",
                    ph["peak_rss_mb"], f"{count(ph['files_before'], 'file')} -> {ph['files_after']}"))
    r = run_stage("export", lake=str(lake))
    ph = r["phases"]["export jsonl"]
    rows.append(Row(n, "export", "jsonl", ph["rows"], ph["seconds"], ph["rows"] / ph["seconds"], "hands/s",
                    ph["peak_rss_mb"], f"{ph['bytes'] / ph['seconds'] / 1e6:,.0f} MB/s"))
    shutil.rmtree(lake, ignore_errors=True)


def run(sizes: list[int], families: list[str] | None = None, ingest_max: int = 1_000_000, real: bool = True,
        workdir: Path | None = None, keep: bool = False, log: Callable[[str], None] = lambda s: None) -> list[Row]:
    """Measure every stage at each size; returns the rows (see module doc). ``log`` gets progress lines."""
    from pipeline.bench import data
    from pipeline.ingest.run import ingest_paths

    families = families or list(data.FAMILIES)
    rows: list[Row] = []
    tmp = Path(tempfile.mkdtemp(prefix="rebelote-bench-", dir=workdir))
    try:
        if real:
            for fmt, rel in REAL_INPUTS:
                path = SHARED / rel
                if not path.exists():
                    log(f"{path}: not found, {fmt} ingest not measured")
                    continue
                lake = tmp / f"real-{fmt}"
                r = run_stage("ingest", paths=[str(path)], lake=str(lake), format=fmt)
                ph = r["phases"]["ingest"]
                rows.append(Row(0, "ingest", fmt, ph["rows"], ph["seconds"], ph["bytes"] / ph["seconds"] / 1e6, "MB/s",
                                ph["peak_rss_mb"], f"{ph['rows'] / ph['seconds']:,.0f} hands/s, "
                                f"{ph['bytes'] / 1e6:.1f} MB", {"baseline_rss_mb": r["baseline_rss_mb"]}))
                log(f"ingest {fmt}: {ph['rows']} hands, {ph['seconds']:.2f} s")
                shutil.rmtree(lake, ignore_errors=True)
        top = max(sizes)
        bases: dict[str, tuple[list[dict], Path]] = {}
        for fam in families:
            ruleset = data.FAMILIES[fam]
            t = time.perf_counter()
            games = data.base_games(ruleset, top)
            f = tmp / f"base-{fam}.jsonl"
            data.write_native(games, min(top, data.BASE_HANDS), f)
            base_lake = tmp / f"base-{fam}"
            ingest_paths([f], base_lake)
            f.unlink()
            bases[fam] = (games, base_lake)
            log(f"base {fam}: {sum(len(g['hands']) for g in games)} simulated hands, {time.perf_counter() - t:.1f} s")
        for n in sizes:
            # ingest of the native format, then compact and export of the lake it made (up to ingest_max)
            if n <= ingest_max:
                _ingest_stages(rows, n, bases[families[0]][0], tmp, log)
            for fam in families:
                ruleset = data.FAMILIES[fam]
                lake = tmp / f"lake-{fam}-{n}"
                t = time.perf_counter()
                made = data.replicate_lake(bases[fam][1], lake, n)
                log(f"N={n:,} {fam}: lake of {made:,} hands built in {time.perf_counter() - t:.1f} s")
                r = run_stage("rescore", lake=str(lake), ruleset=ruleset)
                hp, gp, dp = r["phases"]["hand pass"], r["phases"]["game pass"], r["phases"]["derived tables"]
                rp = r["phases"]["rescore"]
                what = f"{fam} ({ruleset})"
                rows.append(Row(n, "rescore hand pass", what, hp["rows"], hp["seconds"], _rate(hp["rows"], hp["seconds"]),
                                "hands/s", hp["peak_rss_mb"],
                                f"read + score_batch + game pass + report tables + write; {_cpu(hp)}",
                                {"baseline_rss_mb": r["baseline_rss_mb"], "status": hp["status"],
                                 "cpu_seconds": hp["cpu_seconds"]}))
                rows.append(Row(n, "game pass", what, gp["rows"], gp["seconds"], _rate(gp["rows"], gp["seconds"]), "hands/s",
                                gp["peak_rss_mb"], f"{gp['games']:,} games; the sorted pass, for games found late; "
                                f"{_cpu(gp)}", {"cpu_seconds": gp["cpu_seconds"]}))
                rows.append(Row(n, "derived tables", what, dp["rows"], dp["seconds"], _rate(dp["rows"], dp["seconds"]),
                                "hands/s", dp["peak_rss_mb"], f"the reports' tables of games found late, DuckDB; {_cpu(dp)}",
                                {"cpu_seconds": dp["cpu_seconds"]}))
                rows.append(Row(n, "rescore", what, rp["rows"], rp["seconds"], rp["rows"] / rp["seconds"], "hands/s",
                                rp["peak_rss_mb"], f"the three phases, peak of the process; {_cpu(rp)}",
                                {"cpu_seconds": rp["cpu_seconds"], "hands_per_cpu_s": rp["rows"] / rp["cpu_seconds"]}))
                m = min(made, 1_000_000)
                r = run_stage("score_batch", lake=str(lake), ruleset=ruleset, rows=m)
                ph = r["phases"]["score_batch"]
                cpu = ph.get("cpu_seconds") or ph["seconds"]
                rows.append(Row(n, "score_batch (in memory)", what, ph["rows"], ph["seconds"], ph["rows"] / ph["seconds"],
                                "hands/s", ph["peak_rss_mb"], f"one core, batches of 262,144; "
                                f"{ph['rows'] / cpu:,.0f} hands per CPU-second",
                                {"cpu_seconds": cpu, "hands_per_cpu_s": ph["rows"] / cpu}))
                log(f"N={n:,} {fam}: rescore {hp['seconds']:.1f} + {gp['seconds']:.1f} + {dp['seconds']:.1f} s")
                if fam == families[0]:
                    r = run_stage("stats", lake=str(lake), ruleset=ruleset)
                    for name, ph in r["phases"].items():
                        rows.append(Row(n, "stats", name, ph["rows"], ph["seconds"], ph["seconds"], "s/report",
                                        ph["peak_rss_mb"], f"rows = seat-rows; query alone {ph['query_seconds']:.2f} s",
                                        {"query_seconds": ph["query_seconds"], "result_rows": ph["result_rows"]}))
                    for table in ("hands", "games", "scores", "game_scores"):
                        rows.append(Row(n, "parquet size", table, made, 0.0, _bytes(lake, table) / made, "bytes/hand",
                                        0.0, count(len(lakemod.list_files(lake, table)), 'file')))
                    log(f"N={n:,} {fam}: stats done")
                if not keep:
                    shutil.rmtree(lake, ignore_errors=True)
    finally:
        if keep:
            log(f"bench files kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return rows


def growth(rows: list[Row]) -> list[dict]:
    """Log-log growth of each timed stage across sizes: seconds at each N and the least-squares slope of
    log(seconds) on log(N) (1.0: linear; below 1: fixed costs dominate). Stages measured at one size only,
    size-independent ones are left out."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for r in rows:
        if r.size and r.seconds > 0:
            if r.rows < 0.9 * r.size:
                continue       # measured on fewer rows than N (score_batch in memory is capped at 10^6)
            series.setdefault((r.stage, r.what), {})[r.size] = r.seconds
    out = []
    for (stage, what), pts in series.items():
        if len(pts) < 2:
            continue
        xs = [math.log(n) for n in pts]
        ys = [math.log(t) for t in pts.values()]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        den = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else float("nan")
        out.append({"stage": stage, "what": what, "seconds": {str(k): round(v, 4) for k, v in sorted(pts.items())},
                    "slope": round(slope, 2)})
    return out


def to_json(rows: list[Row]) -> bytes:
    """The rows and their growth table as JSON (``{"rows": [...], "growth": [...]}``)."""
    return orjson.dumps({"rows": [asdict(r) for r in rows], "growth": growth(rows)}, option=orjson.OPT_INDENT_2)
