"""Rescoring of hand-computed deals (tests/deals.py holds the deals and the arithmetic).

Expected values come from the rules texts: FFB-B16 §9-10 for belote-classic (rules.md R26-R30 and
rules_examples.md A5-A7), colver FORMAT.md §7 for the colver ruleset.
"""

import pytest

from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from helpers import game_results, score


def one(ruleset, hand):
    (row,) = score(ruleset, native_game("g1", [hand]))
    return row


def test_made_contract_with_belote_held_by_a_defender():
    # DEAL_A, seat 0 takes hearts: takers 92 vs defence 70 + belote 20 = 90 -> made (92 > 90, FFB-B16 §10.1.1);
    # each side scores its own total (A5 pattern): [92, 90].
    r = one("belote-classic", native_hand(DEAL_A, 1, taker=0))
    assert r["status"] == "scored" and r["legal"] is True
    assert r["trick_winners"] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert r["card_points"] == [92, 70]
    assert r["belote_team"] == 1
    assert r["declaration_points"] == [0, 0]
    assert r["contract_points"] == [92, 90]
    assert r["contract_made"] is True and r["litige"] is False
    assert r["hand_score"] == [92, 90]
    assert r["last_trick_team"] == 1 and r["capot_team"] is None


def test_failed_contract():
    # DEAL_A, seat 1 (team 1) takes hearts: takers 70 + belote 20 = 90 vs 92 -> failed. Defence 162 (A6 pattern:
    # 162 + its own belote, here none); the takers keep their belote 20 (FFB-B16 §10.2, belote.on_failure = keep).
    r = one("belote-classic", native_hand(DEAL_A, 1, taker=1))
    assert r["contract_made"] is False
    assert r["hand_score"] == [162, 20]


def test_capot_with_belote():
    # DEAL_K: team 0 wins all 8 tricks: 152 + 100 = 252 card points, + belote 20 = 272 (rules_examples A7).
    r = one("belote-classic", native_hand(DEAL_K, 1, taker=0))
    assert r["capot_team"] == 0
    assert r["card_points"] == [252, 0]
    assert r["hand_score"] == [272, 0]
    assert r["declaration_points"] == [0, 0]  # seat 1's four 7s are worth nothing


def test_defence_capot_on_failure_scores_252():
    # DEAL_K taken by seat 1: the defence (team 0) made capot -> 252 (FFB-B16 §10.2, fail_base_defence_capot)
    # plus its belote 20 = 272; the takers score nothing.
    r = one("belote-classic", native_hand(DEAL_K, 1, taker=1))
    assert r["contract_made"] is False
    assert r["hand_score"] == [272, 0]


def test_litige_held_and_carried_to_next_hand_winner():
    # DEAL_L: 81-81, taken by seat 0. Litige (FFB-B16 §10.1.3): the defence scores its 81 now, the takers' 81 is
    # held. Hand 2 (DEAL_A taken by seat 0) is made by team 0 -> team 0 also wins the held 81:
    # totals: team 0 = 0 + 92 + 81 = 173; team 1 = 81 + 90 = 171.
    hands = [native_hand(DEAL_L, 1, taker=0), native_hand(DEAL_A, 2, taker=0)]
    r1, r2 = score("belote-classic", native_game("g1", hands))
    assert r1["litige"] is True and r1["contract_made"] is None
    assert r1["hand_score"] == [0, 81] and r1["held_points"] == 81
    assert r2["hand_score"] == [92, 90]
    (g,) = game_results("belote-classic", native_game("g1", hands))
    assert g["totals"] == [173, 171]
    assert g["unresolved_held"] == 0
    assert g["winner"] is None  # nobody reached 1000


def test_litige_goes_to_the_defence_when_the_next_contract_fails():
    # Hand 2 is DEAL_A taken by seat 1 and failed: team 0 wins that hand (162) and the held 81:
    # team 0 = 0 + 162 + 81 = 243; team 1 = 81 + 20 = 101.
    hands = [native_hand(DEAL_L, 1, taker=0), native_hand(DEAL_A, 2, taker=1)]
    (g,) = game_results("belote-classic", native_game("g1", hands))
    assert g["totals"] == [243, 101]


