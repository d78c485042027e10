"""Each game under its own rules (issue 17): the choice per game, and scores under ``own`` that are exactly each
game's scores under its own ruleset.

The expected values are the one-ruleset rescores of the same lake (``rescore --rules belote-classic`` for the
club's games, ``--rules colver`` for the online ones): ``own`` must give, row for row, what the ruleset each game
names gives it; a split by the wrong game, or one ruleset applied to all, changes the rows.
"""

from __future__ import annotations

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from typer.testing import CliRunner

from helpers import simulated_lake
from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.rescore import rescore_lake
from pipeline.rules import RulesetError, own


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    # club: 4 belote-classic games; online: 2 colver games (each game's ruleset_hint names its ruleset)
    path = simulated_lake(tmp_path_factory.mktemp("own") / "lake")
    summary = rescore_lake(path, own.plan(path))
    assert summary.members == {"belote-classic", "colver"} and summary.other_rules == 0
    return path


def _rows(lake, table, ruleset, source):
    t = lakemod.read(lake, table, filter=(pc.field("ruleset") == ruleset) & (pc.field("source") == source))
    t = t.drop_columns(["ruleset"])
    return t.sort_by([(c, "ascending") for c in ("game_id", "hand_no") if c in t.column_names]).to_pylist()


@pytest.mark.parametrize("table", ["scores", "game_scores"])
def test_own_scores_are_each_games_scores_under_its_own_ruleset(lake, table):
    for source, ruleset in (("club", "belote-classic"), ("online", "colver")):
        mine = _rows(lake, table, "own", source)
        assert mine and mine == _rows(lake, table, ruleset, source), (table, source)
    # and the two rulesets do differ on these games: under colver the club's belote hands are not scorable
    assert _rows(lake, "scores", "colver", "club") != _rows(lake, "scores", "belote-classic", "club")


def test_the_choice_per_game_and_why(lake):
    p = own.plan(lake)
    assert [(c.source, c.variant, c.hint, c.ruleset, c.why, c.games) for c in p.choices] == [
        ("club", "belote", "belote-classic", "belote-classic", "named by the records", 4),
        ("online", "coinche", "colver", "colver", "named by the records", 2)]
    gid = lakemod.read(lake, "games", columns=["game_id", "source"]).to_pylist()
    got = p.ruleset_of(pa.table({"game_id": [g["game_id"] for g in gid]})).to_pylist()
    assert got == ["belote-classic" if g["source"] == "club" else "colver" for g in gid]
    # a hand of a game the plan does not know is scored by its variant's default (own_rules.toml)
    unknown = pa.table({"game_id": ["nowhere:1", "nowhere:2"], "variant": ["coinche", "bulgarian"]})
    assert p.ruleset_of(unknown).to_pylist() == ["pagat-coinche", "bulgarian"]


def test_the_lakes_file_overrides_records_and_defaults(tmp_path, lake):
    # the resolution order of pipeline.rules.own: [sources] > [rulesets] (the name records give) > shipped hint >
    # [variants] > own_rules.toml. Checked on one (source, variant, hint) at a time through _choose
    over = {"sources": {}, "rulesets": {}, "variants": {}}
    shipped = {"colver", "belote-classic"}
    defaults = own.defaults()
    assert own._choose("s", "coinche", "colver", over, defaults, shipped) == ("colver", "named by the records")
    assert own._choose("s", "coinche", "my-club", over, defaults, shipped) == (
        "pagat-coinche", "the records name my-club, which Rebelote does not ship; the default for coinche games")
    assert own._choose("s", "belote", None, over, defaults, shipped) == ("belote-classic",
                                                                        "the default for belote games")
    over["variants"]["belote"] = "ffb-classic"
    assert own._choose("s", "belote", None, over, {**defaults, **over["variants"]}, shipped)[0] == "ffb-classic"
    over["rulesets"]["colver"] = "coincoinche"
    assert own._choose("s", "coinche", "colver", over, defaults, shipped)[0] == "coincoinche"
    over["sources"]["s"] = "pagat-coinche"
    assert own._choose("s", "coinche", "colver", over, defaults, shipped)[0] == "pagat-coinche"


