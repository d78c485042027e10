"""Hand-built deals with scores computed by hand (in the comments), shared by several tests.

Every deal has exactly two cards of each suit per seat, so no seat ever has a tierce and nobody is ever
void: each trick is one suit, and the play order below respects every obligation (trump tricks are
led with cards nobody can beat). Dealer is seat 3, so seat 0 leads trick 1. Trump is hearts.
Card points: trump J20 9:14 A11 10:10 K4 Q3; plain A11 10:10 K4 Q3 J2 (FFB-B16, rules.md R6-R7).
"""

from __future__ import annotations

import copy

# DEAL_A: team 0 (seats 0, 2) wins tricks 1-4, team 1 wins tricks 5-8 and the last trick.
#   T1 JH 7H 8H QH -> seat 0, 20+0+0+3 = 23      T5 7D AD 8D 9D -> seat 1, 11
#   T2 9H TH AH KH -> seat 0, 14+10+11+4 = 39    T6 TD JD QD KD -> seat 1, 10+2+3+4 = 19
#   T3 AC 7C 8C 9C -> seat 0, 11                 T7 AS 7S 8S 9S -> seat 1, 11
#   T4 TC JC QC KC -> seat 0, 10+2+3+4 = 19      T8 TS JS QS KS -> seat 1, 19, + 10 last trick
#   team 0: 23+39+11+19 = 92; team 1: 11+19+11+19+10 = 70 (92+70 = 162).
#   Belote: QH and KH both with seat 3 (team 1): +20 to team 1. No declarations.
DEAL_A = {
    "hands": [["JH", "9H", "AC", "TC", "7D", "KD", "9S", "KS"],
              ["7H", "TH", "7C", "JC", "AD", "TD", "AS", "TS"],
              ["8H", "AH", "8C", "QC", "8D", "JD", "7S", "JS"],
              ["QH", "KH", "9C", "KC", "9D", "QD", "8S", "QS"]],
    "plays": [[0, "JH"], [1, "7H"], [2, "8H"], [3, "QH"],
              [0, "9H"], [1, "TH"], [2, "AH"], [3, "KH"],
              [0, "AC"], [1, "7C"], [2, "8C"], [3, "9C"],
              [0, "TC"], [1, "JC"], [2, "QC"], [3, "KC"],
              [0, "7D"], [1, "AD"], [2, "8D"], [3, "9D"],
              [1, "TD"], [2, "JD"], [3, "QD"], [0, "KD"],
              [1, "AS"], [2, "7S"], [3, "8S"], [0, "9S"],
              [1, "TS"], [2, "JS"], [3, "QS"], [0, "KS"]],
}

# DEAL_L (litige): 81-81 with no belote (KH with seat 2, QH with seat 3).
#   T1 JH 7H KH QH -> seat 0, 20+0+4+3 = 27      T5 AD 8D 9D 7D -> seat 1, 11
#   T2 9H TH AH 8H -> seat 0, 14+10+11+0 = 35    T6 TD JD QD KD -> seat 1, 19
#   T3 TC JC QC KC -> seat 0, 10+2+3+4 = 19      T7 AS 7S 8S 9S -> seat 1, 11
#   T4 9C AC 8C 7C -> seat 1, 11                 T8 TS JS QS KS -> seat 1, 19 + 10
#   team 0: 27+35+19 = 81; team 1: 11+11+19+11+19+10 = 81.
DEAL_L = {
    "hands": [["JH", "9H", "TC", "9C", "7D", "KD", "9S", "KS"],
              ["7H", "TH", "JC", "AC", "AD", "TD", "AS", "TS"],
              ["KH", "AH", "QC", "8C", "8D", "JD", "7S", "JS"],
              ["QH", "8H", "KC", "7C", "9D", "QD", "8S", "QS"]],
    "plays": [[0, "JH"], [1, "7H"], [2, "KH"], [3, "QH"],
              [0, "9H"], [1, "TH"], [2, "AH"], [3, "8H"],
              [0, "TC"], [1, "JC"], [2, "QC"], [3, "KC"],
              [0, "9C"], [1, "AC"], [2, "8C"], [3, "7C"],
              [1, "AD"], [2, "8D"], [3, "9D"], [0, "7D"],
              [1, "TD"], [2, "JD"], [3, "QD"], [0, "KD"],
              [1, "AS"], [2, "7S"], [3, "8S"], [0, "9S"],
              [1, "TS"], [2, "JS"], [3, "QS"], [0, "KS"]],
}

