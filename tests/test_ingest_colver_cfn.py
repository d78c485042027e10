"""colver CFN reader (pipeline/formats/colver_cfn.py): one fixture per quirk, each line copied from
../shared/data/real/colver/deals.final.cfn / deals.initial.cfn (the deal named in each test). Expected scores
are colver's own `rewards` for that deal, quoted in FORMAT.md §7 (the `colver` ruleset reproduces them)."""

from pathlib import Path

import pytest

from pipeline import rules

from pipeline.storage import lake as lakemod
from pipeline.formats import cfn, colver_cfn, detect
from pipeline.formats.records import RecordError
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake

FX = Path(__file__).parent / "fixtures" / "colver_cfn"


def _scored(tmp_path, *names):
    lake = tmp_path / "lake"
    s = ingest_paths([FX / n for n in names], lake)
    rescore_lake(lake, rules.load("colver"))
    hands = {h["hand_key"]: h for h in lakemod.read(lake, "hands").to_pylist()}
    scores = lakemod.read(lake, "scores").to_pylist()
    return s, sorted(({**hands[sc["hand_key"]], **sc} for sc in scores), key=lambda r: r["source_line"])


def test_finished_deal_rebuilds_leaders_and_hands():
    # g0000#1 (FORMAT.md §4 example): dealer E, S (seat 2) leads trick 1; deals.jsonl records trick 1 won by
    # E (TD over 8D 9D QD, diamonds plain) who leads trick 2, and N's dealt hand 7S QD KD 8C 9C QC KC AC
    pos = cfn.parse((FX / "final.cfn").read_text().strip())
    assert (pos.kind, pos.dealer, pos.strain, pos.bid, pos.taker_team, pos.coinche) == ("played", 1, "S", 110, 1, 0)
    assert pos.play_seats[:8] == [2, 3, 0, 1, 1, 2, 3, 0]
    from pipeline.cards import mask_of, parse_card
    assert pos.initial_hands[0] == mask_of(parse_card(c) for c in "7S QD KD 8C 9C QC KC AC".split())


def test_contract_taker_seat_unknown_team_kept(tmp_path):
    # g0000#1: EW 110♠ made with 101 + belote -> [61, 231] (FORMAT.md §7)
    _, [h] = _scored(tmp_path, "final.cfn")
    # the game id names the position (sha256 of the line), source_game_id where it was read
    line = (FX / "final.cfn").read_text().strip()
    import hashlib
    assert h["game_id"] == "colver:cfn-" + hashlib.sha256(line.encode()).hexdigest()[:16]
    assert (h["taker"], h["taker_team"], h["players"], h["source_game_id"]) == (None, 1, ["N", "E", "S", "W"],
                                                                                "colver_cfn/final.cfn#1")
    assert (h["status"], h["hand_score"], h["contract_made"]) == ("scored", [61, 231], True)


def test_passed_out_line(tmp_path):
    # g0003#6 passed out -> [0, 0] (FORMAT.md §4 and §7)
    _, [h] = _scored(tmp_path, "passed_out.cfn")
    assert (h["taker"], h["taker_team"], h["strain"], h["plays"], h["completeness"]) == (None, None, None, None,
                                                                                         "full_play")
    assert (h["status"], h["hand_score"]) == ("passed_out", [0, 0])


def test_coinched_and_surcoinched(tmp_path):
    # g0000#8 EW 90♠ x -> [0, 342]; g0032#11 EW 90♣ xx -> [0, 432] (FORMAT.md §7)
    _, rows = _scored(tmp_path, "coinched.cfn")
    assert [(r["coinche"], r["bid"], r["strain"], r["hand_score"]) for r in rows] == [
        (1, 90, "S", [0, 342]), (2, 90, "C", [0, 432])]


def test_capot_250(tmp_path):
    # g0115#3 EW capot♣ x made -> 252 + 500 = [0, 752]; g0005#10 EW capot♠ failed -> 162 + 250 + 20 = [432, 0]
    # (FORMAT.md §7)
    _, rows = _scored(tmp_path, "capot.cfn")
    assert [(r["capot_bid"], r["bid"], r["coinche"], r["hand_score"]) for r in rows] == [
        (True, None, 1, [0, 752]), (True, None, 0, [432, 0])]


