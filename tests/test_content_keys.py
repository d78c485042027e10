"""Hand and game keys over typed columns (pipeline/formats/content_keys.py, issue 19).

The expected keys are computed here from the byte layout the module's text documents, written out by hand with
``struct``, so a change to the layout (which would silently re-key every lake) fails this test. The other tests
show what a key depends on: every key field, and nothing a reader chooses (Arrow widths, chunks, column order)
or that says where the row was read.
"""

from __future__ import annotations

import hashlib
import struct

import pyarrow as pa
import pytest

from pipeline.storage import schema
from pipeline.formats import content_keys as ck
from pipeline.formats.records import GameRecord, Provenance, finish_game, new_hand


@pytest.fixture(autouse=True, params=["per column", "per value"])
def encoder(request, monkeypatch):
    """Every test runs through both writers of the binary string: pyarrow and numpy per column (batches above
    ck.SMALL rows) and Python per value (small batches); they must write the same bytes."""
    monkeypatch.setattr(ck, "SMALL", -1 if request.param == "per column" else 1 << 30)
    return request.param


def _hand(**kw) -> dict:
    row = new_hand(game_id="g:1", hand_no=1, source="s", source_format="rebelote", source_file="f.jsonl",
                   source_game_id="1", variant="belote", n_players=4, players=["A", "B", "C", "D"], dealer=3,
                   completeness="summary", taker=1, strain="H", recorded_score=[0, 162])
    row.update(kw)
    return row


def _table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=schema.schema("hands"))


def _key(row: dict) -> str:
    return ck.hand_keys(_table([row])).to_pylist()[0]


# the documented layout, by hand: tag byte, then the value in its schema width / a 4-byte length
def _null(width: int) -> bytes:
    return b"\x00" + bytes(width)


def _i(v: int, fmt: str) -> bytes:
    return b"\x01" + struct.pack("<" + fmt, v)


def _text(s: str) -> bytes:
    b = s.encode()
    return b"\x01" + struct.pack("<I", len(b)) + b


def _list(items: list[bytes]) -> bytes:
    return b"\x01" + struct.pack("<I", len(items)) + b"".join(items)


def test_the_key_is_the_sha256_of_the_documented_layout():
    row = _hand(auction=[{"seat": 0, "call": "pass"}])
    expected = b"".join([
        _text("g:1"),                                  # game_id
        _i(1, "i"),                                    # hand_no int32
        _i(3, "b"),                                    # dealer int8
        _i(4, "b"),                                    # n_players int8
        _list([_text(p) for p in "ABCD"]),             # players
        _null(4),                                      # initial_hands (a null list)
        _null(1),                                      # turned_card
        _list([b"\x01" + _i(0, "b") + _text("pass")]),  # auction: one struct {seat, call}
        _i(1, "b"),                                    # taker
        _null(1),                                      # taker_team
        _text("H"),                                    # strain
        _null(2),                                      # bid int16
        _i(0, "?"),                                    # capot_bid
        _i(0, "b"),                                    # coinche
        _null(4), _null(4), _null(4),                  # plays, play_seats, tricks_taken
        _null(1),                                      # last_trick_seat
        _null(4),                                      # announced
        _null(1),                                      # belote_seat
        _list([_i(0, "i"), _i(162, "i")]),             # recorded_score int32
        _null(4), _null(4),                            # recorded_card_points, recorded_totals
        _null(4), _null(4),                            # recorded_margin, carried_in (int32)
        _text("summary"),                              # completeness
        _null(4),                                      # penalties
        b"\x00",                                       # claim: a null struct is its tag alone
    ])
    assert _key(row) == hashlib.sha256(expected).hexdigest()[:32]


def test_a_game_key_covers_its_fields_then_its_hand_keys_in_hand_number_order():
    games = pa.table({"game_id": ["g:1"], "variant": ["belote"], "n_players": pa.array([4], pa.int8()),
                      "players": [["A", "B", "C", "D"]], "target": pa.array([None], pa.int32()),
                      "recorded_final": pa.array([[501, 320]], pa.list_(pa.int32())),
                      "recorded_winner": pa.array([0], pa.int8())})
    keys = ["k2", "k1"]
    by_game = ck.ordered_hand_keys(pa.array([2, 1]).to_numpy(), pa.array(keys), pa.array([0, 2]).to_numpy())
    assert by_game.to_pylist() == [["k1", "k2"]]
    expected = b"".join([_text("g:1"), _text("belote"), _i(4, "b"), _list([_text(p) for p in "ABCD"]), _null(4),
                         _list([_i(501, "i"), _i(320, "i")]), _i(0, "b"), _list([_text("k1"), _text("k2")])])
    assert ck.game_keys(games, by_game).to_pylist() == [hashlib.sha256(expected).hexdigest()[:32]]


