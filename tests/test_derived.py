"""Tests of pipeline/facts/derived.py: which hand files a rescore covered, and what that tells ``stats``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import rules

from pipeline.maintenance import compaction

from pipeline.facts import derived

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake

from test_ingest import DEAL_A, good_games, native_game, native_hand, write_jsonl


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    lake = tmp_path / "lake"
    g1, g2 = good_games()
    ingest_paths([write_jsonl(tmp_path / "a.jsonl", [g1])], lake)     # two hand files
    ingest_paths([write_jsonl(tmp_path / "b.jsonl", [g2])], lake)
    rescore_lake(lake, rules.load("belote-classic"))
    return lake


def test_rescore_records_the_hand_files_it_read(lake: Path, tmp_path: Path, monkeypatch):
    assert derived.hands_unchanged(lake, "belote-classic")
    assert not derived.hands_unchanged(lake, "colver")          # never rescored under it
    # every hand scored: answered from the record alone, without opening the lake's tables
    with monkeypatch.context() as m:
        m.setattr(stats, "connect", lambda *a, **k: pytest.fail("unscored_hands read the tables"))
        assert stats.unscored_hands(lake, "belote-classic") == 0
    # compact rewrites the hand files but keeps every hand: the record follows
    assert len(lakemod.list_files(lake, "hands")) == 2
    compaction.compact(lake, ["hands", "scores"])
    assert len(lakemod.list_files(lake, "hands")) == 1
    assert derived.hands_unchanged(lake, "belote-classic")
    # so does compacting the games alone (the record names the game files too: layout version 4)
    compaction.compact(lake, ["games"])
    assert derived.hands_unchanged(lake, "belote-classic")
    # one more game imported after the rescore: the record no longer matches, and the hands are counted
    # (good_games() holds 3 hands; the new game 1)
    def contracts() -> int:
        return sum(stats.run_report(lake, "contracts", "belote-classic").column("contracts").to_pylist())
    taken = contracts()
    ingest_paths([write_jsonl(tmp_path / "more.jsonl", [native_game("g9", [native_hand(DEAL_A, 1, taker=0)])])], lake)
    assert not derived.hands_unchanged(lake, "belote-classic")
    assert stats.unscored_hands(lake, "belote-classic") == 1
    # the written tables leave the new hand out until the next rescore (the CLI warns), which covers it again
    assert contracts() == taken
    rescore_lake(lake, rules.load("belote-classic"))
    assert derived.hands_unchanged(lake, "belote-classic") and stats.unscored_hands(lake, "belote-classic") == 0
    assert contracts() == taken + 1           # g9's hand has a taker (seat 0)


def test_materialize_writes_every_derived_table(lake: Path):
    # good_games(): 2 four-player games of 3 hands in all (test_ingest.good_games), each hand with 4 names
    written = derived.materialize(lake, "belote-classic")
    hands = lakemod.read(lake, "hands").num_rows
    assert written["hand_facts"] == hands == 3
    assert written["player_games"] == 4 * 2 and written["pair_games"] == 2 * 2
    for name, n in written.items():
        assert lakemod.read(lake, name).num_rows == n, name
    # player_hands and pair_hands are not stored (derived.STORED): the views compute them, four distinct names
    # and two pairs per 4-player hand
    assert set(written) == set(derived.STORED) == set(derived.DERIVED) - {"player_hands", "pair_hands", "dealt_events"}
    assert not lakemod.has_table(lake, "player_hands") and not lakemod.has_table(lake, "pair_hands")
    con = stats.connect(lake)
    try:
        assert con.execute("SELECT count(*) FROM player_hands").fetchall() == [(4 * hands,)]
        assert con.execute("SELECT count(*) FROM pair_hands").fetchall() == [(2 * hands,)]
    finally:
        con.close()


def test_rescore_without_derived_tables_removes_the_stored_ones(tmp_path: Path):
    # `rescore --no-derived`: the ruleset's derived partitions go (stale ones must not be read), the other
    # ruleset's stay, and every report gives the same rows from the on-the-fly path
    import shutil

    from helpers import simulated_lake

    lake = simulated_lake(tmp_path / "lake")
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    rescore_lake(copy, rules.load("belote-classic"), derived=False)
    for name in derived.STORED:
        assert lakemod.partitions(copy, name) == ["ruleset=colver"], name
    for report in ("players", "partnerships", "contracts", "declarations", "declaration_kinds"):
        assert (stats.run_report(copy, report, "belote-classic").to_pylist()
                == stats.run_report(lake, report, "belote-classic").to_pylist()), report


def test_materialize_reads_hand_files_older_than_a_column(lake: Path):
    # hand files written before hands.taker_team existed (the 5 M bench lake's): the derived tables are
    # written, reading the column as null, and equal those of the same hands with the column present (it is
    # null in every hand of good_games(): their taker is a seat, not a team)
    import pyarrow.parquet as pq

    def rows(name):      # in a full order: several rows share a game (one per player or pair)
        return sorted(lakemod.read(lake, name).to_pylist(), key=lambda r: repr(sorted(r.items())))

    before = {name: rows(name) for name in derived.STORED}
    for f in lakemod.list_files(lake, "hands"):
        pq.write_table(pq.read_table(f.path).drop_columns(["taker_team"]), f.path)
    written = derived.materialize(lake, "belote-classic")
    assert written["hand_facts"] == 3 and written["player_games"] == 8       # 2 games, 4 names each
    for name in derived.STORED:
        assert rows(name) == before[name], name


def test_game_tables_carry_the_winner(tmp_path: Path):
    # player_games and pair_games carry game_scores.winner, so that players and partnerships read no game_scores
    import pyarrow.parquet as pq
    from helpers import simulated_lake

    lake = simulated_lake(tmp_path / "lake")          # belote-classic (4 games) and colver (2 games)
    con = stats.connect(lake)
    try:
        for table in ("player_games", "pair_games"):
            differ = con.execute(f"SELECT count(*), count_if(p.winner IS DISTINCT FROM g.winner) FROM {table} p "
                                 "LEFT JOIN game_scores g USING (ruleset, game_id)").fetchall()[0]
            assert differ[0] > 0 and differ[1] == 0, table
        sql = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'player_games'").fetchone()[0]
        assert "game_scores" not in sql
        assert con.execute("SELECT count(DISTINCT winner) FROM player_games").fetchall()[0][0] == 2   # teams 0, 1
    finally:
        con.close()
    reports = ("players", "partnerships")
    before = {(r, rs): stats.run_report(lake, r, rs).to_pylist() for r in reports for rs in ("belote-classic", "colver")}
    assert all(before.values())
    # partitions written before the column (a layout version 4 lake): refused until migrated, which drops them;
    # the views then add those games up from player_hands / pair_hands, with the same report rows
    from pipeline.maintenance.migrate import migrate

    for table in ("player_games", "pair_games"):
        for f in (lake / table / "ruleset=colver").glob("*.parquet"):
            pq.write_table(pq.read_table(f).drop_columns(["winner"]), f)
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 4}\n')
    with pytest.raises(stats.StatsError, match="run `rebelote migrate"):
        stats.connect(lake)
    s = migrate(lake)
    assert {t: n for t, n in s.completed.items() if n} == {"player_games": 1, "pair_games": 1}
    assert "2 stored partitions of derived tables written before a column was added dropped" in str(s)
    assert {(r, rs): stats.run_report(lake, r, rs).to_pylist() for r in reports for rs in ("belote-classic", "colver")} == before
