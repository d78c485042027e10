"""Three-player belote (ruleset belote-3p): hand-computed deals, and properties of simulated 3-player games.

Every player plays for himself: per-team lists are per player (team = seat), the taker against the two others.
Dealer seat 2, so seat 0 leads the first trick. Hearts are trump. 9 cards each from the 32-card pack
(ADPOKER3: 2 x 3 cards, the 19th turned, 3 more), the 5 other cards out of play, counting for nobody.
Card values (rules.md R6/R7): trump J 20, 9 14, A 11, 10 10, K 4, Q 3; plain A 11, 10 10, K 4, Q 3, J 2.
Every trick below is written out with the obligation that forced each card and its card points.
"""

from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from helpers import game_results, score
from pipeline import rules
from pipeline.formats import native
from pipeline.storage import schema
from pipeline.formats.records import RecordError
from pipeline.formats.validate import check_hand
from pipeline.rescore import score_batch
from pipeline.rescore.tables import build
from pipeline.stats.show import explain, render
from pipeline.simulate.games import simulate

# ---------------------------------------------------------------------------------------------- deal 1
# A capot: seat 0 takes every trick (rules_examples.md E1). Out of play: 7C 8C 8D JS 7S (JS 2 points), so the
# cards in play are worth 152 - 2 = 150. No run of three, no carré, KH and QH in different hands (no belote).
DEAL1 = [["JH", "9H", "AH", "7H", "AC", "TC", "KC", "AD", "TD"],
         ["KH", "8H", "QC", "JC", "9C", "KD", "QD", "AS", "TS"],
         ["QH", "TH", "KS", "QS", "9S", "8S", "JD", "9D", "7D"]]
# T1 P0 JH, P1 8H, P2 QH (trump led, nobody can beat the jack: any heart)   20 + 0 + 3 = 23 -> P0
# T2 P0 9H, P1 KH, P2 TH (their last hearts, lower than the 9)              14 + 4 + 10 = 28 -> P0
# T3 P0 AH, P1 9C, P2 7D (no hearts left: any card)                         11 + 0 + 0 = 11 -> P0
# T4 P0 7H, P1 JC, P2 8S                                                     0 + 2 + 0 = 2 -> P0
# T5 P0 AC, P1 QC (follows), P2 9S (void, no trump)                          11 + 3 + 0 = 14 -> P0
# T6 P0 TC, P1 KD (void in clubs now), P2 9D                                 10 + 4 + 0 = 14 -> P0
# T7 P0 AD, P1 QD, P2 JD                                                     11 + 3 + 2 = 16 -> P0
# T8 P0 TD, P1 TS, P2 QS (both void in diamonds)                             10 + 10 + 3 = 23 -> P0
# T9 P0 KC, P1 AS, P2 KS (both void in clubs)                                4 + 11 + 4 = 19 -> P0
# P0: 23 + 28 + 11 + 2 + 14 + 14 + 16 + 23 + 19 = 150 = every card in play.
PLAYS1 = [[0, "JH"], [1, "8H"], [2, "QH"], [0, "9H"], [1, "KH"], [2, "TH"], [0, "AH"], [1, "9C"], [2, "7D"],
          [0, "7H"], [1, "JC"], [2, "8S"], [0, "AC"], [1, "QC"], [2, "9S"], [0, "TC"], [1, "KD"], [2, "9D"],
          [0, "AD"], [1, "QD"], [2, "JD"], [0, "TD"], [1, "TS"], [2, "QS"], [0, "KC"], [1, "AS"], [2, "KS"]]

