"""Tests of pipeline.simulate.games: reproducible, legal, complete games scored as the engine scores them.

Every test runs for every shipped ruleset (``rules.shipped_names()``): prise auctions (belote-classic...),
bid auctions with suit contracts (colver...) or with no-trump and all-trump (pagat-coinche...), the
Bulgarian contract auction (bulgarian..., games to 151), 2-player prise (belote-2p: 9 tricks, 14 cards out
of play, the trump 7 exchange) and 3-player prise (belote-3p: 9 tricks, 5 cards out of play, the trump 7 exchange,
each player for himself). Seat, trick and card counts are read from the ruleset (``deal.n_players``,
``deal.tricks``).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import struct
from collections import Counter

import numpy as np
import orjson
import pyarrow as pa
import pytest

from pipeline import rules

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.simulate import games as sim
from pipeline.cards import STRAINS, SUITS, card_str, parse_card, popcount32
from pipeline.formats import native_jsonl
from pipeline.formats.validate import check_hand
from pipeline.rescore.engine import score_batch
from pipeline.rescore.game import game_pass

RULESETS = rules.shipped_names()
N_GAMES = 30
SEED = 20240607
BID_RE = re.compile(r"^(capot|\d+)(C|D|H|S|NT|AT)$")


@pytest.fixture(scope="module", params=RULESETS)
def run(request):
    """(ruleset, native objects, game rows, hand rows, hands table, scores table) for one ruleset."""
    r = rules.load(request.param)
    objs = list(sim.simulate(r, N_GAMES, SEED))
    games, hands = [], []
    for o in objs:
        g, hs = native.game_to_rows(o, "rebelote", "<simulate>", None)
        games.append(g)
        hands.extend(hs)
    table = pa.Table.from_pylist(hands, schema=schema.schema("hands"))
    scores = score_batch(table, r)
    return r, objs, games, hands, table, scores


def _shape(r) -> tuple[int, int]:
    """(seats, tricks) of ruleset ``r``: 4 seats of 8 cards, 2 or 3 seats of 9."""
    return int(r["deal.n_players"]), int(r["deal.tricks"])


def _deal_digest(o: dict) -> str:
    """The digest ending a simulated game's id, recomputed from the file's text as simulate() documents it: SHA-256
    of each hand's initial hands as little-endian uint32 card masks (zeros when the hand has none), 8 hex digits."""
    h = hashlib.sha256()
    for hand in o["hands"]:
        seats = hand["hands"] or [[]] * o["n_players"]
        h.update(b"".join(struct.pack("<I", sum(1 << parse_card(c) for c in cards)) for cards in seats))
    return h.hexdigest()[:8]


def _bytes(objs) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


def test_reproducible(run):
    r, objs, _, _, _, _ = run
    again = list(sim.simulate(rules.load(r.name), N_GAMES, SEED))
    assert _bytes(again) == _bytes(objs)
    assert list(sim.simulate(r, 0, SEED)) == []


@pytest.mark.parametrize("name", ["belote-classic", "colver", "pagat-coinche", "bulgarian", "belote-2p", "belote-3p"])
def test_seed_changes_games(name):
    r = rules.load(name)
    a, b = list(sim.simulate(r, 3, 7)), list(sim.simulate(r, 3, 8))
    assert [o["hands"] for o in a] != [o["hands"] for o in b]


