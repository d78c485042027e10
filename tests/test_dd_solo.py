"""The 3-player double-dummy made test (pipeline/rescore/dd_solo.py) against an exhaustive search written here.

The oracle shares nothing with the module but the legal cards (pipeline.rescore.play.legal_cards_py, the one
implementation of the play rules): it plays every legal card at every turn, scores each finished hand in plain
Python from the ruleset's parameters (card points, last trick or capot's last trick, the 3-player capot split,
a capot by tricks or by points, the strain's scaling with the last trick's bonus or before it, the capot bonus,
the declarations of a player who took no trick lost or given to the capot player, the made test comparing the
taker with each opponent or with both), and takes the best outcome for the taker against the worst the two
others can do together. Random endings of 2-4 tricks under every shipped 3-player ruleset and house variants
(the others' totals combined; a capot bonus, scaled no-trump and all-trump, declarations given to the capot
player, ties a litige; a capot by points, the last trick's bonus after the scaling), with random declarations
and belote.
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


def _final(rules, acc: list[int], took: set[int], last: int, strain: int, D) -> tuple[list[int], list[int]]:
    """Each player's card points and declaration points at the end of a line (rulesets/base.toml's cards.* and
    declarations.on_capot: a player who took no trick loses his, or gives them to a player who took every trick)."""
    C = list(acc)
    # cards.capot_by "points": a player whose tricks hold no point, the last one not among them, took none
    scoring = {p for p in took if acc[p] > 0 or p == last} if rules["cards.capot_by"] == "points" else took
    capot = next(iter(scoring)) if len(scoring) == 1 else None
    bonus = rules["cards.capot_last_trick"] if capot is not None else rules["cards.last_trick"]
    if rules["cards.capot_split_each"] and len(scoring) == 2:
        bonus = 0
        for p in scoring:
            C[p] += rules["cards.capot_split_each"]
    if rules["cards.scale_last_trick"]:
        C[last] += bonus
    scale = {4: "cards.no_trump_scale", 5: "cards.all_trump_scale"}.get(strain)
    if scale:
        a, b = rules[scale]
        C = [(x * a * 2 + b) // (2 * b) for x in C]
    if not rules["cards.scale_last_trick"]:       # the last trick's bonus added after the scaling
        C[last] += bonus
    if capot is not None:
        C[capot] += rules["cards.capot_bonus"]
    D = list(D)
    if rules["declarations.on_capot"] != "keep":
        given = sum(D[p] for p in range(3) if p not in took)
        D = [D[p] if p in took else 0 for p in range(3)]
        if rules["declarations.on_capot"] == "to_capot_team" and capot is not None:
            D[capot] += given
    return C, D


def exhaustive(rules, hands: list[int], strain: int, taker: int, leader: int, D, B) -> int:
    """The best made-test rank the taker can force (every legal card at every turn, no pruning)."""
    pts = build(rules).points[strain]

    def play(hands, leader, trick, acc, took):
        if not trick and not any(hands):
            return _made_rank(rules, *_final(rules, acc, took, leader, strain, D), B, taker)
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


def _house(tmp_path, name: str, body: str) -> "object":
    """belote-3p with the parameters of ``body`` (TOML sections) changed."""
    f = tmp_path / f"{name}.toml"
    f.write_text(f'name = "{name}"\nextends = "belote-3p"\n{body}')
    return load(str(f))


def _combined(tmp_path) -> "object":
    """belote-3p with contract.solo_made = "combined" (the two others' totals added)."""
    return _house(tmp_path, "belote-3p-combined", '[contract]\nsolo_made = "combined"\n')


VARIANTS = {
    # a capot bonus, scaled no-trump and all-trump, declarations kept whoever takes no trick (so that big ones
    # can outweigh a capot)
    "bonus": '[cards]\ncapot_bonus = 90\nno_trump_scale = [2, 1]\nall_trump_scale = [3, 2]\ncapot_split_each = 0\n'
             '[declarations]\non_capot = "keep"\n',
    # declarations given to the player who takes every trick, an equal total a litige
    "to_capot": '[declarations]\non_capot = "to_capot_team"\n[contract]\ntie = "litige"\n',
    # a capot by points (a player taking only tricks worth nothing, not the last, took none: the split goes to
    # the two others), the last trick's bonus added after the no-trump / all-trump scaling, the others' totals
    # combined (so that the split's 50 can decide)
    "points": '[cards]\ncapot_by = "points"\nscale_last_trick = false\nno_trump_scale = [152, 120]\n'
              'all_trump_scale = [152, 248]\n[contract]\nsolo_made = "combined"\n',
}


@pytest.mark.parametrize("name", RULESETS + ["combined", *VARIANTS])
def test_random_endings_agree_with_the_exhaustive_search(name, tmp_path):
    rules = (_combined(tmp_path) if name == "combined" else _house(tmp_path, f"belote-3p-{name}", VARIANTS[name])
             if name in VARIANTS else load(name))
    spec, tt = dd_solo.SoloSpec(rules), dd_solo.new_table()
    rng = random.Random(f"dd-solo-{name}")
    seen = set()
    # the scaling changes an outcome only now and then (about 1 ending in 60): more endings, shorter, for "bonus"
    for _ in range(400 if name == "bonus" else 80):
        tricks = rng.choice([2, 3] if name == "bonus" else [2, 3, 3, 4])
        hands = _deal(rng, tricks)
        strain = rng.choice([0, 4, 5] if name == "bonus" else [0, 1, 2, 3, 4, 5] if name == "points" else [0, 1, 2, 3])
        taker, leader = rng.randrange(3), rng.randrange(3)
        D = [rng.choice([0, 0, 20, 50] + ([100, 150, 200] if name == "bonus" else [])) for _ in range(3)]
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
    of jacks, say, as the contest left it) and seat 2 one of 50, kept though they take no trick
    (declarations.on_capot = "keep"; belote-3p's "lost" would take them away). Each: 125 against
    max(100, 50) = 100: made. Combined: 125 against 150: failed, and no other line does better for the taker
    (a capot is his best).
    """
    hands = [sum(1 << parse_card(c) for c in h) for h in (["AS", "7S"], ["TS", "7C"], ["KS", "8C"])]
    hearts = 2
    D = [0, 100, 50]
    keep = '[declarations]\non_capot = "keep"\n'
    each = _house(tmp_path, "belote-3p-keep", keep)
    combined = _house(tmp_path, "belote-3p-keep-combined", keep + '[contract]\nsolo_made = "combined"\n')
    assert dd_solo.outcome(dd_solo.SoloSpec(each), hands, hearts, 0, 0, D, [0, 0, 0]) == "made"
    assert dd_solo.outcome(dd_solo.SoloSpec(combined), hands, hearts, 0, 0, D, [0, 0, 0]) == "failed"
    # the defenders' points not piled: seat 2's declaration moved to seat 1 (150 against 125): failed either way
    assert dd_solo.outcome(dd_solo.SoloSpec(each), hands, hearts, 0, 0, [0, 150, 0], [0, 0, 0]) == "failed"


def test_a_player_who_takes_no_trick_loses_his_declarations():
    """Hand-checked under belote-3p (declarations.on_capot = "lost": a player who takes no trick scores no
    declaration), spades trump. Seat 0 (leads) holds TC 8D and a declaration worth 50 after the contest; seat 1
    holds 9D AH; seat 2, the taker, holds 7D QS (his only trump). Card points: T 10, A 11, Q of trumps 3.

    * 0 leads TC: 1 is void in clubs and has no trump (any card); 2 is void and must trump: QS.
      - 1 plays AH: 2 takes 10 + 11 + 3 = 24, leads 7D; 0 plays 8D, 1 9D: 1 takes 0 + 10 (last trick). Seat 0
        took no trick: his 50 are lost. 24 against 10 and 0: made.
      - 1 plays 9D: 2 takes 10 + 0 + 3 = 13, leads 7D; 0 plays 8D, 1 AH (void: any card): 8D wins, 0 takes
        0 + 0 + 11 + 10 = 21 and keeps his 50: 71 against 13: failed.
    * 0 leads 8D: 1 follows 9D, 2 follows 7D: 1 takes it (0), leads AH; 0 plays TC, 2 must trump QS: 2 takes
      11 + 10 + 3 + 10 = 34; seat 0 took nothing and loses his 50: 34 against 0 and 0: made.
    The two others choose the first line with 9D: failed. Counted with the 50 already taken away (as the line
    AH / 8D records it), the taker would make it either way; counted as kept whatever the line, failed too but
    for the wrong reason: the declaration is lost or kept by the line."""
    hands = [sum(1 << parse_card(c) for c in h) for h in (["TC", "8D"], ["9D", "AH"], ["7D", "QS"])]
    spades = 3
    spec = dd_solo.SoloSpec(load("belote-3p"))
    assert dd_solo.outcome(spec, hands, spades, 2, 0, [50, 0, 0], [0, 0, 0]) == "failed"
    assert dd_solo.outcome(spec, hands, spades, 2, 0, [0, 0, 0], [0, 0, 0]) == "made"
    seat = {"TC": 0, "8D": 0, "9D": 1, "AH": 1, "7D": 2, "QS": 2}
    line = ["TC", "AH", "QS", "7D", "8D", "9D"]
    assert dd_solo.played_outcome(spec, spades, 2, [parse_card(c) for c in line], [seat[c] for c in line],
                                  [50, 0, 0], [0, 0, 0]) == "made"



def test_capot_by_points_splits_to_the_two_who_scored(tmp_path):
    """cards.capot_by = "points" with three players (belote-3p: capot_split_each 50 when exactly one player takes
    no trick), the others' totals combined, hearts trump (nobody holds one). Seat 0 (taker, leads) holds AC 7D 8S;
    seat 1 TC 8D AS; seat 2 8C 9D 7S; every card follows suit.
    Trick 1: AC TC 8C, seat 0 takes 21. Trick 2: 7D 8D 9D, seat 2 takes it, worth nothing. Trick 3: seat 2 leads
    7S, 8S, AS: seat 1 takes 11 and the last trick. By points seat 2 took none: the split, 50 each to seats 0 and 1
    and no last trick's 10 (as card_points.card_totals gives it to the players left taking one): 71 against
    61 + 0, made. Seat 2 given the split too (it did take a trick): 71 against 61 + 50, failed."""
    rules = _house(tmp_path, "belote-3p-points", '[cards]\ncapot_by = "points"\n[contract]\nsolo_made = "combined"\n')
    spec = dd_solo.SoloSpec(rules)
    line = ["AC", "TC", "8C", "7D", "8D", "9D", "7S", "8S", "AS"]
    seats = [0, 1, 2, 0, 1, 2, 2, 0, 1]
    hearts = 2
    assert dd_solo.played_outcome(spec, hearts, 0, [parse_card(c) for c in line], seats, [0, 0, 0], [0, 0, 0]) == \
        "made"
    hands = [sum(1 << parse_card(c) for c in h) for h in (["AC", "7D", "8S"], ["TC", "8D", "AS"], ["8C", "9D", "7S"])]
    want = NAMES[exhaustive(rules, hands, hearts, 0, 0, [0, 0, 0], [0, 0, 0])]
    assert dd_solo.outcome(spec, hands, hearts, 0, 0, [0, 0, 0], [0, 0, 0]) == want
