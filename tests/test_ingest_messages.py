"""What a user meets when an import goes wrong (issue #4, from a fresh-user trial): an unrecognised file named on
the command line, reject reasons in words rather than Python exceptions, and `rejects --reason` with a code the
lake does not hold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, native_game, native_hand
from pipeline.cli import app

runner = CliRunner()
DATA = Path(__file__).resolve().parents[1] / "data"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


# ------------------------------------------------------------------ 4. an unrecognised file named on the command line

def test_an_unrecognised_file_named_explicitly_exits_1(tmp_path):
    # data/README.md is the demo sample's own text: no reader recognises it (docs/ingest.md says so)
    readme = tmp_path / "README.md"
    shutil.copy(DATA / "README.md", readme)
    r = run("ingest", readme, "--lake", tmp_path / "lake")
    assert r.exit_code == 1, r.output
    assert f"{readme}: not recognised" in r.stderr
    assert ("1 file not recognised (all named on the command line: exit status 1; --format forces a reader)"
            in r.stdout)


def test_an_unrecognised_file_met_in_a_folder_stays_a_note(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "scores.dat").write_text("Tuesday 1240 - 980\n")
    shutil.copy(DATA / "README.md", folder / "README.md")   # documentation: counted, no line of its own
    write_jsonl(folder / "games.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0)])])
    r = run("ingest", folder, "--lake", tmp_path / "lake")
    assert r.exit_code == 0, r.output
    assert "1 game, 1 hand" in r.stdout and "; 1 file not recognised" in r.stdout
    assert "1 documentation file skipped (README.md)" in r.stdout and "README.md: not recognised" not in r.stderr
    assert "named on the command line" not in r.stdout
    # another such file named beside the folder: 2 not recognised, 1 of them named, exit 1
    notes = tmp_path / "notes.txt"
    notes.write_text("scores of Tuesday: see the sheet\n")
    r = run("ingest", folder, notes, "--lake", tmp_path / "lake")
    assert r.exit_code == 1, r.output
    assert "2 files not recognised (1 named on the command line: exit status 1" in r.stdout


# ------------------------------------------------------------------ 3. rejects --reason with a code the lake lacks

def _lake_with_rejects(tmp_path: Path) -> Path:
    """A lake with 2 rejects: an empty file (empty_file) and a native line cut short (invalid_json)."""
    lake = tmp_path / "lake"
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "cut.jsonl").write_text('{"format": "rebelote", "version": 1, "game_id": "g1"\n')
    r = run("ingest", tmp_path / "empty.jsonl", tmp_path / "cut.jsonl", "--lake", lake, "-q")
    assert r.exit_code == 1 and "2 rejected (empty_file 1, invalid_json 1)" in r.stdout, r.output
    return lake


def test_rejects_with_an_unknown_reason_code_says_so_and_lists_the_codes_present(tmp_path):
    lake = _lake_with_rejects(tmp_path)
    r = run("rejects", "--lake", lake, "--reason", "nonsense")
    assert r.exit_code == 2, r.output          # a code Rebelote never gives: a usage error, as a misspelt option
    assert r.stdout.splitlines() == [
        "no rejects match the filters",
        "--reason 'nonsense' is not a reject code Rebelote gives",
        "reason codes in the lake: empty_file (1), invalid_json (1)"]
    # a typo gets the codes spelt like it (difflib, cutoff 0.6)
    r = run("rejects", "--lake", lake, "--reason", "invalid_jsn")
    assert "--reason 'invalid_jsn' is not a reject code Rebelote gives (did you mean invalid_json?)" in r.stdout
    assert r.exit_code == 2


def test_rejects_with_a_known_code_absent_from_the_lake_lists_the_codes_present(tmp_path):
    lake = _lake_with_rejects(tmp_path)
    r = run("rejects", "--lake", lake, "--reason", "card_played_twice")
    assert r.stdout.splitlines() == ["no rejects match the filters",
                                     "reason codes in the lake: empty_file (1), invalid_json (1)"]
    # with --file, the codes of the files it keeps; in CSV the table stays clean on stdout, the notes go to stderr
    r = run("rejects", "--lake", lake, "--reason", "card_played_twice", "--file", "cut", "--format", "csv")
    assert r.stdout.startswith('"reject_key"') and len(r.stdout.splitlines()) == 1
    assert "reason codes in the rejects of the files matching --file: invalid_json (1)" in r.stderr
    # a lake that is not there is an error (a mistyped --lake), not a lake without rejects
    r = run("rejects", "--lake", tmp_path / "no-lake", "--reason", "empty_file")
    assert r.exit_code == 2 and "lake folder not found" in r.stderr


def _codes_written_in(source: Path) -> set[str]:
    """Reason codes written as literals where pipeline code builds a reject: the code argument of Reject (2nd),
    RecordError, coinche-cli's and BGA's _Bad, bad() and the checks' rej() (1st), run._file_reject (3rd) and the
    score sheet's fail() (2nd or code=); both branches of a conditional expression count."""
    import ast

    pos = {"Reject": 1, "RecordError": 0, "_Bad": 0, "bad": 0, "rej": 0, "_file_reject": 2, "fail": 1,
           "LimitExceeded": 0}

    def literals(node) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.IfExp):
            return literals(node.body) + literals(node.orelse)
        return []
    out: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name not in pos:
            continue
        args = node.args[pos[name]:pos[name] + 1] + [k.value for k in node.keywords if k.arg == "code"]
        for a in args:
            out.update(literals(a))
    return out


