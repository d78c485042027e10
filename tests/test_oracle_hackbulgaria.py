"""HackBulgaria Programming-101 belote declaration examples (../shared/oracles/cases/hackbulgaria_declarations.json,
7 cases) under the `hackbulgaria` ruleset: team against team contests, through
:func:`pipeline.rescore.declarations.from_announced` (points each team scores) and
:func:`pipeline.rescore.declaration_contest.resolve_list` (which declarations score), which must agree.

T1 declares from seat 0, T2 from seat 1. The cases name no contract; they are settled in all-trumps, where every
declaration counts and each suit's belote can be held (hackbulgaria-002 needs both), and trump breaks no tie."""

import functools

import numpy as np
import pyarrow as pa
import pytest

from conftest import shared_cases, shared_path
from pipeline import rules
from pipeline.storage import schema
from pipeline.cards import ALL_TRUMP, RANKS, SUITS
from pipeline.rescore.declaration_contest import resolve_list
from pipeline.rescore.declarations import from_announced

FILE = "oracles/cases/hackbulgaria_declarations.json"
R = functools.partial(rules.load, "hackbulgaria")
SEAT = {"T1": 0, "T2": 1}
LENGTH = {"tierce": 3, "quarte": 4, "quinte": 5, "carre": 4, "belote": 2}
XFAIL: dict[str, str] = {}


def _entry(d):
    """One declaration as an ``announced`` entry: rank index of the top card / carré, suit index when given."""
    top = d["top"]
    rank = RANKS.index(top[0]) if d["kind"] != "belote" else RANKS.index("K")
    suit = SUITS.index(top[-1]) if d["kind"] == "belote" or len(top) == 2 else None
    return {"seat": SEAT[d["team"]], "kind": d["kind"], "rank": rank, "suit": suit, "length": LENGTH[d["kind"]]}


def _value(e, r):
    if e["kind"] == "belote":
        return int(r["belote.value"])
    if e["kind"] == "carre":
        return r.rank_table("declarations.carre")[e["rank"]]
    return int(r[f"declarations.{e['kind']}"])


def _cases():
    out = []
    for p in shared_cases(FILE, "declarations_resolve_points"):
        xfail = [pytest.mark.xfail(strict=True, reason=XFAIL[p.id])] if p.id in XFAIL else []
        out.append(pytest.param(*p.values, id=p.id, marks=[*p.marks, *xfail]))
    return out


def test_case_count():
    shared_path(*FILE.split("/"))
    assert len(shared_cases(FILE)) == 7


@pytest.mark.parametrize("case", _cases())
def test_declarations_resolve_points(case):
    r = R()
    entries = [_entry(d) for d in case["input"]["declarations"]]
    announced = pa.array([entries], type=schema.schema("hands").field("announced").type)
    dec = from_announced(announced, np.array([ALL_TRUMP], dtype=np.int8), r)
    points = (dec.team_points + dec.belote)[0].tolist()
    flags = resolve_list([(e["seat"], e["kind"], e["rank"], e["suit"], e["length"]) for e in entries], ALL_TRUMP, r)
    by_flags = [sum(_value(e, r) for e, f in zip(entries, flags) if f and e["seat"] % 2 == t) for t in (0, 1)]
    assert by_flags == points
    assert {"T1": points[0], "T2": points[1]} == case["expected"]["points"]
