"""``rebelote status`` (pipeline/maintenance/status.py, issue 17): what the lake holds, which rulesets are scored and whether
each is fresh, and the next command. The expected counts are those of the files written here."""

from __future__ import annotations

import json

import orjson
from typer.testing import CliRunner

from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load, own
from pipeline.simulate.games import simulate
from pipeline.maintenance.status import lake_status

RULES = load("belote-classic")


def _file(path, seed: int, games: int = 3, broken: bool = False):
    objs = list(simulate(RULES, games, seed))
    for g in objs:
        g["game_id"] = f"{g['game_id']}-s{seed}"
    path.write_bytes(b"\n".join(orjson.dumps(g) for g in objs) + b"\n" + (b'{"format": "rebelote",\n' if broken else b""))
    return sum(len(g["hands"]) for g in objs)


def test_a_lake_before_and_after_its_first_rescore_and_after_a_new_import(tmp_path):
    lake = tmp_path / "lake"
    hands = _file(tmp_path / "a.jsonl", 1, broken=True)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    st = lake_status(lake)
    assert [(s.source, s.games, s.hands, s.hinted) for s in st.sources] == [("simulate", 3, hands, ["belote-classic"])]
    assert st.rejects == {"invalid_json": 1} and st.rulesets == [] and st.version == lakemod.LAKE_VERSION
    # no scores: each game under its own ruleset (the games name theirs: ruleset_hint) is the rescore to run
    assert st.next_steps == [f"rebelote rescore --lake {lake}  (scores each game under its own ruleset: `rebelote "
                             f"rules sources --lake {lake}` shows which)"]
    assert str(st).splitlines()[0] == f"lake {lake} (layout version {lakemod.LAKE_VERSION}): 3 games, {hands} hands from 1 source, 1 reject"

    rescore_lake(lake, RULES)
    st = lake_status(lake)
    assert [(r.name, r.hands, r.fresh, r.changed) for r in st.rulesets] == [("belote-classic", hands, True, [])]
    # one ruleset scored, fresh, and no own-rules scores: the reports read it (pipeline.stats.report_rules)
    assert st.next_steps == [f"rebelote stats players --lake {lake}  (everything is up to date)"]

    more = _file(tmp_path / "b.jsonl", 2)
    ingest_paths([tmp_path / "b.jsonl"], lake)
    st = lake_status(lake)
    assert sum(s.hands for s in st.sources) == hands + more
    assert [(r.name, r.hands, r.fresh) for r in st.rulesets] == [("belote-classic", hands, False)]
    assert "scores under belote-classic: " in str(st) and "stale (hands imported or replaced since)" in str(st)
    assert st.next_steps == [f"rebelote rescore --rules belote-classic --lake {lake}  (its scores are stale)",
                             f"rebelote rescore --lake {lake}  (scores each game under its own ruleset: `rebelote "
                             f"rules sources --lake {lake}` shows which)"]


def test_scores_computed_with_other_parameters_are_stale(tmp_path):
    lake = tmp_path / "lake"
    _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    rescore_lake(lake, RULES)
    # the record of the parameters the scores were computed with, as an older belote-classic would have left it
    name = "scores/ruleset=belote-classic/_ruleset.json"
    rec = orjson.loads(lakemod.read_bytes(lake, name))
    rec["params"]["game"]["target"] = 501
    (lake / name).write_bytes(orjson.dumps(rec))
    st = lake_status(lake)
    assert [(r.name, r.fresh, r.changed) for r in st.rulesets] == [("belote-classic", True, ["game.target"])]
    # said as the reports' note says it: the parameter, the value scored with, the value now (belote-classic's
    # game.target, 1000: pipeline/rules/rulesets/belote-classic.toml)
    assert "scores under belote-classic: 36 hands, stale (the rules changed: game.target 501 -> 1000)" in str(st)
    assert st.next_steps[0].startswith("rebelote rescore --rules belote-classic")