# ---------------------------------------------------------------------------------------------- deal 2
# Declarations among three and belote. Out of play: TS JS 9S 8S 7S (TS 10 + JS 2 = 12): 140 in play + 10 last trick.
DEAL2 = [["KH", "QH", "9H", "7H", "AC", "7C", "AD", "8D", "AS"],   # belote (KH QH) 20; no run of three
         ["JH", "8H", "KC", "QC", "JC", "9D", "7D", "KS", "QS"],   # tierce J-Q-K of clubs (20)
         ["AH", "TH", "TC", "9C", "8C", "KD", "QD", "JD", "TD"]]   # quarte T-J-Q-K of diamonds (50), tierce 8-9-10 of clubs (20)
# Contest (rules.md R23, unified): P2's quarte (50) beats P1's tierce, so P2 scores all his: 50 + 20 = 70; P1, P0: 0.
# T1 P0 AS, P1 QS (follows), P2 TH (void in spades: must trump, any trump)   11 + 3 + 10 = 24 -> P2
# T2 P2 KD, P0 AD, P1 7D (follow suit)                                        4 + 11 + 0 = 15 -> P0
# T3 P0 KH, P1 JH (trump led: must overtrump, the jack beats the king), P2 AH (his only heart)  4 + 20 + 11 = 35 -> P1
# T4 P1 KC, P2 TC, P0 AC                                                      4 + 10 + 11 = 25 -> P0
# T5 P0 QH, P1 8H (cannot beat the queen), P2 8C (no trump left)              3 + 0 + 0 = 3 -> P0
# T6 P0 9H, P1 9D, P2 9C (no trumps)                                          14 + 0 + 0 = 14 -> P0
# T7 P0 7H, P1 JC, P2 JD                                                      0 + 2 + 2 = 4 -> P0
# T8 P0 7C, P1 QC (follows), P2 QD (void, no trump)                           0 + 3 + 3 = 6 -> P1
# T9 P1 KS, P2 TD, P0 8D (both void in spades, no trump)                      4 + 10 + 0 = 14 + 10 last trick -> P1
# Card points: P0 15 + 25 + 3 + 14 + 4 = 61; P1 35 + 6 + 14 + 10 = 65; P2 24. 61 + 65 + 24 = 150.
# Totals (cards + declarations + belote): P0 61 + 20 = 81; P1 65; P2 24 + 70 = 94.
PLAYS2 = [[0, "AS"], [1, "QS"], [2, "TH"], [2, "KD"], [0, "AD"], [1, "7D"], [0, "KH"], [1, "JH"], [2, "AH"],
          [1, "KC"], [2, "TC"], [0, "AC"], [0, "QH"], [1, "8H"], [2, "8C"], [0, "9H"], [1, "9D"], [2, "9C"],
          [0, "7H"], [1, "JC"], [2, "JD"], [0, "7C"], [1, "QC"], [2, "QD"], [1, "KS"], [2, "TD"], [0, "8D"]]

# ---------------------------------------------------------------------------------------------- deal 3
# Exactly one player capot (ADPOKER3: capote 100, "cinquante pour chacun s'il n'y a qu'un capot").
# Out of play: KS QS TS 8S KD (4 + 3 + 10 + 0 + 4 = 21): 131 in play.
DEAL3 = [["JH", "9H", "AH", "8H", "AC", "TC", "QD", "TD", "AS"],   # three aces only: no carré
         ["7H", "7C", "9C", "JC", "7D", "9D", "7S", "9S", "JS"],   # four 7s: a carré worth 0 (declarations.carre)
         ["TH", "QH", "KH", "KC", "QC", "8C", "AD", "JD", "8D"]]   # belote (KH QH) 20; no run of three anywhere
