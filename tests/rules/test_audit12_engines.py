"""Rules that could be broken without a rule test failing (a twelfth audit, by mutation).

Each rule below was changed in the engine, one at a time (a comparison flipped, a branch dropped, a parameter
ignored), and the rule tests still passed: the rule was implemented and scored right, but nothing here pinned
it. Each test pins it with a hand worked out by hand, the value the rule text gives, and says what the broken
rule gave instead (checked on the mutated engine), so that it fails when the rule breaks:

* a discard on a trump lead by a player holding trumps is a failure to follow suit (the revoke award), not a
  failure to head (seed 001);
* a coinched contract under ``double.scope = "bid"`` scores every declaration of the hand for the takers
  (PAGAT-C), and under ``"own"`` the takers' own points rounded before the bid is added (coinche-cli);
* a litige holds the taker's points times the multiplier, and the defence scores its belote with its points
  (FFB-B16 §10.1.3);
* the taker's belote goes to the defence of a doubled failed contract when it is "prenable"
  (``belote.on_failure = "to_defence"``);
* Bulgarian rounding: the trailer's minimum point and the odd doubled pot of bulgarian-2001, the hanging half of
  bulgarian (BG-HIT);
* three players: the odd point of a failed taker's shared points, and no partners whatever
  ``play.partner_exemption`` says;
* ``declarations.trump_breaks_ties``.

Hearts are trump unless a test says otherwise; seats 0 and 2 are team 0, seats 1 and 3 team 1.
"""

from __future__ import annotations

import pytest

from .harness import (BEL_T0, BEL_T1, SPLIT_30_132, SPLIT_81_81, SPLIT_85_77, SPLIT_102_60, STD4, deal, fault, hand,
                      rest, ruleset, score1, suit)

pytestmark = pytest.mark.rules


@pytest.mark.covers("belote-2p:play.revoke_on")
def test_a_discard_on_a_trump_lead_is_a_failure_to_follow_suit():
    # Two players, dealer seat 1. Seat 0 leads 9H (trump); seat 1 holds JH 7H and plays 7C: he does not follow
    # suit though able to. Seed 001's awards table gives the other player 10 for that, and belote-2p awards only
    # that breach (play.revoke_on = "follow_suit"), so the breach must be classed follow_suit, not as a failure
    # to head the trump lead (which earns nothing: the seed's play rules keep the two duties apart).
    #   T1 9H 7C -> s0 14   T2 AC 8C -> s0 11   T3 TC JC -> s0 12   T4 KC 7H (s1 void, trumps) -> s1 4
    #   T5 s1 7D, AD -> s0 11   T6 TD 8D -> s0 10   T7 KD JH -> s1 24   T8 s1 7S, AS -> s0 11   T9 TS 8S -> s0 10+10
    # Seat 0: 14 + 11 + 12 + 11 + 10 + 11 + 20 = 89; seat 1: 4 + 24 = 28; seat 0 takes and makes it, + 10 award.
    # Classed as a failure to head, the award was lost: [89, 28].
    head = deal("9H AC TC KC AD TD KD AS TS", "JH 7H 7C 8C JC 7D 8D 7S 8S")
    plays = [(0, "9H"), (1, "7C"), (0, "AC"), (1, "8C"), (0, "TC"), (1, "JC"), (0, "KC"), (1, "7H"), (1, "7D"),
             (0, "AD"), (0, "TD"), (1, "8D"), (0, "KD"), (1, "JH"), (1, "7S"), (0, "AS"), (0, "TS"), (1, "8S")]
    row = score1(ruleset("belote-2p"), hand(head, plays=plays, strain="H", taker=0, dealer=1), n_players=2)
    assert (row["legal"], row["illegal_seat"], row["illegal_rule"]) == (False, 1, "follow_suit")
    assert (row["card_points"], row["hand_score"]) == ([89, 28], [99, 28])


