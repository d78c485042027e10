"""The passes of score_batch (cards_pass.py, declarations_pass.py, contract_pass.py and the vectorised steps
between them, run by pipeline/rescore/hand_pass.py) and the helpers they rest on: Arrow buffers read in place
(columns.py), seat/team reduction without division (arith.py), the package-wide numba cache stamp (jit.py)."""

import numba
import numpy as np
import pyarrow as pa
import pytest

from pipeline import rules
from pipeline import jit
from pipeline.rescore import arith, cards_pass, columns, hand_pass, score_batch
from helpers import hands_table, score

CLUBS, DIAMONDS, HEARTS, SPADES = (f"7{s} 8{s} 9{s} T{s} J{s} Q{s} K{s} A{s}".split() for s in "CDHS")


def _game(n_hands, completeness="tricks_taken", strain="C"):
    """n identical hands: each seat holds one whole suit (seat 0 clubs ... seat 3 spades), seat 0 takes in
    clubs, and each seat took its own cards, seat 0 the last trick."""
    hand = {"dealer": 3, "completeness": completeness, "hands": [CLUBS, DIAMONDS, HEARTS, SPADES],
            "contract": {"taker": 0, "strain": strain}, "tricks_taken": [CLUBS, DIAMONDS, HEARTS, SPADES],
            "last_trick_seat": 0}
    return {"format": "rebelote", "version": 1, "source": "test", "source_game_id": "g1", "variant": "belote",
            "n_players": 4, "players": ["a", "b", "c", "d"],
            "hands": [dict(hand, hand_no=i + 1) for i in range(n_hands)]}


# By hand, belote-classic (FFB card values; tierce 20 / quarte 50 / quinte 100, runs ranked by length, trump
# breaks ties, unified contest; belote 20; dix de der 10; rules.md R6-R25):
# cards: team 0 = clubs as trump (J 20 + 9 14 + A 11 + 10 10 + K 4 + Q 3 = 62) + hearts (A 11 + 10 10 + K 4 + Q 3
# + J 2 = 30) + last trick 10 = 102; team 1 = diamonds 30 + spades 30 = 60 (102 + 60 = 162).
# Declarations: every seat holds an 8-card run (a quinte or longer, 100, top A = rank index 7); the four are equal
# but seat 0's is in trump, so team 0 scores its two (seats 0 and 2): 200. Seat 0 holds K+Q of clubs: belote 20.
# Contract: 102 + 200 + 20 = 322 > 60, made; each team scores its own total: 322 - 60. Without the declarations
# it is still made (122 > 60): the declarations did not decide it.
EXPECTED_ITEMS = [
    {"seat": 0, "kind": "quinte", "rank": 7, "suit": 0, "length": 8, "points": 100, "scored": True},
    {"seat": 0, "kind": "belote", "rank": None, "suit": 0, "length": 2, "points": 20, "scored": True},
    {"seat": 1, "kind": "quinte", "rank": 7, "suit": 1, "length": 8, "points": 100, "scored": False},
    {"seat": 2, "kind": "quinte", "rank": 7, "suit": 2, "length": 8, "points": 100, "scored": True},
    {"seat": 3, "kind": "quinte", "rank": 7, "suit": 3, "length": 8, "points": 100, "scored": False},
]


@pytest.mark.parametrize("n_hands", [1, 2, 100])
def test_hand_by_hand_declaration_items(n_hands):
    """n hands of 5 declaration items each: every hand comes out as computed by hand above, its items in order
    (a pass once had room for fewer items than the batch held, and ran again: the listing must not depend on the
    batch's size)."""
    rows = score("belote-classic", _game(n_hands))
    assert len(rows) == n_hands
    for r in rows:
        assert r["status"] == "scored" and r["reason"] is None and r["legal"] is None
        assert (r["card_points"], r["declaration_points"], r["belote_points"]) == ([102, 60], [200, 0], [20, 0])
        assert (r["contract_points"], r["hand_score"], r["contract_made"]) == ([322, 60], [322, 60], True)
        assert (r["belote_team"], r["last_trick_team"], r["capot_team"], r["declarations_decided"]) == (0, 0, None, False)
        assert r["declarations"] == EXPECTED_ITEMS and r["declarations_from"] == "held"


@pytest.mark.parametrize("field, value, reason", [
    # the record's texts are matched exactly, as pyarrow.compute.equal did (FORMAT: completeness and strain codes)
    ("completeness", "Tricks_taken", "summary hands carry no cards: nothing to rescore"),
    ("completeness", "tricks_taken ", "summary hands carry no cards: nothing to rescore"),
    ("strain", "c", "contract strain missing"),
    ("strain", "CC", "contract strain missing"),
])
def test_completeness_and_strain_texts_match_exactly(field, value, reason):
    g = _game(1)
    if field == "strain":
        g["hands"][0]["contract"]["strain"] = value
    else:
        g["hands"][0][field] = value
    (r,) = score("belote-classic", g)
    assert (r["status"], r["reason"]) == ("unscorable", reason)


