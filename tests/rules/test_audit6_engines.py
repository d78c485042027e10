"""Rulesets modelled on public programs and rulebooks, checked against their sources (a sixth audit).

* nikolayit, bulgarian (NikolayIT/BelotGameEngine @ 8cddd69, src/Belot.Engine/BelotGame.cs ``PlayGame``): a team
  wins when its total is >= 151 and above the other's AND its points of that round are > 0, the round not being a
  valat (NoTricksForOneOfTheTeams) nor passed out. BG-HIT (etc/Rules.md, the game-end paragraph after the
  double/redouble ones): no winning the game with a valat; the barrier is then the leaders' score + 1.
* belot-scorer (stoyanov624/Belot_Scorer @ 2f41491, src/core/match.ts ``endsMatch``; docs/adr/0018): a deal ends
  the match when a team reached the target, the totals differ and the team that would lose took card points in
  that deal (``cards[loser] > 0``); a capot by the team left behind ends it.
* hackbulgaria (HackBulgaria/Programming-101-Python-2020-Spring @ 0ffa486, week04/02.BeloteDeclarations/README.md):
  a belote is K and Q of one suit held, of every suit in all-trump, and every belote counts (no play condition).

Hearts are trump in every hand. The card splits are the harness's (team 0 = seats 0 and 2).
"""

from __future__ import annotations

import pytest

from .harness import PACK, SPLIT_30_132, SPLIT_102_60, STD4, deal, game, hand, rest, ruleset, score1

pytestmark = pytest.mark.rules

ALL = " ".join(PACK)
# Bulgarian game points (tens): a valat in hearts is 162 + 90 = 252 -> 25 (belot-scorer: 152 + 100 = 252 -> 25)
CAP0 = hand(STD4, won=[ALL], last=0, taker=0)                  # team 0 takes every trick: [25, 0]
CAP1 = hand(STD4, won=["", ALL], last=1, taker=1)              # team 1 takes every trick: [0, 25]
INSIDE0 = hand(STD4, **SPLIT_30_132, taker=0)                  # team 0 bids, 30 - 132: inside, 162 -> [0, 16]
MADE0 = hand(STD4, **SPLIT_102_60, taker=0)                    # team 0 bids, 102 - 60: [10, 6]
# team 0 bids and takes every trick but one of four cards worth nothing (not the last): 162 - 0, no valat: [16, 0]
ZERO1 = hand(STD4, won=[rest("7C 8C 9C 7D"), "7C 8C 9C 7D"], last=0, taker=0)


def end(row):
    return row["totals_at_end"], row["ended_at_hand"], row["winner"]


@pytest.mark.covers("game.exit_needs", "nikolayit:game.exit_needs", "bulgarian:game.exit_needs")
def test_nikolayit_no_win_on_a_zero_round_after_a_valat():
    # Six valats by team 1 [0, 150], seven by team 0 [175, 150] (no valat hand ends the game), then team 0 goes
    # inside twice: [175, 166], [175, 182].
    # BG-NIK PlayGame: after hand 14 team 0 leads 175 >= 151 but its round points are 0 -> no end; after hand 15
    # team 1 has 182 > 175 with 16 round points -> team 1 wins at hand 15 with [175, 182]. (BG-HIT: the barrier
    # after the valat is 175 + 1 = 176: 166 and 175 stay under it at hand 14, team 1's 182 passes it at hand 15.)
    # Before (exit_needs "none"): the game ended at hand 14 with team 0 the winner at [175, 166].
    hands = [CAP1] * 6 + [CAP0] * 7 + [INSIDE0, INSIDE0]
    for name in ("nikolayit", "bulgarian"):
        assert end(game(ruleset(name), *hands)) == ([175, 182], 15, 1)
        assert end(game(ruleset(name, {"game.exit_needs": "none"}), *hands)) == ([175, 166], 14, 0)


