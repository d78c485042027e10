"""coincoinche/coincoinche engine cases (../shared/oracles/cases/coincoinche.json, 2 cases) under the `coincoinche`
ruleset: one scripted full deal (score_batch on a native record) and one illegal move (legal_cards).
Players p1 p2 p3 p4 are our seats 0 1 2 3 (red = p1+p3 = team 0, blue = team 1)."""

import functools

import numpy as np
import pytest

from conftest import shared_cases, shared_path
from helpers import score
from pipeline import rules
from pipeline.cards import card_str, cards_of, mask_of, parse_card, parse_strain
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.rescore.tables import build
from pipeline.trick_order import strength

FILE = "oracles/cases/coincoinche.json"
R = functools.partial(rules.load, "coincoinche")
SEAT = {"p1": 0, "p2": 1, "p3": 2, "p4": 3}
TEAM = {"red": 0, "blue": 1}


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 2


def _native(case):
    i = case["input"]
    c = i["contract"]
    first = SEAT[i["tricks"][0][0][0]]
    hand = {"hand_no": 1, "dealer": (first - 1) % 4, "completeness": "full_play",
            "hands": [i["hands"][p] for p in ("p1", "p2", "p3", "p4")], "auction": [],
            "contract": {"taker": SEAT[c["taker"]], "strain": c["trump"], "bid": c["value"], "capot_bid": False,
                         "coinche": {1: 0, 2: 1, 4: 2}[c["multiplier"]]},
            "plays": [[SEAT[p], card] for t in i["tricks"] for p, card in t]}
    return {"format": "rebelote", "version": 1, "source": "oracle", "source_game_id": case["id"], "variant": "coinche",
            "n_players": 4, "players": ["p1", "p2", "p3", "p4"], "hands": [hand]}


@pytest.mark.parametrize("case", shared_cases(FILE, "deal_score"))
def test_deal_score(case):
    i, e = case["input"], case["expected"]
    assert {p: TEAM[t] for t, ps in i["teams"].items() for p in ps} == {p: s % 2 for p, s in SEAT.items()}
    (r,) = score("coincoinche", _native(case))
    assert r["status"] == "scored" and r["legal"] is True
    # each player's trick points (last trick 10 included) from the engine's trick winners and card table
    pts = build(R()).points[parse_strain(i["contract"]["trump"])]
    per_seat = [0, 0, 0, 0]
    for w, trick in zip(r["trick_winners"], i["tricks"]):
        per_seat[w] += sum(int(pts[parse_card(c)]) for _, c in trick)
    per_seat[r["trick_winners"][-1]] += int(R()["cards.last_trick"])
    assert {p: per_seat[s] for p, s in SEAT.items()} == e["player_trick_points"]
    assert r["card_points"] == [per_seat[0] + per_seat[2], per_seat[1] + per_seat[3]]
    assert r["contract_made"] is e["contract_made"]
    assert r["hand_score"] == [e["deal_score"]["red"], e["deal_score"]["blue"]]


@pytest.mark.parametrize("case", shared_cases(FILE, "legal_moves"))
def test_legal_moves(case):
    i, e = case["input"], case["expected"]
    strain = np.array([parse_strain(i["contract_trump"])], dtype=np.int8)
    trick = [parse_card(c) for c in i["trick_so_far"]]      # the leader is seat 0; seat len(trick) acts
    seat = len(trick)
    led = np.array([trick[0] // 8 if trick else 0], dtype=np.int8)
    win_seat, win_card = 0, 0
    if trick:
        st = strength(np.array(trick, dtype=np.int8), np.repeat(led, len(trick)), np.repeat(strain, len(trick)))
        win_seat = int(np.argmax(st))
        win_card = trick[win_seat]
    legal = int(legal_cards(np.array([mask_of(parse_card(c) for c in i["hand"])], dtype=np.uint32),
                            np.array([not trick]), led, strain, np.array([win_card], dtype=np.int8),
                            np.array([bool(trick) and win_seat % 2 == seat % 2]), PlayRules.of(R()))[0])
    assert sorted(card_str(c) for c in cards_of(legal)) == sorted(e["legal_set"])
    assert bool(legal >> parse_card(i["card_tried"]) & 1) is e["legal"]
