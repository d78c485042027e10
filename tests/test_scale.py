"""Scale: lakes addressed by URL, compaction, the streamed game pass and export, the Ray engine, bench helpers.

Expected values are counted by hand from the inputs the tests build (files, rows, row groups), or are the
local engine's own output (the URL and Ray paths must reproduce it exactly)."""

import importlib.util
import socket
import sys
import uuid
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner


from pipeline.storage import lake_write
from pipeline.maintenance import compaction
from pipeline.storage import lake as lakemod
from pipeline.storage import schema
from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import game_pass, rescore_lake
from pipeline.rescore.sorted_games import game_results
from pipeline.rules import load
from pipeline.simulate.games import simulate_to_file

runner = CliRunner()
RULES = "belote-classic"


def sorted_table(lake, table, key):
    """A table's rows in key order (tables compared as sets of rows)."""
    t = lakemod.read(lake, table)
    return t.sort_by([(k, "ascending") for k in key])


@pytest.fixture(scope="module")
def sim_files(tmp_path_factory):
    """Three native files of simulated classic games (seeds 1, 2, 3: distinct game ids)."""
    d = tmp_path_factory.mktemp("sim")
    files, hands = [], 0
    for seed in (1, 2, 3):
        f = d / f"sim-{seed}.jsonl"
        _, h = simulate_to_file(RULES, 12, seed, f)
        files.append(f)
        hands += h
    return files, hands


def small_lake(path, files):
    for f in files:                       # one ingest per file: one Parquet file per import and partition
        ingest_paths([f], path)
    return path


def test_compact_keeps_rows_reports_and_idempotent_reingest(tmp_path, sim_files):
    files, n_hands = sim_files
    lake = small_lake(tmp_path / "lake", files)
    rules = load(RULES)
    rescore_lake(lake, rules)
    # 3 imports -> 3 files in hands/source=simulate and in games/source=simulate
    assert len(lakemod.list_files(lake, "hands")) == 3 and len(lakemod.list_files(lake, "games")) == 3
    before = {t: sorted_table(lake, t, [k]) for t, k in
              (("hands", "hand_key"), ("games", "game_key"), ("scores", "hand_key"), ("game_scores", "game_id"))}
    report = stats.run_report(lake, "players", RULES)

    summary = compaction.compact(lake)
    # three partitions had several files (hands and games of source=simulate, and the ingest's holdings, one
    # row per hand each file holds): 9 files become 3
    assert (summary.partitions, summary.files_before, summary.files_after) == (3, 9, 3)
    assert summary.rows == n_hands + 36 + n_hands  # every hand, 3 x 12 games, every hand's holding
    assert len(lakemod.list_files(lake, "hands")) == 1
    for t, k in (("hands", "hand_key"), ("games", "game_key"), ("scores", "hand_key"), ("game_scores", "game_id")):
        assert sorted_table(lake, t, [k]).equals(before[t]), t
    assert stats.run_report(lake, "players", RULES).equals(report)
    assert not lakemod.list_files(lake, "_staging")   # nothing left aside
    # the scores partition kept its _ruleset.json
    assert (lake / "scores" / f"ruleset={RULES}" / "_ruleset.json").exists()
    # re-ingest: the manifest skips the unchanged files; re-reading them finds only duplicates
    s = ingest_paths(files, lake)
    assert (s.hands, s.unchanged) == (0, 3)
    s = ingest_paths(files, lake, reread=True)
    assert (s.hands, s.duplicates) == (0, n_hands)
    # a second compaction finds nothing to do
    assert compaction.compact(lake).partitions == 0
    # and rescoring the compacted lake gives the same scores
    rescore_lake(lake, rules)
    assert sorted_table(lake, "scores", ["hand_key"]).equals(before["scores"])


def test_compact_command(tmp_path, sim_files):
    files, _ = sim_files
    lake = small_lake(tmp_path / "lake", files[:2])
    r = runner.invoke(app, ["compact", "--lake", str(lake), "--table", "hands"])
    assert r.exit_code == 0, r.output
    assert "compact: 1 partition rewritten, 2 files -> 1" in r.stdout
    assert len(lakemod.list_files(lake, "games")) == 2      # --table hands left games alone
    r = runner.invoke(app, ["compact", "--lake", str(lake), "--table", "nope"])
    assert r.exit_code == 2 and "unknown table 'nope'" in r.stderr


