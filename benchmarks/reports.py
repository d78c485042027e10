"""Speed of the reports over a rescored lake: each query alone on an open connection, and whole CLI commands.

    python benchmarks/reports.py LAKE [--rules A] [--other B] [--player NAME] [--repeat K] [--cli] [--filtered SALT]

Query alone (what issues #5/#6 time): every report of queries/ under ruleset A on one connection
(pipeline.stats.reports.run_report_on), `compare` A with B (the report, then the report and the 5 examples
`rebelote compare` prints: pipeline.stats.reports.compare), `fairness` by source and with `--player NAME` (by source and
by player), and opening a connection (pipeline.stats.reports.connect). With ``--cli``, each `rebelote` command is also run
as a fresh process (`python -m pipeline.cli ...`), so Python's start-up, the imports and the argument parsing
count. With ``--filtered SALT``, only the reports under a filter are timed: each report (connection
included, since the filter shapes the views) with no filter, with ``--player NAME``, with ``--pseudonymize SALT``, and with both,
and with ``--cli`` the same as commands. Prints wall seconds (best and median of K runs) and CPU seconds (best): on a shared machine the wall time
also counts waiting for a core, the CPU time is the steadier figure. Also prints the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's pipeline, not an installed one

from pipeline.stats import fairness  # noqa: E402

from pipeline.stats import reports as stats


def _line(name: str, walls: list[float], cpus: list[float]) -> str:
    return (f"{name:34} wall best {min(walls):6.3f} s  median {statistics.median(walls):6.3f} s  "
            f"cpu best {min(cpus):6.3f} s  load {os.getloadavg()[0]:.1f}")


def queries(lake: str, a: str, b: str, player: str, repeat: int) -> list[str]:
    """One line per measure, each run once to warm up, then ``repeat`` times (CPU = this process's, DuckDB's
    threads included)."""
    con = stats.connect(lake)
    one = stats.Filters(players=(player,))
    jobs = [(r, lambda r=r: stats.run_report_on(con, r, a)) for r in stats.list_reports() if r != "compare"]
    jobs += [(f"compare {a} {b}", lambda: stats.run_report_on(con, "compare", a, other=b)),
             ("compare + 5 examples", lambda: stats.compare(con, a, b, examples=5)),
             ("fairness (by source)", lambda: fairness.fairness_report(lake)),
             (f"fairness --player {player}", lambda: fairness.fairness_report(lake, "source", filters=one)),
             (f"fairness --by player --player {player}", lambda: fairness.fairness_report(lake, "player", filters=one)),
             ("connect", lambda: stats.connect(lake).close())]
    out = []
    try:
        for name, fn in jobs:
            out.append(_timed(name, fn, repeat))
    finally:
        con.close()
    return out


def _timed(name: str, fn, repeat: int) -> str:
    """Run ``fn`` once to warm up, then ``repeat`` times; print and return its line (wall and CPU seconds)."""
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    line = _line(name, walls, cpus)
    print(line, flush=True)
    return line


def filtered(lake: str, a: str, player: str, salt: str, repeat: int) -> list[str]:
    """One line per report and filter (none, ``--player``, ``--pseudonymize``, both): opening the filtered connection
    and running the report on it, run once to warm up, then ``repeat`` times."""
    modes = {"(no filter)": stats.Filters(),
             f"--player {player}": stats.Filters(players=(player,)),
             "--pseudonymize": stats.Filters(pseudonymize=salt),
             f"--player {player} --pseudonymize": stats.Filters(players=(player,), pseudonymize=salt)}
    out = []
    for label, f in modes.items():
        for r in [r for r in stats.list_reports() if r != "compare"]:
            def fn(r=r, f=f):
                con = stats.connect(lake, f)
                try:
                    stats.run_report_on(con, r, a, f)
                finally:
                    con.close()
            out.append(_timed(f"{r} {label}", fn, repeat))
    return out


def filtered_commands(lake: str, a: str, player: str, salt: str, repeat: int) -> list[str]:
    """Each report with no filter, under ``--player`` and under ``--pseudonymize`` as a fresh process, ``repeat``
    times."""
    return commands(lake, a, a, player, repeat, runs=[
        ["stats", r.replace("_", "-"), "--lake", lake, "--rules", a, *extra]
        for extra in ([], ["--player", player], ["--pseudonymize", salt])
        for r in stats.list_reports() if r != "compare"])


def commands(lake: str, a: str, b: str, player: str, repeat: int, runs: list[list[str]] | None = None) -> list[str]:
    """Each command as a fresh process, ``repeat`` times; output to a temporary CSV (no terminal drawing)."""
    csv = Path(os.environ.get("TMPDIR", "/tmp")) / f"rebelote-bench-{os.getpid()}.csv"
    if runs is not None:
        runs = [[*r, "-o", str(csv)] for r in runs]
    else:
        runs = [["--help"]]
        runs += [["stats", r.replace("_", "-"), "--lake", lake, "--rules", a, "-o", str(csv)]
                 for r in stats.list_reports() if r != "compare"]
        runs += [["stats", "fairness", "--lake", lake, "-o", str(csv)],
                 ["stats", "fairness", "--lake", lake, "--player", player, "-o", str(csv)],
                 ["compare", "--rules", a, "--rules", b, "--lake", lake]]
    out = []
    for args in runs:
        walls, cpus = [], []
        for _ in range(repeat):
            r0, t0 = os.times(), time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=ROOT, capture_output=True)
            walls.append(time.perf_counter() - t0)
            r1 = os.times()
            cpus.append(r1.children_user - r0.children_user + r1.children_system - r0.children_system)
            if p.returncode:
                raise SystemExit(f"rebelote {' '.join(args)} failed ({p.returncode}): {p.stderr.decode()[-500:]}")
        label = " ".join(args[:2]) + (f" --player {player}" if "--player" in args else "") + (
            " --pseudonymize" if "--pseudonymize" in args else "")
        out.append(_line("rebelote " + label, walls, cpus))
        print(out[-1], flush=True)
    csv.unlink(missing_ok=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lake", help="a rescored lake (e.g. the bench's 5 M-hand lake)")
    ap.add_argument("--rules", default="belote-classic", help="ruleset of the reports (A)")
    ap.add_argument("--other", default=None, help="second ruleset of compare (B; default: A itself)")
    ap.add_argument("--player", default="Alice", help="the name of --player (a simulated lake's names: Alice ... Hugo)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli", action="store_true", help="also time each command as a fresh process")
    ap.add_argument("--filtered", metavar="SALT", default=None,
                    help="time the reports under --player NAME and --pseudonymize SALT instead")
    args = ap.parse_args(argv)
    other = args.other or args.rules
    if args.filtered:
        filtered(args.lake, args.rules, args.player, args.filtered, args.repeat)
        if args.cli:
            filtered_commands(args.lake, args.rules, args.player, args.filtered, args.repeat)
        return 0
    queries(args.lake, args.rules, other, args.player, args.repeat)
    if args.cli:
        commands(args.lake, args.rules, other, args.player, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