def test_litige_pot_survives_a_passed_out_hand_and_a_second_litige():
    # litige (81 held), passed out (0-0, no winner), litige again (another 81 held, pot 162), then team 0 makes
    # DEAL_A: team 0 = 92 + 162 = 254; team 1 = 81 + 81 + 90 = 252.
    hands = [native_hand(DEAL_L, 1, taker=0), native_hand(DEAL_L, 2, taker=None),
             native_hand(DEAL_L, 3, taker=0), native_hand(DEAL_A, 4, taker=0)]
    rows = score("belote-classic", native_game("g1", hands))
    assert rows[1]["status"] == "passed_out" and rows[1]["hand_score"] == [0, 0]
    (g,) = game_results("belote-classic", native_game("g1", hands))
    assert g["totals"] == [254, 252]


def test_game_ends_at_target():
    # Four capots with belote (272 each) take team 0 to 1088 >= 1000 after hand 4 (rules.md R35-R36).
    hands = [native_hand(DEAL_K, i, taker=0) for i in range(1, 6)]
    (g,) = game_results("belote-classic", native_game("g1", hands))
    assert g["ended_at_hand"] == 4 and g["winner"] == 0
    assert g["totals_at_end"] == [1088, 0]
    assert g["totals"] == [1360, 0]


# colver (FORMAT.md §7): made when card points + own belote >= bid; made uncoinched: T + V + bT, defence D + bD.
@pytest.mark.parametrize("bid,coinche,expected", [
    (80, 0, [92 + 80, 70 + 20]),          # made: 92 >= 80; defence keeps its belote
    (90, 0, [92 + 90, 90]),
    (100, 0, [0, 162 + 100 + 20]),       # failed: 92 < 100 -> defence 162 + V + both belotes
    (80, 1, [162 + 80 * 2 + 20, 0]),     # made coinched: 162 + V x 2 + both belotes to the takers
    (80, 2, [162 + 80 * 3 + 20, 0]),     # surcoinche x3 in colver
    (100, 1, [0, 162 + 100 * 2 + 20]),   # failed coinched
])
def test_colver_bids_and_coinche(bid, coinche, expected):
    r = one("colver", native_hand(DEAL_A, 1, taker=0, bid=bid, coinche=coinche))
    assert r["hand_score"] == expected


def test_colver_capot_bid():
    # DEAL_K, capot bid by seat 0, made: 252 + 250 + belote 20 = 522 (FORMAT.md §7, g1009#8 pattern).
    r = one("colver", native_hand(DEAL_K, 1, taker=0, capot_bid=True))
    assert r["hand_score"] == [522, 0]
    # capot bid on DEAL_A (team 0 wins only 4 tricks): failed: 162 + 250 + both belotes (20) = 432 to the defence.
    r = one("colver", native_hand(DEAL_A, 1, taker=0, capot_bid=True))
    assert r["hand_score"] == [0, 432]


def test_illegal_play_is_flagged_and_still_scored():
    # In DEAL_A trick 2 seat 1 must follow hearts; swap its 10H for its 7C in the record: a follow-suit breach
    # (seat 1 holds TH) at trick 2. The hand is still scored as played.
    hand = native_hand(DEAL_A, 1, taker=0)
    plays = [list(p) for p in hand["plays"]]
    plays[5] = [1, "7C"]   # trick 2: seat 1 discards a club while holding TH
    plays[9] = [1, "TH"]   # trick 3: seat 1 plays TH on the club lead (also illegal, but the first one is reported)
    hand["plays"] = plays
    r = one("belote-classic", hand)
    assert r["legal"] is False
    assert (r["illegal_trick"], r["illegal_seat"], r["illegal_card"], r["illegal_rule"]) == (2, 1, 0, "follow_suit")  # 7C is card 0
    assert r["status"] == "scored"


def test_recorded_score_comparison():
    (r,) = score("belote-classic", native_game("g1", [native_hand(DEAL_A, 1, taker=0, recorded=[92, 90])]))
    assert r["matches_recorded"] is True
    (r,) = score("belote-classic", native_game("g1", [native_hand(DEAL_A, 1, taker=0, recorded=[90, 92])]))
    assert r["matches_recorded"] is False