def test_rolling_writer_row_groups_and_files(tmp_path):
    loc = lakemod.locate(tmp_path)
    sch = pa.schema([("x", pa.int64())])
    # 10 tables of 1,000 rows, row groups of 2,500 rows: 4 row groups of 2,500
    w = lake_write.RollingWriter(loc, str(tmp_path / "one"), sch, row_group=2500)
    for i in range(10):
        w.write(pa.table({"x": pa.array(range(i * 1000, (i + 1) * 1000), pa.int64())}))
    paths = w.close()
    assert len(paths) == 1
    meta = pq.ParquetFile(paths[0]).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [2500] * 4
    assert pq.read_table(paths[0]).column("x").to_pylist() == list(range(10_000))
    # a file size limit of 1 byte closes each file after its first row group: 4 files
    w = lake_write.RollingWriter(loc, str(tmp_path / "many"), sch, row_group=2500, file_bytes=1)
    for i in range(10):
        w.write(pa.table({"x": pa.array(range(i * 1000, (i + 1) * 1000), pa.int64())}))
    paths = w.close()
    assert [pq.ParquetFile(p).metadata.num_rows for p in paths] == [2500] * 4


def test_streamed_game_pass_matches_the_in_memory_one(tmp_path, sim_files):
    files, _ = sim_files
    lake = small_lake(tmp_path / "lake", files)
    rules = load(RULES)
    rescore_lake(lake, rules)
    whole = game_pass(lakemod.read(lake, "scores"), rules)
    # batches of 7 score rows: most games (about 10 hands each) straddle a batch boundary
    streamed = pa.concat_tables(list(game_results(lake, rules, batch_rows=7))).sort_by("game_id")
    assert streamed.num_rows == 36
    # the streamed pass also gives each row its game's key (the in-memory pass has no games table to read it from)
    keys = dict(zip(*(lakemod.read(lake, "games", columns=["game_id", "game_key"]).column(c).to_pylist()
                      for c in ("game_id", "game_key"))))
    assert streamed.column("game_key").to_pylist() == [keys[g] for g in streamed.column("game_id").to_pylist()]
    assert streamed.drop_columns(["game_key"]).equals(whole.sort_by("game_id").drop_columns(["game_key"]))


def test_export_is_the_same_whatever_the_batch(tmp_path, sim_files):
    import io

    from pipeline.report.export import export_jsonl
    files, n_hands = sim_files
    lake = small_lake(tmp_path / "lake", files)
    a, b = io.BytesIO(), io.BytesIO()
    assert export_jsonl(lake, a) == (36, n_hands)
    assert export_jsonl(lake, b, batch_rows=5) == (36, n_hands)
    assert a.getvalue() == b.getvalue()


def test_file_url_lake_ingest_rescore_stats(tmp_path, sim_files):
    files, n_hands = sim_files
    plain = small_lake(tmp_path / "plain", files)
    url = "file://" + str(tmp_path / "url-lake")
    for f in files:
        ingest_paths([f], url)
    rules = load(RULES)
    a, b = rescore_lake(plain, rules), rescore_lake(url, rules)
    assert (b.hands, b.games, b.matches) == (a.hands, a.games, a.matches) == (n_hands, 36, n_hands)
    assert (tmp_path / "url-lake" / "hands" / "source=simulate").is_dir()     # the files landed on disk
    for t, k in (("hands", "hand_key"), ("scores", "hand_key"), ("game_scores", "game_id")):
        assert sorted_table(url, t, [k]).equals(sorted_table(plain, t, [k])), t
    assert stats.run_report(url, "players", RULES).equals(stats.run_report(plain, "players", RULES))
    # the command line takes the URL as it is (a Path would fold 'file:///' to 'file:/')
    r = runner.invoke(app, ["stats", "contracts", "--lake", url, "--format", "csv"])
    assert r.exit_code == 0, r.output
    r2 = runner.invoke(app, ["stats", "contracts", "--lake", str(plain), "--format", "csv"])
    assert r.stdout == r2.stdout
    s = ingest_paths(files, url)        # the manifest works through the URL too
    assert s.unchanged == 3


