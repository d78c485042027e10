"""Canonical plays lists rewritten as one text (pipeline/ingest/native_plays.py): the bytes written and read.

The expected bytes are worked out by hand from the rule in the module text: the list's brackets become quotes,
the cards' quotes spaces, the key ``plays`` becomes ``play\\x7f``; every length is unchanged. The lake-level
equivalence with the row path is tested in tests/test_fast_native.py.
"""

from __future__ import annotations

import numpy as np

from pipeline.ingest import native_plays


def _run(text: bytes) -> tuple[bytes, list[int], list[int]]:
    buf = bytearray(text)
    rewritten, opens, _ = native_plays.compact(buf)
    assert len(buf) == len(text)
    return bytes(buf), rewritten.tolist(), opens.tolist()


def test_compact_layout_is_rewritten_as_a_text():
    out, rewritten, opens = _run(b'{"plays":[[2,"AC"],[3,"JS"]],"x":[1]}\n')
    assert out == b'{"play\x7f":"[2, AC ],[3, JS ]","x":[1]}\n'
    assert rewritten == [9]          # the list's "[" at byte 9, now a quote
    assert opens == [33]             # only the "[" of "x" (byte 33) is left for mark_pairs


def test_spaced_layout_is_rewritten_as_a_text():
    out, rewritten, _ = _run(b'{"plays": [[0, "7D"], [1, "TH"]]}\n')
    assert out == b'{"play\x7f": "[0,  7D ], [1,  TH ]"}\n'
    assert rewritten == [10]


def test_other_spellings_are_left_alone():
    for text in [b'{"plays":[[2,"AC"], [3,"JS"]]}\n',      # separators of both layouts
                 b'{"plays":[[12,"AC"]]}\n',               # two-digit seat
                 b'{"plays":[[2,"10C"]]}\n',               # three-character card
                 b'{"plays":[[2,"A "]]}\n',                # a space in the card
                 b'{"plays":[[2,"\\u0041C"]]}\n',          # an escape
                 b'{"plays":[]}\n', b'{"plays":null}\n',
                 b'{"plays" :[[2,"AC"]]}\n',               # a space before the colon
                 b'{"play":[[2,"AC"]]}\n',                 # another key
                 b'{"plays":[[2,"AC"],[3,"JS"]}\n']:       # not closed
        out, rewritten, _ = _run(text)
        assert (out, rewritten) == (text, []), text


def test_decode_reads_seats_and_cards_at_fixed_offsets():
    # two texts as pyarrow would give them (one compact with 2 pairs, one spaced with 1), and a hand without one
    data = np.frombuffer(b"[2, AC ],[3, JS ]" + b"[0,  7D ]", np.uint8)
    offsets = np.array([0, 17, 17, 26], np.int64)
    dec = native_plays.decode(offsets, data, np.array([True, False, True]))
    assert dec.offsets.tolist() == [0, 2, 2, 3]
    assert dec.seat.tolist() == [2, 3, 0]
    assert [bytes([c >> 8, c & 0xFF]) for c in dec.code.tolist()] == [b"AC", b"JS", b"7D"]


def test_per_row_counts_rewrites_by_line():
    starts = np.array([0, 10, 20, 30], np.int64)
    assert native_plays.per_row(np.array([3, 12, 15], np.int64), starts).tolist() == [1, 2, 0]


# ------------------------------------------------------------------------------------------ dealt hands

def _run_hands(text: bytes) -> tuple[bytes, list[int], list[int]]:
    buf = bytearray(text)
    rewritten, opens, _ = native_plays.compact_hands(buf, native_plays.opening_brackets(buf))
    assert len(buf) == len(text)
    return bytes(buf), rewritten.tolist(), opens.tolist()


def test_compact_hands_is_rewritten_as_a_text():
    out, rewritten, opens = _run_hands(b'{"hands":[["8C","JC"],["TC"]],"x":[1]}\n')
    assert out == b'{"hand\x7f":"[ 8C , JC ],[ TC ]","x":[1]}\n'
    assert rewritten == [9]          # the outer "[" at byte 9, now a quote
    assert opens == [34]             # the seats' "[" (10, 22) are gone with it; the "[" of "x" stays


def test_spaced_hands_are_rewritten_as_a_text():
    out, rewritten, _ = _run_hands(b'{"hands": [["8C", "JC"], ["TC", "AS"]]}\n')
    assert out == b'{"hand\x7f": "[ 8C ,  JC ], [ TC ,  AS ]"}\n'
    assert rewritten == [10]