def test_game_fields(run):
    r, objs, games, hands, _, _ = run
    n_seats, _ = _shape(r)
    assert len(objs) == N_GAMES
    variant = {"prise": "belote", "bid": "coinche", "strain": "bulgarian"}[r["auction.style"]]
    if n_seats in (2, 3):
        variant = f"belote-{n_seats}p"
    for i, (o, g) in enumerate(zip(objs, games)):
        assert o["format"] == "rebelote" and o["version"] == 2
        assert o["source"] == "simulate"
        assert o["source_game_id"] == f"{r.name}-{SEED}-{i:06d}-{_deal_digest(o)}"
        assert o["game_id"] == f"simulate:{o['source_game_id']}"
        assert o["variant"] == variant
        assert o["ruleset_hint"] == r.name
        assert o["target"] == r["game.target"]
        assert o["n_players"] == n_seats
        assert len(set(o["players"])) == n_seats and set(o["players"]) <= set(sim.PLAYERS)
        assert g["n_hands"] == len(o["hands"]) >= 1
        assert len(o["hands"]) <= sim.MAX_HANDS
        # 4 and 3 seats: the dealer moves one seat per hand; 2 (seed 001): the player who scored more in the last
        # hand deals, the other one after a passed-out hand (or equal scores); hands numbered 1..n
        first = o["hands"][0]["dealer"]
        for k, h in enumerate(o["hands"]):
            assert h["hand_no"] == k + 1
            if n_seats != 2 or k == 0:
                assert h["dealer"] == (first + k) % n_seats
            else:
                prev = o["hands"][k - 1]
                sc = prev["recorded"]["score"]
                if prev["contract"] is None or sc[0] == sc[1]:
                    assert h["dealer"] == 1 - prev["dealer"]
                else:
                    assert h["dealer"] == (0 if sc[0] > sc[1] else 1)
    # the rng draws dealers and tables: not all the same
    assert len({o["hands"][0]["dealer"] for o in objs}) > 1
    assert len({tuple(o["players"]) for o in objs}) > 1
    # both bot kinds play
    kinds = Counter(bool(sim.HEURISTIC[sim.PLAYERS.index(p)]) for o in objs for p in o["players"])
    assert kinds[True] > 0 and kinds[False] > 0
    assert sum(sim.HEURISTIC) == len(sim.PLAYERS) // 2


def test_native_roundtrip(run):
    _, objs, games, _, _, _ = run
    for o in objs[:10]:
        g, hs = native.game_to_rows(o, "rebelote", "<simulate>", None)
        assert native.game_to_json(g, hs) == o


def test_hands_consistent(run):
    r, _, _, hands, _, _ = run
    n_seats, n_tricks = _shape(r)
    passed = 0
    for h in hands:
        check_hand(h)
        assert h["completeness"] == "full_play"
        if h["taker"] is None:
            passed += 1
            assert h["plays"] is None and h["play_seats"] is None
            assert h["strain"] is None and h["bid"] is None and not h["capot_bid"] and h["coinche"] == 0
            if r["auction.style"] == "bid":
                assert h["initial_hands"] is not None
            else:  # prise, strain: the last cards are dealt only after a contract
                assert h["initial_hands"] is None
            continue
        init = h["initial_hands"]
        assert len(init) == n_seats
        assert popcount32(np.array(init, dtype=np.uint32)).tolist() == [n_tricks] * n_seats
        union = 0
        for m in init:
            assert union & m == 0
            union |= m
        dealt = sorted(c for c in range(32) if union >> c & 1)
        assert len(dealt) == n_seats * n_tricks   # 32 cards, or 18 with 2 players (14 out of play)
        plays, seats = h["plays"], h["play_seats"]
        assert len(plays) == n_seats * n_tricks and sorted(plays) == dealt   # each dealt card played once
        assert seats[0] == (h["dealer"] + 1) % n_seats  # (dealer + 1) leads the first trick
        remaining = list(init)
        for c, s in zip(plays, seats):
            assert remaining[s] >> c & 1   # by its holder
            remaining[s] &= ~(1 << c)
        assert remaining == [0] * n_seats
        assert Counter(seats) == {s: n_tricks for s in range(n_seats)}
        assert h["strain"] in _strains(r)
    assert 0 < passed < len(hands)


