"""The seed rulesets' own values that differ from base.toml, each pinned on a constructed position with the value
changed as a contrast (tests/rules/test_coverage.py lists what is needed). Numbers are worked out by hand."""

from __future__ import annotations

import copy

import pytest
from deals import DEAL_A, DEAL_D, DEAL_K, native_game, native_hand
from helpers import hands_table, score

from pipeline import rules
from pipeline.rescore import game_pass, score_batch

from .seedkit import game, hand, held_points, house, rotate, settle1
from .test_seed_rulesets import AT_HANDS, AT_TRICKS, HEARTS, NT_HANDS, NT_TRICKS

pytestmark = pytest.mark.rules

TIERCES = ["9H TH JH 7C 9C JC 7S 9S", "9D TD JD 8C TC QC 8S TS", "7H QH 7D QD KC AC JS KS",
           "8H KH AH 8D KD AD QS AS"]


def game_row(ruleset, g):
    """The game pass of one native game, with the game's recorded target as the lake gives it."""
    R = rules.load(ruleset)
    targets = {f"{g['source']}:{g['source_game_id']}": g["target"]}
    (row,) = game_pass(score_batch(hands_table(g), R), R, targets).to_pylist()
    return row


# ------------------------------------------------------------------------------------------------ mundijuegos-classic

@pytest.mark.covers("mundijuegos-classic:declarations.tie")
def test_mundijuegos_equal_best_goes_to_the_first_announcer(tmp_path):
    # Two tierces 9-10-J (hearts, diamonds), clubs trump: equal. Announced in turn from the eldest hand: dealer 3
    # -> seat 0 first: team 0 20; dealer 0 -> seat 1 first: team 1 20. With tie = "none": nobody.
    assert held_points("mundijuegos-classic", TIERCES, "C", dealer=3) == [20, 0]
    assert held_points("mundijuegos-classic", TIERCES, "C", dealer=0) == [0, 20]
    none = house(tmp_path, "mundijuegos-classic", '[declarations]\ntie = "none"')
    assert held_points(none, TIERCES, "C", dealer=3) == [0, 0]


@pytest.mark.covers("mundijuegos-classic:game.target_from_record")
def test_mundijuegos_game_to_the_tables_target(tmp_path):
    # A table played to 301: hand 1 DEAL_K, team 0 capot 252 + belote 20 = 272; hand 2 DEAL_A taken by seat 0:
    # 92 > 70 + 20: team 0 364 >= 301: the game ends at hand 2, team 0 wins. Played to the ruleset's 1000
    # (target_from_record = false) it goes on.
    g = native_game("t", [native_hand(DEAL_K, 1, taker=0), native_hand(DEAL_A, 2, taker=0)], ruleset_hint=None)
    g["target"] = 301
    row = game_row("mundijuegos-classic", g)
    assert (row["totals"], row["ended_at_hand"], row["winner"]) == ([364, 90], 2, 0)
    fixed = house(tmp_path, "mundijuegos-classic", "[game]\ntarget_from_record = false")
    assert game_row(fixed, g)["ended_at_hand"] is None


# ------------------------------------------------------------------------------------------------ mundijuegos-coinche

@pytest.mark.covers("mundijuegos-coinche:contract.capot_bid_made_flat", "mundijuegos-coinche:contract.capot_bid_failed_flat")
def test_mundijuegos_coinche_capot_bid_500(tmp_path):
    # PAGAT-C: a capot bid made 500 (+ belote), lost 500 to the defence. Without the flats: made 252 + a tierce
    # 20 + 250 = 522 -> 520; lost: 160 + 250 = 410.
    assert settle1("mundijuegos-coinche", (252, 0), decl=(20, 0), capot=0, capot_bid=True) == ([500, 0], True, 0)
    assert settle1("mundijuegos-coinche", (150, 12), capot_bid=True) == ([0, 500], False, 0)
    flat0 = house(tmp_path, "mundijuegos-coinche", "[contract]\ncapot_bid_made_flat = 0\ncapot_bid_failed_flat = 0")
    assert settle1(flat0, (252, 0), decl=(20, 0), capot=0, capot_bid=True) == ([520, 0], True, 0)
    assert settle1(flat0, (150, 12), capot_bid=True) == ([0, 410], False, 0)