# T1 P0 JH, P1 7H (his only heart), P2 QH (cannot beat the jack)             20 + 0 + 3 = 23 -> P0
# T2 P0 AS, P1 7S (follows), P2 TH (void in spades: must trump)              11 + 0 + 10 = 21 -> P2
# T3 P2 KC, P0 AC, P1 9C                                                      4 + 11 + 0 = 15 -> P0
# T4 P0 9H, P1 7C (no heart: any), P2 KH (his last heart, lower)              14 + 0 + 4 = 18 -> P0
# T5 P0 AH, P1 9S, P2 8C                                                      11 + 0 + 0 = 11 -> P0
# T6 P0 8H, P1 JS, P2 8D                                                      0 + 2 + 0 = 2 -> P0
# T7 P0 TC, P1 JC, P2 QC                                                      10 + 2 + 3 = 15 -> P0
# T8 P0 QD, P1 7D, P2 JD (follows low)                                        3 + 0 + 2 = 5 -> P0
# T9 P0 TD, P1 9D, P2 AD                                                      10 + 0 + 11 = 21 -> P2 (no 10: see below)
# P0 23 + 15 + 18 + 11 + 2 + 15 + 5 = 89, P2 21 + 21 = 42, P1 none: 89 + 42 = 131. P1 is the only player capot:
# P0 and P2 score 50 each instead of the last trick's 10 -> card points 139 - 0 - 92.
PLAYS3 = [[0, "JH"], [1, "7H"], [2, "QH"], [0, "AS"], [1, "7S"], [2, "TH"], [2, "KC"], [0, "AC"], [1, "9C"],
          [0, "9H"], [1, "7C"], [2, "KH"], [0, "AH"], [1, "9S"], [2, "8C"], [0, "8H"], [1, "JS"], [2, "8D"],
          [0, "TC"], [1, "JC"], [2, "QC"], [0, "QD"], [1, "7D"], [2, "JD"], [0, "TD"], [1, "9D"], [2, "AD"]]


def hand(deal, plays, taker, hand_no=1, turned="7S"):
    return {"hand_no": hand_no, "dealer": 2, "hands": deal, "turned_card": turned,
            "auction": [[s, "pass"] for s in range(taker)] + [[taker, "take"]],
            "contract": {"taker": taker, "strain": "H", "bid": None, "coinche": 0}, "plays": plays}


def game(*hands, gid="3p"):
    return {"format": "rebelote", "version": 1, "source": "test", "source_game_id": gid, "variant": "belote-3p",
            "n_players": 3, "players": ["Ana", "Ben", "Cleo"], "hands": list(hands)}


def test_capot_e1_one_player_takes_every_trick():
    # rules_examples.md E1 (ADPOKER3): two players capot, the maker of the capote scores the 100 alone, no 10 for
    # the last trick: 150 card points + 100 = 250; made (250 > 0): each scores his own total.
    (r,) = score("belote-3p", game(hand(DEAL1, PLAYS1, taker=0)))
    assert r["legal"] is True and r["trick_winners"] == [0] * 9
    assert r["capot_team"] == 0 and r["last_trick_team"] == 0
    assert r["card_points"] == [250, 0, 0]
    assert r["declaration_points"] == [0, 0, 0] and r["belote_points"] == [0, 0, 0] and r["belote_team"] is None
    assert r["contract_made"] is True and r["hand_score"] == [250, 0, 0]


def test_capot_e1_one_player_capot_splits_the_bonus():
    # E1's other case: only P1 took no trick, so P0 and P2 score 50 each and nobody the last trick's 10:
    # P0 89 + 50 = 139, P2 42 + 50 = 92 (+ belote 20 = 112), P1 0. Taker P0: 139 > 112 and 139 > 0 -> made.
    (r,) = score("belote-3p", game(hand(DEAL3, PLAYS3, taker=0)))
    assert r["legal"] is True and r["trick_winners"] == [0, 2, 0, 0, 0, 0, 0, 0, 2]
    assert r["capot_team"] is None and r["last_trick_team"] == 2
    assert r["card_points"] == [139, 0, 92]
    assert r["declaration_points"] == [0, 0, 0]   # P1's four 7s are a carré worth 0
    assert r["belote_points"] == [0, 0, 20] and r["belote_team"] == 2
    assert r["contract_points"] == [139, 0, 112]
    assert r["contract_made"] is True and r["hand_score"] == [139, 0, 112]


