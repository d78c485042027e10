"""Fournier 2-player rules (seed 001) that need more than the cards: the revoke award for every revoke, the
penalties table as recorded events, and declaring out (a player saying he has finished). Hands built by hand;
every number expected is worked out in the comments.

Two players under ``belote-2p`` (9 cards each, hearts trump, dealer seat 1 so seat 0 leads), with house files
``extends = "belote-2p"`` setting the parameters under test. Card points: trump J20 9:14 A11 10:10 K4 Q3; plain
A11 10:10 K4 Q3 J2, 9 8 7 nothing (the king 4: belote-2p's reading of the seed).
"""

from __future__ import annotations

import copy
import io
import json

import pyarrow as pa
import pytest

from helpers import game_results, hands_table, score
from pipeline import rules
from pipeline.formats import native
from pipeline.storage import schema
from pipeline.rescore import game_pass, score_batch

# The legal hand of tests/test_engine_2p.py: P0 102, P1 27 card points, P0's contract made, no declarations.
HANDS = [["JH", "9H", "7H", "AC", "TC", "AD", "7D", "AS", "7S"],
         ["AH", "TH", "8H", "KC", "QC", "KD", "QD", "KS", "QS"]]
# T1 JH 8H -> P0 20   T2 9H TH -> P0 24   T3 7H AH -> P1 11   T4 KC AC -> P0 15   T5 TC QC -> P0 13
# T6 AD KD -> P0 15   T7 7D QD -> P1 3    T8 KS AS -> P0 15   T9 7S QS -> P1 3 + 10
PLAYS = [[0, "JH"], [1, "8H"], [0, "9H"], [1, "TH"], [0, "7H"], [1, "AH"], [1, "KC"], [0, "AC"], [0, "TC"],
         [1, "QC"], [0, "AD"], [1, "KD"], [0, "7D"], [1, "QD"], [1, "KS"], [0, "AS"], [0, "7S"], [1, "QS"]]

# Two revokes by P0 in one hand (the same deal):
# T1 P0 JH, P1 8H -> P0 20          T2 P0 9H, P1 TH -> P0 24 (neither AH nor TH beats the nine)
# T3 P0 7H, P1 AH -> P1 11          T4 P1 KC, P0 AS -> P1 4 + 11 = 15: revoke 1, P0 holds AC and TC
# T5 P1 QC, P0 AC -> P0 3 + 11 = 14 T6 P0 7S, P1 QS -> P1 3
# T7 P1 KS, P0 7D -> P1 4 (P0 has no spade: any card)
# T8 P1 KD, P0 TC -> P1 4 + 10 = 14: revoke 2, P0 holds AD
# T9 P1 QD, P0 AD -> P0 3 + 11 = 14, + 10 last trick = 24
# P0: 20 + 24 + 14 + 24 = 82; P1: 11 + 15 + 3 + 4 + 14 = 47 (82 + 47 = 129, the points in play). P0 took: made.
TWO_REVOKES = [[0, "JH"], [1, "8H"], [0, "9H"], [1, "TH"], [0, "7H"], [1, "AH"], [1, "KC"], [0, "AS"],
               [1, "QC"], [0, "AC"], [0, "7S"], [1, "QS"], [1, "KS"], [0, "7D"], [1, "KD"], [0, "TC"],
               [1, "QD"], [0, "AD"]]

# A deal where P0 holds a tierce (7S 8S 9S: 20) and wins two tricks worth nothing before any card of value.
TIERCE_HANDS = [["7S", "8S", "9S", "AC", "TC", "AD", "TD", "JH", "7H"],
                ["KC", "QC", "KD", "QD", "8D", "7D", "AH", "TH", "8H"]]