@pytest.mark.covers("mundijuegos-coinche:contract.fail_base_defence_capot", "mundijuegos-coinche:contract.unbid_capot_flat")
def test_mundijuegos_coinche_capots(tmp_path):
    # A defence capot on a bid of 80: 160 + 80 = 240 (PAGAT-C counts 160 whoever takes the tricks); with 252:
    # 332 -> 330. An unbid capot by the takers: 250 + 80 = 330; counting its cards (252 + 80 = 332) shows only
    # without rounding: 330 against 332.
    assert settle1("mundijuegos-coinche", (0, 252), capot=1, bid=80) == ([0, 240], False, 0)
    d252 = house(tmp_path, "mundijuegos-coinche", "[contract]\nfail_base_defence_capot = 252")
    assert settle1(d252, (0, 252), capot=1, bid=80) == ([0, 330], False, 0)
    exact = house(tmp_path, "mundijuegos-coinche", '[rounding]\nmode = "none"')
    assert settle1(exact, (252, 0), capot=0, bid=80) == ([330, 0], True, 0)
    cards = house(tmp_path, "mundijuegos-coinche", '[rounding]\nmode = "none"\n[contract]\nunbid_capot_flat = 0')
    assert settle1(cards, (252, 0), capot=0, bid=80) == ([332, 0], True, 0)


@pytest.mark.covers("mundijuegos-coinche:contract.made_vs_defence", "mundijuegos-coinche:contract.tie")
def test_mundijuegos_coinche_made_at_the_bid_whatever_the_defence(tmp_path):
    # Bid 90 reached with 90 against 72 + a carré 100: made (PAGAT-C: need not beat the opponents): 90 + 90 = 180,
    # defence 172 -> 170. Having to beat the defence (made_vs_defence = gt): failed, 160 + 90 + 100 = 350.
    assert settle1("mundijuegos-coinche", (90, 72), decl=(0, 100), bid=90) == ([180, 170], True, 0)
    gt = house(tmp_path, "mundijuegos-coinche", '[contract]\nmade_vs_defence = "gt"')
    assert settle1(gt, (90, 72), decl=(0, 100), bid=90) == ([0, 350], False, 0)
    # tie = "made": with that comparison, 91 = 71 + 20 on a bid of 80 is made (91 + 80 = 171 -> 170, 91 -> 90);
    # as a litige the takers' 91 is held (-> 90) and the defence scores its 91 -> 90.
    assert settle1(gt, (91, 71), decl=(0, 20), bid=80) == ([170, 90], True, 0)
    litige = house(tmp_path, "mundijuegos-coinche", '[contract]\nmade_vs_defence = "gt"\ntie = "litige"')
    assert settle1(litige, (91, 71), decl=(0, 20), bid=80) == ([0, 90], None, 90)


@pytest.mark.covers("mundijuegos-coinche:declarations.enabled")
def test_mundijuegos_coinche_announcements(tmp_path):
    # DEAL_D bid 80 hearts by seat 0: capot, 250 + 80 = 330; team 1's carré of queens and tierce (120) score
    # (the Coinché mode allows announcements): [330, 120]. Without announcements: [330, 0].
    g = native_game("d", [native_hand(DEAL_D, 1, taker=0, bid=80)], variant="coinche", ruleset_hint=None)
    assert score("mundijuegos-coinche", g)[0]["hand_score"] == [330, 120]
    off = house(tmp_path, "mundijuegos-coinche", "[declarations]\nenabled = false")
    assert score(off, g)[0]["hand_score"] == [330, 0]


@pytest.mark.covers("mundijuegos-coinche:double.base_capot", "mundijuegos-coinche:double.belote_to_winner")
def test_mundijuegos_coinche_contra_on_a_capot_and_the_belotes(tmp_path):
    # A capot under contra on a bid of 80: (250 + 80) x 2 = 660; with the 160 base: (160 + 80) x 2 = 480.
    assert settle1("mundijuegos-coinche", (252, 0), capot=0, bid=80, coinche=1) == ([660, 0], True, 0)
    b160 = house(tmp_path, "mundijuegos-coinche", "[double]\nbase_capot = 0")
    assert settle1(b160, (252, 0), capot=0, bid=80, coinche=1) == ([480, 0], True, 0)
    # Bid 100 made under contra, the defence's belote: (160 + 100) x 2 = 520, the defence keeps its 20. With the
    # belotes to the winner: 520 + 20 = 540, defence 0.
    assert settle1("mundijuegos-coinche", (120, 42), belote=(0, 20), bid=100, coinche=1) == ([520, 20], True, 0)
    win = house(tmp_path, "mundijuegos-coinche", "[double]\nbelote_to_winner = true")
    assert settle1(win, (120, 42), belote=(0, 20), bid=100, coinche=1) == ([540, 0], True, 0)


