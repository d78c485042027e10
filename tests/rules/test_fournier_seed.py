"""fournier-2p's revoke award, penalty table and declaring out (seed 001), on the hands of
tests/test_fournier_events.py (worked out by hand there): P0 102, P1 27 card points; TWO_REVOKES: P0 82, P1 47
with two revokes by P0. Under fournier-2p each player scores what he took (no contract test) and the hands hold
no declaration and no belote (KH, QH out of play)."""

from __future__ import annotations

import pytest
from helpers import game_results, score
from test_fournier_events import PLAYS, TWO_REVOKES, game, hand

from pipeline import rules

from .seedkit import house

pytestmark = pytest.mark.rules


@pytest.mark.covers("fournier-2p:play.revoke_count", "play.revoke_count")
def test_every_revoke_gives_the_other_10(tmp_path):
    # Seed 001: the others receive 10 points for each failure to follow suit: two revokes by P0: P1 47 + 20 = 67; P0 82.
    # Counting the first only: 47 + 10 = 57.
    g = game(hand(TWO_REVOKES))
    assert score("fournier-2p", g)[0]["hand_score"] == [82, 67]
    first = house(tmp_path, "fournier-2p", '[play]\nrevoke_count = "first"')
    assert score(first, g)[0]["hand_score"] == [82, 57]


@pytest.mark.parametrize("kind", rules.PENALTY_KINDS)
@pytest.mark.covers("fournier-2p:penalties.misdeal", "fournier-2p:penalties.exposed_card",
                    "fournier-2p:penalties.bottom_card_not_turned", "fournier-2p:penalties.out_of_turn",
                    "fournier-2p:penalties.wrong_card", "fournier-2p:penalties.heaped_trick",
                    "fournier-2p:penalties.combination_not_shown", "penalties.misdeal", "penalties.exposed_card",
                    "penalties.bottom_card_not_turned", "penalties.out_of_turn", "penalties.wrong_card",
                    "penalties.heaped_trick", "penalties.combination_not_shown")
def test_each_penalty_of_the_table_costs_10(tmp_path, kind):
    # Seed 001, penalties table: 10 off the offender's score for each: P1 charged once -> -10; game totals
    # [102, 27 - 10] = [102, 17]. The same event with the kind at 0: recorded, costs nothing.
    g = game(hand(PLAYS, penalties=[{"seat": 1, "kind": kind}]))
    assert score("fournier-2p", g)[0]["penalty_points"] == [0, -10]
    assert game_results("fournier-2p", g)[0]["totals"] == [102, 17]
    free = house(tmp_path, "fournier-2p", f"[penalties]\n{kind} = 0")
    assert score(free, g)[0]["penalty_points"] == [0, 0]


@pytest.mark.covers("fournier-2p:game.claims", "game.claims")
def test_declaring_out(tmp_path):
    # Hand 1 [102, 27]; hand 2 the same deal, P0 declares out after trick 2 having won T1 (20) and T2 (24):
    # 102 + 44 = 146, past a target of 140: the game ends, P0 wins. To 150: a wrong claim, P1 wins though
    # behind. With claims off the claim is ignored and the game goes on (204 < 1000 ... to 150: totals
    # [204, 54] end it at hand 2 by the target, P0 the winner by points).
    g = game(hand(PLAYS), hand(PLAYS, hand_no=2, claim={"seat": 0, "trick": 2}))
    t140 = house(tmp_path, "fournier-2p", "[game]\ntarget = 140")
    (gr,) = game_results(t140, g)
    assert (gr["winner"], gr["ended_at_hand"], gr["end_reason"]) == (0, 2, "claim")
    t150 = house(tmp_path, "fournier-2p", "[game]\ntarget = 150")
    (gr,) = game_results(t150, g)
    assert (gr["winner"], gr["ended_at_hand"], gr["end_reason"]) == (1, 2, "wrong_claim")
    off = house(tmp_path, "fournier-2p", "[game]\ntarget = 150\nclaims = false")
    (gr,) = game_results(off, g)
    assert (gr["winner"], gr["totals"]) == (0, [204, 54])
