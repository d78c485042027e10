"""Rulesets checked against their sources (a seventh audit): pagat-coinche, ffb-coinche-2015, fournier-4p.

* fournier-4p (seed 001, whose 4-player part keeps the 2-player play and awards: fournier-2p): the awards table
  gives the others 10 points when a player fails to follow suit ("servir al palo") though able to. The play rules
  of the same text tell two duties apart: in the trump suit alone a player must both follow ("servir") and beat
  the card ("montar"); and its penalties table charges a play out of turn to the offender's own score
  (penalties.out_of_turn). So a trump that fails to head a trump lead, or a play out of turn, breaks a rule but
  earns the others nothing; only a card of another suit from a seat holding the suit led does
  (play.revoke_on = "follow_suit").
"""

from __future__ import annotations

import pytest

from .harness import STD4, hand, ruleset, score1

pytestmark = pytest.mark.rules

# STD4, hearts trump, dealer 3 (seat 0 leads). Each seat holds two cards of each suit, and each suit is led twice,
# so every play below follows suit; in the two heart tricks heading is due (seed 001: trump led, beat if able).
#   T1 s0 9H, s1 TH, s2 7H, s3 8H -> s0 (9H 14 + TH 10 = 24). s2 holds JH, which beats the nine: 7H is illegal
#      (heading, not following: s2 follows suit with a heart).
#   T2 s0 KH, s1 AH, s2 JH, s3 QH -> s2 (4 + 11 + 20 + 3 = 38)
#   T3 s2 9C, s3 TC, s0 7C, s1 8C -> s3 (10)         T4 s3 AC, s0 JC, s1 QC, s2 KC -> s3 (11 + 2 + 3 + 4 = 20)
#   T5 s3 7D, s0 8D, s1 9D, s2 TD -> s2 (10)         T6 s2 AD, s3 JD, s0 QD, s1 KD -> s2 (20)
#   T7 s2 8S, s3 9S, s0 TS, s1 7S -> s0 (10)         T8 s0 AS, s1 JS, s2 QS, s3 KS -> s0 (20) + 10 last trick
# Team 0 (seats 0, 2): 24 + 38 + 10 + 20 + 10 + 20 + 10 = 132; team 1: 10 + 20 = 30 (162). No belote, no
# declaration (STD4); fournier-4p: each pair scores what it took, [132, 30].
HEAD_FAIL = [(0, "9H"), (1, "TH"), (2, "7H"), (3, "8H"), (0, "KH"), (1, "AH"), (2, "JH"), (3, "QH"),
             (2, "9C"), (3, "TC"), (0, "7C"), (1, "8C"), (3, "AC"), (0, "JC"), (1, "QC"), (2, "KC"),
             (3, "7D"), (0, "8D"), (1, "9D"), (2, "TD"), (2, "AD"), (3, "JD"), (0, "QD"), (1, "KD"),
             (2, "8S"), (3, "9S"), (0, "TS"), (1, "7S"), (0, "AS"), (1, "JS"), (2, "QS"), (3, "KS")]
# The same, and seat 1 (team 1) twice fails to follow suit: T3 7S on the clubs (it holds 8C, QC), T7 8C on the
# spades (it holds JS). The same cards go to the same tricks' winners: still [132, 30] in card points.
REVOKES = list(HEAD_FAIL)
REVOKES[11] = (1, "7S")
REVOKES[27] = (1, "8C")


def hs(plays, overrides=None):
    row = score1(ruleset("fournier-4p", overrides), hand(STD4, plays=plays, strain="H", taker=0, dealer=3))
    assert row["status"] == "scored" and row["card_points"] == [132, 30], row["reason"]
    return row["hand_score"]


@pytest.mark.covers("play.revoke_on", "fournier-2p:play.revoke_on")
def test_fournier_4p_revoke_award_is_for_not_following_suit_only():
    # Seed 001, awards table: a player not following suit ("servir al palo") though able to: the others receive
    # 10 points; play rules: in trump a player must both follow ("servir") and beat ("montar"), two duties.
    # Seat 2's 7H in T1 follows suit and fails only to head: no award -> [132, 30].
    # Before (every illegal play earned it, play.revoke_on = "any"): team 1 scored 10 for it, [132, 40].
    assert hs(HEAD_FAIL) == [132, 30]
    assert hs(HEAD_FAIL, {"play.revoke_on": "any"}) == [132, 40]
    # Two failures to follow suit by seat 1: the others (team 0) receive 10 for each (revoke_count "each"):
    # 132 + 20 = 152; seat 2's failure to head still earns team 1 nothing: [152, 30]. Before: [152, 40].
    assert hs(REVOKES) == [152, 30]
    assert hs(REVOKES, {"play.revoke_on": "any"}) == [152, 40]
    # Once a hand (revoke_count "first"): the first failure to follow suit (seat 1, T3) gives team 0 10:
    # [142, 30]; counting any illegal play, the first is seat 2's in T1: team 1 10, [132, 40].
    assert hs(REVOKES, {"play.revoke_count": "first"}) == [142, 30]
    assert hs(REVOKES, {"play.revoke_count": "first", "play.revoke_on": "any"}) == [132, 40]