def _equal_totals_game():
    # DEAL_A bid 80 by seat 0: 92 >= 82 -> 92 + 80 = 172 -> 170; team 1 70 + belote 20 = 90. The same deal moved
    # one seat on (team 1 takes the 92), bid 80 by seat 1: team 1 170, team 0 90. Totals 260 - 260.
    h1 = native_hand(DEAL_A, 1, taker=0, bid=80)
    h2 = native_hand(rotate(DEAL_A), 2, taker=1, bid=80, dealer=0)
    return native_game("e", [h1, h2], variant="coinche", ruleset_hint=None)


@pytest.mark.covers("mundijuegos-coinche:game.end_tie", "coinche-1000:game.end_tie")
def test_equal_totals_over_the_target_go_to_the_winners_of_the_last_hand(tmp_path):
    # A game to 250 (the record's target for mundijuegos-coinche, a house target for coinche-1000): 260 - 260
    # after hand 2, both over: the winners of that hand (team 1, which made its contract) win (PAGAT-C; seed
    # 004: on equal scores, the team that won that hand). With end_tie = "play_on" the game goes on.
    g = _equal_totals_game()
    g["target"] = 250
    row = game_row("mundijuegos-coinche", g)
    assert (row["totals"], row["ended_at_hand"], row["winner"]) == ([260, 260], 2, 1)
    on = house(tmp_path, "mundijuegos-coinche", '[game]\nend_tie = "play_on"')
    assert game_row(on, g)["ended_at_hand"] is None
    c250 = house(tmp_path, "coinche-1000", "[game]\ntarget = 250")
    row = game_row(c250, g)
    assert (row["totals"], row["ended_at_hand"], row["winner"]) == ([260, 260], 2, 1)
    c250_on = house(tmp_path, "coinche-1000", '[game]\ntarget = 250\nend_tie = "play_on"')
    assert game_row(c250_on, g)["ended_at_hand"] is None


# --------------------------------------------------------------------------------------------------------- fournier-2p

F2R_HANDS = ["8H 9H TH JH QH KH AH AC 7C", "7H 7D 8D 9D TD JD QD KD AD"]
# T1 AC 8D (seat 1 void in clubs); T2 JH 7D: a revoke (seat 1 holds 7H); T3 9H 7H; T4-T8 hearts, seat 1
# discards 9D TD JD QD KD; T9 7C AD. Seat 0 takes every trick: hearts 62 + AC 11 + diamonds 30 = 103, capot
# 100 in place of the last trick: 203. Declarations: seat 0 a run 8-A of hearts (7 cards), seat 1 7-A of
# diamonds (8): both quintes (100), equal in value, so the mano's stands (declarations.ranking = "value"): seat 0
# 100. Belote KH QH 20.
F2R_TRICKS = ["AC 8D", "JH 7D", "9H 7H", "8H 9D", "TH TD", "QH JD", "KH QD", "AH KD", "7C AD"]


@pytest.mark.covers("fournier-2p:play.revoke_penalty", "fournier-2p:declarations.enabled")
def test_fournier_revoke_gives_the_other_10(tmp_path):
    # each side what it took: seat 0 203 + 100 + 20 = 323 + 10 for seat 1's revoke = 333; seat 1 0. Without the
    # award: [323, 0]. Without declarations: [233, 0].
    g = game([hand(F2R_HANDS, F2R_TRICKS, taker=0, dealer=1)], n_players=2)
    r = score("fournier-2p", g)[0]
    assert (r["legal"], r["illegal_trick"], r["card_points"], r["hand_score"]) == (False, 2, [203, 0], [333, 0])
    free = house(tmp_path, "fournier-2p", "[play]\nrevoke_penalty = 0")
    assert score(free, g)[0]["hand_score"] == [323, 0]
    off = house(tmp_path, "fournier-2p", "[declarations]\nenabled = false")
    assert score(off, g)[0]["hand_score"] == [233, 0]


