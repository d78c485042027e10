"""The double-dummy solver against colver's (issue 22): `colver==0.11.1` (the `[diff]` extra: pip install -e
'.[diff]') ships a double-dummy solver for contrée. Under our `colver` ruleset, ours must give exactly its values:

* `Env.solve_all_suits()`: North-South's card points for each trump suit from the deal (0-252: 252 a capot,
  cards.capot_last_trick), on random deals;
* `Env.solve_scores()`: North-South's card points at the end of the deal after each legal card of the current
  position (the points already taken included), on random mid-play positions reached by random legal cards.

The default run checks 20 deals and 100 positions; `-m slow` the issue's 1,000 deals (all four suits) and 10,000
positions, and prints the CPU seconds of both solvers (docs/bench-results.md). Where the two disagree, an exhaustive
minimax (every legal card, memoized at trick starts; no pruning, no bisection) decides: ours must give its value.
One of the 26,305 card values of the 10,000 positions differs (position 8193, hearts trump: the 10 of hearts,
ours and the exhaustive search 43, colver 44).

colver's encodings (tests/test_differential_colver.py): card id = suit*8 + rank, suits S H D C, ranks
7 8 9 J Q K 10 A; seats N E S W = 0-3, teams NS, EW; trump suit t is our strain 3 - t.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

colver = pytest.importorskip("colver", reason="optional extra: pip install -e '.[diff]' (colver==0.11.1)")

from pipeline.rescore import dd_solver as dd  # noqa: E402
from pipeline.rules import load  # noqa: E402

RANK_MAP = [0, 1, 2, 4, 5, 6, 3, 7]


def ours(cid: int) -> int:
    return (3 - cid // 8) * 8 + RANK_MAP[cid % 8]


def deals(n: int, first: int = 0) -> tuple[int, float, float]:
    """Check n random deals, all four suits; returns (disagreements, our CPU s, colver's CPU s)."""
    spec, tt = dd.Spec(load("colver")), dd.new_table()
    bad, mine_s, theirs_s = 0, 0.0, 0.0
    for seed in range(first, first + n):
        env = colver.Env.deal(dealer=seed % 4, seed=seed)
        hands = [sum(1 << ours(c) for c in h) for h in env.get_initial_hands()]
        t0 = time.process_time()
        theirs = [s[0] for s in env.solve_all_suits()["suits"]]
        t1 = time.process_time()
        mine = [dd.solve(spec, hands, 3 - t, (seed % 4 + 1) % 4, tt=tt) for t in range(4)]
        t2 = time.process_time()
        theirs_s, mine_s = theirs_s + t1 - t0, mine_s + t2 - t1
        bad += mine != theirs
    return bad, mine_s, theirs_s


def exhaustive(hands: list[int], strain: int, leader: int, trick: list[int], took: int) -> dict[int, int]:
    """North-South's card points from a position after each legal card, by trying every legal card at every turn
    (memoized at trick starts): an independent check of both solvers' pruning."""
    import functools

    from pipeline.rescore.play import PlayRules, flags, legal_one
    from pipeline.rescore.tables import ABOVE_TRUMP, build
    from pipeline.trick_order import STRENGTH

    rules = load("colver")
    pts = build(rules).points[strain]
    fl, above = np.int64(flags(PlayRules.of(rules))), ABOVE_TRUMP.astype(np.int64)
    last, capot_last = rules["cards.last_trick"], rules["cards.capot_last_trick"]

    def st(c, led):
        return int(STRENGTH[strain * 128 + led * 32 + c])

    def legal(hands, leader, trick):
        seat = (leader + len(trick)) % 4
        if not trick:
            return seat, hands[seat]
        w = max(range(len(trick)), key=lambda j: st(trick[j], trick[0] // 8))
        return seat, int(legal_one(np.int64(hands[seat]), False, np.int64(trick[0] // 8), np.int64(strain),
                                   np.int64(trick[w]), (leader + w) % 2 == seat % 2, fl, above)[0])

    @functools.lru_cache(maxsize=None)
    def start(hands, leader, took):
        return play(hands, leader, (), took) if any(hands) else 0

    def after(hands, leader, trick, took, seat, c):
        h = list(hands)
        h[seat] &= ~(1 << c)
        h, t = tuple(h), trick + (c,)
        if len(t) < 4:
            return play(h, leader, t, took)
        winner = (leader + max(range(4), key=lambda j: st(t[j], t[0] // 8))) % 4
        now = took | 1 << (winner % 2)
        gain = int(sum(pts[x] for x in t)) + ((capot_last if now == 1 << (winner % 2) else last) if not any(h) else 0)
        return (gain if winner % 2 == 0 else 0) + start(h, winner, now)

    def play(hands, leader, trick, took):
        seat, ok = legal(hands, leader, trick)
        vals = [after(hands, leader, trick, took, seat, c) for c in range(32) if ok >> c & 1]
        return max(vals) if seat % 2 == 0 else min(vals)

    hands, trick = tuple(hands), tuple(trick)
    seat, ok = legal(hands, leader, trick)
    return {c: after(hands, leader, trick, took, seat, c) for c in range(32) if ok >> c & 1}


def positions(n: int, first: int = 0, differing: list | None = None) -> tuple[int, int, float, float]:
    """Check n random mid-play positions (every legal card's value); returns (disagreeing positions, cards
    checked, our CPU s, colver's CPU s). ``differing`` collects each disagreement: (position, ours, colver's,
    the exhaustive search's values, all North-South's final card points)."""
    spec, tt = dd.Spec(load("colver")), dd.new_table()
    rng = np.random.default_rng(first)
    bad = cards = 0
    mine_s = theirs_s = 0.0
    for i in range(first, first + n):
        env = colver.Env.deal(dealer=i % 4, seed=100_000 + i)
        env.set_contract(i % 4, 80, i % 2, 0)
        env.set_phase_playing()
        for _ in range(int(rng.integers(1, 28))):
            env.step(int(rng.choice(env.legal_actions())))
        hands = [sum(1 << ours(c) for c in h) for h in env.get_hands()]
        lead, cur = env.get_trick_lead(), env.get_current_trick()
        trick = []
        for j in range(4):
            if cur[(lead + j) % 4] < 0:
                break
            trick.append(ours(cur[(lead + j) % 4]))
        won = env.get_tricks_won()
        took = (1 if won[0] else 0) | (2 if won[1] else 0)
        t0 = time.process_time()
        theirs = {ours(c): v for c, v in env.solve_scores()["scores"]}
        t1 = time.process_time()
        dd.clear(tt)
        mine = dd.card_values(spec, hands, 3 - (i % 4), lead, trick, took=took, tt=tt)
        t2 = time.process_time()
        theirs_s, mine_s = theirs_s + t1 - t0, mine_s + t2 - t1
        so_far = env.get_points()[0]
        got = {c: so_far + v for c, v in mine.items()}
        if got != theirs:
            bad += 1
            if differing is not None:
                full = exhaustive(hands, 3 - (i % 4), lead, trick, took)
                differing.append((i, got, theirs, {c: so_far + v for c, v in full.items()}))
        cards += len(theirs)
    return bad, cards, mine_s, theirs_s


def test_agrees_with_colver_on_deals_and_positions():
    assert deals(20)[0] == 0
    bad, cards, *_ = positions(100)
    assert bad == 0 and cards >= 100


@pytest.mark.slow
def test_agrees_with_colver_on_1000_deals_and_10000_positions():
    bad, mine_s, theirs_s = deals(1000)
    print(f"\n1000 deals x 4 suits: {bad} disagreements; CPU ours {mine_s:.1f} s, colver {theirs_s:.1f} s "
          f"(ratio {mine_s / theirs_s:.2f})")
    assert bad == 0
    differing: list = []
    bad, cards, mine_s, theirs_s = positions(10_000, differing=differing)
    print(f"10000 positions ({cards} cards): {bad} disagreements; CPU ours {mine_s:.1f} s, colver {theirs_s:.1f} s")
    for i, got, theirs, full in differing:
        print(f"  position {i}: ours {got}, colver {theirs}, exhaustive {full}")
        assert got == full, i             # where colver differs, the exhaustive search sides with ours
    assert bad <= 1
