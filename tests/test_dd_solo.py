"""The 3-player double-dummy made test (pipeline/rescore/dd_solo.py) against an exhaustive search written here.

The oracle shares nothing with the module but the legal cards (pipeline.rescore.play.legal_cards_py, the one
implementation of the play rules): it plays every legal card at every turn, scores each finished hand in plain
Python from the ruleset's parameters (card points, last trick or capot's last trick, the 3-player capot split,
the made test comparing the taker with each opponent or with both), and takes the best outcome for the taker
against the worst the two others can do together. Random endings of 2-4 tricks under every shipped 3-player
ruleset (and a "combined" variant), with random declarations and belote.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from pipeline.cards import parse_card
from pipeline.rescore import dd_solo
from pipeline.rescore.play import PlayRules, flags, legal_one
from pipeline.rescore.tables import ABOVE_TRUMP, build
from pipeline.rules import load
from pipeline.trick_order import STRENGTH

RULESETS = ["belote-3p", "mundijuegos-3p"]


def _legal(rules, hand: int, trick: list[int], strain: int) -> list[int]:
    if not trick:
        return [c for c in range(32) if hand >> c & 1]
    row = strain * 128 + (trick[0] // 8) * 32
    w = max(range(len(trick)), key=lambda j: int(STRENGTH[row + trick[j]]))
    legal, _ = legal_one(np.int64(hand), False, np.int64(trick[0] // 8), np.int64(strain), np.int64(trick[w]), False,
                         np.int64(flags(PlayRules.of(rules))), ABOVE_TRUMP.astype(np.int64))
    return [c for c in range(32) if int(legal) >> c & 1]


def _made_rank(rules, C: list[int], D, B, taker: int) -> int:
    """2 made, 1 litige, 0 failed: the made test of rulesets/base.toml's contract.* for three players."""
    tot = [C[p] + (B[p] if rules["contract.made_counts_belote"] else 0)
           + (D[p] if rules["contract.made_counts_declarations"] else 0) for p in range(3)]
    pT = tot[taker]
    others = [tot[p] for p in range(3) if p != taker]
    pO = sum(others) if rules["contract.solo_made"] == "combined" else max(others)
    ok = pT >= rules["contract.made_min_points"] if rules["contract.made_min_points"] else True
    vs, tie_rule = rules["contract.made_vs_defence"], rules["contract.tie"]
    tie = False
    if vs == "gt":
        tie = ok and pT == pO
        ok = ok and pT > pO
    elif vs == "ge":
        ok = ok and pT >= pO
    if tie_rule == "made":
        ok, tie = ok or tie, False
    elif tie_rule == "failed":
        tie = False
    return 1 if tie else (2 if ok else 0)


def _final(rules, acc: list[int], took: set[int], last: int, strain: int) -> list[int]:
    C = list(acc)
    capot = next(iter(took)) if len(took) == 1 else None
    bonus = rules["cards.capot_last_trick"] if capot is not None else rules["cards.last_trick"]
    if rules["cards.capot_split_each"] and len(took) == 2:
        bonus = 0
        for p in took:
            C[p] += rules["cards.capot_split_each"]
    C[last] += bonus
    if capot is not None:
        C[capot] += rules["cards.capot_bonus"]
    return C


