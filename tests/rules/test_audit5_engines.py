"""Rulesets modelled on public programs and rulebooks, checked against their sources (a fifth audit).

* cardman-points (Cardman/projects @ 7d8d0ca, belote/src/main/java/cards/belote/EndBeloteGame.java):
  ``valeurCapot`` is 100 only when the defence took no trick and only ``pointsAttackWithBonus`` adds it (the
  defence's ``pointsDefenseWithBonus`` never does); with setComptePointsClassique(false) ``scoreDefinitifAttaque``
  returns the attack's total as it is and ``scoreDefinitifDefense`` returns 162 (pointsTotauxDixDeDer) whenever
  that total is 0, else the defence's own total.

Hearts are trump in every hand. The card splits are the harness's (team 0 = seats 0 and 2 first).
"""

from __future__ import annotations

import pytest

from .harness import BEL_T0, BEL_T1, hand_score as hs, CAPOT_0, CAPOT_1, SPLIT_30_132, SPLIT_102_60, STD4, deal, hand, rest, ruleset, score1, suit

pytestmark = pytest.mark.rules

# team 0 (the takers) takes one trick of four cards worth nothing (not the last), team 1 everything else
ZERO_T0 = {"won": ["7C 8C 7D 8D", rest("7C 8C 7D 8D")], "last": 1}


# ----------------------------------------------------------------------------------------------------- cardman

@pytest.mark.covers("cards.capot_bonus_to")
def test_capot_bonus_to_takers_only():
    # base with a capot bonus of 90 (the Bulgarian valat's value, any number does): the defence (team 1) takes every
    # trick: its card points 152 + 100 last trick = 252, + 90 with "any" = 342; with "takers" the defence's sweep
    # earns no bonus: 252. The takers' sweep earns it either way: 342.
    R = {"cards.capot_bonus": 90}
    assert score1(ruleset("base", R), hand(STD4, **CAPOT_1))["card_points"] == [0, 342]
    assert score1(ruleset("base", {**R, "cards.capot_bonus_to": "takers"}), hand(STD4, **CAPOT_1))["card_points"] \
        == [0, 252]
    assert score1(ruleset("base", {**R, "cards.capot_bonus_to": "takers"}), hand(STD4, **CAPOT_0))["card_points"] \
        == [342, 0]


@pytest.mark.covers("contract.made_min_points")
def test_made_min_points_without_made_vs_bid():
    # made_min_points applies with made_vs_bid "none" too. base, no comparison with the defence (made_vs_defence
    # "none"): the takers' 4 worthless cards (0 points) are made, each side its own: [0, 162]; with a minimum of 1
    # the takers' 0 fails: the defence 162 + the takers' nothing: [0, 162] as well, so team 0's belote decides it:
    # BEL_T1 gives the defence a belote: made [0, 182]; fail_scores "base" with a minimum of 1: [0, 162].
    R = {"contract.made_vs_defence": "none", "contract.fail_scores": "base"}
    assert hs("base", hand(BEL_T1, **ZERO_T0), R) == [0, 182]
    assert hs("base", hand(BEL_T1, **ZERO_T0), {**R, "contract.made_min_points": 1}) == [0, 162]
    assert score1(ruleset("base", {**R, "contract.made_min_points": 1}), hand(BEL_T1, **ZERO_T0))["contract_made"] \
        is False


