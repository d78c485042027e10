"""Regression tests of the attacks of issue 18 beyond its seven findings that failed (the whole list, with the
result of each: the issue's note). Each test failed before its fix."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import threading
import zipfile

import orjson
import pytest

from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rules import load
from pipeline.simulate.games import simulate

GAMES = b"".join(orjson.dumps(g) + b"\n" for g in simulate(load("belote-classic"), 2, 7))


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:        # stored, not deflated: the members' bytes are there as text
        z.writestr("games.jsonl", data)
    return out.getvalue()


def _tar(data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        info = tarfile.TarInfo("games.jsonl")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize("pack, what, how", [
    (_zip, "a zip archive", "unzip"),
    (lzma.compress, "xz-compressed", "xz -d"),
    (bz2.compress, "bzip2-compressed", "bunzip2"),
    (_tar, "a tar archive", "tar -xf"),
    (lambda d: gzip.compress(gzip.compress(d)), "gzip-compressed twice (a gzip inside the gzip)", "gunzip"),
], ids=["zip", "xz", "bz2", "tar", "gzip-in-gzip"])
def test_an_archive_or_other_compression_is_named_for_what_it_is(tmp_path, pack, what, how):
    # a stored zip was read as text: the games on lines of their own imported, the first one (on the zip header's
    # line) and the directory rejected as bad_encoding; xz, bzip2, tar and a double gzip were only "not recognised"
    f = tmp_path / "games.jsonl.pack"
    f.write_bytes(pack(GAMES))
    s = ingest_paths([f], tmp_path / "lake", fmt="rebelote")
    assert (s.games, dict(s.rejected)) == (0, {"unreadable_file": 1})
    r = lakemod.read(tmp_path / "lake", "rejects", ["reason", "source_line"]).to_pylist()
    assert r == [{"reason": f"the file is {what}: the ingest reads plain text and gzip files; unpack it first "
                            f"({how}) and import what it holds", "source_line": None}]


def test_concatenated_gzip_members_are_read_as_one_file(tmp_path):
    first, rest = GAMES.split(b"\n", 1)
    f = tmp_path / "two.jsonl.gz"
    f.write_bytes(gzip.compress(first + b"\n") + gzip.compress(rest))
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (2, {})


# ----------------------------------------------------------------------------------------------------------
# house-rules files (rebelote rescore --rules FILE): each was a traceback, a hang or 40 s of reading
# ----------------------------------------------------------------------------------------------------------

def _house(path, text: str):
    path.write_text(text)
    return path


def test_a_ruleset_fifo_is_refused_instead_of_blocking_for_ever(tmp_path):
    import os

    from pipeline.rules import RulesetError
    fifo = tmp_path / "house.toml"
    os.mkfifo(fifo)                       # opening it waited for a writer that never comes
    got: list = []

    def attempt():
        try:
            load(str(fifo))
        except RulesetError as e:
            got.append(str(e))
    t = threading.Thread(target=attempt, daemon=True)   # a blocked open stays in its thread: the test fails, not hangs
    t.start()
    t.join(30)
    assert got == [f"{fifo}: not a regular file (a folder, pipe or device): a ruleset is a .toml file"]


def test_a_ruleset_nested_thousands_deep_is_a_ruleset_error_not_a_recursion_error(tmp_path):
    from pipeline.rules import RulesetError
    f = _house(tmp_path / "nest.toml", 'name = "nest"\nextends = "belote-classic"\nx = ' + "[" * 5000 + "]" * 5000)
    with pytest.raises(RulesetError, match="nest.toml: not valid TOML: its values nest too deep"):
        load(str(f))


def test_a_chain_of_extends_longer_than_64_is_refused(tmp_path):
    # 1500 files each extending the one before ran out of recursion; r50 is read (51 files, then belote-classic's
    # own chain down to base)
    from pipeline.rules import RulesetError
    _house(tmp_path / "r0.toml", 'name = "r0"\nextends = "belote-classic"\n')
    for i in range(1, 1500):
        _house(tmp_path / f"r{i}.toml", f'name = "r{i}"\nextends = "r{i - 1}.toml"\n')
    assert load(str(tmp_path / "r50.toml")).name == "r50"
    with pytest.raises(RulesetError) as e:
        load(str(tmp_path / "r1499.toml"))
    # the file loaded, and the 65th of its chain (r1499 ... r1436 are 64)
    assert str(e.value) == f"{tmp_path / 'r1499.toml'}: a chain of more than 64 'extends' (at {tmp_path / 'r1435.toml'})"


def test_a_ruleset_file_past_one_mib_is_refused_unread(tmp_path):
    # 13 + 27 + 15 bytes of keys, 2^20 x and '"\n': 1,048,633 bytes (a 200 MB one took 40 s to read)
    from pipeline.rules import RulesetError
    f = _house(tmp_path / "big.toml", 'name = "big"\nextends = "belote-classic"\ndescription = "' + "x" * (1 << 20) + '"\n')
    with pytest.raises(RulesetError, match=r"big.toml: 1,048,633 bytes, more than the 1,048,576 a ruleset file"):
        load(str(f))


# ----------------------------------------------------------------------------------------------------------
# terminal output: text from the input (a game id, a name) carrying ESC sequences or bidi overrides
# ----------------------------------------------------------------------------------------------------------

def test_escape_sequences_from_the_input_never_reach_the_terminal(tmp_path):
    # an OSC sequence (retitle the window) and a screen clear in a game id, a right-to-left override in a name:
    # printed raw by the ingest's reject line, `rejects` and `games` before
    from typer.testing import CliRunner

    from pipeline.cli import app
    games = [orjson.loads(x) for x in GAMES.splitlines()]
    games[0]["game_id"] = "\x1b]0;pwned\x07\x1b[2J"
    games[0]["hands"][0]["dealer"] = 9                    # rejected: its message names the game
    games[1]["players"][1] = "Bob\u202eevil"
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"".join(orjson.dumps(g) + b"\n" for g in games))
    lake = str(tmp_path / "lake")
    runner = CliRunner()
    outputs = [runner.invoke(app, args).output for args in (["ingest", str(f), "--lake", lake],
                                                            ["rejects", "--lake", lake], ["games", "--lake", lake])]
    assert all("\x1b" not in o and "\u202e" not in o for o in outputs)
    assert "game \\x1b]0;pwned\\x07\\x1b[2J, hand 1: dealer seat 9 is not in 0..3 [bad_seat]" in outputs[0]
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in outputs[1] and "Bob\\u202eevil" in outputs[2]


# ----------------------------------------------------------------------------------------------------------
# a score sheet of 100,000 columns (400 kB): the duplicate-column check was quadratic (minutes)
# ----------------------------------------------------------------------------------------------------------

HEADER = "game_id,hand_no,variant,source,player1,player2,player3,player4,dealer,taker,strain,bid,made,score_a,score_b"
ROW = "g,1,belote,club,A,B,C,D,A,B,H,,yes,100,62"


def _sheet(tmp_path, extra: str, cells: str):
    f = tmp_path / "wide.csv"
    f.write_text(HEADER + extra + "\n" + ROW + cells + "\n")
    return f


def test_a_header_of_100000_equal_columns_is_rejected_in_bounded_time(tmp_path):
    import subprocess
    import sys
    f = _sheet(tmp_path, ",x" * 100_000, ",1" * 100_000)
    code = ("import sys, pathlib; from pipeline.ingest.run import ingest_paths; "
            f"s = ingest_paths([pathlib.Path({str(f)!r})], pathlib.Path({str(tmp_path / 'lake')!r})); "
            "print(dict(s.rejected))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "{'bad_header': 1}", r.stderr[-2000:]


def test_unknown_columns_are_named_twenty_at_most(tmp_path):
    f = _sheet(tmp_path, "".join(f",x{i}" for i in range(25)), ",1" * 25)
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.hands, dict(s.rejected)) == (1, {"unknown_column": 1})
    reason = lakemod.read(tmp_path / "lake", "rejects", ["reason"]).column(0)[0].as_py()
    assert reason.startswith("unknown column(s) " + ", ".join(f"x{i}" for i in range(20)) + " and 5 more ignored")
