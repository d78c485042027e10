"""Progress on long commands (issue 17): moving bars in a terminal, nothing when piped.

Each command runs in a child process on a pseudo-terminal (``pty``), as a user's shell runs it; rich draws its
bar there because stderr is a terminal. "Moving" means the captured screen updates show at least two different
counts of the same bar. The same command with its output piped must print no bar and no terminal control code.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys

import pytest

pty = pytest.importorskip("pty")

ENV = dict(os.environ, COLUMNS="100", TERM="xterm")
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _on_pty(*args: str) -> tuple[int, str]:
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdin=slave, stdout=slave, stderr=slave,
                         env=ENV, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:      # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    p.wait(timeout=300)
    os.close(master)
    return p.returncode, ANSI.sub(b"", out).decode("utf-8", "replace")


def _piped(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, env=ENV, timeout=300)


def _counts(screen: str, label: str, total: int) -> set[int]:
    """The counts ``N/total`` drawn on the lines of the bar ``label``."""
    return {int(m) for line in re.split(r"[\r\n]", screen) if label in line
            for m in re.findall(rf"(\d+)/{total}\b", line)}


def test_simulate_ingest_rescore_and_report_show_moving_progress_on_a_terminal(tmp_path):
    games = str(tmp_path / "games.jsonl")
    rc, screen = _on_pty("simulate", "--games", "2000", "--seed", "5", "--output", games)
    assert rc == 0, screen
    assert len(_counts(screen, "simulate [belote-classic] games", 2000)) >= 2, screen[-2000:]

    lake = str(tmp_path / "lake")
    rc, screen = _on_pty("ingest", games, "--lake", lake, "--no-score")
    assert rc == 0 and "ingest: 1 file, 2000 games" in screen, screen[-2000:]
    # by bytes read: "8.4/18.4 MB"
    read = {m for line in re.split(r"[\r\n]", screen) if line.startswith("ingest ")
            for m in re.findall(r"([\d.]+)/[\d.]+ MB", line)}
    assert len(read) >= 2, screen[-2000:]

    # small batches, so the bar of hands scored moves several times
    rc, screen = _on_pty("rescore", "--lake", lake, "--batch-size", "2048")
    assert rc == 0, screen[-2000:]
    hands = int(re.search(r"rescore \[own\].*?: ([\d,]+) hands", screen).group(1).replace(",", ""))
    assert len(_counts(screen, "rescore [own] hands", hands)) >= 2, screen[-2000:]

    # the HTML report, by stage: one bar per report it queries, then the charts
    rc, screen = _on_pty("report", "--html", str(tmp_path / "r.html"), "--lake", lake)
    assert rc == 0, screen[-2000:]
    assert "report r.html players" in screen and "report r.html charts" in screen, screen[-2000:]


def test_the_same_commands_piped_print_no_bar(tmp_path):
    games = str(tmp_path / "games.jsonl")
    r = _piped("simulate", "--games", "300", "--seed", "5", "--output", games)
    assert r.returncode == 0 and b"\x1b[" not in r.stderr + r.stdout and b"/300" not in r.stderr
    lake = str(tmp_path / "lake")
    r = _piped("ingest", games, "--lake", lake)
    assert r.returncode == 0 and b"\x1b[" not in r.stderr + r.stdout, r.stderr
    assert r.stdout.splitlines()[-1].startswith(b"rescore [own]")
    r = _piped("report", "--html", str(tmp_path / "r.html"), "--lake", lake)
    assert r.returncode == 0 and b"\x1b[" not in r.stderr + r.stdout and b"players" not in r.stderr, r.stderr
