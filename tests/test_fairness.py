"""pipeline/stats/fairness.py: exact probabilities checked by brute force, published values, sums; the lake report."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest


from helpers import record_version
from pipeline.storage import lake_write
from pipeline import cards
from pipeline.storage import schema
from pipeline.stats.fairness import (REPORT_COLUMNS, binomial_test, deck_probabilities, exact_probabilities,
                               fairness_report, hand_events)


# ----------------------------------------------------------------------------- brute force

def _brute(suits: int, ranks: int, hand: int, carre_ranks: dict[str, int], pair: tuple[int, int],
           runs=(3, 4, 5)) -> dict[str, Fraction]:
    """Enumerate every hand with itertools.combinations; events tested on (suit, rank) sets, suit 0 as trump."""
    deck = [(s, r) for s in range(suits) for r in range(ranks)]
    counts: dict[str, int] = {}
    total = 0

    def add(name, cond):
        counts[name] = counts.get(name, 0) + bool(cond)

    for h in itertools.combinations(deck, hand):
        total += 1
        held = set(h)
        for name, r in carre_ranks.items():
            add(f"carre_{name}", all((s, r) in held for s in range(suits)))
        add("carre_any", any(all((s, r) in held for s in range(suits)) for r in carre_ranks.values()))
        for L in runs:
            add(f"run_{L}", any(all((s, r0 + i) in held for i in range(L))
                                for s in range(suits) for r0 in range(ranks - L + 1)))
        add("void", any(not any(c[0] == s for c in held) for s in range(suits)))
        n_trump = sum(1 for c in held if c[0] == 0)
        for k in range(min(ranks, hand) + 1):
            add(f"trump_len_{k}", n_trump == k)
        add("trump_J9", (0, pair[0]) in held and (0, pair[1]) in held)
    return {k: Fraction(v, total) for k, v in counts.items()}


SHAPES = [
    # suits, ranks, hand, carre ranks, pair
    (4, 4, 4, {"a": 0, "b": 1, "c": 2, "d": 3}, (3, 1)),
    (3, 5, 6, {"x": 2, "y": 4}, (4, 2)),
    (4, 5, 7, {"p": 1, "q": 3, "r": 4}, (0, 4)),
]


@pytest.mark.parametrize("suits,ranks,hand,carre,pair", SHAPES)
def test_formulas_match_brute_force(suits, ranks, hand, carre, pair):
    exact = deck_probabilities(suits, ranks, hand, carre_ranks=carre)
    brute = _brute(suits, ranks, hand, carre, pair)
    assert exact == brute


def _all_hands(suits: int, ranks: int, hand: int) -> np.ndarray:
    """Every hand of the deck as a bitmask (card = suit*ranks + rank), built suit by suit."""
    subsets = [[] for _ in range(ranks + 1)]
    for sub in range(1 << ranks):
        subsets[bin(sub).count("1")].append(sub)
    subsets = [np.array(x, dtype=np.uint64) for x in subsets]
    acc = {0: np.zeros(1, np.uint64)}
    for s in range(suits):
        new: dict[int, list] = {}
        for size, masks in acc.items():
            for k in range(0, min(ranks, hand - size) + 1):
                combo = (masks[:, None] | (subsets[k][None, :] << np.uint64(s * ranks))).reshape(-1)
                new.setdefault(size + k, []).append(combo)
        acc = {size: np.concatenate(v) for size, v in new.items()}
    return acc[hand]


@pytest.mark.parametrize("suits,ranks,hand,carre,pair", SHAPES)
def test_hand_events_match_formulas_small(suits, ranks, hand, carre, pair):
    masks = _all_hands(suits, ranks, hand)
    assert len(masks) == math.comb(suits * ranks, hand)
    ev = hand_events(masks, np.zeros(len(masks), int), suits=suits, ranks=ranks, carre_ranks=carre, pair=pair)
    exact = deck_probabilities(suits, ranks, hand, carre_ranks=carre)
    for name, p in exact.items():
        assert Fraction(int(ev[name].sum()), len(masks)) == p, name


def test_hand_events_match_formulas_full_deck():
    """All C(32,8) = 10,518,300 hands: the lake-side event code agrees with the exact probabilities."""
    masks = _all_hands(4, 8, 8)
    assert len(masks) == math.comb(32, 8)
    ev = hand_events(masks, np.full(len(masks), 2))
    for name, p in exact_probabilities().items():
        assert Fraction(int(ev[name].sum()), len(masks)) == p, name


# ----------------------------------------------------------------------------- published values and sums

def test_published_values():
    p = exact_probabilities()
    assert p["carre_J"] == Fraction(20475, 10518300) == Fraction(math.comb(28, 4), math.comb(32, 8))
    assert p["trump_len_3"] == Fraction(math.comb(8, 3) * math.comb(24, 5), math.comb(32, 8))
    assert p["trump_J9"] == Fraction(math.comb(30, 6), math.comb(32, 8))
    assert all(p[f"carre_{r}"] == p["carre_J"] for r in ("9", "A", "10", "K", "Q"))
    # inclusion-exclusion, written out: 6 single carrés minus 15 pairs (8 forced cards) = C(28,4)*6 - 15
    assert p["carre_any"] == Fraction(6 * math.comb(28, 4) - 15, math.comb(32, 8))
    # a void in a given suit is C(24,8)/C(32,8); the union by inclusion-exclusion over 1-3 suits
    void = sum((-1) ** (j + 1) * math.comb(4, j) * math.comb(32 - 8 * j, 8) for j in range(1, 4))
    assert p["void"] == Fraction(void, math.comb(32, 8))
    assert p["trump_len_0"] == Fraction(math.comb(24, 8), math.comb(32, 8))
    assert p["run_5"] < p["run_4"] < p["run_3"] < 1
    assert all(isinstance(v, Fraction) for v in p.values())


@pytest.mark.parametrize("shape", [(4, 8, 8), (4, 4, 4), (3, 5, 6), (2, 8, 5)])
def test_suit_length_distribution_sums_to_one(shape):
    p = deck_probabilities(*shape)
    lengths = [v for k, v in p.items() if k.startswith("trump_len_")]
    assert sum(lengths) == 1
    # and its mean is hand * ranks / cards
    s, r, h = shape
    assert sum(k * p[f"trump_len_{k}"] for k in range(len(lengths))) == Fraction(h * r, s * r)


# ----------------------------------------------------------------------------- binomial test

def test_binomial_test_small_exact():
    # n = 4, p = 1/2: pmf 1 4 6 4 1 (/16); P(two-sided, k=0) = 2/16
    assert binomial_test(0, 4, 0.5) == (pytest.approx(2 / 16), "exact")
    assert binomial_test(2, 4, 0.5)[0] == pytest.approx(1.0)
    assert binomial_test(1, 4, 0.5)[0] == pytest.approx(10 / 16)
    assert binomial_test(0, 0, 0.3) == (1.0, "exact")
    pv, method = binomial_test(600, 200_000, 0.002)
    assert method == "normal" and 0 < pv < 1


def test_binomial_test_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for k, n, p in [(3, 100, 0.01), (40, 1000, 0.0351), (0, 500, 0.0019), (250, 1000, 0.2259), (20, 50000, 0.0019)]:
        assert binomial_test(k, n, p)[0] == pytest.approx(stats.binomtest(k, n, p).pvalue, rel=1e-6)


# ----------------------------------------------------------------------------- report on a small lake

def _mask(*names: str) -> int:
    return sum(1 << cards.parse_card(c) for c in names)


def _deal(hands: list[list[str]]) -> list[int]:
    masks = [_mask(*h) for h in hands]
    assert sum(masks) == (1 << 32) - 1 and all(bin(m).count("1") == 8 for m in masks)
    return masks


# Two explicit deals (each checked by _deal to partition the deck), events noted per seat.
DEAL_A = _deal([
    ["JC", "JD", "JH", "JS", "7C", "8C", "9C", "AH"],       # carré J, run 3 (7-8-9 C), no void
    ["7S", "8S", "9S", "TS", "QS", "KS", "AS", "AD"],       # run 4 (7-8-9-10 S) and run 3 (Q-K-A S); voids C H
    ["7D", "8D", "9D", "TD", "QD", "KD", "TC", "QC"],       # run 4 D; voids H S
    ["7H", "8H", "9H", "TH", "QH", "KH", "KC", "AC"],       # run 4 H; voids D S
])
DEAL_B = _deal([
    ["7C", "9C", "JC", "KC", "7D", "9D", "JD", "KD"],       # no run, voids H S
    ["8C", "TC", "QC", "AC", "8D", "TD", "QD", "AD"],       # no run, voids H S
    ["7H", "9H", "JH", "KH", "7S", "9S", "JS", "KS"],       # no run, voids C D
    ["8H", "TH", "QH", "AH", "8S", "TS", "QS", "AS"],       # no run, voids C D
])


def _row(key: str, source: str, masks, strain, players, n_players=4) -> dict:
    return {
        "hand_key": key, "game_id": f"{source}:g", "hand_no": 1, "source": source, "source_format": "test",
        "source_file": "t.jsonl", "source_game_id": "g", "variant": "belote", "n_players": n_players,
        "players": players, "dealer": 0, "completeness": "full_play", "initial_hands": masks,
        "auction": [], "taker": None if strain is None else 0, "strain": strain, "capot_bid": False,
        "coinche": 0, "errors": [],
    }


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    P = ["Ann", "Bob", "Cid", "Dee"]
    rows = [
        _row("a1", "alpha", DEAL_A, "C", P),        # trump clubs
        _row("a2", "alpha", DEAL_B, "NT", P),       # no trump: trump events skip these 4 hands
        _row("b1", "beta", DEAL_B, "H", P[::-1]),   # trump hearts; players reversed
        _row("b2", "beta", None, None, P),          # passed out, no initial hands: skipped
        _row("b3", "beta", DEAL_A[:3] + [0], "S", P),  # not a partition of the deck: skipped
    ]
    sch = schema.schema("hands")
    table = schema.conform("hands", pa.table({f.name: pa.array([r.get(f.name) for r in rows], f.type) for f in sch}))
    lake_write.append(tmp_path, "hands", table)
    record_version(tmp_path)
    return tmp_path


def _get(report: pa.Table) -> dict[tuple[str, str], dict]:
    return {(r["group"], r["event"]): r for r in report.to_pylist()}


def test_report_by_source(lake: Path):
    rep = fairness_report(lake)
    assert tuple(rep.column_names) == REPORT_COLUMNS
    got = _get(rep)
    probs = exact_probabilities()
    assert {g for g, _ in got} == {"alpha", "beta"}
    assert len(rep) == 2 * len(probs)
    a = lambda e: (got[("alpha", e)]["hands"], got[("alpha", e)]["observed"])  # noqa: E731
    b = lambda e: (got[("beta", e)]["hands"], got[("beta", e)]["observed"])  # noqa: E731
    assert a("carre_J") == (8, 1) and b("carre_J") == (4, 0)
    assert a("carre_any") == (8, 1) and a("carre_9") == (8, 0)
    assert a("run_3") == (8, 4) and a("run_4") == (8, 3) and a("run_5") == (8, 0)
    assert b("run_3") == (4, 0)
    assert a("void") == (8, 7) and b("void") == (4, 4)
    # alpha trump events: only deal A (clubs): seat lengths 4 (JC 7C 8C 9C), 0, 2 (TC QC), 2 (KC AC)
    assert a("trump_len_4") == (4, 1) and a("trump_len_0") == (4, 1) and a("trump_len_2") == (4, 2)
    assert a("trump_len_3") == (4, 0)
    assert a("trump_J9") == (4, 1)          # seat 0 holds JC and 9C
    # beta: deal B, hearts: seats 0, 1 have none, seats 2 and 3 have 4 each; seat 2 holds JH 9H
    assert b("trump_len_0") == (4, 2) and b("trump_len_4") == (4, 2) and b("trump_J9") == (4, 1)
    r = got[("alpha", "carre_J")]
    assert r["expected"] == pytest.approx(8 * float(probs["carre_J"]))
    assert r["ratio"] == pytest.approx(1 / r["expected"])
    assert r["method"] == "exact"
    assert r["p_value"] == pytest.approx(binomial_test(1, 8, float(probs["carre_J"]))[0])
    assert all(0 <= p <= 1 for p in rep["p_value"].to_pylist())
    # the 10 events of the chosen trump (trump_len_0..8, trump_J9) are flagged, the 11 others not
    flagged = sorted({e for (_, e), r in got.items() if r["depends_on_trump"]})
    assert flagged == sorted([f"trump_len_{k}" for k in range(9)] + ["trump_J9"])
    assert len({e for (_, e), r in got.items() if r["depends_on_trump"] is False}) == 11


def test_report_by_player(lake: Path):
    got = _get(fairness_report(lake, by="player"))
    assert {g for g, _ in got} == {"Ann", "Bob", "Cid", "Dee"}
    # Ann: seat 0 of deals A (clubs) and B (NT), seat 3 of deal B (hearts)
    assert (got[("Ann", "carre_J")]["hands"], got[("Ann", "carre_J")]["observed"]) == (3, 1)
    assert (got[("Ann", "trump_len_4")]["hands"], got[("Ann", "trump_len_4")]["observed"]) == (2, 2)
    # Dee: seat 3 of A (clubs: KC AC) and B (NT), seat 0 of B (hearts: none)
    assert (got[("Dee", "trump_len_2")]["observed"], got[("Dee", "trump_len_0")]["observed"]) == (1, 1)
    assert got[("Dee", "run_4")]["observed"] == 1


def test_report_normal_method_and_empty(tmp_path: Path, lake: Path):
    rep = fairness_report(lake, exact_max_n=5)
    methods = dict(((r["group"], r["event"]), r["method"]) for r in rep.to_pylist())
    assert methods[("alpha", "carre_J")] == "normal" and methods[("alpha", "trump_J9")] == "exact"
    empty = fairness_report(tmp_path / "nothing")
    assert empty.num_rows == 0 and tuple(empty.column_names) == REPORT_COLUMNS
    with pytest.raises(ValueError):
        fairness_report(lake, by="seat")


def _dated_games(lake: Path) -> None:
    """games rows for the fixture's two games: alpha:g played 2026-03-01 20:00 UTC, beta:g 2026-03-05 08:00 UTC."""
    from datetime import datetime, timezone

    rows = [{"game_id": f"{s}:g", "source": s, "source_format": "test", "source_file": "t.jsonl",
             "source_game_id": "g", "variant": "belote", "n_players": 4, "players": ["Ann", "Bob", "Cid", "Dee"],
             "n_hands": 3, "game_key": f"key-{s}", "played_at": when}
            for s, when in (("alpha", datetime(2026, 3, 1, 20, tzinfo=timezone.utc)),
                            ("beta", datetime(2026, 3, 5, 8, tzinfo=timezone.utc)))]
    sch = schema.schema("games")
    lake_write.append(lake, "games", schema.conform("games", pa.table(
        {f.name: pa.array([r.get(f.name) for r in rows], f.type) for f in sch})))


