"""Rules that could be broken without a rule test failing (a thirteenth audit, by mutation, second round).

Each rule below was changed in the engine, one at a time (a parameter ignored on one branch, a comparison or a
rounding half moved, a condition dropped), and the rule tests still passed: the rule was implemented and scored
right, but nothing here pinned it. Each test pins it with a hand worked out by hand, the value the rule text gives,
and says what the broken rule gave instead (checked on the mutated engine), so that it fails when the rule breaks.

Hearts are trump unless a test says otherwise; seats 0 and 2 are team 0, seats 1 and 3 team 1.
"""

from __future__ import annotations

import pytest

from .harness import (BEL_T0, BEL_T1, CAPOT_0, SPLIT_30_132, SPLIT_81_81, SPLIT_102_60, STD4, deal, game, hand, rest,
                      ruleset, score1, suit)

pytestmark = pytest.mark.rules


@pytest.mark.covers("contract.fail_scores", "contract.fail_adds_bid")
def test_a_base_failure_still_adds_the_bid_with_fail_adds_bid():
    # contract.fail_scores = "base" (Cardman): the defence scores fail_base "(+ the bid with fail_adds_bid ...)
    # alone" (base.toml). cardman-coinche with fail_adds_bid: bid 100, the takers take 30 (SPLIT_30_132) and fail;
    # the defence 162 + 100 = 262, the takers 0. The bid dropped on the "base" branch: [0, 162].
    R = ruleset("cardman-coinche", {"contract.fail_adds_bid": True})
    row = score1(R, hand(STD4, **SPLIT_30_132, bid=100))
    assert (row["contract_made"], row["hand_score"]) == (False, [0, 262])
    assert score1(ruleset("cardman-coinche"), hand(STD4, **SPLIT_30_132, bid=100))["hand_score"] == [0, 162]


@pytest.mark.covers("bulgarian:rounding.mode")
def test_bulgarian_no_trump_rounds_a_6_up():
    # bg_modern (BG-NIK ScoreManager rounds no-trump with Math.Round, halves to even; rules.md R34 "NT: normal"):
    # no-trump, card points doubled (no_trump_scale [2, 1]). Team 0 takes the four aces, 10C 10D 10H and KC
    # (44 + 30 + 4 = 78) and the last trick (10): 88 x 2 = 176; team 1 the rest, 42 x 2 = 84. 176 -> 17.6 -> 18
    # (a 6 rounds up under any rounding to the nearest), 84 -> 8: [18, 8]. A 6 rounded down: [17, 8].
    t0 = "AC AD AH AS TC TD TH KC"
    row = score1(ruleset("bulgarian"), hand(STD4, won=[t0, rest(t0)], last=0, strain="NT", taker=0))
    assert (row["card_points"], row["contract_made"], row["hand_score"]) == ([176, 84], True, [18, 8])


@pytest.mark.covers("pagat-coinche:contract.capot_bid_made_flat")
def test_a_made_capot_bid_keeps_the_takers_belote():
    # PAGAT-C: a capot bid made scores 500 (rules.md R31) and the belote stays with its holders (R25: "scored by
    # the bidders", never contested). Team 0 holds KH QH (BEL_T0), bids capot in hearts and takes every trick:
    # 500 + 20 = 520, the defence 0. The belote dropped from the flat award: [500, 0].
    row = score1(ruleset("pagat-coinche"), hand(BEL_T0, **CAPOT_0, capot_bid=True))
    assert (row["contract_made"], row["belote_points"], row["hand_score"]) == (True, [20, 0], [520, 0])


@pytest.mark.covers("contract.fail_scores", "contract.capot_bid_failed_flat")
def test_a_base_failure_of_a_capot_bid_scores_the_capot_flat():
    # contract.fail_scores = "base" gives the defence "fail_base (+ the bid with fail_adds_bid; capot_bid_failed_flat
    # for a capot bid) alone" (base.toml). cardman-coinche with capot_bid_failed_flat 500: team 0 (KH QH, BEL_T0)
    # bids capot and takes 102 of 162: failed; the defence 500, the takers 0 (their belote lost). With the capot
    # flat ignored on the "base" branch: [0, 162], as without the flat.
    h = hand(BEL_T0, **SPLIT_102_60, capot_bid=True)
    row = score1(ruleset("cardman-coinche", {"contract.capot_bid_failed_flat": 500}), h)
    assert (row["contract_made"], row["hand_score"]) == (False, [0, 500])
    assert score1(ruleset("cardman-coinche"), h)["hand_score"] == [0, 162]