def test_an_old_lake_says_migrate_first_and_the_command_prints_json(tmp_path):
    lake = tmp_path / "lake"
    _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    r = CliRunner().invoke(app, ["status", "--lake", str(lake), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout) == lake_status(lake).to_dict()
    (lake / lakemod.VERSION_FILE).write_text('{"format": "rebelote-lake", "version": 2}\n')
    st = lake_status(lake)
    assert st.next_steps == [f"rebelote migrate --lake {lake}  (the lake was written by an older Rebelote; `status` "
                             "shows what it holds once it is migrated)"] and st.sources == []
    r = CliRunner().invoke(app, ["status", "--lake", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "lake folder not found" in r.output


def test_rescore_and_simulate_report_progress(tmp_path):
    # issue 17: long commands said nothing; the CLI shows these calls as a bar on a terminal
    from pipeline.simulate.games import simulate_to_file
    seen: list = []
    n_games, n_hands = simulate_to_file(RULES, 5, 3, tmp_path / "g.jsonl", lambda *a: seen.append(a))
    assert seen == [("games", i, 5) for i in range(1, 6)] and n_games == 5
    ingest_paths([tmp_path / "g.jsonl"], tmp_path / "lake")
    calls: list = []
    rescore_lake(tmp_path / "lake", RULES, batch_size=1024, progress=lambda *a: calls.append(a))
    hands = [c for c in calls if c[0] == "hands"]
    assert hands[-1] == ("hands", n_hands, n_hands) and all(c[2] == n_hands for c in hands)
    assert [c[0] for c in calls if c[0] != "hands"] == ["games", "derived"]
    assert calls.index(("games", 0, None)) > calls.index(hands[-1])


def test_export_to_a_terminal_asks_for_a_file(tmp_path, monkeypatch):
    # the new-user trial: `rebelote export --lake club` with no output file printed the whole lake as JSON
    import io
    import sys

    import pytest
    import typer

    from pipeline.cli import export_cmds

    _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], tmp_path / "lake")

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.setattr(sys, "stdout", Terminal())
    with pytest.raises(typer.Exit) as e:
        export_cmds._export_jsonl(None, tmp_path / "lake", None, None)
    assert e.value.exit_code == 2 and sys.stdout.getvalue() == ""
    # redirected (not a terminal), it writes the games as before
    r = CliRunner().invoke(app, ["export", "jsonl", "--lake", str(tmp_path / "lake")])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 3


def test_report_tables_not_written_are_named_and_a_ruleset_without_rows_is_written_empty(tmp_path):
    """A report table with no rows stored for a scored ruleset (dropped by ``migrate``, or ``rescore
    --no-derived``) makes the reports compute it on the fly: status names it and the rescore that writes it.
    A table a rescore leaves with no rows (belote-2p scores no hand of these 4-player games, so no declaration
    item) is written as an empty partition, so it is not named, and the views read it as stored."""
    from pipeline.facts import derived
    from pipeline.storage import lake_write
    lake = tmp_path / "lake"
    hands = _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    rescore_lake(lake, load("belote-2p"))
    assert lakemod.row_count(lake, "declaration_items") == 0
    # written, with no rows, by the rescore that read the current hands
    assert [p for p in lakemod.partitions(lake, "declaration_items") if p] == ["ruleset=belote-2p"]
    assert derived.hands_unchanged(lake, "belote-2p")
    st = lake_status(lake)
    assert [(r.name, r.fresh, r.unwritten) for r in st.rulesets] == [("belote-2p", True, [])]

    rescore_lake(lake, RULES)
    with lakemod.lock(lake):
        lake_write.drop_partition(lake, "player_games", "belote-classic")
        lake_write.drop_partition(lake, "pair_games", "belote-classic")
    st = lake_status(lake)
    assert [(r.name, r.unwritten) for r in st.rulesets] == [("belote-2p", []),
                                                            ("belote-classic", ["player_games", "pair_games"])]
    assert (f"scores under belote-classic: {hands} hands, fresh; report tables not written: player_games, "
            "pair_games (the reports compute them, slower)") in str(st)
    assert st.next_steps[0] == (f"rebelote rescore --rules belote-classic --lake {lake}  (writes the report tables "
                                "the reports now compute on the fly)")
    rescore_lake(lake, RULES)
    assert [r.unwritten for r in lake_status(lake).rulesets] == [[], []]


def test_own_scores_after_a_new_source_are_stale_for_the_hands(tmp_path):
    # a new user's trial: after the hands of a new source (its games under another ruleset), status said the
    # own scores were stale because "ruleset changed: belote-classic.auction.strains, ..." (every parameter of
    # the ruleset the new games brought in), while the reports' note said what happened: hands imported since
    lake = tmp_path / "lake"
    _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    rescore_lake(lake, own.plan(lake))
    other = [g | {"source": "club"} for g in simulate(load("bulgarian"), 1, 3)]
    (tmp_path / "b.jsonl").write_bytes(b"\n".join(orjson.dumps(g) for g in other) + b"\n")
    ingest_paths([tmp_path / "b.jsonl"], lake)
    st = lake_status(lake)
    line = next(x for x in str(st).splitlines() if "scores under own" in x)
    assert line.endswith("stale (hands imported or replaced since) (each game under its own ruleset)"), line
    assert st.rulesets[0].changes == ""      # the new source's choice and ruleset came with its hands
    # a choice changed for the hands scored before: said too, after the hands (the review of this change found
    # it hidden behind "hands imported")
    first = next(h for h in lakemod.read(lake, "hands", columns=["source", "variant", "ruleset_hint"]).to_pylist()
                 if h["source"] != "club")
    doc = own.overrides(lake)
    doc["sources"][first["source"]] = "ffb-classic"
    own.write_overrides(lake, doc)
    line = next(x for x in str(lake_status(lake)).splitlines() if "scores under own" in x)
    assert (f"stale (hands imported or replaced since; the rules changed: 1 choice changed ({first['source']}/"
            f"{first['variant']}/{first['ruleset_hint']} belote-classic -> ffb-classic); no longer scored under "
            "belote-classic") in line, line


def test_a_stale_house_ruleset_is_rescored_from_its_file(tmp_path, monkeypatch):
    # a house ruleset is stored under its file's name; `--rules my-club` alone is not found (only shipped names
    # are), so the next step names the file, and says the name stands for its path (a new user's report)
    from pipeline.rules import RulesetError

    lake = tmp_path / "lake"
    _file(tmp_path / "a.jsonl", 1)
    ingest_paths([tmp_path / "a.jsonl"], lake)
    (tmp_path / "my-club.toml").write_text('extends = "belote-classic"\n[game]\ntarget = 501\n')
    monkeypatch.chdir(tmp_path)
    rescore_lake(lake, load("my-club.toml"))
    _file(tmp_path / "b.jsonl", 2)
    ingest_paths([tmp_path / "b.jsonl"], lake)
    steps = lake_status(lake).next_steps
    assert steps[0] == (f"rebelote rescore --rules my-club.toml --lake {lake}  (its scores are stale; my-club.toml "
                        "stands for the path of its house file)")
    try:
        load("my-club")
    except RulesetError:
        pass
    else:
        raise AssertionError("the bare name of a house ruleset is found: the step could name it")
    load("my-club.toml")        # the file, from the folder it is in, is


def test_a_source_whose_records_name_a_ruleset_for_some_hands_only(tmp_path):
    # new-user trial: a source of two games, one naming pagat-coinche, the other no ruleset (scored under the
    # choice of `rules sources`), said "recorded under pagat-coinche" as if both were; now the hands naming none
    # are counted beside it
    lake = tmp_path / "lake"
    hands = _file(tmp_path / "a.jsonl", 1, games=2)
    objs = [orjson.loads(x) for x in (tmp_path / "a.jsonl").read_bytes().splitlines()]
    objs[1]["ruleset_hint"] = None
    bare = len(objs[1]["hands"])
    (tmp_path / "a.jsonl").write_bytes(b"\n".join(orjson.dumps(g) for g in objs) + b"\n")
    ingest_paths([tmp_path / "a.jsonl"], lake)
    st = lake_status(lake)
    assert [(s.hinted, s.unhinted) for s in st.sources] == [(["belote-classic"], bare)]
    assert str(st).splitlines()[1].endswith(f", recorded under belote-classic ({bare} hands naming no ruleset)")
    assert 0 < bare < hands
