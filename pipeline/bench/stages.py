"""One benchmark stage, run in a fresh process so that its peak memory is its own.

``python -m pipeline.bench.stages '<json>'`` runs the stage named by the JSON object's ``stage`` and prints one
JSON object: the measurements of each phase (``phases``: name -> rows, seconds, bytes, peak RSS in MB) and
``baseline_rss_mb``, the resident memory once the libraries are imported and before any work.

Resident memory is sampled every 20 ms from ``/proc/self/statm`` by a thread, so each phase of a stage
(e.g. the hand pass and the game pass of a rescore) gets its own peak; ``ru_maxrss`` (the process's peak)
is reported too as ``peak_rss_mb``.
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
from pathlib import Path

import orjson

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """Resident set size of this process now, in MB (2^20 bytes)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except OSError:   # not Linux: the peak so far is the best we have
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Sampler:
    """Samples RSS in a background thread; :meth:`peak` gives the maximum between two perf_counter times."""

    def __init__(self, every: float = 0.02):
        self.samples: list[tuple[float, float]] = []
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), rss_mb()))
            self._stop.wait(self.every)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self, t0: float, t1: float) -> float:
        """Largest RSS (MB) sampled between t0 and t1 (and at the edges)."""
        vals = [r for t, r in self.samples if t0 <= t <= t1]
        return max(vals) if vals else rss_mb()


def _phase(out: dict, name: str, sampler: Sampler, t0: float, t1: float, rows: int, nbytes: int = 0, **extra) -> None:
    out[name] = {"rows": rows, "seconds": t1 - t0, "bytes": nbytes, "peak_rss_mb": sampler.peak(t0, t1), **extra}


