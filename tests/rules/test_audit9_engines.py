"""Rulesets checked against the sources they cite (a ninth audit): mundijuegos-classic, mundijuegos-classic-no-
announcements, mundijuegos-coinche, mundijuegos-2p, mundijuegos-3p, belote-3p. No value was found to disagree
with its source; these tests pin, on hands worked out by hand, the rules the audit checked that no earlier rule
test scores end to end.

* Seed 000 (../shared/seeds/000, sections 'Capote' and the end of a hand; seed 003 the same in Tagalog): a team
  taking every trick scores 90 more plus the last trick's 10; a failed taker adds only its extra points; a tied
  taker's points wait for the team that wins the next hand.
* Seed 000, Coinché section: contra x2 on the winning side's points (mundijuegos-coinche reads it as FFB-Co15
  §10.1, double.scope "whole", base 250 after a capot); the unbid capot 250 + bid is PAGAT-C's (rules.md R27, R31).
* mundijuegos-2p: seed 000's 162 is the four-player deal's total; with 16 of the 32 cards in play the defence of
  a failed take scores the points played (contract.fail_takes_played).
* belote-3p, ADPOKER3 (rules.md §0, http://www.adpoker.fr/belotte-a-trois.html): « La capote est ici de cent
  points, dont cinquante pour chacun s'il n'y a qu'un capot »; no last-trick 10 on a capote (rules_examples E1).

Hearts are trump in every hand; team 0 = seats 0 and 2 with four players.
"""

from __future__ import annotations

import pytest

from .harness import (BEL_T0, CAPOT_0, CAPOT_1, SPLIT_81_81, SPLIT_102_60, STD4, deal, game, hand, ruleset, score1,
                      suit)

pytestmark = pytest.mark.rules


@pytest.mark.covers("mundijuegos-classic:contract.fail_base_defence_capot", "mundijuegos-classic:belote.on_failure")
def test_mundijuegos_defence_capot_after_a_take():
    # Seed 000 'Capote': the team winning every trick scores 90 more plus 10 for the last trick: 152 + 100 = 252.
    # Team 0 takes (seat 0 holds KH QH) and team 1 wins every trick: 0 < 252, failed. The failed taker adds only
    # its extras: its belote 20; the defence its capot 252 -> [20, 252]. The literal 162 of a failure
    # (fail_base_defence_capot = 162): [20, 162].
    h = hand(BEL_T0, **CAPOT_1, taker=0)
    assert score1(ruleset("mundijuegos-classic"), h)["hand_score"] == [20, 252]
    literal = ruleset("mundijuegos-classic", {"contract.fail_base_defence_capot": 162})
    assert score1(literal, h)["hand_score"] == [20, 162]


@pytest.mark.covers("mundijuegos-classic:game.litige_to", "mundijuegos-classic:contract.tie")
def test_mundijuegos_consecutive_litiges_go_to_the_next_hand_winner():
    # Seed 000, end of a hand: on equal totals the taker scores nothing now, its points going to the team that
    # wins the next hand. Hand 1: team 0 takes, 81 = 81: team 1 scores 81, team 0's 81 held. Hand 2: team 1
    # takes, 81 = 81: team 0 scores 81, team 1's 81 held too (162). Hand 3: team 1 takes, 60 < 102, failed:
    # team 0 scores 162 and wins the hand, taking the 162 held: team 0 81 + 162 + 162 = 405, team 1 81.
    hands = (hand(STD4, **SPLIT_81_81, taker=0), hand(STD4, **SPLIT_81_81, taker=1),
             hand(STD4, **SPLIT_102_60, taker=1))
    row = game(ruleset("mundijuegos-classic"), *hands)
    assert (row["totals"], row["unresolved_held"]) == ([405, 81], 0)
    # FFB-B16's reading (the team that makes the next contract): hand 3 is a failure, the 162 stay held:
    # team 0 81 + 162 = 243
    row = game(ruleset("mundijuegos-classic", {"game.litige_to": "next_made_contract"}), *hands)
    assert (row["totals"], row["unresolved_held"]) == ([243, 81], 162)