@pytest.mark.covers("fournier-2p:declarations.tie")
def test_fournier_equal_combinations_stay_with_the_mano(tmp_path):
    # 2 players, 9 cards: tierces 9-10-J of hearts and of diamonds, clubs trump. The mano (the non-dealer, seat 0
    # when seat 1 deals) announces first and the other only higher combinations: team 0 20. Nobody (tie =
    # "none"): 0.
    seats = ["9H TH JH 7C 9C JC 7S 9S KC", "9D TD JD 8C TC QC 8S TS AC"]
    assert held_points("fournier-2p", seats, "C", dealer=1) == [20, 0]
    assert held_points("fournier-2p", seats, "C", dealer=0) == [0, 20]
    none = house(tmp_path, "fournier-2p", '[declarations]\ntie = "none"')
    assert held_points(none, seats, "C", dealer=1) == [0, 0]


# Each seat takes its own nine cards, seat 0 the last trick (10); hearts trump; seat 1 deals, so seat 0 is the mano.
# Card values (fournier-2p): trump J 20, 9 14, A 11, 10 10, K 4, Q 3; plain A 11, 10 10, K 4, Q 3, J 2.
EQUAL_VALUE = [
    # mano: quinte 7-J of spades (100); other: carré of kings (100). Seat 0: TS 10 + JS 2 + AH 11 = 23 + 10 = 33;
    # seat 1: four kings 16 + AD 11 + TH 10 + QC 3 = 40. The mano's quinte stands: [133, 40]; "full" ranks the
    # carré above a run of equal value: [33, 140].
    (["7S 8S 9S TS JS 7C 9D AH 8H", "KC KD KH KS 8C AD 7H TH QC"], [133, 40], [33, 140]),
    # tierces 7-9 of clubs (mano) and 9-J of diamonds (higher top card). Seat 0: JH 20 + 9H 14 + AS 11 + KD 4 = 49
    # + 10 = 59; seat 1: TD 10 + JD 2 + AC 11 + QC 3 + TS 10 + AH 11 = 47. [79, 47]; "full": [59, 67].
    (["7C 8C 9C AS 7S JH 9H KD 8D", "9D TD JD AC QC 8S TS 7H AH"], [79, 47], [59, 67]),
    # tierces 9-J of clubs (mano) and 9-J of hearts (trump). Seat 0: TC 10 + JC 2 + AS 11 + AD 11 + KD 4 = 38 + 10
    # = 48; seat 1: 9H 14 + TH 10 + JH 20 + AC 11 + QC 3 + TS 10 = 68. [68, 68]; "full" (trump first): [48, 88].
    (["9C TC JC AS 7S 8H AD KD 7D", "9H TH JH AC QC 8S TS 9D 8D"], [68, 68], [48, 88]),
]


@pytest.mark.covers("fournier-2p:declarations.ranking")
@pytest.mark.parametrize("seats, text, full", EQUAL_VALUE)
def test_fournier_equal_value_combinations_stay_with_the_mano(tmp_path, seats, text, full):
    # Seed 001: the other player announces only combinations worth more than the mano's (naming each, not its
    # cards), so equal points are equal, whatever the kind, the top card or the suit; the mano announced first.
    from .harness import deal, hand as harness_hand, ruleset, score1
    cards = deal(*seats)
    won = dict(won=[" ".join(cards[0]), " ".join(cards[1])], last=0, taker=0, dealer=1)
    assert score1(ruleset("fournier-2p"), harness_hand(cards, **won))["hand_score"] == text
    full_rank = house(tmp_path, "fournier-2p", '[declarations]\nranking = "full"')
    assert score1(rules.load(str(full_rank)), harness_hand(cards, **won))["hand_score"] == full


