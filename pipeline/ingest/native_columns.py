"""Columnar reading of Rebelote native JSON Lines (version 2): a parsed block of lines -> ``hands`` and ``games`` rows.

The row path reads a native line with :func:`pipeline.native.game_to_rows`, checks each hand with
:func:`pipeline.ingest.validate.check_hand` and lets the ingest driver check the rows against the lake
schema (``validate.check_game``). This module does the same for a block of lines at once, on the Arrow table
pyarrow's JSON reader gives for it (:data:`SCHEMA`: version 2 gives every field one JSON type), with numpy and
pyarrow kernels:

* a line is **accepted** only when every check of the row path passes and the rows it would produce are
  known exactly; the rows are then built here, and keyed like every reader's (:mod:`pipeline.ingest.content_keys`);
* any other line is **left to the row path** (``Batch.ok`` is False), which imports it or writes the
  reject with its usual message. Being conservative is therefore always safe: it only costs speed.

In version 2 a null is the same as an absent field, so pyarrow's reading (which cannot tell them apart) is
exactly what the row path reads. Hands are ``uint32`` bitmasks and cards ``suit*8 + rank`` as everywhere
(:mod:`pipeline.cards`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import native, schema
from pipeline.cards import RANKS, CardError, parse_card, popcount32
from pipeline.ingest import content_keys, kernels
from pipeline.ingest.validate import COMPLETENESS, MAX_CARRIED_IN, MAX_TRICKS, STRAIN_NAMES, THREE_PLAYER_SIZES, VARIANTS
from pipeline.jit import njit

_S, _I, _B = pa.string(), pa.int64(), pa.bool_()
_CARDS = pa.list_(_S)
HAND_SCHEMA = pa.struct([
    ("hand_no", _I), ("source_hand_id", _S), ("dealer", _I), ("completeness", _S),
    ("hands", pa.list_(_CARDS)), ("turned_card", _S), ("auction", pa.list_(pa.struct([("seat", _I), ("call", _S)]))),
    ("contract", pa.struct([("taker", _I), ("strain", _S), ("bid", _I), ("capot_bid", _B), ("coinche", _I)])),
    ("plays", _CARDS), ("play_seats", pa.list_(_I)), ("tricks_taken", pa.list_(_CARDS)),
    ("last_trick_seat", _I),
    ("announced", pa.list_(pa.struct([("seat", _I), ("kind", _S), ("cards", _CARDS), ("rank", _S), ("suit", _S),
                                      ("length", _I)]))),
    ("belote_seat", _I),
    ("recorded", pa.struct([("score", pa.list_(_I)), ("card_points", pa.list_(_I)), ("totals", pa.list_(_I)),
                            ("margin", _I)])),
    ("errors", pa.list_(_S)), ("carried_in", _I),
    ("penalties", pa.list_(pa.struct([("seat", _I), ("kind", _S)]))),
    ("claim", pa.struct([("seat", _I), ("trick", _I)])),
    ("provenance", pa.struct([("source_line", _I)])),
])
SCHEMA = pa.schema([
    ("format", _S), ("version", _I), ("game_id", _S), ("source", _S), ("source_game_id", _S), ("variant", _S),
    ("n_players", _I), ("players", pa.list_(_S)), ("target", _I), ("ruleset_hint", _S),
    ("recorded_final", pa.list_(_I)), ("recorded_winner", _I), ("played_at", _S),
    ("provenance", pa.struct([("source_format", _S), ("source_file", _S), ("source_line", _I)])),
    ("hands", pa.list_(HAND_SCHEMA)),
])
"""Explicit schema for pyarrow's JSON reader: every field :func:`pipeline.native.game_to_rows` reads, with
JSON integers as int64. Unknown fields make the block fail to parse (so such lines take the row path), and so
does a ``played_at`` that is not text (the row path rejects it)."""
DEPTH = 6
"""The deepest nesting of :data:`SCHEMA` as :func:`pipeline.limits.json_shape` counts it (game, hands, hand,
announced, item, cards): under a lower ``--max-depth`` the row path reads the file, so that it rejects what the
limit says."""


_INT8 = (-2**7, 2**7 - 1)
_INT16 = (-2**15, 2**15 - 1)
_INT32 = (-2**31, 2**31 - 1)
_KINDS = {"tierce": 3, "quarte": 4, "quinte": 5, "carre": 4, "belote": 2}      # as pipeline.native._KINDS
_RANK_OF = {r: i for i, r in enumerate(RANKS)} | {"10": 3} | {r.lower(): i for i, r in enumerate(RANKS)}
_SUIT_OF = {s: i for i, s in enumerate("CDHS")} | {s: i for i, s in enumerate("cdhs")}


def _valid(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), bool)
    return arr.is_valid().to_numpy(zero_copy_only=False)


def _ints(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values with 0 for nulls, validity)."""
    v = _valid(arr)
    vals = (pc.fill_null(arr, 0) if arr.null_count else arr).to_numpy(zero_copy_only=False)
    return np.asarray(vals, np.int64), v