def test_report_since_until_and_min_hands(lake: Path):
    from pipeline.stats import reports as stats
    _dated_games(lake)
    # --until 2026-03-01 keeps alpha:g only (deals A clubs, B NT): the alpha rows of test_report_by_source
    got = _get(fairness_report(lake, filters=stats.Filters(until=stats.parse_when("2026-03-01", end=True))))
    assert {g for g, _ in got} == {"alpha"}
    assert (got[("alpha", "carre_J")]["hands"], got[("alpha", "carre_J")]["observed"]) == (8, 1)
    assert (got[("alpha", "void")]["hands"], got[("alpha", "void")]["observed"]) == (8, 7)
    # --since 2026-03-02 keeps beta:g: b1 (deal B, hearts) is its only valid deal, 4 seat hands
    got = _get(fairness_report(lake, filters=stats.Filters(since=stats.parse_when("2026-03-02"))))
    assert {g for g, _ in got} == {"beta"}
    assert (got[("beta", "trump_len_4")]["hands"], got[("beta", "trump_len_4")]["observed"]) == (4, 2)
    # --min-hands: alpha has 8 seat hands dealt, beta 4 (b2, b3 are skipped): 5 keeps alpha, 9 keeps nothing
    rep = fairness_report(lake, filters=stats.Filters(min_hands=5))
    assert set(rep["group"].to_pylist()) == {"alpha"} and len(rep) == len(exact_probabilities())
    assert fairness_report(lake, filters=stats.Filters(min_hands=9)).num_rows == 0
    # by player: Ann, Bob, Cid, Dee each sat in the 3 valid deals (a1, a2, b1): 3 seat hands each
    assert set(fairness_report(lake, "player", filters=stats.Filters(min_hands=3))["group"].to_pylist()) == \
        {"Ann", "Bob", "Cid", "Dee"}
    assert fairness_report(lake, "player", filters=stats.Filters(min_hands=4)).num_rows == 0


