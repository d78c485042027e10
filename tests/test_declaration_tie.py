"""Equal best declarations (``declarations.tie``, rules.md R23): "none" (FFB-Co15 §8.3: still equal, nobody
scores) and "first_announcer" (PAGAT-B; ACANOMAS option 1; seed 001 for two players): declarations are
announced in playing order during the first trick, from the eldest hand on the dealer's left (seat dealer + 1),
so the team of the first seat from dealer + 1 that holds the tied best declaration scores.

Every expected value below is computed by hand from the deal (see the comments); card values are FFB-B16's
(trump J20 9:14 A11 10:10 K4 Q3; plain A11 10:10 K4 Q3 J2; last trick 10; rules.md R6-R7, R26) and the
tierce is worth 20 (rules.md R18).
"""

from __future__ import annotations

import copy

import numpy as np
import pyarrow as pa
import pytest

from pipeline import rules

from pipeline.storage import schema
from pipeline.cards import mask_of, parse_cards, parse_strain
from pipeline.rescore import score_batch
from pipeline.rescore.declaration_contest import resolve_list
from pipeline.rescore.declarations import build_tables, detect, from_announced
from tests.deals import native_game, native_hand
from tests.helpers import hands_table

# DEAL_T (trump hearts, taker seat 0): seat 0 holds the tierce 8C 9C TC, seat 1 the tierce 8D 9D TD: same length,
# same top card (a ten), neither in trump. Nobody else holds a declaration (no other run of 3, no carré; the
# queen and king of hearts are in different hands: no belote).
#   seat 0: 8C 9C TC 7D JH 9H AS TS      seat 1: 7C 8D 9D TD 7H 8H 7S 9S
#   seat 2: JC KC JD KD QH AH 8S JS      seat 3: QC AC QD AD TH KH QS KS
# The tricks (PLAYS_DEALER_3: seat 0 leads, dealer 3):
#   T1 JH 7H QH TH -> seat 0, 20+0+3+10 = 33     T5 8C 7C JC AC -> seat 3, 0+0+2+11 = 13
#   T2 9H 8H AH KH -> seat 0, 14+0+11+4 = 29     T6 QC 9C 8D KC -> seat 2 (seat 1 void, no trump left), 3+0+0+4 = 7
#   T3 AS 7S 8S QS -> seat 0, 11+0+0+3 = 14      T7 JD AD 7D 9D -> seat 3, 2+11+0+0 = 13
#   T4 TS 9S JS KS -> seat 0, 10+0+2+4 = 16      T8 QD TC TD KD -> seat 1, 3+10+10+4 = 27, + 10 last trick
#   team 0: 33+29+14+16+7 = 99; team 1: 13+13+27+10 = 63 (99 + 63 = 162).
# PLAYS_DEALER_0 (seat 1 leads, dealer 0): the spade trick AS 7S 8S QS comes first, led by seat 1 (7S 8S QS AS ->
# seat 0, 14), then T1, T2, T4-T8 as above: the same tricks, the same 99 - 63.
HANDS = [["8C", "9C", "TC", "7D", "JH", "9H", "AS", "TS"],
         ["7C", "8D", "9D", "TD", "7H", "8H", "7S", "9S"],
         ["JC", "KC", "JD", "KD", "QH", "AH", "8S", "JS"],
         ["QC", "AC", "QD", "AD", "TH", "KH", "QS", "KS"]]
_T1 = [[0, "JH"], [1, "7H"], [2, "QH"], [3, "TH"]]
_T2 = [[0, "9H"], [1, "8H"], [2, "AH"], [3, "KH"]]
_T4_T8 = [[0, "TS"], [1, "9S"], [2, "JS"], [3, "KS"],
          [0, "8C"], [1, "7C"], [2, "JC"], [3, "AC"],
          [3, "QC"], [0, "9C"], [1, "8D"], [2, "KC"],
          [2, "JD"], [3, "AD"], [0, "7D"], [1, "9D"],
          [3, "QD"], [0, "TC"], [1, "TD"], [2, "KD"]]