# DEAL_K (capot): seat 0 holds the two best cards of every suit and wins all 8 tricks.
#   Hearts 23 + 39, clubs AC 7C 8C QC = 14 and TC JC 9C KC = 16, diamonds 11 + 19, spades 11 + 19
#   = 152 card points, + 100 for the last trick on a capot = 252 (FFB-B16 §9.2).
#   Belote: QH and KH with seat 2 (team 0): +20. Seat 1's four 7s are a carré worth 0 (no declaration).
DEAL_K = {
    "hands": [["JH", "9H", "AC", "TC", "AD", "TD", "AS", "TS"],
              ["7H", "TH", "7C", "JC", "7D", "JD", "7S", "JS"],
              ["QH", "KH", "8C", "9C", "8D", "QD", "8S", "QS"],
              ["8H", "AH", "QC", "KC", "9D", "KD", "9S", "KS"]],
    "plays": [[0, "JH"], [1, "7H"], [2, "QH"], [3, "8H"],
              [0, "9H"], [1, "TH"], [2, "KH"], [3, "AH"],
              [0, "AC"], [1, "7C"], [2, "8C"], [3, "QC"],
              [0, "TC"], [1, "JC"], [2, "9C"], [3, "KC"],
              [0, "AD"], [1, "7D"], [2, "8D"], [3, "9D"],
              [0, "TD"], [1, "JD"], [2, "QD"], [3, "KD"],
              [0, "AS"], [1, "7S"], [2, "8S"], [3, "9S"],
              [0, "TS"], [1, "JS"], [2, "QS"], [3, "KS"]],
}


def native_hand(deal: dict, hand_no: int, taker: int | None, strain: str = "H", *, dealer: int = 3, bid: int | None = None,
                capot_bid: bool = False, coinche: int = 0, recorded: list[int] | None = None) -> dict:
    """A native-format hand object for ``deal`` with the given contract (taker None: passed out)."""
    contract = None if taker is None else {"taker": taker, "strain": strain, "bid": bid, "capot_bid": capot_bid,
                                           "coinche": coinche}
    deal = copy.deepcopy(deal)  # callers mutate the result to build bad records
    return {"hand_no": hand_no, "dealer": dealer, "completeness": "full_play", "hands": deal["hands"],
            "auction": [], "contract": contract, "plays": None if taker is None else deal["plays"],
            "recorded": None if recorded is None else {"score": recorded}}


def native_game(game_id: str, hands: list[dict], *, source: str = "test", players=("Ana", "Ben", "Cat", "Dan"),
                variant: str = "belote", ruleset_hint: str | None = "belote-classic") -> dict:
    """A native-format game object (one line of a rebelote JSON Lines file)."""
    return {"format": "rebelote", "version": 1, "source": source, "source_game_id": game_id, "variant": variant,
            "n_players": 4, "players": list(players), "target": 1000, "ruleset_hint": ruleset_hint, "hands": hands}