@pytest.mark.skipif(importlib.util.find_spec("fsspec") is None, reason="fsspec is not installed (optional)")
def test_object_store_code_path_on_fsspec_memory(tmp_path, sim_files):
    """memory:// goes through every non-local branch: no lock (a warning), files moved one by one on swap,
    DuckDB reading pyarrow datasets instead of its own Parquet reader."""
    files, n_hands = sim_files
    url = f"memory://rebelote-test-{uuid.uuid4().hex}/lake"
    with pytest.warns(lakemod.LakeWarning, match="no lock is taken"):
        for f in files:
            ingest_paths([f], url)
    rules = load(RULES)
    plain = small_lake(tmp_path / "plain", files)
    rescore_lake(plain, rules)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lakemod.LakeWarning)
        s = rescore_lake(url, rules)
        assert (s.hands, s.matches, s.games_matched) == (n_hands, n_hands, 36)
        rescore_lake(url, rules)                 # replacing a partition on object storage
        assert sorted_table(url, "scores", ["hand_key"]).equals(sorted_table(plain, "scores", ["hand_key"]))
        assert stats.run_report(url, "players", RULES).equals(stats.run_report(plain, "players", RULES))
        c = compaction.compact(url)
        assert (c.files_before, c.files_after) == (9, 3)    # hands, games and holdings: 3 imports each
        assert sorted_table(url, "hands", ["hand_key"]).equals(sorted_table(plain, "hands", ["hand_key"]))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _moto_server_skip() -> str | None:
    """Why the S3 test cannot run here, or None."""
    if importlib.util.find_spec("moto") is None or importlib.util.find_spec("flask") is None:
        return "moto[server] is not installed (optional: pip install 'rebelote[s3test]')"
    from importlib.metadata import version
    v = tuple(int(x) for x in version("moto").split(".")[:3] if x.isdigit())
    if (5, 2, 0) <= v < (5, 2, 5):
        # getmoto/moto issue #10055: a wrong XML root in CompleteMultipartUpload, which pyarrow's S3 client rejects
        return f"moto {version('moto')} answers CompleteMultipartUpload wrongly (getmoto/moto#10055); needs >= 5.2.5"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_moto_server_skip() is not None, reason=str(_moto_server_skip()))
def test_s3_lake_on_a_local_moto_server(tmp_path, sim_files, monkeypatch):
    """An s3:// lake on moto's S3 server (loopback only): ingest, rescore, stats, compact."""
    from moto.server import ThreadedMotoServer
    import pyarrow.fs as pafs

    files, n_hands = sim_files
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                     "AWS_DEFAULT_REGION": "us-east-1"}.items():
            monkeypatch.setenv(k, v)
        pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", region="us-east-1",
                          allow_bucket_creation=True).create_dir("lake-bucket")
        url = f"s3://lake-bucket/lake?endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lakemod.LakeWarning)
            for f in files:
                ingest_paths([f], url)
            rules = load(RULES)
            s = rescore_lake(url, rules)
            assert (s.hands, s.matches, s.games_matched) == (n_hands, n_hands, 36)
            plain = small_lake(tmp_path / "plain", files)
            rescore_lake(plain, rules)
            assert stats.run_report(url, "players", RULES).equals(stats.run_report(plain, "players", RULES))
            assert compaction.compact(url).files_after == 2
            assert sorted_table(url, "hands", ["hand_key"]).equals(sorted_table(plain, "hands", ["hand_key"]))
    finally:
        server.stop()


def test_bad_url_is_named(tmp_path):
    r = runner.invoke(app, ["rescore", "--rules", RULES, "--lake", "nosuchscheme://x/y"])
    assert r.exit_code == 2 and "nosuchscheme://x/y" in r.stderr


