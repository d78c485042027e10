"""The nine seed rulesets of issue 16 end to end, as a user runs them: ``rebelote simulate --rules NAME`` ->
``ingest`` into a fresh lake -> ``rescore --rules NAME`` -> ``stats players`` and ``show`` of one game.

Every hand must be scored (no unscorable hand), with no illegal play, and the scores the simulator recorded
must be the rescore's exactly (the rescore summary's ``recorded score matched x/x``, and per hand in the lake's
``scores``). Beyond that self-consistency, checks that do not come from the engine's own output: the card
points of each 2- and 3-player hand add up to the points of the cards in play plus the last trick (or the
capot's value), the out-of-play cards counting for nobody; coinche-1000, which counts only announced
declarations, scores the announcements its players made exactly as the held declarations score them.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from pipeline import rules

from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.rescore.tables import build

SEED_RULESETS = ("mundijuegos-classic", "mundijuegos-classic-no-announcements", "mundijuegos-2p",
                 "mundijuegos-3p", "mundijuegos-coinche", "fournier-2p", "fournier-4p", "bulgarian-plain",
                 "coinche-1000")
GAMES = 3
SEED = 16

runner = CliRunner()


def _run(*args) -> str:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    return res.output


@pytest.fixture(scope="module", params=SEED_RULESETS)
def lake(request, tmp_path_factory):
    """(ruleset name, lake path, rescore summary line) after simulate -> ingest -> rescore under that ruleset."""
    name = request.param
    d = tmp_path_factory.mktemp(name)
    sim, lk = d / "sim.jsonl", d / "lake"
    out = _run("simulate", "--rules", name, "--games", GAMES, "--seed", SEED, "-o", sim)
    m = re.search(rf"simulate \[{re.escape(name)}\]: {GAMES} games, (\d+) hands", out)
    assert m, out
    out = _run("ingest", sim, "--lake", lk)
    assert f"{GAMES} games, {m[1]} hands, 0 duplicates skipped, 0 rejected" in out, out
    summary = _run("rescore", "--rules", name, "--lake", lk)
    return name, lk, int(m[1]), summary


def _scores(lk, name):
    s = lakemod.read(lk, "scores").to_pylist()
    return [x for x in s if x.get("ruleset", name) == name]


def test_every_hand_scored_legal_and_as_recorded(lake):
    name, lk, n_hands, summary = lake
    m = re.search(rf"rescore \[{re.escape(name)}\]: (\d+) hands \((.*?)\), (\d+) games, (\d+) with an illegal play, "
                  r"recorded score matched (\d+)/(\d+), recorded game totals matched (\d+)/(\d+)", summary)
    assert m, summary
    assert int(m[1]) == n_hands and int(m[3]) == GAMES
    statuses = dict(reversed(p.split(" ")) for p in m[2].split(", "))
    assert set(statuses) <= {"scored", "passed_out"} and int(statuses["scored"]) > 0, summary
    assert m[4] == "0"
    assert m[5] == m[6] == str(n_hands), summary
    assert m[7] == m[8] == str(GAMES), summary
    scores = _scores(lk, name)
    assert len(scores) == n_hands
    for s in scores:
        assert s["status"] in ("scored", "passed_out")
        if s["status"] == "scored":
            assert s["legal"] is True and s["matches_recorded"] is True


def test_card_points_add_up_to_the_cards_in_play(lake):
    """2 and 3 players (and every 4-player seed ruleset): the team card points of a hand are the points of the
    cards the players held (the out-of-play cards count for nobody) plus the last trick's 10, or the capot's
    value in its place, plus any capot bonus."""
    name, lk, _, _ = lake
    r = rules.load(name)
    pts = build(r).points
    hands = {(h["game_id"], h["hand_no"]): h for h in lakemod.read(lk, "hands").to_pylist()}
    strains = ["C", "D", "H", "S", "NT", "AT"]
    checked = 0
    for s in _scores(lk, name):
        if s["status"] != "scored":
            continue
        h = hands[(s["game_id"], s["hand_no"])]
        st = strains.index(h["strain"])
        in_play = sum(int(pts[st, c]) for m in h["initial_hands"] for c in range(32) if m >> c & 1)
        capot = len({w % r.n_teams for w in s["trick_winners"]}) == 1
        last = int(r["cards.capot_last_trick"]) + int(r["cards.capot_bonus"]) if capot else int(r["cards.last_trick"])
        assert sum(s["card_points"]) == in_play + last, (name, s["game_id"], s["hand_no"])
        held = len(h["initial_hands"]) * int(r["deal.tricks"])
        assert sorted(h["plays"]) == sorted(c for m in h["initial_hands"] for c in range(32) if m >> c & 1)
        assert len(h["plays"]) == held
        checked += 1
    assert checked > 0


def test_stats_players(lake):
    name, lk, _, _ = lake
    r = rules.load(name)
    import json
    out = _run("stats", "players", "--lake", lk, "--rules", name, "--format", "json")
    rows = json.loads(out)
    assert rows and all(x["ruleset"] == name and x["source"] == "simulate" for x in rows)
    # each game's seats are distinct bots of the pool: 2 to 8 players, every one with hands
    assert int(r["deal.n_players"]) <= len(rows) <= 8
    assert all(x["hands"] > 0 for x in rows)
    assert sum(x["games"] for x in rows) == GAMES * int(r["deal.n_players"])
    assert all(x["mismatches"] == 0 for x in rows)
    table = _run("stats", "players", "--lake", lk, "--rules", name)
    assert "player" in table and rows[0]["player"] in table


def test_show_one_game(lake):
    name, lk, _, _ = lake
    r = rules.load(name)
    K = r.n_teams
    games = lakemod.read(lk, "games").to_pylist()
    gid = sorted(g["game_id"] for g in games)[0]
    out = _run("show", "--lake", lk, "--game", gid, "--rules", name)
    assert f"game {gid}" in out and f"[{name}]" in out
    assert "result: team " in out and " wins at hand " in out, out[-2000:]
    # every scored hand's score line gives one number per team, 3 with 3 players (each for himself)
    lines = re.findall(r"hand score: (-?\d+(?: - -?\d+)*) \(recorded \[([-\d, ]+)\]\)", out)
    assert lines, out[:3000]
    for ours, recorded in lines:
        assert len(ours.split(" - ")) == K
        assert [int(v) for v in ours.split(" - ")] == [int(v) for v in recorded.split(",")]
    if K == 3:
        assert "(team 2)" in out
    assert out.count("every play: legal") == len(lines)       # each played hand: its Legality line


def test_coinche_1000_scores_the_announcements_as_the_held_declarations(tmp_path):
    """coinche-1000 counts declarations only when announced (declarations.count = "announced"): the simulated
    players announce everything they hold, so the scores equal those of the same rules counting held
    declarations, and the records do carry announcements (in the native announcement format)."""
    import orjson

    sim = tmp_path / "c.jsonl"
    _run("simulate", "--rules", "coinche-1000", "--games", 4, "--seed", 3, "-o", sim)
    objs = [orjson.loads(x) for x in sim.read_bytes().splitlines()]
    announced = [a for o in objs for h in o["hands"] for a in (h.get("announced") or [])]
    assert {a["kind"] for a in announced} >= {"tierce", "belote"}
    assert all(set(a) == {"seat", "kind", "rank", "suit", "length"} for a in announced)
    assert all(h.get("announced") is not None for o in objs for h in o["hands"] if h["contract"] is not None)
    held = tmp_path / "coinche-1000-held.toml"
    held.write_text('name = "coinche-1000-held"\nextends = "coinche-1000"\n[declarations]\ncount = "held"\n')
    lk = tmp_path / "lake"
    _run("ingest", sim, "--lake", lk)
    _run("rescore", "--rules", "coinche-1000", "--lake", lk)
    _run("rescore", "--rules", held, "--lake", lk)
    s = lakemod.read(lk, "scores").to_pylist()
    by = {}
    for x in s:
        by.setdefault(x["ruleset"], {})[(x["game_id"], x["hand_no"])] = x
    a, b = by["coinche-1000"], by["coinche-1000-held"]
    assert a.keys() == b.keys()
    with_decl = 0
    for k in a:
        assert a[k]["hand_score"] == b[k]["hand_score"], k
        assert a[k]["declaration_points"] == b[k]["declaration_points"], k
        with_decl += bool(a[k]["declaration_points"] and any(a[k]["declaration_points"]))
    assert with_decl > 0
    # and without the announcements nothing is declared: the list is what scores
    assert any(x["declarations_from"] == "announced" for x in a.values() if x["status"] == "scored")
