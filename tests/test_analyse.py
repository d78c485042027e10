"""`rebelote analyse` (pipeline/stats/analyse.py, issue 22): the double-dummy table of a lake and its report.

The lake: two simulated contrée games (source 'club', colver ruleset), rescored. The checks use facts the
analysis does not compute itself: the tricks of the play recorded, and an identity that ties every card's cost to
the values around it. Before play j, let W_j be the card points the taker's side took in the tricks already
played plus its best-play value from there; W_0 is dd_points and W_32 the points it took in the play recorded.
A card of the taker's side costs W_j - W_j+1, a defender's card W_j+1 - W_j, so
taker_points = dd_points - (the taker's side's costs) + (the defence's costs), exactly, for every hand.
"""

from __future__ import annotations

import json

import duckdb
import numpy as np
import orjson
import pytest
from typer.testing import CliRunner

from pipeline.stats import analyse

from pipeline.stats import reports as stats
from pipeline.cards import STRAINS
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import dd_solver as dd
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

RULES = "colver"


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    d = tmp_path_factory.mktemp("dd")
    games = list(simulate(load(RULES), 2, 5))
    for g in games:
        g["source"] = "club"
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in games) + b"\n")
    lake = d / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, load(RULES))
    summary = analyse.analyse_lake(lake, RULES, sample=6)
    assert summary.hands == 6 and summary.plays == 6 * 32
    return lake


def _rows(lake):
    return duckdb.sql(f"SELECT * FROM read_parquet('{lake}/dd_hands/**/*.parquet', hive_partitioning=true) "
                      "ORDER BY hand_key").to_arrow_table().to_pylist()