def _list(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(offsets int64 [n+1] from 0, validity, the child elements those offsets cover)."""
    off = arr.offsets.to_numpy().astype(np.int64)
    first = int(off[0]) if len(off) else 0
    child = arr.values.slice(first, int(off[-1]) - first) if len(off) else arr.values.slice(0, 0)
    return off - first, _valid(arr), child


def _str(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets int64 [n+1] into data, data bytes as uint8, validity) of a string array."""
    n = len(arr)
    bufs = arr.buffers()
    if n == 0 or bufs[1] is None:
        return np.zeros(n + 1, np.int64), np.zeros(8, np.uint8), _valid(arr)
    off = np.frombuffer(bufs[1], np.int32, count=n + 1, offset=arr.offset * 4).astype(np.int64)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(8, np.uint8)
    return off, data, _valid(arr)


def _field(arr: pa.Array, name: str) -> pa.Array:
    """A struct member, null where the struct is null."""
    return pc.struct_field(arr, name)


def _by_row(parent: np.ndarray, flags: np.ndarray, n: int) -> np.ndarray:
    """Per-row count of the True flags of child elements whose row is ``parent``."""
    return np.bincount(parent[flags], minlength=n)


def _pick(values, idx):
    """``values[idx]`` for a numpy array or a pyarrow array, ``idx`` an index array or a slice (:func:`_gather`)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if isinstance(idx, slice):
            return values.slice(idx.start, idx.stop - idx.start)
        return values.take(pa.array(idx))
    return values[idx]


def _parents(offsets: np.ndarray) -> np.ndarray:
    """Row of each child element of a list column (offsets from 0, as :func:`_list` gives them)."""
    return np.repeat(np.arange(len(offsets) - 1), offsets[1:] - offsets[:-1])


def _seg_or(bits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Bitwise OR of ``bits[offsets[i]:offsets[i+1]]`` for each i (0 for empty ranges)."""
    n = len(offsets) - 1
    out = np.zeros(n, bits.dtype)
    nonempty = offsets[1:] > offsets[:-1]
    if nonempty.any():
        out[nonempty] = np.bitwise_or.reduceat(bits[:offsets[-1]], offsets[:-1][nonempty])
    return out


def _seg_sum(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``x[offsets[i]:offsets[i+1]]`` for each i."""
    cs = np.zeros(len(x) + 1, np.int64)
    np.cumsum(x, out=cs[1:])
    return cs[offsets[1:]] - cs[offsets[:-1]]


def _gather(offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | slice]:
    """Offsets (from 0) and child indices of the lists of ``rows``, in that order: a ``slice`` when ``rows`` is
    every row (the usual case: every line of a block accepted), so no index is built and no value copied (read
    the children with :func:`_pick`)."""
    n = len(offsets) - 1
    if len(rows) == n and (n == 0 or (rows[0] == 0 and rows[-1] == n - 1)):
        return offsets - offsets[0], slice(int(offsets[0]), int(offsets[-1]))
    if len(rows) and rows[-1] - rows[0] == len(rows) - 1 and (len(rows) == 1 or bool((np.diff(rows) == 1).all())):
        a, b = int(rows[0]), int(rows[-1]) + 1                # consecutive rows: their children are one range
        return offsets[a:b + 1] - offsets[a], slice(int(offsets[a]), int(offsets[b]))
    starts, lengths = offsets[rows], offsets[rows + 1] - offsets[rows]
    new = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lengths, out=new[1:])
    idx = np.repeat(starts - new[:-1], lengths) + np.arange(new[-1])
    return new, idx


@functools.cache
def _two_char_cards() -> np.ndarray:
    """Card id of every two-byte ASCII token as :func:`pipeline.cards.parse_card` reads it, -1 if none."""
    table = np.full(65536, -1, np.int16)
    for a in range(32, 127):
        for b in range(32, 127):
            try:
                table[(a << 8) | b] = parse_card(chr(a) + chr(b))
            except CardError:
                pass
    return table


def _card_ids(starts: np.ndarray, lengths: np.ndarray, data: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Card id (int16, -1 when not a card) of each token ``data[starts:starts+lengths]`` (where ``valid``)."""
    out = np.full(len(starts), -1, np.int16)
    two = valid & (lengths == 2)
    if two.any() and len(data) >= 2:
        # the two bytes at any offset as one big-endian 16-bit number (an unaligned view, no copy)
        pairs16 = np.ndarray(shape=(len(data) - 1,), dtype=">u2", buffer=data, strides=(1,))
        out[two] = _two_char_cards()[pairs16[starts[two]]]
    other = np.flatnonzero(valid & (lengths != 2) & (lengths >= 0))
    memo: dict[bytes, int] = {}
    for i in other.tolist():
        raw = data[starts[i]:starts[i] + lengths[i]].tobytes()
        if raw not in memo:
            try:
                memo[raw] = parse_card(raw.decode("utf-8"))
            except (CardError, UnicodeDecodeError):
                memo[raw] = -1
        out[i] = memo[raw]
    return out


def _string_cards(arr: pa.Array) -> np.ndarray:
    """Card id of each string of ``arr`` (-1 for null or not a card)."""
    off, data, valid = _str(arr)
    return _card_ids(off[:-1], off[1:] - off[:-1], data, valid)


def _times(arr: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``played_at`` texts read as :func:`pipeline.native.parse_time` reads them, once per distinct text.

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


def _in_range(v: np.ndarray, valid: np.ndarray, lo_hi: tuple[int, int]) -> np.ndarray:
    return ~valid | ((v >= lo_hi[0]) & (v <= lo_hi[1]))


def _isin(arr: pa.Array, values) -> np.ndarray:
    return pc.fill_null(pc.is_in(arr, value_set=pa.array(list(values), arr.type)), False).to_numpy(
        zero_copy_only=False)


@dataclass
class Calls:
    """The ``auction`` lists of every hand: ``{"seat", "call"}`` objects."""

    offsets: np.ndarray   # per hand + 1, into the calls
    valid: np.ndarray     # per hand: the list is not null
    ok: np.ndarray        # per call: an object with a seat and a call
    seat: np.ndarray      # per call
    call: pa.Array        # per call (string)


def _calls(arr: pa.Array) -> Calls:
    offsets, valid, items = _list(arr)
    seat, seat_v = _ints(_field(items, "seat"))
    call = _field(items, "call")
    return Calls(offsets, valid, _valid(items) & seat_v & _valid(call), seat, call)


@dataclass
class Plays:
    """The plays of every hand: ``plays`` (cards) with ``play_seats`` (the seat of each)."""

    offsets: np.ndarray     # per hand + 1, into the plays
    valid: np.ndarray       # per hand: plays given
    ok: np.ndarray          # per hand: plays and play_seats are two lists of the same length, or both absent
    seat: np.ndarray        # per play
    card: np.ndarray        # per play: card id, -1 when not a card


def _plays(hv: pa.Array) -> Plays:
    offsets, valid, cards = _list(_field(hv, "plays"))
    s_off, s_valid, seats = _list(_field(hv, "play_seats"))
    seat, seat_v = _ints(seats)
    same = np.array_equal(offsets, s_off) and np.array_equal(valid, s_valid)
    ok = np.ones(len(valid), bool) if same else (valid == s_valid) & (np.diff(offsets) == np.diff(s_off))
    if not same:                # a hand whose two lists differ in length: the row path says so
        seat = np.zeros(len(cards), np.int64)
        seat_v = np.zeros(len(cards), bool)
    # a seat that is not a seat number (null, negative: version 1's digits could not be) is the row path's to reject
    bad_seat = ~seat_v | (seat < 0)
    ok &= _seg_sum(bad_seat, offsets) == 0 if len(cards) else True
    return Plays(offsets, valid, ok, np.where(bad_seat, 0, seat), _string_cards(cards).astype(np.int16))


# --------------------------------------------------------------------------------------------- the block

@dataclass
class Block:
    """A parsed block of whole lines and, per row, where it came from."""

    lines: np.ndarray     # 1-based line number of each row in its file
    path: str


@dataclass
class Batch:
    """The rows of the accepted lines of a block."""

    ok: np.ndarray            # per block row: accepted here (False: the row path reads it)
    games: pa.Table           # games rows of the accepted lines, in order (``games`` schema)
    hands: pa.Table           # their hands, in order (``hands`` schema)
    hand_offsets: np.ndarray  # accepted game i owns hands[hand_offsets[i]:hand_offsets[i+1]]
    game_ids: list
    game_keys: list
    hand_keys: list
    source_files: list


def convert(t: pa.Table, blk: Block) -> Batch:
    """Rows of the lines of a parsed block that the row path would import unchanged.

    ``t`` is pyarrow's reading of the block's lines with :data:`SCHEMA` (one row per line). Returns a
    :class:`Batch`; ``Batch.ok[i]`` is False for each line the row path must read (bad or unusual records).
    """
    N = t.num_rows
    col = {name: (c.chunk(0) if c.num_chunks == 1 else c.combine_chunks())
           for name, c in zip(t.column_names, t.columns)}
    ok = np.ones(N, bool)

    # ---- game fields (native.game_to_rows, first half)
    ok &= pc.fill_null(pc.equal(col["format"], "rebelote"), False).to_numpy(zero_copy_only=False)
    version, vv = _ints(col["version"])
    ok &= vv & (version == 2)
    for name in ("source", "source_game_id", "variant", "n_players", "players", "hands"):
        ok &= _valid(col[name])                               # missing: the row path names the field
    sgid = col["source_game_id"]
    if pa.types.is_string(sgid.type) or pa.types.is_large_string(sgid.type):
        ok &= pc.fill_null(pc.utf8_length(sgid), 0).to_numpy(zero_copy_only=False) > 0    # native.game_to_rows
    n, _ = _ints(col["n_players"])
    ok &= (n >= 2) & (n <= 4)
    ok &= _isin(col["variant"], VARIANTS)
    source = col["source"]
    # the driver's source-name check (pipeline.names.is_plain), once per distinct name
    from pipeline.names import is_plain
    names = [s for s in pc.unique(source).to_pylist() if s is not None and is_plain(s)]
    ok &= _isin(source, names)
    p_off, _, p_vals = _list(col["players"])
    p_len = p_off[1:] - p_off[:-1]
    ok &= p_len == n
    po, _, pv = _str(p_vals)
    bad_name = ~pv | (po[1:] - po[:-1] == 0)
    ok &= _seg_sum(bad_name, p_off) == 0

    gid_raw = col["game_id"]
    gid_given = _valid(gid_raw) & (pc.fill_null(pc.utf8_length(gid_raw), 0).to_numpy(zero_copy_only=False) > 0)
    default_gid = pc.binary_join_element_wise(source, col["source_game_id"], ":")
    game_id = pc.if_else(pa.array(gid_given), gid_raw, default_gid)

    prov = col["provenance"]
    prov_valid = _valid(prov)
    sf = _field(prov, "source_format")
    sfile = _field(prov, "source_file")
    source_format = pc.fill_null(sf, "rebelote")
    # an exported game of a single-deal format (colver CFN) is matched by deal against its copies: the row path's
    from pipeline.ingest import DEAL_COPY_FORMATS
    ok &= ~_isin(source_format, sorted(DEAL_COPY_FORMATS))
    source_file = pc.fill_null(sfile, blk.path)
    g_sl, g_sl_valid = _ints(_field(prov, "source_line"))

    target, target_v = _ints(col["target"])
    ok &= _in_range(target, target_v, _INT32)
    winner, winner_v = _ints(col["recorded_winner"])
    ok &= _in_range(winner, winner_v, _INT8)
    # the driver's game checks (validate.check_game): a positive target, a winner among the teams
    ok &= ~target_v | (target > 0)
    ok &= ~winner_v | ((winner >= 0) & (winner < np.where(n == 3, 3, 2)))
    played_at, played_ok = _times(col["played_at"])
    ok &= played_ok
    rf_off, rf_valid, rf_vals = _list(col["recorded_final"])
    rf, rf_v = _ints(rf_vals)
    ok &= _seg_sum(~_in_range(rf, rf_v, _INT32), rf_off) == 0

    # ---- hands
    h_off, _, hv = _list(col["hands"])
    n_hands = h_off[1:] - h_off[:-1]
    ok &= n_hands >= 1                                        # driver: "the game has no hands"
    H = len(hv)
    par = _parents(h_off)                                     # game (block row) of each hand
    hok = _valid(hv)
    nh = n[par]
    pos = np.arange(H) - h_off[par]                           # index of the hand in its game
    hv_valid = _valid(hv)

    hn_raw, hn_v = _ints(_field(hv, "hand_no"))
    hand_no = np.where(hn_v, hn_raw, pos + 1)
    hok &= (hand_no >= 1) & (hand_no <= _INT32[1])

    comp = _field(hv, "completeness")
    completeness = pc.fill_null(comp, "full_play")
    hok &= _isin(completeness, COMPLETENESS)
    full_play = pc.fill_null(pc.equal(completeness, "full_play"), False).to_numpy(zero_copy_only=False)

    dealer, dealer_v = _ints(_field(hv, "dealer"))
    hok &= dealer_v & (dealer >= 0) & (dealer < nh)

    contract = _field(hv, "contract")
    taker, taker_v = _ints(_field(contract, "taker"))
    strain = _field(contract, "strain")
    bid, bid_v = _ints(_field(contract, "bid"))
    capot_raw = _field(contract, "capot_bid")
    capot_v = _valid(capot_raw)
    coinche_raw, coinche_v = _ints(_field(contract, "coinche"))
    capot = pc.fill_null(capot_raw, False).to_numpy(zero_copy_only=False).astype(bool)
    coinche = np.where(coinche_v, coinche_raw, 0)
    hok &= (coinche >= 0) & (coinche <= 2)
    hok &= ~taker_v | ((taker >= 0) & (taker < nh))
    hok &= ~taker_v | _isin(strain, STRAIN_NAMES)
    hok &= ~taker_v | ~bid_v | ((bid >= 1) & (bid <= 1000))
    hok &= _in_range(bid, bid_v, _INT16)

    # auction: {seat, call} objects; an absent list is []
    auc = _calls(_field(hv, "auction"))
    a_hand = _parents(auc.offsets)
    a_bad = ~auc.ok | (auc.seat >= nh[a_hand]) | (auc.seat < 0)
    hok &= _by_row(a_hand, a_bad, H) == 0

    # plays: the cards, with the seat of each in play_seats
    ply = _plays(hv)
    card = ply.card
    hok &= ply.ok

    # initial hands and tricks taken: lists of card lists -> one bitmask per seat
    init = _card_lists(_field(hv, "hands"))
    tricks = _card_lists(_field(hv, "tricks_taken"))
    hok &= init.ok & tricks.ok
    hok &= ~init.valid | (init.count == nh)
    cps = np.where(nh == 4, 8, np.where(init.valid & (init.count > 0), init.first_size, -1))
    # 3-player deals give 8, 9 or 10 cards a seat (validate.THREE_PLAYER_SIZES); "deal" hands: the row path's
    hok &= ~init.valid | (nh != 3) | np.isin(cps, THREE_PLAYER_SIZES)
    hok &= ~pc.fill_null(pc.equal(completeness, "deal"), False).to_numpy(zero_copy_only=False)
    seat_hand = init.seat_hand
    size_bad = init.sizes != cps[seat_hand] if len(seat_hand) else np.zeros(0, bool)
    hok &= ~init.valid | (_seg_sum(size_bad, init.offsets) == 0)
    hok &= ~init.valid | (popcount32(init.union) == init.total)          # no card dealt twice

    turned_raw = _field(hv, "turned_card")
    turned_v = _valid(turned_raw)
    turned = _string_cards(turned_raw)
    hok &= ~turned_v | (turned >= 0)

    lts, lts_v = _ints(_field(hv, "last_trick_seat"))
    hok &= ~lts_v | ((lts >= 0) & (lts < nh))
    bel, bel_v = _ints(_field(hv, "belote_seat"))
    hok &= ~bel_v | ((bel >= -1) & (bel < nh))
    carried, carried_v = _ints(_field(hv, "carried_in"))
    hok &= _in_range(carried, carried_v, (0, MAX_CARRIED_IN))      # validate._check_hand's bound

    ann = _announced(_field(hv, "announced"), nh)
    hok &= ann.hand_ok

    rec = _field(hv, "recorded")
    rs_off, rs_valid, rs_vals = _list(_field(rec, "score"))
    rs, rs_v = _ints(rs_vals)
    hok &= _seg_sum(~_in_range(rs, rs_v, _INT32), rs_off) == 0
    hok &= ~rs_valid | (rs_off[1:] - rs_off[:-1] == np.where(nh == 3, 3, 2))
    rcp_off, rcp_valid, rcp_vals = _list(_field(rec, "card_points"))
    rcp, rcp_v = _ints(rcp_vals)
    hok &= _seg_sum(~_in_range(rcp, rcp_v, _INT32), rcp_off) == 0
    rt_off, rt_valid, rt_vals = _list(_field(rec, "totals"))
    rt, rt_v = _ints(rt_vals)
    hok &= _seg_sum(~_in_range(rt, rt_v, _INT32), rt_off) == 0
    margin, margin_v = _ints(_field(rec, "margin"))
    hok &= _in_range(margin, margin_v, _INT32)

    # penalties ({seat, kind}: a seat of the game, a known kind; [] reads as none) and the claim ({seat, trick})
    pen = _Penalties.of(_field(hv, "penalties"), nh)
    hok &= pen.hand_ok
    claim = _field(hv, "claim")
    claim_v = _valid(claim)
    cl_seat, cl_seat_v = _ints(_field(claim, "seat"))
    cl_trick, cl_trick_v = _ints(_field(claim, "trick"))
    hok &= ~claim_v | (cl_seat_v & (cl_seat >= 0) & (cl_seat < nh) & cl_trick_v & (cl_trick >= 1)
                       & (cl_trick <= MAX_TRICKS))

    err = _field(hv, "errors")
    e_off, e_valid, e_vals = _list(err)
    hok &= _seg_sum(~_valid(e_vals), e_off) == 0 if len(e_vals) else True

    # validate.check_hand, play by play
    hok &= ~(full_play & taker_v) | (ply.valid & init.valid)
    hok &= ~ply.valid | taker_v
    n_plays = ply.offsets[1:] - ply.offsets[:-1]
    # every play a card by a seat of this game, no card played twice, each held by its seat
    hok &= kernels.call(_plays_ok, ply.offsets, np.ones(len(card), bool), ply.seat, card.astype(np.int64), nh,
                        init.valid, init.count,
                     init.offsets, init.masks)
    hok &= ~(ply.valid & full_play & (cps > 0)) | (n_plays == nh * np.maximum(cps, 0))

    # hand provenance source_line: its own, else the game's, else none in an exported game (one with a
    # provenance), else the line number (native.game_to_rows, version 2)
    hprov = _field(hv, "provenance")
    h_sl, h_sl_v = _ints(_field(hprov, "source_line"))

    # duplicate hand numbers within a game (driver check)
    if H:
        key = par.astype(np.int64) * (1 << 32) + hand_no
        srt = np.sort(key[hv_valid])
        dup = srt[1:][srt[1:] == srt[:-1]] >> 32
        if dup.size:
            ok[np.unique(dup)] = False

    ok &= _by_row(par, ~hok, N) == 0
    if not ok.any():
        return Batch(ok, schema.empty("games"), schema.empty("hands"), np.zeros(1, np.int64), [], [], [], [])

    # ---- the accepted rows
    games_sel = np.flatnonzero(ok)
    hands_sel = np.flatnonzero(ok[par])
    g_sl_val = np.where(g_sl_valid, g_sl, blk.lines)            # prov.get("source_line", line)
    g_sl_null = prov_valid & ~g_sl_valid
    hs = hands_sel
    hp = par[hs]
    sl_val = np.where(h_sl_v[hs], h_sl[hs], g_sl_val[hp])
    sl_null = ~h_sl_v[hs] & g_sl_null[hp]

    take_g = pa.array(games_sel)
    take_h = pa.array(hs)
    gid_sel = game_id.take(take_g)
    hand_par_pos = np.searchsorted(games_sel, hp)               # accepted game of each accepted hand
    hand_offsets = np.zeros(len(games_sel) + 1, np.int64)
    np.cumsum(n_hands[games_sel], out=hand_offsets[1:])

    hand_cols = {
        "game_id": gid_sel.take(pa.array(hand_par_pos)),
        "hand_no": pa.array(hand_no[hs], pa.int32()),
        "source": source.take(pa.array(hp)),
        "source_format": source_format.take(pa.array(hp)),
        "source_file": source_file.take(pa.array(hp)),
        "ingest_file": pa.nulls(len(hs), pa.string()),      # the file read: set by the driver (writer.Writer)
        "source_line": pa.array(sl_val, pa.int64(), mask=sl_null),
        "source_game_id": col["source_game_id"].take(pa.array(hp)),
        "source_hand_id": _field(hv, "source_hand_id").take(take_h),
        "variant": col["variant"].take(pa.array(hp)),
        "ruleset_hint": col["ruleset_hint"].take(pa.array(hp)),
        "n_players": pa.array(nh[hs], pa.int8()),
        "players": col["players"].take(pa.array(hp)),
        "dealer": pa.array(dealer[hs], pa.int8()),
        "completeness": completeness.take(take_h),
        "initial_hands": init.column(hs, pa.uint32()),
        "turned_card": pa.array(turned[hs], pa.int8(), mask=~turned_v[hs]),
        "auction": _auction_column(auc, hs),
        "taker": pa.array(taker[hs], pa.int8(), mask=~taker_v[hs]),
        "taker_team": pa.nulls(len(hs), pa.int8()),    # the native format names the taker's seat
        "strain": strain.take(take_h),
        "bid": pa.array(bid[hs], pa.int16(), mask=~bid_v[hs]),
        "capot_bid": pa.array(capot[hs], pa.bool_()),
        "coinche": pa.array(coinche[hs], pa.int8()),
        "plays": _list_column(ply.offsets, ply.valid, card, hs, pa.int8()),
        "play_seats": _list_column(ply.offsets, ply.valid, ply.seat, hs, pa.int8()),
        "tricks_taken": tricks.column(hs, pa.uint32()),
        "last_trick_seat": pa.array(lts[hs], pa.int8(), mask=~lts_v[hs]),
        "announced": ann.column(hs),
        "belote_seat": pa.array(bel[hs], pa.int8(), mask=~bel_v[hs]),
        "carried_in": pa.array(carried[hs], pa.int32(), mask=~carried_v[hs]),
        "recorded_score": _list_column(rs_off, rs_valid, rs, hs, pa.int32(), rs_v),
        "recorded_margin": pa.array(margin[hs], pa.int32(), mask=~margin_v[hs]),
        "recorded_card_points": _list_column(rcp_off, rcp_valid, rcp, hs, pa.int32(), rcp_v),
        "recorded_totals": _list_column(rt_off, rt_valid, rt, hs, pa.int32(), rt_v),
        "errors": _list_column(e_off, np.ones(H, bool), None, hs, pa.string(), values_array=e_vals),
        "penalties": pen.column(hs),
        "claim": _claim_column(claim_v, cl_seat, cl_trick, hs),
    }

    players_sel = col["players"].take(pa.array(games_sel))
    hand_key_col = content_keys.hand_keys(pa.table({k: hand_cols[k] for k in content_keys.HAND_FIELDS}))
    hand_keys = hand_key_col.to_pylist()
    hand_cols["hand_key"] = hand_key_col
    hsch = schema.schema("hands")
    hands = pa.Table.from_arrays([hand_cols[f.name] for f in hsch], schema=hsch)

    # games rows and game_key
    gs = games_sel
    tg = pa.array(gs)
    game_cols = {
        "game_id": gid_sel, "source": source.take(tg), "source_format": source_format.take(tg),
        "source_file": source_file.take(tg), "ingest_file": pa.nulls(len(gs), pa.string()),
        "source_game_id": col["source_game_id"].take(tg),
        "variant": col["variant"].take(tg), "ruleset_hint": col["ruleset_hint"].take(tg),
        "n_players": pa.array(n[gs], pa.int8()), "players": players_sel,
        "n_hands": pa.array(n_hands[gs], pa.int32()),
        "target": pa.array(target[gs], pa.int32(), mask=~target_v[gs]),
        "recorded_final": _list_column(rf_off, rf_valid, rf, gs, pa.int32(), rf_v),
        "recorded_winner": pa.array(winner[gs], pa.int8(), mask=~winner_v[gs]),
        "played_at": played_at.take(tg),
    }
    by_game = content_keys.ordered_hand_keys(hand_no[hs], hand_key_col, np.asarray(hand_offsets, np.int64))
    game_key_col = content_keys.game_keys(pa.table({k: game_cols[k] for k in content_keys.GAME_FIELDS}), by_game)
    game_keys = game_key_col.to_pylist()
    game_cols["game_key"] = game_key_col
    gsch = schema.schema("games")
    games = pa.Table.from_arrays([game_cols[f.name] for f in gsch], schema=gsch)
    return Batch(ok, games, hands, hand_offsets, gid_sel.to_pylist(), game_keys, hand_keys,
                 game_cols["source_file"].to_pylist())


# --------------------------------------------------------------------------------------------- columns

@dataclass
class _Penalties:
    """The ``penalties`` lists ({seat, kind}) of every hand."""

    offsets: np.ndarray
    valid: np.ndarray       # per hand: a non-empty list (an empty one reads as null, as in the row path)
    hand_ok: np.ndarray     # per hand: every item an object with a seat of the game and a known kind
    seat: np.ndarray
    kind: pa.Array

    @classmethod
    def of(cls, arr: pa.Array, nh: np.ndarray) -> "_Penalties":
        from pipeline.rules import PENALTY_KINDS
        offsets, valid, items = _list(arr)
        par = _parents(offsets)
        seat, seat_v = _ints(_field(items, "seat"))
        kind = _field(items, "kind")
        ok = _valid(items) & seat_v & (seat >= 0) & (seat < nh[par]) & _isin(kind, PENALTY_KINDS)
        hand_ok = ~valid | (_seg_sum(~ok, offsets) == 0)
        return cls(offsets, valid & (offsets[1:] > offsets[:-1]), hand_ok, seat, kind)

    def column(self, rows: np.ndarray) -> pa.Array:
        typ = schema.schema("hands").field("penalties").type
        new, idx = _gather(self.offsets, rows)
        if not new[-1]:
            return pa.nulls(len(rows), typ)
        items = pa.StructArray.from_arrays([pa.array(self.seat[idx], pa.int8()), _pick(self.kind, idx)],
                                           names=["seat", "kind"])
        return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items.cast(typ.value_type),
                                        mask=pa.array(~self.valid[rows]), type=typ)


def _claim_column(valid: np.ndarray, seat: np.ndarray, trick: np.ndarray, rows: np.ndarray) -> pa.Array:
    """``hands.claim`` (struct<seat, trick>) of the selected hands."""
    typ = schema.schema("hands").field("claim").type
    if not valid[rows].any():
        return pa.nulls(len(rows), typ)
    return pa.StructArray.from_arrays([pa.array(seat[rows], pa.int8()), pa.array(trick[rows], pa.int8())],
                                      fields=list(typ), mask=pa.array(~valid[rows]))


def _list_column(offsets, valid, values, rows, typ, value_valid=None, values_array=None) -> pa.Array:
    """List column of the selected rows: row ``r`` is ``values[offsets[r]:offsets[r+1]]`` (null where not
    ``valid``), as ``list<typ>``."""
    new, idx = _gather(offsets, rows)
    if values_array is not None:
        items = _pick(values_array, idx) if new[-1] else pa.array([], typ)
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
        return _list_column(self.offsets, self.valid, self.masks, rows, typ)


def _card_lists(arr: pa.Array) -> CardLists:
    """The ``list<list<string>>`` column ``arr`` (one list of cards per seat) as :class:`CardLists`."""
    offsets, valid, inner = _list(arr)
    ioff, ivalid, strs = _list(inner)
    masks, tok_bad = _masks(_string_cards(strs), ioff)
    return _card_lists_of(offsets, valid, masks, ~ivalid | tok_bad)


def _masks(cards: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _card_lists_of(offsets: np.ndarray, valid: np.ndarray, masks: np.ndarray, inner_bad: np.ndarray) -> CardLists:
    """:class:`CardLists` from each hand's inner lists (``offsets`` into ``masks``), the hands' validity and
    the inner lists that are not lists of cards."""
    count = offsets[1:] - offsets[:-1]
    ok = ~valid | (_seg_sum(inner_bad, offsets) == 0)
    sizes = popcount32(masks) if len(masks) else np.zeros(0, np.int32)
    seat_hand = _parents(offsets)
    union = _seg_or(masks, offsets)
    total = _seg_sum(sizes, offsets)
    first_size = np.where(count > 0, sizes[np.minimum(offsets[:-1], max(len(sizes) - 1, 0))] if len(sizes)
                          else 0, 0)
    return CardLists(offsets, valid, ok, count, masks, sizes, seat_hand, union, total, first_size)


@njit(cache=True, nogil=True)
def _plays_ok(offsets, pair_ok, seat, card, nh, init_valid, init_count, init_offsets, init_masks):
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


def _auction_column(auc: Calls, rows: np.ndarray) -> pa.Array:
    """``list<struct<seat: int8, call: string>>`` of the selected hands; a null auction is ``[]``."""
    new, idx = _gather(auc.offsets, rows)
    calls = _pick(auc.call, idx) if new[-1] else pa.array([], pa.string())
    items = pa.StructArray.from_arrays([pa.array(auc.seat[idx], pa.int8()), calls], names=["seat", "call"])
    typ = schema.schema("hands").field("auction").type
    return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items, type=typ)


@dataclass
class Announced:
    """The ``announced`` lists, converted as :func:`pipeline.native._announcement` does."""

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
        new, idx = _gather(self.offsets, rows)
        items = pa.StructArray.from_arrays(
            [pa.array(self.seat[idx], pa.int8()), _pick(self.kind, idx),
             pa.array(self.rank[idx], pa.int8(), mask=~self.rank_v[idx]),
             pa.array(self.suit[idx], pa.int8(), mask=~self.suit_v[idx]),
             pa.array(self.length[idx], pa.int8())], names=["seat", "kind", "rank", "suit", "length"])
        typ = schema.schema("hands").field("announced").type
        return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)), items.cast(typ.value_type),
                                        mask=pa.array(~self.valid[rows]), type=typ)




