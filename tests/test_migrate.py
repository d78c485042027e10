"""The lake's layout version and ``rebelote migrate`` (pipeline/maintenance/migrate.py, issue 19).

An "old" lake is made the way the code before the version record left one: no ``_lake.json``, and files
written before some column of their schema existed (the column is dropped from the files here), including a
derived table's stored partition (``player_games`` without ``winner``). Writers refuse such a lake with one
clear line; ``migrate`` brings it to the current version in one transaction, stopped at any of its steps
leaves it as before, and the reports read the same before the damage and after the migration.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipeline.storage import commits

from pipeline.maintenance import compaction

from pipeline.facts import derived

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.stats.fairness import fairness_report
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.maintenance.migrate import migrate
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

from test_commit_faults import _Stop, files, state

RULES = load("belote-classic")
#: (table, column) dropped from every file of the table: columns added to the schemas after their first version
DROPPED = [("hands", "taker_team"), ("games", "ingest_file"), ("rejects", "ingest_file"), ("player_games", "winner"),
           ("game_scores", "game_key")]


@pytest.fixture(scope="module")
def current(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("migrate")
    src = d / "games.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(RULES, 4, 7)) + b"\n{\"version\": 1,\n")
    lake = d / "lake"
    ingest_paths([src], lake)
    rescore_lake(lake, RULES)
    return lake


def _reports(lake: Path) -> dict:
    out = {}
    for name in ("players", "contracts", "partnerships", "declarations"):
        t = stats.run_report(lake, name, "belote-classic")
        out[name] = sorted(orjson.dumps(r, default=str) for r in t.to_pylist())
    return out


def _old_keys(lake: Path) -> None:
    """Give every hand and game key another value, the same in every table (each key reversed), as the keys of
    layout versions 1 and 2 differ from those computed over typed columns."""
    for table in ("hands", "games", "scores", "holdings", "player_hands", "pair_hands", "hand_facts",
                  "dealt_events", "declaration_items"):
        for p in (lake / table).rglob("*.parquet"):
            t = pq.read_table(p, partitioning=None)
            for c in ("hand_key", "game_key"):
                if c in t.column_names:
                    old = pa.array([k[::-1] for k in t.column(c).to_pylist()], pa.string())
                    t = t.set_column(t.column_names.index(c), t.schema.field(c), old)
            pq.write_table(t, p)
    # the scores stay fresh: their record names the hand files as they are now (as compact keeps it), and, as a
    # record written before version 4, not the game files
    with lakemod.lock(lake, migrating=True), commits.transaction(lakemod.locate(lake)):
        derived.record_hands(lake, ["belote-classic"])
    for p in (lake / "scores").rglob("_ruleset.json"):
        rec = orjson.loads(p.read_bytes())
        del rec["games_files"]
        p.write_bytes(orjson.dumps(rec))


def _old(current: Path, to: Path) -> Path:
    shutil.copytree(current, to)
    _old_keys(to)
    for table, column in DROPPED:
        for p in (to / table).rglob("*.parquet"):
            pq.write_table(pq.read_table(p, partitioning=None).drop_columns([column]), p)
    (to / lakemod.VERSION_FILE).unlink()
    return to


def test_a_new_lake_records_the_current_version(current):
    assert json.loads((current / lakemod.VERSION_FILE).read_text()) == {"format": "rebelote-lake",
                                                                         "version": lakemod.LAKE_VERSION}
    assert lakemod.version(current) == lakemod.LAKE_VERSION == 10
    s = migrate(current)
    assert (s.before, s.after) == (10, 10) and str(s).endswith("already at layout version 10, nothing to do")


def test_an_old_lake_is_refused_by_every_writer_then_migrated(current, tmp_path):
    lake = _old(current, tmp_path / "old")
    assert lakemod.version(lake) == 1
    for write in (lambda: ingest_paths([], lake), lambda: rescore_lake(lake, RULES),
                  lambda: compaction.compact(lake)):
        with pytest.raises(lakemod.LakeVersionError, match=rf"layout version 1, older than this Rebelote's {lakemod.LAKE_VERSION}: "
                                                            r"run `rebelote migrate --lake .*` once"):
            write()
    s = migrate(lake)
    assert (s.before, s.after) == (1, 10)
    # every file of hands, games, rejects, game_scores was rewritten; the one stored player_games partition dropped
    assert {t: n for t, n in s.rewritten.items() if n} == {"hands": 1, "games": 1, "rejects": 1, "game_scores": 1}
    assert s.results_keyed == 1
    assert {t: n for t, n in s.dropped.items() if n} == {"player_games": 1}
    assert lakemod.version(lake) == 10 and migrate(lake).before == 10
    for table, column in DROPPED[:3]:
        for p in (lake / table).rglob("*.parquet"):
            assert column in pq.read_schema(p).names
    assert not (lake / "player_games").exists() or not list((lake / "player_games").rglob("*.parquet"))
    # the reports are those of the lake before the damage (player_games computed from scores meanwhile)
    assert _reports(lake) == _reports(current)
    ingest_paths([], lake)                   # and writers accept it again
    rescore_lake(lake, RULES)
    assert _reports(lake) == _reports(current)


def test_a_version_2_lake_gets_the_keys_of_its_typed_columns(current, tmp_path):
    """Version 2 -> 3: hand and game keys recomputed (pipeline.formats.content_keys), and every table naming a
    hand gets its new key, so the lake is then exactly the lake this code writes (this lake has no holdings of
    copies left unstored, which keep their old keys: pipeline/maintenance/migrate.py); the scores stay fresh."""
    lake = tmp_path / "v2"
    shutil.copytree(current, lake)
    _old_keys(lake)
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 2}\n')
    assert state(lake) != state(current)
    s = migrate(lake)
    assert (s.before, s.after) == (2, 10) and "keys recomputed from the typed columns" in str(s)
    assert {t for t, n in s.rekeyed.items() if n} >= {"hands", "games", "scores", "holdings", "hand_facts"}
    _same_but_recounted(lake, current)
    assert derived.fresh_rulesets(lake) == ["belote-classic"]
    assert _reports(lake) == _reports(current)


def _same_but_recounted(lake: Path, current: Path, recounted: tuple[str, ...] = ("hand_facts", "player_games")) -> None:
    """``lake``, migrated, reads as ``current`` but for the stored partitions steps 8 -> 9 (belote-rebelote
    counted per team) and 9 -> 10 (no points for a name or pair on both teams) drop (``recounted``): none is
    left, and the reports read the same rows from the views."""
    got, want = state(lake), state(current)
    assert all(got[t] == [] for t in recounted) and all(want[t] for t in recounted)
    for st in (got, want):
        for t in recounted:
            del st[t]
        st["visible"] = [f for f in st["visible"] if not f.startswith(tuple(f"/{t}/" for t in recounted))]
    assert got == want and _reports(lake) == _reports(current)


def _version_3(current: Path, to: Path) -> Path:
    """``current`` as layout version 3 left it: game results without the key of their game, rescore records
    naming the hand files only."""
    shutil.copytree(current, to)
    for p in (to / "game_scores").rglob("*.parquet"):
        pq.write_table(pq.read_table(p, partitioning=None).drop_columns(["game_key"]), p)
    for p in (to / "scores").rglob("_ruleset.json"):
        rec = orjson.loads(p.read_bytes())
        del rec["games_files"]
        p.write_bytes(orjson.dumps(rec))
    (to / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 3}\n')
    return to


def test_a_version_3_lake_keys_its_game_results_and_stays_fresh(current, tmp_path):
    """Version 3 -> 4: each game_scores row gets its game's game_key (the key stale() compares), and a ruleset
    that was fresh (its record named the current hand files) stays fresh with the game files recorded too."""
    lake = _version_3(current, tmp_path / "v3")
    assert derived.fresh_rulesets(lake) == []        # version 4's test wants the game files too
    s = migrate(lake)
    assert (s.before, s.after, s.results_keyed) == (3, 10, 1) and "game results keyed by the game" in str(s)
    _same_but_recounted(lake, current)
    assert derived.fresh_rulesets(lake) == ["belote-classic"]
    keys = pq.read_table(next((lake / "game_scores").rglob("*.parquet")), partitioning=None)
    games = lakemod.read(lake, "games", columns=["game_id", "game_key"])
    assert dict(zip(*(keys.column(c).to_pylist() for c in ("game_id", "game_key")))) == \
        dict(zip(*(games.column(c).to_pylist() for c in ("game_id", "game_key"))))


def test_readers_refuse_an_old_lake_until_it_is_migrated(current, tmp_path):
    """Reports read every column as written (no fallback for a column an older lake lacks): `stats`, `show` and
    the exports refuse a lake of an older layout with the command to run, and read it once migrated."""
    lake = _old(current, tmp_path / "old")
    with pytest.raises(stats.StatsError, match=rf"layout version 1, older than this Rebelote's {lakemod.LAKE_VERSION}: run `rebelote "
                                                r"migrate --lake .*` once, then read it"):
        stats.connect(lake)
    game = lakemod.read(current, "games", columns=["game_id"]).column("game_id")[0].as_py()
    for args in (["stats", "players", "--rules", "belote-classic"], ["games"], ["show", "--game", game, "--hand", "1"],
                 ["export", "jsonl", "--output", str(tmp_path / "out.jsonl")]):
        r = CliRunner().invoke(app, [*args, "--lake", str(lake)])
        assert r.exit_code == 2 and "run `rebelote migrate --lake" in r.output and "Traceback" not in r.output, args
    migrate(lake)
    assert _reports(lake) == _reports(current)


def test_a_newer_lake_is_refused(current, tmp_path):
    lake = tmp_path / "newer"
    shutil.copytree(current, lake)
    newer = lakemod.LAKE_VERSION + 1
    (lake / lakemod.VERSION_FILE).write_text(f'{{"format": "rebelote-lake", "version": {newer}}}\n')
    with pytest.raises(lakemod.LakeVersionError, match=f"layout version {newer}, written by a newer Rebelote"):
        ingest_paths([], lake)
    with pytest.raises(lakemod.LakeVersionError, match=f"layout version {newer}, written by a newer Rebelote"):
        migrate(lake)
    (lake / lakemod.VERSION_FILE).write_text('{"version": "two"}')
    with pytest.raises(lakemod.LakeVersionError, match="does not hold a lake version"):
        lakemod.version(lake)


def test_the_commands_say_it_in_one_line(current, tmp_path):
    lake = _old(current, tmp_path / "old")
    r = CliRunner().invoke(app, ["rescore", "--rules", "belote-classic", "--lake", str(lake)])
    assert r.exit_code == 2 and "run `rebelote migrate --lake" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["migrate", "--lake", str(lake)])
    assert r.exit_code == 0 and "migrated from layout version 1 to 10; 4 files rewritten" in r.output
    r = CliRunner().invoke(app, ["migrate", "--lake", str(lake)])
    assert r.exit_code == 0 and "nothing to do" in r.output


def test_migrate_stopped_at_every_step_leaves_the_lake_as_before(current, tmp_path):
    start = _old(current, tmp_path / "start")

    def seen(lake):
        return state(lake), lakemod.version(lake)
    before = seen(start)
    clean = tmp_path / "clean"
    shutil.copytree(start, clean)
    trace = _Stop()
    with commits.faults(trace):
        migrate(clean)
    after, after_files = seen(clean), files(clean)
    steps = trace.labels
    assert steps[0] == "begin" and "commit" in steps and after != before
    for k in range(1, len(steps) + 1):
        lake = tmp_path / f"at-{k}"
        shutil.copytree(start, lake)
        with pytest.raises(commits.FaultInjected), commits.faults(_Stop(k)):
            migrate(lake)
        assert seen(lake) == (after if k > steps.index("commit") + 1 else before), (k, steps[k - 1])
        migrate(lake)
        assert seen(lake) == after and files(lake) == after_files, (k, steps[k - 1])
        shutil.rmtree(lake)


@pytest.mark.parametrize("version, tables", [(5, ("player_hands", "pair_hands", "dealt_events")),
                                             (6, ("dealt_events",))])
def test_an_older_lake_drops_the_tables_no_longer_stored(current, tmp_path, version, tables):
    # Version 5 stored player_hands, pair_hands and dealt_events; version 6 computes the first two from hands and
    # scores, version 7 the third from hands (pipeline/facts/derived.py STORED). An older lake's partitions of
    # them, here holding every row twice, are dropped by migrate: afterwards the views give the rows their SQL
    # gives (those of the current lake, which never stored them), and no report changes.
    lake = tmp_path / f"v{version}"
    shutil.copytree(current, lake)
    con = stats.connect(current)
    try:
        want = {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
        rows = {t: con.sql(f"SELECT * FROM {t}").to_arrow_table() for t in tables}
    finally:
        con.close()
    assert all(want.values())
    assert not any((current / t).exists() for t in tables)
    for t, table in rows.items():
        folder = lake / t / "ruleset=belote-classic"
        folder.mkdir(parents=True)
        pq.write_table(pa.concat_tables([table, table]).drop_columns(["ruleset"]), folder / "part-00000.parquet")
    (lake / lakemod.VERSION_FILE).write_text(f'{{"format": "rebelote-lake", "version": {version}}}\n')
    with pytest.raises(stats.StatsError, match=f"older than this Rebelote's {lakemod.LAKE_VERSION}"):
        stats.connect(lake)
    s = migrate(lake)
    assert (s.before, s.after, s.unstored) == (version, 10, {t: 1 for t in tables})
    listed = ", ".join(f"{t} 1" for t in tables)
    assert (f"{len(tables)} stored partition{'s' if len(tables) > 1 else ''} of tables no longer stored dropped "
            f"({listed})") in str(s)
    assert not any(list((lake / t).rglob("*.parquet")) for t in tables)
    con = stats.connect(lake)
    try:
        assert {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in want} == want
    finally:
        con.close()
    assert _reports(lake) == _reports(current)
    assert fairness_report(lake).equals(fairness_report(current))


def test_a_version_7_lake_drops_the_player_games_written_without_coinches_decided(current, tmp_path):
    # Version 8 adds player_games.coinches_decided (the players report's coinches_won_of denominator). A version 7
    # lake's stored partition lacks it: migrate drops that partition (the view computes the rows until the next
    # rescore), reports read as on the current lake, and the rescore writes the partition again.
    lake = tmp_path / "v7"
    shutil.copytree(current, lake)
    for p in (lake / "player_games").rglob("*.parquet"):
        pq.write_table(pq.read_table(p, partitioning=None).drop_columns(["coinches_decided"]), p)
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 7}\n')
    s = migrate(lake)
    assert (s.before, s.after) == (7, lakemod.LAKE_VERSION) and {t: n for t, n in s.completed.items() if n} == {"player_games": 1}
    assert ("1 stored partition of derived tables written before a column was added dropped (player_games 1)"
            in str(s))
    assert not list((lake / "player_games").rglob("*.parquet"))
    assert _reports(lake) == _reports(current)
    rescore_lake(lake, RULES)
    assert list((lake / "player_games").rglob("*.parquet")) and _reports(lake) == _reports(current)


def test_a_version_8_lake_drops_the_partitions_counted_anew(current, tmp_path):
    # Version 9 counts belote-rebelote per team (a hand where both teams hold one, in all-trump, counts for both:
    # hand_facts.belote_teams, player_games.team_belotes). A version 8 lake's stored hand_facts and player_games
    # partitions were written with the old count: migrate drops them, the reports read as on the current lake
    # (the views compute the rows), and the next rescore writes them again.
    lake = tmp_path / "v8"
    shutil.copytree(current, lake)
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 8}\n')
    s = migrate(lake)
    # step 9 -> 10 keeps pair_games: no hand of this lake seats a name twice
    assert (s.before, s.after, s.recounted) == (8, 10, {"hand_facts": 1, "player_games": 1})
    assert "2 stored partitions of derived tables counted anew dropped (hand_facts 1, player_games 1)" in str(s)
    _same_but_recounted(lake, current, ("hand_facts", "player_games"))
    # the next rescore is a whole one: an update would write the touched games' rows alone into the dropped
    # partitions, and the views would read them as every row (a review found it)
    from pipeline.rescore import stale
    assert stale.updatable(current, RULES) and not stale.updatable(lake, RULES)
    rescore_lake(lake, RULES)
    assert state(lake) == state(current)


def test_a_version_9_lake_drops_the_game_rows_only_where_a_hand_repeats_a_name(current, tmp_path):
    # Version 10 gives a name (a pair) seated on both teams of a hand no points in it (its lowest seat's team's
    # points were counted as its own before). Only hands that seat a name twice change: a version 9 lake whose
    # hands all seat distinct names (the simulated one) keeps its tables and reads as before; one with a bot
    # seated on both teams has its stored player_games and pair_games dropped, reads as the current code computes
    # it, and is rescored whole next.
    from pipeline.rescore import stale
    lake = tmp_path / "v9"
    shutil.copytree(current, lake)
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 9}\n')
    s = migrate(lake)
    assert (s.before, s.after, s.recounted) == (9, 10, {})
    assert state(lake) == state(current) and stale.updatable(lake, RULES)

    bots = tmp_path / "bots"
    src = tmp_path / "bots.jsonl"
    games = list(simulate(RULES, 1, 3))
    games[0]["players"] = ["Bot", "Bot", games[0]["players"][2], games[0]["players"][3]]   # Bot on both teams
    src.write_bytes(b"\n".join(orjson.dumps(g) for g in games) + b"\n")
    ingest_paths([src], bots)
    rescore_lake(bots, RULES)
    now = tmp_path / "bots-now"
    shutil.copytree(bots, now)
    (bots / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 9}\n')
    s = migrate(bots)
    assert (s.before, s.after, s.recounted) == (9, 10, {"player_games": 1, "pair_games": 1})
    _same_but_recounted(bots, now, ("player_games", "pair_games"))
    assert not stale.updatable(bots, RULES)
    rescore_lake(bots, RULES)
    assert state(bots) == state(now)