# T1 P0 9S, P1 8D -> P0 0 (P1 has no spade)   T2 P0 8S, P1 7D -> P0 0
# T3 P0 AC, P1 QC -> P0 14                    T4 P0 TC, P1 KC -> P0 14
# T5 P0 AD, P1 QD -> P0 14                    T6 P0 TD, P1 KD -> P0 14
# T7 P0 7S, P1 8H -> P1 0 (a trump on a spade lead, allowed: no duty to trump, any card)
# T8 P1 AH, P0 JH -> P0 31 (trump led: P0 must beat the ace, and the jack does)
# T9 P0 7H, P1 TH -> P1 10 + 10 last trick
# P0: 14 * 4 + 31 = 87 cards + 20 tierce = 107; P1: 20. No belote (KH and QH out of play).
TIERCE_PLAYS = [[0, "9S"], [1, "8D"], [0, "8S"], [1, "7D"], [0, "AC"], [1, "QC"], [0, "TC"], [1, "KC"],
                [0, "AD"], [1, "QD"], [0, "TD"], [1, "KD"], [0, "7S"], [1, "8H"], [1, "AH"], [0, "JH"],
                [0, "7H"], [1, "TH"]]


def hand(plays, hand_no=1, hands=HANDS, taker=0, **extra):
    h = {"hand_no": hand_no, "dealer": 1, "hands": copy.deepcopy(hands), "auction": [[0, "take"]],
         "contract": {"taker": taker, "strain": "H", "bid": None, "coinche": 0}, "plays": copy.deepcopy(plays)}
    h.update(extra)
    return h


def game(*hands, gid="f2p"):
    return {"format": "rebelote", "version": 1, "source": "test", "source_game_id": gid, "variant": "belote-2p",
            "n_players": 2, "players": ["Ana", "Ben"], "hands": list(hands)}


def house(tmp_path, name="fournier-house", **sections) -> str:
    """A house ruleset extending belote-2p: sections maps 'section' -> TOML body lines."""
    text = f'name = "{name}"\nextends = "belote-2p"\n'
    for sec, body in sections.items():
        text += f"[{sec}]\n{body}\n"
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


PENALTIES_10 = "\n".join(f"{k} = 10" for k in rules.PENALTY_KINDS)


# ------------------------------------------------------------------------------------------------ revokes

@pytest.mark.rules
@pytest.mark.covers("play.revoke_count")
def test_two_revokes_give_20_under_each_and_10_under_first(tmp_path):
    each = house(tmp_path, "revoke-each", play='revoke_count = "each"')
    (r,) = score(each, game(hand(TWO_REVOKES)))
    assert (r["legal"], r["illegal_trick"], r["illegal_seat"], r["illegal_rule"]) == (False, 4, 0, "follow_suit")
    assert r["illegal_plays"] == 2
    # cards [82, 47]; P1 scores 10 for each of P0's two revokes: 47 + 20 = 67
    assert r["card_points"] == [82, 47] and r["hand_score"] == [82, 67]
    # the first only (revoke_count = "first"): 47 + 10 = 57; both illegal plays still counted
    first = house(tmp_path, "revoke-first", play='revoke_count = "first"')
    (r,) = score(first, game(hand(TWO_REVOKES)))
    assert r["illegal_plays"] == 2 and r["hand_score"] == [82, 57]


@pytest.mark.rules
@pytest.mark.covers("play.revoke_count")
def test_a_legal_hand_has_no_illegal_play_and_no_award(tmp_path):
    each = house(tmp_path, "revoke-each", play='revoke_count = "each"')
    (r,) = score(each, game(hand(PLAYS)))
    assert r["legal"] is True and r["illegal_plays"] == 0 and r["hand_score"] == [102, 27]