@pytest.mark.covers("pagat-coinche:double.scope")
def test_coinche_on_the_bid_scores_every_declaration_for_the_takers():
    # Bid 100 hearts, coinched, made 102-60; seat 1 (the defence) holds the only declaration, a tierce 8D 9D TD
    # (20). PAGAT-C: a coinche doubles the bid only, and the side that makes it scores the 162 card points and
    # every declaration of the hand: 162 + 100 x 2 + 20 = 382, rounded to the nearest ten (5 up) 380; the
    # defence 0. With the defence's declaration left to the defence: 360.
    h = deal("7C JC 7S QD 9H KH TS AS", "8C QC 9D KD TH AH 8D 7D", "9C KC TD AD 7H JH 8S QS",
             "TC AC JS JD 8H QH 9S KS")
    row = score1(ruleset("pagat-coinche"), hand(h, **SPLIT_102_60, bid=100, coinche=1))
    assert (row["declaration_points"], row["contract_made"], row["hand_score"]) == ([0, 20], True, [380, 0])


@pytest.mark.covers("coinche-cli:double.scope")
def test_coinche_on_own_points_rounds_them_before_the_bid():
    # coinche-cli (FORMAT.md §4 'Deal score'): a made coinched contract scores (round10(own card points) + bid)
    # x mult, the defence keeping its rounded points. Bid 80 coinched, made 85-77: (90 + 80) x 2 = 340, the
    # defence 80 -> [340, 80]. Unrounded: (85 + 80) x 2 = 330.
    row = score1(ruleset("coinche-cli"), hand(STD4, **SPLIT_85_77, bid=80, coinche=1))
    assert row["hand_score"] == [340, 80]


@pytest.mark.covers("contract.tie")
def test_a_litige_with_the_belote_in_defence():
    # FFB-B16 §10.1.3 (rules_examples A3): 91-91 with a belote, the defenders score their 91 now and the taker's
    # 91 hang. Team 0 takes the hearts and AC TC KC KD (62 + 25 + 4 = 91); team 1 the rest and the last trick
    # (61 + 10 = 71) and holds KH QH (BEL_T1): 71 + 20 = 91, a tie. The defence scores 71 + its belote 20 = 91;
    # held 91. Without the belote: [0, 71].
    t0 = suit("H") + " AC TC KC KD"
    row = score1(ruleset("belote-classic"), hand(BEL_T1, won=[t0, rest(t0)], last=1, strain="H", taker=0))
    assert (row["card_points"], row["belote_points"]) == ([91, 71], [0, 20])
    assert (row["litige"], row["hand_score"], row["held_points"]) == (True, [0, 91], 91)


@pytest.mark.covers("ffb-coinche-2015:contract.tie")
def test_a_coinched_litige_holds_the_takers_points_times_the_multiplier():
    # ffb-coinche-2015 with FFB-Co15 §10.1.3's tournament option (contract.tie = "litige"): bid 80 coinched, 81-81.
    # The defence scores its 81 (80 rounded) now; the taker's 81 hang x 2 = 162, rounded 160 (the hanging pot is
    # multiplied, as BG-HIT's). Undoubled: 80 held.
    R = ruleset("ffb-coinche-2015", {"contract.tie": "litige"})
    row = score1(R, hand(STD4, **SPLIT_81_81, bid=80, coinche=1))
    assert (row["litige"], row["hand_score"], row["held_points"]) == (True, [0, 80], 160)
    assert score1(R, hand(STD4, **SPLIT_81_81, bid=80))["held_points"] == 80