@pytest.mark.covers("cardman-points:contract.made_min_points", "cardman:cards.capot_bonus_to")
def test_cardman_points_defence_sweep_scores_162():
    # Cardman EndBeloteGame @ 7d8d0ca, setComptePointsClassique(false): scoreDefinitifAttaque returns the attack's
    # pointsAttackWithBonus as it is; scoreDefinitifDefense returns 162 when that is 0, else the defence's
    # pointsDefenseWithBonus (cards + last trick + belote: valeurCapot is never added to it).
    # The defence takes every trick, no belote: attack 0 -> defence 162: [0, 162] (before: 152 + 10 + the capot's 100
    # = [0, 262]). With the defence's belote: attack 0 -> still 162, the belote lost: [0, 162] (before [0, 282]).
    # With the attack's belote: attack 20 (not 0) -> the defence its own 152 + 10 = 162: [20, 162] (before [20, 262]).
    assert hs("cardman-points", hand(STD4, **CAPOT_1)) == [0, 162]
    assert hs("cardman-points", hand(BEL_T1, **CAPOT_1)) == [0, 162]
    assert hs("cardman-points", hand(BEL_T0, **CAPOT_1)) == [20, 162]
    # with the capot's 100 to either team (the engine before): [20, 262]
    assert hs("cardman-points", hand(BEL_T0, **CAPOT_1), {"cards.capot_bonus_to": "any"}) == [20, 262]
    # the attack's sweep earns the 100 (valeurCapot: the defence took no trick): 152 + 10 + 100 = 262; the defence
    # keeps its belote (attack not 0: pointsDefenseWithBonus = 0 + 20): [262, 20]
    assert hs("cardman-points", hand(BEL_T1, **CAPOT_0)) == [262, 20]


@pytest.mark.covers("cardman-points:contract.made_min_points")
def test_cardman_points_attack_total_zero_gives_the_defence_162():
    # The attack takes one trick worth nothing (7C 8C 7D 8D, not the last): its total is 0, so
    # scoreDefinitifDefense gives the defence 162 alone, its belote (pointsDefenseWithBonus 162 + 20) lost: [0, 162]
    # (before: every side its own points, [0, 182]). Without the minimum of 1 the engine scores [0, 182].
    assert hs("cardman-points", hand(BEL_T1, **ZERO_T0)) == [0, 162]
    assert hs("cardman-points", hand(BEL_T1, **ZERO_T0), {"contract.made_min_points": 0}) == [0, 182]


def test_cardman_classic_defence_sweep_was_already_162():
    # Plain cardman (classic count): the defence's sweep fails the attack (0 or its belote 20 < the defence's 162),
    # scoreDefinitifAttaque 0, scoreDefinitifDefense 162: [0, 162], with or without either belote (fail_scores
    # "base", fail_base_defence_capot 162); the capot's 100 to the defence changed no score here.
    for h in (STD4, BEL_T0, BEL_T1):
        assert hs("cardman", hand(h, **CAPOT_1)) == [0, 162]
        assert hs("cardman", hand(h, **CAPOT_1), {"cards.capot_bonus_to": "any"}) == [0, 162]


# ------------------------------------------------------------------------------------- hackbulgaria, belot-scorer

# Seat 0 (team 0, the takers) holds a 6-card run 8H-KH; seat 1 (team 1) the quinte TS-AS; nobody else a run, a
# carre or the clubs belote (clubs trump: KC in seat 3, QC in seat 2). Team 0 takes the clubs and diamonds (62 + 30
# + last trick 10 = 102), team 1 the hearts and spades (60).
RUNS = deal("8H 9H TH JH QH KH 7C 9D", "TS JS QS KS AS 7D 8D JC", "8C TC QC AC 7S 9S TD QD", "9C KC JD KD AD 7H AH 8S")
RUNS_WON = {"won": [suit("C") + " " + suit("D"), suit("H") + " " + suit("S")], "last": 0}


@pytest.mark.covers("hackbulgaria:declarations.long_runs", "belot-scorer:declarations.long_runs")
@pytest.mark.parametrize("name", ["hackbulgaria", "belot-scorer"])
def test_a_six_run_is_a_quinte_compared_by_its_top_card(name):
    # HackBulgaria week04/02.BeloteDeclarations/README.md @ 0ffa486: a quinte is 5 or more in a row, kinds rank
    # tierce < quarte < quinte and equal kinds go to the higher rank. Belot_Scorer src/core/resolve.ts @ 4451eab:
    # the longest kinds compared (a kvinta is 5, rules.ts SEQ_LENGTH), then the top card. Both: team 0's run to
    # the king and team 1's run to the ace are two quintes; the ace's wins: declarations [0, 100]. Team 0 (the
    # takers) 102 against 60 + 100 = 160 is inside: team 1 takes everything, 262 -> 26: [0, 26].
    # Ranking the 6-run above the quinte (by_length, the engine before): [100, 0], 202 - 60 made: [20, 6].
    h = hand(RUNS, **RUNS_WON, strain="C")
    s = score1(ruleset(name), h)
    assert (s["declaration_points"], s["hand_score"]) == ([0, 100], [0, 26])
    s = score1(ruleset(name, {"declarations.long_runs": "by_length"}), h)
    assert (s["declaration_points"], s["hand_score"]) == ([100, 0], [20, 6])


