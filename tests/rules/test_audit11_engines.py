"""Rulesets checked against the sources they cite (an eleventh audit): coinche-1000, colver, coinche-cli, openspiel,
openspiel-belote. One fix, in openspiel-belote; the others were found to agree with their sources (what was read is
listed below, and the points the sources leave open are left as the rulesets read them).

* openspiel-belote follows OpenSpiel's python_belote with use_belote_rebelote=True
  (../shared/data/real/openspiel/FORMAT.md §5, engine open_spiel/python/games/belote.py at commit 1ac1260e): once
  the deal is complete the team of the player holding both K and Q of trump gets 20, "It needs no announcement and
  the cards need not be played", and the 20 count in the made test on both sides (D + bD > E + bE strictly). The
  ruleset inherited belote.count = "announced_else_held" from ffb-classic (FFB-B16 §7: an unannounced belote is
  lost), so a record that lists what was said without a belote lost it; now "held".
* colver (FORMAT.md §5-8; colver-core/src/game_loop.rs play_match at commit 49986bb): capot bids, coinche x2 /
  surcoinche x3 on the value alone, 162 or 252 base, belotes to the winner of a coinched hand and to the defence of
  a failed one, 162 after a defence capot, game to 2000 with equal totals to NS: every case of the scores table is
  in the real records, and the existing tests pin the tie. Agrees.
* coinche-cli (FORMAT.md §4; sephizack/coinche-cli coinche/rules.py score_round and legal_cards_to_play, coinche/
  game.py, at commit 8a71a29): no duty to undertrump after a non-trump lead (the whole hand when no trump beats
  the best one), a trump lead must be headed even on the partner's trick, made on raw points + own belote, capot
  250 (+ 250 for a capot bid), failed 160 + bid or 500, the winner's figure alone multiplied, belote never
  multiplied, equal totals play on. Agrees.
* openspiel (FORMAT.md §4-5): forced undertrump, no belote, no litige (81-81 fails), 162 / 252 to the defence.
  Agrees (the game target is not the engine's: each record is one deal).
* coinche-1000 (seed 004, its coinche section and general rules section; ../shared/seeds/004_*.txt): trump duties
  with undertrumping, a trump on the partner's trump must beat it when it can, heading in all-trump even on the
  partner's trick, only following in no-trump; the declaration contest (points, then a carré before a run, the
  longer run, the higher card, then in a suit contract a run in trump: a run in hearts does not break a tie in
  all-trump); made, failed, capot and coinche awards. Agrees; test_coinche_1000.py pins most of it.

Hearts are trump unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from .harness import BEL_T0, BEL_T1, SPLIT_81_81, hand, hand_score
from .seedkit import held_points

pytestmark = pytest.mark.rules

# ------------------------------------------------------------------------------------------------ openspiel-belote

# SPLIT_81_81 (hearts trump): team 0 hearts 62 + 10C JC QC KC 19 = 81; team 1 AC 11 + diamonds and spades 60 + the
# last trick 10 = 81. BEL_T0: seat 0 holds KH QH (team 0's belote); BEL_T1: seat 1 holds them (team 1's).
# The record says what was announced: nothing (announced = []).


@pytest.mark.covers("openspiel-belote:belote.count")
def test_openspiel_belote_needs_no_announcement():
    # OpenSpiel FORMAT.md §5: the holders' 20 need no announcement and count in the made test on both sides.
    # Taker team 0 holds the belote: 81 + 20 = 101 > 81: made, each side its own -> [101, 81]. Before (count
    # "announced_else_held", nothing said: no belote): 81 against 81 is not strictly more, failed (no litige),
    # the defence 162 -> [0, 162].
    h = hand(BEL_T0, **SPLIT_81_81, strain="H", taker=0, announced=[])
    assert hand_score("openspiel-belote", h) == [101, 81]
    assert hand_score("openspiel-belote", h, {"belote.count": "announced_else_held"}) == [0, 162]
    # The defence holds it: 81 against 81 + 20 = 101: failed; the declarers 0, the defence 162 + its 20 = 182.
    # Before: [0, 162].
    h1 = hand(BEL_T1, **SPLIT_81_81, strain="H", taker=0, announced=[])
    assert hand_score("openspiel-belote", h1) == [0, 182]
    assert hand_score("openspiel-belote", h1, {"belote.count": "announced_else_held"}) == [0, 162]
    # A record that does not say what was announced scored the same before and after: [101, 81]
    assert hand_score("openspiel-belote", hand(BEL_T0, **SPLIT_81_81, strain="H", taker=0)) == [101, 81]


# ------------------------------------------------------------------------------------------------ coinche-1000

# Seed 004, coinche section (the contest): the best declaration is the one worth more points, then a carré before a
# run, then the longer run, then the higher card, and, in a suit contract only, a run in trump; still equal: none.
# Seat 0 holds the four queens (100 in a suit contract) and no run; seat 1 a run 7-8-9-10-J of diamonds (a quinte,
# 100); seats 2 and 3 hold nothing (no four of a rank, no three in sequence in one suit, checked by hand).
CARRE_QUINTE = ["QH QC QD QS 7H 9C AS KD", "7D 8D 9D TD JD 8H 7S TS", "9H TH AH 7C TC KC 8S KS",
                "JH KH 8C JC AC AD 9S JS"]
# seat 0 a tierce 9-10-J of hearts, seat 1 a tierce 9-10-J of diamonds, nothing else (test_coinche_1000.TIERCES)
TIERCES = ["9H TH JH 7C 9C JC 7S 9S", "9D TD JD 8C TC QC 8S TS", "7H QH 7D QD KC AC JS KS",
           "8H KH AH 8D KD AD QS AS"]


@pytest.mark.covers("coinche-1000:declarations.contest", "coinche-1000:declarations.trump_breaks_ties")
def test_coinche_1000_contest_carre_before_run_and_no_trump_run_in_all_trump():
    # Clubs trump: 100 against 100, the carré ranks before the run: team 0 scores its 100 alone -> [100, 0].
    assert held_points("coinche-1000", CARRE_QUINTE, "C") == [100, 0]
    # All-trump: the two tierces are equal in points, kind, length and top card (the jack); the run-in-trump step
    # is for a suit contract only, so the hearts run does not win it: no declaration counts -> [0, 0]. In a
    # hearts contract seat 0's run in trump wins: [20, 0].
    assert held_points("coinche-1000", TIERCES, "AT") == [0, 0]
    assert held_points("coinche-1000", TIERCES, "H") == [20, 0]
