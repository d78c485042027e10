"""Rescoring only what changed (issue 17: ``ingest`` scores the new hands, not the whole lake again).

The expected value of an update is the full rescore of the same lake: ``rescore_lake(..., update=True)`` must
leave, table by table (scores, game results, every derived table), the rows a full rescore writes; a copy of
the lake is rescored in full and the two are compared. The only allowed difference is ``hand_facts.hand_seq``,
which an update leaves null (documented in pipeline/facts/derived.py; ``compare`` then pairs hands by key).
Each case also checks that the update did score only the games it had to, so a test that always fell back to
the full rescore fails.
"""

from __future__ import annotations

import shutil

import orjson
import pyarrow.compute as pc
import pytest


from pipeline.storage import lake_write
from pipeline.facts import derived
from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load, own
from pipeline.simulate.games import simulate

TABLES = ("scores", "game_scores", *derived.STORED)


def _write(path, rules: str, games: int, seed: int, source: str, prefix: str):
    out = []
    for g in simulate(load(rules), games, seed):
        g["source"], g["game_id"] = source, f"{prefix}{g['game_id']}"
        out.append(orjson.dumps(g))
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


def _rows(lake, ruleset: str = "own") -> dict[str, list]:
    out = {}
    for table in TABLES:
        t = lakemod.read(lake, table, filter=pc.field("ruleset") == ruleset)
        if "hand_seq" in t.column_names:
            t = t.drop_columns(["hand_seq"])
        out[table] = sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS, default=str) for r in t.to_pylist())
    return out


def _full_copy(lake, tmp_path, rules=None) -> dict[str, list]:
    copy = tmp_path / "full"
    shutil.copytree(lake, copy)
    summary = rescore_lake(copy, rules or own.plan(copy))
    assert not summary.update
    return _rows(copy, summary.ruleset)


def _hands_of(lake, prefix: str) -> int:
    t = lakemod.read(lake, "hands", columns=["game_id"])
    return sum(1 for g in t.column("game_id").to_pylist() if g.startswith(prefix))


@pytest.fixture
def scored(tmp_path):
    """A lake of a club's belote-classic games and an online source's colver games, scored under own rules."""
    a = _write(tmp_path / "club.jsonl", "belote-classic", 4, 1, "club", "a-")
    b = _write(tmp_path / "online.jsonl", "colver", 3, 2, "online", "b-")
    lake = tmp_path / "lake"
    ingest_paths([a, b], lake)
    assert not rescore_lake(lake, own.plan(lake), update=True).update     # nothing stored yet: a full rescore
    return lake


def test_new_games_of_known_sources_are_scored_alone(scored, tmp_path):
    c = _write(tmp_path / "club2.jsonl", "belote-classic", 2, 3, "club", "c-")
    ingest_paths([c], scored)
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update and summary.hands == _hands_of(scored, "c-") > 0
    assert summary.games == 2
    assert _rows(scored) == _full_copy(scored, tmp_path)
    assert derived.hands_unchanged(scored, "own")           # fresh: the reports do not rescore it again


def test_a_new_source_adds_choices_and_keeps_the_old_games(scored, tmp_path):
    d = _write(tmp_path / "bulgarian.jsonl", "bulgarian", 2, 4, "bg", "d-")
    ingest_paths([d], scored)
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update and summary.hands == _hands_of(scored, "d-")
    assert "bulgarian" in summary.members
    assert _rows(scored) == _full_copy(scored, tmp_path)


def test_a_re_imported_changed_file_replaces_its_games_rows(scored, tmp_path):
    # the club's file again, with its first game dropped and two new ones: the dropped game's hands leave the
    # lake, and with them its score rows, which the update must not keep
    path = tmp_path / "club.jsonl"
    lines = path.read_bytes().splitlines()
    extra = _write(tmp_path / "extra.jsonl", "belote-classic", 2, 5, "club", "e-").read_bytes().splitlines()
    dropped = orjson.loads(lines[0])["game_id"]
    path.write_bytes(b"\n".join(lines[1:] + extra) + b"\n")
    ingest_paths([path], scored)
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update
    after = _rows(scored)
    assert not any(dropped.encode() in r for r in after["scores"] + after["game_scores"])
    assert after == _full_copy(scored, tmp_path)


