"""Benchmarks run on demand (`pytest -m bench`), never in the default suite: they measure, they do not assert
speed. The helpers they rest on (sizes, growth slopes, the replicated lake) are tested by default."""

import pyarrow.compute as pc
import pytest

from pipeline import bench

from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate_to_file

RULES = "belote-classic"


def test_replicated_bench_lake(tmp_path):
    from pipeline.bench.data import replicate_lake
    simulate_to_file(RULES, 12, 1, tmp_path / "sim.jsonl")
    base = tmp_path / "base"
    ingest_paths([tmp_path / "sim.jsonl"], base)
    made = replicate_lake(base, tmp_path / "big", 1000)
    hands = lakemod.read(tmp_path / "big", "hands")
    assert hands.num_rows == made and made >= 1000
    assert len(pc.unique(hands.column("hand_key"))) == made            # fresh keys in every copy
    games = lakemod.read(tmp_path / "big", "games")
    assert len(pc.unique(hands.column("game_id"))) == games.num_rows   # whole games only
    s = rescore_lake(tmp_path / "big", load(RULES))
    assert (s.matches, s.games_matched) == (made, games.num_rows)      # each copy scores as the original


def test_bench_sizes_and_growth():
    assert bench.parse_sizes(["1e4,10^5", "1000000", "100_000"]) == [10_000, 100_000, 1_000_000]
    with pytest.raises(ValueError, match="'lots'"):
        bench.parse_sizes(["lots"])
    # seconds = N / 1e6 is linear (slope 1); seconds = (N / 1e4)^2 / 100 is quadratic (slope 2)
    rows = [bench.Row(n, "a", "x", n, n / 1e6, 0, "") for n in (10_000, 100_000, 1_000_000)]
    rows += [bench.Row(n, "b", "y", n, (n / 1e4) ** 2 / 100, 0, "") for n in (10_000, 100_000)]
    g = {r["stage"]: r["slope"] for r in bench.growth(rows)}
    assert g == {"a": 1.0, "b": 2.0}


@pytest.mark.bench
def test_bench_runs_every_stage(tmp_path, capsys):
    rows = bench.run([2000], ["classic", "2-player"], real=True, workdir=tmp_path)
    stages = {(r.stage, r.what) for r in rows}
    assert {("ingest", "rebelote (native)"), ("rescore hand pass", "classic (belote-classic)"),
            ("game pass", "2-player (belote-2p)"), ("derived tables", "classic (belote-classic)"),
            ("stats", "players"), ("parquet size", "hands")} <= stages
    assert all(r.peak_rss_mb > 0 for r in rows if r.seconds > 0)
    with capsys.disabled():
        for r in rows:
            print(f"{r.size:>8} {r.stage:24} {r.what:28} {r.rows:>9} {r.seconds:8.3f}s {r.rate:>14,.1f} {r.unit} "
                  f"{r.peak_rss_mb:6.0f} MB {r.note}")


def test_stats_stage_times_every_report(tmp_path):
    # the bench's stats stage (pipeline/bench/stages.py), in this process over a small lake: one phase per
    # report of queries/, plus fairness and the unscored-hands check, each with the query alone timed too
    from helpers import simulated_lake

    from pipeline.stats import reports as stats
    from pipeline.bench.stages import Sampler, stage_stats

    lake = simulated_lake(tmp_path / "lake", plan=(("belote-classic", 2, 3, "club"),))
    with Sampler() as s:
        phases = stage_stats({"lake": str(lake), "ruleset": RULES, "repeat": 2}, s)
    assert set(phases) == set(stats.list_reports()) | {"fairness", "unscored check"}
    seat_rows = 4 * lakemod.read(lake, "hands").num_rows       # every simulated classic hand has 4 seats
    assert all(ph["rows"] == seat_rows and 0 < ph["query_seconds"] and ph["seconds"] > 0 for ph in phases.values())
    assert phases["unscored check"]["result_rows"] == 0      # just rescored
    assert phases["compare"]["result_rows"] == 7              # one row per measure


@pytest.mark.bench
def test_reports_over_20m_seat_rows(tmp_path, capsys):
    """Issues #5/#6: every report over 5 M simulated hands (20 M seat-rows), query alone and with its connection.
    Reuses the lake in $REBELOTE_BENCH_LAKE when it holds one (built, then kept, there otherwise)."""
    import os
    from pathlib import Path

    from pipeline.bench import data

    hands = int(float(os.environ.get("REBELOTE_BENCH_HANDS", "5e6")))
    lake = Path(os.environ.get("REBELOTE_BENCH_LAKE", tmp_path / "lake"))
    if not lakemod.has_table(lake, "scores"):
        base = tmp_path / "base"
        data.write_native(data.base_games(RULES, hands), data.BASE_HANDS, tmp_path / "base.jsonl")
        ingest_paths([tmp_path / "base.jsonl"], base)
        data.replicate_lake(base, lake, hands)
        bench.run_stage("rescore", lake=str(lake), ruleset=RULES)
    r = bench.run_stage("stats", lake=str(lake), ruleset=RULES, repeat=3)
    with capsys.disabled():
        print(f"\nload average {os.getloadavg()}")
        for name, ph in r["phases"].items():
            print(f"{name:18} {ph['rows']:>11,} seat-rows  with connection {ph['seconds']:6.2f} s  query alone "
                  f"{ph['query_seconds']:6.2f} s  peak {ph['peak_rss_mb']:6.0f} MB  ({ph['result_rows']} rows)")


def test_rescore_stage_reports_cpu_per_phase(tmp_path):
    # the bench's rescore stage, in this process over a small lake: the three phases and the whole command, each
    # with CPU seconds; the whole is the three phases' sum, in time and in CPU
    from pipeline.bench.stages import Sampler, stage_rescore

    simulate_to_file(RULES, 3, 2, tmp_path / "sim.jsonl")
    ingest_paths([tmp_path / "sim.jsonl"], tmp_path / "lake")
    hands = lakemod.read(tmp_path / "lake", "hands").num_rows
    with Sampler() as s:
        phases = stage_rescore({"lake": str(tmp_path / "lake"), "ruleset": RULES}, s)
    assert list(phases) == ["hand pass", "game pass", "derived tables", "rescore"]
    assert all(ph["rows"] == hands and ph["cpu_seconds"] > 0 and ph["peak_rss_mb"] > 0 for ph in phases.values())
    parts = [phases[p] for p in ("hand pass", "game pass", "derived tables")]
    assert phases["rescore"]["cpu_seconds"] == pytest.approx(sum(p["cpu_seconds"] for p in parts))
    assert phases["rescore"]["seconds"] == pytest.approx(sum(p["seconds"] for p in parts))
    assert phases["rescore"]["peak_rss_mb"] >= phases["hand pass"]["peak_rss_mb"]   # sampled over all three