# game.no_win_on_belote_alone (FFB-Co15 §10.3): a team whose contract failed, or that took no trick, cannot win
# the game at that hand on what it kept (its belote), "unless it would also have won without what it scored on
# that hand" (game.py): without that hand's points it must still lead alone at or over the target.
_NO_BELOTE_WIN = {"game.no_win_on_belote_alone": True, "game.no_exit_on_capot": True, "game.target": 200}


@pytest.mark.covers("game.no_win_on_belote_alone")
def test_belote_alone_the_other_team_would_lead_without_it():
    # Target 200, a capot never ends the game (no_exit_on_capot). H1: team 1 takes and makes 132-30 -> [30, 132].
    # H2: team 0's capot, 252 -> [282, 132], over the target but a capot: play on. H3: team 0 takes with KH QH
    # (BEL_T0) and fails 30-132: the defence 162, team 0 keeps its belote 20 -> [302, 294]. Team 0 leads over
    # the target, but on its belote: without its 20 it has 282 against 294, team 1 ahead -> no win, play on.
    # With the check that the same team leads without that hand dropped, team 0 won at hand 3.
    R = ruleset("base", _NO_BELOTE_WIN)
    g = game(R, hand(STD4, **SPLIT_30_132, taker=1), hand(STD4, **CAPOT_0), hand(BEL_T0, **SPLIT_30_132))
    assert (g["totals"], g["ended_at_hand"], g["winner"]) == ([302, 294], None, None)


@pytest.mark.covers("game.no_win_on_belote_alone")
def test_belote_alone_the_teams_would_be_equal_without_it():
    # As above with H1 team 1 making 126-36 (team 0 takes AC 10C KC QC JC KD JD, 36) -> [36, 126]; H2 team 0's
    # capot -> [288, 126]; H3 team 0 fails holding the belote -> [308, 288]. Without its 20, 288-288: no team ahead
    # alone, so it would not have won: play on. With the "alone" check dropped, team 0 won at hand 3.
    R = ruleset("base", _NO_BELOTE_WIN)
    t0 = "AC TC KC QC JC KD JD"
    g = game(R, hand(STD4, won=[t0, rest(t0)], last=1, taker=1), hand(STD4, **CAPOT_0), hand(BEL_T0, **SPLIT_30_132))
    assert (g["totals"], g["ended_at_hand"], g["winner"]) == ([308, 288], None, None)


@pytest.mark.covers("coinche-cli:double.scope", "coinche-cli:double.base_capot")
def test_own_scope_scores_an_unbid_capot_as_whole():
    # double.scope = "own": "a capot and a failure are scored as 'whole'" (base.toml), on double.base_capot
    # (coinche-cli FORMAT.md §4 'Deal score': "after a capot, (250 + bid) x multiplier"). Bid 80 hearts, coinched; team 0 takes every trick without
    # having bid capot (coinche-cli's last trick stays 10: 162 card points): (250 + 80) x 2 = 660, the defence 0.
    # Scored as an "own" made contract, (the takers' own 162 rounded 160 + 80) x 2 = 480.
    row = score1(ruleset("coinche-cli"), hand(STD4, **CAPOT_0, bid=80, coinche=1))
    assert (row["card_points"], row["contract_made"], row["hand_score"]) == ([162, 0], True, [660, 0])