def test_initial_position_is_deal_level_and_replaced_by_the_played_deal(tmp_path):
    # deals.initial.cfn line 1 is g0000#1 before the first call; final.cfn is the same deal played out
    s, [h] = _scored(tmp_path, "initial.cfn")
    assert (h["completeness"], h["auction"], h["plays"], h["taker_team"]) == ("deal", [], None, None)
    assert h["status"] == "unscorable" and h["reason"].startswith("deal level")
    played = cfn.parse((FX / "final.cfn").read_text().strip())
    assert h["initial_hands"] == played.initial_hands
    s = ingest_paths([FX / "final.cfn"], tmp_path / "lake")
    assert (s.games, s.hands, s.deal_replaced) == (1, 1, 1)
    hands = lakemod.read(tmp_path / "lake", "hands").to_pylist()
    assert [(h["source_file"].endswith("final.cfn"), h["completeness"]) for h in hands] == [(True, "full_play")]
    assert lakemod.read(tmp_path / "lake", "games").num_rows == 1
    # read again, the opening position is a poorer copy of a deal already imported: skipped, said so
    s = ingest_paths([FX / "initial.cfn"], tmp_path / "lake", reread=True)
    assert (s.games, s.hands, s.same_deal, s.duplicates) == (0, 0, 1, 1)
    assert "1 single-deal copy of deals already imported from another file (1 skipped" in str(s)


def test_malformed_lines_are_rejects_with_line_and_reason(tmp_path):
    s = ingest_paths([FX / "malformed.cfn"], tmp_path / "lake")
    rej = sorted(lakemod.read(tmp_path / "lake", "rejects").to_pylist(), key=lambda r: r["source_line"])
    # line 9 is g0000#1 with two spaces before its contract: whitespace between the parts is not a fault
    assert s.games == 1
    # one line per fault, in file order (see the fixture)
    assert [(r["source_line"], r["reason_code"]) for r in rej] == [
        (1, "unknown_card"), (2, "bad_dealer"), (3, "card_twice"), (4, "bad_trick"), (5, "bad_contract"),
        (6, "wrong_card_count"), (7, "bad_contract"), (8, "unfinished_deal")]
    lines = (FX / "malformed.cfn").read_text().splitlines()
    assert [r["game_id"] for r in rej] == [colver_cfn.game_id(ln) for ln in lines[:8]]
    assert "'Zd' is not a CFN card" in rej[0]["reason"]


@pytest.mark.parametrize("text,code", [
    ("E:-/-/-/- 8d9dQdTd 110sEW", "unfinished_deal"),              # 1 trick of 8
    ("E:A9.QJ8.Q/J.T9.TK97.J/KQ.AK.AJ.Q9/T87.7.8.AT7 - 0", "bad_hand"),   # 3 suit groups
    ("E:7..KQ.AKQ98/KQ.T.ATJ.T7/AT8.Q98.8.J/J9.AKJ7.97. - bid:0/p0/E", "bad_contract"),  # E is the dealer
])
def test_parse_errors(text, code):
    with pytest.raises(RecordError) as e:
        cfn.parse(text)
    assert e.value.code == code


def test_detected_by_content_then_name():
    line = (FX / "final.cfn").read_text()
    assert detect("anything.txt", line) is colver_cfn
    assert detect("positions.cfn", "not cfn at all\n") is colver_cfn
    assert detect("notes.txt", "not cfn at all\n") is None


def test_native_export_round_trip_keeps_the_taker_team(tmp_path):
    # export -> import must be lossless: a CFN contract names the team only, which the native format carries as
    # contract.taker_team (taker null). The file mixes lines the columnar reader takes (the passed-out deal) and
    # lines it leaves to the row path (contracts with taker_team): both must land, with the same scores.
    from pipeline.report.export import export_jsonl
    names = ("final.cfn", "coinched.cfn", "capot.cfn", "passed_out.cfn")
    _, before = _scored(tmp_path / "a", *names)
    out = tmp_path / "export.jsonl"
    with out.open("wb") as fh:
        export_jsonl(tmp_path / "a" / "lake", fh)
    lake2 = tmp_path / "b" / "lake"
    s = ingest_paths([out], lake2)
    assert (s.games, s.hands, sum(s.rejected.values())) == (6, 6, 0)
    rescore_lake(lake2, rules.load("colver"))
    hands = {h["hand_key"]: h for h in lakemod.read(lake2, "hands").to_pylist()}
    after = sorted(({**hands[sc["hand_key"]], **sc} for sc in lakemod.read(lake2, "scores").to_pylist()),
                   key=lambda r: r["source_line"])
    cols = ("taker", "taker_team", "strain", "bid", "capot_bid", "coinche", "plays", "status", "hand_score")
    rows = lambda t: sorted((tuple(r[c] for c in cols) for r in t), key=repr)  # noqa: E731 (lines renumbered)
    assert rows(after) == rows(before)
    assert sorted(r["taker_team"] for r in after if r["taker_team"] is not None) == [1, 1, 1, 1, 1]


