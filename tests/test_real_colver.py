"""Real records: colver 0.11.1's deals.jsonl (../shared/data/real/colver) end to end.

Counts come from the folder's README/FORMAT.md; colver's own scores are the oracle for the `colver`
ruleset (FORMAT.md §7-8).
"""

from collections import Counter

import pyarrow.compute as pc
import pytest

from conftest import shared_path
from pipeline import rules
from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake


@pytest.fixture(scope="module")
def colver_lake(tmp_path_factory):
    folder = shared_path("data", "real", "colver")
    lake = tmp_path_factory.mktemp("colver") / "lake"
    summary = ingest_paths([folder], lake)
    return lake, summary


def test_import_counts(colver_lake):
    lake, s = colver_lake
    # data/real/README.md: 220 complete games; deals.jsonl here holds 2,677 deals (one line each).
    assert (s.games, s.hands, sum(s.rejected.values())) == (220, 2677, 0)
    assert s.formats == Counter({"colver": 1, "colver-cfn": 2, "colver-games": 1})
    # README.md: the .cfn files are line-aligned copies of deals.jsonl's 2,677 deals. The folder is walked in name
    # order: deals.final.cfn first (imported), deals.initial.cfn (poorer copies: skipped), deals.jsonl (replaces
    # the final copies)
    assert (s.same_deal, s.deal_replaced, s.duplicates) == (2677, 2677, 2677)
    # FORMAT.md and README.md document the folder: counted as documentation, not read and not guessed
    assert s.unrecognised == [] and sorted(p.rsplit("/", 1)[1] for p in s.documentation) == ["FORMAT.md", "README.md"]
    assert set(lakemod.read(lake, "hands").column("source_format").to_pylist()) == {"colver"}
    hands = lakemod.read(lake, "hands")
    assert pc.sum(pc.is_null(hands.column("taker"))).as_py() == 278   # passed-out deals in this subset


def test_colver_scores_reproduced_exactly(colver_lake):
    lake, _ = colver_lake
    s = rescore_lake(lake, rules.load("colver"))
    assert (s.hands, s.recorded, s.matches, s.illegal) == (2677, 2677, 2677, 0)
    games = {g["game_id"]: g for g in lakemod.read(lake, "games").to_pylist()}
    results = lakemod.read(lake, "game_scores").to_pylist()
    assert len(results) == 220
    for r in results:
        g = games[r["game_id"]]
        assert r["totals"] == g["recorded_final"], r["game_id"]
        assert r["winner"] == g["recorded_winner"], r["game_id"]
        assert r["ended_at_hand"] == g["n_hands"], r["game_id"]   # ends on the first deal reaching 2000 (§8)


def test_prenable_belote_goes_to_the_defence_of_a_failed_coinched_contract(colver_lake):
    # g0016 deal 1: 160 spades coinched, the taker's side holds belote-rebelote and fails (51 card points).
    # Under ffb-contree-2016 (FFB Ct16 p.7: a failed coinched contract gives the defence 320 + bid x 2; rules.md
    # R25: Ct15/Ct16 belote "prenable", it goes to the defence when the contract fails) the defence scores
    # 320 + 160 x 2 + 20 = 660 and the taker 0. A hostile test found [20, 640]: the taker kept it when doubled.
    lake, _ = colver_lake
    rescore_lake(lake, rules.load("ffb-contree-2016"))
    sc = [s for s in lakemod.read(lake, "scores").to_pylist()
          if s["ruleset"] == "ffb-contree-2016" and s["game_id"] == "colver:g0016" and s["hand_no"] == 1]
    assert [(s["contract_made"], s["belote_team"], s["hand_score"]) for s in sc] == [(False, 0, [0, 660])]