def test_revokes_by_both_players_each_award_the_other(tmp_path):
    # P1 also revokes: T1 P0 JH, P1 KC while holding AH TH 8H (trump led, P1 holds trumps: must follow). Replay:
    # T1 JH KC -> P0 20 + 4 = 24; T2 9H 8H -> P0 14; T3 7H AH -> P1 11; T4 P1 QC, P0 AS (revoke: P0 holds AC TC)
    # -> P1 3 + 11 = 14; T5 P1 TH, P0 7S (P0 has no heart left: any card) -> P1 10; T6 P1 KD, P0 AD -> P0 4 + 11 =
    # 15; T7 P0 AC, P1 QS (P1 has no club) -> P0 11 + 3 = 14; T8 P0 TC, P1 KS -> P0 10 + 4 = 14; T9 P0 7D, P1 QD
    # -> P1 3 + 10 last = 13. P0: 24 + 14 + 15 + 14 + 14 = 81; P1: 11 + 14 + 10 + 13 = 48 (129). Made.
    # Under "each": P1 revoked once (P0 + 10), P0 once (P1 + 10): [91, 58].
    plays = [[0, "JH"], [1, "KC"], [0, "9H"], [1, "8H"], [0, "7H"], [1, "AH"], [1, "QC"], [0, "AS"], [1, "TH"],
             [0, "7S"], [1, "KD"], [0, "AD"], [0, "AC"], [1, "QS"], [0, "TC"], [1, "KS"], [0, "7D"], [1, "QD"]]
    each = house(tmp_path, "revoke-each", play='revoke_count = "each"')
    (r,) = score(each, game(hand(plays)))
    assert (r["illegal_trick"], r["illegal_seat"], r["illegal_plays"]) == (1, 1, 2)
    assert r["card_points"] == [81, 48] and r["hand_score"] == [91, 58]


# ------------------------------------------------------------------------------------------------ penalties

@pytest.mark.rules
@pytest.mark.covers("penalties.misdeal")
def test_a_misdeal_penalty_of_10_is_deducted_from_the_offender(tmp_path):
    fournier = house(tmp_path, penalties=PENALTIES_10)
    g = game(hand(PLAYS, penalties=[{"seat": 0, "kind": "misdeal"}]))
    (r,) = score(fournier, g)
    # the hand scores [102, 27]; the misdeal costs P0 10 in the game totals: [92, 27]
    assert r["hand_score"] == [102, 27] and r["penalty_points"] == [-10, 0]
    (gr,) = game_results(fournier, g)
    assert gr["totals"] == [92, 27]
    # belote-2p leaves the penalties at 0: recorded, nothing deducted
    (r,) = score("belote-2p", g)
    assert r["penalty_points"] == [0, 0]
    assert game_results("belote-2p", g)[0]["totals"] == [102, 27]


@pytest.mark.rules
@pytest.mark.parametrize("kind", rules.PENALTY_KINDS)
def test_each_penalty_kind_costs_its_own_parameter(tmp_path, kind):
    # only this kind set (7 points, a value no other kind has): P1 is charged 7, twice when listed twice
    fournier = house(tmp_path, penalties=f"{kind} = 7")
    others = [k for k in rules.PENALTY_KINDS if k != kind][0]
    g = game(hand(PLAYS, penalties=[{"seat": 1, "kind": kind}, {"seat": 1, "kind": kind},
                                     {"seat": 0, "kind": others}]))
    (r,) = score(fournier, g)
    assert r["penalty_points"] == [0, -14]
    # totals: [102, 27 - 14] = [102, 13]
    assert game_results(fournier, g)[0]["totals"] == [102, 13]


def test_a_penalty_on_a_passed_out_hand_still_counts(tmp_path):
    # a misdeal by P1 on a hand nobody played: 0 - 0, then P1 loses 10
    fournier = house(tmp_path, penalties=PENALTIES_10)
    passed = {"hand_no": 1, "dealer": 1, "hands": HANDS, "auction": [[0, "pass"], [1, "pass"]], "contract": None,
              "penalties": [{"seat": 1, "kind": "misdeal"}]}
    (r,) = score(fournier, game(passed))
    assert r["status"] == "passed_out" and r["penalty_points"] == [0, -10]
    assert game_results(fournier, game(passed))[0]["totals"] == [0, -10]


# ------------------------------------------------------------------------------------------------ claims

def claims_house(tmp_path, target, claims="true"):
    # reaching the target is enough here (belote-2p itself wants it passed: game.target_strict)
    return house(tmp_path, f"claims-{target}-{claims}", game=f"claims = {claims}\ntarget = {target}\ntarget_strict = false")