def test_other_hands_spellings_are_left_alone():
    for text in [b'{"hands":[["8C","JC"],[]]}\n',              # an empty seat
                 b'{"hands":[["8C","10C"]]}\n',                # a three-character card
                 b'{"hands":[["8C","JC"], ["TC"]]}\n',         # separators of both layouts
                 b'{"hands":[["8C",null]]}\n', b'{"hands":[]}\n', b'{"hands":null}\n',
                 b'{"hands":[{"hand_no":1}]}\n',               # the game's list of hands
                 b'{"hands" :[["8C"]]}\n',                     # a space before the colon
                 b'{"tricks_taken":[["8C"]]}\n']:              # another key
        out, rewritten, _ = _run_hands(text)
        assert (out, rewritten) == (text, []), text


def test_decode_hands_reads_seats_and_cards_at_fixed_offsets():
    # a compact text (2 seats), no text, a spaced one (2 seats of 2), a one-card text, a text cut short
    data = b"[ 8C , JC ],[ TC ]" + b"[ 8C ,  JC ], [ TC ,  AS ]" + b"[ 8C ]" + b"[ 8C , JC ],[ TC"
    offsets = np.array([0, 18, 18, 44, 50, 66], np.int64)
    dec = native_plays.decode_hands(offsets, np.frombuffer(data, np.uint8),
                                    np.array([True, False, True, True, True]))
    assert dec.offsets.tolist()[:5] == [0, 2, 2, 4, 5]
    assert dec.card_offsets.tolist()[:6] == [0, 2, 3, 5, 7, 8]
    cards = [bytes([c >> 8, c & 0xFF]) for c in dec.code.tolist()]
    assert cards[:8] == [b"8C", b"JC", b"TC", b"8C", b"JC", b"TC", b"AS", b"8C"]
    assert dec.ok.tolist() == [True, True, True, True, False]


# ------------------------------------------------------------------------------ decoded, then blanked

def test_take_plays_decodes_then_leaves_each_text_s_ordinal():
    # two canonical plays lists (compact, spaced): decoded, then each text, quotes included, becomes the JSON
    # number of its rank in the block followed by spaces, so pyarrow reads "play\x7f" as an integer
    text = b'{"plays":[[2,"AC"],[3,"JS"]]}\n{"plays": [[0, "7D"]]}\n'
    buf = bytearray(text)
    rewritten, _, ends = native_plays.compact(buf)
    dec = native_plays.take_plays(buf, rewritten, ends)
    # the lists are 19 and 11 bytes long: the ordinal's digit and 18 or 10 spaces
    assert bytes(buf) == b'{"play\x7f":0' + b" " * 18 + b'}\n{"play\x7f": 1' + b" " * 10 + b'}\n'
    assert len(buf) == len(text)
    assert dec.offsets.tolist() == [0, 2, 3]
    assert dec.seat.tolist() == [2, 3, 0]
    assert [bytes([c >> 8, c & 0xFF]) for c in dec.code.tolist()] == [b"AC", b"JS", b"7D"]


def test_take_hands_decodes_then_leaves_each_text_s_ordinal():
    text = b'{"hands":[["8C","JC"],["TC"]]}\n'
    buf = bytearray(text)
    rewritten, _, ends = native_plays.compact_hands(buf, native_plays.opening_brackets(buf))
    dec = native_plays.take_hands(buf, rewritten, ends)
    assert bytes(buf) == b'{"hand\x7f":0' + b" " * 19 + b'}\n'     # a list of 20 bytes
    assert dec.offsets.tolist() == [0, 2] and dec.card_offsets.tolist() == [0, 2, 3]
    assert [bytes([c >> 8, c & 0xFF]) for c in dec.code.tolist()] == [b"8C", b"JC", b"TC"]


def test_an_ordinal_longer_than_its_text_is_not_written():
    # each text becomes its ordinal and spaces; ordinal 100 needs 3 bytes, so a text of 2 bytes (quotes
    # included) keeps what it holds, which the schema's integer type then refuses (the line takes the row path)
    buf = bytearray(b'"x" "yyyy"')
    native_plays.blank(buf, np.array([0, 4], np.int64), np.array([2, 9], np.int64))
    assert bytes(buf) == b'0   1     '
    buf = bytearray(b'""')
    native_plays.blank(buf, np.zeros(101, np.int64), np.ones(101, np.int64))
    assert bytes(buf) == b'99'       # ordinals 0-99 fit (99 written last), 100 does not
