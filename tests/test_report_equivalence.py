"""Every output a user sees, pinned on one small fixed lake: the scores, every ``stats`` report (unfiltered and
under each kind of filter), the fairness report, the HTML report's data and both kinds of ``export duckdb``.

Why: the derived report facts (pipeline/facts/derived.py) may be computed in different places (written at rescore
time, computed in the hand pass, or as views computed when a report runs) for speed; none of that may change
one row. The expected outputs were captured from the code before any such change
(``tests/golden/report_equivalence.json``: per output, the number of rows and a SHA-256 of its rows, each
row rendered with ``repr`` and the rows sorted, so row order does not count but every value does, floats to 12
significant digits: the fairness report's p-values sum thousands of terms whose last bits change with numpy's
build, a fresh install of numpy 2.4.6 changed 23 digests this way). To see which rows differ, write the outputs of two trees with
``python tests/test_report_equivalence.py dump DIR`` and diff the files.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

GOLDEN = Path(__file__).parent / "golden" / "report_equivalence.json"

#: (ruleset, games, seed, source) simulated, ingested and rescored under each ruleset (tests/helpers.py).
PLAN = (("belote-classic", 5, 11, "club"), ("pagat-coinche", 3, 5, "online"), ("belote-3p", 2, 7, "trio"),
        ("belote-2p", 2, 3, "duo"))
RULESETS = tuple(dict.fromkeys(p[0] for p in PLAN))


#: Columns that differ from one build of the lake to the next: the paths of the files simulated into a fresh
#: temporary folder, and when they were read.
VOLATILE = ("source_file", "ingest_file", "ingested_at")


def _value(v):
    """``v`` with every float rounded to 12 significant digits (in lists and structs too)."""
    if isinstance(v, float):
        return float(f"{v:.12g}")
    if isinstance(v, list):
        return [_value(x) for x in v]
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items()}
    return v


def _rows(t: pa.Table) -> list[str]:
    """The rows of ``t`` as sorted ``repr`` strings of (column, value) tuples, :data:`VOLATILE` columns left out,
    floats to 12 significant digits (:func:`_value`)."""
    t = t.drop_columns([c for c in VOLATILE if c in t.column_names])
    names = t.column_names
    return sorted(repr(tuple(zip(names, map(_value, r.values())))) for r in t.to_pylist())


def _filters():
    from pipeline.stats import reports as stats
    return {
        "all": stats.Filters(),
        "player": stats.Filters(players=("Bruno",)),
        "source": stats.Filters(sources=("club", "trio")),
        "min_hands": stats.Filters(min_hands=3),
        "variant": stats.Filters(variants=("belote",)),
        "pseudonymized": stats.Filters(pseudonymize="salt-1"),
        "pseudonymized_player": stats.Filters(pseudonymize="salt-1", players=("Hugo",)),
        "variant_player": stats.Filters(variants=("belote",), players=("Hugo",)),
    }


def outputs(lake: Path, work: Path) -> dict[str, pa.Table]:
    """Every pinned output of ``lake``: name -> table. ``work``: a folder for the exported DuckDB files."""
    from pipeline.report import dashboard
    from pipeline.stats import fairness
    from pipeline.storage import lake as lakemod
    from pipeline.report import report_data
    from pipeline.stats import reports as stats
    out: dict[str, pa.Table] = {}
    for t in ("scores", "game_scores"):
        out[f"table/{t}"] = lakemod.read(lake, t)
    for fname, f in _filters().items():
        con = stats.connect(lake, f)
        try:
            for r in RULESETS:
                for name in stats.list_reports():
                    params = {}
                    if "other" in stats.report_params(name):
                        params = {"other": next(x for x in RULESETS if x != r)}
                    out[f"{fname}/{r}/{name}"] = stats.run_report_on(con, name, r, f, **params)
                if "pseudonymized" not in fname:      # the examples name hands by key, salted alike
                    ex = stats.compare_examples(con, r, next(x for x in RULESETS if x != r), 5)
                    out[f"{fname}/{r}/compare_examples"] = pa.table({"row": [repr(e) for e in ex]})
                # the HTML report's data beside its tables (pipeline/report/html_report.py, build_html)
                out[f"{fname}/{r}/html_overview"] = pa.table({k: [v] for k, v in report_data.overview(con, r).items()})
                out[f"{fname}/{r}/html_score_bins"] = pa.table({"bins": [repr(report_data.hand_score_bins(con, r))]})
                bins, capots = report_data.margin_bins(con, r)
                out[f"{fname}/{r}/html_margin_bins"] = pa.table({"bins": [repr(bins)], "capots": [capots]})
            for by in dashboard.FAIRNESS_GROUPINGS:
                out[f"{fname}/fairness/{by}"] = fairness.fairness_on(con, by, f)
            for view in stats.VIEWS:
                out[f"{fname}/view/{view}"] = con.sql(f"SELECT * FROM {view}").to_arrow_table()
        finally:
            con.close()
        if fname in ("all", "player", "pseudonymized"):
            for materialize in (False, True):
                path = work / f"{fname}-{materialize}.duckdb"
                dashboard.export_duckdb(lake, path, None, f, materialize)
                db = duckdb.connect(str(path), read_only=True)
                try:
                    names = [r[0] for r in db.execute(
                        "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
                    for name in names:
                        t = db.sql(f"SELECT * FROM {name}").to_arrow_table()
                        if name == "export_info":      # the export's time and the lake's absolute path
                            t = t.filter(pa.compute.is_in(t.column("key"), pa.array(["mode", "rulesets", "filters"])))
                        out[f"export/{fname}/{materialize}/{name}"] = t
                finally:
                    db.close()
    for by in ("source", "player", "all"):
        out[f"fairness_report/{by}"] = fairness.fairness_report(lake, by)
    return out


def digest(tables: dict[str, pa.Table]) -> dict[str, list]:
    """name -> [rows, SHA-256 of the sorted rows]."""
    res = {}
    for name, t in sorted(tables.items()):
        rows = _rows(t)
        res[name] = [len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()]
    return res


def build_lake(root: Path) -> Path:
    from helpers import simulated_lake

    return simulated_lake(root / "lake", plan=PLAN)


@pytest.fixture(scope="module")
def pinned(tmp_path_factory):
    root = tmp_path_factory.mktemp("equiv")
    lake = build_lake(root)
    return lake, outputs(lake, root)


def test_the_lake_has_what_the_outputs_need(pinned):
    # the outputs below are not vacuous: every family has scored hands, and the filters keep some
    lake, out = pinned
    assert {r: out[f"all/{r}/contracts"].num_rows > 0 for r in RULESETS} == {r: True for r in RULESETS}
    assert out["player/belote-classic/players"].num_rows > 0
    assert out["all/belote-classic/partnerships"].num_rows > 0
    assert out["all/fairness/all"].num_rows > 0


def test_every_output_as_before(pinned):
    _, out = pinned
    want = json.loads(GOLDEN.read_text())
    got = digest(out)
    assert sorted(got) == sorted(want)
    assert {k: v for k, v in got.items() if v != want[k]} == {}


def test_outputs_do_not_depend_on_stored_derived_rows(pinned, tmp_path):
    # `rescore --no-derived` drops every stored derived row of a ruleset: the reports compute the same rows
    from pipeline import rules
    from pipeline.rescore import rescore_lake

    lake, out = pinned
    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    rescore_lake(copy, rules.load("belote-classic"), derived=False)
    con_names = [k for k in out if k.startswith("all/belote-classic/")]
    from pipeline.stats import reports as stats
    con = stats.connect(copy)
    try:
        for k in con_names:
            name = k.rsplit("/", 1)[1]
            if name in stats.list_reports():
                params = {"other": "pagat-coinche"} if "other" in stats.report_params(name) else {}
                assert _rows(stats.run_report_on(con, name, "belote-classic", **params)) == _rows(out[k]), k
    finally:
        con.close()


if __name__ == "__main__":
    # write the golden digests: python tests/test_report_equivalence.py write
    # or every output's rows, one file each, for a diff: python tests/test_report_equivalence.py dump DIR
    import tempfile
    sys.path.insert(0, str(Path(__file__).parent))
    with tempfile.TemporaryDirectory() as d:
        lake = build_lake(Path(d))
        tables = outputs(lake, Path(d))
        if sys.argv[1] == "write":
            GOLDEN.write_text(json.dumps(digest(tables), indent=0, sort_keys=True) + "\n")
        else:
            target = Path(sys.argv[2])
            target.mkdir(parents=True, exist_ok=True)
            for name, t in tables.items():
                (target / (name.replace("/", "__") + ".txt")).write_text("\n".join(_rows(t)) + "\n")