def test_cli_fairness_filters(lake: Path):
    import json

    from typer.testing import CliRunner

    from pipeline.cli import app

    _dated_games(lake)
    r = CliRunner().invoke(app, ["stats", "fairness", "--lake", str(lake), "--since", "2026-03-02", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert {row["group"] for row in json.loads(r.stdout)} == {"beta"}        # beta:g, played 2026-03-05
    r = CliRunner().invoke(app, ["stats", "fairness", "--lake", str(lake), "--until", "2026-03-01", "--by", "all",
                                 "--min-hands", "8", "--format", "json"])
    rows = {row["event"]: row for row in json.loads(r.stdout)}
    assert (rows["carre_any"]["group"], rows["carre_any"]["hands"], rows["carre_any"]["observed"]) == ("(all)", 8, 1)
    r = CliRunner().invoke(app, ["stats", "fairness", "--help"])
    assert "No --rules" in r.stdout


# ----------------------------------------------------------------------------- the events as states, and the dealt_events view

def _odd_hands(n: int = 400, seed: int = 5) -> pa.Table:
    """Random deals under every strain, plus the deals the report skips or treats apart: a 3-name players list,
    a 3-player hand, a 7-card hand, masks that overlap, no initial hands."""
    rng = np.random.default_rng(seed)
    strains = ["C", "D", "H", "S", "NT", "AT", None]
    rows = []
    for i in range(n):
        perm = rng.permutation(32)
        masks = [int(sum(1 << int(c) for c in perm[8 * s:8 * s + 8])) for s in range(4)]
        players = [f"p{int(x)}" for x in rng.choice(6, 4, replace=False)]
        rows.append(_row(f"h{i}", ["alpha", "beta"][i % 2], masks, strains[i % len(strains)], players))
    rows[0]["players"] = ["p1", "p2", "p3"]
    rows[1]["players"] = ["p1", None, "p2", "p3"]
    rows[2]["n_players"] = 3
    rows[3]["initial_hands"] = rows[3]["initial_hands"][:3] + [rows[3]["initial_hands"][3] & ~1]
    rows[4]["initial_hands"] = [rows[4]["initial_hands"][0]] * 4
    rows[5]["initial_hands"] = None
    sch = schema.schema("hands")
    return schema.conform("hands", pa.table({f.name: pa.array([r.get(f.name) for r in rows], f.type) for f in sch}))


def _view_counts(con, by: str) -> tuple:
    """The counts of fairness._report_rows from the ``dealt_events`` view's rows (one GROUP BY over its bit set),
    as the report counted them when the table was stored."""
    from pipeline.facts.dealt_events import CARRE_MASK, EVENT_BITS

    group = {"source": "source", "player": "coalesce(player, '')", "all": "'(all)'"}[by]
    aggs = [f"coalesce(count_if(events & {1 << b} != 0), 0)" for b in range(len(EVENT_BITS))]
    aggs += [f"coalesce(count_if(events & {CARRE_MASK} != 0), 0)"]
    aggs += [f"coalesce(count_if(trump_len = {c}), 0)" for c in range(9)]
    rows = con.execute(f"SELECT {group} AS g, count(*), count(trump_len), {', '.join(aggs)} FROM dealt_events "
                       "GROUP BY g").fetchall()
    col = [np.array([r[i] for r in rows], np.int64) for i in range(1, len(rows[0]))]
    observed = dict(zip(EVENT_BITS, col[2:]))
    observed["carre_any"] = col[2 + len(EVENT_BITS)]
    for c in range(9):
        observed[f"trump_len_{c}"] = col[3 + len(EVENT_BITS) + c]
    return [r[0] for r in rows], col[0], col[1], observed


@pytest.mark.parametrize("by", ["source", "player", "all"])
def test_dealt_events_view_counts_as_the_report(by):
    """The dashboard's ``dealt_events`` view evaluates the events in SQL (pipeline/facts/dealt_events.py); counted
    per group, its rows give the report's rows, which count the deals through seat_states: two independent
    evaluations of the same events, odd deals included."""
    import duckdb

    from pipeline.facts.dealt_events import live_sql
    from pipeline.stats.fairness import _report_rows, fairness_on, fairness_table

    hands = _odd_hands()
    con = duckdb.connect()
    con.register("hands", hands)
    con.execute(f"CREATE VIEW dealt_events AS {live_sql('hands', 'scores', 'SELECT $$x$$ AS ruleset')}")
    expected = fairness_table(hands, by)
    assert expected.num_rows and _report_rows(*_view_counts(con, by)).to_pylist() == expected.to_pylist()
    assert fairness_on(con, by).to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("groups", [1, 3, 900])
def test_seat_states_count_as_hand_events(groups, monkeypatch):
    """The report counts each event through one state per seat hand (seat_states / state_counts) instead of
    one boolean array per event (hand_events, checked against the exact probabilities' formulas above): the
    same counts per group, with few groups (one bincount over groups x states) and with many (one bincount per
    event), over random deals under every trump and none."""
    from pipeline.stats import fairness

    rng = np.random.default_rng(7)
    n = 5000
    perm = np.argsort(rng.random((n, 32)), axis=1)
    masks = np.zeros((n, 4), np.uint64)
    for seat in range(4):
        for c in range(8):
            masks[:, seat] |= np.uint64(1) << perm[:, 8 * seat + c].astype(np.uint64)
    flat = masks.reshape(-1).astype(np.uint32)
    trump = np.repeat(rng.integers(-1, 4, n), 4)
    codes = rng.integers(0, groups, len(flat))
    events = fairness.hand_events(flat, trump)
    for bins in (fairness.MAX_STATE_BINS, 0):
        monkeypatch.setattr(fairness, "MAX_STATE_BINS", bins)
        n_all, n_trump, observed = fairness.state_counts(fairness.seat_states(flat, trump), codes, groups)
        assert (n_all == np.bincount(codes, minlength=groups)).all()
        assert (n_trump == np.bincount(codes[trump >= 0], minlength=groups)).all()
        assert set(observed) == set(events)
        for name, ev in events.items():
            assert (observed[name] == np.bincount(codes[ev], minlength=groups)).all(), (name, bins)
    assert sum(int(observed[f"trump_len_{c}"].sum()) for c in range(9)) == int((trump >= 0).sum())


def test_rescore_writes_no_dealt_events_and_filters_read_the_deals(tmp_path: Path):
    """`rescore` no longer writes dealt_events (layout version 7); the report under filters (pseudonymized or
    not) counts the deals the filtered hands view holds: its rows are fairness_table's over those hands."""
    from helpers import simulated_lake

    from pipeline.stats import reports as stats
    from pipeline.stats.fairness import fairness_many, fairness_on, fairness_table

    lake = simulated_lake(tmp_path / "lake")
    assert not (lake / "dealt_events").exists()
    filters = (None, stats.Filters(sources=("club",)), stats.Filters(players=("Hugo",)),
               stats.Filters(variants=("belote",)), stats.Filters(pseudonymize="pepper"),
               stats.Filters(pseudonymize="pepper", min_hands=5), stats.Filters(players=("Hugo",), min_hands=10 ** 9))
    for f in filters:
        con = stats.connect(lake, f)
        try:
            hands = con.sql("SELECT * FROM hands").to_arrow_table()
            per_ruleset = con.execute("SELECT ruleset, count(*) FROM dealt_events GROUP BY ALL ORDER BY 1").fetchall()
            # the three groupings from one read of the deals (the dashboard's report_fairness) = one read each
            many = fairness_many(con, ("all", "source", "player"), f)
            assert list(many) == ["all", "source", "player"]
            assert all(many[by].to_pylist() == fairness_on(con, by, f).to_pylist() for by in many), f
        finally:
            con.close()
        four = sum(1 for h in hands.column("n_players").to_pylist() if h == 4)
        assert four and per_ruleset == [("belote-classic", 4 * four), ("colver", 4 * four)], f
        for by in ("source", "player", "all"):
            got = fairness_report(lake, by, filters=f).to_pylist()
            want = fairness_table(hands, by).to_pylist()
            if f is not None and f.players and by == "player":
                want = [r for r in want if r["group"] in f.players]
            if f is not None and f.min_hands:       # groups with fewer seat hands dealt are left out
                dealt = {r["group"]: r["hands"] for r in want if not r["depends_on_trump"]}
                want = [r for r in want if dealt[r["group"]] >= f.min_hands]
            assert got == want and (got or (f.min_hands or 0) > 10 ** 6), (f, by)


def test_fairness_with_only_passed_out_hands(tmp_path: Path):
    # A lake whose only hand was passed out: no trump length (no contract). When the report counted stored
    # dealt_events rows, DuckDB's count_if over only NULLs was NULL, not 0: `stats fairness` crashed.
    # Expected by hand: 4 seat-hands dealt (tests/deals.py DEAL_A), no carré of jacks among them; no trump event counted.
    import csv
    import io

    from typer.testing import CliRunner

    from conftest import write_jsonl
    from deals import DEAL_A as DEALT_A, native_game, native_hand
    from pipeline import rules
    from pipeline.cli import app
    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake
    passed = native_hand(DEALT_A, 1, taker=None)
    passed["auction"] = [[0, "pass"], [1, "pass"], [2, "pass"], [3, "pass"]]
    f = write_jsonl(tmp_path / "p.jsonl", [native_game("p", [passed])])
    lake = tmp_path / "lake"
    assert ingest_paths([f], lake).hands == 1
    rescore_lake(lake, rules.load("belote-classic"))
    r = CliRunner().invoke(app, ["stats", "fairness", "--lake", str(lake), "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = {row["event"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
    assert (rows["carre_J"]["group"], rows["carre_J"]["hands"], rows["carre_J"]["observed"]) == ("test", "4", "0")
    assert (rows["trump_len_0"]["hands"], rows["trump_len_0"]["observed"]) == ("0", "0")


def test_carre_of_tens_has_one_name_across_reports():
    """New-user trial, issue 3: `stats fairness` said carre_T where `stats declaration-kinds` says carre_10. The
    docs name the ranks 7 8 9 10 J Q K A (schemas/hands.toml) and the declaration kinds carre_7 .. carre_A with
    carre_10 (docs/tables.md, declaration_items.kind), so every report says carre_10."""
    import re
    from pipeline.facts import dealt_events
    from pipeline.stats import fairness
    from pipeline.stats import reports as stats
    kinds = set(re.findall(r"'(carre_\w+)'", stats.report_sql("declaration_kinds")))
    assert kinds == {f"carre_{r}" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")}
    carres = [e for e in dealt_events.EVENT_BITS if e.startswith("carre_")]
    assert carres == ["carre_J", "carre_9", "carre_A", "carre_10", "carre_K", "carre_Q"]
    assert set(carres) <= kinds
    # the exact probabilities use the same names: 7/3596 for each carré (docs/fairness.md's table)
    p = fairness.exact_probabilities()
    assert "carre_T" not in p and p["carre_10"] == p["carre_J"] == Fraction(7, 3596)


@pytest.mark.parametrize("by", ["source", "player", "all"])
@pytest.mark.parametrize("seed", range(3))
def test_batch_splits_do_not_change_the_counts(by, seed):
    """The report is counted batch by batch (memory: one batch, not the lake); random splits of the same hands,
    the odd ones included, give the counts of the whole table at once (polars-style parametric test)."""
    from pipeline.stats.fairness import _deal_counts, _report_rows, _streamed_counts
    hands = _odd_hands(300, seed=seed)
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, hands.num_rows), rng.integers(1, 12), replace=False)).tolist()
    batches = [b for s, e in zip([0, *cuts], [*cuts, hands.num_rows]) for b in hands.slice(s, e - s).to_batches()]
    whole = _report_rows(*_deal_counts(hands, by)).to_pylist()
    assert whole and _report_rows(*_streamed_counts(batches, (by,))[by]).to_pylist() == whole
    assert _report_rows(*_streamed_counts(iter([]), (by,))[by]).num_rows == 0
