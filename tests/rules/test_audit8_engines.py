"""Rulesets checked against the sources they cite (an eighth audit): bulgarian-2001, belote-classic-301/501,
ffb-classic-announcements.

* ffb-classic-announcements cites the FFB web rules (FFB-Bweb, rules.md §0: the pages 'Règlement officiel de la
  belote avec ou sans annonce' and /regles-officielle-belote/, read through the quotations of Avo-k/colver
  docs/rules-survey/matrices/fin-de-partie.md §4): « Il est possible de terminer sur une belote. La seule
  condition est de ne pas être capot. On ne termine jamais une partie sur un capot accompagné d'une belote… un pli
  supplémentaire devra être effectué. »
* belote-classic (and -301/-501) follows seed 000 on the game's end: the player or pair that reaches the game's
  total wins it (no exception).

Hearts are trump in every hand. The card splits are the harness's (team 0 = seats 0 and 2).
"""

from __future__ import annotations

import pytest

from .harness import BEL_T0, CAPOT_0, CAPOT_1, SPLIT_30_132, SPLIT_102_60, STD4, game, hand, ruleset

pytestmark = pytest.mark.rules


def end(row):
    return row["totals_at_end"], row["ended_at_hand"], row["winner"]


# team 0 makes a capot: [252, 0]
CAP0 = hand(STD4, **CAPOT_0, taker=0)
# team 1 takes and makes a capot against team 0, which holds the belote (K+Q of hearts in seat 0): team 0 took no
# trick and keeps its belote 20 (FFB-B16 §7; its declarations, none here, would be lost): [20, 252]
CAP1_BEL0 = hand(BEL_T0, **CAPOT_1, taker=1)
# team 0 takes and fails, 30 card points + its belote 20 = 50 < 132: the defence 162, team 0 keeps its belote: [20, 162]
FAIL0_BEL0 = hand(BEL_T0, **SPLIT_30_132, taker=0)
# team 0 takes and makes 102 - 60
MADE0 = hand(STD4, **SPLIT_102_60, taker=0)


@pytest.mark.covers("game.belote_alone_when")
def test_ffb_web_no_game_on_a_capoted_teams_belote():
    # FFB-Bweb: « La seule condition est de ne pas être capot. On ne termine jamais une partie sur un capot
    # accompagné d'une belote… un pli supplémentaire devra être effectué. » Target lowered to 270 (a parameter of
    # its own; FFB leaves it to the organiser).
    # (1) Hand 1 [252, 0]; hand 2 team 1's capot against team 0's belote: [272, 252]. Team 0 is over 270 on the 20
    # of a capoted belote alone (252 < 270 without it): the game goes on. Hand 3, team 0 makes 102 - 60: [374, 312],
    # team 0 wins at hand 3. Before (no such rule): team 0 won at hand 2 with [272, 252].
    R = ruleset("ffb-classic-announcements", {"game.target": 270})
    assert end(game(R, CAP0, CAP1_BEL0, MADE0)) == ([374, 312], 3, 0)
    # (2) « Il est possible de terminer sur une belote »: team 0 fails its contract but took tricks, keeping its
    # belote: [252, 0] + [20, 162] = [272, 162] ends the game at hand 2, team 0 the winner.
    assert end(game(R, CAP0, FAIL0_BEL0)) == ([272, 162], 2, 0)
    # "failed_or_capot" (FFB-Co15 §10.3: « capot ou chute ») would also stop the failed takers' belote win
    R2 = ruleset("ffb-classic-announcements", {"game.target": 270, "game.belote_alone_when": "failed_or_capot"})
    row = game(R2, CAP0, FAIL0_BEL0)
    assert (row["totals"], end(row)) == ([272, 162], (None, None, None))
    # without the rule (ffb-classic-announcements before): the capoted belote won at hand 2
    R3 = ruleset("ffb-classic-announcements", {"game.target": 270, "game.no_win_on_belote_alone": False})
    assert end(game(R3, CAP0, CAP1_BEL0, MADE0)) == ([272, 252], 2, 0)


@pytest.mark.covers("game.no_win_on_belote_alone")
@pytest.mark.parametrize("name", ["belote-classic", "belote-classic-301", "belote-classic-501"])
def test_seed_000_game_ends_on_reaching_the_target(name):
    # seed 000: the player or pair that reaches the game's total wins it; belote-classic keeps no
    # exception for a capoted team's belote (it extends ffb-classic-announcements, which has one). The same three
    # hands as above with the target at 270: team 0 wins at hand 2 with [272, 252].
    R = ruleset(name, {"game.target": 270})
    assert end(game(R, CAP0, CAP1_BEL0, MADE0)) == ([272, 252], 2, 0)