def test_every_reject_code_written_in_the_code_is_registered_and_every_registered_code_is_written():
    from pipeline.ingest import reject_codes

    root = Path(__file__).resolve().parents[1] / "pipeline"
    written = set().union(*(_codes_written_in(f) for f in root.rglob("*.py")))
    assert written - set(reject_codes.CODES) == set()
    assert set(reject_codes.CODES) - written == set()


# ------------------------------------------------------------------ 2. reject reasons in words, forced readers named

def _rejected(args: tuple, lake: Path) -> list[dict]:
    """``rebelote ingest ARGS --lake LAKE``, which must exit 1 (something rejected); the lake's rejects as rows."""
    r = run("ingest", *args, "--lake", lake)
    assert r.exit_code == 1, r.output
    return json.loads(run("rejects", "--lake", lake, "--format", "json").stdout)


def test_the_wrong_reader_forced_names_the_missing_field_and_the_reader_detection_chooses(tmp_path):
    # the trial's case: a club's native file forced through the colver reader gave "KeyError 'deal_no'"
    club = write_jsonl(tmp_path / "club.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0)])
                                                 | {"game_id": "test:g1"}])
    rows = _rejected((club, "--format", "colver"), tmp_path / "lake")
    assert [(x["reason_code"], x["reason"]) for x in rows] == [
        ("missing_field", "malformed colver deal: missing field 'deal_no' (the whole game is rejected) (detection "
                          "reads this file as 'rebelote'; drop --format)")]
    # a reader whose other files give nothing by design (coinche-cli) still rejects a file it would not claim
    rows = _rejected((club, "--format", "coinche-cli"), tmp_path / "lake2")
    assert [(x["reason_code"], x["reason"]) for x in rows] == [
        ("no_records", "the coinche-cli reader found no game record in the file (it does not look like a "
                       "coinche-cli file) (detection reads this file as 'rebelote'; drop --format)")]


def test_a_reader_forced_on_a_file_no_reader_recognises_adds_no_hint(tmp_path):
    # --format on an unrecognised file is what the option is for: the reason stays the reader's own
    f = tmp_path / "golden.json"
    f.write_text('{"rounds": []}\n')
    rows = _rejected((f, "--format", "bridgebelot2001"), tmp_path / "lake")
    assert [(x["reason_code"], x["reason"]) for x in rows] == [
        ("missing_field", "not a golden_score.json document: it must be an object whose 'scoring' field lists the "
                          "rounds")]


def test_a_wrong_type_names_the_field_when_the_record_shows_which(tmp_path):
    # a colver deal (detected: engine colver and a deal_no) whose hands are null
    f = write_jsonl(tmp_path / "deals.jsonl", [{"engine": "colver", "game_id": "g1", "deal_no": 1, "hands": None}])
    rows = _rejected((f,), tmp_path / "lake")
    assert [(x["reason_code"], x["game_id"], x["hand_no"], x["reason"]) for x in rows] == [
        ("bad_record", "colver:g1", 1, "malformed colver deal: field 'hands' holds null where the format expects an "
                                       "object or a list (the whole game is rejected)")]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the errors readers catch
        return e
    raise AssertionError("no error")


def test_malformed_turns_python_errors_into_words():
    from pipeline.formats.records import malformed

    rec = {"game_id": "g1", "contract": "Z", "bots": 5, "scoring": [{"level": "q"}], "hands": None}
    # a missing key is a missing field; a key that is one of the record's values is an unknown value, named
    assert malformed(_error(lambda: rec["deal_no"]), rec) == ("missing_field", "missing field 'deal_no'")
    assert malformed(_error(lambda: {"S": 0}[rec["contract"]]), rec) == (
        "bad_value", "unknown value 'Z' in field 'contract'")
    assert malformed(_error(lambda: {"x": 0}[rec["scoring"][0]["level"]]), rec) == (
        "bad_value", "unknown value 'q' in field 'scoring[0].level'")
    # wrong JSON kinds, with the field when exactly one field of the record holds that kind
    assert malformed(_error(lambda: rec["hands"]["rank_suit"]), rec) == (
        "bad_record", "field 'hands' holds null where the format expects an object or a list")
    assert malformed(_error(lambda: len(rec["bots"])), rec) == (
        "bad_record", "field 'bots' holds a number where the format expects a list")
    assert malformed(_error(lambda: rec["contract"].get("value")), rec) == (
        "bad_record", "a field holds text where the format expects an object")   # 3 text fields: not named
    assert malformed(_error(lambda: int(None))) == ("bad_record", "a field holds null where the format expects a "
                                                                  "number")
    assert malformed(_error(lambda: [][0])) == ("bad_record", "a list in the record is shorter than the format "
                                                              "requires")
    assert malformed(_error(lambda: int("x7"))) == ("bad_value", "'x7' is not a whole number")


def test_a_file_rejected_whole_is_not_also_called_not_recognised(tmp_path):
    # a zip (or an unreadable, UTF-16 or whitespace-bomb file) was rejected, then listed as "not recognised
    # (skipped; use --format to force a reader)", which sent the user to --format for a file no reader can read
    import io
    import zipfile

    z = tmp_path / "games.jsonl"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("games.jsonl", "{}\n")
    z.write_bytes(buf.getvalue())
    r = run("ingest", z, "--lake", tmp_path / "lake")
    assert r.exit_code == 1, r.output
    assert "the file is a zip archive" in r.stderr and "not recognised" not in r.stderr + r.stdout