def exhaustive(rules, hands: list[int], strain: int, taker: int, leader: int, D, B) -> int:
    """The best made-test rank the taker can force (every legal card at every turn, no pruning)."""
    pts = build(rules).points[strain]

    def play(hands, leader, trick, acc, took):
        if not trick and not any(hands):
            return _made_rank(rules, _final(rules, acc, took, leader, strain), D, B, taker)
        seat = (leader + len(trick)) % 3
        vals = []
        for c in _legal(rules, hands[seat], trick, strain):
            h = list(hands)
            h[seat] &= ~(1 << c)
            t = trick + [c]
            if len(t) < 3:
                vals.append(play(h, leader, t, acc, took))
                continue
            row = strain * 128 + (t[0] // 8) * 32
            w = (leader + max(range(3), key=lambda j: int(STRENGTH[row + t[j]]))) % 3
            a = list(acc)
            a[w] += int(sum(pts[x] for x in t))
            vals.append(play(h, w, [], a, took | {w}))
        return max(vals) if seat == taker else min(vals)

    return play(list(hands), leader, [], [0, 0, 0], set())


def _deal(rng: random.Random, tricks: int) -> list[int]:
    cards = rng.sample(range(32), 3 * tricks)
    return [sum(1 << c for c in cards[p * tricks:(p + 1) * tricks]) for p in range(3)]


NAMES = {0: "failed", 1: "litige", 2: "made"}


def _combined(tmp_path) -> "object":
    """belote-3p with contract.solo_made = "combined" (the two others' totals added)."""
    f = tmp_path / "belote-3p-combined.toml"
    f.write_text('name = "belote-3p-combined"\nextends = "belote-3p"\n[contract]\nsolo_made = "combined"\n')
    return load(str(f))


@pytest.mark.parametrize("name", RULESETS + ["combined"])
def test_random_endings_agree_with_the_exhaustive_search(name, tmp_path):
    rules = _combined(tmp_path) if name == "combined" else load(name)
    spec, tt = dd_solo.SoloSpec(rules), dd_solo.new_table()
    rng = random.Random(f"dd-solo-{name}")
    seen = set()
    for _ in range(60):
        tricks = rng.choice([2, 3, 3, 4])
        hands = _deal(rng, tricks)
        strain, taker, leader = rng.randrange(4), rng.randrange(3), rng.randrange(3)
        D = [rng.choice([0, 0, 20, 50]) for _ in range(3)]
        B = [0, 0, 0]
        B[rng.randrange(3)] = rng.choice([0, 20])
        want = NAMES[exhaustive(rules, hands, strain, taker, leader, D, B)]
        got = dd_solo.outcome(spec, hands, strain, taker, leader, D, B, tt=tt)
        assert got == want, (name, hands, strain, taker, leader, D, B)
        seen.add(want)
    assert seen >= {"made", "failed"}        # the endings are not all one answer


def test_each_opponent_or_both_together(tmp_path):
    """A hand-checked ending under belote-3p (hearts trump, card points as everywhere: J 20 9 14 in trumps, A 11,
    T 10, K 4, Q 3, plain J 2; last trick 10; capot_split_each 50 when exactly one player takes no trick).

    Seat 0 (taker, leads) holds AS 7S; seat 1 holds TS 7C; seat 2 holds KS 8C. Spades are led; nobody holds a
    heart. Trick 1: 0 leads AS; 1 must follow TS; 2 must follow KS: 0 takes 11 + 10 + 4 = 25. Or 0 leads 7S:
    1 plays TS (wins, 10), 2 plays KS (4): 1 takes 14 + 0 = 14.
    * 0 leads AS (25). Trick 2: 0 leads 7S, 1 has 7C (void in spades: any card, no trump), 2 has 8C: 0 takes
      the trick and the capot: 25 + 0 and capot's last trick 100 -> 125 against 0 and 0: made.
    So the taker makes it whatever the others play. Under contract.solo_made = "combined" the same line gives
    125 against 0: made too. The two readings part on declarations: give seat 1 a declaration of 100 (a carré
    of jacks, say, as the contest left it) and seat 2 one of 50. Each: 125 against max(100, 50) = 100: made.
    Combined: 125 against 150: failed, and no other line does better for the taker (a capot is his best).
    """
    hands = [sum(1 << parse_card(c) for c in h) for h in (["AS", "7S"], ["TS", "7C"], ["KS", "8C"])]
    hearts = 2
    D = [0, 100, 50]
    each = load("belote-3p")
    combined = _combined(tmp_path)
    assert dd_solo.outcome(dd_solo.SoloSpec(each), hands, hearts, 0, 0, D, [0, 0, 0]) == "made"
    assert dd_solo.outcome(dd_solo.SoloSpec(combined), hands, hearts, 0, 0, D, [0, 0, 0]) == "failed"
    # the defenders' points not piled: seat 2's declaration moved to seat 1 (150 against 125): failed either way
    assert dd_solo.outcome(dd_solo.SoloSpec(each), hands, hearts, 0, 0, [0, 150, 0], [0, 0, 0]) == "failed"