@pytest.mark.covers("belote.on_failure")
def test_a_prenable_belote_goes_to_the_defence_of_a_doubled_failure():
    # belote.on_failure = "to_defence" applies coinched or not (base.toml). Team 0 takes with KH QH (BEL_T0) at 80,
    # coinched, and fails 30-132: the defence scores (160 + 80 + the taker's belote 20) x 2 = 520, the takers 0.
    # Kept (belote.on_failure = "keep"): [20, 480]. Dropped for both sides (the broken rule): [0, 480].
    R = ruleset("ffb-coinche-2015", {"belote.on_failure": "to_defence"})
    row = score1(R, hand(BEL_T0, **SPLIT_30_132, bid=80, coinche=1))
    assert (row["belote_points"], row["contract_made"], row["hand_score"]) == ([20, 0], False, [0, 520])
    R = ruleset("ffb-coinche-2015", {"belote.on_failure": "keep"})
    assert score1(R, hand(BEL_T0, **SPLIT_30_132, bid=80, coinche=1))["hand_score"] == [20, 480]


@pytest.mark.covers("bulgarian-2001:rounding.mode")
def test_bulgarian_2001_trailer_who_took_points_scores_one():
    # rounding.mode = "bg_2001" (oracles/README.md: a trailer who took points but would round to 0 gets 1): team 1
    # takes 7D 8D QD 7S (3 points), team 0 the rest and the last trick (159). 162 rounds to 16: the leader 159 -> 16,
    # the trailer 0; it took points, so 1, and the leader 15 -> [15, 1]. Without the minimum: [16, 0].
    row = score1(ruleset("bulgarian-2001"), hand(STD4, won=[rest("7D 8D QD 7S"), "7D 8D QD 7S"], last=0, taker=0))
    assert (row["card_points"], row["hand_score"]) == ([159, 3], [15, 1])


@pytest.mark.covers("bulgarian-2001:rounding.mode")
def test_bulgarian_2001_odd_doubled_pot_rounds_up_in_all_trump():
    # bg_2001, doubled: the pot is the deal's points x the multiplier, in tens rounded half away, and an odd pot
    # goes up in all-trump, down in a suit (oracles/README.md). All-trump, redoubled (x 4), made 134-124:
    # 258 x 4 = 1032 -> 103, odd, up: 104 to the takers, 0 to the defence. Rounded down: [102, 0].
    row = score1(ruleset("bulgarian-2001"), hand(STD4, **SPLIT_102_60, strain="AT", taker=0, coinche=2))
    assert (row["card_points"], row["hand_score"]) == ([134, 124], [104, 0])


@pytest.mark.covers("bulgarian:rounding.mode")
def test_bulgarian_hanging_half_rounds_as_the_trailer():
    # bg_modern (rules_examples D6, BG-HIT): 106-106 hangs; the non-bidders score their half now rounded as the
    # side with more points (a suit: 7 up, so 106 -> 10), and the takers' half hangs rounded as the side with
    # fewer (6 up: 106 -> 11), "non-bidders 10, 11 hanging". Team 0 takes with the quarte 7C-TC (50) and 56 card
    # points; team 1 takes the hearts, the spades, KD and the last trick (62 + 30 + 4 + 10 = 106). Rounded as
    # the leader, the hanging half was 10.
    h = deal("7C 8C 9C TC 9H KH TS AS", "JC QC 9D KD TH AH 7S JS", "KC AC TD AD 7H JH 8S QS",
             "8D QD 7D JD 8H QH 9S KS")
    t1 = suit("H") + " " + suit("S") + " KD"
    row = score1(ruleset("bulgarian"), hand(h, won=[rest(t1), t1], last=1, strain="H", taker=0))
    assert (row["card_points"], row["declaration_points"]) == ([56, 106], [50, 0])
    assert (row["litige"], row["hand_score"], row["held_points"]) == (True, [0, 10], 11)