def test_every_key_field_counts_and_nothing_else_does():
    base = _hand(plays=list(range(32)), play_seats=[i % 4 for i in range(32)], completeness="full_play",
                 initial_hands=[255, 255 << 8, 255 << 16, 255 << 24])
    k = _key(base)
    changed = {"game_id": "g:2", "hand_no": 2, "dealer": 0, "n_players": 3, "players": ["A", "B", "C", "E"],
               "initial_hands": [255 << 8, 255, 255 << 16, 255 << 24], "turned_card": 5,
               "auction": [{"seat": 0, "call": "take"}], "taker": 2, "taker_team": 1, "strain": "S", "bid": 80,
               "capot_bid": True, "coinche": 1, "plays": list(range(1, 32)) + [0], "play_seats": [0] * 32,
               "tricks_taken": [1, 2, 3, 4], "last_trick_seat": 1,
               "announced": [{"seat": 0, "kind": "tierce", "rank": 7, "suit": 0, "length": 3}], "belote_seat": 0,
               "recorded_score": [162, 0], "recorded_card_points": [0, 162], "recorded_totals": [0, 162],
               "recorded_margin": 5, "carried_in": 10, "completeness": "summary",
               "penalties": [{"seat": 1, "kind": "revoke"}], "claim": {"seat": 1, "trick": 6}}
    assert set(changed) == set(ck.HAND_FIELDS)
    for field, value in changed.items():
        assert _key({**base, field: value}) != k, field
    for field, value in {"source_file": "other.jsonl", "source_line": 9, "source_format": "bga", "errors": ["x"],
                         "ruleset_hint": "colver", "source_hand_id": "7", "ingest_file": "/x"}.items():
        assert _key({**base, field: value}) == k, field


@pytest.mark.parametrize("a,b", [
    ({"recorded_score": None}, {"recorded_score": []}),            # null list and empty list
    ({"recorded_score": []}, {"recorded_score": [0]}),
    ({"players": ["AB", "C", "D", "E"]}, {"players": ["A", "BC", "D", "E"]}),   # texts are length-prefixed
    ({"strain": None}, {"strain": ""}),
    ({"taker": None}, {"taker": 0}),
    ({"claim": None}, {"claim": {"seat": None, "trick": None}}),
])
def test_values_that_print_alike_have_different_keys(a, b):
    assert _key(_hand(**a)) != _key(_hand(**b))


def test_arrow_widths_chunks_and_column_order_do_not_change_a_key():
    rows = [_hand(hand_no=i, plays=[i, 31 - i], play_seats=[0, 1]) for i in range(1, 6)]
    t = _table(rows)
    keys = ck.hand_keys(t)
    wide = pa.table({f: (t.column(f).cast(pa.int64()) if pa.types.is_integer(t.schema.field(f).type)
                         else t.column(f).cast(pa.list_(pa.int64())) if f == "plays" else t.column(f))
                     for f in reversed(ck.HAND_FIELDS)})
    chunked = pa.concat_tables([t.slice(0, 2), t.slice(2)])
    assert chunked.column("plays").num_chunks == 2
    assert ck.hand_keys(wide) == keys and ck.hand_keys(chunked) == keys
    assert ck.hand_keys(t.slice(3)) == keys.slice(3)
    assert len(set(keys.to_pylist())) == 5


def test_key_records_keys_the_rows_of_any_reader_as_the_lake_recomputes_them():
    hands = [_hand(hand_no=2), _hand(hand_no=1, strain="S")]
    game = finish_game({"game_id": "g:1", "source": "s", "source_format": "rebelote", "source_file": "f.jsonl",
                        "source_game_id": "1", "variant": "belote", "n_players": 4, "players": ["A", "B", "C", "D"]},
                       hands)
    assert game["game_key"] is None and hands[0]["hand_key"] is None      # readers leave keys to the driver
    rec = GameRecord(game, hands, Provenance("rebelote", "f.jsonl", 1))
    ck.key_records([rec])
    assert [h["hand_key"] for h in hands] == ck.hand_keys(_table(hands)).to_pylist()
    games = pa.Table.from_pylist([game], schema=schema.schema("games"))
    by_game = pa.array([[hands[1]["hand_key"], hands[0]["hand_key"]]], pa.list_(pa.string()))
    assert game["game_key"] == ck.game_keys(games, by_game).to_pylist()[0]


def test_both_writers_write_the_same_bytes_for_every_kind_of_value(monkeypatch):
    # one row per value of test_every_key_field_counts_and_nothing_else_does's changes, plus nulls inside lists
    # and structs: the batch is written per column and per value (ck.SMALL either side of its length)
    rows = [_hand(plays=list(range(32)), play_seats=[i % 4 for i in range(32)], completeness="full_play")]
    rows += [_hand(hand_no=i, **{k: v}) for i, (k, v) in enumerate({
        "auction": [{"seat": 0, "call": "take"}, {"seat": None, "call": None}, None], "turned_card": 5,
        "announced": [{"seat": 0, "kind": "tierce", "rank": 7, "suit": 0, "length": 3},
                      {"seat": 1, "kind": None, "rank": None, "suit": None, "length": None}],
        "penalties": [], "claim": {"seat": 1, "trick": None}, "players": ["é", "", "C", "😀"], "bid": -300,
        "recorded_score": [None, 2 ** 31 - 1], "capot_bid": True, "recorded_margin": -(2 ** 31),
        "initial_hands": [2 ** 32 - 1, 0, 1, 2]}.items(), start=2)]
    t = _table(rows)
    columns = ck._columns(t, "hands", ck.HAND_FIELDS)
    assert ck._encode_small(columns) == ck._join(*[ck._encode(c) for c in columns])
    monkeypatch.setattr(ck, "SMALL", -1)
    per_column = ck.hand_keys(t)
    monkeypatch.setattr(ck, "SMALL", 1 << 30)
    assert ck.hand_keys(t) == per_column
