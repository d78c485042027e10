"""Small things a new user met (new-user trial, issue 5): `rules show` of a house file without a description, the
score sheet's totals_mismatch message naming each value's hand, and `export`'s error prefix."""

from __future__ import annotations

from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.formats import scoresheet_csv
def test_rules_show_prints_no_empty_description_line(tmp_path):
    f = tmp_path / "my-club.toml"
    f.write_text('name = "my-club"\nextends = "belote-classic"\n\n[game]\ntarget = 501\n', encoding="utf-8")
    r = CliRunner().invoke(app, ["rules", "show", str(f)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    # the chain from pipeline/rules/rulesets (belote-classic extends ffb-classic-announcements ...), then one
    # blank line and the sources line: no empty description line in between
    assert lines[0] == "my-club (my-club < belote-classic < ffb-classic-announcements < ffb-classic < base)"
    assert lines[1] == "" and lines[2].startswith("Sources cited (")
    # a ruleset with a description keeps it on the second line
    r = CliRunner().invoke(app, ["rules", "show", "belote-classic"])
    assert r.stdout.splitlines()[1] != "" and r.stdout.splitlines()[2] == ""


def _reject(text: str):
    lines, offset = [], 0
    for i, line in enumerate(text.splitlines(keepends=True), start=1):
        lines.append((i, offset, line))
        offset += len(line.encode())
    (rej,) = [r for r in scoresheet_csv.read(iter(lines), "sheet.csv") if hasattr(r, "reason")]
    return rej


def test_totals_mismatch_names_the_hand_of_each_value():
    head = "game_id,hand_no,variant,team_a,team_b,dealer,taker,strain,made,score_a,score_b,total_a,total_b\n"
    # hand 1 totals 90 - 0; hand 2 scores 0 - 0 but writes total_b 50: 0 (hand 1's total_b) + 0 (hand 2's score_b)
    rej = _reject(head + "g,1,belote,R,B,A,A,S,yes,90,0,90,0\ng,2,,,,,B,H,,0,0,90,50\n")
    assert rej.reason.startswith("the running totals do not add up: total_b is 50 but hand 1's total_b 0 + hand 2's "
                                 "score_b 0 = 0")
    # totals left empty on hand 2: hands 2..3's scores are named as such (unchanged wording)
    rej = _reject(head + "g,1,belote,R,B,A,A,S,yes,90,0,90,0\ng,2,,,,,B,H,,0,0,,\ng,3,,,,,A,H,,0,0,90,50\n")
    assert "total_b is 50 but hand 1's total_b 0 + the score_b of hands 2..3 (0) = 0" in rej.reason
    # before hand 1, the base is 0
    rej = _reject(head + "g,1,belote,R,B,A,A,S,yes,90,0,90,10\n")
    assert "total_b is 10 but 0 before hand 1 + hand 1's score_b 0 = 0" in rej.reason


def test_export_errors_start_with_lowercase_error(tmp_path):
    r = CliRunner().invoke(app, ["export", "--format", "csv", "--lake", str(tmp_path)])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: unknown export format 'csv'")
    # a report's formats name the command that writes a report to such a file
    assert "rebelote stats REPORT --output FILE.csv" in " ".join(r.stderr.split())
    r = CliRunner().invoke(app, ["export", "--format", "xml", "--lake", str(tmp_path)])
    assert r.exit_code == 2 and "stats REPORT" not in r.stderr


def test_rescore_summary_counts_one_hand_and_one_game_in_the_singular():
    from collections import Counter

    from pipeline.rescore import RescoreSummary

    one = RescoreSummary("belote-classic", hands=1, games=1, status=Counter(scored=1), seconds=1.0)
    assert str(one).startswith("rescore [belote-classic]: 1 hand (1 scored), 1 game, 0 with an illegal play")
    two = RescoreSummary("belote-classic", hands=2, games=2, status=Counter(scored=2), seconds=1.0)
    assert str(two).startswith("rescore [belote-classic]: 2 hands (2 scored), 2 games, 0 with an")


def test_a_report_on_a_lake_without_hands_says_ingest_not_rescore(tmp_path):
    # a new user's trial: on a lake holding only a reject, `stats players` said "run rescore first" and rescore
    # then said "no hands in lake (run rebelote ingest first)"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "rebelote", broken\n')
    lake = tmp_path / "lake"
    r = CliRunner().invoke(app, ["ingest", str(bad), "--lake", str(lake), "-q"])
    assert r.exit_code == 1, r.output                     # the one record rejected
    for cmd in (["stats", "players"], ["report", "--html", str(tmp_path / "r.html")]):
        r = CliRunner().invoke(app, [*cmd, "--lake", str(lake)])
        assert r.exit_code == 2 and "the lake holds no hands yet: run rebelote ingest first" in r.stderr, r.output


def test_compare_checks_both_rulesets_before_scoring_either(tmp_path):
    # a new user's trial: `compare --rules colver --rules nope` scored the lake under colver, then failed on nope
    from pathlib import Path
    lake = tmp_path / "lake"
    data = Path(__file__).resolve().parents[1] / "data" / "colver-real"
    assert CliRunner().invoke(app, ["ingest", str(data), "--lake", str(lake), "--no-score", "-q"]).exit_code == 0
    r = CliRunner().invoke(app, ["compare", "--rules", "colver", "--rules", "nope", "--lake", str(lake)])
    assert r.exit_code == 2 and "unknown ruleset 'nope'" in r.stderr and "scoring the lake" not in r.stderr
    assert not (lake / "scores").exists()


def test_a_folder_of_other_files_is_not_made_a_lake(tmp_path):
    # a new user's trial: `ingest records --lake records` read nothing ("the lake's own folder is inside a folder
    # being imported") and exited 0, and `--lake` on a folder of score sheets wrote the lake's folders among them
    from pathlib import Path
    folder = tmp_path / "records"
    folder.mkdir()
    sample = Path(__file__).resolve().parents[1] / "data" / "colver-real" / "deals.jsonl"
    (folder / "deals.jsonl").write_bytes(sample.read_bytes())
    r = CliRunner().invoke(app, ["ingest", str(folder), "--lake", str(folder)])
    assert r.exit_code == 2 and "a folder of other files, not a lake" in r.stderr, r.output
    assert sorted(p.name for p in folder.iterdir()) == ["deals.jsonl"]       # nothing written beside it
    lake = tmp_path / "lake"                                                # a new folder: a lake, as before
    assert CliRunner().invoke(app, ["ingest", str(folder), "--lake", str(lake), "--no-score", "-q"]).exit_code == 0
    assert CliRunner().invoke(app, ["ingest", str(folder), "--lake", str(lake), "--no-score", "-q"]).exit_code == 0


def test_rules_show_own_says_what_own_is(tmp_path):
    # a new user's trial: `rules show own` answered "unknown ruleset 'own'" although --rules own works everywhere
    r = CliRunner().invoke(app, ["rules", "show", "own"])
    assert r.exit_code == 2 and "'own' is not one ruleset: each game is scored under its own" in " ".join(r.stderr.split())
    assert "rebelote rules sources --lake DIR" in " ".join(r.stderr.split())


def test_export_csv_points_to_the_stats_output(tmp_path):
    # a new user typed `rebelote export csv` (export writes JSON Lines or DuckDB; a report's CSV comes from stats)
    for fmt in ("csv", "json", "parquet"):
        r = CliRunner().invoke(app, ["export", fmt, "--lake", str(tmp_path / "lake")])
        text = " ".join(r.output.split()).replace("│ ", "").replace(" │", "")
        assert r.exit_code == 2 and f"rebelote stats players -o players.{fmt}" in text, r.output
    r = CliRunner().invoke(app, ["export", "nope"])
    assert r.exit_code == 2 and "No such command 'nope'" in r.output


def test_a_reader_says_what_its_lake_path_is_instead(tmp_path):
    # new-user trial: `status --lake FILE` said "lake folder not found", and `status --lake` on a folder of
    # records reported an empty lake; every reader now says what the path is (pipeline.storage.lake.unreadable)
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "deals.jsonl").write_text("{}\n")
    cases = {"notes.txt": "--lake names a file, not a lake folder", "records": "is a folder of other files, not a lake",
             "nothing": "lake folder not found"}
    for name, said in cases.items():
        for cmd in (["status"], ["stats", "players"]):
            r = CliRunner().invoke(app, [*cmd, "--lake", str(tmp_path / name)])
            assert r.exit_code == 2 and said in " ".join(r.stderr.split()), (cmd, name, r.output)


def test_pseudonymize_does_not_take_the_next_option_as_its_salt(tmp_path):
    # new-user trial: `stats players --pseudonymize --source coinche-cli` said only "unexpected extra argument"
    # (--source had become the salt); the option now says what happened, before the lake is read
    r = CliRunner().invoke(app, ["stats", "players", "--pseudonymize", "--source", "x", "--lake", str(tmp_path)])
    text = " ".join(r.output.split()).replace("│ ", "").replace(" │", "")
    assert r.exit_code == 2 and "'--source' looks like the next option" in text, r.output
    r = CliRunner().invoke(app, ["stats", "players", "--pseudonymize", "-o", "p.csv", "--lake", str(tmp_path)])
    text = " ".join(r.output.split()).replace("│ ", "").replace(" │", "")
    assert r.exit_code == 2 and "'-o' looks like the next option" in text, r.output


def test_a_rescore_replacing_scores_of_other_rules_under_the_same_name_says_so(tmp_path):
    # two house-rules files named alike share the ruleset's partition: the second rescore replaces the first's
    # scores, and says which values differ (pipeline.stats.scored_with.changed_parameters); the same rules again:
    # no note
    from conftest import write_jsonl
    from deals import DEAL_A, native_game, native_hand
    lake = tmp_path / "lake"
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("a", [native_hand(DEAL_A, 1, taker=0)])])
    assert CliRunner().invoke(app, ["ingest", str(f), "--lake", str(lake), "--no-score"]).exit_code == 0
    files = []
    for folder, last in (("a", 10), ("b", 0)):
        (tmp_path / folder).mkdir()
        files.append(tmp_path / folder / "house.toml")
        files[-1].write_text(f'name = "house"\nextends = "belote-classic"\n[cards]\nlast_trick = {last}\n',
                             encoding="utf-8")
    runs = [CliRunner().invoke(app, ["rescore", "--rules", str(p), "--lake", str(lake)]) for p in files + files[1:]]
    assert [r.exit_code for r in runs] == [0, 0, 0]
    # (not any "note:": the engine's compile note prints on a cold numba cache or a loaded machine)
    assert "was scored before" not in runs[0].stderr and "was scored before" not in runs[2].stderr
    assert ("note: ruleset 'house' was scored before with other values (cards.last_trick 10 -> 0): those scores "
            "and report rows were replaced") in " ".join(runs[1].stderr.split())


