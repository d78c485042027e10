"""The native record's nested fields, a block of lines at a time: auction, plays, card lists, announcements,
penalties, claim and ``played_at``, read from pyarrow's columns into numpy arrays with per-hand checks, and
built back into the lake's ``hands`` columns for the accepted lines (:mod:`pipeline.ingest.native_columns`).

Each reader here checks what :func:`pipeline.formats.native.game_to_rows` checks for its field; a hand it does not
accept goes to the row path, which imports it or writes the reject with its usual message.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.cards import RANKS, popcount32
from pipeline.ingest import arrow_lists as al, kernels
from pipeline.jit import njit

_KINDS = {"tierce": 3, "quarte": 4, "quinte": 5, "carre": 4, "belote": 2}      # as pipeline.formats.native._KINDS
_RANK_OF = {r: i for i, r in enumerate(RANKS)} | {"10": 3} | {r.lower(): i for i, r in enumerate(RANKS)}
_SUIT_OF = {s: i for i, s in enumerate("CDHS")} | {s: i for i, s in enumerate("cdhs")}


def times(arr: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``played_at`` texts read as :func:`pipeline.formats.native.parse_time` reads them, once per distinct text.

    Returns (the ``games.played_at`` column: ``timestamp[us, UTC]``, null where the text is null or not a
    time; per row, True unless ``parse_time`` refuses the text, in which case the row path must read the line
    and write its reject)."""
    typ = schema.schema("games").field("played_at").type
    if arr.null_count == len(arr):
        return pa.nulls(len(arr), typ), np.ones(len(arr), bool)
    enc = pc.dictionary_encode(arr)
    times, good = [], []
    for text in enc.dictionary.to_pylist():
        try:
            times.append(native.parse_time(text))
            good.append(True)
        except Exception:              # RecordError, or an overflow the row path must report its own way
            times.append(None)
            good.append(False)
    idx = enc.indices
    ok = pc.fill_null(pa.array(good, pa.bool_()).take(idx), True).to_numpy(zero_copy_only=False)
    return pa.array(times, typ).take(idx), ok

@dataclass
class Calls:
    """The ``auction`` lists of every hand: ``{"seat", "call"}`` objects."""

    offsets: np.ndarray   # per hand + 1, into the calls
    valid: np.ndarray     # per hand: the list is not null
    ok: np.ndarray        # per call: an object with a seat and a call
    seat: np.ndarray      # per call
    call: pa.Array        # per call (string)


def calls(arr: pa.Array) -> Calls:
    offsets, valid, items = al.lists(arr)
    seat, seat_v = al.ints(al.field(items, "seat"))
    call = al.field(items, "call")
    return Calls(offsets, valid, al.validity(items) & seat_v & al.validity(call), seat, call)


@dataclass
class Plays:
    """The plays of every hand: ``plays`` (cards) with ``play_seats`` (the seat of each)."""

    offsets: np.ndarray     # per hand + 1, into the plays
    valid: np.ndarray       # per hand: plays given
    ok: np.ndarray          # per hand: plays and play_seats are two lists of the same length, or both absent
    seat: np.ndarray        # per play
    card: np.ndarray        # per play: card id, -1 when not a card


def plays(hv: pa.Array) -> Plays:
    offsets, valid, cards = al.lists(al.field(hv, "plays"))
    s_off, s_valid, seats = al.lists(al.field(hv, "play_seats"))
    seat, seat_v = al.ints(seats)
    same = np.array_equal(offsets, s_off) and np.array_equal(valid, s_valid)
    ok = np.ones(len(valid), bool) if same else (valid == s_valid) & (np.diff(offsets) == np.diff(s_off))
    if not same:                # a hand whose two lists differ in length: the row path says so
        seat = np.zeros(len(cards), np.int64)
        seat_v = np.zeros(len(cards), bool)
    # a seat that is not a seat number (null, negative: version 1's digits could not be) is the row path's to reject
    bad_seat = ~seat_v | (seat < 0)
    ok &= al.seg_sum(bad_seat, offsets) == 0 if len(cards) else True
    return Plays(offsets, valid, ok, np.where(bad_seat, 0, seat), al.string_cards(cards).astype(np.int16))


