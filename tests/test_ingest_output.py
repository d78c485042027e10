"""`rebelote ingest FOLDER` prints a line per file only for files that need a look (new-user trial, issue 2: the
real folder gave 3,281 lines), then one line per format read and the total; `--verbose` lists every file.

The folder (built here): three native files of one game of one hand each, the third followed by a line cut
short (rejected, invalid_json), a score sheet of one game of 2 hands, and data/README.md (documentation: no
reader reads it, and it is counted apart from the files not recognised). So: 5 files; rebelote 3 files, 3 games, 3 hands, 1 rejected; scoresheet-csv 1 file, 1 game, 2 hands.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, native_game, native_hand
from pipeline.cli import app

DATA = Path(__file__).resolve().parents[1] / "data"
SHEET = ("game_id,hand_no,variant,player1,player2,player3,player4,dealer,taker,strain,made,score_a,score_b\n"
         "g,1,belote,Ana,Ben,Cat,Dan,Ana,Ben,H,yes,60,102\n"
         "g,2,,,,,,,Ana,S,yes,100,62\n")


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    write_jsonl(d / "a.jsonl", [native_game("a", [native_hand(DEAL_A, 1, taker=0)])])
    write_jsonl(d / "b.jsonl", [native_game("b", [native_hand(DEAL_K, 1, taker=0)])])
    write_jsonl(d / "c.jsonl", [native_game("c", [native_hand(DEAL_A, 1, taker=0)])])
    with open(d / "c.jsonl", "a", encoding="utf-8") as f:
        f.write('{"format": "rebelote", "game_id": "cut')
    (d / "d.csv").write_text(SHEET, encoding="utf-8")
    shutil.copy(DATA / "README.md", d / "README.md")
    return d


def _run(*args):
    return CliRunner().invoke(app, ["ingest", *map(str, args)])


def test_default_output_names_only_files_that_need_a_look_then_one_line_per_format(tmp_path):
    d = _folder(tmp_path)
    r = _run(d, "--lake", tmp_path / "lake")
    assert r.exit_code == 1, r.output       # a rejected game: exit status 1 (docs/ingest.md)
    err = r.stderr.splitlines()
    # the clean files are not listed; the file with a reject is, once, before its reject; the README documents
    # the folder: no line, one count in the summary
    assert [ln for ln in err if not ln.startswith("rejected ")] == [f"{d / 'c.jsonl'}: rebelote"]
    assert len([ln for ln in err if ln.startswith("rejected ")]) == 1
    out = r.stdout.splitlines()
    # per format, in name order, counted from the folder above; then the total line
    assert out[:2] == ["  rebelote: 3 files, 3 games, 3 hands, 0 duplicates skipped, 1 rejected",
                       "  scoresheet-csv: 1 file, 1 game, 2 hands, 0 duplicates skipped, 0 rejected"]
    assert out[2].startswith("ingest: 5 files, 4 games, 5 hands, 0 duplicates skipped, 1 rejected (invalid_json 1)")
    # then the games are scored under their own rules: the rescore's summary line (issue 17)
    assert out[3].startswith("rescore [own] (each game under its own ruleset: ") and len(out) == 4


def test_verbose_lists_every_file_and_quiet_only_the_total(tmp_path):
    d = _folder(tmp_path)
    r = _run(d, "--lake", tmp_path / "lake", "--verbose")
    files = [ln for ln in r.stderr.splitlines() if not ln.startswith("rejected ")]
    assert files == [f"{d / n}: {f}" for n, f in [
        ("README.md", "documentation (skipped)"), ("a.jsonl", "rebelote"),
        ("b.jsonl", "rebelote"), ("c.jsonl", "rebelote"), ("d.csv", "scoresheet-csv")]]
    r = _run(d, "--lake", tmp_path / "lake2", "--quiet")
    assert r.stderr == "" and r.stdout.startswith("ingest: 5 files")
    assert [x.split(" ", 1)[0] for x in r.stdout.splitlines()] == ["ingest:", "rescore"]   # the two summary lines


def test_progress_by_bytes_read(tmp_path):
    # issue 17: the ingest bar counted files (`1/1` for a minute on one big file); it now follows the byte
    # offset the readers reach. The offsets reported rise and end at the last record's line start or beyond.
    from pipeline.ingest.run import ingest_paths
    from pipeline.rules import load
    from pipeline.simulate.games import simulate, write_jsonl

    f = tmp_path / "g.jsonl"
    write_jsonl(simulate(load("belote-classic"), 6, 5), f)
    seen: list[int] = []
    ingest_paths([f], tmp_path / "lake", on_bytes=seen.append)
    last_line = f.read_bytes().rstrip(b"\n").rfind(b"\n") + 1
    assert seen and seen == sorted(seen) and seen[-1] >= last_line and seen[-1] <= f.stat().st_size


def test_progress_by_bytes_on_the_row_path(tmp_path, monkeypatch):
    # a version 1 native file is read by the row path, which reports every PROGRESS_BYTES (1 byte here)
    from conftest import write_jsonl
    from deals import DEAL_A, DEAL_K, native_game, native_hand
    from pipeline.ingest import run as runmod

    monkeypatch.setattr(runmod, "PROGRESS_BYTES", 1)
    f = write_jsonl(tmp_path / "v1.jsonl", [native_game(f"g{i}", [native_hand(DEAL_A, 1, taker=0),
                                                                   native_hand(DEAL_K, 2, taker=0)]) for i in range(3)])
    seen: list[int] = []
    runmod.ingest_paths([f], tmp_path / "lake", on_bytes=seen.append)
    starts = [0] + [i + 1 for i, b in enumerate(f.read_bytes()[:-1]) if b == 0x0A]   # each line's first byte
    assert seen == starts[1:]          # one call per record read past offset 0, at its line's start


def _bad_lines(path: Path, n: int) -> None:
    """``n`` native lines cut short (each rejected, invalid_json) after one good game."""
    write_jsonl(path, [native_game("ok", [native_hand(DEAL_A, 1, taker=0)])])
    with open(path, "a", encoding="utf-8") as f:
        for i in range(n):
            f.write(f'{{"format": "rebelote", "game_id": "cut{i}\n')


def test_a_file_prints_its_first_problems_then_counts_the_rest(tmp_path):
    # 25 rejects in one file: the first SHOWN (20) are printed, then one line counting the other 5 by reason
    # and naming the command that lists them, with the lake given (pipeline/cli/ingest_console.py)
    from pipeline.cli.ingest_console import SHOWN
    assert SHOWN == 20
    f = tmp_path / "bad.jsonl"
    _bad_lines(f, 25)
    lake = tmp_path / "lake"
    r = _run(f, "--lake", lake, "--no-score")
    assert r.exit_code == 1, r.output
    err = r.stderr.splitlines()
    assert len([ln for ln in err if ln.startswith("rejected ")]) == 20
    assert err[-1] == (f"... {f}: 5 more rejects not shown (5 invalid_json); "
                       f"list them: rebelote rejects --file {f} --lake {lake}")
    assert "25 rejected (invalid_json 25)" in r.stdout
    # --verbose prints every one, and nothing is counted apart
    r = _run(f, "--lake", tmp_path / "lake2", "--no-score", "--verbose")
    err = r.stderr.splitlines()
    assert len([ln for ln in err if ln.startswith("rejected ")]) == 25
    assert not any(ln.startswith("...") for ln in err)
    # every reject is in the lake: `rejects` lists the 25, and --limit the first ones in line order
    r = CliRunner().invoke(app, ["rejects", "--lake", str(lake), "--format", "json"])
    assert len(json.loads(r.stdout)) == 25
    r = CliRunner().invoke(app, ["rejects", "--lake", str(lake), "--format", "json", "--limit", "3"])
    # source_line: the cut lines follow the good game's line 1
    assert [row["source_line"] for row in json.loads(r.stdout)] == [2, 3, 4]
    assert "the first 3 of 25 rejects" in r.stderr