def test_declarations_contest_and_belote_among_three():
    # DEAL2: P2's quarte beats P1's tierce (unified contest, rules.md R23): P2 scores quarte + his tierce = 70;
    # P1's tierce scores nothing. Belote-rebelote (KH QH) 20 to P0, who plays both (T3 and T5).
    (r,) = score("belote-3p", game(hand(DEAL2, PLAYS2, taker=2)))
    assert r["legal"] is True and r["trick_winners"] == [2, 0, 1, 0, 0, 0, 0, 1, 1]
    assert r["card_points"] == [61, 65, 24] and r["last_trick_team"] == 1
    assert r["declaration_points"] == [0, 0, 70]
    assert r["belote_points"] == [20, 0, 0] and r["belote_team"] == 0


def test_made_contract():
    # DEAL2 taken by P2: his total 94 beats each opponent (P0 81, P1 65; FUNBELOTE: more than either) -> made,
    # every player scores his own total: [81, 65, 94].
    (r,) = score("belote-3p", game(hand(DEAL2, PLAYS2, taker=2)))
    assert r["taker_team"] == 2 and r["contract_points"] == [81, 65, 94]
    assert r["contract_made"] is True and r["litige"] is False
    assert r["hand_score"] == [81, 65, 94] and r["held_points"] == 0


def test_failed_contract_shares_the_takers_points():
    # DEAL2 taken by P0: 81 < 94 (P2) -> failed although P0 beats P1. solo_fail = "share": the taker keeps his
    # belote (20, belote.on_failure = keep); his 61 card points are halved between the opponents: 30 each and the
    # odd point to P1 (seated next after the taker): P1 65 + 31 = 96, P2 94 + 30 = 124. Total 20 + 96 + 124 = 240
    # = 150 card points + 70 declarations + 20 belote: nothing is lost.
    (r,) = score("belote-3p", game(hand(DEAL2, PLAYS2, taker=0)))
    assert r["contract_made"] is False and r["hand_score"] == [20, 96, 124]
    # taken by P1 (65 < 94): his 65 card points give 32 each, the odd point to P2 (next after P1):
    # P0 81 + 32 = 113, P2 94 + 33 = 127, P1 nothing (no belote, no declaration scored).
    (r,) = score("belote-3p", game(hand(DEAL2, PLAYS2, taker=1)))
    assert r["contract_made"] is False and r["hand_score"] == [113, 0, 127]


def _house(tmp_path: Path, body: str, name: str) -> str:
    f = tmp_path / f"{name}.toml"
    f.write_text(f'name = "{name}"\nextends = "belote-3p"\n{body}')
    return str(f)


def test_made_test_and_award_parameters(tmp_path):
    # contract.solo_made = "combined": P2's 94 must beat P0 + P1 = 81 + 65 = 146 -> failed; solo_fail = "own":
    # the opponents keep only their own totals, the taker keeps nothing (no belote): [81, 65, 0].
    f = _house(tmp_path, '[contract]\nsolo_made = "combined"\nsolo_fail = "own"\n', "house-3p-combined")
    (r,) = score(f, game(hand(DEAL2, PLAYS2, taker=2)))
    assert r["contract_made"] is False and r["hand_score"] == [81, 65, 0]
    # capot_split_each = 0: the single capot of DEAL3 scores no bonus and the last trick counts 10 for P2, who won
    # it: P0 89, P2 42 + 10 = 52 (+ belote 20 = 72) -> made, [89, 0, 72].
    f = _house(tmp_path, '[cards]\ncapot_split_each = 0\n', "house-3p-nosplit")
    (r,) = score(f, game(hand(DEAL3, PLAYS3, taker=0)))
    assert r["card_points"] == [89, 0, 52] and r["hand_score"] == [89, 0, 72]


