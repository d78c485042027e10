"""The rebelote command line through typer's CliRunner: exit codes, summaries, outputs."""

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline.cli import app

runner = CliRunner()


@pytest.fixture
def records(tmp_path):
    games = [native_game("g1", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_L, 2, taker=0),
                                native_hand(DEAL_A, 3, taker=1)]),
             native_game("g2", [native_hand(DEAL_K, 1, taker=0)])]
    return write_jsonl(tmp_path / "games.jsonl", games)


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_ingest_rescore_stats(tmp_path, records):
    lake = tmp_path / "lake"
    r = run("ingest", records, "--lake", lake)
    assert r.exit_code == 0, r.output
    assert "1 file, 2 games, 4 hands, 0 duplicates skipped, 0 rejected" in r.stdout
    r = run("ingest", records, "--lake", lake)
    assert "0 hands, 0 duplicates skipped" in r.stdout and "1 unchanged file skipped" in r.stdout
    r = run("ingest", records, "--lake", lake, "--reread")
    assert "0 hands, 4 duplicates skipped" in r.stdout
    r = run("rescore", "--rules", "belote-classic", "--lake", lake)
    assert r.exit_code == 0, r.output
    assert "rescore [belote-classic]: 4 hands (4 scored), 2 games, 0 with an illegal play" in r.stdout
    r = run("stats", "players", "--lake", lake, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = {row["player"]: row for row in json.loads(r.stdout)}
    # Ana (seat 0) took g1#1 (made), g1#2 (litige) and g2#1 (capot, made): made 2 of 2 decided, 3 taken.
    assert (rows["Ana"]["taken"], rows["Ana"]["made"], rows["Ana"]["decided"], rows["Ana"]["made_of"]) == (3, 2, 2, "2/2")
    # Ben (seat 1) took g1#3 and failed it: 0/1.
    assert rows["Ben"]["made_of"] == "0/1"
    out = tmp_path / "players.csv"
    r = run("stats", "players", "--lake", lake, "--format", "csv", "--output", out)
    assert r.exit_code == 0 and out.read_text().startswith('"ruleset","player"')
    r = run("stats", "declarations", "--lake", lake, "--format", "parquet", "--output", tmp_path / "d.parquet")
    assert r.exit_code == 0 and (tmp_path / "d.parquet").stat().st_size > 0
    r = run("stats", "players", "--lake", lake)
    assert r.exit_code == 0 and "Ana" in r.stdout


def test_reject_exit_code_and_strict(tmp_path, records):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(records.read_text() + "{broken\n")
    r = run("ingest", bad, "--lake", tmp_path / "lake")
    assert r.exit_code == 1
    assert "bad.jsonl:3: invalid JSON" in r.stderr
    assert "1 rejected (invalid_json 1)" in r.stdout
    r = run("ingest", bad, "--lake", tmp_path / "lake2", "--strict")
    assert r.exit_code == 2
    assert "--strict" in r.stderr and "bad.jsonl:3" in r.stderr
    r = run("ingest", bad, "--lake", tmp_path / "lake3", "--on-error", "strict")
    assert r.exit_code == 2 and "bad.jsonl:3" in r.stderr
    assert run("ingest", bad, "--lake", tmp_path / "lake4", "--on-error", "skip").exit_code == 1


def test_usage_errors_exit_2(tmp_path, records):
    assert run("ingest", tmp_path / "missing.jsonl", "--lake", tmp_path / "l").exit_code == 2
    assert run("ingest", records, "--lake", tmp_path / "l", "--format", "nope").exit_code == 2
    assert run("rescore", "--rules", "belote-classic", "--lake", tmp_path / "empty").exit_code == 2
    run("ingest", records, "--lake", tmp_path / "l")
    r = run("rescore", "--rules", "no-such-rules", "--lake", tmp_path / "l")
    assert r.exit_code == 2 and "unknown ruleset 'no-such-rules'" in r.stderr
    assert run("stats", "players", "--lake", tmp_path / "l", "--format", "xml").exit_code == 2
    assert run("export", "--format", "pgn", "--lake", tmp_path / "l").exit_code == 2
    assert run("bogus-command").exit_code == 2


def test_ingest_then_a_report_just_works(tmp_path, records):
    # issue 17: `stats players` on a fresh lake refused ("run rescore first"). ingest scores each game under its
    # own rules; with --no-score the report scores them first and says so on one line
    r = run("ingest", records, "--lake", tmp_path / "a")
    assert r.exit_code == 0 and r.stdout.splitlines()[-1].startswith("rescore [own] (each game under its own ruleset: ")
    r = run("stats", "players", "--lake", tmp_path / "a", "--format", "csv")
    assert r.exit_code == 0 and "scoring" not in r.stderr and r.stdout.count("\n") > 1
    run("ingest", records, "--lake", tmp_path / "b", "--no-score")
    assert not (tmp_path / "b" / "scores").exists()
    r = run("stats", "players", "--lake", tmp_path / "b", "--format", "csv")
    assert r.exit_code == 0 and r.stdout == run("stats", "players", "--lake", tmp_path / "a", "--format", "csv").stdout
    assert [x for x in r.stderr.splitlines() if x.startswith("note: scoring")] == [
        "note: scoring the lake under own first (no scores under it yet; `rebelote rescore` does this alone)"]
    assert "scoring" not in run("stats", "players", "--lake", tmp_path / "b").stderr    # scored once
    # --json: the summary objects the summary lines print
    r = run("ingest", records, "--lake", tmp_path / "c", "--json")
    d = json.loads(r.stdout)
    assert (d["games"], d["hands"], d["rescore"]["hands"], d["rescore"]["members"]) == (2, 4, 4, ["belote-classic"])
    assert d["summary"].startswith("ingest: 1 file, 2 games, 4 hands") and d["rescore"]["ruleset"] == "own"
    r = run("rescore", "--lake", tmp_path / "c", "--rules", "openspiel", "--rules", "auto", "--json")
    assert [json.loads(x)["ruleset"] for x in r.stdout.splitlines()] == ["openspiel", "own"]


def test_export_jsonl_round_trip(tmp_path, records):
    lake = tmp_path / "lake"
    run("ingest", records, "--lake", lake)
    out = tmp_path / "export.jsonl"
    r = run("export", "--format", "jsonl", "--output", out, "--lake", lake)
    assert r.exit_code == 0 and "export: 2 games, 4 hands" in r.stderr
    lines = out.read_bytes().splitlines()
    assert [orjson.loads(x)["game_id"] for x in lines] == ["test:g1", "test:g2"]
    r = run("ingest", out, "--lake", lake)
    assert "0 hands, 4 duplicates skipped" in r.stdout


def test_rules_list_show_formats():
    r = run("rules", "list")
    assert r.exit_code == 0 and "belote-classic" in r.stdout and "colver" in r.stdout
    r = run("rules", "show", "colver")
    assert "double.surcoinche = 3" in r.stdout and "x3, not x4" in r.stdout
    # one line names the abbreviations cited (colver.toml's description and sources, and base.toml's for the
    # parameters colver inherits, such as base's game.litige_to citing 'seed 000', the new penalties and game.claims citing 'seed 001') and the page
    # (base's game.exit_needs cites BG-HIT, BG-NIK and Belot_Scorer's ADR and src/core/match.ts)
    assert ("Sources cited (../shared/data/real/colver/FORMAT.md, ADR, BG-HIT, BG-NIK, colver-core/src/game_loop.rs, "
            "FFB-B16, FFB-Bweb, FFB-Co15, FORMAT.md, PAGAT-B, PAGAT-C, rules.md, seed 000, seed 001, src/core/match.ts, "
            "WP-FR-Co): see docs/sources.md in the Rebelote repository.") \
        in r.stdout.splitlines()
    r = run("formats")
    assert "rebelote:" in r.stdout and "colver:" in r.stdout


def test_table_docs_are_generated_from_the_schemas():
    from pathlib import Path

    from pipeline.storage import schema
    docs = Path(__file__).resolve().parents[1] / "docs" / "tables.md"
    assert docs.read_text().strip() == schema.markdown().strip(), "run: rebelote schema --markdown > docs/tables.md"
    r = run("schema", "hands")
    assert r.exit_code == 0 and "hand_key: string not null" in r.stdout


def test_user_reported_edge_cases(tmp_path, records):
    lake = tmp_path / "lake"
    run("ingest", records, "--lake", lake)
    run("rescore", "--rules", "belote-classic", "--lake", lake)
    # a filter that matches nothing is an empty report, not a missing-ruleset error
    r = run("stats", "players", "--lake", lake, "--source", "nosuch", "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    # writing into a missing folder is a clean usage error
    r = run("stats", "players", "--lake", lake, "--format", "csv", "--output", tmp_path / "no" / "x.csv")
    assert r.exit_code == 2 and "cannot write" in r.stderr
    # stale scores are reported
    more = write_jsonl(tmp_path / "more.jsonl", [native_game("g9", [native_hand(DEAL_A, 1, taker=0)])])
    run("ingest", more, "--lake", lake)
    r = run("stats", "players", "--lake", lake, "--format", "json", "--rules", "belote-classic")
    assert ("note: scoring the lake under belote-classic first (hands imported or replaced since its last rescore; "
            "`rebelote rescore --rules belote-classic` does this alone)") in r.stderr
    # a house file may not take a shipped ruleset's name
    f = tmp_path / "x.toml"
    f.write_text('name = "colver"\nextends = "belote-classic"\n')
    r = run("rescore", "--rules", f, "--lake", lake)
    assert r.exit_code == 2 and "is a shipped ruleset" in r.stderr
    # every --rules is checked before any work
    r = run("rescore", "--rules", "colver", "--rules", "nosuch", "--lake", lake)
    assert r.exit_code == 2 and "rescore [colver]" not in r.stdout
    # messages are printed as they are: ':100' stays ':100' (no emoji codes)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n" * 99 + "{oops\n")
    r = run("ingest", bad, "--lake", lake, "--format", "rebelote")
    assert "bad.jsonl:100: invalid JSON" in r.stderr
    # the scores partition records the parameters it was computed with
    meta = json.loads((lake / "scores" / "ruleset=belote-classic" / "_ruleset.json").read_text())
    assert meta["params"]["game"]["target"] == 1000 and meta["chain"][0] == "belote-classic"
    assert run("--version").stdout.startswith("rebelote ")


def test_shell_completion(tmp_path):
    # typer's completion (docs/cli.md#shell-completion), driven as bash drives it: the installed script sets
    # these variables and reads the candidates, one per line. The ruleset names come from the shipped files
    # (pipeline/rules/rulesets), and "own" is the per-game choice.
    import os
    import subprocess
    import sys
    from pathlib import Path

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_REBELOTE_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - 1)}
        # the installed command: the variables' prefix is the program's name
        command = Path(sys.executable).with_name("rebelote")
        return subprocess.run([str(command)], env=env, capture_output=True, text=True, cwd=tmp_path).stdout.split()

    assert complete("rebelote st") == ["status", "stats"]
    assert complete("rebelote stats players --rules pagat") == ["pagat-coinche"]
    assert complete("rebelote rescore --rules ow") == ["own"]
    assert "--install-completion" in run("--help").stdout



