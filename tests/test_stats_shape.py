"""``rebelote stats REPORT --sort/--limit/--columns`` (issue 17: a report of 47 columns and thousands of rows had
no way to be cut to what fits). The expected rows come from the same report run whole, sorted here in Python."""

from __future__ import annotations

import csv
import io

import orjson
import pytest
from typer.testing import CliRunner

from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    d = tmp_path_factory.mktemp("shape")
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(load("belote-classic"), 6, 4)) + b"\n")
    ingest_paths([f], d / "lake")
    rescore_lake(d / "lake", load("belote-classic"))
    return d / "lake"


def _csv(args) -> list[list[str]]:
    r = CliRunner().invoke(app, ["stats", *args, "--format", "csv"])
    assert r.exit_code == 0, r.output
    return list(csv.reader(io.StringIO(r.stdout)))


def test_sort_limit_and_columns(lake):
    whole = stats.run_report(lake, "players", "belote-classic").to_pylist()
    assert len(whole) >= 4
    want = sorted(whole, key=lambda r: (-r["hands"], r["player"]))[:3]
    rows = _csv(["players", "--lake", str(lake), "--sort=-hands", "--sort", "player", "--limit", "3",
                 "--columns", "player,hands,made_of"])
    assert rows == [["player", "hands", "made_of"]] + [[r["player"], str(r["hands"]), r["made_of"]] for r in want]
    # the keys comma-separated, as --columns takes them (a new user's trial: "no column '-hands,player'")
    assert _csv(["players", "--lake", str(lake), "--sort", "-hands, player", "--limit", "3",
                 "--columns", "player,hands,made_of"]) == rows
    # ascending by a text column, every column kept
    rows = _csv(["players", "--lake", str(lake), "--sort", "player"])
    assert [r[rows[0].index("player")] for r in rows[1:]] == sorted(r["player"] for r in whole)


def test_fairness_takes_sort_limit_and_columns(lake):
    # a new user's trial: after `stats fairness --by player`, "--limit" answered "No such option". The rows are the
    # library's report, sorted here in Python (by p_value, then group and event: unique keys, so one order)
    from pipeline.stats.fairness import fairness_report

    whole = fairness_report(lake, "player").to_pylist()
    assert len(whole) > 5
    want = sorted(whole, key=lambda r: (r["p_value"], r["group"], r["event"]))[:5]
    rows = _csv(["fairness", "--lake", str(lake), "--by", "player", "--sort", "p_value", "--sort", "group",
                 "--sort", "event", "--limit", "5", "--columns", "group,event,observed"])
    assert rows == [["group", "event", "observed"]] + [[r["group"], r["event"], str(r["observed"])] for r in want]
    r = CliRunner().invoke(app, ["stats", "fairness", "--lake", str(lake), "--sort", "p"])
    assert r.exit_code == 2 and "no column 'p' in this report; its columns: group, event," in r.output


def test_an_unknown_column_lists_the_report_columns(lake):
    r = CliRunner().invoke(app, ["stats", "players", "--lake", str(lake), "--columns", "player,takes"])
    assert r.exit_code == 2 and "no column 'takes' in this report; its columns: ruleset, player," in r.output
    r = CliRunner().invoke(app, ["stats", "players", "--lake", str(lake), "--sort", "-nope"])
    assert r.exit_code == 2 and "no column 'nope'" in r.output


def test_a_narrow_terminal_leaves_out_interval_bounds_before_the_figures():
    # from a new-user trial: at 100 columns `stats players` showed made_rate_lo and made_rate_hi and left out
    # points_per_hand. Bounds (names ending _lo/_hi) give way to every other column; the order is kept.
    import pyarrow as pa

    from pipeline.report import output
    t = pa.table({"player": ["Al"], "rate_lo": [0.25], "rate_hi": [0.75], "points": [101]})
    # widths: player 6 + 3, rate_lo 7 + 3, rate_hi 7 + 3, points 6 + 3; plus 1 for the left border
    shown, left = output.fit_columns(t, 1 + 9 + 9 + 10)
    assert shown.column_names == ["player", "rate_lo", "points"] and left == ["rate_hi"]
    shown, left = output.fit_columns(t, 1 + 9 + 9)
    assert shown.column_names == ["player", "points"] and left == ["rate_lo", "rate_hi"]
    assert output.fit_columns(t, 1 + 9 + 9 + 10 + 10)[1] == []


