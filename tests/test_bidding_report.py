"""queries/bidding.sql: contracts made by strain kind, level and what the taker's team held (issue 21).

The expected rows are computed here from the simulated records' own card strings (the native format's dealt
hands, read with pipeline.cards.parse_card), independently of the report's bit arithmetic on
hands.initial_hands, and the results from the scores table. One hand is also checked by hand (below)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

RULES = "pagat-coinche"


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    d = tmp_path_factory.mktemp("bidding")
    out = list(simulate(load(RULES), 6, 77)) + list(simulate(load("belote-3p"), 2, 78))
    f = d / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in out) + b"\n")
    lake = d / "lake"
    ingest_paths([f], lake)
    from pipeline.rules import own
    rescore_lake(lake, own.plan(lake))
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
            seat, strain, n = c["taker"], c["strain"], len(h["hands"])
            team = h["hands"][seat] + (h["hands"][(seat + 2) % 4] if n == 4 else [])     # alone with 3 players
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
                rows[(n, kind, level, m, v, "n")] += 1
                rows[(n, kind, level, m, v, "made")] += made
                rows[(n, kind, level, m, v, "decided")] += decided
    return rows


def test_the_rows_are_those_of_the_records_cards(games):
    lake, out = games
    table = stats.run_report(lake, "bidding", "own").to_pylist()
    got: Counter = Counter()
    for r in table:
        k = (r["n_players"], r["strain_kind"], r["level"], r["measure"], r["value"])
        got[k + ("n",)] += r["contracts"]
        got[k + ("made",)] += r["made"]
        got[k + ("decided",)] += r["decided"]
        assert r["made_of"] == f"{r['made']}/{r['decided']}"
        assert r["success_rate"] == (round(r["made"] / r["decided"], 4) if r["decided"] else None)
    want = _expected(lake, out)
    assert +got == +want and len(table) > 10 and {r["n_players"] for r in table} == {3, 4}
    # each contract is counted once per measure: the aces rows add up to every contract
    contracts = sum(1 for g in out for h in g["hands"] if h["contract"])
    assert sum(r["contracts"] for r in table if r["measure"] == "aces") == contracts


def test_one_hand_by_hand(tmp_path):
    # the report's own SQL over a hands view of one hand: seat 1 takes 90 in hearts, partner seat 3.
    # Seat 1: JH 9H AH 7C 8C AS KS QD; seat 3: TH 8H AC 7S 8S 9S 9D TD (seats 0 and 2 hold the rest).
    # Team: hearts JH 9H AH TH 8H = 5 trumps, the J and 9 of hearts = 2, aces AH AS AC = 3.
    import duckdb
    import pyarrow as pa

    from pipeline.cards import parse_card

    def mask(cards: str) -> int:
        return sum(1 << parse_card(c) for c in cards.split())
    taker, partner = mask("JH 9H AH 7C 8C AS KS QD"), mask("TH 8H AC 7S 8S 9S 9D TD")
    rest = 0xFFFFFFFF & ~(taker | partner)
    con = duckdb.connect()
    con.register("hands", pa.table({"hand_key": ["h"], "n_players": pa.array([4], pa.int8()),
                                    "taker": pa.array([1], pa.int8()), "strain": ["H"], "bid": pa.array([90], pa.int16()),
                                    "capot_bid": [False],
                                    "initial_hands": pa.array([[rest & 0x0F0F0F0F, taker, rest & 0xF0F0F0F0, partner]],
                                                              pa.list_(pa.uint32()))}))
    con.register("scores", pa.table({"hand_key": ["h"], "ruleset": ["r"], "contract_made": [True],
                                     "status": ["scored"], "litige": [False]}))
    rows = con.sql(stats.report_sql("bidding"), params={"ruleset": "r"}).to_arrow_table().to_pylist()
    assert {(r["measure"], r["value"]) for r in rows} == {("trumps", 5), ("jacks_nines_of_trump", 2), ("aces", 3)}
    assert all((r["n_players"], r["strain_kind"], r["level"], r["made_of"]) == (4, "suit", "90", "1/1") for r in rows)


def test_documented(games):
    lake, _ = games
    table = stats.run_report(lake, "bidding", "own")
    doc = stats.report_doc("bidding")
    assert stats.report_params("bidding") == ["ruleset"]
    assert all(c in doc for c in table.column_names)
    assert set(stats.display_columns("bidding")) <= set(table.column_names)


def test_bidders_per_player_from_the_records(games):
    """queries/bidders.sql against the records' own cards, auctions and the scores table: each taker's
    contracts and results, the team's trumps and aces on average, and each coinche caller's calls and how
    many of those contracts then failed."""
    from collections import defaultdict

    lake, out = games
    scores = {r["hand_key"]: r for r in lakemod.read(lake, "scores").to_pylist()}
    keys = {(r["game_id"], r["hand_no"]): r["hand_key"] for r in lakemod.read(lake, "hands").to_pylist()}
    want: dict = defaultdict(lambda: defaultdict(list))
    for g in out:
        for h in g["hands"]:
            c = h["contract"]
            if not c:
                continue
            n = len(h["hands"])
            sc = scores[keys[(g["game_id"], h["hand_no"])]]
            decided = sc["status"] == "scored" and not sc["litige"]
            team = h["hands"][c["taker"]] + (h["hands"][(c["taker"] + 2) % 4] if n == 4 else [])
            w = want[g["players"][c["taker"]]]
            w["made"].append(bool(sc["contract_made"]))
            w["decided"].append(decided)
            w["aces"].append(sum(card[0] == "A" for card in team))
            if c["strain"] in "CDHS":
                w["trumps"].append(sum(card[1] == c["strain"] for card in team))
            for call in h["auction"]:
                if call["call"] == "coinche":
                    caller = want[g["players"][call["seat"]]]
                    caller["coinche_decided"].append(decided)
                    caller["coinche_right"].append(decided and sc["contract_made"] is False)
    rows = {r["player"]: r for r in stats.run_report(lake, "bidders", "own").to_pylist()}
    assert set(rows) == set(want)
    for name, w in want.items():
        r = rows[name]
        assert (r["contracts"], r["made"], r["decided"]) == (len(w["made"]), sum(w["made"]), sum(w["decided"])), name
        assert r["avg_aces"] == (round(sum(w["aces"]) / len(w["aces"]), 2) if w["aces"] else None), name
        assert r["avg_trumps"] == (round(sum(w["trumps"]) / len(w["trumps"]), 2) if w["trumps"] else None), name
        assert (r["coinches"], r["coinches_right"], r["coinches_decided"]) == (
            len(w["coinche_decided"]), sum(w["coinche_right"]), sum(w["coinche_decided"])), name
    assert any(r["coinches"] for r in rows.values())
    doc = stats.report_doc("bidders")
    assert all(c in doc for c in rows[next(iter(rows))])


def test_bidders_as_json_gives_numbers(games):
    """`stats bidders --format json`: its sums come out of DuckDB as decimals (HUGEINT), which JSON writes as the
    same integers (pipeline/report/output.py); it used to fail with 'Type is not JSON serializable: decimal.Decimal'."""
    import json

    from typer.testing import CliRunner

    from pipeline.cli import app
    lake, _ = games
    r = CliRunner().invoke(app, ["stats", "bidders", "--lake", str(lake), "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    want = stats.run_report(lake, "bidders", "own").to_pylist()
    assert [x["made"] for x in rows] == [int(x["made"]) for x in want] and rows
    assert all(isinstance(x["made"], int) for x in rows)