def test_help_shows_no_type_for_an_on_off_flag():
    # typer 0.2x showed `--json <bool>`, as if the flag took a value (pipeline.cli.common._flags_show_no_type)
    text = runner.invoke(app, ["status", "--help"], terminal_width=200).stdout
    flags = [line for line in text.splitlines() if "--json" in line or "--help" in line]
    assert len(flags) == 2 and not any("<bool>" in line for line in flags)
    assert any("--lake" in line and "<str>" in line for line in text.splitlines())    # value types still shown

def test_reports_rescore_an_edited_house_rules_file(tmp_path, records):
    # found by a fresh-user trial: after editing a house-rules file, stats and compare kept reporting the scores
    # computed with its old parameters (a target of 501 instead of 301) without a word
    lake = tmp_path / "lake"
    run("ingest", records, "--lake", lake)
    house = tmp_path / "club.toml"
    house.write_text('name = "club"\nextends = "belote-classic"\n[game]\ntarget = 501\n')
    assert run("rescore", "--rules", house, "--lake", lake).exit_code == 0
    assert run("stats", "players", "--lake", lake, "--rules", house, "--format", "json").exit_code == 0
    house.write_text('name = "club"\nextends = "belote-classic"\n[game]\ntarget = 301\n')
    # issue 17: an edited house file is rescored before the report, which says so (it used to refuse)
    r = run("stats", "players", "--lake", lake, "--rules", house, "--format", "json")
    assert r.exit_code == 0, r.output
    assert "note: scoring the lake under club first (the rules changed since its last rescore: game.target 501 -> " \
           "301" in r.stderr
    meta = json.loads((lake / "scores" / "ruleset=club" / "_ruleset.json").read_text())
    assert meta["params"]["game"]["target"] == 301
    for args in (("stats", "contracts"), ("compare", "--rules", "belote-classic")):
        r = run(*args, "--lake", lake, "--rules", house, "--format", "json") if args[0] == "stats" else \
            run(*args, "--lake", lake, "--rules", house)
        assert r.exit_code == 0 and "note: scoring the lake under club" not in r.stderr, r.output
    # the stored name alone reads the stored scores (what they are is the user's choice)
    r = run("stats", "players", "--lake", lake, "--rules", "club", "--format", "json")
    assert r.exit_code == 0 and "warning" not in r.stderr and "note: scoring" not in r.stderr


