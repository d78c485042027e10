"""Rulesets modelled on public programs, checked against the programs' own scoring code (a fourth audit).

* libcoinche (gyscos/libcoinche @ 9524abe, src/game.rs ``GameState::get_game_result``, src/bid.rs ``Target``):
  the ruleset scored as pagat-coinche; the library scores the bid alone, or 160 to the defence, with no belote,
  no declarations and no multiplier.
* coincoinche (coincoinche/coincoinche @ 8b209a3, server/.../engine/GameStatePlaying.java ``getTeamsPoints``,
  CoincheGame.java): a made coinched contract scores (the takers' own points + bid) x mult and the defence keeps
  its points; a game is played to 1000, not colver's 2000.
* kydos (CephaloSophie/kydos @ deebe9b, packages/core/src/scoring/donneScoring.ts ``scoreManche``): a capot is
  scored before the contre (250 x 2 / x 4, each side keeping its belote); a failed capot bid is a plain chute.
* cardman (Cardman/projects, belote/EndBeloteGame.java ``scoreDefinitifAttaque`` / ``scoreDefinitifDefense``): a
  failed contract gives the defence 162 alone and the takers 0: nobody keeps a belote.

Hearts are trump in every hand. The card splits are the harness's (team 0 = seats 0 and 2 first).
"""

from __future__ import annotations

import pytest

from .harness import BEL_T0, BEL_T1, hand_score as hs, CAPOT_0, SPLIT_30_132, SPLIT_81_81, SPLIT_82_80, SPLIT_102_60, STD4, game, hand, ruleset

pytestmark = pytest.mark.rules



# ---------------------------------------------------------------------------------------------------- libcoinche

@pytest.mark.covers("libcoinche:contract.made_scores", "libcoinche:contract.made_min_points")
def test_libcoinche_made_scores_the_bid_alone():
    # get_game_result: made (Target::victory: points >= the bid) -> scores[takers] = target.score(), the defence
    # nothing. 102-60 on 80: [80, 0]. Scored as pagat (points + bid): [182, 60]. 81-81 on 80 is made (no 82
    # minimum): [80, 0]; with pagat's 82 minimum it fails: [0, 160].
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=80)) == [80, 0]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=80), {"contract.made_scores": "points"}) == [182, 60]
    assert hs("libcoinche", hand(STD4, **SPLIT_81_81, bid=80)) == [80, 0]
    assert hs("libcoinche", hand(STD4, **SPLIT_81_81, bid=80), {"contract.made_min_points": 82}) == [0, 160]


@pytest.mark.covers("libcoinche:contract.fail_adds_bid", "libcoinche:contract.capot_bid_failed_flat",
                    "libcoinche:contract.capot_bid_made_flat")
def test_libcoinche_failed_gives_the_defence_160():
    # get_game_result: failed -> scores[defence] = 160, nothing added. 102 on 110: [0, 160] (pagat: 160 + 110).
    # A capot bid (Target::ContractCapot, 250) made: [250, 0]; failed (102-60): [0, 160] (pagat: 500).
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=110)) == [0, 160]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=110), {"contract.fail_adds_bid": True}) == [0, 270]
    assert hs("libcoinche", hand(STD4, **CAPOT_0, bid=250, capot_bid=True)) == [250, 0]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=250, capot_bid=True)) == [0, 160]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=250, capot_bid=True),
              {"contract.capot_bid_failed_flat": 500}) == [0, 500]


