"""Two-player belote (ruleset belote-2p, Fournier rules of seed 001): hand-computed deals.

Seat 0 and seat 1 each form a team; dealer seat 1, so seat 0 leads. Hearts are trump. 9 cards each; the 14
other cards (among them KH and QH, so no belote) stay out of play. Card values as everywhere (king 4).
"""

from helpers import score

HANDS = [["JH", "9H", "7H", "AC", "TC", "AD", "7D", "AS", "7S"],
         ["AH", "TH", "8H", "KC", "QC", "KD", "QD", "KS", "QS"]]
# T1 JH 8H -> P0 20 (P1 cannot beat the jack: any heart)   T6 AD KD -> P0 15
# T2 9H TH -> P0 24 (neither AH nor TH beats the nine)     T7 7D QD -> P1 3
# T3 7H AH -> P1 11 (P1 must head 7H: AH)                   T8 KS AS -> P0 15 (P1 leads)
# T4 KC AC -> P0 15 (P1 leads; no duty to beat a plain suit)  T9 7S QS -> P1 3 + last trick 10
# T5 TC QC -> P0 13
# P0: 20 + 24 + 15 + 13 + 15 + 15 = 102; P1: 11 + 3 + 3 + 10 = 27. No declarations (no run of three, no carré).
PLAYS = [[0, "JH"], [1, "8H"], [0, "9H"], [1, "TH"], [0, "7H"], [1, "AH"], [1, "KC"], [0, "AC"], [0, "TC"],
         [1, "QC"], [0, "AD"], [1, "KD"], [0, "7D"], [1, "QD"], [1, "KS"], [0, "AS"], [0, "7S"], [1, "QS"]]


def game(plays, taker=0):
    hand = {"hand_no": 1, "dealer": 1, "hands": HANDS, "auction": [[0, "take"]],
            "contract": {"taker": taker, "strain": "H", "bid": None, "coinche": 0}, "plays": plays}
    return {"format": "rebelote", "version": 1, "source": "test", "source_game_id": "2p", "variant": "belote-2p",
            "n_players": 2, "players": ["Ana", "Ben"], "hands": [hand]}


def test_made_contract():
    (r,) = score("belote-2p", game(PLAYS))
    assert r["legal"] is True
    assert r["trick_winners"] == [0, 0, 1, 0, 0, 0, 1, 0, 1]
    assert r["card_points"] == [102, 27] and r["hand_score"] == [102, 27] and r["contract_made"] is True


def test_failed_contract_taken_by_the_weaker_hand():
    # P1 takes: 27 < 102 -> failed; the defence takes every point of the deal, as in classic (rules.md R28 "as
    # classic" for 2 players; FFB-B16 §10.2), which here are the 102 + 27 = 129 played, not the deck's 162: 14
    # cards stay out of play (contract.fail_takes_played; a hostile test found the 162 flat award)
    (r,) = score("belote-2p", game(PLAYS, taker=1))
    assert r["contract_made"] is False and r["hand_score"] == [129, 0]


def test_failed_contract_under_the_deck_award_house_rule(tmp_path):
    # the same hand under a house rule keeping classic's flat 162 (fail_takes_played = false)
    house = tmp_path / "two.toml"
    house.write_text('name = "two"\nextends = "belote-2p"\n[contract]\nfail_takes_played = false\n')
    (r,) = score(str(house), game(PLAYS, taker=1))
    assert r["contract_made"] is False and r["hand_score"] == [162, 0]


def test_revoke_penalty():
    # P0 discards AS on the club lead of trick 4 while holding AC and TC: a revoke (follow_suit), so P1 scores 10
    # more (seed 001: a player not following suit when able to: the other receives 10). Play continues:
    # T4 KC AS -> P1 15; T5 QC AC -> P0 14; T6 TC KS (P1 void in clubs, no duty to trump) -> P0 14;
    # T7 AD KD -> P0 15; T8 7D QD -> P1 3; T9 QS 7S -> P1 3 + 10.
    # P0: 20 + 24 + 14 + 14 + 15 = 87; P1: 11 + 15 + 3 + 3 + 10 = 42 (+ 10 penalty) -> [87, 52].
    plays = [[0, "JH"], [1, "8H"], [0, "9H"], [1, "TH"], [0, "7H"], [1, "AH"], [1, "KC"], [0, "AS"], [1, "QC"],
             [0, "AC"], [0, "TC"], [1, "KS"], [0, "AD"], [1, "KD"], [0, "7D"], [1, "QD"], [1, "QS"], [0, "7S"]]
    (r,) = score("belote-2p", game(plays))
    assert (r["legal"], r["illegal_trick"], r["illegal_seat"], r["illegal_rule"]) == (False, 4, 0, "follow_suit")
    assert r["card_points"] == [87, 42] and r["hand_score"] == [87, 52]