def test_player_and_min_hands_filters(tmp_path, records):
    lake = tmp_path / "lake"
    run("ingest", records, "--lake", lake)
    run("rescore", "--rules", "belote-classic", "--lake", lake)
    # every hand has the same four players: --player keeps Ana's row only; --min-hands 4 keeps everyone (4 hands)
    r = run("stats", "players", "--lake", lake, "--player", "Ana", "--format", "json")
    assert [row["player"] for row in json.loads(r.stdout)] == ["Ana"]
    r = run("stats", "players", "--lake", lake, "--min-hands", "4", "--format", "json")
    assert len(json.loads(r.stdout)) == 4
    r = run("stats", "players", "--lake", lake, "--min-hands", "5", "--format", "json")
    assert json.loads(r.stdout) == []


def test_compare(tmp_path, records):
    # records: g1 = DEAL_A made (92-90), DEAL_L litige, DEAL_A taken by seat 1 (failed); g2 = DEAL_K capot.
    # belote-classic vs openspiel: no belote in openspiel (so DEAL_A's 90 becomes 70, the failed DEAL_A's
    # taker keeps nothing: [162, 0] instead of [162, 20]), the litige becomes a failure (162 to the defence).
    lake = tmp_path / "lake"
    run("ingest", records, "--lake", lake)
    run("rescore", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake)
    r = run("compare", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake, "--format", "json")
    got = {row["measure"]: (row["count"], row["of"]) for row in json.loads(r.stdout)}
    # hand scores: g1#1 [92,90]->[92,70]; g1#2 litige [0,81]->[0,162]; g1#3 [162,20]->[162,0]; g2#1 [272,0]->[252,0]
    assert got["hands scored under both"] == (4, 4) and got["hand score differs"] == (4, 4)
    assert got["made/failed differs"] == (1, 4)          # the litige (null) becomes a failure
    # no game reaches its target of 1000 under either: no game is finished, no winner can differ
    assert got["games finished under both"] == (0, 2) and got["winner differs"] == (0, 0)
    # each row says what its "of" counts (queries/compare.sql): the denominators differ from row to row
    assert [row["of_what"] for row in json.loads(r.stdout)] == [
        "hands selected", "hands scored under both", "hands scored under both", "hands scored under both",
        "games compared", "games finished under either", "games compared"]
    r = run("compare", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake)
    assert "rebelote show --game test:g1 --hand 1 --rules belote-classic --rules openspiel" in r.stdout
    # a ruleset not scored yet is scored first (issue 17: no refusal where the tool can act)
    r = run("compare", "--rules", "colver", "--rules", "openspiel", "--lake", lake)
    assert r.exit_code == 0 and "note: scoring the lake under colver first (no scores under it yet" in r.stderr


