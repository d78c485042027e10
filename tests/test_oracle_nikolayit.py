"""NikolayIT/BelotGameEngine's test cases (../shared/oracles/cases/nikolayit_belotgameengine.json, 200 cases)
under the `nikolayit` ruleset (`bulgarian` with the engine's valat exception). Seats S E N W are our seats 0 1 2 3 (S+N and E+W partners)."""

import functools

import numpy as np
import pyarrow as pa
import pytest

from conftest import shared_cases
from pipeline import rules
from pipeline.formats import native
from pipeline.storage import schema
from pipeline.cards import RANKS, card_str, mask_of, parse_card
from pipeline.rescore import score_batch
from pipeline.rescore.contract import bg_round
from pipeline.rescore.belote import belote_announceable
from pipeline.rescore.declaration_contest import resolve_list
from pipeline.rescore.declaration_values import carre_key, seq_key
from pipeline.rescore.declarations import list_held
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.trick_order import strength

FILE = "oracles/cases/nikolayit_belotgameengine.json"
R = functools.partial(rules.load, "nikolayit")
SEAT = {"S": 0, "E": 1, "N": 2, "W": 3}
STRAIN = {"Clubs": 0, "Diamonds": 1, "Hearts": 2, "Spades": 3, "NoTrumps": 4, "AllTrumps": 5}
STRAIN_TXT = {"Clubs": "C", "Diamonds": "D", "Hearts": "H", "Spades": "S", "NoTrumps": "NT", "AllTrumps": "AT"}
TYPE = {"SequenceOf3": ("tierce", 3), "SequenceOf4": ("quarte", 4), "SequenceOf5": ("quinte", 5),
        "SequenceOf6": ("quinte", 6), "SequenceOf7": ("quinte", 7), "SequenceOf8": ("quinte", 8),
        "FourOfAKind": ("carre", 4), "FourNines": ("carre", 4), "FourJacks": ("carre", 4), "Belot": ("belote", 2)}


def cases(kind):
    return shared_cases(FILE, kind)


