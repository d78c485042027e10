"""Benchmarks run on demand (`pytest -m bench`), never in the default suite: they measure, they do not assert
speed. The figures go in the session notes."""

import pytest

from pipeline import bench


@pytest.mark.bench
def test_bench_runs_and_reports_every_stage(capsys):
    rows = bench.run(hands=200_000, games=200)
    stages = {r.stage for r in rows}
    assert {"ingest native", "rescore (score_batch)", "game pass", "stats players", "peak RSS"} <= stages
    with capsys.disabled():
        for r in rows:
            print(f"{r.stage:32} {r.ruleset:15} {r.rows:>9} {r.seconds:8.3f}s {r.rate:>14,.1f} {r.unit} {r.note}")