def test_compare_filters_and_pairings(tmp_path):
    # g1 (3 hands, source "test", players Ana..Dan) as in test_compare; g2 = DEAL_K capot, then a hand passed
    # out, from source "other" with Eve at seat 0. Hand by hand (test_compare): every scored hand's score
    # differs between belote-classic and openspiel, and only g1's litige (hand 2) changes made/failed. The
    # passed-out hand is scored under neither: it counts among the selected hands, not among those compared.
    from pipeline.stats import reports as stats
    games = [native_game("g1", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_L, 2, taker=0),
                                native_hand(DEAL_A, 3, taker=1)]),
             native_game("g2", [native_hand(DEAL_K, 1, taker=0), native_hand(DEAL_K, 2, taker=None)], source="other",
                         players=("Eve", "Ben", "Cat", "Dan"))]
    lake = tmp_path / "lake"
    run("ingest", write_jsonl(tmp_path / "games.jsonl", games), "--lake", lake)
    run("rescore", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake)

    def measures(*filters):
        r = run("compare", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake, "--format", "json",
                *filters)
        assert r.exit_code == 0, r.output
        return {row["measure"]: (row["count"], row["of"]) for row in json.loads(r.stdout)}
    everything = measures()
    assert everything["hands scored under both"] == (4, 5) and everything["made/failed differs"] == (1, 4)
    got = measures("--source", "test")              # g1's 3 hands, one of them the litige
    assert got["hands scored under both"] == (3, 3) and got["hand score differs"] == (3, 3) and got["made/failed differs"] == (1, 3)
    got = measures("--player", "Eve")               # Eve sat in g2 only: the capot hand
    assert got["hands scored under both"] == (1, 2) and got["made/failed differs"] == (0, 1)
    assert measures("--variant", "belote") == everything       # both games are belote
    # --since: neither game records when it was played, so nothing is compared
    assert measures("--since", "2026-01-01")["hands scored under both"] == (0, 0)
    r = run("compare", "--rules", "belote-classic", "--rules", "openspiel", "--lake", lake, "--since", "2026-01-01")
    assert "2 games that match the other filters record no time (games.played_at)" in r.stderr   # and say so
    # both rulesets were rescored over the same hand files: rows paired by position, and the pairing on the
    # integer hand_seq or on the string hand_key gives the same rows
    con = stats.connect(lake)
    try:
        assert stats.hand_pairing(con, "belote-classic", "openspiel") == "position"
        rows = {p: stats.run_report_on(con, "compare", "belote-classic", other="openspiel", pair_by=p).to_pylist()
                for p in ("position", "seq", "key")}
        examples = {p: stats.compare_examples(con, "belote-classic", "openspiel", 3, p) for p in ("position", "seq", "key")}
    finally:
        con.close()
    assert rows["position"] == rows["seq"] == rows["key"]
    # the examples `compare` prints, first by game id: the hand scores of test_compare ("other:g2" < "test:g1")
    assert examples["position"] == examples["seq"] == examples["key"] == [
        ("other:g2", 1, [272, 0], [252, 0]), ("test:g1", 1, [92, 90], [92, 70]), ("test:g1", 2, [0, 81], [0, 162])]
    # openspiel's rows stored in another order (rewritten backwards, by hand: rescore writes them in hand_seq
    # order). Unfiltered views trust that order (equal row counts are checked, not the rows); under a filter the
    # rows are checked, found out of order, and paired on hand_seq: the same rows and examples as on hand_key
    import pyarrow.parquet as pq
    for f in (lake / "hand_facts" / "ruleset=openspiel").glob("*.parquet"):
        t = pq.read_table(f)
        pq.write_table(t.take(list(range(t.num_rows - 1, -1, -1))), f)
    con = stats.connect(lake)
    try:
        assert stats.hand_pairing(con, "belote-classic", "openspiel") == "position"
    finally:
        con.close()
    con = stats.connect(lake, stats.Filters(variants=("belote",)))      # every hand: both games are belote
    try:
        assert stats.hand_pairing(con, "belote-classic", "openspiel") == "seq"
        table, shown = stats.compare(con, "belote-classic", "openspiel", examples=3)
        assert table.to_pylist() == rows["key"] and shown == examples["key"]
    finally:
        con.close()
    # openspiel rescored again without its derived tables: its hand_facts rows are computed on the fly (no
    # hand_seq), so compare pairs on hand_key, with the same counts
    # openspiel rescored again without its derived tables: its hand_facts rows are computed on the fly (no
    # hand_seq), so compare pairs on hand_key, with the same counts
    run("rescore", "--rules", "openspiel", "--no-derived", "--lake", lake)
    con = stats.connect(lake)
    try:
        assert stats.hand_pairing(con, "belote-classic", "openspiel") == "key"
    finally:
        con.close()
    assert measures() == everything