def test_a_table_on_a_terminal_fits_its_width():
    # issue 17: tables ignored the terminal (players rows 200 columns wide in a 100-column one). On a terminal
    # the columns that fit are shown (texts folded at output.TERMINAL_CELL), the others named; pipes get all.
    import pyarrow as pa
    from rich.console import Console

    from pipeline.report import output
    t = pa.table({"player": ["a" * 40, "Bo"], "hands": [12, 3], "made_of": ["3/4", "1/2"], "points": [101, 7]})
    # widths: player min(40, 32) + 3 = 35, hands 5 + 3, made_of 7 + 3, points 6 + 3; plus 1 for the left border
    assert output.fit_columns(t, 1 + 35 + 8 + 10)[1] == ["points"]
    assert output.fit_columns(t, 1 + 35 + 8 + 10 + 9)[1] == []
    assert output.fit_columns(t, 10)[0].column_names == ["player"]            # at least one column
    notes: list = []
    term = Console(file=io.StringIO(), force_terminal=True, width=55, color_system=None)
    output.write(t, "table", None, term, warn=notes.append)
    shown = term.file.getvalue()
    assert "made_of" in shown and "points" not in shown and max(len(x) for x in shown.splitlines()) <= 55
    assert notes == ["1 more column than this terminal shows (points): choose with --columns, or write them all "
                     "with --format csv or --output FILE"]
    # a wider terminal: the 40-character name is not folded where the row has room for it (a trial found
    # names cut at 32 characters in a table half the terminal's width), and the table still fits
    term = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    output.write(t, "table", None, term, warn=notes.append)
    lines = term.file.getvalue().splitlines()
    assert any("a" * 40 in x for x in lines) and max(len(x) for x in lines) <= 100 and len(notes) == 1
    pipe = Console(file=io.StringIO(), width=55)                              # not a terminal: every column
    output.write(t, "table", None, pipe, warn=notes.append)
    assert "points" in pipe.file.getvalue() and "a" * 40 in pipe.file.getvalue() and len(notes) == 1


def test_a_long_table_on_a_terminal_shows_its_first_rows():
    import pyarrow as pa
    from rich.console import Console

    from pipeline.report import output
    t = pa.table({"n": list(range(250))})
    notes: list = []
    term = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    output.write(t, "table", None, term, warn=notes.append)
    lines = [x for x in term.file.getvalue().splitlines() if x.strip("│ ").isdigit()]
    assert len(lines) == output.TERMINAL_ROWS == 100 and lines[-1].strip("│ ") == "99"
    assert notes == ["the first 100 of 250 rows: --limit N (with --sort) for others, or write them all with "
                     "--format csv or --output FILE"]
    # a command without --limit and --sort (rejects, compare) does not suggest them (a new user's trial:
    # "--limit N (with --sort)" after a command that answered "No such option: --limit")
    term = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    output.write(t, "table", None, term, warn=notes.append, selects=False)
    assert notes[-1] == "the first 100 of 250 rows: write them all with --format csv or --output FILE"
    # nor --format and --output to one that has none (bench, demo)
    output.write(t, "table", None, term, warn=notes.append, selects=False, saves=False)
    assert notes[-1] == "the first 100 of 250 rows"
    term = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    output.write(t, "table", None, term, max_rows=None)                      # --limit given: what it asked for
    assert sum(1 for x in term.file.getvalue().splitlines() if x.strip("│ ").isdigit()) == 250


def test_made_of_counts_sort_by_their_rate_and_games_take_the_options(lake):
    # "83/265" < "8/11" as texts; by rate (then by the count made of) they are 0.31 < 0.73
    whole = stats.run_report(lake, "players", "belote-classic").to_pylist()

    def key(r):
        made, of = map(int, r["made_of"].split("/"))
        return (made / of if of else -1, of)
    want = [r["player"] for r in sorted(whole, key=key, reverse=True) if key(r)[0] >= 0]
    rows = _csv(["players", "--lake", str(lake), "--sort=-made_of", "--columns", "player,made_of"])
    assert [r[0] for r in rows[1:len(want) + 1]] == want
    r = CliRunner().invoke(app, ["games", "--lake", str(lake), "--sort=-n_hands", "--limit", "2", "--columns",
                                 "game_id,n_hands", "--format", "csv"])
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows[0] == ["game_id", "n_hands"] and len(rows) == 3 and int(rows[1][1]) >= int(rows[2][1])


def test_a_missing_lake_and_a_misspelt_ruleset_say_what_to_do(tmp_path):
    r = CliRunner().invoke(app, ["status", "--lake", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "rebelote ingest FILES... --lake" in " ".join(r.output.split())
    r = CliRunner().invoke(app, ["rules", "show", "colvr"])
    assert r.exit_code == 2 and "did you mean colver?" in " ".join(r.output.split())