def test_compare_says_when_the_game_targets_differ(tmp_path):
    # a what-if on the target moves the hand where games end, so winners differ with no hand's score differing:
    # compare says why (the note names both targets); two rulesets with the same target: no note
    from conftest import write_jsonl
    from deals import DEAL_A, native_game, native_hand
    lake = tmp_path / "lake"
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("a", [native_hand(DEAL_A, 1, taker=0)])])
    assert CliRunner().invoke(app, ["ingest", str(f), "--lake", str(lake), "--no-score"]).exit_code == 0
    short = tmp_path / "short.toml"
    short.write_text('name = "short"\nextends = "belote-classic"\n[game]\ntarget = 301\n', encoding="utf-8")
    same = tmp_path / "same.toml"
    same.write_text('name = "same"\nextends = "belote-classic"\n[cards]\nlast_trick = 0\n', encoding="utf-8")
    r = CliRunner().invoke(app, ["compare", "--rules", "belote-classic", "--rules", str(short), "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert ("note: the game targets differ (belote-classic 1000, short 301): a game ends at another hand under "
            "each, so its winner may differ even where no hand's score does") in " ".join(r.stderr.split())
    r = CliRunner().invoke(app, ["compare", "--rules", "belote-classic", "--rules", str(same), "--lake", str(lake)])
    assert r.exit_code == 0 and "targets differ" not in r.stderr


def test_rules_sources_set_names_a_source_the_lake_does_not_have(tmp_path):
    # new-user trial: `rules sources --set colvr=...` (a typo) was kept without a word. It is still kept (a
    # source not imported yet is a fair choice), with a note naming the lake's sources and the closest one.
    from conftest import write_jsonl
    from deals import DEAL_A, native_game, native_hand
    lake = tmp_path / "lake"
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("a", [native_hand(DEAL_A, 1, taker=0)], source="colver")])
    assert CliRunner().invoke(app, ["ingest", str(f), "--lake", str(lake), "--no-score"]).exit_code == 0
    r = CliRunner().invoke(app, ["rules", "sources", "--set", "colvr=pagat-coinche", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert ("note: --set colvr: no game of the lake has source 'colvr' (did you mean colver? the lake's: colver); "
            "the choice is kept for games imported later") in " ".join(r.stderr.split())
    r = CliRunner().invoke(app, ["rules", "sources", "--set", "colver=pagat-coinche", "--lake", str(lake)])
    assert r.exit_code == 0 and "no game of the lake has" not in r.stderr
    # the key is the user's text, printed as it is (rich markup in it is not read: a review crashed it with [/])
    r = CliRunner().invoke(app, ["rules", "sources", "--set", "colv[/]=pagat-coinche", "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert "no game of the lake has source 'colv[/]'" in " ".join(r.stderr.split())


def test_a_misspelt_format_names_the_closest_readers(tmp_path):
    # new-user trial: --format colvr listed the formats without the did-you-mean rulesets and reports give
    f = tmp_path / "x.jsonl"
    f.write_text("{}\n")
    r = CliRunner().invoke(app, ["ingest", str(f), "--format", "colvr", "--lake", str(tmp_path / "lake")])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: unknown format 'colvr'; did you mean colver or colver-cfn? known formats: ")


def test_a_value_option_given_the_next_option_says_so(tmp_path):
    # new-user trial: `stats ratings --predict --limit 5` took --limit as the team and then complained of an
    # extra argument 5; --predict, --player, --source and --variant refuse a value starting with --
    for args in (["stats", "ratings", "--predict", "--limit", "5"], ["stats", "players", "--player", "--limit", "5"],
                 ["stats", "players", "--source", "--sort", "hands"]):
        r = CliRunner().invoke(app, [*args, "--lake", str(tmp_path / "lake")])
        assert r.exit_code == 2, args
        said = " ".join(r.stderr.replace("│", " ").split())
        assert f"Invalid value for '{args[2]}': needs a value: '{args[3]}' looks like the next option" in said, said
