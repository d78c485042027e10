"""Recorded scores are compared only with a rescoring under the rules their source played.

A lake mixing sources holds hands whose recorded scores follow different rulesets (games.ruleset_hint). Rescoring
everything under ruleset A must not count the rule differences of B's games as disagreements: their
``scores.matches_recorded`` is null, the rescore summary says how many were left uncompared, and the players report
and the audit follow (both read matches_recorded).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc

from pipeline.storage import lake as lakemod
from pipeline import rules
from pipeline.stats import reports as stats
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.simulate.games import simulate_to_file


def _lake(tmp_path: Path) -> tuple[Path, int, int]:
    """Lake of 3 simulated belote-classic games and 3 pagat-coinche games; each simulated hand carries the score
    the simulator recorded under its own ruleset (games.ruleset_hint = that ruleset's name)."""
    a = tmp_path / "classic.jsonl"
    b = tmp_path / "coinche.jsonl"
    _, hands_a = simulate_to_file("belote-classic", 3, 11, a)
    _, hands_b = simulate_to_file("pagat-coinche", 3, 12, b)
    lake = tmp_path / "lake"
    ingest_paths([a, b], lake)
    return lake, hands_a, hands_b


def _recorded(lake: Path, hint: str) -> int:
    """Hands of the games whose ruleset_hint is ``hint`` that carry a recorded score (passed-out hands record 0-0)."""
    games = lakemod.read(lake, "games", columns=["game_id", "ruleset_hint"])
    ids = games.column("game_id").filter(pc.equal(games.column("ruleset_hint"), hint))
    hands = lakemod.read(lake, "hands", columns=["game_id", "recorded_score"])
    keep = pc.and_(pc.is_in(hands.column("game_id"), value_set=ids), pc.is_valid(hands.column("recorded_score")))
    return int(pc.sum(keep).as_py())


def test_only_games_of_the_ruleset_are_compared(tmp_path):
    lake, hands_a, hands_b = _lake(tmp_path)
    rec_a, rec_b = _recorded(lake, "belote-classic"), _recorded(lake, "pagat-coinche")
    assert rec_a > 0 and rec_b > 0
    s = rescore_lake(lake, rules.load("belote-classic"))
    # the coinche games' coinched, capot-bid, no-trump and all-trump contracts do not exist in classic: those
    # hands are unscorable under it (counted with the unscorable ones); the others are left uncompared
    sc = lakemod.read(lake, "scores", columns=["game_id", "status"])
    hands = lakemod.read(lake, "hands", columns=["game_id", "hand_no", "recorded_score", "coinche", "capot_bid",
                                                 "strain"])
    games = lakemod.read(lake, "games", columns=["game_id", "ruleset_hint"])
    coinche_ids = games.column("game_id").filter(pc.equal(games.column("ruleset_hint"), "pagat-coinche"))
    not_classic = sum(1 for h in hands.to_pylist() if h["game_id"] in set(coinche_ids.to_pylist())
                      and h["recorded_score"] is not None and h["strain"] is not None
                      and (h["coinche"] > 0 or h["capot_bid"] or h["strain"] in ("NT", "AT")))
    assert 0 < not_classic < rec_b
    assert pc.sum(pc.equal(sc.column("status"), "unscorable")).as_py() == not_classic
    # the simulator scores its own games with the engine, so every comparable hand matches
    assert (s.recorded, s.matches, s.other_rules) == (rec_a, rec_a, rec_b - not_classic)
    assert s.hands == hands_a + hands_b
    assert f"recorded score matched {rec_a}/{rec_a}" in str(s)
    assert f"{rec_b - not_classic} recorded scores of games played under another ruleset not compared" in str(s)
    scores = lakemod.read(lake, "scores", columns=["game_id", "matches_recorded", "ruleset"])
    games = lakemod.read(lake, "games", columns=["game_id", "ruleset_hint"])
    coinche = games.column("game_id").filter(pc.equal(games.column("ruleset_hint"), "pagat-coinche"))
    foreign_rows = scores.filter(pc.is_in(scores.column("game_id"), value_set=coinche))
    assert foreign_rows.num_rows == hands_b
    assert foreign_rows.column("matches_recorded").null_count == hands_b


def test_players_report_counts_no_foreign_mismatches(tmp_path):
    lake, _, _ = _lake(tmp_path)
    rec_b = _recorded(lake, "pagat-coinche")
    rescore_lake(lake, rules.load("belote-classic"))
    rows = stats.run_report(lake, "players", "belote-classic", stats.Filters()).to_pylist()
    # 4 simulated seats per source; no hand of either source disagrees (classic hands all match, coinche hands
    # are not compared), and the compared hands are the classic ones only
    assert sum(r["mismatches"] for r in rows) == 0
    assert sum(r["compared"] for r in rows if r["source"]) == 4 * _recorded(lake, "belote-classic")
    assert rec_b > 0
    audit = stats.run_report(lake, "audit", "belote-classic", stats.Filters())
    assert audit.num_rows == 0


def test_a_hint_naming_no_shipped_ruleset_is_reported(tmp_path):
    # a misspelt hint ("Belote-Classic") must not silently turn the comparison off: the rescore line names it
    import orjson
    a = tmp_path / "classic.jsonl"
    simulate_to_file("belote-classic", 2, 11, a)
    lines = a.read_bytes().splitlines()
    g = orjson.loads(lines[0])
    g["ruleset_hint"] = "Belote-Classic"
    a.write_bytes(b"\n".join([orjson.dumps(g)] + lines[1:]) + b"\n")
    lake = tmp_path / "lake"
    ingest_paths([a], lake)
    s = rescore_lake(lake, rules.load("belote-classic"))
    assert s.unknown_hints == ["Belote-Classic"] and s.other_rules == len(g["hands"])
    assert "games name rulesets that are not shipped: Belote-Classic" in str(s)


def test_summary_line_has_no_empty_parentheses_when_no_source_is_compared():
    # issue #4.5: a lake of two sources both played under another ruleset (colver and coinche-cli rescored under
    # belote-classic) printed "... with an illegal play (), ...". The counts are made up for the line's wording:
    # 2677 colver hands and 902 coinche-cli hands, none compared, 91 illegal.
    from collections import Counter

    from pipeline.rescore import RescoreSummary

    s = RescoreSummary("belote-classic", hands=3579, games=386, status=Counter(scored=3579), illegal=91,
                       by_source={"coinche-cli": [0, 0], "colver": [0, 0]}, other_rules=3579, seconds=1.0)
    assert str(s) == ("rescore [belote-classic]: 3579 hands (3579 scored), 386 games, 91 with an illegal play, "
                      "3579 recorded scores of games played under another ruleset not compared, 1.00 s, 3,579 hands/s")
    # one of the two compared: its own figure stays, the source with none compared is not listed
    s.by_source["colver"] = [2677, 2677]
    s.recorded, s.matches, s.other_rules = 2677, 2677, 902
    assert str(s) == ("rescore [belote-classic]: 3579 hands (3579 scored), 386 games, 91 with an illegal play, "
                      "recorded score matched 2677/2677 (colver 2677/2677), 902 recorded scores of games played under "
                      "another ruleset not compared, 1.00 s, 3,579 hands/s")


def test_summary_time_counts_the_compile_and_says_so(tmp_path, monkeypatch):
    # issue 17: "0.78 s" was printed for a 28 s command, the first after an install (the engine compiled before
    # the timed run). The CLI adds the warm-up to the first summary: its seconds, said when at least a second.
    from collections import Counter

    from pipeline.rescore import RescoreSummary

    s = RescoreSummary("belote-classic", hands=1000, games=100, status=Counter(scored=1000), seconds=20.0,
                       seconds_compile=19.6)
    # the rate is the rescore's own: 1000 hands in 20.0 - 19.6 s
    assert str(s).endswith("0 with an illegal play, 20.00 s (of which 19.6 s compiling the rules engine, once), "
                           "2,500 hands/s")
    s.seconds_compile = 0.4             # loaded from numba's cache: not worth a word
    assert str(s).endswith("0 with an illegal play, 20.00 s, 51 hands/s")
    # the command: its first summary's time includes the warm-up (made to take 5 s here)
    from typer.testing import CliRunner

    from pipeline.cli import common
    from pipeline.cli import app
    from pipeline.ingest.run import ingest_paths
    from pipeline.rules import load
    from pipeline.simulate.games import simulate
    import orjson
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(g) for g in simulate(load("belote-classic"), 2, 3)) + b"\n")
    ingest_paths([f], tmp_path / "lake")
    monkeypatch.setattr(common, "_warm_engine", lambda lake, rules: 5.0)
    r = CliRunner().invoke(app, ["rescore", "--rules", "belote-classic", "--rules", "belote-classic-501",
                                 "--lake", str(tmp_path / "lake")])
    first, second = [line for line in r.output.splitlines() if line.startswith("rescore [")]
    assert r.exit_code == 0 and "s (of which 5.0 s compiling the rules engine, once)" in first
    assert "compiling" not in second