# DEAL_D (capot against the declarations' winners): seat 0 takes every trick, but team 1 wins the declaration
# contest. Hearts trump, dealer 3, seat 0 leads every trick.
#   T1 JH QH 7H 9S -> 20+3+0+0 = 23     T5 KH 7C TC 9C -> 4+0+10+0 = 14
#   T2 9H 7S AS TS -> 14+0+11+10 = 35   T6 8H 7D TD 9D -> 0+0+10+0 = 10
#   T3 AH 8S 8C JS -> 11+0+0+2 = 13     T7 AC QC KC JC -> 11+3+4+2 = 20
#   T4 TH QS 8D KS -> 10+3+0+4 = 17     T8 AD QD KD JD -> 11+3+4+2 = 20
#   team 0: 152 + 100 for the last trick on a capot = 252 (FFB-B16 §9.2); team 1: 0.
#   Declarations (PAGAT-B / FFB-Co15 §8, rules.md R18, R23): seat 0 quarte 8-9-10-J of hearts (50); seat 1 carré
#   of queens (100); seat 3 tierce 9-10-J of spades (20). The carré is the best single declaration, so team 1
#   scores its 100 + 20 = 120 and team 0 nothing. No belote (KH with seat 0, QH with seat 1).
DEAL_D = {
    "hands": [["JH", "9H", "AH", "TH", "KH", "8H", "AC", "AD"],
              ["QH", "7S", "8S", "QS", "7C", "7D", "QC", "QD"],
              ["7H", "AS", "8C", "8D", "TC", "TD", "KC", "KD"],
              ["9S", "TS", "JS", "KS", "9C", "9D", "JC", "JD"]],
    "plays": [[0, "JH"], [1, "QH"], [2, "7H"], [3, "9S"],
              [0, "9H"], [1, "7S"], [2, "AS"], [3, "TS"],
              [0, "AH"], [1, "8S"], [2, "8C"], [3, "JS"],
              [0, "TH"], [1, "QS"], [2, "8D"], [3, "KS"],
              [0, "KH"], [1, "7C"], [2, "TC"], [3, "9C"],
              [0, "8H"], [1, "7D"], [2, "TD"], [3, "9D"],
              [0, "AC"], [1, "QC"], [2, "KC"], [3, "JC"],
              [0, "AD"], [1, "QD"], [2, "KD"], [3, "JD"]],
}

# DEAL_J (a carré and a sequence sharing a card): seat 0 holds the four jacks and 9H 10H JH (a tierce in trump
# through JH). Hearts trump, dealer 3.
#   T1 JH 7H 8H QH -> P0 20+0+0+3 = 23    T5 KH 8D 7D QS -> P0 4+0+0+3 = 7
#   T2 9H 7C 8C 7S -> P0 14                T6 JC TD 9D AC -> P3 2+10+0+11 = 23
#   T3 AH 9C TC 8S -> P0 11+0+10+0 = 21    T7 (P3) AD JD KD QD -> P3 11+2+4+3 = 20
#   T4 TH QC KC TS -> P0 10+3+4+10 = 27    T8 (P3) KS JS AS 9S -> P1 4+2+11+0 = 17, + 10 last trick
#   team 0: 23+14+21+27+7 = 92; team 1: 23+20+17+10 = 70. Belote: KH with seat 0, QH with seat 3: none.
#   Declarations: seat 0 carré of jacks 200 and, reading JH into a run too, tierce 9-10-J of hearts 20; no run
#   of three elsewhere (seat 3's spades 7-8, 10, Q-K).
DEAL_J = {
    "hands": [["JH", "9H", "AH", "TH", "KH", "JC", "JD", "JS"],
              ["7H", "7C", "9C", "QC", "8D", "TD", "KD", "AS"],
              ["8H", "8C", "TC", "KC", "7D", "9D", "QD", "9S"],
              ["QH", "7S", "8S", "TS", "QS", "AC", "AD", "KS"]],
    "plays": [[0, "JH"], [1, "7H"], [2, "8H"], [3, "QH"],
              [0, "9H"], [1, "7C"], [2, "8C"], [3, "7S"],
              [0, "AH"], [1, "9C"], [2, "TC"], [3, "8S"],
              [0, "TH"], [1, "QC"], [2, "KC"], [3, "TS"],
              [0, "KH"], [1, "8D"], [2, "7D"], [3, "QS"],
              [0, "JC"], [1, "TD"], [2, "9D"], [3, "AC"],
              [3, "AD"], [0, "JD"], [1, "KD"], [2, "QD"],
              [3, "KS"], [0, "JS"], [1, "AS"], [2, "9S"]],
}
