"""Benchmarks of each stage (``rebelote bench``): ingest, rescore, game pass, stats.

Input is simulated: ``games`` complete games are simulated once per ruleset, then their hands are repeated
(with fresh keys) up to ``hands`` rows. Repetition does not flatter the engine: rescoring is row-local and
does the same work on every row. Figures are wall-clock on this machine, one process.
"""

from __future__ import annotations

import resource
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import lake as lakemod, rules as rulesmod, schema
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import game_pass, rescore_lake, score_batch
from pipeline.simulate import simulate, write_jsonl


@dataclass
class Row:
    stage: str
    ruleset: str
    rows: int
    seconds: float
    rate: float
    unit: str
    note: str = ""


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(hands: int = 100_000, rulesets: tuple[str, ...] = ("belote-classic", "colver"), games: int = 300,
        batch: int = 65_536) -> list[Row]:
    """Measure every stage; returns one Row per measurement."""
    out: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="rebelote-bench-") as tmp:
        tmp = Path(tmp)
        for name in rulesets:
            r = rulesmod.load(name)
            objs = list(simulate(r, games, 1))
            f = tmp / f"{name}.jsonl"
            write_jsonl(objs, f)
            size = f.stat().st_size
            lake = tmp / f"lake-{name}"
            t = time.perf_counter()
            s = ingest_paths([f], lake)
            dt = time.perf_counter() - t
            out.append(Row("ingest native", name, s.hands, dt, size / dt / 1e6, "MB/s", f"{s.hands / dt:,.0f} hands/s"))
            base = lakemod.read(lake, "hands")
            reps = -(-hands // base.num_rows)
            big = pa.concat_tables([base] * reps).slice(0, hands).combine_chunks()
            score_batch(big.slice(0, 1000), r)  # warm-up (tables, caches)
            t = time.perf_counter()
            parts = [score_batch(big.slice(i, batch), r) for i in range(0, big.num_rows, batch)]
            dt = time.perf_counter() - t
            out.append(Row("rescore (score_batch)", name, big.num_rows, dt, big.num_rows / dt, "hands/s",
                           f"batches of {batch}"))
            scores = pa.concat_tables(parts)
            # the game pass needs distinct games: give each repetition its own game ids
            rep = pa.array([str(i // base.num_rows) for i in range(big.num_rows)])
            scores = scores.set_column(scores.schema.get_field_index("game_id"), "game_id",
                                       pc.binary_join_element_wise(scores.column("game_id"), rep, "#"))
            t = time.perf_counter()
            g = game_pass(scores, r)
            dt = time.perf_counter() - t
            out.append(Row("game pass", name, g.num_rows, dt, scores.num_rows / dt, "hands/s", f"{g.num_rows} games"))
            t = time.perf_counter()
            summary = rescore_lake(lake, r)
            dt = time.perf_counter() - t
            out.append(Row("rescore lake (read+score+write)", name, summary.hands, dt, summary.hands / dt, "hands/s"))
            from pipeline import stats
            t = time.perf_counter()
            stats.run_report(lake, "players", name)
            dt = time.perf_counter() - t
            out.append(Row("stats players", name, summary.hands, dt, dt, "s"))
            pq_bytes = sum(p.stat().st_size for p in (lake / "hands").rglob("*.parquet"))
            out.append(Row("parquet size", name, s.hands, 0.0, pq_bytes / max(s.hands, 1), "bytes/hand"))
    out.append(Row("peak RSS", "", 0, 0.0, _peak_rss_mb(), "MB"))
    return out


def to_json(rows: list[Row]) -> bytes:
    return orjson.dumps([asdict(r) for r in rows], option=orjson.OPT_INDENT_2)