@pytest.mark.rules
@pytest.mark.covers("game.claims")
def test_a_right_claim_ends_the_game_and_the_claimant_wins(tmp_path):
    # hand 1: [102, 27]. Hand 2 (the same deal): P0 declares out after trick 2, having won T1 (20) and T2 (24):
    # 102 + 44 = 146 >= 140: P0 wins at hand 2. P1 won nothing in those two tricks: 27 + 0.
    g = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}))
    rs = score(claims_house(tmp_path, 140), g)
    assert rs[1]["claim_team"] == 0 and rs[1]["claim_points"] == [44, 0] and rs[1]["claim_note"] is None
    (gr,) = game_results(claims_house(tmp_path, 140), g)
    assert (gr["winner"], gr["ended_at_hand"], gr["end_reason"], gr["totals_at_end"]) == (0, 2, "claim", [146, 27])


@pytest.mark.rules
@pytest.mark.covers("game.claims")
def test_a_wrong_claim_loses_the_game_though_the_claimant_is_ahead(tmp_path):
    # the same claim with a target of 150: 146 < 150, a wrong claim: P1 wins even with the lower total
    g = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}))
    (gr,) = game_results(claims_house(tmp_path, 150), g)
    assert (gr["winner"], gr["ended_at_hand"], gr["end_reason"], gr["totals_at_end"]) == (1, 2, "wrong_claim",
                                                                                         [146, 27])


@pytest.mark.rules
@pytest.mark.covers("game.claims")
def test_claims_off_ignore_the_claim(tmp_path):
    # game.claims = false: the claim is noted and ignored; hand 2 scores [102, 27]: totals [204, 54] >= 150 by the
    # target at the end of hand 2
    g = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}))
    path = claims_house(tmp_path, 150, "false")
    rs = score(path, g)
    assert rs[1]["claim_note"].startswith("ignored")
    (gr,) = game_results(path, g)
    assert (gr["winner"], gr["ended_at_hand"], gr["end_reason"], gr["totals_at_end"]) == (0, 2, "target", [204, 54])


@pytest.mark.rules
@pytest.mark.covers("game.target_strict")
def test_a_claim_that_only_reaches_the_target_is_wrong_when_strict(tmp_path):
    # 146 = target 146: right when reaching is enough, wrong under game.target_strict
    g = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}))
    assert game_results(claims_house(tmp_path, 146), g)[0]["end_reason"] == "claim"
    strict = house(tmp_path, "strict", game="claims = true\ntarget = 146\ntarget_strict = true")
    (gr,) = game_results(strict, g)
    assert (gr["winner"], gr["end_reason"]) == (1, "wrong_claim")


@pytest.mark.rules
@pytest.mark.covers("game.claims")
def test_a_claim_before_any_counting_trick_does_not_count_declarations(tmp_path):
    # P0 has won T1 and T2, worth 0: its tierce (20) does not count yet: 0 + 0 = 0 < 20, a wrong claim. Had it
    # counted, 20 would reach the target of 20.
    path = claims_house(tmp_path, 20)
    early = game(hand(TIERCE_PLAYS, hands=TIERCE_HANDS, claim={"seat": 0, "trick": 2}))
    (r,) = score(path, early)
    assert r["declaration_points"] == [20, 0] and r["claim_points"] == [0, 0]
    (gr,) = game_results(path, early)
    assert (gr["winner"], gr["end_reason"]) == (1, "wrong_claim")
    # after T3 (AC QC, 14: a trick with cards of value) the tierce counts: 14 + 20 = 34 >= 20
    late = game(hand(TIERCE_PLAYS, hands=TIERCE_HANDS, claim={"seat": 0, "trick": 3}))
    (r,) = score(path, late)
    assert r["claim_points"] == [34, 0]
    (gr,) = game_results(path, late)
    assert (gr["winner"], gr["end_reason"], gr["totals_at_end"]) == (0, "claim", [34, 0])
    # the whole hand as scored: P0 87 + 20 = 107, P1 20
    assert r["hand_score"] == [107, 20]


@pytest.mark.rules
@pytest.mark.covers("game.claims")
def test_a_claim_with_one_trick_left_is_a_wrong_claim(tmp_path):
    # after trick 8 of 9 P0 has far more than 20 (the whole hand gives it 107), but the text forbids stopping with
    # one trick left: a wrong claim, P1 wins
    path = claims_house(tmp_path, 20)
    g = game(hand(TIERCE_PLAYS, hands=TIERCE_HANDS, claim={"seat": 0, "trick": 8}))
    (r,) = score(path, g)
    assert r["claim_note"].startswith("not allowed")
    (gr,) = game_results(path, g)
    assert (gr["winner"], gr["end_reason"]) == (1, "wrong_claim")


