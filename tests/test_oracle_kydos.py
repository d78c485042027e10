"""CephaloSophie/kydos contrée scoring ('points faits', ../shared/oracles/cases/kydos_contree.json, 13 cases) under the
`kydos` ruleset. The cases give team card points (without the last trick) and who took the last trick and held the
belote, so they go through the contract stage, :func:`pipeline.rescore.contract.settle`. Team A is our team 0."""

import functools

import numpy as np
import pytest

from conftest import shared_cases, shared_path
from pipeline import rules
from pipeline.cards import parse_strain
from pipeline.rescore.contract import settle

FILE = "oracles/cases/kydos_contree.json"
R = functools.partial(rules.load, "kydos")
TEAM = {"A": 0, "B": 1}
COINCHE = {"none": 0, "contree": 1, "surcontree": 2}


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 13


@pytest.mark.parametrize("case", shared_cases(FILE, "deal_score"))
def test_deal_score(case):
    i, e = case["input"], case["expected"]
    r = R()
    cards = [i["raw_card_points_excl_der_and_belote"][t] for t in "AB"]
    cards[TEAM[i["last_trick_team"]]] += int(r["cards.last_trick"])
    belote = [0, 0]
    if i["belote_team"] is not None:
        belote[TEAM[i["belote_team"]]] = int(r["belote.value"])
    res = settle(np.array([cards]), np.zeros((1, 2), dtype=np.int64), np.array([belote]),
                 np.array([TEAM[i["taker_team"]]]), np.array([i["contract"]]), np.array([False]),
                 np.array([COINCHE[i["contre"]]]), np.array([-1]), r, np.array([parse_strain(i["trump"])]))
    assert not res.litige[0]
    got = {"A": int(res.hand_score[0, 0]), "B": int(res.hand_score[0, 1]), "contract_made": bool(res.made[0])}
    assert {k: got[k] for k in e} == e