def stage_ingest(a: dict, s: Sampler) -> dict:
    """Ingest ``paths`` into ``lake`` (``format`` forced when given). Besides this process's peak, the phase
    reports ``cpu_seconds`` (this process and the worker processes a big native file is read in, see
    pipeline.ingest.native_pool) and ``worker_peak_rss_mb``, the largest worker's peak resident memory (0 when
    no worker ran)."""
    from pipeline.ingest.run import ingest_paths
    c0, t0 = _cpu(), time.perf_counter()
    summ = ingest_paths([Path(p) for p in a["paths"]], a["lake"], fmt=a.get("format"))
    t1, c1 = time.perf_counter(), _cpu()
    out: dict = {}
    _phase(out, "ingest", s, t0, t1, summ.hands, summ.bytes, games=summ.games,
           rejected=sum(summ.rejected.values()), formats=dict(summ.formats), cpu_seconds=c1 - c0,
           worker_peak_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its finished child processes."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def stage_rescore(a: dict, s: Sampler) -> dict:
    """rescore_lake under ``ruleset`` with ``engine``; the hand pass, the game pass and the derived report tables
    (:mod:`pipeline.facts.derived`) as three phases, and the three together as ``rescore``; each with its CPU
    seconds (``cpu_seconds``: every thread of this process, from :class:`pipeline.rescore.RescoreSummary`)."""
    from pipeline.rescore import rescore_lake
    from pipeline.rules import load
    rules = load(a["ruleset"])
    t0 = time.perf_counter()
    summ = rescore_lake(a["lake"], rules, engine=a.get("engine", "local"))
    t2 = time.perf_counter()
    t1 = t0 + summ.seconds_hands
    t15 = t1 + summ.seconds_games
    out: dict = {}
    _phase(out, "hand pass", s, t0, t1, summ.hands, status=dict(summ.status), illegal=summ.illegal,
           matched=f"{summ.matches}/{summ.recorded}", cpu_seconds=summ.cpu_hands)
    _phase(out, "game pass", s, t1, t15, summ.hands, games=summ.games,
           games_matched=f"{summ.games_matched}/{summ.games_recorded}", cpu_seconds=summ.cpu_games)
    _phase(out, "derived tables", s, t15, t2, summ.hands, cpu_seconds=summ.cpu_derived)
    # the whole command as a user runs it: peak RSS of the process over every phase
    _phase(out, "rescore", s, t0, t2, summ.hands,
           cpu_seconds=summ.cpu_hands + summ.cpu_games + summ.cpu_derived)
    return out


def stage_score_batch(a: dict, s: Sampler) -> dict:
    """score_batch alone over the lake's first ``rows`` hands held in memory (no I/O): the engine's speed."""
    import pyarrow as pa

    from pipeline.storage import lake as lakemod
    from pipeline.rescore import score_batch
    from pipeline.rules import load
    rules = load(a["ruleset"])
    parts, n = [], 0
    for b in lakemod.iter_batches(a["lake"], "hands", batch_size=65_536):
        parts.append(b)
        n += b.num_rows
        if n >= a["rows"]:
            break
    t = pa.Table.from_batches(parts).slice(0, a["rows"]).combine_chunks()
    score_batch(t.slice(0, 2000), rules)     # warm-up: ruleset tables, compiled kernels loaded
    batch = a.get("batch", 262_144)
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(0, t.num_rows, batch):
        score_batch(t.slice(i, batch), rules)
    t1, c1 = time.perf_counter(), time.process_time()
    out: dict = {}
    # CPU seconds too: on a shared machine they are the one-core figure (wall time also counts waiting for the core)
    _phase(out, "score_batch", s, t0, t1, t.num_rows, cpu_seconds=c1 - c0)
    return out


def stage_stats(a: dict, s: Sampler) -> dict:
    """Every report of queries/ over the lake, one phase each (``compare`` compares the ruleset with itself):
    seconds of the report with its connection (``seconds``) and of its query alone on an open connection
    (``query_seconds``), best of ``repeat`` runs (default 1); then ``fairness`` (by source) and ``unscored
    check`` (the hands-without-scores count every ``rebelote stats`` command makes)."""
    from pipeline.stats import fairness
    from pipeline.stats import reports as stats
    out: dict = {}
    repeat = a.get("repeat", 1)
    con = stats.connect(a["lake"])
    seat_rows = con.execute("SELECT count(*) FROM seats").fetchone()[0]
    con.close()

    def best(fn) -> tuple[float, float, float, object]:
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = fn()
            runs.append((time.perf_counter() - t0, t0, time.perf_counter(), res))
        return min(runs, key=lambda r: r[0])

    for name in stats.list_reports():
        params = {"other": a["ruleset"]} if "other" in stats.report_params(name) else {}
        dt, t0, t1, res = best(lambda: stats.run_report(a["lake"], name, a["ruleset"], **params))
        con = stats.connect(a["lake"])
        try:
            q, _, _, _ = best(lambda: stats.run_report_on(con, name, a["ruleset"], **params))
        finally:
            con.close()
        _phase(out, name, s, t0, t0 + dt, seat_rows, result_rows=res.num_rows, query_seconds=q)
    dt, t0, _, res = best(lambda: fairness.fairness_report(a["lake"]))
    _phase(out, "fairness", s, t0, t0 + dt, seat_rows, result_rows=res.num_rows, query_seconds=dt)
    dt, t0, _, res = best(lambda: stats.unscored_hands(a["lake"], a["ruleset"]))
    _phase(out, "unscored check", s, t0, t0 + dt, seat_rows, result_rows=res, query_seconds=dt)
    return out


def stage_compact(a: dict, s: Sampler) -> dict:
    """rebelote compact over the lake."""
    from pipeline.maintenance import compaction
    t0 = time.perf_counter()
    summ = compaction.compact(a["lake"])
    t1 = time.perf_counter()
    out: dict = {}
    _phase(out, "compact", s, t0, t1, summ.rows, summ.bytes_before, files_before=summ.files_before,
           files_after=summ.files_after, bytes_after=summ.bytes_after)
    return out


def stage_export(a: dict, s: Sampler) -> dict:
    """Native JSON Lines export of the whole lake to /dev/null."""
    from pipeline.report.export import export_jsonl

    class Count:
        n = 0

        def write(self, b: bytes) -> None:
            self.n += len(b)
    sink = Count()
    t0 = time.perf_counter()
    games, hands = export_jsonl(a["lake"], sink)
    t1 = time.perf_counter()
    out: dict = {}
    _phase(out, "export jsonl", s, t0, t1, hands, sink.n, games=games)
    return out


STAGES = {"ingest": stage_ingest, "rescore": stage_rescore, "score_batch": stage_score_batch,
          "stats": stage_stats, "compact": stage_compact, "export": stage_export}


def main(argv: list[str]) -> None:
    a = orjson.loads(argv[0])
    fn = STAGES[a["stage"]]
    # the libraries every stage uses, imported before the baseline is taken
    import duckdb  # noqa: F401
    import pyarrow.dataset  # noqa: F401

    import pipeline.rescore  # noqa: F401
    import pipeline.ingest.run  # noqa: F401
    import pipeline.stats.reports  # noqa: F401
    baseline = rss_mb()
    with Sampler() as s:
        phases = fn(a, s)
    sys.stdout.write(orjson.dumps({"phases": phases, "baseline_rss_mb": baseline,
                                   "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}).decode())


if __name__ == "__main__":
    main(sys.argv[1:])