def test_illegal_play_failing_to_trump():
    # DEAL2 with P2 discarding 8C on the spade lead of trick 1 while void in spades and holding AH TH: he must trump
    # (play.must_trump; no partner to exempt him at three). The hand is still scored as played:
    # T1 P0 AS, P1 QS, P2 8C (illegal)            11 + 3 + 0 = 14 -> P0
    # T2 P0 AD, P1 7D, P2 TD                        11 + 0 + 10 = 21 -> P0
    # T3 P0 KH, P1 JH (must overtrump), P2 TH       4 + 20 + 10 = 34 -> P1
    # T4 P1 KC, P2 TC, P0 AC                        4 + 10 + 11 = 25 -> P0
    # T5 P0 QH, P1 8H, P2 AH (must overtrump: the ace beats the queen)  3 + 0 + 11 = 14 -> P2
    # T6 P2 KD, P0 8D, P1 9D                        4 + 0 + 0 = 4 -> P2
    # T7 P2 QD, P0 7H (void: must trump), P1 JC (void, no trump)  3 + 0 + 2 = 5 -> P0
    # T8 P0 9H, P1 QC, P2 JD                        14 + 3 + 2 = 19 -> P0
    # T9 P0 7C, P1 KS (void), P2 9C (follows, higher)  0 + 4 + 0 = 4 + 10 last trick -> P2
    # P0 14 + 21 + 25 + 5 + 19 = 84, P1 34, P2 14 + 4 + 14 = 32 (150). Totals: P0 84 + 20 belote = 104,
    # P1 34, P2 32 + 70 = 102 -> P0's contract made (104 > 102 and > 34): [104, 34, 102].
    plays = [[0, "AS"], [1, "QS"], [2, "8C"], [0, "AD"], [1, "7D"], [2, "TD"], [0, "KH"], [1, "JH"], [2, "TH"],
             [1, "KC"], [2, "TC"], [0, "AC"], [0, "QH"], [1, "8H"], [2, "AH"], [2, "KD"], [0, "8D"], [1, "9D"],
             [2, "QD"], [0, "7H"], [1, "JC"], [0, "9H"], [1, "QC"], [2, "JD"], [0, "7C"], [1, "KS"], [2, "9C"]]
    (r,) = score("belote-3p", game(hand(DEAL2, plays, taker=0)))
    assert (r["legal"], r["illegal_trick"], r["illegal_seat"], r["illegal_rule"]) == (False, 1, 2, "must_trump")
    assert r["illegal_card"] == 1   # 8C: suit clubs (0) * 8 + rank index of the 8 (1)
    assert r["trick_winners"] == [0, 0, 1, 0, 2, 2, 0, 0, 2]
    assert r["card_points"] == [84, 34, 32] and r["hand_score"] == [104, 34, 102]


def _rotated(deal, plays, taker, hand_no):
    """The same hand one seat on: seat s's cards go to seat s + 1, the dealer is seat 0, so seat 1 leads."""
    h = hand([deal[2], deal[0], deal[1]], [[(s + 1) % 3, c] for s, c in plays], (taker + 1) % 3, hand_no)
    h["dealer"] = 0
    h["auction"] = [[(s + 1) % 3, c] for s, c in h["auction"]]
    return h


def test_seat_rotation_rotates_the_scores():
    # DEAL2 taken by P0 ([20, 96, 124], above) one seat on: every list follows its player.
    (r,) = score("belote-3p", game(_rotated(DEAL2, PLAYS2, 0, 1)))
    assert r["legal"] is True and r["taker_team"] == 1
    assert r["card_points"] == [24, 61, 65] and r["declaration_points"] == [70, 0, 0]
    assert r["hand_score"] == [124, 20, 96]


