"""What a user meets when an import goes wrong (issue #4, from a fresh-user trial): an unrecognised file named on
the command line, reject reasons in words rather than Python exceptions, and `rejects --reason` with a code the
lake does not hold."""

from __future__ import annotations

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
    # data/README.md is the demo sample's own text: no reader recognises it (README's ingest section says so)
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
    shutil.copy(DATA / "README.md", folder / "README.md")
    write_jsonl(folder / "games.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0)])])
    r = run("ingest", folder, "--lake", tmp_path / "lake")
    assert r.exit_code == 0, r.output
    assert "1 games, 1 hands" in r.stdout and "; 1 file not recognised" in r.stdout
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
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        "no rejects match the filters",
        "--reason 'nonsense' is not a reject code Rebelote gives",
        "reason codes in the lake: empty_file (1), invalid_json (1)"]
    # a typo gets the codes spelt like it (difflib, cutoff 0.6)
    r = run("rejects", "--lake", lake, "--reason", "invalid_jsn")
    assert "--reason 'invalid_jsn' is not a reject code Rebelote gives (did you mean invalid_json?)" in r.stdout


def test_rejects_with_a_known_code_absent_from_the_lake_lists_the_codes_present(tmp_path):
    lake = _lake_with_rejects(tmp_path)
    r = run("rejects", "--lake", lake, "--reason", "card_played_twice")
    assert r.stdout.splitlines() == ["no rejects match the filters",
                                     "reason codes in the lake: empty_file (1), invalid_json (1)"]
    # with --file, the codes of the files it keeps; in CSV the table stays clean on stdout, the notes go to stderr
    r = run("rejects", "--lake", lake, "--reason", "card_played_twice", "--file", "cut", "--format", "csv")
    assert r.stdout.startswith('"reject_key"') and len(r.stdout.splitlines()) == 1
    assert "reason codes in the rejects of the files matching --file: invalid_json (1)" in r.stderr
    r = run("rejects", "--lake", tmp_path / "no-lake", "--reason", "empty_file")
    assert r.stdout.splitlines() == ["no rejects match the filters", "the lake holds no rejects"]


def _codes_written_in(source: Path) -> set[str]:
    """Reason codes written as literals where pipeline code builds a reject: the code argument of Reject (2nd),
    RecordError, coinche-cli's and BGA's _Bad, bad() and the checks' rej() (1st), run._file_reject (3rd) and the
    score sheet's fail() (2nd or code=); both branches of a conditional expression count."""
    import ast

    pos = {"Reject": 1, "RecordError": 0, "_Bad": 0, "bad": 0, "rej": 0, "_file_reject": 2, "fail": 1}

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
