"""Ingest speed of one native file, columnar or row by row, in an empty lake: the measurement behind
``benchmarks/ingest_native.py`` and ``docs/bench-results.md``."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from pipeline.ingest.fast_native import ENV
from pipeline.ingest.run import ingest_paths


def measure(path: str | Path, lake: str | Path | None = None, rows: bool = False) -> dict:
    """Ingest one file into an empty lake and time it (reading, checks, keys and the Parquet write).

    Args:
        path: a native JSON Lines file (``.gz`` accepted).
        lake: where to write; default a temporary folder, deleted afterwards. Must not exist or be empty.
        rows: force the row-by-row reader (the reference) instead of the columnar one.
    Returns:
        ``{"path": "columnar"|"rows", "bytes": file size, "seconds": wall clock, "cpu_seconds": CPU of this
        process and of its worker processes,
        "mb_per_s": 1e6 bytes per wall second, "hands": hands imported, "hands_per_s", "games", "rejected"}``.
    """
    path = Path(path)
    old = os.environ.get(ENV)
    os.environ[ENV] = "rows" if rows else "columnar"
    try:
        with tempfile.TemporaryDirectory(prefix="rebelote-fastnative-") as tmp:
            target = Path(lake) if lake else Path(tmp) / "lake"
            cpu0, t0 = _cpu(), time.perf_counter()
            s = ingest_paths([path], target)
            dt, cpu = time.perf_counter() - t0, _cpu() - cpu0
    finally:
        if old is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = old
    size = path.stat().st_size
    return {"path": "rows" if rows else "columnar", "bytes": size, "seconds": round(dt, 3),
            "cpu_seconds": round(cpu, 3), "mb_per_s": round(size / dt / 1e6, 2), "hands": s.hands,
            "hands_per_s": round(s.hands / dt), "games": s.games, "rejected": sum(s.rejected.values())}


def _cpu() -> float:
    """CPU seconds of this process and of its finished child processes (the worker processes of
    :mod:`pipeline.ingest.native_pool` are joined before ``ingest_paths`` returns)."""
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