@pytest.mark.covers("fournier-2p:game.target_strict")
def test_fournier_the_target_must_be_passed(tmp_path):
    # The capot of tests/rules/test_seed_rulesets.py (F2: 323 - 0) in a game to 323: 323 does not pass 323 (the
    # text has the players exceed the score): the game goes on; reaching it is enough with target_strict = false:
    # it ends at hand 1.
    from .test_seed_rulesets import F2_HANDS, F2_TRICKS
    g = game([hand(F2_HANDS, F2_TRICKS, taker=0, dealer=1)], n_players=2)
    strict = house(tmp_path, "fournier-2p", "[game]\ntarget = 323")
    reach = house(tmp_path, "fournier-2p", "[game]\ntarget = 323\ntarget_strict = false")
    assert game_row(strict, g)["ended_at_hand"] is None
    assert (game_row(reach, g)["ended_at_hand"], game_row(reach, g)["winner"]) == (1, 0)


# ---------------------------------------------------------------------------------------------------- bulgarian-plain

@pytest.mark.covers("bulgarian-plain:auction.style", "bulgarian-plain:auction.strains")
def test_bulgarian_plain_doubled_no_trump(tmp_path):
    # The no-trump valat of tests/rules/test_seed_rulesets.py (220 -> 22) doubled: the side with more takes the
    # whole deal x 2: 440 -> 44. A prise auction has no double (and no no-trump): the hand is not scorable.
    g = game([hand(NT_HANDS, NT_TRICKS, taker=0, strain="NT", dealer=3, coinche=1)])
    r = score("bulgarian-plain", g)[0]
    assert (r["status"], r["hand_score"]) == ("scored", [44, 0])
    prise = house(tmp_path, "bulgarian-plain", '[auction]\nstyle = "prise"\nstrains = ["C", "D", "H", "S"]')
    assert score(prise, g)[0]["status"] == "unscorable"
    suits = house(tmp_path, "bulgarian-plain", '[auction]\nstrains = ["C", "D", "H", "S"]')
    assert score(suits, game([hand(NT_HANDS, NT_TRICKS, taker=0, strain="NT", dealer=3)]))[0]["status"] == "unscorable"


@pytest.mark.covers("bulgarian-plain:belote.on_failure")
def test_bulgarian_plain_a_failed_belote_passes_too(tmp_path):
    # Takers 70 + belote 20 = 90 < 92: all their points pass: 162 + 20 = 182 -> 18. Keeping the belote: taker
    # 20 -> 2, defence 162 -> 16.
    assert settle1("bulgarian-plain", (70, 92), belote=(20, 0)) == ([0, 18], False, 0)
    keep = house(tmp_path, "bulgarian-plain", '[belote]\non_failure = "keep"')
    assert settle1(keep, (70, 92), belote=(20, 0)) == ([2, 16], False, 0)


@pytest.mark.covers("bulgarian-plain:cards.all_trump")
def test_bulgarian_plain_all_trump_counts_trump_values():
    # The all-trump hand of tests/rules/test_seed_rulesets.py with the trump values in every suit (J20 9:14 A11
    # 10:10 K4 Q3): team 0 JH 9H 8H TH 44, JC 7C AC KC 35, 9C 8C TC QC 27, JD 7D AD KD 35, 9D 8D TD QD 27 = 168;
    # team 1 7H AH QH KH 18, JS AS KS 7S 35, 9S TS QS 8S 27 + 10 = 90 (258). coinche-1000's table: [104, 58].
    g = game([hand(AT_HANDS, AT_TRICKS, taker=0, strain="AT", dealer=3)])
    assert score("bulgarian-plain", g)[0]["card_points"] == [168, 90]


@pytest.mark.covers("bulgarian-plain:declarations.count", "bulgarian-plain:declarations.enabled")
def test_bulgarian_plain_declarations_as_declared(tmp_path):
    # DEAL_D (test_seed_rulesets: [30, 12] with team 0's quarte and team 1's 120): the record says nothing was
    # declared: 252 -> 25, 0: [25, 0]; without declarations at all the same [25, 0], where held gives [30, 12].
    h = native_hand(DEAL_D, 1, taker=0)
    said_nothing = copy.deepcopy(h)
    said_nothing["announced"] = []
    assert score("bulgarian-plain", native_game("d", [said_nothing], ruleset_hint=None))[0]["hand_score"] == [25, 0]
    assert score("bulgarian-plain", native_game("d", [h], ruleset_hint=None))[0]["hand_score"] == [30, 12]
    off = house(tmp_path, "bulgarian-plain", "[declarations]\nenabled = false")
    assert score(off, native_game("d", [h], ruleset_hint=None))[0]["hand_score"] == [25, 0]