@pytest.mark.parametrize("case", cases("trick_winner"))
def test_trick_winner(case):
    i = case["input"]
    cards = np.array([parse_card(c) for c in i["cards"]], dtype=np.int8)
    led = np.repeat(np.int8(cards[0] // 8), 4)
    st = strength(cards, led, np.repeat(np.int8(STRAIN[i["contract"]]), 4))
    assert i["order"][int(np.argmax(st))] == case["expected"]["winner"]


@pytest.mark.parametrize("case", cases("legal_moves"))
def test_legal_moves(case):
    i = case["input"]
    trick = [parse_card(c) for c in i["trick_so_far"]]
    hand = [parse_card(c) for c in i["hand"]]
    strain = np.array([STRAIN[i["contract"]]], dtype=np.int8)
    seat = len(trick)                      # the leader is seat 0; the player to act is seat len(trick)
    win_seat, win_card = 0, 0
    if trick:
        st = strength(np.array(trick, dtype=np.int8), np.repeat(np.int8(trick[0] // 8), len(trick)),
                      np.repeat(strain, len(trick)))
        win_seat = int(np.argmax(st))
        win_card = trick[win_seat]
    legal = legal_cards(np.array([mask_of(hand)], dtype=np.uint32), np.array([not trick]),
                        np.array([trick[0] // 8 if trick else 0], dtype=np.int8), strain,
                        np.array([win_card], dtype=np.int8), np.array([bool(trick) and win_seat % 2 == seat % 2]),
                        PlayRules.of(R()))
    assert [card_str(c) for c in hand if int(legal[0]) >> c & 1] == case["expected"]["legal"]


def _type_of(kind, top, suit, length):
    if kind == "carre":
        return {"J": "FourJacks", "9": "FourNines"}.get(RANKS[top], "FourOfAKind"), RANKS[top] + "S"
    return f"SequenceOf{length}", RANKS[top] + "CDHS"[suit]


@pytest.mark.parametrize("case", cases("declarations_detect"))
def test_declarations_detect(case):
    hand = mask_of(parse_card(c) for c in case["input"]["hand"])
    got = sorted(_type_of(k, top, s, length) for k, top, s, length, _ in list_held(hand, 0, R()))
    e = case["expected"]
    assert got == sorted((d["type"], d["top_card"]) for d in e["declarations"]) and len(got) == e["count"]


def _key(d):
    kind, length = TYPE[d["type"]]
    card = parse_card(d["top_card"])
    r = R()
    if kind == "carre":
        return int(carre_key(r.rank_table("declarations.carre")[card % 8], card % 8, r))
    value = {3: 20, 4: 50}.get(length, 100)
    return int(seq_key(value, length, card % 8, 0, r))


@pytest.mark.parametrize("case", cases("declaration_compare"))
def test_declaration_compare(case):
    a, b = _key(case["input"]["a"]), _key(case["input"]["b"])
    assert (a > b) - (a < b) == case["expected"]["compare"]


@pytest.mark.parametrize("case", cases("declarations_resolve"))
def test_declarations_resolve(case):
    entries = []
    for d in case["input"]["declarations"]:
        kind, length = TYPE[d["type"]]
        card = parse_card(d["top_card"])
        entries.append((SEAT[d["player"]], kind, card % 8, card // 8 if kind != "carre" else None, length))
    assert resolve_list(entries, 0, R()) == case["expected"]["scored"]


@pytest.mark.parametrize("case", cases("rounding"))
def test_rounding(case):
    i = case["input"]
    got = bg_round(np.array([i["raw_points"]]), np.array([STRAIN[i["contract"]]]), i["is_round_winner"], True)
    assert int(got[0]) == case["expected"]["game_points"]


@pytest.mark.parametrize("case", cases("belote_allowed"))
def test_belote_allowed(case):
    i = case["input"]
    hand = mask_of(parse_card(c) for c in i["hand"])
    trick = [parse_card(c) for c in i["trick_so_far"]]
    got = belote_announceable(STRAIN[i["contract"]], hand, trick, parse_card(i["card_played"]), R())
    assert got == case["expected"]["belote_announced"]


@pytest.mark.parametrize("case", cases("round_score"))
def test_round_score(case):
    i, e = case["input"], case["expected"]
    announced = []
    for d in i["declarations"]:
        if not d["active"]:
            continue
        kind, length = TYPE[d["type"]]
        card = parse_card(d["top_card"])
        entry = {"seat": SEAT[d["player"]], "kind": kind, "rank": RANKS[card % 8], "length": length}
        if kind in ("tierce", "quarte", "quinte", "belote"):
            entry["suit"] = "CDHS"[card // 8]
        announced.append(entry)
    hand = {"hand_no": 1, "dealer": 3, "completeness": "tricks_taken",
            "contract": {"taker": SEAT[i["declarer"]], "strain": STRAIN_TXT[i["contract"]], "bid": None,
                         "coinche": {1: 0, 2: 1, 4: 2}[i["level"]]},
            "tricks_taken": [i["SN_cards"], i["EW_cards"], [], []], "last_trick_seat": SEAT[i["last_trick"]],
            "announced": announced}
    obj = {"format": "rebelote", "version": 1, "source": "nik", "source_game_id": case["id"], "variant": "bulgarian",
           "n_players": 4, "players": list("SENW"), "hands": [hand]}
    _, rows = native.game_to_rows(obj, "rebelote", "<oracle>", None)
    (s,) = score_batch(pa.Table.from_pylist(rows, schema=schema.schema("hands")), R()).to_pylist()
    b = list(s["hand_score"])
    hanging_out = 0
    if s["litige"]:
        hanging_out = i["hanging_in"] + s["held_points"]
    else:
        w = s["taker_team"] if s["contract_made"] else 1 - s["taker_team"]
        b[w] += i["hanging_in"]
    got = {"SN_board": b[0], "EW_board": b[1], "SN_raw": s["contract_points"][0], "EW_raw": s["contract_points"][1],
           "hanging_out": hanging_out, "capot": s["capot_team"] is not None}
    assert {k: got[k] for k in e} == e