def test_game_pass_to_one_winner(tmp_path):
    # Target 250 (a house ruleset over belote-3p): hand 1 = DEAL2 taken by P2, made [81, 65, 94]; hand 2 = DEAL1 one
    # seat on, P1's capot [0, 250, 0] -> totals [81, 315, 94]: P1 alone at or over 250 -> P1 wins at hand 2.
    # Under belote-3p's own target (1000) the same hands finish nothing.
    f = _house(tmp_path, "[game]\ntarget = 250\n", "house-3p-250")
    g = game(hand(DEAL2, PLAYS2, taker=2, hand_no=1), _rotated(DEAL1, PLAYS1, 0, 2))
    (res,) = game_results(f, g)
    assert res["totals"] == [81, 315, 94] and res["totals_at_end"] == [81, 315, 94]
    assert res["winner"] == 1 and res["ended_at_hand"] == 2
    (res,) = game_results("belote-3p", g)
    assert res["totals"] == [81, 315, 94] and res["winner"] is None and res["ended_at_hand"] is None


def test_game_pass_runs_until_a_total_reaches_the_target(tmp_path):
    # Target 300: hand 1 P0's capot [250, 0, 0] and hand 2 P1's capot [0, 250, 0] leave [250, 250, 0], nobody
    # at 300; hand 3 = DEAL2 taken by P0, failed [20, 96, 124] -> [270, 346, 124]: P1 wins at hand 3.
    f = _house(tmp_path, "[game]\ntarget = 300\n", "house-3p-300")
    g = game(hand(DEAL1, PLAYS1, taker=0, hand_no=1), _rotated(DEAL1, PLAYS1, 0, 2),
             hand(DEAL2, PLAYS2, taker=0, hand_no=3))
    (res,) = game_results(f, g)
    assert res["n_hands"] == 3 and res["unresolved_held"] == 0
    assert res["totals_at_end"] == [270, 346, 124] and res["winner"] == 1 and res["ended_at_hand"] == 3


# ---------------------------------------------------------------------------------------------- records

def _rows(g):
    return native.game_to_rows(g, "rebelote", "<test>", None)[1]


def test_native_record_validates_and_round_trips():
    (row,) = _rows(game(hand(DEAL2, PLAYS2, taker=0)))
    check_hand(row)   # 9 cards each, 27 plays, 5 cards out of play: accepted
    g, hs = native.game_to_rows(game(hand(DEAL2, PLAYS2, taker=0)), "rebelote", "<test>", None)
    assert native.game_to_rows(native.game_to_json(g, hs), "rebelote", "<test>", None)[1] == hs


def test_validation_rejects_wrong_three_player_deals():
    # 7 cards each is no 3-player deal (rules.md R3: 8, 9 or 10)
    short = [d[:7] for d in DEAL2]
    (row,) = _rows(game({"hand_no": 1, "dealer": 2, "hands": short, "contract": None}))
    with pytest.raises(RecordError, match="3-player hands of 7 cards") as e:
        check_hand(row)
    assert e.value.code == "wrong_hand_size"
    # 8 cards each comes from the 24-card pack (9 to ace) or from 32 with 8 out of play (seed 000,
    # mundijuegos-3p): a 7 dealt is a valid record; which pack is the ruleset's (test_a_7_under_a_24_card_ruleset)
    eight = [["JH", "9H", "AH", "TH", "AC", "TC", "KC", "AD"], ["KH", "QH", "QC", "JC", "9C", "KD", "QD", "AS"],
             ["7H", "TD", "KS", "QS", "9S", "JS", "JD", "9D"]]
    (row,) = _rows(game({"hand_no": 1, "dealer": 2, "hands": eight, "contract": None}))
    check_hand(row)
    # a seat with a card fewer than the others
    uneven = [DEAL2[0], DEAL2[1][:8], DEAL2[2]]
    (row,) = _rows(game({"hand_no": 1, "dealer": 2, "hands": uneven, "contract": None}))
    with pytest.raises(RecordError, match="seat 1 was dealt 8 cards, expected 9"):
        check_hand(row)