PLAYS_DEALER_3 = _T1 + _T2 + [[0, "AS"], [1, "7S"], [2, "8S"], [3, "QS"]] + _T4_T8
PLAYS_DEALER_0 = [[1, "7S"], [2, "8S"], [3, "QS"], [0, "AS"]] + _T1 + _T2 + _T4_T8
PLAYS = {3: PLAYS_DEALER_3, 0: PLAYS_DEALER_0}
# the two tierces as the native format records announcements (rank: face index 7=0 ... 10=3; suit C=0 D=1)
ANNOUNCED = [{"seat": 0, "kind": "tierce", "rank": 3, "suit": 0, "length": 3},
             {"seat": 1, "kind": "tierce", "rank": 3, "suit": 1, "length": 3}]
# ... and as a native record gives them (the cards)
NATIVE_ANNOUNCED = [{"seat": 0, "kind": "tierce", "cards": ["8C", "9C", "TC"]},
                    {"seat": 1, "kind": "tierce", "cards": ["8D", "9D", "TD"]}]
ANN_TYPE = schema.schema("hands").field("announced").type


def _ruleset(tmp_path, name: str, body: str) -> rules.Ruleset:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nextends = "belote-classic"\n{body}')
    return rules.load(path)


def _score(R, dealer: int, announced=None) -> dict:
    hand = native_hand({"hands": HANDS, "plays": PLAYS[dealer]}, 1, 0, "H", dealer=dealer)
    if announced is not None:
        hand["announced"] = announced
    (row,) = score_batch(hands_table(native_game("tie", [hand])), R).to_pylist()
    return row


def _summary(row: dict) -> tuple:
    return (row["legal"], row["card_points"], row["declaration_points"], row["contract_made"], row["hand_score"],
            [(d["seat"], d["kind"], d["scored"]) for d in row["declarations"]])


def test_shipped_values():
    # the classic family with announcements and the 2- and 3-player games take the first announcer (PAGAT-B,
    # seed 001, ADPOKER3 'même règle qu'à deux'); the coinche rulesets keep nobody (FFB-Co15 §8.3)
    for name in ("ffb-classic-announcements", "belote-classic", "belote-classic-301", "belote-2p", "belote-3p"):
        assert rules.load(name)["declarations.tie"] == "first_announcer", name
    for name in ("base", "ffb-coinche-2015", "pagat-coinche", "bulgarian", "bulgarian-2001", "hackbulgaria"):
        assert rules.load(name)["declarations.tie"] == "none", name


def test_unknown_tie_value_is_refused(tmp_path):
    with pytest.raises(rules.RulesetError, match="declarations.tie = 'first' is not supported; allowed: 'none', "
                                                  "'first_announcer'"):
        _ruleset(tmp_path, "bad-tie", '[declarations]\ntie = "first"\n')


def test_first_announcer_dealer_3_gives_team_0():
    # dealer 3: seat 0 announces first and holds a tied tierce -> team 0 scores 20: 99 + 20 = 119 against 63,
    # made (119 > 63), each team scores its own total (FFB-B16 §10.1.1)
    row = _score(rules.load("belote-classic"), 3)
    assert _summary(row) == (True, [99, 63], [20, 0], True, [119, 63],
                             [(0, "tierce", True), (1, "tierce", False)])


def test_first_announcer_dealer_0_gives_team_1():
    # dealer 0: seat 1 (team 1) announces first -> team 1 scores 20: 99 against 63 + 20 = 83, still made
    row = _score(rules.load("belote-classic"), 0)
    assert _summary(row) == (True, [99, 63], [0, 20], True, [99, 83],
                             [(0, "tierce", False), (1, "tierce", True)])


@pytest.mark.parametrize("dealer", [3, 0])
def test_tie_none_scores_for_nobody(tmp_path, dealer):
    # same deal under "none" (FFB-Co15 §8.3): whatever the dealer, neither tierce scores: 99 - 63
    R = _ruleset(tmp_path, "classic-tie-none", '[declarations]\ntie = "none"\n')
    assert _summary(_score(R, dealer)) == (True, [99, 63], [0, 0], True, [99, 63],
                                           [(0, "tierce", False), (1, "tierce", False)])