# ------------------------------------------------------------------------------------------------ ingest

def _lines(*games) -> bytes:
    return b"".join(json.dumps(g).encode() + b"\n" for g in games)


def test_native_ingest_of_penalties_and_claims_both_paths(tmp_path, monkeypatch):
    from test_fast_native import same_lake, v2
    good = game(hand(PLAYS, penalties=[{"seat": 1, "kind": "out_of_turn"}, {"seat": 0, "kind": "heaped_trick"}]),
                hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 5}), hand(PLAYS, hand_no=3, penalties=[]))
    bad_kind = game(hand(PLAYS, penalties=[{"seat": 1, "kind": "cheating"}]), gid="bad-kind")
    bad_seat = game(hand(PLAYS, penalties=[{"seat": 2, "kind": "misdeal"}]), gid="bad-seat")
    bad_claim = game(hand(PLAYS, claim={"seat": 0, "trick": 0}), gid="bad-claim")
    f = tmp_path / "f.jsonl"
    f.write_bytes(_lines(*(v2(g) for g in (good, bad_kind, bad_seat, bad_claim))))   # version 2: read as columns
    cols, fallback = same_lake(tmp_path, monkeypatch, [f])
    assert fallback == 3            # the good game read as columns, the three bad ones by the row path
    assert cols["summary"][4] == {"bad_penalty": 2, "bad_claim": 1}
    hs = sorted((h for h in cols["hands"] if h["game_id"] == "test:f2p"), key=lambda h: h["hand_no"])
    assert hs[0]["penalties"] == [{"seat": 1, "kind": "out_of_turn"}, {"seat": 0, "kind": "heaped_trick"}]
    assert hs[1]["claim"] == {"seat": 0, "trick": 5}
    assert hs[2]["penalties"] is None and hs[0]["claim"] is None
    # a penalty or a claim is part of the hand's content: its key differs from the same hand without one
    assert len({h["hand_key"] for h in hs}) == 3


def test_export_round_trip_keeps_penalties_and_claims(tmp_path):
    from pipeline.storage import lake as lakemod
    from pipeline.report.export import export_jsonl
    from pipeline.ingest.run import ingest_paths
    g = game(hand(PLAYS, penalties=[{"seat": 1, "kind": "wrong_card"}]),
             hand(PLAYS, hand_no=2, claim={"seat": 1, "trick": 4}))
    src = tmp_path / "src.jsonl"
    src.write_bytes(_lines(g))
    ingest_paths([src], tmp_path / "l1")
    buf = io.BytesIO()
    export_jsonl(tmp_path / "l1", buf)
    (obj,) = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert obj["hands"][0]["penalties"] == [{"seat": 1, "kind": "wrong_card"}]
    assert obj["hands"][1]["claim"] == {"seat": 1, "trick": 4} and "claim" not in obj["hands"][0]
    out = tmp_path / "export.jsonl"
    out.write_bytes(buf.getvalue())
    ingest_paths([out], tmp_path / "l2")
    cols = ["hand_key", "penalties", "claim"]
    a = lakemod.read(tmp_path / "l1", "hands", columns=cols).sort_by("hand_key").to_pylist()
    b = lakemod.read(tmp_path / "l2", "hands", columns=cols).sort_by("hand_key").to_pylist()
    assert a == b and len(a) == 2