def test_every_cards_cost_adds_up_to_the_points_taken(lake):
    rows = _rows(lake)
    con = stats.connect(lake)
    hands = {r["hand_key"]: r for r in con.sql("SELECT * FROM hands").to_arrow_table().to_pylist()}
    con.close()
    spec = dd.Spec(load(RULES))
    for r in rows:
        h = hands[r["hand_key"]]
        side = [0 if s % 2 == r["taker_team"] else 1 for s in range(4)]
        own = sum(c for c, s in zip(r["play_cost"], r["play_seats"]) if side[s] == 0)
        theirs = sum(c for c, s in zip(r["play_cost"], r["play_seats"]) if side[s] == 1)
        assert r["taker_points"] == r["dd_points"] - own + theirs, r["hand_key"]
        assert min(r["play_cost"]) >= 0 and r["play_seats"] == h["play_seats"]
        # the taker's side's points in the play recorded, from its tricks (trick_order, the ruleset's points)
        strain = STRAINS.index(r["strain"])
        from pipeline.trick_order import strength
        leader, got, took = (h["dealer"] + 1) % 4, 0, set()
        for t in range(8):
            cards = h["plays"][t * 4:t * 4 + 4]
            st = strength(np.array(cards, np.int8), np.repeat(cards[0] // 8, 4), np.repeat(strain, 4))
            winner = h["play_seats"][t * 4 + int(np.argmax(st))]
            took.add(side[winner])
            pts = int(sum(spec.points[strain][c] for c in cards))
            if t == 7:
                pts += int(spec.capot_last if took == {side[winner]} else spec.last)
            got += pts if side[winner] == 0 else 0
            leader = winner
        assert r["taker_points"] == got
        assert r["dd_by_strain"][strain] == r["dd_points"]
        assert r["dd_by_strain"][4] is None and r["dd_by_strain"][5] is None     # colver plays suits only
        assert r["par_strain"] == STRAINS[int(np.argmax([x if x is not None else -1 for x in r["dd_by_strain"]]))]


def test_the_dd_values_are_the_solvers_from_the_deal(lake):
    con = stats.connect(lake)
    hands = {r["hand_key"]: r for r in con.sql("SELECT * FROM hands").to_arrow_table().to_pylist()}
    con.close()
    spec = dd.Spec(load(RULES))
    for r in _rows(lake)[:2]:
        h = hands[r["hand_key"]]
        side = [0 if s % 2 == r["taker_team"] else 1 for s in range(4)]
        for st in range(4):
            assert r["dd_by_strain"][st] == dd.solve(spec, h["initial_hands"], st, (h["dealer"] + 1) % 4, side=side)


def test_the_report_adds_up_the_table(lake):
    rows = _rows(lake)
    con = stats.connect(lake)
    hands = {r["hand_key"]: r for r in con.sql("SELECT * FROM hands").to_arrow_table().to_pylist()}
    con.close()
    report = {(p["player"], p["source"]): p for p in stats.run_report(lake, "dd_players", RULES).to_pylist()}
    cards: dict[str, list] = {}
    for r in rows:
        h = hands[r["hand_key"]]
        for c, s in zip(r["play_cost"], r["play_seats"]):
            cards.setdefault(h["players"][s], []).append(c)
    assert {p for p, _ in report} == set(cards)
    for name, costs in cards.items():
        p = report[(name, "club")]
        assert (p["cards"], p["optimal_cards"]) == (len(costs), costs.count(0))
        assert p["optimal_share"] == round(costs.count(0) / len(costs), 4)
    taken = sum(p["contracts"] for p in report.values())
    assert taken == sum(1 for r in rows if r["makeable"] is not None)
    assert sum(p["makeable"] for p in report.values()) == sum(1 for r in rows if r["makeable"])


def test_the_command_line(lake):
    r = CliRunner().invoke(app, ["analyse", "--lake", str(lake), "--rules", RULES, "--sample", "2", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["hands"] == 2 and d["plays"] == 64 and d["ruleset"] == RULES and "analyse [colver]" in d["summary"]
    r = CliRunner().invoke(app, ["stats", "dd-players", "--lake", str(lake), "--rules", RULES, "--format", "json"])
    assert r.exit_code == 0 and sum(p["hands"] for p in json.loads(r.stdout)) == 2 * 4


def test_show_adds_the_double_dummy_lines(lake):
    """`rebelote show` of an analysed hand: after each trick, who lost how many card points against best play
    (the row's play_cost), and the hand's best-play points, makeable and par."""
    row = _rows(lake)[0]
    r = CliRunner().invoke(app, ["show", "--game", row["game_id"], "--hand", str(row["hand_no"]), "--rules", RULES,
                                 "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert text.count("double-dummy:") == 8
    for t in range(8):
        lost = [(s, c) for s, c in zip(row["play_seats"][t * 4:t * 4 + 4], row["play_cost"][t * 4:t * 4 + 4]) if c]
        want = ("every card optimal" if not lost else
                "card points lost against best play: " + ", ".join(f"P{s} -{c}" for s, c in lost))
        assert want in text.split(f"trick {t + 1}:", 1)[1].split("\n")[1], t
    assert f"taker's side: {row['dd_points']} card points in {row['strain']} with best play" in text
    assert f"par: {row['par_strain']} " in text


def test_show_finds_the_analysis_of_the_games_own_ruleset(tmp_path):
    """`analyse` by default stores its rows under "own"; `show` by default explains the game under its own
    ruleset (colver here), so it shows them, as it does under --rules colver; not under another ruleset. A new
    user's trial found the default `show` after the default `analyse` without a double-dummy line."""
    games = list(simulate(load(RULES), 1, 5))
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in games) + b"\n")
    lk = tmp_path / "lake"
    ingest_paths([f], lk)
    r = CliRunner().invoke(app, ["analyse", "--sample", "1", "--lake", str(lk)])
    assert r.exit_code == 0 and "analyse [own]: 1 hand" in r.stdout, r.output
    row = _rows(lk)[0]
    assert row["ruleset"] == "own"
    hand = duckdb.sql(f"SELECT game_id, hand_no FROM read_parquet('{lk}/hands/**/*.parquet') "
                      f"WHERE hand_key = '{row['hand_key']}'").fetchall()[0]
    for extra, lines in (([], 8), (["--rules", RULES], 8), (["--rules", "own"], 8), (["--rules", "belote-classic"], 0)):
        r = CliRunner().invoke(app, ["show", "--game", hand[0], "--hand", str(hand[1]), "--lake", str(lk), *extra])
        assert r.exit_code == 0, r.output
        assert r.stdout.count("double-dummy:") == lines, extra


def test_makeable_bid_and_the_bids_report(lake):
    """makeable_bid is the highest level the ruleset's made test passes with the best-play points: a makeable
    contract's bid is at most it, an unmakeable one's above it; dd_bids adds the table up by strain and level."""
    con = stats.connect(lake)
    hands = {r["hand_key"]: r for r in con.sql("SELECT hand_key, bid, capot_bid FROM hands").to_arrow_table().to_pylist()}
    con.close()
    rows = _rows(lake)
    for r in rows:
        h = hands[r["hand_key"]]
        if h["bid"] is None or h["capot_bid"] or r["makeable"] is None:
            continue
        if r["makeable"]:
            assert r["makeable_bid"] is not None and r["makeable_bid"] >= h["bid"]
        else:
            assert r["makeable_bid"] is None or r["makeable_bid"] < h["bid"]
    bids = stats.run_report(lake, "dd_bids", RULES).to_pylist()
    assert sum(b["contracts"] for b in bids) == len(rows)
    assert sum(b["makeable"] for b in bids) == sum(1 for r in rows if r["makeable"])
    assert sum(b["underbids"] for b in bids) == sum(
        1 for r in rows if hands[r["hand_key"]]["bid"] is not None and not hands[r["hand_key"]]["capot_bid"]
        and r["makeable_bid"] is not None and r["makeable_bid"] > hands[r["hand_key"]]["bid"])


def test_a_name_on_two_seats_counts_each_hand_once(tmp_path):
    """colver names both seats of a team by its pair of bots: dd-players counts such a name once per hand, its
    cost the sum over both seats (queries/dd_players.sql, per_hand)."""
    games = list(simulate(load(RULES), 1, 9))
    for g in games:
        g["source"] = "club"
        g["players"] = ["team A", "East", "team A", "West"]
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in games) + b"\n")
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, load(RULES))
    analyse.analyse_lake(lake, RULES, sample=2)
    rows = _rows(lake)
    team = [p for p in stats.run_report(lake, "dd_players", RULES).to_pylist() if p["player"] == "team A"][0]
    assert team["hands"] == 2 and team["cards"] == 2 * 16
    mine = [sum(c for c, s in zip(r["play_cost"], r["play_seats"]) if s in (0, 2)) for r in rows]
    taken = [m for m, r in zip(mine, rows) if r["taker_team"] == 0]
    if taken:
        assert team["lost_as_taker"] is None or team["taker_hands"] <= len(taken)
    defended = [m for m, r in zip(mine, rows) if r["taker_team"] == 1]
    assert team["defender_hands"] == len(defended)
    if defended:
        assert team["lost_as_defender"] == round(sum(defended) / len(defended), 2)


def _copy(lake, tmp_path, name):
    import shutil
    dst = tmp_path / name
    shutil.copytree(lake, dst)
    return dst


@pytest.mark.parametrize("how", ["workers", "ray"])
def test_the_rows_do_not_depend_on_how_the_hands_are_solved(lake, tmp_path, monkeypatch, how):
    """In this process, 3 hands a batch on 2 worker processes, or each batch a Ray task: the same rows in the same
    order (the batches are solved a few at a time, their results kept in order)."""
    if how == "ray":
        pytest.importorskip("ray.data", reason="the 'ray' extra is not installed (pip install -e '.[ray]')")
    base = _copy(lake, tmp_path, "base")
    analyse.analyse_lake(base, RULES, sample=6)
    want = _rows(base)
    other = _copy(lake, tmp_path, how)
    monkeypatch.setattr(analyse, "BATCH", 3)
    seen = []
    summary = analyse.analyse_lake(other, RULES, sample=6, workers=2, engine="local" if how == "workers" else "ray",
                                   progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3, 6), (6, 6)]
    assert summary.hands == 6 and summary.plays == 6 * 32
    assert _rows(other) == want
    in_order = lambda path: duckdb.sql(f"SELECT hand_key FROM read_parquet('{path}/dd_hands/**/*.parquet')").fetchall()  # noqa: E731
    assert in_order(other) == in_order(base)