# --------------------------------------------------------------------------------------------- the block
@dataclass
class Penalties:
    """The ``penalties`` lists ({seat, kind}) of every hand."""

    offsets: np.ndarray
    valid: np.ndarray       # per hand: a non-empty list (an empty one reads as null, as in the row path)
    hand_ok: np.ndarray     # per hand: every item an object with a seat of the game and a known kind
    seat: np.ndarray
    kind: pa.Array

    @classmethod
    def of(cls, arr: pa.Array, nh: np.ndarray) -> "Penalties":
        from pipeline.rules import PENALTY_KINDS
        offsets, valid, items = al.lists(arr)
        par = al.parents(offsets)
        seat, seat_v = al.ints(al.field(items, "seat"))
        kind = al.field(items, "kind")
        ok = al.validity(items) & seat_v & (seat >= 0) & (seat < nh[par]) & al.isin(kind, PENALTY_KINDS)
        hand_ok = ~valid | (al.seg_sum(~ok, offsets) == 0)
        return cls(offsets, valid & (offsets[1:] > offsets[:-1]), hand_ok, seat, kind)

    def column(self, rows: np.ndarray) -> pa.Array:
        typ = schema.schema("hands").field("penalties").type
        new, idx = al.gather(self.offsets, rows)
        if not new[-1]:
            return pa.nulls(len(rows), typ)
        items = pa.StructArray.from_arrays([pa.array(self.seat[idx], pa.int8()), al.pick(self.kind, idx)],
                                           names=["seat", "kind"])
        return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items.cast(typ.value_type),
                                        mask=pa.array(~self.valid[rows]), type=typ)


def claim_column(valid: np.ndarray, seat: np.ndarray, trick: np.ndarray, rows: np.ndarray) -> pa.Array:
    """``hands.claim`` (struct<seat, trick>) of the selected hands."""
    typ = schema.schema("hands").field("claim").type
    if not valid[rows].any():
        return pa.nulls(len(rows), typ)
    return pa.StructArray.from_arrays([pa.array(seat[rows], pa.int8()), pa.array(trick[rows], pa.int8())],
                                      fields=list(typ), mask=pa.array(~valid[rows]))


def list_column(offsets, valid, values, rows, typ, value_valid=None, values_array=None) -> pa.Array:
    """List column of the selected rows: row ``r`` is ``values[offsets[r]:offsets[r+1]]`` (null where not
    ``valid``), as ``list<typ>``."""
    new, idx = al.gather(offsets, rows)
    if values_array is not None:
        items = al.pick(values_array, idx) if new[-1] else pa.array([], typ)
    else:
        vv = None if value_valid is None else ~value_valid[idx]
        items = pa.array(np.asarray(values)[idx], typ, mask=vv)
    return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items, mask=pa.array(~valid[rows]),
                                    type=pa.list_(typ))


@dataclass
class CardLists:
    """A list of card lists per hand (``hands``, ``tricks_taken``), as one bitmask per inner list."""

    offsets: np.ndarray    # per hand, into masks
    valid: np.ndarray      # per hand
    ok: np.ndarray         # per hand: no null list, every token a card
    count: np.ndarray      # per hand: number of inner lists
    masks: np.ndarray      # uint32 per inner list
    sizes: np.ndarray      # cards per inner list (popcount)
    seat_hand: np.ndarray  # hand of each inner list
    union: np.ndarray      # per hand: OR of its masks
    total: np.ndarray      # per hand: sum of sizes
    first_size: np.ndarray  # per hand: size of its first list (0 if none)

    def column(self, rows: np.ndarray, typ: pa.DataType) -> pa.Array:
        return list_column(self.offsets, self.valid, self.masks, rows, typ)


