"""The rows of one or more ``rebelote bench --json`` runs as the Markdown tables of ``docs/bench-results.md``.

    python benchmarks/bench_markdown.py runA.json [runB.json ...] > table.md

Runs are merged in the order given: a row of a later run replaces the row of an earlier one with the same
(N, stage, what), so a 10^7 run of one family can complete a 10^4-10^6 run of them all. Prints the
measurement table (one row per stage and size, numbers with thousands separators) and the log-log growth
table recomputed over the merged rows (:func:`pipeline.bench.growth`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pipeline.bench import Row, growth  # noqa: E402


def merged_rows(paths: list[Path]) -> list[Row]:
    """Rows of the runs at ``paths``, later runs replacing earlier rows of the same (size, stage, what); in
    first-seen order."""
    rows: dict[tuple[int, str, str], Row] = {}
    for p in paths:
        for r in orjson.loads(p.read_bytes())["rows"]:
            row = Row(**r)
            rows[(row.size, row.stage, row.what)] = row
    return list(rows.values())


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.2f}" if x < 10 else f"{x:,.1f}"


def markdown(rows: list[Row]) -> str:
    """The measurement table and the growth table, Markdown."""
    out = ["| N | stage | what | rows | seconds | rate | unit | peak RSS MB | note |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r.size):     # stable: each size keeps the run's stage order
        out.append(f"| {r.size or ''} | {r.stage} | {r.what} | {r.rows:,} | {r.seconds:.2f} | {_num(r.rate)} | "
                   f"{r.unit} | {r.peak_rss_mb:,.0f} | {r.note} |")
    g = growth(rows)
    sizes = sorted({int(n) for s in g for n in s["seconds"]})
    out += ["", "| stage | what | " + " | ".join(f"{n:.0e} s".replace("e+0", "e") for n in sizes) + " | slope |",
            "|---|---|" + "---|" * len(sizes) + "---|"]
    for s in g:
        cells = [f"{s['seconds'][str(n)]:.2f}" if str(n) in s["seconds"] else "" for n in sizes]
        out.append(f"| {s['stage']} | {s['what']} | " + " | ".join(cells) + f" | {s['slope']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="JSON files written by `rebelote bench --json`")
    sys.stdout.write(markdown(merged_rows(ap.parse_args(argv).runs)))


if __name__ == "__main__":
    main()