def test_rules_sources_set_and_unset_through_the_cli(tmp_path):
    path = simulated_lake(tmp_path / "lake")
    run = CliRunner().invoke
    r = run(app, ["rules", "sources", "--lake", str(path), "--set", "online=coincoinche", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {x["source"]: (x["ruleset"], x["why"]) for x in orjson.loads(r.stdout)}
    assert rows == {"club": ("belote-classic", "named by the records"),
                    "online": ("coincoinche", "_own_rules.toml [sources] online")}
    # a game whose record names another ruleset than the one chosen: its recorded scores are not compared
    summary = rescore_lake(path, own.plan(path))
    assert summary.members == {"belote-classic", "coincoinche"} and summary.other_rules > 0
    r = run(app, ["rules", "sources", "--lake", str(path), "--unset", "online", "--format", "json"])
    assert {x["source"]: x["ruleset"] for x in orjson.loads(r.stdout)} == {"club": "belote-classic", "online": "colver"}
    r = run(app, ["rules", "sources", "--lake", str(path), "--unset", "online"])
    assert r.exit_code == 2 and "has no such choice" in r.stderr
    r = run(app, ["rules", "sources", "--lake", str(path), "--set", "online=no-such"])
    assert r.exit_code == 2 and "unknown ruleset 'no-such'" in r.stderr
    (path / own.OVERRIDE_FILE).write_text("[clubs]\nx = 'colver'\n")
    with pytest.raises(RulesetError, match=r"_own_rules.toml: \[clubs\] is not one of the tables"):
        own.plan(path)


def _mixed_lake(tmp_path):
    """One source whose one file interleaves belote-classic and colver games: every batch mixes both rulesets."""
    from itertools import zip_longest

    from pipeline.ingest.run import ingest_paths
    from pipeline.rules import load
    from pipeline.simulate.games import simulate

    a, b = simulate(load("belote-classic"), 3, 11), simulate(load("colver"), 3, 12)
    objs = [o for pair in zip_longest(a, b) for o in pair if o is not None]
    for o in objs:
        o["source"] = "mixed"
    (tmp_path / "mixed.jsonl").write_bytes(b"\n".join(orjson.dumps(o) for o in objs) + b"\n")
    ingest_paths([tmp_path / "mixed.jsonl"], tmp_path / "lake")
    return tmp_path / "lake"


def test_mixed_batches_are_split_and_put_back_in_order(tmp_path):
    path = _mixed_lake(tmp_path)
    assert len(lakemod.list_files(path, "hands")) == 1
    rescore_lake(path, own.plan(path), batch_size=7)
    for ruleset in ("belote-classic", "colver"):
        rescore_lake(path, own.plan(path).members[ruleset])
    games = {g["game_id"]: g["ruleset_hint"] for g in lakemod.read(path, "games").to_pylist()}
    assert sorted(set(games.values())) == ["belote-classic", "colver"]
    for table in ("scores", "game_scores"):
        t = lakemod.read(path, table).to_pylist()
        mine = [{k: v for k, v in r.items() if k != "ruleset"} for r in t if r["ruleset"] == "own"]
        theirs = [{k: v for k, v in r.items() if k != "ruleset"} for r in t
                  if r["ruleset"] != "own" and games[r["game_id"]] == r["ruleset"]]
        key = lambda r: (r["game_id"], r.get("hand_no", 0))  # noqa: E731
        assert mine and sorted(mine, key=key) == sorted(theirs, key=key), table
    # the hand rows are written in the hands' own order (the split is undone)
    order = [r["hand_key"] for r in lakemod.read(path, "hands", columns=["hand_key"]).to_pylist()]
    assert [r["hand_key"] for r in lakemod.read(path, "scores", filter=pc.field("ruleset") == "own").to_pylist()] == order


def test_batch_size_does_not_change_own_scores(tmp_path):
    # the split by ruleset happens per batch: batches that cut games anywhere give the same rows
    path = _mixed_lake(tmp_path)
    rescore_lake(path, own.plan(path), batch_size=262_144)
    whole = lakemod.read(path, "scores", filter=pc.field("ruleset") == "own").to_pylist()
    rescore_lake(path, own.plan(path), batch_size=7)
    assert lakemod.read(path, "scores", filter=pc.field("ruleset") == "own").to_pylist() == whole


def test_setting_a_ruleset_that_cannot_score_a_sources_games_warns(tmp_path):
    # a new user's trial: `--set simulate=pagat-coinche` on a source of classic games was taken silently, and the
    # next report left most of its hands unscored (a coinche contract needs a bid value, classic bids have none)
    path = simulated_lake(tmp_path / "lake")
    club = lakemod.read(path, "hands", filter=pc.field("source") == "club")
    from pipeline.rescore import score_batch
    from pipeline.rules import load
    expected = pc.sum(pc.equal(score_batch(club, load("pagat-coinche")).column("status"), "unscorable")).as_py()
    assert 0 < expected <= club.num_rows <= 2000
    r = CliRunner().invoke(app, ["rules", "sources", "--lake", str(path), "--set", "club=pagat-coinche"])
    assert r.exit_code == 0, r.output
    assert (f"warning: pagat-coinche cannot score {expected} of the {club.num_rows} hands it now scores for "
            "source club (most often: contract has no bid value") in " ".join(r.stderr.split())
    assert "--unset club` undoes it" in " ".join(r.stderr.split())
    r = CliRunner().invoke(app, ["rules", "sources", "--lake", str(path), "--set", "club=belote-classic"])
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output
    # by the name the records give: the club's games name belote-classic, so the same hands, found across the
    # lake's files (not only the first batch read)
    r = CliRunner().invoke(app, ["rules", "sources", "--lake", str(path), "--unset", "club",
                                 "--set", "named:belote-classic=pagat-coinche"])
    assert r.exit_code == 0, r.output
    assert (f"cannot score {expected} of the {club.num_rows} hands it now scores for the games whose records "
            "name belote-classic") in " ".join(r.stderr.split())
    # a variant's choice covers only the games whose records name no shipped ruleset: none here, no warning
    r = CliRunner().invoke(app, ["rules", "sources", "--lake", str(path), "--unset", "named:belote-classic",
                                 "--set", "variant:belote=pagat-coinche"])
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output