def test_classic_rules_flag_colver_discards(colver_lake):
    # colver lets a player who cannot overtrump discard (FORMAT.md §6, 381 situations); FFB classic requires
    # undertrumping (rules.md R13). Under belote-classic those hands are flagged, never rejected, and the only
    # obligation they break is the undertrump one. (77 is a regression count measured here, not an oracle value.)
    # Classic has no coinche and no capot bid (auction.style prise): colver's 254 coinched or capot-bid deals
    # (hands table: 18 + 152 + 14 + 50 + 20 by coinche level and capot bid) are unscorable under it, not scored
    # with values borrowed from coinche (a hostile test found a coinched 80 scored 162 + 80 x 2).
    lake, _ = colver_lake
    rescore_lake(lake, rules.load("belote-classic"))
    sc = lakemod.read(lake, "scores", filter=pc.field("ruleset") == "belote-classic")
    rule = Counter(sc.column("illegal_rule").to_pylist())
    assert rule == Counter({None: 2677 - 77, "must_undertrump": 77})
    assert Counter(r for r in sc.column("reason").to_pylist() if r) == {
        "ruleset belote-classic has no coinche and no capot bid (auction.style: prise)": 254}


def test_truncated_or_broken_colver_games_are_rejected_whole(tmp_path):
    lines = shared_path("data", "real", "colver", "deals.jsonl").read_bytes().splitlines()[:40]
    # game g0000 has 13 deals (lines 1-13), g0001 the next ones; cut g0000 after 5 deals, break a g0001 line
    cut = lines[:5] + lines[13:]
    cut[8] = b"[1, 2, 3]"
    f = tmp_path / "deals.jsonl"
    f.write_bytes(b"\n".join(cut) + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    rejected = {r["reason_code"]: r for r in lakemod.read(tmp_path / "lake", "rejects").to_pylist()}
    assert set(rejected) == {"missing_hand", "bad_record"}
    assert "deals_in_game says 13" in [r for r in lakemod.read(tmp_path / "lake", "rejects").to_pylist()
                                       if r["game_id"] == "colver:g0000"][0]["reason"]
    imported = {g["game_id"] for g in lakemod.read(tmp_path / "lake", "games").to_pylist()}
    assert "colver:g0000" not in imported and "colver:g0001" not in imported
    assert s.games == len(imported) >= 1


def test_cfn_files_alone_counts(tmp_path):
    # each .cfn file has one line per deal of deals.jsonl (README.md "Files"): 2,677 one-hand games each; 278
    # passed out in this subset (test_import_counts); the initial positions are kept at 'deal' level
    folder = shared_path("data", "real", "colver")
    s = ingest_paths([folder / "deals.final.cfn"], tmp_path / "final")
    assert (s.games, s.hands, sum(s.rejected.values())) == (2677, 2677, 0)
    hands = lakemod.read(tmp_path / "final", "hands")
    assert pc.sum(pc.and_(pc.is_null(hands.column("taker")), pc.is_null(hands.column("taker_team")))).as_py() == 278
    s = ingest_paths([folder / "deals.initial.cfn"], tmp_path / "initial")
    assert (s.games, s.hands, sum(s.rejected.values())) == (2677, 2677, 0)
    assert set(lakemod.read(tmp_path / "initial", "hands").column("completeness").to_pylist()) == {"deal"}


def test_cfn_rescored_reproduces_deals_jsonl_scores(tmp_path):
    # the CFN-only lake, rescored under colver, gives colver's own rewards recorded in deals.jsonl for the deal
    # on the same line (README.md: the files are line-aligned)
    import orjson
    folder = shared_path("data", "real", "colver")
    ingest_paths([folder / "deals.final.cfn"], tmp_path / "lake")
    s = rescore_lake(tmp_path / "lake", rules.load("colver"))
    assert (s.hands, s.illegal) == (2677, 0)
    recorded = [orjson.loads(x)["colver_result"]["rewards"] for x in (folder / "deals.jsonl").open("rb")]
    line = dict(zip(*(lakemod.read(tmp_path / "lake", "hands").column(c).to_pylist() for c in ("hand_key", "source_line"))))
    scores = lakemod.read(tmp_path / "lake", "scores").to_pylist()
    assert len(scores) == 2677
    assert [sc["hand_key"] for sc in scores if sc["hand_score"] != recorded[line[sc["hand_key"]] - 1]] == []


@pytest.mark.slow
@pytest.mark.parametrize("order", [("deals.jsonl", "deals.final.cfn", "deals.initial.cfn"),
                                   ("deals.initial.cfn", "deals.final.cfn", "deals.jsonl")])
def test_any_order_gives_the_hands_of_deals_jsonl(tmp_path, order):
    folder = shared_path("data", "real", "colver")
    s = ingest_paths([folder / f for f in order], tmp_path / "lake")
    assert (s.games, s.hands, sum(s.rejected.values())) == (220, 2677, 0)
    assert s.same_deal + s.deal_replaced == 5354       # every CFN line is a copy of a deals.jsonl deal
    hands = lakemod.read(tmp_path / "lake", "hands")
    assert (hands.num_rows, set(hands.column("source_format").to_pylist())) == (2677, {"colver"})
    assert lakemod.read(tmp_path / "lake", "games").num_rows == 220


def test_games_jsonl_is_compared_with_deals_jsonl(tmp_path):
    # games.jsonl line 1 is g0000: final_scores [1411, 2205], winner EW, 13 deals (its own line; deals.jsonl's
    # g0000 records the same). A tampered copy makes the deals reader reject g0000, naming games.jsonl's line.
    import orjson
    folder = shared_path("data", "real", "colver")
    deals = (folder / "deals.jsonl").read_bytes().splitlines(keepends=True)
    games = (folder / "games.jsonl").read_bytes().splitlines(keepends=True)
    first = orjson.loads(games[0])
    assert (first["game_id"], first["final_scores"], first["winner"], first["deals"]) == ("g0000", [1411, 2205], "EW", 13)
    (tmp_path / "deals.jsonl").write_bytes(b"".join(deals[:27]))       # g0000 (13 deals) and g0001 (14 deals)
    first["final_scores"] = [1411, 2105]
    (tmp_path / "games.jsonl").write_bytes(orjson.dumps(first) + b"\n" + b"".join(games[1:2]))
    s = ingest_paths([tmp_path], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected)) == (1, 14, {"recorded_mismatch": 1})
    rej = lakemod.read(tmp_path / "lake", "rejects").to_pylist()[0]
    assert rej["game_id"] == "colver:g0000"
    assert "games.jsonl:1: final scores [1411, 2205] vs [1411, 2105]" in rej["reason"]
    # games.jsonl fixed: deals.jsonl is unchanged but what it gave depended on it, so it is read again; g0000 is
    # imported and its reject cleared (a hostile pass found it stayed rejected until --reread)
    (tmp_path / "games.jsonl").write_bytes(b"".join(games[:2]))
    s = ingest_paths([tmp_path], tmp_path / "lake")
    assert (s.games, s.hands, sum(s.rejected.values()), s.rejects_cleared) == (1, 13, 0, 1)
    assert lakemod.read(tmp_path / "lake", "rejects").num_rows == 0
    s = ingest_paths([tmp_path], tmp_path / "lake")      # nothing changed since: both skipped unread
    assert (s.unchanged, s.hands) == (2, 0)


def test_games_jsonl_alone_checked_line_by_line(tmp_path):
    folder = shared_path("data", "real", "colver")
    s = ingest_paths([folder / "games.jsonl"], tmp_path / "lake")
    assert (s.games, s.hands, sum(s.rejected.values()), s.formats) == (0, 0, 0, Counter({"colver-games": 1}))
    bad = tmp_path / "games.jsonl"
    lines = (folder / "games.jsonl").read_bytes().splitlines(keepends=True)[:3]
    bad.write_bytes(lines[0] + lines[1].replace(b'"winner":"EW"', b'"winner":"NS"') + lines[2])
    s = ingest_paths([bad], tmp_path / "lake2")
    rej = lakemod.read(tmp_path / "lake2", "rejects").to_pylist()
    # g0001 ended [1683, 2215] (games.jsonl line 2): NS cannot be the winner
    assert [(r["source_line"], r["reason_code"], r["game_id"]) for r in rej] == [(2, "bad_value", "colver:g0001")]