def test_an_unknown_engine_is_refused(lake):
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        analyse.analyse_lake(lake, RULES, engine="spark")
    res = CliRunner().invoke(app, ["analyse", "--lake", str(lake), "--rules", RULES, "--engine", "spark"])
    assert res.exit_code != 0 and "unknown engine 'spark'" in res.output


def test_the_solvers_warm_up_is_timed_apart_and_changes_no_row(lake, tmp_path, monkeypatch):
    """The first hand of each player count a process meets is solved once more before its batch (the call that
    compiles the kernels, or loads them from the cache); its CPU is counted in ``cpu_warm_up``, not in the
    solving rate, and the rows are those of a process already warm (colver games: all 4-player)."""
    base = _copy(lake, tmp_path, "warm")
    monkeypatch.setattr(analyse, "_WARM", {4})
    analyse.analyse_lake(base, RULES, sample=6)
    want = _rows(base)
    other = _copy(lake, tmp_path, "cold")
    monkeypatch.setattr(analyse, "_WARM", set())
    monkeypatch.setattr(analyse, "BATCH", 3)
    calls = []
    real = analyse.analyse_rows
    monkeypatch.setattr(analyse, "analyse_rows", lambda rows, rules: calls.append(len(rows)) or real(rows, rules))
    summary = analyse.analyse_lake(other, RULES, sample=6)
    assert calls == [1, 3, 3]            # the warm-up hand, then the two batches
    assert summary.cpu_warm_up > 0 and summary.hands == 6
    assert "loading the solver" in str(summary)
    assert _rows(other) == want
