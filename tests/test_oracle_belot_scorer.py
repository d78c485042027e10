"""stoyanov624/Belot_Scorer golden deals (../shared/oracles/cases/belot_scorer_golden.json, 19 cases): Bulgarian
belot at score-sheet level, every number in tens, under `belot-scorer` (the «Висяща» switch off: a tie counts as
made) or `belot-scorer-hang` (switch on: a tie hangs), as each case's ``hang_on_tie`` says.

A case gives team A's rounded card points (last ten included) or the capot team; B has the rest of the deal's
16 (colour) / 26 (all-trumps) / 13 (no-trumps) tens. They enter the engine as card points (tens x 10), scaled and given
the capot bonus by the ruleset as score_batch does, with the declarations settled by
:func:`pipeline.rescore.declarations.from_announced`; :func:`pipeline.rescore.contract.settle` scores the deal and
:func:`pipeline.rescore.game.game_pass` carries the hanging points (a prior hanging deal holds ``hanging_in``).
Seats 0+2 = team A = our team 0."""

import numpy as np
import pyarrow as pa
import pytest

from conftest import shared_cases, shared_path
from pipeline import rules
from pipeline.storage import schema
from pipeline.cards import ALL_TRUMP, NO_TRUMP, RANKS
from pipeline.rescore.contract import settle
from pipeline.rescore.declarations import from_announced
from pipeline.rescore.game import game_pass

FILE = "oracles/cases/belot_scorer_golden.json"
STRAIN = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3, "nt": NO_TRUMP, "at": ALL_TRUMP}
MAX_TENS = {NO_TRUMP: 13, ALL_TRUMP: 26}        # colours: 16
KIND = {"terca": ("tierce", 3), "kvarta": ("quarte", 4), "kvinta": ("quinte", 5), "kare": ("carre", 4),
        "belot": ("belote", 2)}
TEAM = {"A": 0, "B": 1}
XFAIL: dict[str, str] = {}


def _cases():
    out = []
    for p in shared_cases(FILE, "board_score"):
        xfail = [pytest.mark.xfail(strict=True, reason=XFAIL[p.id])] if p.id in XFAIL else []
        out.append(pytest.param(*p.values, id=p.id, marks=[*p.marks, *xfail]))
    return out


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 19


def _card_points(i, strain, R):
    """Team card points as score_batch hands them to settle: tens x 10 (a capot's last trick counting
    cards.capot_last_trick instead of cards.last_trick), the no-trump scale, then the capot bonus."""
    top = MAX_TENS.get(strain, 16) * 10
    capot = -1 if i["capot_team"] is None else TEAM[i["capot_team"]]
    if capot >= 0:
        top += int(R["cards.capot_last_trick"]) - int(R["cards.last_trick"])
        cp = np.array([top, 0] if capot == 0 else [0, top], dtype=np.int64)
    else:
        a = i["card_points_A_in_tens"] * 10
        cp = np.array([a, top - a], dtype=np.int64)
    if strain == NO_TRUMP:
        num, den = R["cards.no_trump_scale"]
        cp = (cp * num * 2 + den) // (2 * den)
    if capot >= 0:
        cp[capot] += int(R["cards.capot_bonus"])
    return cp, capot


def _declarations(i, strain, R):
    entries = []
    for d in i["declarations"]:
        kind, length = KIND[d["key"]]
        top = d["rank"] if kind == "carre" else d["top"]
        rank = None if top is None else RANKS.index(top.replace("10", "T"))
        entries.append({"seat": d["seat"], "kind": kind, "rank": rank, "suit": None, "length": length})
    dec = from_announced(pa.array([entries], type=schema.schema("hands").field("announced").type),
                         np.array([strain], dtype=np.int8), R)
    return dec.team_points[0], dec.belote[0]


def _scores_rows(rows):
    return pa.table({
        "game_id": pa.array(["g"] * len(rows)), "hand_no": pa.array([k + 1 for k in range(len(rows))], type=pa.int32()),
        "source": pa.array(["oracle"] * len(rows)), "status": pa.array(["scored"] * len(rows)),
        "hand_score": pa.array([r[0] for r in rows], type=pa.list_(pa.int32())),
        "held_points": pa.array([r[1] for r in rows], type=pa.int32()),
        "litige": pa.array([r[2] for r in rows]), "taker_team": pa.array([r[3] for r in rows], type=pa.int8()),
        "contract_made": pa.array([r[4] for r in rows], type=pa.bool_())})


@pytest.mark.parametrize("case", _cases())
def test_board_score(case):
    i, e = case["input"], case["expected"]
    R = rules.load("belot-scorer-hang" if i["hang_on_tie"] else "belot-scorer")
    strain = STRAIN[i["contract"]]
    cp, capot = _card_points(i, strain, R)
    decl, belote = _declarations(i, strain, R)
    taker = i["caller_seat"] % 2
    res = settle(cp[None, :], decl[None, :], belote[None, :], np.array([taker]), np.array([0]), np.array([False]),
                 np.array([0]), np.array([capot]), R, np.array([strain]))
    litige, made = bool(res.litige[0]), bool(res.made[0])
    deal = (res.hand_score[0].tolist(), int(res.held[0]), litige, taker, None if litige else made)
    prior = [([0, 0], i["hanging_in"], True, taker, None)] if i["hanging_in"] else []
    (g,) = game_pass(_scores_rows(prior + [deal]), R).to_pylist()
    board = g["totals"]
    received = [board[t] - deal[0][t] for t in (0, 1)]
    got = {"A": board[0], "B": board[1],
           "verdict": "hang" if litige else "ok" if made else "inside",
           "hang_to": "A" if received[0] else "B" if received[1] else None,
           "next_hang": g["unresolved_held"]}
    assert got == e