@pytest.mark.parametrize("dealer,team", [
    (3, [20, 0]),   # order 0 1 2 3: seat 0 (team 0) holds the tied tierce
    (0, [0, 20]),   # order 1 2 3 0: seat 1 (team 1)
    (1, [20, 0]),   # order 2 3 0 1: seats 2 and 3 hold nothing, seat 0 is the first holder (team 0)
    (2, [20, 0]),   # order 3 0 1 2: seat 3 holds nothing, then seat 0 (team 0)
])
def test_first_holder_from_the_dealers_left(dealer, team):
    # the held path alone (detect): the first seat from dealer + 1 *holding* the tied best scores, not the
    # eldest hand's team as such
    R = rules.load("belote-classic")
    h = np.array([[mask_of(parse_cards(" ".join(s))) for s in HANDS]], dtype=np.uint32)
    d = detect(h, np.array([parse_strain("H")], dtype=np.int8), R, build_tables(R), dealer=np.array([dealer]))
    assert d.team_points[0].tolist() == team


@pytest.mark.parametrize("dealer", [3, 0, 1, 2])
def test_trump_tierce_wins_before_the_announcer(dealer):
    # diamonds trump: seat 1's tierce 8D 9D TD is in trump, so it beats seat 0's 8C 9C TC before any tie
    # (declarations.trump_breaks_ties, PAGAT-B, FFB-Co15 §8.3): team 1 scores 20 whatever the dealer
    R = rules.load("belote-classic")
    h = np.array([[mask_of(parse_cards(" ".join(s))) for s in HANDS]], dtype=np.uint32)
    d = detect(h, np.array([parse_strain("D")], dtype=np.int8), R, build_tables(R), dealer=np.array([dealer]))
    assert d.team_points[0].tolist() == [0, 20]
    entries = [(0, "tierce", 3, 0, 3), (1, "tierce", 3, 1, 3)]
    assert resolve_list(entries, parse_strain("D"), R, 4, dealer) == [False, True]


def test_partners_tied_with_one_opponent():
    # seat 0 (team 0) and seat 2 (team 0) and seat 1 (team 1) each hold a tierce to the ten outside trump
    # (hearts): dealer 0 -> order 1 2 3 0: seat 1 first, team 1 scores its 20 only; dealer 1 -> order 2 3 0 1:
    # seat 2 first, team 0 scores both its tierces, 40
    R = rules.load("belote-classic")
    seats = ["8C 9C TC", "8D 9D TD", "8S 9S TS", ""]
    h = np.array([[mask_of(parse_cards(s)) for s in seats]], dtype=np.uint32)
    d = detect(h, np.array([parse_strain("H")], dtype=np.int8), R, build_tables(R), dealer=np.array([0]))
    assert d.team_points[0].tolist() == [0, 20]
    d = detect(h, np.array([parse_strain("H")], dtype=np.int8), R, build_tables(R), dealer=np.array([1]))
    assert d.team_points[0].tolist() == [40, 0]


@pytest.mark.parametrize("dealer,team,flags", [(3, [20, 0], [True, False]), (0, [0, 20], [False, True])])
def test_announced_path(tmp_path, dealer, team, flags):
    # the same tierces taken from the record (declarations.count = "announced"), settled by from_announced, by
    # resolve_list (rebelote show) and through score_batch: the same first announcer as the held path; the
    # record lists seat 0 first either way, which changes nothing (the order is the table's, from dealer + 1)
    R = _ruleset(tmp_path, "classic-announced", '[declarations]\ncount = "announced"\n')
    ann = pa.array([ANNOUNCED], type=ANN_TYPE)
    dec = from_announced(ann, np.array([parse_strain("H")], dtype=np.int8), R, 4, np.array([dealer]))
    assert dec.team_points[0].tolist() == team
    assert dec.entries.scored.tolist() == flags
    assert resolve_list([(a["seat"], a["kind"], a["rank"], a["suit"], a["length"]) for a in ANNOUNCED],
                        parse_strain("H"), R, 4, dealer) == flags
    row = _score(R, dealer, copy.deepcopy(NATIVE_ANNOUNCED))
    assert row["declarations_from"] == "announced"
    assert row["declaration_points"] == team
    assert [d["scored"] for d in row["declarations"]] == flags
    # under "none" the announced tie scores for nobody
    R0 = _ruleset(tmp_path, "classic-announced-none", '[declarations]\ncount = "announced"\ntie = "none"\n')
    assert from_announced(ann, np.array([parse_strain("H")], dtype=np.int8), R0, 4,
                          np.array([dealer])).team_points[0].tolist() == [0, 0]