@pytest.mark.covers("belot-scorer:cards.capot_last_trick", "belot-scorer:cards.capot_bonus")
def test_belot_scorer_no_trump_capot_is_doubled_with_its_bonus():
    # Belot_Scorer src/core/score.ts scoreDeal @ 2f41491 (GAME_RULES.md §5): a capot's cards are MAX + 9 tens and
    # raw = (cards + declarations) x mult, mult 2 in no-trump only: no-trump (13 + 9) x 2 = 44; colour 16 + 9 = 25;
    # all-trump 26 + 9 = 35. The engine before (BG-HIT: +90 after the no-trump doubling) scored the no-trump capot
    # 130 x 2 + 90 = 350 -> 35. The defence's capot: the takers are inside, the defence scores the same [0, 44].
    R = ruleset("belot-scorer")
    assert score1(R, hand(STD4, **CAPOT_0, strain="NT"))["hand_score"] == [44, 0]
    assert score1(R, hand(STD4, **CAPOT_1, strain="NT"))["hand_score"] == [0, 44]
    assert score1(R, hand(STD4, **CAPOT_0, strain="H"))["hand_score"] == [25, 0]
    assert score1(R, hand(STD4, **CAPOT_0, strain="AT"))["hand_score"] == [35, 0]
    before = ruleset("belot-scorer", {"cards.capot_last_trick": 10, "cards.capot_bonus": 90})
    assert score1(before, hand(STD4, **CAPOT_0, strain="NT"))["hand_score"] == [35, 0]


# -------------------------------------------------------------------------------------------- ffb-contree-2016

@pytest.mark.covers("double.belote_to_winner")
def test_ffb_contree_2016_contre_winner_takes_either_belote():
    # FFB-Ct16 p.7 score table (Q, colver docs/rules-survey/matrices/tableau-ffb-2016.md), "points faits +
    # demandés": a contré (surcontré) contract made gives the takers 320 (640) + contract x2 (x4) + the belote
    # whichever side held it, and the defence 0 (rules_examples B8); a contré capot bid 1000 + either belote, the
    # defence 0. Team 1 (the defence) holds the belote; team 0 takes 102 on 100 contré: 320 + 200 + 20 = 540, 0;
    # surcontré: 640 + 400 + 20 = 1060, 0; a contré capot bid: 1000 + 20 = 1020, 0. With the belote left to its
    # holders (the ruleset before): [520, 20], [1040, 20], [1000, 20].
    bel = {"double.belote_to_winner": False}
    assert hs("ffb-contree-2016", hand(BEL_T1, **SPLIT_102_60, bid=100, coinche=1)) == [540, 0]
    assert hs("ffb-contree-2016", hand(BEL_T1, **SPLIT_102_60, bid=100, coinche=2)) == [1060, 0]
    assert hs("ffb-contree-2016", hand(BEL_T1, **CAPOT_0, bid=250, capot_bid=True, coinche=1)) == [1020, 0]
    assert hs("ffb-contree-2016", hand(BEL_T1, **SPLIT_102_60, bid=100, coinche=1), bel) == [520, 20]
    assert hs("ffb-contree-2016", hand(BEL_T1, **SPLIT_102_60, bid=100, coinche=2), bel) == [1040, 20]
    assert hs("ffb-contree-2016", hand(BEL_T1, **CAPOT_0, bid=250, capot_bid=True, coinche=1), bel) == [1000, 20]
    # failed contré: the defence 320 + 200 + both belotes (prenable), unchanged: team 0's belote, 30-132: [0, 540]
    assert hs("ffb-contree-2016", hand(BEL_T0, **SPLIT_30_132, bid=100, coinche=1)) == [0, 540]