def card_lists(arr: pa.Array) -> CardLists:
    """The ``list<list<string>>`` column ``arr`` (one list of cards per seat) as :class:`CardLists`."""
    offsets, valid, inner = al.lists(arr)
    ioff, ivalid, strs = al.lists(inner)
    masks, tok_bad = card_masks(al.string_cards(strs), ioff)
    return card_lists_of(offsets, valid, masks, ~ivalid | tok_bad)


def card_masks(cards: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(uint32 bitmask of the cards of each list ``cards[offsets[i]:offsets[i+1]]``, whether the list holds
    a token that is not a card (-1))."""
    return kernels.call(_masks_kernel, np.asarray(cards, np.int64), np.asarray(offsets, np.int64))


@njit(cache=True, nogil=True)
def _masks_kernel(cards, offsets):
    n = len(offsets) - 1
    masks = np.zeros(n, np.uint32)
    bad = np.zeros(n, np.bool_)
    for i in range(n):
        m = np.uint32(0)
        for k in range(offsets[i], offsets[i + 1]):
            c = cards[k]
            if c < 0:
                bad[i] = True
            else:
                m |= np.uint32(1) << np.uint32(c)
        masks[i] = m
    return masks, bad


def card_lists_of(offsets: np.ndarray, valid: np.ndarray, masks: np.ndarray, inner_bad: np.ndarray) -> CardLists:
    """:class:`CardLists` from each hand's inner lists (``offsets`` into ``masks``), the hands' validity and
    the inner lists that are not lists of cards."""
    count = offsets[1:] - offsets[:-1]
    ok = ~valid | (al.seg_sum(inner_bad, offsets) == 0)
    sizes = popcount32(masks) if len(masks) else np.zeros(0, np.int32)
    seat_hand = al.parents(offsets)
    union = al.seg_or(masks, offsets)
    total = al.seg_sum(sizes, offsets)
    first_size = np.where(count > 0, sizes[np.minimum(offsets[:-1], max(len(sizes) - 1, 0))] if len(sizes)
                          else 0, 0)
    return CardLists(offsets, valid, ok, count, masks, sizes, seat_hand, union, total, first_size)


@njit(cache=True, nogil=True)
def plays_ok(offsets, pair_ok, seat, card, nh, init_valid, init_count, init_offsets, init_masks):
    """Per hand: every play is a well-formed pair (``pair_ok``) of a seat of the game and a card, no card is
    played twice, and, when the deal is given, each card was in its seat's hand (the seat's bitmask in
    ``init_masks``; a deal without one list per seat is rejected elsewhere)."""
    n = len(offsets) - 1
    out = np.ones(n, np.bool_)
    for h in range(n):
        played = np.uint32(0)
        for k in range(offsets[h], offsets[h + 1]):
            c, s = card[k], seat[k]
            if not pair_ok[k] or c < 0 or s < 0 or s >= nh[h]:
                out[h] = False
                break
            bit = np.uint32(1) << np.uint32(c)
            if played & bit:
                out[h] = False                   # played twice
                break
            played |= bit
            if init_valid[h] and len(init_masks):
                at = init_offsets[h] + min(s, 3) if init_count[h] == nh[h] else 0
                if (init_masks[min(at, len(init_masks) - 1)] & bit) == 0:
                    out[h] = False               # not in the seat's hand
                    break
    return out


def auction_column(auc: Calls, rows: np.ndarray) -> pa.Array:
    """``list<struct<seat: int8, call: string>>`` of the selected hands; a null auction is ``[]``."""
    new, idx = al.gather(auc.offsets, rows)
    calls = al.pick(auc.call, idx) if new[-1] else pa.array([], pa.string())
    items = pa.StructArray.from_arrays([pa.array(auc.seat[idx], pa.int8()), calls], names=["seat", "call"])
    typ = schema.schema("hands").field("auction").type
    return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items, type=typ)


@dataclass
class Announced:
    """The ``announced`` lists, converted as :func:`pipeline.formats.native._announcement` does."""

    offsets: np.ndarray
    valid: np.ndarray
    hand_ok: np.ndarray
    seat: np.ndarray
    kind: pa.Array
    rank: np.ndarray
    rank_v: np.ndarray
    suit: np.ndarray
    suit_v: np.ndarray
    length: np.ndarray

    def column(self, rows: np.ndarray) -> pa.Array:
        new, idx = al.gather(self.offsets, rows)
        items = pa.StructArray.from_arrays(
            [pa.array(self.seat[idx], pa.int8()), al.pick(self.kind, idx),
             pa.array(self.rank[idx], pa.int8(), mask=~self.rank_v[idx]),
             pa.array(self.suit[idx], pa.int8(), mask=~self.suit_v[idx]),
             pa.array(self.length[idx], pa.int8())], names=["seat", "kind", "rank", "suit", "length"])
        typ = schema.schema("hands").field("announced").type
        return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items.cast(typ.value_type),
                                        mask=pa.array(~self.valid[rows]), type=typ)


def announced(arr: pa.Array, nh: np.ndarray) -> Announced:
    offsets, valid, items = al.lists(arr)
    m = len(items)
    a_par = al.parents(offsets)
    ok = al.validity(items)
    kind = al.field(items, "kind")
    ok &= al.isin(kind, _KINDS)
    seat, seat_v = al.ints(al.field(items, "seat"))
    ok &= seat_v & (seat >= 0) & (seat < nh[a_par])
    c_off, c_valid, c_vals = al.lists(al.field(items, "cards"))
    c_len = c_off[1:] - c_off[:-1]
    by_cards = c_valid & (c_len > 0)                         # `if a.get("cards")`
    cards = al.string_cards(c_vals)
    bad_tok = cards < 0
    ok &= ~by_cards | (al.seg_sum(bad_tok, c_off) == 0)
    ok &= ~by_cards | (c_len <= al.INT8[1])
    cr = np.where(bad_tok, 0, cards % 8)
    cs = np.where(bad_tok, 0, cards // 8)
    nz = c_len > 0
    top = np.zeros(m, np.int64)
    lo = np.zeros(m, np.int64)
    hi = np.zeros(m, np.int64)
    if nz.any():
        starts = c_off[:-1][nz]
        top[nz] = np.maximum.reduceat(cr[:c_off[-1]], starts)
        lo[nz] = np.minimum.reduceat(cs[:c_off[-1]], starts)
        hi[nz] = np.maximum.reduceat(cs[:c_off[-1]], starts)
    kinds = kind.to_pylist()
    rank_raw = al.field(items, "rank").to_pylist()
    suit_raw = al.field(items, "suit").to_pylist()
    length_raw, length_v = al.ints(al.field(items, "length"))
    rank = np.zeros(m, np.int64)
    rank_v = np.zeros(m, bool)
    suit = np.zeros(m, np.int64)
    suit_v = np.zeros(m, bool)
    length = np.zeros(m, np.int64)
    for i in range(m):                                       # a few per hand at most, and rare
        if not ok[i]:
            continue
        if by_cards[i]:
            rank[i], rank_v[i] = top[i], True
            if lo[i] == hi[i]:
                suit[i], suit_v[i] = lo[i], True
            length[i] = c_len[i]
            continue
        r, s = rank_raw[i], suit_raw[i]
        if r is None:
            if kinds[i] != "belote":
                ok[i] = False
                continue
        elif r in _RANK_OF:
            rank[i], rank_v[i] = _RANK_OF[r], True
        else:
            ok[i] = False
            continue
        if s is not None:
            if s not in _SUIT_OF:
                ok[i] = False
                continue
            suit[i], suit_v[i] = _SUIT_OF[s], True
        if length_v[i]:
            if not al.INT8[0] <= length_raw[i] <= al.INT8[1]:
                ok[i] = False
                continue
            length[i] = length_raw[i]
        else:
            length[i] = _KINDS[kinds[i]]
    hand_ok = ~valid | (al.seg_sum(~ok, offsets) == 0)
    return Announced(offsets, valid, hand_ok, seat, kind, rank, rank_v, suit, suit_v, length)