def test_first_announcer_needs_the_dealer():
    # without the dealer the first announcer is unknown: a ValueError naming the ruleset and the parameter
    R = rules.load("belote-classic")
    h = np.array([[mask_of(parse_cards(" ".join(s))) for s in HANDS]], dtype=np.uint32)
    with pytest.raises(ValueError, match="ruleset belote-classic: declarations.tie = 'first_announcer' needs each "
                                         "hand's dealer"):
        detect(h, np.array([parse_strain("H")], dtype=np.int8), R, build_tables(R))
    with pytest.raises(ValueError, match="needs each hand's dealer"):
        resolve_list([(0, "tierce", 3, 0, 3)], parse_strain("H"), R)


@pytest.mark.parametrize("P,dealer,team", [
    (2, 1, [20, 0]),       # 2 players, dealer 1: seat 0 (the mano) announces first (seed 001)
    (2, 0, [0, 20]),       # dealer 0: seat 1 is the mano
    (3, 2, [20, 0, 0]),    # 3 players, each his own team: dealer 2 -> order 0 1 2, seat 0 first
    (3, 0, [0, 20, 0]),    # dealer 0 -> order 1 2 0: seat 1 first
    (3, 1, [20, 0, 0]),    # dealer 1 -> order 2 0 1: seat 2 holds nothing, seat 0 first
])
def test_two_and_three_players(P, dealer, team):
    # seats 0 and 1 hold tierces to the ten outside trump (hearts); belote-2p / belote-3p (first_announcer)
    R = rules.load("belote-2p" if P == 2 else "belote-3p")
    seats = ["8C 9C TC", "8D 9D TD", ""][:P]
    h = np.array([[mask_of(parse_cards(s)) for s in seats]], dtype=np.uint32)
    d = detect(h, np.array([parse_strain("H")], dtype=np.int8), R, build_tables(R), dealer=np.array([dealer]))
    assert d.team_points[0].tolist() == team
    flags = resolve_list([(0, "tierce", 3, 0, 3), (1, "tierce", 3, 1, 3)], parse_strain("H"), R, P, dealer)
    assert flags == [team[0] > 0, team[1] > 0]


def test_random_batch_cuts_do_not_change_the_result():
    # the four dealers of DEAL_T's held path mixed with simulated belote-classic hands, scored whole and cut at
    # random points: row-local, so every cut gives the same table (the tie rule reads only the row's dealer)
    from pipeline.simulate.games import simulate
    from tests.helpers import hands_table as table_of

    tie_game = native_game("tie", [native_hand({"hands": HANDS, "plays": PLAYS[d]}, i + 1, 0, "H", dealer=d)
                                   for i, d in enumerate([3, 0, 3, 0])])
    table = table_of(*simulate("belote-classic", 6, 5), tie_game)
    R = rules.load("belote-classic")
    whole = score_batch(table, R)
    rng = np.random.default_rng(7)
    for _ in range(3):
        cuts = np.sort(rng.choice(np.arange(1, table.num_rows), size=4, replace=False))
        parts = [score_batch(table.slice(a, b - a), R) for a, b in zip([0, *cuts], [*cuts, table.num_rows])]
        assert pa.concat_tables(parts).equals(whole)
    tail = whole.slice(whole.num_rows - 4).column("declaration_points").to_pylist()
    assert tail == [[20, 0], [0, 20], [20, 0], [0, 20]]


@pytest.mark.parametrize("dealer,line", [
    (3, "team 0 scores its declarations (equal best: P0 announces first)"),
    (0, "team 1 scores its declarations (equal best: P1 announces first)"),
])
def test_show_names_the_first_announcer(tmp_path, dealer, line):
    # rebelote show's contest line says which seat's announcing first broke the tie; under "none", nobody
    from pipeline.formats import native
    from pipeline.stats.show import explain

    game = native_game("tie", [native_hand({"hands": HANDS, "plays": PLAYS[dealer]}, 1, 0, "H", dealer=dealer)])
    hand = native.game_to_rows(game, "rebelote", "<test>", None)[1][0]

    def contest(R):
        lines = [ln for sec in explain(hand, R)["sections"] for ln in sec["lines"]]
        return next(ln["value"] for ln in lines if ln["label"] == "contest")

    assert contest(rules.load("belote-classic")) == line
    R0 = _ruleset(tmp_path, "classic-tie-none", '[declarations]\ntie = "none"\n')
    assert contest(R0) == "equal best declarations: nobody scores"