@pytest.mark.covers("game.exit_needs", "belot-scorer:game.exit_needs", "belot-scorer:game.no_exit_on_capot")
def test_belot_scorer_match_end_needs_the_losers_card_points():
    # Belot_Scorer endsMatch: ends when max(total) >= 151, the totals differ and cards[loser] > 0 in the deal.
    # (1) Seven capots by team 1: [0, 175], each blocked (the loser, team 0, took no card). Hand 8: team 0's capot
    # [25, 175]: the loser is still team 0, which took the cards this time -> the match ends at hand 8, team 1
    # wins. Before (no exit on any capot): hand 8 was a capot, play on; seven more team 0 capots [200, 175] and a
    # made hand [210, 181] gave the game to team 0 at hand 16.
    hands = [CAP1] * 7 + [CAP0] * 8 + [MADE0]
    assert end(game(ruleset("belot-scorer"), *hands)) == ([25, 175], 8, 1)
    before = {"game.exit_needs": "none", "game.no_exit_on_capot": True}
    assert end(game(ruleset("belot-scorer", before), *hands)) == ([210, 181], 16, 0)
    # (2) Six capots by team 0 [150, 0]; hand 7: team 0 takes 162 card points and team 1 one trick worth 0, no
    # capot: [166, 0], but the loser (team 1) took no card point -> blocked; hand 8 (made 10 - 6): [176, 6], team 1
    # took 60 -> ends at hand 8. Before: ended at hand 7 at [166, 0].
    hands = [CAP0] * 6 + [ZERO1, MADE0]
    assert end(game(ruleset("belot-scorer"), *hands)) == ([176, 6], 8, 0)
    assert end(game(ruleset("belot-scorer", before), *hands)) == ([166, 0], 7, 0)
    # "winner_points" would not defer hand 7 (team 0 scored 16 there)
    assert end(game(ruleset("belot-scorer", {"game.exit_needs": "winner_points"}), *hands)) == ([166, 0], 7, 0)


# ------------------------------------------------------------------------------------------------- hackbulgaria

# All-trump, seat 0 leads: seat 0 holds AS KS QS (a tierce) and so the spade belote, seat 1 KD QD (the diamond
# belote) and no spade. Every play below is legal (follow suit, beat the best card of the suit led when able).
AT_DEAL = deal("AS KS QS 7C JC TH 9H KH", "KD QD 9D 8C QC AH 7D 8D", "9C KC TD AD 7H JH 8S 7S",
               "TC AC JD 8H QH 9S TS JS")
AT_PLAY = [(0, "AS"), (1, "QD"), (2, "8S"), (3, "9S"),      # seat 1 discards QD, the first of its pair, on spades
           (3, "JS"), (0, "QS"), (1, "8D"), (2, "7S"),      # seat 0's QS follows suit
           (3, "TS"), (0, "KS"), (1, "7D"), (2, "9C"),
           (3, "AC"), (0, "JC"), (1, "8C"), (2, "KC"),
           (0, "7C"), (1, "QC"), (2, "7H"), (3, "TC"),
           (3, "JD"), (0, "TH"), (1, "KD"), (2, "TD"),
           (3, "8H"), (0, "9H"), (1, "AH"), (2, "JH"),
           (2, "AD"), (3, "QH"), (0, "KH"), (1, "9D")]


@pytest.mark.covers("hackbulgaria:belote.all_trump")
def test_hackbulgaria_every_all_trump_belote_counts():
    # The exercise (week04/02.BeloteDeclarations/README.md @ 0ffa486, sections Belote and Scoring): K and Q of one
    # suit make a belote, in all-trump of every suit, and every belote counts: team 0 20 (spades), team 1 20
    # (diamonds), whatever card seat 1 played its QD on.
    # Card points (all-trump, trump values): team 0 wins trick 4 (AC 11 + JC 20 + 8C 0 + KC 4 = 35) and trick 7
    # (8H 0 + 9H 14 + AH 11 + JH 20 = 45): 80; team 1 258 - 80 = 178 (last trick included).
    # Team 0 (taker) 80 + tierce 20 + belote 20 = 120 < team 1 178 + 20 = 198: inside, team 1 takes everything:
    # 80 + 178 + 20 + 20 + 20 = 318 -> 32. Before (per_suit_led, BG-HIT): seat 1's belote lost (QD discarded on a
    # spade lead): 298 -> 30.
    h = hand(AT_DEAL, plays=AT_PLAY, strain="AT", taker=0)
    row = score1(ruleset("hackbulgaria"), h)
    assert (row["legal"], row["belote_points"], row["hand_score"]) == (True, [20, 20], [0, 32])
    row = score1(ruleset("hackbulgaria", {"belote.all_trump": "per_suit_led"}), h)
    assert (row["belote_points"], row["hand_score"]) == ([20, 0], [0, 30])