def test_score_sheet_penalties_and_claims(tmp_path):
    from pipeline.storage import lake as lakemod
    from pipeline.ingest.run import ingest_paths
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "game_id,hand_no,variant,player1,player2,player3,player4,dealer,taker,strain,score_a,score_b,total_a,"
        "total_b,penalties,claim_by,claim_trick\n"
        "g1,1,belote,Ana,Ben,Cat,Dan,Dan,Ana,H,92,90,92,90,misdeal:Dan | out_of_turn:Ben,,\n"
        "g1,2,belote,,,,,,Ben,S,0,162,92,252,,Cat,5\n"
        "g2,1,belote,Ana,Ben,Cat,Dan,Dan,Ana,H,92,90,,,cheating:Dan,,\n"
        "g3,1,belote,Ana,Ben,Cat,Dan,Dan,Ana,H,92,90,,,,Cat,\n")
    s = ingest_paths([sheet], tmp_path / "lake")
    assert s.games == 1 and dict(s.rejected) == {"bad_penalty": 1, "bad_claim": 1}
    hs = sorted(lakemod.read(tmp_path / "lake", "hands").to_pylist(), key=lambda h: h["hand_no"])
    # seats: Ana 0, Ben 1, Cat 2, Dan 3
    assert hs[0]["penalties"] == [{"seat": 3, "kind": "misdeal"}, {"seat": 1, "kind": "out_of_turn"}]
    assert hs[1]["claim"] == {"seat": 2, "trick": 5} and hs[1]["penalties"] is None
    # the summary hands count their recorded scores, the penalties deducted per team (Dan and Ben: team 1) under a
    # ruleset charging 10 each: [92 + 0, 90 - 20 + 162] = [92, 232]; the claim cannot be judged without cards
    classic = tmp_path / "classic-pen.toml"
    classic.write_text('name = "classic-pen"\nextends = "belote-classic"\n[penalties]\n' + PENALTIES_10
                       + "\n[game]\nclaims = true\n")
    R = rules.load(classic)
    table = pa.Table.from_pylist(hs, schema=schema.schema("hands"))
    sc = score_batch(table, R)
    assert sc.column("penalty_points").to_pylist() == [[0, -20], [0, 0]]
    assert sc.column("claim_note").to_pylist()[1].startswith("not judged")
    from pipeline.rescore.game import SUMMARY_SCORE
    sc = sc.append_column(SUMMARY_SCORE, table.column("recorded_score"))
    (gr,) = game_pass(sc, R).to_pylist()
    assert gr["totals"] == [92, 232] and gr["winner"] is None


def test_show_names_the_penalty_and_claim_parameters(tmp_path):
    from pipeline.stats.show import explain, render
    fournier = rules.load(house(tmp_path, penalties=PENALTIES_10, play='revoke_count = "each"',
                                game="claims = true"))
    (row,) = native.game_to_rows(game(hand(TWO_REVOKES, penalties=[{"seat": 1, "kind": "misdeal"}],
                                           claim={"seat": 0, "trick": 3})), "rebelote", "<t>", None)[1]
    text = render([explain(row, fournier)])
    assert "penalties.misdeal" in text and "misdeal: -10" in text
    assert "play.revoke_penalty / play.revoke_count" in text and "2 illegal play(s)" in text
    assert "game.claims" in text and "after trick 3" in text


def test_rescore_lake_counts_penalties_and_claims_in_game_scores(tmp_path):
    # end to end: ingest, rescore the lake, read game_scores. Game 1: hand 1 [102, 27] with a misdeal by P0
    # (-10): totals [92, 27]. Game 2: hand 1 [102, 27], hand 2 claim by P0 after trick 2: 102 + 44 = 146 >= 140.
    from pipeline.storage import lake as lakemod
    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake
    g1 = game(hand(PLAYS, penalties=[{"seat": 0, "kind": "misdeal"}]), gid="pen")
    g2 = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}), gid="claim")
    f = tmp_path / "f.jsonl"
    f.write_bytes(_lines(g1, g2))
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    R = rules.load(house(tmp_path, "pen-claims", penalties=PENALTIES_10, game="claims = true\ntarget = 140"))
    rescore_lake(lake, R)
    gs = {g["game_id"]: g for g in lakemod.read(lake, "game_scores").to_pylist()}
    assert gs["test:pen"]["totals"] == [92, 27] and gs["test:pen"]["winner"] is None
    c = gs["test:claim"]
    assert (c["winner"], c["ended_at_hand"], c["end_reason"], c["totals_at_end"]) == (0, 2, "claim", [146, 27])