@pytest.mark.covers("mundijuegos-coinche:double.base_capot", "mundijuegos-coinche:double.scope")
def test_mundijuegos_coinche_unbid_capot_under_contra():
    # Team 0 bids 100, is doubled (contra) and wins every trick, seat 0 holding KH QH. Undoubled it would score
    # 250 + 100 (PAGAT-C's unbid capot); the contra multiplies the winning side's points by 2 (seed 000,
    # Coinché), the belote apart: (250 + 100) x 2 + 20 = 720; the defence 0 -> [720, 0].
    # pagat-coinche's bid-only doubling (double.scope = "bid"): 250 + 100 x 2 + 20 = 470.
    h = hand(BEL_T0, **CAPOT_0, taker=0, bid=100, coinche=1)
    assert score1(ruleset("mundijuegos-coinche"), h)["hand_score"] == [720, 0]
    assert score1(ruleset("mundijuegos-coinche", {"double.scope": "bid"}), h)["hand_score"] == [470, 0]


@pytest.mark.covers("mundijuegos-2p:contract.fail_takes_played", "mundijuegos-2p:contract.fail_declarations")
def test_mundijuegos_2p_defence_capot_scores_the_points_played():
    # 2 players, 8 cards each: seat 0 every heart, seat 1 every club. Seat 0 takes and seat 1 wins all 8 tricks:
    # hearts 62 + clubs 30 + 100 on a capot = 192 for seat 1. Declarations: both hold a run of 8 (100), the one
    # in trump wins: seat 0 100; belote KH QH 20 with seat 0. Seat 0: 0 + 100 + 20 = 120 < 192, failed: it keeps
    # its extras (120); seat 1 scores the points played, 192 -> [120, 192]. The four-player award
    # (fail_takes_played = false): 252 -> [120, 252].
    h = hand(deal(suit("H"), suit("C")), won=["", suit("H") + " " + suit("C")], last=1, taker=0, dealer=1)
    assert score1(ruleset("mundijuegos-2p"), h)["hand_score"] == [120, 192]
    assert score1(ruleset("mundijuegos-2p", {"contract.fail_takes_played": False}), h)["hand_score"] == [120, 252]


@pytest.mark.covers("belote-3p:cards.capot_split_each", "belote-3p:contract.solo_fail")
def test_belote_3p_one_capot_player_and_a_failed_taker():
    # 3 players, 9 cards each (5 of the 32 out of play): seat 0 the hearts and 7S, seat 1 the clubs and 8S, seat 2
    # the diamonds and 9S. Seat 0 takes hearts, clubs and spades (62 + 30 + 0), seat 1 the diamonds (30), seat 2
    # nothing: only one player capot, each of the two others scores 50 and nobody the last trick's 10 (ADPOKER3):
    # [142, 80, 0]. Declarations: three runs of 8 (100), the one in trump wins: seat 0 100; belote seat 0 20.
    # Seat 1 takes: 80 < 262, failed: each opponent keeps his own and they share the taker's 80 card points,
    # 40 each: [262 + 40, 0, 0 + 40] = [302, 0, 40].
    h3 = deal(suit("H") + " 7S", suit("C") + " 8S", suit("D") + " 9S")
    h = hand(h3, won=[suit("H") + " " + suit("C") + " 7S 8S 9S", suit("D"), ""], last=0, taker=1, dealer=2)
    row = score1(ruleset("belote-3p"), h)
    assert (row["card_points"], row["hand_score"]) == ([142, 80, 0], [302, 0, 40])
    # without the split (capot_split_each = 0) the last trick's 10 goes to seat 0: cards [102, 30, 0]; failed,
    # the taker's 30 shared: [222 + 15, 0, 15]
    row = score1(ruleset("belote-3p", {"cards.capot_split_each": 0}), h)
    assert (row["card_points"], row["hand_score"]) == ([102, 30, 0], [237, 0, 15])