# ------------------------------------------------------------------------------------------------------ colver

@pytest.mark.covers("game.end_tie", "colver:game.end_tie")
def test_colver_equal_totals_over_the_target_go_to_ns():
    # colver-core/src/game_loop.rs play_match (Avo-k/colver @ 49986bb): deals until a total reaches the target;
    # both at it or over: 'if ns >= ew' -> NS (team 0) wins, so equal totals go to team 0. Colver hands (no rounding,
    # the bid added to a made contract): team 0 bids 80 and makes 102 - 60: [182, 60]; then team 1 bids 80 and makes
    # 102 - 60: [60, 182]. Target lowered to 242: totals [242, 242], both at the target -> team 0 wins at hand 2.
    # Before ("play_on", FFB): no winner.
    a = hand(STD4, **SPLIT_102_60, taker=0, bid=80)
    b = hand(STD4, won=[SPLIT_102_60["won"][1], SPLIT_102_60["won"][0]], last=1, taker=1, bid=80)
    R = ruleset("colver", {"game.target": 242})
    assert end(game(R, a, b)) == ([242, 242], 2, 0)
    assert end(game(ruleset("colver", {"game.target": 242, "game.end_tie": "play_on"}), a, b)) == (None, None, None)


@pytest.mark.covers("belot-scorer:game.exit_needs")
def test_belot_scorer_match_end_through_the_lake(tmp_path):
    # The same game as case (2) above, imported and rescored as a user would: the lake's game pass reads the
    # scores back sorted by game, and must hand game_pass the card points "loser_cards" needs (without them every
    # hand looks like one whose card points were not recorded, and the match ended at hand 7 at [166, 0]).
    import orjson

    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake
    from pipeline.storage import lake as lakemod

    hands = [CAP0] * 6 + [ZERO1, MADE0]
    obj = {"format": "rebelote", "version": 1, "source": "ruletest", "source_game_id": "g1", "variant": "bulgarian",
           "n_players": 4, "players": ["P0", "P1", "P2", "P3"], "target": None, "ruleset_hint": None,
           "hands": [dict(h, hand_no=i + 1) for i, h in enumerate(hands)]}
    (tmp_path / "g.jsonl").write_bytes(orjson.dumps(obj) + b"\n")
    ingest_paths([tmp_path / "g.jsonl"], tmp_path / "lake")
    rescore_lake(tmp_path / "lake", ruleset("belot-scorer"))
    row = lakemod.read(tmp_path / "lake", "game_scores").to_pylist()[0]
    assert end(row) == ([176, 6], 8, 0)


@pytest.mark.covers("belot-scorer:game.exit_needs")
def test_belot_scorer_passed_out_deal_does_not_end_a_blocked_match():
    # Belot_Scorer saveDeal refuses a deal without a contract ('no-contract'), so endsMatch never runs on one.
    # Six team-0 capots [150, 0], ZERO1 [166, 0] blocked (the losers took no card point), a passed-out deal
    # (totals unchanged): still blocked, no deal to judge; MADE0 [176, 6] ends it at hand 9. Before (a hand without
    # card points never deferring the end): the match ended at the passed-out hand 8 at [166, 0].
    passed = hand(STD4, taker=None)
    assert end(game(ruleset("belot-scorer"), *([CAP0] * 6 + [ZERO1, passed, MADE0]))) == ([176, 6], 9, 0)


@pytest.mark.covers("coincoinche:game.end_tie")
def test_coincoinche_equal_totals_play_on():
    # coincoinche CoincheGame: a team wins at 1000 or more only with strictly more points than the other; it extends
    # colver, whose game loop gives equal totals to NS. Target lowered to 242: 102-60 made on 80 by team 0 gives
    # [182, 60]; the mirror hand by team 1 [60, 182]: [242, 242] at hand 2, no winner (colver's rule: team 0).
    a = hand(STD4, **SPLIT_102_60, taker=0, bid=80)
    b = hand(STD4, won=[SPLIT_102_60["won"][1], SPLIT_102_60["won"][0]], last=1, taker=1, bid=80)
    assert end(game(ruleset("coincoinche", {"game.target": 242}), a, b)) == (None, None, None)
    assert end(game(ruleset("coincoinche", {"game.target": 242, "game.end_tie": "first_team"}), a, b)) == ([242, 242], 2, 0)