def _announced(arr: pa.Array, nh: np.ndarray) -> Announced:
    offsets, valid, items = _list(arr)
    m = len(items)
    a_par = _parents(offsets)
    ok = _valid(items)
    kind = _field(items, "kind")
    ok &= _isin(kind, _KINDS)
    seat, seat_v = _ints(_field(items, "seat"))
    ok &= seat_v & (seat >= 0) & (seat < nh[a_par])
    c_off, c_valid, c_vals = _list(_field(items, "cards"))
    c_len = c_off[1:] - c_off[:-1]
    by_cards = c_valid & (c_len > 0)                         # `if a.get("cards")`
    cards = _string_cards(c_vals)
    bad_tok = cards < 0
    ok &= ~by_cards | (_seg_sum(bad_tok, c_off) == 0)
    ok &= ~by_cards | (c_len <= _INT8[1])
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
    rank_raw = _field(items, "rank").to_pylist()
    suit_raw = _field(items, "suit").to_pylist()
    length_raw, length_v = _ints(_field(items, "length"))
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
            if not _INT8[0] <= length_raw[i] <= _INT8[1]:
                ok[i] = False
                continue
            length[i] = length_raw[i]
        else:
            length[i] = _KINDS[kinds[i]]
    hand_ok = ~valid | (_seg_sum(~ok, offsets) == 0)
    return Announced(offsets, valid, hand_ok, seat, kind, rank, rank_v, suit, suit_v, length)