@pytest.mark.covers("bulgarian-2001:rounding.mode")
def test_bulgarian_2001_no_trump_half_rounds_up():
    # bg_2001, no-trump: "nearest, halves away" (contract.bg_round1; rules.md R34 "NT: normal"). The shipped
    # no-trump totals are even (x2); with no_trump_scale [1, 1] a half occurs: team 0 takes the four aces, 10C 10D
    # 10H, KC QC JC JD (44 + 30 + 4 + 3 + 2 + 2 = 85) and the last trick: 95; team 1 35. The leader 95 -> 9.5 -> 10,
    # the trailer the rest of the rounded 130 -> 13: 3 -> [10, 3]. A 5 rounded down in no-trump: [9, 4].
    t0 = "AC AD AH AS TC TD TH KC QC JC JD"
    R = ruleset("bulgarian-2001", {"cards.no_trump_scale": [1, 1]})
    row = score1(R, hand(STD4, won=[t0, rest(t0)], last=0, strain="NT", taker=0))
    assert (row["card_points"], row["hand_score"]) == ([95, 35], [10, 3])


@pytest.mark.covers("bulgarian-2001:rounding.mode")
def test_bulgarian_2001_odd_redoubled_pot_rounds_down_in_a_suit():
    # bg_2001, doubled: the pot is round(total x level) in tens, "an odd result nudged to even (up in all-trump,
    # down in a suit)" (contract._bulgarian; oracles/README.md, Bridge Belot v2.06). Hearts, redoubled (x4), no
    # declaration, no belote, team 0 makes 102-60: 162 x 4 = 648 -> 65, odd -> 64, all to team 0: [64, 0]. Nudged
    # up as in all-trump: [66, 0].
    row = score1(ruleset("bulgarian-2001"), hand(STD4, **SPLIT_102_60, coinche=2))
    assert (row["contract_made"], row["hand_score"]) == (True, [64, 0])


@pytest.mark.covers("bulgarian-2001:contract.tie")
def test_bulgarian_2001_doubled_tie_hangs_the_whole_pot():
    # A doubled tie (BG-HIT, contract._bulgarian): "doubled, nothing is scored and the whole pot (x level) hangs".
    # Hearts, doubled, 81-81: both sides 0 now, held round(162 x 2) = 32 (even). With the defence scoring its half
    # as when undoubled (81 -> 8): [0, 8].
    row = score1(ruleset("bulgarian-2001"), hand(STD4, **SPLIT_81_81, coinche=1))
    assert (row["litige"], row["hand_score"], row["held_points"]) == (True, [0, 0], 32)


@pytest.mark.covers("bulgarian-2001:declarations.in_no_trump")
def test_an_announced_sequence_scores_nothing_in_no_trump():
    # bulgarian-2001: no declarations in no-trump (in_no_trump = false; oracles/README.md), whether held or, as
    # here, announced (declarations.count = "announced_else_held"). Seat 1 holds and announces 7D 8D 9D; no-trump,
    # team 0 takes hearts and clubs (60 x 2 + last trick 10 x 2 = 140), team 1 120: declarations [0, 0], the leader
    # 140 -> 14, the trailer 12 -> [14, 12]. In hearts the same tierce scores 20 (control). With the announced
    # path ignoring in_no_trump the tierce counted in no-trump too (team 1 then 140, a tie that hangs).
    h = deal("7C JC 7S QD 9H KH TS AS", "8C QC 9D KD TH AH 8D 7D", "9C KC TD AD 7H JH 8S QS",
             "TC AC JS JD 8H QH 9S KS")
    ann = [{"seat": 1, "kind": "tierce", "cards": ["7D", "8D", "9D"]}]
    row = score1(ruleset("bulgarian-2001"), hand(h, **SPLIT_102_60, strain="NT", announced=ann))
    assert (row["card_points"], row["declaration_points"], row["hand_score"]) == ([140, 120], [0, 0], [14, 12])
    row = score1(ruleset("bulgarian-2001"), hand(h, **SPLIT_102_60, strain="H", announced=ann))
    assert row["declaration_points"] == [0, 20]