def test_out_of_turn_and_not_in_hand_are_flagged():
    # (the ingest checks reject such records; the engine still names the fault when called directly)
    hand = native_hand(DEAL_A, 1, taker=0)
    plays = [list(p) for p in hand["plays"]]
    plays[1], plays[2] = plays[2], plays[1]          # trick 1: seat 2 plays before seat 1
    hand["plays"] = plays
    r = one("belote-classic", hand)
    assert (r["illegal_trick"], r["illegal_seat"], r["illegal_rule"]) == (1, 2, "out_of_turn")
    hand = native_hand(DEAL_A, 1, taker=0)
    plays = [list(p) for p in hand["plays"]]
    plays[1] = [1, "8H"]                              # seat 1 plays seat 2's 8H ...
    plays[2] = [2, "7H"]                              # ... and seat 2 plays seat 1's 7H
    hand["plays"] = plays
    r = one("belote-classic", hand)
    assert (r["illegal_trick"], r["illegal_seat"], r["illegal_card"], r["illegal_rule"]) == (1, 1, 17, "not_in_hand")  # 8H = 2*8 + 1


def test_tricks_taken_hands_without_initial_hands():
    # DEAL_A as a tricks-taken record (cards won per seat, last trick seat 1, no play order, no initial hands).
    won = [[c for s, c in DEAL_A["plays"][4 * t: 4 * t + 4]] for t in range(8)]
    taken = [[], [], [], []]
    for t, cards in enumerate(won):
        winner = 0 if t < 4 else 1
        taken[winner].extend(cards)
    hand = {"hand_no": 1, "dealer": 3, "completeness": "tricks_taken", "tricks_taken": taken, "last_trick_seat": 1,
            "contract": {"taker": 0, "strain": "H", "bid": None, "coinche": 0}}
    # a ruleset that counts neither declarations nor belote scores it: 92 - 70 (OpenSpiel: no belote, made)
    r = one("openspiel", dict(hand))
    assert (r["status"], r["card_points"], r["hand_score"], r["legal"]) == ("scored", [92, 70], [92, 70], None)
    # one that counts held declarations cannot, and says why
    r = one("belote-classic", dict(hand))
    assert r["status"] == "unscorable" and "needs the initial hands" in r["reason"]


def test_contracts_a_ruleset_does_not_have_are_unscorable():
    # a hostile test found a coinched 80 scored 162 + 80 x 2 under belote-classic, whose auction (a prise:
    # rules.md R4, R32 "n/a" for classic) has neither coinche nor capot bid, and no-trump contracts scored under
    # suit-only rulesets (R5): such hands are unscorable with the reason, not scored by borrowed rules
    from deals import DEAL_A, native_game, native_hand
    from helpers import score
    g = native_game("x", [native_hand(DEAL_A, 1, taker=0, bid=80, coinche=1),
                          native_hand(DEAL_A, 2, taker=0, capot_bid=True),
                          native_hand(DEAL_A, 3, taker=0, strain="NT", bid=90),
                          native_hand(DEAL_A, 4, taker=0, bid=80)], variant="coinche")
    rows = score("belote-classic", g)
    assert [(r["status"], r["reason"]) for r in rows[:3]] == [
        ("unscorable", "ruleset belote-classic has no coinche and no capot bid (auction.style: prise)"),
        ("unscorable", "ruleset belote-classic has no coinche and no capot bid (auction.style: prise)"),
        ("unscorable", "ruleset belote-classic has no contract in this strain (auction.strains: C D H S)")]
    assert rows[3]["status"] == "scored"        # a plain take with a bid value: the bid plays no part in classic
    # the same hands under a ruleset that has them are scored
    assert [r["status"] for r in score("ffb-coinche-2015", g)] == ["scored"] * 4


