"""Rulesets checked against the sources they cite (a tenth audit): belote-2p, bulgarian-plain, cardman-coinche,
bga-coinche (ffb-classic, ffb-contree-2016 and belot-scorer-hang were checked too, with nothing to fix here).

* belote-2p cites seed 001 (the Fournier rule book, ../shared/seeds/001_*.txt). Its awards table gives the others
  10 points when a player fails to follow suit though able to; its play rules tell following from heading in the
  trump suit, two duties: a trump that follows a trump lead without heading breaks a rule but earns no award
  (play.revoke_on = "follow_suit", as fournier-2p since the seventh audit). Its announcements paragraph: the mano
  names his combinations before the first card, the other only higher ones; its belote paragraph: the holder says
  Belote with the king and Rebelote with the queen, and leaving out either call loses the 20. A record that lists
  what was said is read as it says (declarations.count = belote.count = "announced_else_held", as fournier-2p).
* bulgarian-plain reads seed 002 (../shared/seeds/002_*.txt) literally. Its play paragraph: a player without the
  suit led must play a trump, and only one who cannot do that may play any card; a trump in the trick must be
  beaten if one can; the partner winning, neither is due. So a player who cannot beat an opponent's trump must
  still play a lower one (play.must_undertrump = true). BG-HIT's freedom to discard there is the `bulgarian`
  ruleset's, not the text's.
* cardman (and so cardman-coinche and cardman-points) follows Cardman/projects' belote module in its default
  rules: RulesBelote.underTrumpFoe (getSousCoupeAdv) is false by default, and GameBeloteCommonPlaying.playableCards
  then lets a player who cannot beat an opponent's trump play any card (play.must_undertrump = false; it inherited
  FFB-B16 §5.2's true).

* bga-coinche (../shared/formats/bga.md §8.5, BGA's own code): the dix de der is added after the no-trump and
  all-trump scaling (cards.scale_last_trick = false), and a made doubled contract scores the takers' own total
  (cards, dix de der, belote) plus the bid, times the multiplier, the defence nothing (double.scope = "own" with
  double.belote_multiplied, double.own_defence_keeps = false); a side is capot when it ends with no point, not when
  it takes no trick (cards.capot_by = "points"). The three were documented as "not exact" before.

Hearts are trump unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from .harness import (BEL_T0, BEL_T1, PACK, SPLIT_30_132, SPLIT_102_60, STD4, deal, hand, hand_score, pad, ruleset,
                      rest, score1, suit)

pytestmark = pytest.mark.rules

# ------------------------------------------------------------------------------------------------ belote-2p

# Two players, dealer seat 1 (seat 0 leads). Seat 0: 9H, A-10-K of clubs and diamonds, AS TS; seat 1: JH 7H,
# 7 8 J of clubs, 7 8 of diamonds and spades. Nine tricks, every card follows suit but the 7th (seat 1 is void):
#   T1 s0 9H, s1 7H -> s0 14: seat 1 holds JH, which beats the nine: 7H follows suit but fails to head (illegal,
#      play.overtrump_on_trump_lead)
#   T2 AC 7C -> s0 11   T3 TC 8C -> s0 10   T4 KC JC -> s0 4 + 2 = 6   T5 AD 7D -> s0 11   T6 TD 8D -> s0 10
#   T7 s0 KD, s1 JH (void in diamonds, no duty to trump: legal) -> s1 4 + 20 = 24
#   T8 s1 7S, s0 AS -> s0 11   T9 s0 TS, s1 8S -> s0 10 + 10 last trick
# Seat 0: 14 + 11 + 10 + 6 + 11 + 10 + 11 + 20 = 93; seat 1: 24 (117 = the 18 cards' 107 + 10). No belote (KH QH
# out of play), no declaration (seat 1's four sevens are worth 0). Seat 0 takes and makes it: 93 > 24.
HEAD = deal("9H AC TC KC AD TD KD AS TS", "JH 7H 7C 8C JC 7D 8D 7S 8S")
HEAD_PLAYS = [p for a, b in (("9H", "7H"), ("AC", "7C"), ("TC", "8C"), ("KC", "JC"), ("AD", "7D"), ("TD", "8D"),
                             ("KD", "JH")) for p in ((0, a), (1, b))] + [(1, "7S"), (0, "AS"), (0, "TS"), (1, "8S")]


@pytest.mark.covers("belote-2p:play.revoke_on")
def test_belote_2p_revoke_award_is_for_not_following_suit_only():
    # Seed 001, awards table: the 10 are for not following suit though able to. Seat 1's 7H follows the trump lead
    # without heading: illegal, no award -> [93, 24]. Before (revoke_on "any", inherited): seat 0 received 10 for
    # it, [103, 24].
    h = hand(HEAD, plays=HEAD_PLAYS, strain="H", taker=0, dealer=1)
    row = score1(ruleset("belote-2p"), h, n_players=2)
    assert (row["legal"], row["illegal_rule"], row["card_points"]) == (False, "overtrump_on_trump_lead", [93, 24])
    assert row["hand_score"] == [93, 24]
    assert score1(ruleset("belote-2p", {"play.revoke_on": "any"}), h, n_players=2)["hand_score"] == [103, 24]


# Seat 0 holds KH QH (the belote) and A-10-K of clubs and diamonds and AS; seat 1 holds JH 7H, the tierce 7-8-9 of
# clubs (20), 7 8 of diamonds and spades. Recorded as the tricks taken: seat 1 takes one trick, KH JH (4 + 20 = 24);
# seat 0 the other 16 cards: QH 3 + AC 11 + TC 10 + KC 4 + AD 11 + TD 10 + KD 4 + AS 11 = 64, seat 1's other cards
# 0, + 10 last trick = 74. Seat 0 takes: 74 + belote 20 = 94 > 24 + tierce 20 = 44 (the tierce is the only
# declaration, so seat 1's), made: [94, 44] when both are counted.
BELOTE = deal("KH QH AC TC KC AD TD KD AS", "JH 7H 7C 8C 9C 7D 8D 7S 8S")
BELOTE_WON = ["QH AC TC KC AD TD KD AS 7H 7C 8C 9C 7D 8D 7S 8S", "KH JH"]


@pytest.mark.covers("belote-2p:belote.count", "belote-2p:declarations.count")
@pytest.mark.parametrize("announced, expected, before", [
    # the record does not say what was announced: taken as held, both count
    (None, [94, 44], [94, 44]),
    # the record says nothing was announced: neither the belote nor the tierce scores: [74, 24] (before: [94, 44])
    ([], [74, 24], [94, 44]),
    # only the belote was said: [94, 24] (before: the unsaid tierce counted too, [94, 44])
    ([{"seat": 0, "kind": "belote", "suit": "H"}], [94, 24], [94, 44]),
], ids=["not-recorded", "nothing-said", "belote-said"])
def test_belote_2p_scores_what_was_announced(announced, expected, before):
    # Seed 001: combinations are announced by name before the first card, and the belote is said as its cards
    # are played; omitting either call loses the belote's 20.
    h = hand(BELOTE, won=BELOTE_WON, last=0, strain="H", taker=0, dealer=1, announced=announced)
    assert score1(ruleset("belote-2p"), h, n_players=2)["hand_score"] == expected
    held = {"belote.count": "held", "declarations.count": "held"}
    assert score1(ruleset("belote-2p", held), h, n_players=2)["hand_score"] == before


# ---------------------------------------------------------- undertrumping: bulgarian-plain, cardman and its children

# Dealer seat 3, seat 0 leads the ace of spades; seats 1-3 hold no spade. Seat 1 (an opponent of seat 0) must trump
# and plays 9H; seat 2 (seat 0's partner, who is not winning) holds only 7H and 8H as trumps, neither beats the 9:
# it plays 7D (legal without a duty to undertrump) or 7H; seat 3 overtrumps with JH.
UNDER = deal("7S 8S 9S TS JS QS KS AS", "9H TH 7C 8C 9C TC JC QC", "7H 8H 7D 8D 9D TD JD QD",
             "JH QH KH AH KC AC KD AD")


def first_fault(name, trick, overrides=None, bid=None):
    """(seat, card, rule) of the first illegal play if it is in trick 1 (played as ``trick``, the rest padded),
    else None."""
    row = score1(ruleset(name, overrides), hand(UNDER, plays=pad(UNDER, trick), strain="H", bid=bid))
    assert row["status"] == "scored", row["reason"]
    if row["legal"] or row["illegal_trick"] != 1:
        return None
    return row["illegal_seat"], PACK[row["illegal_card"]], row["illegal_rule"]


@pytest.mark.covers("bulgarian-plain:play.must_undertrump")
def test_bulgarian_plain_void_player_must_still_trump_below():
    # Seed 002: a player without the suit led must play a trump; only one who has none may play anything. Seat 2
    # has 7H and 8H: 7D is illegal, 7H legal. Before (must_undertrump false): 7D was legal.
    assert first_fault("bulgarian-plain", ["AS", "9H", "7D", "JH"]) == (2, "7D", "must_undertrump")
    assert first_fault("bulgarian-plain", ["AS", "9H", "7H", "JH"]) is None
    assert first_fault("bulgarian-plain", ["AS", "9H", "7D", "JH"], {"play.must_undertrump": False}) is None


@pytest.mark.covers("cardman:play.must_undertrump")
def test_cardman_no_duty_to_undertrump():
    # Cardman's default rules (underTrumpFoe false): unable to beat the opponent's 9H, seat 2 may play any card:
    # 7D is legal, and so is 7H. Before (inherited from ffb-classic, FFB-B16 §5.2): 7D broke must_undertrump.
    # (A bid of 100: cardman-coinche scores only contracts with a bid.)
    assert first_fault("cardman-coinche", ["AS", "9H", "7D", "JH"], bid=100) is None
    assert first_fault("cardman-coinche", ["AS", "9H", "7H", "JH"], bid=100) is None
    assert first_fault("cardman-coinche", ["AS", "9H", "7D", "JH"], {"play.must_undertrump": True},
                       bid=100) == (2, "7D", "must_undertrump")
    # the parent cardman (Cardman's classic mode) and cardman-points have the same default rules
    for name in ("cardman", "cardman-points"):
        assert first_fault(name, ["AS", "9H", "7D", "JH"]) is None, name


# ------------------------------------------------------------------------------------------- bga-coinche (bga.md §8.5)
# BGA's stEndHand (../shared/formats/bga.md §8.5, read from drasill/bga-coinche): step 2 scales each side's won cards
# (no-trump x 152/120, PHP round), step 3 then adds the dix de der's 10; step 9, a made contract: B scores
# (bid + B total) x m, D its total undoubled but 0 when doubled (its belote lost too); failed: B keeps its belote,
# D scores (bid + 162 + D's belote) x m.

# no-trump (every suit on the plain scale, 30 a suit, 120 in all): team 0 takes clubs, diamonds and TH = 70, team 1
# the other hearts (20) and the spades (30) = 50; team 0 takes the last trick
NT_70_50 = {"won": [suit("C") + " " + suit("D") + " TH", "7H 8H 9H JH QH KH AH " + suit("S")], "last": 0}


@pytest.mark.covers("cards.scale_last_trick")
def test_bga_scales_the_cards_before_the_dix_de_der():
    # 70 x 152 / 120 = 88.67 -> 89, + 10 = 99; 50 x 152 / 120 = 63.33 -> 63 (99 + 63 = 162). Bid 90, made (99 >= 90):
    # B 90 + 99 = 189, D 63. Scaling after the dix de der (the engine's way before): (70 + 10) x 152 / 120 = 101.33
    # -> 101: B 191.
    h = hand(STD4, **NT_70_50, strain="NT", bid=90)
    assert hand_score("bga-coinche", h) == [189, 63]
    assert hand_score("bga-coinche", h, {"cards.scale_last_trick": True}) == [191, 63]


@pytest.mark.covers("double.own_defence_keeps", "bga-coinche:double.scope")
def test_bga_made_coinche_scores_the_takers_total_and_the_defence_nothing():
    # hearts trump, team 0 takes hearts + clubs (62 + 30) and the last trick (10) = 102 and holds the belote (20):
    # B total 122 >= 90, made, coinched (x2): B (90 + 122) x 2 = 424, D 0. The defence keeping its points (scope
    # own as coincoinche): D 60. The belote outside the product: (90 + 102) x 2 + 20 = 404. Before (scope whole,
    # the deal's 162): (162 + 90 + 20) x 2 = 544.
    h = hand(BEL_T0, **SPLIT_102_60, bid=90, coinche=1)
    assert hand_score("bga-coinche", h) == [424, 0]
    assert hand_score("bga-coinche", h, {"double.own_defence_keeps": True}) == [424, 60]
    assert hand_score("bga-coinche", h, {"double.belote_multiplied": False}) == [404, 0]
    assert hand_score("bga-coinche", h, {"double.scope": "whole"}) == [544, 0]
    # undoubled it is unchanged: B 90 + 122 = 212, D its 60
    assert hand_score("bga-coinche", hand(BEL_T0, **SPLIT_102_60, bid=90)) == [212, 60]


def test_bga_failed_coinche_scores_bid_and_162_with_the_defence_belote():
    # team 0 takes 30 (bid 90), team 1 132 and holds the belote: failed, coinched: D (90 + 162 + 20) x 2 = 544, B 0.
    # The belote outside the product: (90 + 162) x 2 + 20 = 524.
    h = hand(BEL_T1, **SPLIT_30_132, bid=90, coinche=1)
    assert hand_score("bga-coinche", h) == [0, 544]
    assert hand_score("bga-coinche", h, {"double.belote_multiplied": False}) == [0, 524]


@pytest.mark.covers("cards.capot_by")
def test_bga_capot_is_a_side_without_a_point():
    # no-trump: team 1 takes only sevens, eights and nines (0 points each in no-trump), team 0 the rest and the last
    # trick. BGA step 4 tests "0 points" after the dix de der: team 1 has none, so team 0's points become 250 (152
    # scaled + 98 capot bonus, no dix de der on a capot): bid 90 made, 90 + 250 = 340, team 1 0. A capot by tricks
    # (team 1 took some): 120 x 152 / 120 + 10 = 162, 90 + 162 = 252.
    nines = "7C 8C 9C 7D 8D 9D 7H 8H 9H 7S 8S 9S"
    h = hand(STD4, won=[rest(nines), nines], last=0, strain="NT", bid=90)
    assert hand_score("bga-coinche", h) == [340, 0]
    assert hand_score("bga-coinche", h, {"cards.capot_by": "tricks"}) == [252, 0]
    # team 1 taking the last trick too has 10 points: no capot (team 0 152, 90 + 152 = 242; team 1 10)
    assert hand_score("bga-coinche", hand(STD4, won=[rest(nines), nines], last=1, strain="NT", bid=90)) == [242, 10]
