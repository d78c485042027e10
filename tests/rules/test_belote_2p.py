"""belote-2p: two-player belote as seed 001 (../shared/seeds/001_27c05ad297f1f058.txt) describes it, in the two
points where it inherited belote-classic's values (found by an audit): the revoke award is due for every failure
to follow suit, and a game ends only when a total goes past the target. fournier-2p, the same seed's detailed
ruleset, already did both. The hand: seat 0 holds A-10-K of clubs, diamonds and spades and leads every trick;
seat 1 holds 7 8 J of clubs, 7 8 J of diamonds, 7 8 of spades and the 7 of hearts (trump), and fails to follow
suit twice: the 7 of diamonds on the ace of clubs and the 7 of spades on the ace of diamonds.
"""

from __future__ import annotations

import pytest

from .harness import deal, game, hand, ruleset, score1

pytestmark = pytest.mark.rules

D = deal("AC TC KC AD TD KD AS TS KS", "7C 8C JC 7D 8D JD 7S 8S 7H")
TRICKS = [("AC", "7D"), ("AD", "7S"), ("AS", "8S"), ("TC", "7C"), ("KC", "8C"), ("TD", "8D"), ("KD", "JD"),
          ("TS", "JC"), ("KS", "7H")]
PLAYS = [p for a, b in TRICKS for p in ((0, a), (1, b))]
HAND = hand(D, plays=PLAYS, strain="H", taker=0, dealer=1)


@pytest.mark.covers("belote-2p:play.revoke_count")
def test_every_revoke_gives_the_opponent_10():
    # card points: seat 0 wins tricks 1-8: 11 + 11 + 11 (the aces over 7D 7S 8S) + 10 (TC, 7C) + 4 (KC, 8C) + 10
    # (TD, 8D) + 6 (KD, JD) + 12 (TS, JC) = 75; seat 1 trumps the last with the 7 of hearts: 4 + 10 = 14.
    # Two revokes: 75 + 2 x 10 = 95 (once per hand: 85).
    r = score1(ruleset("belote-2p"), HAND, n_players=2)
    assert r["hand_score"] == [95, 14]
    assert score1(ruleset("belote-2p", {"play.revoke_count": "first"}), HAND, n_players=2)["hand_score"] == [85, 14]


@pytest.mark.covers("belote-2p:game.target_strict")
def test_a_total_equal_to_the_target_does_not_end_the_game():
    # seed 001: the game ends when a player goes past the score; 95 against a target of 95 goes on, 96 ends it
    # once passed (a target of 94).
    assert game(ruleset("belote-2p", {"game.target": 95}), HAND)["winner"] is None
    assert game(ruleset("belote-2p", {"game.target": 94}), HAND)["winner"] == 0
    assert game(ruleset("belote-2p", {"game.target": 95, "game.target_strict": False}), HAND)["winner"] == 0
