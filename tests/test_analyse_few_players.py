"""`rebelote analyse` of 2- and 3-player games (issue 22): simulated lakes under belote-2p, belote-3p and
mundijuegos-3p, analysed whole.

The checks use facts the analysis does not compute itself: the tricks of the play recorded (card points and last
trick counted here), the rescoring's made test of the play recorded (scores.contract_made / litige), and the
identity of tests/test_analyse.py: the taker's side's points in the play recorded are its best-play points minus
its own cards' costs plus the others' (the taker's side: himself, the others together against him).
"""

from __future__ import annotations

import duckdb
import numpy as np
import orjson
import pytest

from pipeline.stats import analyse

from pipeline.stats import reports as stats
from pipeline.cards import STRAINS
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import dd_solo, dd_solver as dd, rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate
from pipeline.trick_order import strength

RULESETS = ("belote-2p", "belote-3p", "mundijuegos-3p")


@pytest.fixture(scope="module", params=RULESETS)
def analysed(request, tmp_path_factory):
    name = request.param
    d = tmp_path_factory.mktemp(name)
    f = d / "g.jsonl"
    games = 6 if load(name)["deal.n_players"] == 2 else 2      # 2-player hands solve fast: more of them
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(load(name), games, 7)) + b"\n")
    lake = d / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, load(name))
    summary = analyse.analyse_lake(lake, name)
    con = stats.connect(lake)
    try:
        hands = {r["hand_key"]: r for r in con.sql(
            "SELECT h.*, s.contract_made, s.litige, s.declaration_points, s.declarations, s.belote_points, s.legal, "
            "s.status, s.capot_team "
            "FROM hands h JOIN scores s USING (hand_key) WHERE s.ruleset = $r",
            params={"r": name}).to_arrow_table().to_pylist()}
    finally:
        con.close()
    rows = duckdb.sql(f"SELECT * FROM read_parquet('{lake}/dd_hands/**/*.parquet', hive_partitioning=true) "
                      "ORDER BY hand_key").to_arrow_table().to_pylist()
    return name, lake, summary, hands, rows


def test_every_played_hand_is_analysed(analysed):
    name, _, summary, hands, rows = analysed
    playable = [h for h in hands.values() if h["status"] == "scored" and h["legal"] and h["taker"] is not None
                and h["completeness"] == "full_play"]
    assert summary.hands == len(rows) == len(playable) > 5 and summary.skipped == len(hands) - len(playable)
    P = load(name)["deal.n_players"]
    assert all(len(r["play_cost"]) == P * load(name)["deal.tricks"] for r in rows)


def test_costs_add_up_to_the_points_taken_in_the_play_recorded(analysed):
    name, _, _, hands, rows = analysed
    rules = load(name)
    spec = dd.Spec(rules)
    P = rules["deal.n_players"]
    for r in rows:
        h = hands[r["hand_key"]]
        assert r["taker_team"] == h["taker"]                 # teams are seats with 2 or 3 players
        side = [0 if s == h["taker"] else 1 for s in range(P)]
        own = sum(c for c, s in zip(r["play_cost"], r["play_seats"]) if side[s] == 0)
        theirs = sum(c for c, s in zip(r["play_cost"], r["play_seats"]) if side[s] == 1)
        assert r["taker_points"] == r["dd_points"] - own + theirs, r["hand_key"]
        strain = STRAINS.index(r["strain"])
        got, took, n = 0, set(), len(h["plays"]) // P
        for t in range(n):
            cards = h["plays"][t * P:(t + 1) * P]
            st = strength(np.array(cards, np.int8), np.repeat(cards[0] // 8, P), np.repeat(strain, P))
            winner = h["play_seats"][t * P + int(np.argmax(st))]
            took.add(side[winner])
            pts = int(sum(spec.points[strain][c] for c in cards))
            if t == n - 1:
                pts += int(spec.capot_last if took == {side[winner]} else spec.last)
            got += pts if side[winner] == 0 else 0
        assert r["taker_points"] == got
        assert r["dd_by_strain"][strain] == r["dd_points"] and min(r["play_cost"]) >= 0


def test_three_players_are_judged_by_the_rescorings_own_made_test(analysed):
    """The search scores each line as the rescoring does: on the play recorded its leaf, given the declarations
    before declarations.on_capot (analyse.declared), gives the rescoring's result, hand by hand; and analyse's
    makeable is the search's answer from the deal."""
    name, _, _, hands, rows = analysed
    if load(name)["deal.n_players"] != 3:
        pytest.skip("3-player made test")
    spec = dd_solo.SoloSpec(load(name))
    outcomes = set()
    for h in hands.values():
        if h["status"] != "scored" or not h["legal"] or h["completeness"] != "full_play":
            continue
        want = "litige" if h["litige"] else "made" if h["contract_made"] else "failed"
        got = dd_solo.played_outcome(spec, STRAINS.index(h["strain"]), h["taker"], h["plays"], h["play_seats"],
                                     analyse.declared(h, 3), h["belote_points"])
        assert got == want, h["hand_key"]
        outcomes.add(want)
    assert outcomes >= {"made", "failed"}
    for r in rows:
        h = hands[r["hand_key"]]
        want = dd_solo.outcome(spec, h["initial_hands"], STRAINS.index(h["strain"]), h["taker"],
                               (h["dealer"] + 1) % 3, analyse.declared(h, 3), h["belote_points"])
        assert r["makeable"] == {"made": True, "litige": None, "failed": False}[want]


def test_the_player_report_counts_two_defenders_with_three_players(analysed):
    name, lake, _, hands, rows = analysed
    rep = stats.run_report(lake, "dd_players", name).to_pylist()
    P = load(name)["deal.n_players"]
    assert sum(x["taker_hands"] for x in rep) == len(rows)
    assert sum(x["defender_hands"] for x in rep) == (P - 1) * len(rows)
    assert sum(x["cards"] for x in rep) == sum(len(r["play_cost"]) for r in rows)


def test_the_declarations_before_a_capot_are_the_scored_ones(analysed):
    """analyse.declared (the declarations before declarations.on_capot) equals the scores' declaration_points
    wherever every team took a trick in the play recorded (no capot rule applied), and declarations occur."""
    name, _, _, hands, _ = analysed
    P = load(name)["deal.n_players"]
    checked = 0
    for h in hands.values():
        if h["status"] != "scored" or h["capot_team"] is not None and h["capot_team"] >= 0:
            continue
        took = {h["play_seats"][t * P + int(np.argmax(strength(
            np.array(h["plays"][t * P:(t + 1) * P], np.int8), np.repeat(h["plays"][t * P] // 8, P),
            np.repeat(STRAINS.index(h["strain"]), P))))] for t in range(len(h["plays"]) // P)}
        if len(took) == P:
            assert analyse.declared(h, P) == list(h["declaration_points"]), h["hand_key"]
            checked += any(h["declaration_points"])
    assert checked


def test_two_players_best_play_recorded_is_judged_as_recorded(analysed):
    """With 2 players, a hand whose play recorded gave the taker exactly his best-play card points (and no
    capot either way) was played as best play allows: makeable is its recorded result."""
    name, _, _, hands, rows = analysed
    if load(name)["deal.n_players"] != 2:
        pytest.skip("2-player made test")
    checked = 0
    for r in rows:
        h = hands[r["hand_key"]]
        if r["taker_points"] == r["dd_points"] and (h["capot_team"] is None or h["capot_team"] < 0):
            want = None if h["litige"] else h["contract_made"]
            assert r["makeable"] == want, r["hand_key"]
            checked += 1
    assert checked > 3

