"""Cardman/projects belote module (../shared/oracles/cases/cardman_belote.json, 10 cases) under the `cardman` rulesets.

* ``deal_score``: one complete classic deal (a capot), replayed from its tricks through score_batch under `cardman`.
* ``final_score_rule``: EndBeloteGame.scoreDefinitifAttaque/Defense on team totals (points with bonuses), through
  :func:`pipeline.rescore.contract.settle`. Each case names Cardman's scoring mode, which is a ruleset here:
  classic -> `cardman`, coinche -> `cardman-coinche`, classic_points_not_classic_count -> `cardman-points`.
Seats 0+2 (the attack, seat 0 takes) are our team 0.
"""

import numpy as np
import pytest

from conftest import shared_cases, shared_path
from helpers import score
from pipeline import rules
from pipeline.cards import parse_card, parse_strain
from pipeline.rescore.contract import settle
from pipeline.rescore.tables import build

FILE = "oracles/cases/cardman_belote.json"
MODE = {"classic": "cardman", "coinche": "cardman-coinche", "classic_points_not_classic_count": "cardman-points"}


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 10


def _native(case):
    i = case["input"]
    hands = [[c for t in i["tricks"] for s, c in t if s == seat] for seat in range(4)]
    hand = {"hand_no": 1, "dealer": i["dealer"], "completeness": "full_play", "hands": hands, "auction": [],
            "contract": {"taker": i["taker"], "strain": i["trump"], "bid": None, "capot_bid": False, "coinche": 0},
            "plays": [p for t in i["tricks"] for p in t]}
    return {"format": "rebelote", "version": 1, "source": "oracle", "source_game_id": case["id"], "variant": "belote",
            "n_players": 4, "players": ["0", "1", "2", "3"], "hands": [hand]}


@pytest.mark.parametrize("case", shared_cases(FILE, "deal_score"))
def test_deal_score(case):
    i, e = case["input"], case["expected"]
    # the 5-card hands and the talon are the 32 cards, and each seat plays its 5 cards among its 8
    start = i["initial_5_card_hands_and_talon"]
    assert sorted(c for v in start.values() for c in v) == sorted(c for t in i["tricks"] for _, c in t)
    (r,) = score("cardman", _native(case))
    assert r["status"] == "scored" and r["legal"] is True
    team = [s % 2 for s in r["trick_winners"]]
    assert [team.count(0), team.count(1)] == e["tricks_won"]
    # card points recomputed from the tricks with the ruleset's card table, last trick 10, no capot bonus
    R = rules.load("cardman")
    pts = build(R).points[parse_strain(i["trump"])]
    recomputed = [0, 0]
    for t, trick in zip(team, i["tricks"]):
        recomputed[t] += sum(int(pts[parse_card(c)]) for _, c in trick)
    recomputed[team[-1]] += int(R["cards.last_trick"])
    assert recomputed == e["recomputed_card_points"]
    assert r["card_points"] == [e["attack_points_with_bonus"], e["defence_points_with_bonus"]]
    assert r["contract_made"] is True
    assert [r["hand_score"][s % 2] for s in range(4)] == e["final_scores_by_seat"]


@pytest.mark.parametrize("case", shared_cases(FILE, "final_score_rule"))
def test_final_score_rule(case):
    i, e = case["input"], case["expected"]
    R = rules.load(MODE[i["mode"]])
    attack, defence = i["attack_points_with_bonus"], i["defence_points_with_bonus"]
    # the defence took no trick when it has no points and the case lists none of its tricks
    capot = 0 if defence == 0 and not i.get("defence_tricks") else -1
    bid = i["bid_points"] or 0
    capot_bid = bid == R["contract.capot_bid_value"] and R["auction.style"] == "bid"   # Cardman's 162 bid
    res = settle(np.array([[attack, defence]]), np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2), dtype=np.int64),
                 np.array([0]), np.array([bid]), np.array([capot_bid]), np.array([0]), np.array([capot]), R,
                 np.array([parse_strain(i["trump"])]))
    assert not res.litige[0]
    got = {"attack_final": int(res.hand_score[0, 0]), "defence_final": int(res.hand_score[0, 1])}
    assert {k: got[k] for k in e} == e