@pytest.mark.covers("belote-3p:contract.solo_fail")
def test_three_players_the_odd_shared_point_goes_to_the_next_opponent():
    # 3 players, dealer 2: seat 0 the hearts and 7S, seat 1 the clubs and 8S, seat 2 the diamonds and 9S. Seat 1
    # takes and wins only 7D 8D 9D TD JD QD (15 points); seat 0 the hearts, clubs, spades, AD and the last trick
    # (62 + 30 + 11 + 10 = 113), seat 2 KD (4). Declarations: three runs of 8, the one in trump wins (seat 0,
    # 100), and seat 0's belote 20. Failed (solo_fail = "share", base.toml): the taker's 15 are halved between the
    # opponents, 7 each and the odd point to the one seated next after the taker, seat 2:
    # [113 + 100 + 20 + 7, 0, 4 + 8] = [240, 0, 12]. The odd point to seat 0: [241, 0, 11].
    h3 = deal(suit("H") + " 7S", suit("C") + " 8S", suit("D") + " 9S")
    won = [suit("H") + " " + suit("C") + " 7S 8S 9S AD", "7D 8D 9D TD JD QD", "KD"]
    row = score1(ruleset("belote-3p"), hand(h3, won=won, last=0, taker=1, dealer=2))
    assert (row["card_points"], row["contract_made"], row["hand_score"]) == ([113, 15, 4], False, [240, 0, 12])


@pytest.mark.covers("play.partner_exemption")
def test_three_players_have_no_partner_to_be_exempt_for():
    # Three players, each for himself (EXOTY): even a house rule setting play.partner_exemption = true exempts no
    # one. Dealer 2, seat 0 leads AS, seat 1 follows 7S, seat 2 has no spade and holds hearts (trump): it must
    # trump, and KC breaks that duty. Read as seat 0's partner (seats 0 and 2 as in a 4-player game), seat 2 was
    # exempt and the trick legal.
    h3 = deal("AS JS 9S 7D 9D JD 7C 9C JC", "7S 8S TS 8D TD QD 8C TC QC", "7H 8H 9H TH JH KC AC KD AD")
    R = ruleset("belote-3p", {"play.partner_exemption": True})
    assert fault(R, h3, ["AS", "7S", "KC"], dealer=2) == (2, "KC", "must_trump")


@pytest.mark.covers("declarations.trump_breaks_ties")
def test_equal_tierces_the_one_in_trump_wins():
    # Seat 0 holds the tierce 8C 9C TC, seat 1 the tierce 8H 9H TH in trump; no other declaration (KH and QH in
    # two teams). PAGAT-B, FFB-Co15 §8.3: equal best sequences, the one in trump wins: team 1 scores 20.
    # Without the rule the two are tied, and the tie rule decides: belote-classic's first announcer (seat 0,
    # dealer 3) -> [20, 0]; ffb-coinche-2015 neither (declarations.tie = "none") -> [0, 0].
    d = deal("8C 9C TC 7D JD KH 7S 9S", "8D QD 8H 9H TH 8S TS QS", "7C JC AC 9D KD 7H JH KS",
             "QC KC TD AD QH AH JS AS")
    assert score1(ruleset("belote-classic"), hand(d, **SPLIT_102_60))["declaration_points"] == [0, 20]
    assert score1(ruleset("ffb-coinche-2015"), hand(d, **SPLIT_102_60, bid=80))["declaration_points"] == [0, 20]
    R = ruleset("belote-classic", {"declarations.trump_breaks_ties": False})
    assert score1(R, hand(d, **SPLIT_102_60))["declaration_points"] == [20, 0]
    R = ruleset("ffb-coinche-2015", {"declarations.trump_breaks_ties": False})
    assert score1(R, hand(d, **SPLIT_102_60, bid=80))["declaration_points"] == [0, 0]
    # the same two tierces read from the record's announcements (declarations.count = "announced"): ranked by the
    # same rule, through the announced declarations' own keys
    said = [{"seat": 0, "kind": "tierce", "cards": ["8C", "9C", "TC"]},
            {"seat": 1, "kind": "tierce", "cards": ["8H", "9H", "TH"]}]
    for breaks, points in ((True, [0, 20]), (False, [20, 0])):
        R = ruleset("belote-classic", {"declarations.count": "announced", "declarations.trump_breaks_ties": breaks})
        row = score1(R, hand(d, **SPLIT_102_60, announced=said))
        assert (row["declarations_from"], row["declaration_points"]) == ("announced", points)