@pytest.mark.parametrize("command", [["stats", "fairness"], ["rejects"], ["compact"], ["stats", "players"]])
def test_a_missing_lake_is_an_error_for_every_command_that_reads_one(tmp_path, command):
    """No lake is an error (exit 2, the folder named), not an empty report: fairness and rejects used to print an
    empty table / "no rejects in the lake" for a mistyped --lake."""
    missing = tmp_path / "no-such-lake"
    r = runner.invoke(app, command + ["--lake", str(missing)])
    assert r.exit_code == 2, r.output
    assert f"lake folder not found: {missing}" in " ".join(r.stderr.split())


def _slow_first_score_batch(monkeypatch) -> list[int]:
    """Make the first score_batch call take 0.5 s, over a COMPILE_NOTE_AFTER of 0.1 s (as numba compiling the
    engine would); returns the list of each call's row count."""
    import time

    from pipeline.cli import common
    import pipeline.rescore.own as rescore_pkg
    real = rescore_pkg.score_any
    calls: list[int] = []

    def slow_first(batch, rules):
        if not calls:
            time.sleep(0.5)
        calls.append(batch.num_rows)
        return real(batch, rules)

    monkeypatch.setattr(common, "COMPILE_NOTE_AFTER", 0.1)
    monkeypatch.setattr(rescore_pkg, "score_any", slow_first)
    return calls