def test_three_player_hand_under_other_rulesets_is_unscorable():
    (r,) = score("belote-classic", game(hand(DEAL2, PLAYS2, taker=0)))
    assert r["status"] == "unscorable" and r["reason"] == "ruleset belote-classic is for 4 players"
    (r,) = score("belote-3p", game(dict(hand(DEAL2, PLAYS2, taker=0), contract={"taker": 0, "strain": "H", "coinche": 1})))
    assert r["status"] == "unscorable" and "no coinche" in r["reason"]


def test_loader_refuses_bids_with_three_players(tmp_path):
    f = _house(tmp_path, '[auction]\nstyle = "bid"\n', "house-3p-bid")
    with pytest.raises(rules.RulesetError, match="not supported with 3 players"):
        rules.load(f)
    f = _house(tmp_path, "[deal]\ndeck = 24\n", "house-3p-deck")
    with pytest.raises(rules.RulesetError, match="need 27 cards, more than the 24-card pack"):
        rules.load(f)


# ---------------------------------------------------------------------------------------------- show

def test_show_explains_a_three_player_hand():
    (row,) = _rows(game(hand(DEAL2, PLAYS2, taker=0)))
    b = explain(row, rules.load("belote-3p"))
    assert b["score"] == [20, 96, 124] and b["status"] == "scored"
    text = render([b])
    assert "P2: Cleo (team 2), dealer" in text
    assert "trick 3: P0:KH P1:JH P2:AH -> P1 +35" in text
    assert "card points: 61 - 65 - 24" in text
    assert "contest: team 2 scores its declarations" in text
    assert "declarations scored: 0 - 0 - 70" in text and "belote-rebelote: 20 - 0 - 0" in text
    assert "taker's total vs the better opponent: 81 vs 94" in text and "contract: failed" in text
    assert "hand score: 20 - 96 - 124" in text
    # DEAL3: the one-player capot is named, with the parameter behind it
    (row,) = _rows(game(hand(DEAL3, PLAYS3, taker=0)))
    text = render([explain(row, rules.load("belote-3p"))])
    assert "capot: P1 took no trick: 50 to each other player, no last-trick bonus" in text
    assert "card points: 139 - 0 - 92   [cards.capot_split_each]" in text

    # a 3-player hand nobody took, under a 4-player ruleset: unscorable (no 0 - 0 of the ruleset's teams), and
    # show says so rather than "passed out: 0 - 0"
    passed = dict(hand(DEAL2, None, taker=0), auction=[[s, "pass"] for s in range(3)], contract=None)
    (row,) = _rows(game(passed))
    b = explain(row, rules.load("belote-classic"))
    assert (b["status"], b["score"], b["reason"]) == ("unscorable", None, "ruleset belote-classic is for 4 players")
    text = render([b])
    assert "unscorable: ruleset belote-classic is for 4 players" in text and "0 - 0" not in text
    assert "no contract: 0 - 0" in render([explain(row, rules.load("belote-3p"))])


# ---------------------------------------------------------------------------------------------- simulated games

def _in_play_points(r, h) -> int:
    """Card points of the cards dealt to the seats (the cards in play), recomputed from the ruleset's tables."""
    pts = build(r).points["CDHS".index(h["strain"])]
    return sum(int(pts[c]) for m in h["initial_hands"] for c in range(32) if m >> c & 1)