def test_nothing_new_scores_nothing(scored, tmp_path):
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update and summary.hands == 0 and str(summary).startswith("rescore [own]: up to date")
    assert _rows(scored) == _full_copy(scored, tmp_path)


def test_a_changed_choice_rescores_everything(scored, tmp_path):
    # the online source's games now scored under coincoinche: their rows change, so no update is valid
    own.write_overrides(scored, {"sources": {"online": "coincoinche"}})
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert not summary.update and summary.hands == lakemod.row_count(scored, "hands")


def test_scores_of_an_older_scoring_engine_are_stale_and_rescored_whole(scored):
    # pipeline/engine_version.py: a record without the engine key was written by version 1. Its scores are stale
    # (changed_parameters names the engine first, the report's note and status say so), an update scores every
    # game again, and the new record names this engine
    import json

    from pipeline import engine_version
    from pipeline.stats import report_rules, scored_with

    path = scored / "scores" / "ruleset=own" / "_ruleset.json"
    rec = json.loads(path.read_text())
    assert rec["engine"] == engine_version.ENGINE == 2
    assert scored_with.changed_parameters(scored, own.plan(scored)) == []
    del rec["engine"]
    path.write_text(json.dumps(rec))
    assert scored_with.changed_parameters(scored, own.plan(scored)) == [("scoring_engine", 1, 2)]
    assert report_rules.choose(scored, None).why == ("the rules changed since its last rescore: "
                                                     "scoring engine 1 -> 2")
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert not summary.update and summary.hands == lakemod.row_count(scored, "hands")
    assert json.loads(path.read_text())["engine"] == 2 and report_rules.choose(scored, None).rescore is None


def test_one_ruleset_updates_too_and_an_edited_house_file_does_not(tmp_path, scored):
    house = tmp_path / "house.toml"
    house.write_text('name = "house"\nextends = "belote-classic"\n[game]\ntarget = 1000\n')
    rescore_lake(scored, load(house))
    c = _write(tmp_path / "club3.jsonl", "belote-classic", 1, 6, "club", "f-")
    ingest_paths([c], scored)
    summary = rescore_lake(scored, load(house), update=True)
    assert summary.update and summary.hands == _hands_of(scored, "f-")
    assert _rows(scored, "house") == _full_copy(scored, tmp_path, load(house))
    # the house file edited: the stored rows are not those rules' any more
    house.write_text('name = "house"\nextends = "belote-classic"\n[game]\ntarget = 501\n')
    assert not rescore_lake(scored, load(house), update=True).update


@pytest.mark.parametrize("gone", ["scores", "game_scores", "hands", "one hand"])
def test_stale_rows_are_found_by_joins_not_by_what_ingest_deleted(scored, tmp_path, gone):
    # one game's rows removed from one table by hand: the update must find that game through the keys alone
    # and replace all its rows in every table (a leftover row of it would be counted twice, or for a hand gone)
    gid = sorted(lakemod.read(scored, "games", columns=["game_id"]).column("game_id").to_pylist())[0]
    with lakemod.lock(scored):
        if gone == "one hand":      # the game keeps its other hands and its result row
            keys = lakemod.read(scored, "hands", columns=["hand_key", "game_id"]).filter(pc.field("game_id") == gid)
            lake_write.delete_rows(scored, "hands", "hand_key", {keys.column("hand_key")[0].as_py()})
        else:
            lake_write.delete_rows(scored, gone, "game_id", {gid})
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update and summary.games == (0 if gone == "hands" else 1)
    assert _rows(scored) == _full_copy(scored, tmp_path)


def _table_files(lake) -> dict[str, list]:
    """Every file under the tables a rescore writes (names and bytes): what ingest must leave alone."""
    return {t: sorted((str(p.relative_to(lake)), p.read_bytes()) for p in (lake / t).rglob("*") if p.is_file())
            for t in TABLES if (lake / t).exists()}