@pytest.mark.covers("libcoinche:double.coinche", "libcoinche:double.surcoinche", "libcoinche:belote.enabled")
def test_libcoinche_no_multiplier_no_belote():
    # Contract::coinche_level is never read by get_game_result: coinched or surcoinched, 80 made scores [80, 0]
    # (with a x2: pagat's bid scope, base 160 + 80 x 2 = 320). No belote: team 0's K+Q of hearts add nothing ([100, 0]
    # with a belote of 20 added to the bid).
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=1)) == [80, 0]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=2)) == [80, 0]
    assert hs("libcoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=1), {"double.coinche": 2}) == [320, 0]
    assert hs("libcoinche", hand(BEL_T0, **SPLIT_102_60, bid=80)) == [80, 0]
    assert hs("libcoinche", hand(BEL_T0, **SPLIT_102_60, bid=80), {"belote.enabled": True}) == [100, 0]


# --------------------------------------------------------------------------------------------------- coincoinche

@pytest.mark.covers("coincoinche:double.scope")
def test_coincoinche_made_coinched_takers_own_points():
    # getTeamsPoints, made: takers (their trick points + bid) x multiplier, defence its trick points.
    # 102-60 on 80 coinched: (102 + 80) x 2 = 364, defence 60; surcoinched: 182 x 4 = 728, 60. Failed (102 on
    # 110, below the bid): defence (162 + 110) x 2 = 544. Scope "whole" (before): (162 + 80) x 2 = 484, 0.
    assert hs("coincoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=1)) == [364, 60]
    assert hs("coincoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=2)) == [728, 60]
    assert hs("coincoinche", hand(STD4, **SPLIT_102_60, bid=110, coinche=1)) == [0, 544]
    assert hs("coincoinche", hand(STD4, **SPLIT_102_60, bid=80, coinche=1), {"double.scope": "whole"}) == [484, 0]


@pytest.mark.covers("coincoinche:game.target")
def test_coincoinche_game_to_1000():
    # CoincheGame.WINNING_POINTS = 1000. A surcoinched capot bid made: (162 + 250) x 4 = 1648 >= 1000: the game
    # ends at hand 1, team 0 wins; to colver's 2000 it goes on.
    h = hand(STD4, **CAPOT_0, bid=250, capot_bid=True, coinche=2)
    assert hs("coincoinche", h) == [1648, 0]
    g = game(ruleset("coincoinche"), h)
    assert (g["ended_at_hand"], g["winner"]) == (1, 0)
    assert game(ruleset("coincoinche", {"game.target": 2000}), h)["winner"] is None


# --------------------------------------------------------------------------------------------------------- kydos

@pytest.mark.covers("kydos:contract.unbid_capot_flat", "double.scope")
def test_kydos_coinched_capot_is_250_times_the_multiplier():
    # scoreManche tests isCapot (the takers won all 8 tricks) before the contre: takers capotUndeclared 250 x
    # contreMultiplier 2 + their own belote, the defence its own belote. Bid 90 contré, team 0 capot holding the
    # belote: 500 + 20 = 520, 0. Surcontré, the belote held by team 1: 250 x 4 = 1000, the defence 20.
    # Undoubled: 250 + 20 = 270. Without unbid_capot_flat the flat contré award applies: 320 + every belote.
    assert hs("kydos", hand(BEL_T0, **CAPOT_0, bid=90, coinche=1)) == [520, 0]
    assert hs("kydos", hand(BEL_T1, **CAPOT_0, bid=90, coinche=2)) == [1000, 20]
    assert hs("kydos", hand(BEL_T0, **CAPOT_0, bid=90)) == [270, 0]
    assert hs("kydos", hand(BEL_T0, **CAPOT_0, bid=90, coinche=1), {"contract.unbid_capot_flat": 0}) == [340, 0]
    assert hs("kydos", hand(BEL_T1, **CAPOT_0, bid=90, coinche=2), {"contract.unbid_capot_flat": 0}) == [660, 0]


@pytest.mark.covers("kydos:contract.capot_bid_failed_flat")
def test_kydos_failed_capot_bid_is_a_chute():
    # A capot bid (contract 250, never contré) that loses a trick is not isCapot: rounded 102 -> 100 + belote 20
    # = 120 < 250 fails, scored as a chute: the defence dedansBase 160 + the belote (to the winner) = 180, the
    # takers 0. With ffb-contree-2016's 500: 500 + 20 = 520.
    h = hand(BEL_T0, **SPLIT_102_60, bid=250, capot_bid=True)
    assert hs("kydos", h) == [0, 180]
    assert hs("kydos", h, {"contract.capot_bid_failed_flat": 500}) == [0, 520]


# ------------------------------------------------------------------------------------------------------- cardman

@pytest.mark.covers("contract.fail_scores")
def test_cardman_failed_defence_162_alone():
    # EndBeloteGame: the takers' total (cards, last trick, belote, capot 100) against the defence's; failed ->
    # scoreDefinitifAttaque 0 and scoreDefinitifDefense RulesBelote.MOST = 162, the belotes not added.
    # Team 0 holds the belote, 30 + 20 = 50 < 132: [0, 162] (fail_scores "points": the takers keep 20).
    # Team 1 holds it, 81 < 81 + 20: [0, 162] ("points": 162 + 20).
    assert hs("cardman", hand(BEL_T0, **SPLIT_30_132)) == [0, 162]
    assert hs("cardman", hand(BEL_T0, **SPLIT_30_132), {"contract.fail_scores": "points"}) == [20, 162]
    assert hs("cardman", hand(BEL_T1, **SPLIT_81_81)) == [0, 162]
    assert hs("cardman", hand(BEL_T1, **SPLIT_81_81), {"contract.fail_scores": "points"}) == [0, 182]


@pytest.mark.covers("cardman:contract.fail_scores")
def test_cardman_coinche_failed_defence_162_alone():
    # coinche mode (withBidPointsForAllPlayers): made iff the takers' total >= bid, no bid added. 82 + belote 20
    # = 102 on 100: made [102, 80]; on 110: failed [0, 162] ("points": the takers keep their 20).
    assert hs("cardman-coinche", hand(BEL_T0, **SPLIT_82_80, bid=100)) == [102, 80]
    assert hs("cardman-coinche", hand(BEL_T0, **SPLIT_82_80, bid=110)) == [0, 162]
    assert hs("cardman-coinche", hand(BEL_T0, **SPLIT_82_80, bid=110), {"contract.fail_scores": "points"}) == [20, 162]