def test_team_only_contracts_count_in_contract_and_partnership_reports(tmp_path):
    # 5 contracts, all taken by EW (final.cfn 110sEW, coinched.cfn 90sEWx and 90cEWxx, capot.cfn 250cEWx and
    # 250sEW), 1 passed-out deal: the contracts report counts the 5, and the E-W pair took all 5 (the taker's seat
    # is unknown, its team is not)
    from pipeline.stats import reports as stats
    _scored(tmp_path, "final.cfn", "coinched.cfn", "capot.cfn", "passed_out.cfn")
    lake = tmp_path / "lake"
    rows = stats.run_report(lake, "contracts", "colver", stats.Filters()).to_pylist()
    assert sum(r["contracts"] for r in rows) == 5
    pairs = {(r["player_a"], r["player_b"]): r["taken"]
             for r in stats.run_report(lake, "partnerships", "colver", stats.Filters()).to_pylist()}
    assert pairs == {("E", "W"): 5, ("N", "S"): 0}


def _five_positions() -> list[str]:
    """The five played positions of the fixtures (final.cfn, coinched.cfn, capot.cfn)."""
    return [ln for n in ("final.cfn", "coinched.cfn", "capot.cfn") for ln in (FX / n).read_text().splitlines()
            if ln.strip()]


def test_edited_cfn_file_keeps_the_lines_it_still_holds(tmp_path):
    # A hostile pass found that deleting line 1 of a CFN file and importing it again emptied the lake (line-based
    # ids shifted, every line matched its own old copy and was skipped, then the old copies were removed).
    lines = _five_positions()
    f = tmp_path / "d" / "d.cfn"
    f.parent.mkdir()
    f.write_text("\n".join(lines) + "\n")
    lake = tmp_path / "lake"
    assert ingest_paths([f.parent], lake).hands == 5
    f.write_text("\n".join(lines[1:]) + "\n")                  # line 1 deleted, the others move up
    s = ingest_paths([f.parent], lake)
    assert (s.hands, s.duplicates, s.replaced, sum(s.rejected.values())) == (0, 4, 1, 0)
    kept = lakemod.read(lake, "hands")
    assert sorted(kept.column("game_id").to_pylist()) == sorted(colver_cfn.game_id(ln) for ln in lines[1:])
    f.write_text("\n\n" + "\n".join(lines[1:]) + "\n")         # blank lines on top: nothing changes
    s = ingest_paths([f.parent], lake)
    assert (s.hands, s.duplicates, s.replaced) == (0, 4, 0)
    assert lakemod.read(lake, "hands").num_rows == 4


def test_same_named_cfn_files_of_two_runs_do_not_clash(tmp_path):
    # run1/sub/d.cfn and run2/sub/d.cfn hold different positions: both import (ids name the positions)
    lines = _five_positions()
    for run, part in (("run1", lines[:2]), ("run2", lines[2:])):
        p = tmp_path / run / "sub" / "d.cfn"
        p.parent.mkdir(parents=True)
        p.write_text("\n".join(part) + "\n")
    s = ingest_paths([tmp_path / "run1", tmp_path / "run2"], tmp_path / "lake")
    assert (s.games, s.hands, sum(s.rejected.values())) == (5, 5, 0)


def test_show_explains_a_team_only_contract(tmp_path):
    # `show` said "passed out: no contract: 0 - 0" for every CFN contract (its taker seat is null) while the same
    # output scored it (found by a hostile pass). g0000#1: EW 110 spades made, [61, 231] (FORMAT.md §7).
    from pipeline.stats import show
    _, [h] = _scored(tmp_path, "final.cfn")
    lake = tmp_path / "lake"
    [hand] = show.game_hands(lake, h["game_id"], 1)
    out = show.explain(hand, rules.load("colver"))
    lines = {ln["label"]: ln["value"] for sec in out["sections"] if sec["title"] == "Contract" for ln in sec["lines"]}
    assert lines == {"taker": "team 1 (the record names the team, not the seat)", "contract": "S 110"}
    assert out["score"] == [61, 231] and out["status"] == "scored"


@pytest.mark.parametrize("contract_patch, reason", [
    ({"taker_team": 1}, "the contract gives both a taker seat (0) and a taker team (1): give the team only when"),
    ({"taker": None, "taker_team": 2}, "taker team 2 must be 0 or 1"),
    ({"taker": None, "taker_team": True}, "contract.taker_team must be a whole number, got True"),
])
def test_native_taker_team_faults_are_named(tmp_path, contract_patch, reason):
    # the native format's contract.taker_team (docs/native-format.md): one fault, one message (a hostile pass
    # found one message for all three)
    from conftest import write_jsonl
    from deals import DEAL_A, native_game, native_hand
    g = native_game("g1", [native_hand(DEAL_A, 1, taker=0)])
    g["hands"][0]["contract"].update(contract_patch)
    s = ingest_paths([write_jsonl(tmp_path / "g.jsonl", [g])], tmp_path / "lake")
    assert (s.hands, sum(s.rejected.values())) == (0, 1)
    [rej] = lakemod.read(tmp_path / "lake", "rejects").to_pylist()
    assert reason in rej["reason"]