def test_ingest_leaves_what_rescore_wrote_and_the_update_finds_an_edited_game_by_its_key(scored, tmp_path):
    """Issue 19: ingest does not delete the rows computed from a game it replaces. A game whose hands are the
    same but whose target changed (1000 -> 500, its own file re-imported) keeps its old rows until the update;
    stale() finds it by its game_key alone (no hand changed), and the update gives the full rescore's rows."""
    before = _table_files(scored)
    path = tmp_path / "club.jsonl"
    lines = path.read_bytes().splitlines()
    game = orjson.loads(lines[1])
    game["target"] = 500
    path.write_bytes(b"\n".join([lines[0], orjson.dumps(game), *lines[2:]]) + b"\n")
    ingest_paths([path], scored)
    assert _table_files(scored) == before                    # scores, game_scores and derived rows untouched
    assert not derived.hands_unchanged(scored, "own")         # the games changed: stale, though no hand did
    from pipeline.rescore import stale
    found = stale.stale(scored, "own")
    assert found.game_ids.to_pylist() == [game["game_id"]]
    summary = rescore_lake(scored, own.plan(scored), update=True)
    assert summary.update and summary.games == 1
    after = _rows(scored)
    assert after == _full_copy(scored, tmp_path)
    keys = lakemod.read(scored, "game_scores", columns=["game_id", "game_key"])
    games = lakemod.read(scored, "games", columns=["game_id", "game_key"])
    assert sorted(zip(*(keys.column(c).to_pylist() for c in ("game_id", "game_key")))) == \
        sorted(zip(*(games.column(c).to_pylist() for c in ("game_id", "game_key"))))


def test_a_report_reading_stale_scores_leaves_the_stale_games_out(scored, tmp_path):
    """When the stored scores are read as they stand while stale (no rescore first), the rows of the games
    re-imported with other content are left out of every table, and every other game is there whole."""
    from pipeline.stats import reports as stats
    path = tmp_path / "club.jsonl"
    lines = path.read_bytes().splitlines()
    game = orjson.loads(lines[0])
    game["target"] = 500
    path.write_bytes(b"\n".join([orjson.dumps(game), *lines[1:]]) + b"\n")
    all_games = set(lakemod.read(scored, "game_scores", columns=["game_id"]).column("game_id").to_pylist())
    ingest_paths([path], scored)
    con = stats.connect(scored)
    try:
        for table in TABLES:
            cols = [c for c in ("game_id", "hand_key") if c in lakemod.read(scored, table).column_names]
            rows = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            stored = lakemod.row_count(scored, table)
            assert 0 < rows < stored, table
            if "game_id" in cols:
                seen = {r[0] for r in con.execute(f"SELECT DISTINCT game_id FROM {table}").fetchall()}
                assert game["game_id"] not in seen and seen | {game["game_id"]} >= all_games - {game["game_id"]}
        got = {r[0] for r in con.execute("SELECT game_id FROM game_scores").fetchall()}
        assert got == all_games - {game["game_id"]}
    finally:
        con.close()


def test_a_result_computed_before_its_game_had_a_games_row_is_stale(scored):
    """A game_scores row with no game_key (its game had no games row when it was computed) is judged stale once
    the game has one: its target and winner may have changed. The rows with a key are judged by it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.rescore import stale

    assert stale.stale(scored, "own").game_ids.to_pylist() == []
    files = list((scored / "game_scores").rglob("*.parquet"))
    t = pq.read_table(files[0], partitioning=None)
    first = t.column("game_id")[0].as_py()
    keys = [None if g == first else k for g, k in zip(t.column("game_id").to_pylist(), t.column("game_key").to_pylist())]
    pq.write_table(t.set_column(t.column_names.index("game_key"), t.schema.field("game_key"),
                                pa.array(keys, pa.string())), files[0])
    assert stale.stale(scored, "own").game_ids.to_pylist() == [first]