def test_rescore_says_when_the_first_hand_is_slow_to_score_the_engine_compiling(tmp_path, records, monkeypatch):
    """A first score_batch slower than COMPILE_NOTE_AFTER (numba compiling the engine after an install) gets a
    note on stderr instead of a silent wait; a fast one (the cached engine) none."""
    lake = tmp_path / "lake"
    assert run("ingest", records, "--lake", lake).exit_code == 0
    r = run("rescore", "--rules", "belote-classic", "--lake", lake)
    assert r.exit_code == 0 and "compiling the rules engine" not in r.stderr
    calls = _slow_first_score_batch(monkeypatch)
    r = run("rescore", "--rules", "belote-classic", "--lake", lake)
    assert r.exit_code == 0 and calls[0] == 1
    assert "note: compiling the rules engine for this machine" in " ".join(r.stderr.split())


def test_demo_says_when_the_rules_engine_is_compiling(tmp_path, monkeypatch):
    """`rebelote demo` is the README's first command after `pip install .`: its first rescore compiles the rules
    engine (10.5 s in a fresh venv, measured), which `rescore` announces but the demo used to wait out in silence.
    A first score_batch slower than COMPILE_NOTE_AFTER must give the same note there."""
    calls = _slow_first_score_batch(monkeypatch)
    r = run("demo", "--lake", tmp_path / "lake")
    assert r.exit_code == 0, r.output
    assert "note: compiling the rules engine for this machine" in " ".join(r.stderr.split())
    assert calls[0] == 1   # the warm-up scores one hand before the first ruleset's rescore


