"""pipeline/facts/player_facts.py derives ``player_hands`` two ways: per seat for a hand whose every seat holds its own
name, and per distinct name from its list of seats for any other hand (the rules' statement in the module text).
The per-seat rows must be exactly the per-name rows on every hand where both apply: this test runs both over a
lake holding every kind of hand the derivation distinguishes, and compares the rows value for value.

The lake: simulated classic, coinche (coinches and declarations), 3-player and 2-player games; a coinche game
whose two names share four seats (a bot playing itself: every hand goes to the per-name path), one with a name
on two seats of one team, and club score sheets (summary-level hands, whose points come from the recorded
score). Every ruleset is compared over every hand (``general=True`` sends all hands through the per-name path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.facts import player_facts

from pipeline.stats import reports as stats
from pipeline.ingest.run import ingest_paths

from helpers import simulated_lake

FIXTURES = Path(__file__).parent / "fixtures" / "scoresheets"


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("paths")
    lake = simulated_lake(d / "lake", plan=(("pagat-coinche", 3, 5, "online"), ("belote-classic", 2, 11, "club"),
                                            ("belote-3p", 2, 7, "trio"), ("belote-2p", 2, 3, "duo")))
    # the same games with names that repeat: all four seats two names (Bruno twice, Emma twice), and one name on
    # two seats of one team (Chloé sits at seats 2 and 0 ... as Bruno's place is taken by her)
    simulated_lake(d / "twice", plan=(("pagat-coinche", 2, 21, "bots"),), rename={"Chloé": "Bruno", "Driss": "Emma"})
    simulated_lake(d / "team", plan=(("pagat-coinche", 2, 22, "mates"),), rename={"Bruno": "Chloé"})
    ingest_paths([p for p in d.glob("*-sim-*.jsonl")] + [FIXTURES / "club_sheet.csv", FIXTURES / "club_sheet_fr.csv",
                                                        _illegal_game(d / "illegal.jsonl")], lake)
    from pipeline.rescore import rescore_lake
    from pipeline.rules import load
    for r in ("pagat-coinche", "belote-classic", "belote-3p", "belote-2p"):
        rescore_lake(lake, load(r))
    return lake


def _illegal_game(path: Path) -> Path:
    """A coinche game whose played hands each have an illegal play: the second card of trick 1 swapped with the
    same seat's last card (a card of its hand, so the record is valid; following suit is not)."""
    import orjson

    from pipeline.rules import load
    from pipeline.simulate.games import simulate

    game = next(iter(simulate(load("pagat-coinche"), 1, 31)))
    game["game_id"] = game["source_game_id"] = "illegal-1"
    game["source"] = "swapped"
    for h in game["hands"]:
        if h["plays"]:
            seat = h["play_seats"][1]
            j = max(i for i, x in enumerate(h["play_seats"]) if x == seat)
            h["plays"][1], h["plays"][j] = h["plays"][j], h["plays"][1]
            h["recorded"] = None
    path.write_bytes(orjson.dumps(game) + b"\n")
    return path


def _rows(con, sql: str) -> list[tuple]:
    return sorted(con.execute(sql).fetchall(), key=repr)


def test_per_seat_rows_equal_the_per_name_rows(lake):
    con = stats.connect(lake)
    try:
        kinds = con.execute("""SELECT count(*) FILTER (WHERE len(list_distinct(players)) < n_players),
                                      count(*) FILTER (WHERE completeness = 'summary'),
                                      count(*) FILTER (WHERE n_players = 3), count(*) FILTER (WHERE n_players = 2),
                                      count(*) FILTER (WHERE len(list_filter(auction, lambda a: a.call = 'coinche')) > 0)
                               FROM hands""").fetchall()[0]
        # the lake holds each kind the two paths treat differently (else the comparison proves nothing)
        assert all(k > 0 for k in kinds), kinds
        assert con.execute("SELECT count(*) FROM scores WHERE legal = false").fetchall()[0][0] > 0
        fast = _rows(con, player_facts.live_hands_sql())
        general = _rows(con, player_facts.live_hands_sql(general=True))
        assert len(fast) == len(general) > 0
        assert fast == general
        # the per-seat path did the work: most rows come from hands with one seat each
        singles = con.execute("SELECT count(*) FROM hands WHERE len(list_distinct(players)) = n_players").fetchall()[0][0]
        assert singles > kinds[0]
    finally:
        con.close()


def test_stored_derived_rows_equal_the_rows_computed_from_hands_and_scores(lake):
    """What the rescore wrote (pipeline.facts.derived.materialize: per-seat rows, the game tables' seated names read
    from the hands) equals what the views compute from the lake's hands and scores, table by table, on this
    lake of every kind of hand. ``player_hands`` and ``pair_hands`` are not stored (their views are this SQL; the
    hand pass's rows of them are held equal to it by tests/test_batch_facts.py)."""
    from pipeline.facts.derived import DERIVED, STORED

    con = stats.connect(lake)
    try:
        rulesets = " UNION ALL ".join(f"SELECT '{r}' AS ruleset" for r in
                                      ("pagat-coinche", "belote-classic", "belote-3p", "belote-2p"))
        for name in STORED:
            d = DERIVED[name]
            stored = con.sql(f"SELECT * FROM {name}").to_arrow_table()
            live = con.sql(d.live_sql("hands", "scores", rulesets)).to_arrow_table()
            cols = [c for c in stored.column_names if c != "hand_seq"]      # a stored row's position in the files
            assert sorted(map(repr, stored.select(cols).to_pylist())) == \
                sorted(map(repr, live.select(cols).to_pylist())), name
            assert stored.num_rows > 0, name
    finally:
        con.close()