def test_auction(run):
    r, _, _, hands, _, _ = run
    n_seats, _ = _shape(r)
    for h in hands:
        calls = [(a["seat"], a["call"]) for a in h["auction"]]
        assert calls, "every hand has an auction"
        for k, (seat, _) in enumerate(calls):
            assert seat == (h["dealer"] + 1 + k) % n_seats
        taker = h["taker"]
        if r["auction.style"] == "prise":
            assert h["turned_card"] is not None
            assert h["bid"] is None and not h["capot_bid"] and h["coinche"] == 0
            assert len(calls) <= 2 * n_seats
            assert all(c == "pass" for _, c in calls[:-1])
            turned_suit = SUITS[h["turned_card"] // 8]
            if taker is None:
                assert len(calls) == 2 * n_seats and calls[-1][1] == "pass"
                continue
            seat, call = calls[-1]
            assert seat == taker
            if len(calls) <= n_seats:
                assert call == "take" and h["strain"] == turned_suit
            else:
                assert call in SUITS and call != turned_suit and h["strain"] == call
            if n_seats == 4 or _shape(r)[1] == 8:   # 8 tricks: the taker gets the turned card, as with four
                assert h["initial_hands"][taker] >> h["turned_card"] & 1
            else:
                _check_exchange_2p(h)   # 3 seats: the same exchange ("as with two", ADPOKER3)
        elif r["auction.style"] == "bid":
            assert h["turned_card"] is None
            if taker is None:
                assert [c for _, c in calls] == ["pass"] * 4
                continue
            bids = [(s, BID_RE.match(c)) for s, c in calls if c not in ("pass", "coinche", "surcoinche")]
            assert all(m is not None for _, m in bids)
            values = [250 if m[1] == "capot" else int(m[1]) for _, m in bids]
            assert values == sorted(set(values)) and values[0] >= 80
            assert all(v % 10 == 0 and v <= 160 for v in values if v != 250)
            assert all(m[2] in r["auction.strains"] for _, m in bids)
            seat, m = bids[-1]
            assert seat == taker and m[2] == h["strain"]
            if m[1] == "capot":
                assert h["capot_bid"] and h["bid"] is None
            else:
                assert not h["capot_bid"] and h["bid"] == int(m[1])
            kinds = [c for _, c in calls]
            assert h["coinche"] == ("coinche" in kinds) + ("surcoinche" in kinds)
            for s, c in calls:
                if c == "coinche":
                    assert s % 2 != taker % 2
                if c == "surcoinche":
                    assert s % 2 == taker % 2
            if kinds[-1] != "surcoinche":
                assert kinds[-3:] == ["pass"] * 3
        else:
            _check_strain_auction(r, h, calls)


def _check_exchange_2p(h) -> None:
    """2 players: the turned card goes to nobody, unless the turned suit is trump and the holder of its 7
    exchanged the 7 for it (the 7 then out of play)."""
    turned = h["turned_card"]
    seven = turned // 8 * 8
    holders = [s for s, m in enumerate(h["initial_hands"]) if m >> turned & 1]
    if holders:
        assert SUITS[turned // 8] == h["strain"] and turned != seven
        assert not any(m >> seven & 1 for m in h["initial_hands"])


def test_exchange_2p(run):
    """2 and 3 players: exchanges of the trump 7 happen; a heuristic bot left holding the trump 7 under the
    turned suit only had an 8 turned (every other card raises its value or its card points)."""
    r, objs, _, hands, _, _ = run
    if _shape(r)[0] == 4 or _shape(r)[1] == 8:
        pytest.skip("not a 2- or 3-player ruleset with the turned card left over (9 or 10 tricks)")
    players = {o["game_id"]: o["players"] for o in objs}
    exchanged = kept = 0
    for h in hands:
        if h["taker"] is None or SUITS[h["turned_card"] // 8] != h["strain"]:
            continue
        turned = h["turned_card"]
        seven = turned // 8 * 8
        if any(m >> turned & 1 for m in h["initial_hands"]):
            exchanged += 1
            continue
        for s, m in enumerate(h["initial_hands"]):
            if m >> seven & 1:
                kept += 1
                if sim.HEURISTIC[sim.PLAYERS.index(players[h["game_id"]][s])]:
                    assert turned % 8 == 1, (h["game_id"], h["hand_no"])   # the 8
    assert exchanged > 0 and kept > 0


def _strains(r) -> list[str]:
    """The strains the simulator may give a contract under ``r`` (prise: the four suits)."""
    return list(STRAINS[:4]) if r["auction.style"] == "prise" else list(r["auction.strains"])


def _check_strain_auction(r, h, calls) -> None:
    """Bulgarian auction: contracts strictly rising C < D < H < S < NT < AT; a double by the side not holding
    the contract, a redouble by the holding side once doubled; a new contract cancels the double; three passes
    after a call end it, four at the start pass the hand out."""
    assert h["turned_card"] is None and h["bid"] is None and not h["capot_bid"]
    kinds = [c for _, c in calls]
    if h["taker"] is None:
        assert kinds == ["pass"] * 4
        return
    contract, holder, level, passes = -1, None, 0, 0
    for seat, c in calls:
        assert passes < (4 if holder is None else 3), "calls after the auction ended"
        if c == "pass":
            passes += 1
            continue
        passes = 0
        if c == "coinche":
            assert holder is not None and seat % 2 != holder % 2 and level == 0
            level = 1
        elif c == "surcoinche":
            assert holder is not None and seat % 2 == holder % 2 and level == 1
            level = 2
        else:
            assert c in r["auction.strains"] and STRAINS.index(c) > contract
            contract, holder, level = STRAINS.index(c), seat, 0
    assert passes == 3 and kinds[-3:] == ["pass"] * 3
    assert h["taker"] == holder and h["strain"] == STRAINS[contract] and h["coinche"] == level


def test_every_hand_legal(run):
    _, _, _, hands, _, scores = run
    status = scores.column("status").to_pylist()
    legal = scores.column("legal").to_pylist()
    for h, st, ok in zip(hands, status, legal):
        if h["taker"] is None:
            assert st == "passed_out"
        else:
            assert st == "scored"
            assert ok is True


def test_recorded_scores_match_engine(run):
    _, _, _, hands, _, scores = run
    assert all(scores.column("matches_recorded").to_pylist())
    hs = scores.column("hand_score").to_pylist()
    cp = scores.column("card_points").to_pylist()
    for h, s, c in zip(hands, hs, cp):
        assert h["recorded_score"] == s
        assert h["recorded_card_points"] == c


def test_games_end_at_target(run):
    r, objs, games, hands, _, scores = run
    gp = game_pass(scores, r).to_pylist()
    by_id = {g["game_id"]: g for g in gp}
    target = r["game.target"]
    for o, g in zip(objs, games):
        res = by_id[g["game_id"]]
        assert res["n_hands"] == g["n_hands"]
        assert res["ended_at_hand"] == g["n_hands"], "a game stops at the first hand that ends it"
        assert res["winner"] == o["recorded_winner"] is not None
        assert res["totals_at_end"] == o["recorded_final"]
        final = o["recorded_final"]
        w = o["recorded_winner"]
        assert max(final) >= target
        if r["game.end_tie"] == "latest_deal_winner":   # equal best totals: the winners of the last deal win
            assert all(final[w] >= v for v in final)
        else:
            assert final.count(max(final)) == 1
            assert all(final[w] > v for t, v in enumerate(final) if t != w)
        assert o["hands"][-1]["recorded"]["totals"] == final


def test_recorded_totals_after_each_hand(run):
    r, _, _, hands, _, scores = run
    # totals after hand k = game_pass over the hands 1..k (litige carried as the game pass does)
    hand_no = np.array(scores.column("hand_no").to_pylist())
    recorded = {(h["game_id"], h["hand_no"]): h["recorded_totals"] for h in hands}
    for k in range(1, int(hand_no.max()) + 1):
        prefix = scores.filter(pa.array(hand_no <= k))
        for g in game_pass(prefix, r).to_pylist():
            if (g["game_id"], k) in recorded:
                assert recorded[(g["game_id"], k)] == g["totals"]


def test_write_jsonl_and_reingest(tmp_path):
    r = rules.load("colver")
    path = tmp_path / "sim.jsonl"
    n_games, n_hands = sim.simulate_to_file(r, 6, 3, path)
    objs = list(sim.simulate(r, 6, 3))
    assert (n_games, n_hands) == (6, sum(len(o["hands"]) for o in objs))
    data = path.read_bytes()
    assert data == _bytes(objs)
    assert data.count(b"\n") == 6
    text = data.decode("utf-8")
    assert native_jsonl.sniff(path.name, text)
    lines = [(i + 1, 0, line) for i, line in enumerate(text.splitlines())]
    recs = list(native_jsonl.read(iter(lines), str(path)))
    assert all(type(x).__name__ == "GameRecord" for x in recs) and len(recs) == 6
    assert sum(len(x.hands) for x in recs) == n_hands
    # gzip output is deterministic too
    gz1, gz2 = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    assert sim.write_jsonl(objs, gz1) == 6
    sim.write_jsonl(objs, gz2)
    assert gz1.read_bytes() == gz2.read_bytes()
    assert gzip.decompress(gz1.read_bytes()) == data


def test_runs_of_any_size_share_one_lake(tmp_path, monkeypatch):
    # issue 17: game i of `simulate --games 2` and of `--games 20000` (same seed and rules) are different games,
    # since the games of a chunk draw from the rng together; under the index-only ids of before, importing both
    # files rejected games as duplicate_game_id. With the deal digest in the id, the same game keeps its id and a
    # different game gets another one. CHUNK = 4 keeps the runs small: 2 games are one chunk of 2; 7 games
    # chunks of 4 + 3; 8 games chunks of 4 + 4.
    from pipeline.ingest.run import ingest_paths

    monkeypatch.setattr(sim, "CHUNK", 4)
    r = rules.load("belote-classic")
    runs = {n: list(sim.simulate(r, n, 5)) for n in (2, 7, 8)}

    def content(o):
        return orjson.dumps({k: v for k, v in o.items() if k not in ("game_id", "source_game_id")})

    # the same seed in a chunk of another size gives other games: games 0-1 of the 2-game run differ from those
    # of the 7-game run (chunk of 2 vs 4), games 4-6 of the 7-game run from those of the 8-game run (3 vs 4);
    # games 0-3 of the 7- and 8-game runs are the same (one first chunk of 4 from the same rng state)
    same = {(a, b): [content(x) == content(y) for x, y in zip(runs[a], runs[b])] for a, b in ((2, 7), (7, 8))}
    assert same == {(2, 7): [False] * 2, (7, 8): [True] * 4 + [False] * 3}
    files = []
    for n, objs in runs.items():
        files.append(tmp_path / f"sim-{n}.jsonl")
        sim.write_jsonl(objs, files[-1])
    s = ingest_paths(files, tmp_path / "lake")
    # 13 distinct games: 2 (first run) + 7 (second run: none is one of the first run's) + 4 (games 4-7 of the
    # third run; its games 0-3 are the second run's, under the same ids). Those 4 games' hands are duplicates
    # (the third file's other hands are all new): with this seed 134 hands imported, 40 duplicates. No game is
    # rejected; with the index-only ids 7 were, as duplicate_game_id: games 0-1 of the second file (the first
    # file's ids), games 0-1 of the third (the first file's ids again) and its games 4-6 (the second file's)
    dup_hands = sum(len(o["hands"]) for o in runs[8][:4])
    assert (s.games, s.hands, s.duplicates, dict(s.rejected)) == (
        13, sum(len(o["hands"]) for objs in runs.values() for o in objs) - dup_hands, dup_hands, {})
    assert s.same_game == s.same_content == 0
    # ids name content: equal for the same game, different for different games of the same index
    for (a, b), eq in same.items():
        assert [x["game_id"] == y["game_id"] for x, y in zip(runs[a], runs[b])] == eq
        assert all(x["game_id"].startswith(f"simulate:belote-classic-5-{i:06d}-")
                   for i, x in enumerate(runs[b]))


def test_cards_written_as_text(run):
    r, objs, _, _, _, _ = run
    h = next(h for o in objs for h in o["hands"] if h["plays"] is not None)
    assert all(isinstance(c, str) and len(c) == 2 for c in h["plays"]) and len(h["play_seats"]) == len(h["plays"])
    dealt = {c for hand in h["hands"] for c in hand}
    assert set(h["plays"]) == dealt and len(dealt) == _shape(r)[0] * _shape(r)[1]
    assert dealt <= {card_str(i) for i in range(32)}


def test_hand_cap(monkeypatch):
    monkeypatch.setattr(sim, "MAX_HANDS", 2)
    r = rules.load("belote-classic")
    objs = list(sim.simulate(r, 8, 5))
    assert len(objs) == 8
    for o in objs:
        assert len(o["hands"]) == 2  # no game reaches 1000 in two hands
        assert o["recorded_winner"] is None
        assert o["recorded_final"] == o["hands"][-1]["recorded"]["totals"]


def test_strain_mix(run):
    """Every allowed strain is contracted in a moderate sample, no other; heuristic bots take no-trump on aces
    and all-trump on jacks."""
    r, objs, _, hands, _, _ = run
    allowed = _strains(r)
    mix = Counter(h["strain"] for h in hands if h["taker"] is not None)
    assert set(mix) <= set(allowed)
    for s in ("NT", "AT"):
        if s in allowed:
            assert mix[s] >= 3, f"{r.name}: {mix}"
    players = {o["game_id"]: o["players"] for o in objs}
    heuristic_nt_at = 0
    for h in hands:
        if h["strain"] not in ("NT", "AT") or not sim.HEURISTIC[sim.PLAYERS.index(players[h["game_id"]][h["taker"]])]:
            continue
        rank = 7 if h["strain"] == "NT" else 4                        # aces / jacks
        held = sum(h["initial_hands"][h["taker"]] >> (8 * s + rank) & 1 for s in range(4))
        assert held >= 2, (h["game_id"], h["hand_no"])
        heuristic_nt_at += 1
    if "NT" in allowed:
        assert heuristic_nt_at > 0


def test_bulgarian_games_to_151(run):
    r, objs, _, _, _, _ = run
    if r["auction.style"] != "strain":
        pytest.skip("not a Bulgarian ruleset")
    assert r["game.target"] == 151
    for o in objs:
        final = o["recorded_final"]
        assert o["target"] == 151 and max(final) >= 151 and final[0] != final[1]
    # (the hand that ends each game is checked against game_pass elsewhere; with game.no_exit_on_capot a valat
    # hand that crosses 151 does not end the game, so "first hand over 151" is not the rule here)


def test_user_strains(tmp_path):
    """A ruleset may restrict the strains: only those are contracted; prise needs the four suits."""
    f = tmp_path / "house-ntat.toml"
    f.write_text('name = "house-ntat"\nextends = "pagat-coinche"\n[auction]\nstrains = ["NT", "AT"]\n')
    g = tmp_path / "house-bg.toml"
    g.write_text('name = "house-bg"\nextends = "bulgarian"\n[auction]\nstrains = ["H", "AT"]\n')
    for path, want in ((f, {"NT", "AT"}), (g, {"H", "AT"})):
        objs = list(sim.simulate(rules.load(path), 6, 1))
        got = {h["contract"]["strain"] for o in objs for h in o["hands"] if h["contract"] is not None}
        assert got == want
        calls = {a["call"] for o in objs for h in o["hands"] for a in h["auction"]} - {"pass", "coinche", "surcoinche"}
        named = {BID_RE.match(c)[2] if BID_RE.match(c) else c for c in calls}
        assert named == want
    p = tmp_path / "house-prise.toml"
    p.write_text('name = "house-prise"\nextends = "belote-classic"\n[auction]\nstrains = ["H", "S"]\n')
    with pytest.raises(ValueError, match="cannot be simulated"):
        list(sim.simulate(rules.load(p), 1, 1))


def test_unsupported_shapes(tmp_path):
    """2 players with a bid or strain auction are refused (the loader refuses them with 3 players) with a
    sentence, before any game is played; so is a prise ruleset missing a suit."""
    cases = [("belote-2p", '[auction]\nstyle = "bid"\nstrains = ["C", "D", "H", "S"]\n'),
             ("mundijuegos-2p", '[auction]\nstyle = "strain"\nstrains = ["C", "D", "H", "S", "NT", "AT"]\n')]
    for i, (parent, body) in enumerate(cases):
        f = tmp_path / f"house-{i}.toml"
        f.write_text(f'name = "house-{i}"\nextends = "{parent}"\n{body}')
        r = rules.load(f)
        assert "cannot be simulated" in sim.shape_error(r)
        with pytest.raises(ValueError, match="cannot be simulated"):
            sim.simulate(r, 1, 1)          # at once, not at the first game


# every (players, tricks, deck) the ruleset loader accepts (rules.load: n_players x tricks <= deck; 3 players
# with a prise auction; deal.tricks 8, 9, 10; deal.deck 32, 24)
LOADER_SHAPES = [(n, t, d) for n in (2, 3, 4) for t in (8, 9, 10) for d in (32, 24) if n * t <= d]


@pytest.mark.parametrize("n_players, tricks, deck", LOADER_SHAPES)
def test_every_loader_shape_simulates(tmp_path, n_players, tricks, deck):
    """A house file of any shape the loader accepts plays: complete legal hands of ``tricks`` cards each from
    the pack, the cards nobody got out of play, scored as the engine scores them."""
    parent = {2: "belote-2p", 3: "belote-3p", 4: "belote-classic"}[n_players]
    f = tmp_path / "house-shape.toml"
    f.write_text(f'name = "house-shape"\nextends = "{parent}"\n[deal]\ntricks = {tricks}\ndeck = {deck}\n')
    r = rules.load(f)
    assert sim.shape_error(r) is None
    objs = list(sim.simulate(r, 4, 3))
    rows = [h for o in objs for h in native.game_to_rows(o, "rebelote", "<simulate>", None)[1]]
    table = pa.Table.from_pylist(rows, schema=schema.schema("hands"))
    scores = score_batch(table, r).to_pylist()
    pack = {c for c in range(32) if deck == 32 or c % 8 >= 2}
    played = 0
    for h, s in zip(rows, scores):
        check_hand(h)
        if h["taker"] is None:
            assert s["status"] == "passed_out"
            continue
        played += 1
        assert s["status"] == "scored" and s["legal"] is True and s["matches_recorded"]
        assert popcount32(np.array(h["initial_hands"], dtype=np.uint32)).tolist() == [tricks] * n_players
        dealt = {c for m in h["initial_hands"] for c in range(32) if m >> c & 1}
        assert len(dealt) == n_players * tricks and dealt <= pack and h["turned_card"] in pack
        assert sorted(h["plays"]) == sorted(dealt)
        if tricks == 8:
            assert h["initial_hands"][h["taker"]] >> h["turned_card"] & 1
        else:
            _check_exchange_2p(h)
    assert played > 0


def test_cli_refuses_an_unsupported_shape_with_a_sentence(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    f = tmp_path / "house-bid2.toml"
    f.write_text('name = "house-bid2"\nextends = "belote-2p"\n[auction]\nstyle = "bid"\n'
                 'strains = ["C", "D", "H", "S"]\n')
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["simulate", "--rules", str(f), "--games", "1", "-o", str(out)])
    assert res.exit_code == 2 and res.exception is None or isinstance(res.exception, SystemExit)
    assert "cannot be simulated" in res.output and "Traceback" not in res.output
    assert not out.exists()


@pytest.mark.parametrize("ruleset, games, name", [("belote-classic", 20, "simulated-belote-classic.jsonl"),
                                                  ("colver", 6, "simulated-colver.jsonl")])
def test_embedded_sample_is_reproduced_by_its_documented_command(tmp_path, ruleset, games, name):
    # data/README.md gives the command that made each simulated sample file and promises byte-identical output
    # (a fresh-user trial found the sample out of date after the simulator changed)
    from pathlib import Path
    from pipeline.simulate.games import simulate_to_file
    from pipeline import rules
    data = Path(__file__).resolve().parents[1] / "data"
    assert f"`rebelote simulate --rules {ruleset} --games {games} --seed 2026 -o data/{name}`" in \
        (data / "README.md").read_text()
    simulate_to_file(rules.load(ruleset), games, 2026, tmp_path / name)
    assert (tmp_path / name).read_bytes() == (data / name).read_bytes(), \
        f"regenerate data/{name} with the command in data/README.md"