@pytest.mark.covers("declarations.long_runs")
def test_a_run_of_seven_beats_a_run_of_six_by_length():
    # declarations.long_runs = "by_length" (PAGAT-B: longer beats shorter; rules.md R23): both runs are worth 100
    # (quinte), so the longer wins before the top card. Spades trump; seat 0 holds 7C-KC (7 cards, top K), seat 1
    # 9D-AD (6 cards, top A); no other declaration, no belote. Team 0's run wins: declarations [100, 0]; team 0
    # takes hearts and clubs (plain suits in spades: 30 + 30) and the last trick: 70 + 100 = 170, team 1 92.
    # Runs of 6 and 7 ranked alike (then the ace on top wins): [0, 100].
    d = deal("7C 8C 9C TC JC QC KC 7H", "9D TD JD QD KD AD 8H 9H", "AC 7D TH QH 7S 9S JS KS",
             "8D JH KH AH 8S TS QS AS")
    row = score1(ruleset("base", {"declarations.enabled": True}), hand(d, **SPLIT_102_60, strain="S"))
    assert (row["declaration_points"], row["hand_score"]) == ([100, 0], [170, 92])


@pytest.mark.covers("declarations.tie")
def test_first_announcer_goes_round_from_the_eldest_hand():
    # declarations.tie = "first_announcer": seats announce "in playing order from the eldest hand on the dealer's
    # left" (base.toml). Dealer 3: the order is 0, 1, 2, 3. Seat 1 holds 8D 9D 10D, seat 2 8S 9S 10S: equal
    # tierces (hearts trump, neither in trump); seat 1 announces first -> team 1 scores 20: [0, 20]; 102-60 ->
    # [102, 80]. Going round the other way (0, 3, 2, 1) seat 2 came first: [20, 0].
    d = deal("7C JC 7S QD 9H KH JD KS", "8C QC 8D 9D TD KD TH AH", "9C KC 8S 9S TS AD 7H JH",
             "TC AC 7D JS QS 8H QH AS")
    R = ruleset("base", {"declarations.enabled": True, "declarations.tie": "first_announcer"})
    row = score1(R, hand(d, **SPLIT_102_60, strain="H", dealer=3))
    assert (row["declaration_points"], row["hand_score"]) == ([0, 20], [102, 80])


@pytest.mark.covers("game.end_tie")
def test_latest_deal_winner_only_settles_a_tie_over_the_target():
    # game.end_tie = "latest_deal_winner" (pagat coinche): "the highest total AT OR OVER THE TARGET held by two
    # teams alike" -> the winners of that deal (base.toml). Target 300. H1: team 0 makes 102-60; H2: team 1 makes
    # 102-60 the other way -> [162, 162], equal but under the target: the game goes on. With the target check
    # dropped, team 1 (the latest deal's winner) won at hand 2.
    R = ruleset("base", {"game.end_tie": "latest_deal_winner", "game.target": 300})
    won = SPLIT_102_60["won"]
    g = game(R, hand(STD4, **SPLIT_102_60, taker=0), hand(STD4, won=[won[1], won[0]], last=1, taker=1))
    assert (g["totals"], g["ended_at_hand"], g["winner"]) == ([162, 162], None, None)


@pytest.mark.covers("game.litige_to")
def test_higher_hand_score_leaves_the_pot_held_on_an_equal_hand():
    # game.litige_to = "higher_hand_score" (Belot_Scorer): held points go "to the team scoring STRICTLY more on the
    # next hand that is not itself a litige" (base.toml). H1: 81-81, a litige: team 1 scores 81, 81 held. H2
    # (made_counts_belote off, so no litige): team 0 takes hearts, AC 10C KC KD (91) and makes it against 71,
    # team 1 holding KH QH (BEL_T1) scores 71 + 20 = 91: equal hand scores, nobody scores more -> the 81 stay
    # held: totals [91, 172], unresolved 81. Given to the deal's winner (team 0) instead: [172, 172], 0 held.
    R = ruleset("base", {"game.litige_to": "higher_hand_score", "contract.made_counts_belote": False})
    t0 = suit("H") + " AC TC KC KD"
    g = game(R, hand(STD4, **SPLIT_81_81), hand(BEL_T1, won=[t0, rest(t0)], last=1))
    assert (g["totals"], g["unresolved_held"], g["ended_at_hand"]) == ([91, 172], 81, None)