def test_stats_notes_the_hands_its_ruleset_cannot_score(tmp_path, records):
    """`stats --rules colver` over a lake that also holds classic hands (a take has no bid value, which colver
    needs) used to list their players with made 0/0 and no points, with no word why. A note on stderr now counts
    those hands per source with the reason. Summary hands (score sheets) are left out of the count: the reports
    use their recorded scores. Counts: the `records` fixture's 4 classic hands, all taken (so unscorable under
    colver, reason from pipeline/rescore); the club sheet's 9 hands are summary hands."""
    from pathlib import Path
    lake = tmp_path / "lake"
    sheet = Path(__file__).parent / "fixtures" / "scoresheets" / "club_sheet.csv"
    assert run("ingest", records, sheet, "--lake", lake).exit_code == 0
    assert run("rescore", "--rules", "colver", "--lake", lake).exit_code == 0
    r = run("stats", "players", "--rules", "colver", "--lake", lake)
    assert r.exit_code == 0, r.output
    note = " ".join(r.stderr.split())
    assert ("note: 4 of the hands selected are unscorable under colver (test 4: contract has no bid value, which "
            "ruleset colver needs)") in note
    assert "--source" in note
    r = run("stats", "players", "--rules", "colver", "--lake", lake, "--source", "club-mardi")
    assert r.exit_code == 0 and "unscorable" not in r.stderr


def test_games_and_export_take_the_reports_filters(tmp_path):
    # issue 17: `games` and `export jsonl` filter by player, variant and date like the reports do. Three games:
    # g1 (Ana's table, belote, played 2026-01-10), g2 (Zed's table, belote, no date), g3 (Ana's, coinche, 2026-02-01)
    g1 = native_game("g1", [native_hand(DEAL_A, 1, taker=0)])
    g1["played_at"] = "2026-01-10T20:00:00Z"
    g2 = native_game("g2", [native_hand(DEAL_K, 1, taker=0)], players=("Zed", "Yan", "Xia", "Wil"))
    g3 = native_game("g3", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_K, 2, taker=0)], variant="coinche",
                     ruleset_hint=None)
    g3["played_at"] = "2026-02-01T12:00:00Z"
    lake = tmp_path / "lake"
    run("ingest", write_jsonl(tmp_path / "g.jsonl", [g1, g2, g3]), "--lake", lake, "--no-score")

    def ids(*args):
        r = run("games", "--lake", lake, "--format", "json", *args)
        assert r.exit_code == 0, r.output
        return [row["game_id"] for row in json.loads(r.stdout)]
    assert ids() == ["test:g1", "test:g2", "test:g3"]
    assert ids("--player", "Ana") == ["test:g1", "test:g3"]
    assert ids("--variant", "coinche") == ["test:g3"]
    assert ids("--since", "2026-01-15") == ["test:g3"]          # g2 has no date: left out by a time filter
    assert ids("--until", "2026-01-10", "--player", "Ana") == ["test:g1"]
    out = tmp_path / "ana.jsonl"
    r = run("export", "jsonl", "--lake", lake, "--player", "Ana", "--since", "2026-01-15", "--output", out)
    assert r.exit_code == 0 and "export: 1 game, 2 hands" in r.stderr
    assert [orjson.loads(x)["source_game_id"] for x in out.read_bytes().splitlines()] == ["g3"]


def test_the_command_uses_arrows_system_allocator_unless_one_is_set():
    # pipeline/cli/__init__.py sets ARROW_DEFAULT_MEMORY_POOL to "system" before pyarrow is imported (a rescore's
    # peak memory grows less with the lake: docs/bench-results.md), keeping a value the user set. Checked in a
    # fresh interpreter, as the `rebelote` script starts: the pool is chosen when pyarrow is first imported.
    import os
    import subprocess
    import sys

    code = "import pipeline.cli, pyarrow as pa; print(pa.default_memory_pool().backend_name)"
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "system"
    got = subprocess.run([sys.executable, "-c", code], env={**env, "ARROW_DEFAULT_MEMORY_POOL": "mimalloc"},
                         capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "mimalloc"