def test_discard_while_holding_the_trump_led_breaks_follow_suit():
    # a hostile test found a player who holds the suit led and discards reported as breaking the duty to head
    # the lead (overtrump_on_trump_lead, or must_head in all-trump); the first duty broken is to follow suit
    # (rules.md R10). Dealer 0, so seat 1 leads 7H (hearts trump); seat 2 holds 8H and AH and plays 8C.
    import copy
    from deals import DEAL_A, native_game, native_hand
    from helpers import score
    rest = [c for s in range(4) for c in DEAL_A["hands"][s] if c not in ("7H", "8C", "QH", "JH")]
    hands = DEAL_A["hands"]
    trick1 = [[1, "7H"], [2, "8C"], [3, "QH"], [0, "JH"]]
    later = [[s, c] for t in range(7) for s in range(4)
             for c in [[x for x in hands[s] if x not in ("7H", "8C", "QH", "JH")][t]]]
    assert len(later) == 28 and sorted(c for _, c in later) == sorted(rest)
    for strain, rule in (("H", "follow_suit"), ("AT", "follow_suit")):
        h = native_hand(DEAL_A, 1, taker=1, strain=strain, dealer=0, bid=90)
        h["plays"] = copy.deepcopy(trick1 + later)
        (r,) = score("bga-coinche" if strain == "AT" else "belote-classic",
                     native_game("lead", [h], variant="coinche" if strain == "AT" else "belote"))
        assert (r["legal"], r["illegal_trick"], r["illegal_seat"], r["illegal_rule"]) == (False, 1, 2, rule), strain


def test_litige_holds_the_takers_points_not_the_bid(tmp_path):
    # ffb-coinche-2015 with its tournament option, the litige (contract.tie = "litige", FFB-Co15 §10.1.3; the
    # default fails an equal total, test_rules_examples B15-Co15).
    house = tmp_path / "litige.toml"
    house.write_text('name = "co15-litige"\nextends = "ffb-coinche-2015"\n[contract]\ntie = "litige"\n')
    rs = str(house)
    # DEAL_L (81-81) bid 80 hearts by seat 0: 81 >= 80 but not more than the defence's 81:
    # a litige (FFB-Co15 §10.1.3). "les points du preneur sont remis en jeu (81 ou 91)": the takers' 81 are held,
    # not 81 + the bid 80 = 161 (the engine held 160). Defence 81 now; both rounded to the nearest ten, 5 up
    # (FFB-Co15 §10.2): [0, 80], 80 held.
    # Hand 2, DEAL_A bid 80 by seat 0: 92 >= 80 and 92 > 70 + 20 -> made: 92 + 80 = 172 -> 170; defence 90. The
    # held 80 go to team 0, which made this contract (game.litige_to = next_made_contract):
    # team 0 = 0 + 170 + 80 = 250; team 1 = 80 + 90 = 170.
    hands = [native_hand(DEAL_L, 1, taker=0, bid=80), native_hand(DEAL_A, 2, taker=0, bid=80)]
    game = native_game("g1", hands, variant="coinche", ruleset_hint=None)
    r1, r2 = score(rs, game)
    assert (r1["litige"], r1["hand_score"], r1["held_points"]) == (True, [0, 80], 80)
    assert (r2["contract_made"], r2["hand_score"]) == (True, [170, 90])
    (g,) = game_results(rs, game)
    assert (g["totals"], g["unresolved_held"]) == ([250, 170], 0)
    # surcoinched (x4): the held points are the takers' 81 x 4 = 324 -> 320 (was (81 + 80) x 4 = 644 -> 640)
    (r,) = score(rs, native_game("g2", [native_hand(DEAL_L, 1, taker=0, bid=80, coinche=2)],
                                                variant="coinche", ruleset_hint=None))
    assert (r["hand_score"], r["held_points"]) == ([0, 80], 320)


@pytest.mark.parametrize("ruleset, decl, hand_score", [
    # FFB-Co15 §8 as summaries of the FFB rules quote it: "une carte ne peut compter que pour une seule annonce": JH counts in the carré of
    # jacks only, so no tierce: 200. Bid 100 made (92 + 200 >= 100, > 70): 92 + 200 + 100 = 392 -> 390 (§10.2);
    # defence 70. (The ruleset read JH into both: 220 and 412 -> 410.)
    ("ffb-coinche-2015", [200, 0], [390, 70]),
    # pagat-coinche keeps the base reading (a carré's cards may also form a sequence): 200 + 20 = 220;
    # 92 + 220 + 100 = 412 -> 410
    ("pagat-coinche", [220, 0], [410, 70]),
])
def test_card_of_a_carre_in_a_sequence_counts_once_under_co15(ruleset, decl, hand_score):
    from deals import DEAL_J
    r = one(ruleset, native_hand(DEAL_J, 1, taker=0, bid=100))
    assert r["legal"] is True and r["card_points"] == [92, 70] and r["belote_points"] == [0, 0]
    assert r["declaration_points"] == decl
    assert r["contract_made"] is True and r["hand_score"] == hand_score