def test_a_null_item_in_a_list_reads_as_0_as_before():
    """A null item inside a list column reads as 0, as the former gather (columns.fixed_list) read it: here seat
    1's tricks_taken mask (the diamonds) is null, so seat 1 took nothing: team 1 keeps the spades of seat 3
    (A 11 + 10 10 + K 4 + Q 3 + J 2 = 30) and team 0 its 102 (see above); team 1 still took tricks, no capot."""
    t = hands_table(_game(1))
    tt = t.column("tricks_taken").to_pylist()
    tt[0][1] = None
    t = t.set_column(t.schema.get_field_index("tricks_taken"), "tricks_taken",
                     pa.array(tt, type=t.schema.field("tricks_taken").type))
    (r,) = score_batch(t, rules.load("belote-classic")).to_pylist()
    assert (r["status"], r["card_points"], r["capot_team"]) == ("scored", [102, 30], None)


def test_mod_is_pythons_modulo():
    # Python's % (sign of the divisor) is the reference, for the seats and teams of the kernels and beyond
    mod = numba.njit(lambda x, m: arith.mod(x, m))     # arith.mod is for compiled callers only
    for m in range(1, 6):
        for x in range(-20, 21):
            assert mod(x, m) == x % m


def test_columns_read_in_place_from_a_sliced_column_with_nulls():
    arr = pa.array([[9, 9], None, [1, 2], [], [3, None]], type=pa.list_(pa.int8())).slice(1)
    bits, off = columns.validity(arr)
    assert [(bits[(off + i) >> 3] >> ((off + i) & 7)) & 1 for i in range(4)] == [0, 1, 1, 1]
    offsets, values = columns.list_parts(arr, np.int8)
    assert [values[offsets[i]:offsets[i + 1]].tolist() for i in range(1, 4)] == [[1, 2], [], [3, 0]]   # null -> 0
    prim = pa.array([5, None, 7], type=pa.int16()).slice(1)
    assert columns.values(prim, np.int16)[1] == 7
    assert columns.codes(pa.array(["full_play", None, "deal", "Deal"]).slice(1), ["x", "deal"], -1).tolist() == \
        [-1, 1, -1]
    bbits, boff = columns.bools(pa.array([True, False, True]).slice(1))
    assert [(bbits[(boff + i) >> 3] >> ((boff + i) & 7)) & 1 for i in range(2)] == [0, 1]
    assert columns.bit_bytes(bbits, boff, 2).tolist() == [0, 1]
    assert columns.bit_bytes(bits, off, 4).tolist() == [0, 1, 1, 1]


def test_columns_written_from_buffers():
    v = np.array([True, False, True])
    assert columns.primitive(np.array([1, 2, 3], np.int8), pa.int8(), v).to_pylist() == [1, None, 3]
    assert columns.primitive(np.array([True, True, False]), pa.bool_()).to_pylist() == [True, True, False]
    lists = columns.fixed_lists(np.array([[1, 2], [3, 4], [5, 6]], np.int16), pa.list_(pa.int16()), v)
    assert lists.to_pylist() == [[1, 2], None, [5, 6]]
    assert columns.strings(np.array([1, 0, 1], np.uint8), ["held", "announced"], columns.bitmap(v)).to_pylist() == \
        ["announced", None, "announced"]
    with pytest.raises(pa.ArrowIndexError):
        columns.strings(np.array([3], np.int8), ["a", "b"])


def test_kernel_cache_is_stamped_with_every_source_of_the_package(tmp_path):
    """numba stamps a cached kernel with its own file only; the package's kernels are stamped with all of the
    package's sources, so an edit of play.py also recompiles the passes that inline play_one (cards_pass)."""
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    before = jit.package_stamp(tmp_path)
    (tmp_path / "b.py").write_text("y = 2\n")
    assert jit.package_stamp(tmp_path) != before
    assert jit.LOCATORS
    cards_pass.cards_pass.enable_caching()
    locator = cards_pass.cards_pass._cache._impl.locator
    assert type(locator).__name__.startswith("PackageStamped")
    assert locator.get_source_stamp() == jit.package_stamp()


def test_prepared_ruleset_survives_another_thread_clearing_the_cache(monkeypatch):
    """``rescore --threads N`` scores batches of one ruleset on N threads, and the first batches of each thread
    all miss engine._CACHE: a thread that cleared it just after another stored its entry made that one's
    ``return _CACHE[key]`` raise KeyError. The interleaving is forced here: the cache clears itself right after
    each store, as the other thread would. The hand is scored as by hand above (102-60 card points ...)."""
    from pipeline.rescore import engine

    class ClearedByOtherThread(dict):
        def __setitem__(self, key, value):
            super().__setitem__(key, value)
            self.clear()             # the other thread, between this thread's store and its lookup

    monkeypatch.setattr(engine, "_CACHE", ClearedByOtherThread())
    (r,) = score("belote-classic", _game(1))
    assert (r["card_points"], r["declaration_points"], r["hand_score"]) == ([102, 60], [200, 0], [322, 60])
