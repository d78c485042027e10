"""queries/bidding.sql: contracts made by strain kind, level and what the taker's team held (issue 21).

The expected rows are computed here from the simulated records' own card strings (the native format's dealt
hands, read with pipeline.cards.parse_card), independently of the report's bit arithmetic on
hands.initial_hands, and the results from the scores table. One hand is also checked by hand (below)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from pipeline import lake as lakemod, stats
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate import simulate

RULES = "pagat-coinche"


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    d = tmp_path_factory.mktemp("bidding")
    out = list(simulate(load(RULES), 6, 77))
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in out) + b"\n")
    lake = d / "lake"
    ingest_paths([f], lake, )
    rescore_lake(lake, load(RULES))
    return lake, out


def _expected(lake: Path, games: list[dict]) -> Counter:
    scores = {r["hand_key"]: r for r in lakemod.read(lake, "scores").to_pylist()}
    keys = {(r["game_id"], r["hand_no"]): r["hand_key"] for r in lakemod.read(lake, "hands").to_pylist()}
    rows: Counter = Counter()
    for g in games:
        for h in g["hands"]:
            c = h["contract"]
            if not c:
                continue
            seat, strain = c["taker"], c["strain"]
            team = h["hands"][seat] + h["hands"][(seat + 2) % 4]
            kind = strain if strain in ("NT", "AT") else "suit"
            level = "capot" if c["capot_bid"] else ("take" if c["bid"] is None else str(c["bid"]))
            sc = scores[keys[(g["game_id"], h["hand_no"])]]
            made = bool(sc["contract_made"])
            decided = sc["status"] == "scored" and not sc["litige"]
            measures = [("aces", sum(card[0] == "A" for card in team))]
            if kind == "suit":
                measures += [("trumps", sum(card[1] == strain for card in team)),
                             ("jacks_nines_of_trump", sum(card in (f"J{strain}", f"9{strain}") for card in team))]
            elif kind == "AT":
                measures.append(("jacks_nines_of_trump", sum(card[0] in "J9" for card in team)))
            for m, v in measures:
                rows[(kind, level, m, v, "n")] += 1
                rows[(kind, level, m, v, "made")] += made
                rows[(kind, level, m, v, "decided")] += decided
    return rows


def test_the_rows_are_those_of_the_records_cards(games):
    lake, out = games
    table = stats.run_report(lake, "bidding", RULES).to_pylist()
    got: Counter = Counter()
    for r in table:
        k = (r["strain_kind"], r["level"], r["measure"], r["value"])
        got[k + ("n",)] += r["contracts"]
        got[k + ("made",)] += r["made"]
        got[k + ("decided",)] += r["decided"]
        assert r["made_of"] == f"{r['made']}/{r['decided']}"
        assert r["success_rate"] == (round(r["made"] / r["decided"], 4) if r["decided"] else None)
    want = _expected(lake, out)
    assert +got == +want and len(table) > 10
    # each contract is counted once per measure: the aces rows add up to every contract
    contracts = sum(1 for g in out for h in g["hands"] if h["contract"])
    assert sum(r["contracts"] for r in table if r["measure"] == "aces") == contracts


def test_one_hand_by_hand():
    # seat 1 takes 90 in hearts; partner seat 3. Seat 1: JH 9H AH 7C 8C AS KS QD; seat 3: TH 8H AC 7S 8S 9S 9D TD.
    # Team: hearts JH 9H AH TH 8H = 5 trumps, J and 9 of hearts = 2, aces AH AS AC = 3.
    from pipeline.cards import parse_card
    team = 0
    for c in "JH 9H AH 7C 8C AS KS QD TH 8H AC 7S 8S 9S 9D TD".split():
        team |= 1 << parse_card(c)
    import duckdb
    con = duckdb.connect()
    got = con.execute("SELECT bit_count(($t::UINTEGER >> 16) & 255), bit_count(($t::UINTEGER >> 16) & 20), "
                      "bit_count($t::UINTEGER & 2155905152)", {"t": team}).fetchall()[0]
    assert got == (5, 2, 3)


def test_documented(games):
    lake, _ = games
    table = stats.run_report(lake, "bidding", RULES)
    doc = stats.report_doc("bidding")
    assert stats.report_params("bidding") == ["ruleset"]
    assert all(c in doc for c in table.column_names)
    assert set(stats.display_columns("bidding")) <= set(table.column_names)
