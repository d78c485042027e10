"""The colver oracle cases (../shared/oracles/cases/colver_contree.json) under the `colver` ruleset:
54 complete deals scored by colver 0.11.1 and 42 legal-move positions from its legal_actions()."""


import numpy as np
import pytest

from conftest import shared_cases, shared_path
from helpers import score
from pipeline import rules
from pipeline.cards import card_str, cards_of, mask_of, parse_card, parse_strain
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.trick_order import strength

TEAM = {"NS": 0, "EW": 1}


DEALS = shared_cases("oracles/cases/colver_contree.json", "deal_score")
MOVES = shared_cases("oracles/cases/colver_contree.json", "legal_moves")


def test_case_counts():
    shared_path("oracles", "cases", "colver_contree.json")
    assert (len(DEALS), len(MOVES)) == (54, 42)


def _native(case):
    i = case["input"]
    c = i["contract"]
    value = c["value"]
    taker_team = TEAM[c["taker_team"]]
    # the taker's seat is not in the case; any seat of the taker team scores the same (seat only matters via team)
    contract = {"taker": taker_team, "strain": c["trump"], "bid": None if value == 250 else value,
                "capot_bid": value == 250, "coinche": c["coinche_level"]}
    hand = {"hand_no": 1, "dealer": i["dealer"], "hands": [i["hands"][str(s)] for s in range(4)], "auction": [],
            "contract": contract, "plays": [p for t in i["tricks"] for p in t]}
    return {"format": "rebelote", "version": 1, "source": "oracle", "source_game_id": case["id"], "variant": "coinche",
            "n_players": 4, "players": ["N", "E", "S", "W"], "hands": [hand]}


@pytest.mark.parametrize("case", DEALS)
def test_deal_score(case):
    (r,) = score("colver", _native(case))
    e = case["expected"]
    assert r["legal"] is True
    assert r["card_points"] == [e["card_points_incl_dix_de_der"]["NS"], e["card_points_incl_dix_de_der"]["EW"]]
    assert r["contract_made"] is e["contract_made"]
    assert r["belote_team"] == (None if e["belote_team"] is None else TEAM[e["belote_team"]])
    assert r["hand_score"] == [e["deal_score"]["NS"], e["deal_score"]["EW"]]


@pytest.mark.parametrize("case", MOVES)
def test_legal_moves(case):
    i = case["input"]
    strain = np.array([parse_strain(i["contract_trump"])], dtype=np.int8)
    trick = [(s, parse_card(c)) for s, c in i["trick_so_far"]]
    seat = i["seat"]
    first = len(trick) == 0
    led = np.array([trick[0][1] // 8 if trick else 0], dtype=np.int8)
    win_seat, win_card = (trick[0] if trick else (0, 0))
    if trick:
        s = strength(np.array([c for _, c in trick], dtype=np.int8), np.repeat(led, len(trick)), np.repeat(strain, len(trick)))
        k = int(np.argmax(s))
        win_seat, win_card = trick[k]
    hand = np.array([mask_of(parse_card(c) for c in i["hand"])], dtype=np.uint32)
    legal = legal_cards(hand, np.array([first]), led, strain, np.array([win_card], dtype=np.int8),
                        np.array([bool(trick) and win_seat % 2 == seat % 2]), PlayRules.of(rules.load("colver")))
    assert sorted(card_str(c) for c in cards_of(int(legal[0]))) == sorted(case["expected"]["legal"])