def test_engine_ray_without_ray_names_the_extra(tmp_path, sim_files, monkeypatch):
    files, _ = sim_files
    lake = small_lake(tmp_path / "lake", files[:1])
    monkeypatch.setitem(sys.modules, "ray", None)        # `import ray` now raises ImportError
    r = runner.invoke(app, ["rescore", "--rules", RULES, "--lake", str(lake), "--engine", "ray"])
    assert r.exit_code == 2
    assert "pip install -e '.[ray]' in the rebelote checkout" in r.stderr
    r = runner.invoke(app, ["rescore", "--rules", RULES, "--lake", str(lake), "--engine", "spark"])
    assert r.exit_code == 2 and "unknown engine 'spark'; engines: local, ray" in r.stderr


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed (optional extra: "
                    "pip install -e '.[ray]')")
def test_ray_engine_gives_the_local_engine_results(tmp_path, sim_files):
    import ray

    files, n_hands = sim_files
    lake = small_lake(tmp_path / "lake", files)
    rules = load(RULES)
    local = rescore_lake(lake, rules)
    expected = {t: sorted_table(lake, t, [k]) for t, k in (("scores", "hand_key"), ("game_scores", "game_id"))}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        # small batches: several Ray tasks, each running score_batch on its own slice
        remote = rescore_lake(lake, rules, batch_size=50, engine="ray")
    finally:
        ray.shutdown()
    assert (remote.hands, remote.status, remote.illegal, remote.matches, remote.games, remote.games_matched) == \
        (local.hands, local.status, local.illegal, local.matches, local.games, local.games_matched)
    assert remote.hands == n_hands
    for t, k in (("scores", "hand_key"), ("game_scores", "game_id")):
        assert sorted_table(lake, t, [k]).equals(expected[t]), t


def test_iter_batches_fills_partitions_and_missing_columns(tmp_path):
    """A file written before a column existed (here: games without `target`) reads it as null; the partition
    column comes from the folder name; batches keep the file's row order."""
    sch = schema.schema("games")
    row = {"game_id": "g1", "source_format": "rebelote", "source_file": "f.jsonl", "source_game_id": "1",
           "variant": "belote", "ruleset_hint": None, "n_players": 4, "players": ["a", "b", "c", "d"], "n_hands": 1,
           "target": 1000, "recorded_final": None, "recorded_winner": None, "game_key": "k1"}
    rows = [dict(row, game_id=f"g{i}", game_key=f"k{i}") for i in range(5)]
    file_schema = sch.remove(sch.get_field_index("source")).remove(sch.get_field_index("target") - 1)
    part = tmp_path / "games" / "source=club-7"
    part.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{k: v for k, v in r.items() if k != "target"} for r in rows],
                                        schema=file_schema), part / "part-old.parquet")
    batches = list(lakemod.iter_batches(tmp_path, "games", batch_size=2))
    assert [b.num_rows for b in batches] == [2, 2, 1]
    t = pa.Table.from_batches(batches)
    assert t.schema.equals(sch)
    assert t.column("game_id").to_pylist() == ["g0", "g1", "g2", "g3", "g4"]
    assert t.column("source").to_pylist() == ["club-7"] * 5
    assert t.column("target").null_count == 5


def test_threaded_rescore_writes_the_same_scores(tmp_path, sim_files):
    files, n_hands = sim_files
    lake = small_lake(tmp_path / "lake", files)
    rules = load(RULES)
    one = rescore_lake(lake, rules, batch_size=50)
    first = lakemod.read(lake, "scores")
    two = rescore_lake(lake, rules, batch_size=50, threads=2)     # batches of 50 hands: several in flight at once
    assert (two.hands, two.matches, two.games_matched) == (one.hands, one.matches, one.games_matched) == \
        (n_hands, n_hands, 36)
    assert lakemod.read(lake, "scores").equals(first)              # same rows, same order


def test_ordered_map_keeps_order_with_threads():
    from pipeline.rescore import ordered_map
    assert list(ordered_map(lambda x: x * x, range(10), 3)) == [x * x for x in range(10)]
