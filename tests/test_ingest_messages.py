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