def _simulated(r, games: int, seed: int):
    rows = []
    for obj in simulate(r, games, seed):
        rows.extend(native.game_to_rows(obj, "rebelote", "<sim>", None)[1])
    return rows, score_batch(pa.Table.from_pylist(rows, schema=schema.schema("hands")), r)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_simulated_games_rescore_scored_legal_and_complete(seed):
    """Any seed: every simulated 3-player hand with a contract rescores 'scored' and legal, with 3 entries per
    list, and its card points are the points of the 27 cards in play plus the last trick's 10 (or the capot's
    100, or 50 to each of the two players who took a trick when the third took none)."""
    r = rules.load("belote-3p")
    rows, sc = _simulated(r, 3, seed)
    for h, s in zip(rows, sc.to_pylist()):
        check_hand(h)
        if h["taker"] is None:
            assert s["status"] == "passed_out" and s["hand_score"] == [0, 0, 0]
            continue
        assert s["status"] == "scored" and s["legal"] is True, (seed, h["game_id"], h["hand_no"])
        assert len(s["card_points"]) == len(s["hand_score"]) == len(s["declaration_points"]) == 3
        takers = set(s["trick_winners"])
        bonus = 100 if len(takers) == 1 else 2 * 50 if len(takers) == 2 else 10
        assert sum(s["card_points"]) == _in_play_points(r, h) + bonus
        assert s["matches_recorded"] is True


def test_simulated_24_card_deal(tmp_path):
    """EXOTY / FUNBELOTE's deal (deal.tricks = 8, deal.deck = 24): every card in play, so the card points total
    152 + 10 (or 152 + 100 on a capot, 152 + 2 x 50 with one player capot); no 7 or 8 is ever dealt."""
    f = _house(tmp_path, "[deal]\ntricks = 8\ndeck = 24\n", "house-3p-24")
    r = rules.load(f)
    rows, sc = _simulated(r, 6, 5)
    scored = 0
    for h, s in zip(rows, sc.to_pylist()):
        check_hand(h)
        if h["taker"] is None:
            continue
        scored += 1
        assert all(m & 0x03030303 == 0 and bin(m).count("1") == 8 for m in h["initial_hands"])
        assert h["initial_hands"][h["taker"]] >> h["turned_card"] & 1   # the taker gets the turned card
        assert s["status"] == "scored" and s["legal"] is True
        takers = set(s["trick_winners"])
        assert sum(s["card_points"]) == 152 + (100 if len(takers) == 1 else 2 * 50 if len(takers) == 2 else 10)
    assert scored >= 10


def test_a_7_under_a_24_card_ruleset(tmp_path):
    """mundijuegos-3p deals 8 cards each from 32 (8 out of play); the same hands under a ruleset of the
    24-card pack (9 to ace) deal cards that pack has not: unscorable, and the reason says why."""
    r32 = rules.load("mundijuegos-3p")
    rows, sc = _simulated(r32, 2, 4)
    f = _house(tmp_path, "[deal]\ntricks = 8\ndeck = 24\n", "house-3p-24")
    low = [i for i, h in enumerate(rows) if h["taker"] is not None
           and any(m & 0x03030303 for m in h["initial_hands"])]
    assert low
    table = pa.Table.from_pylist([rows[i] for i in low], schema=schema.schema("hands"))
    out = score_batch(table, rules.load(f)).to_pylist()
    assert {x["status"] for x in out} == {"unscorable"}
    assert all("a 7 or an 8 is dealt, but ruleset house-3p-24 plays a 24-card pack" == x["reason"] for x in out)
    assert all(x["status"] == "scored" for i, x in enumerate(sc.to_pylist()) if i in low)


def test_show_cli_on_a_simulated_three_player_game(tmp_path):
    from typer.testing import CliRunner

    from conftest import write_jsonl
    from pipeline.cli import app
    games = list(simulate(rules.load("belote-3p"), 2, 11))
    f = write_jsonl(tmp_path / "sim3.jsonl", games)
    lake = tmp_path / "lake"
    res = CliRunner().invoke(app, ["ingest", str(f), "--lake", str(lake), "--quiet"])
    assert res.exit_code == 0, res.output
    # the first game of the file imported (game 0 of a 1-game run is another game: simulate() documents the ids)
    gid = native.game_to_rows(games[0], "rebelote", "", None)[0]["game_id"]
    res = CliRunner().invoke(app, ["show", "--lake", str(lake), "--game", gid, "--rules", "belote-3p"])
    assert res.exit_code == 0, res.output
    assert "result: team " in res.output and " wins at hand " in res.output
