"""Columnar reading of Rebelote native JSON Lines (version 2): a parsed block of lines -> ``hands`` and ``games`` rows.

The row path reads a native line with :func:`pipeline.formats.native.game_to_rows`, checks each hand with
:func:`pipeline.formats.validate.check_hand` and lets the ingest driver check the rows against the lake
schema (``validate.check_game``). This module does the same for a block of lines at once, on the Arrow table
pyarrow's JSON reader gives for it (:data:`SCHEMA`: version 2 gives every field one JSON type), with numpy and
pyarrow kernels:

* a line is **accepted** only when every check of the row path passes and the rows it would produce are
  known exactly; the rows are then built here, and keyed like every reader's (:mod:`pipeline.formats.content_keys`);
* any other line is **left to the row path** (``Batch.ok`` is False), which imports it or writes the
  reject with its usual message. Being conservative is therefore always safe: it only costs speed.

In version 2 a null is the same as an absent field, so pyarrow's reading (which cannot tell them apart) is
exactly what the row path reads. Hands are ``uint32`` bitmasks and cards ``suit*8 + rank`` as everywhere
(:mod:`pipeline.cards`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import schema
from pipeline.cards import popcount32
from pipeline.ingest import arrow_lists as al, kernels, native_fields as nf
from pipeline.formats import content_keys
from pipeline.formats.validate import COMPLETENESS, MAX_CARRIED_IN, MAX_TRICKS, STRAIN_NAMES, THREE_PLAYER_SIZES, VARIANTS

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
"""Explicit schema for pyarrow's JSON reader: every field :func:`pipeline.formats.native.game_to_rows` reads, with
JSON integers as int64. Unknown fields make the block fail to parse (so such lines take the row path), and so
does a ``played_at`` that is not text (the row path rejects it)."""
DEPTH = 6
"""The deepest nesting of :data:`SCHEMA` as :func:`pipeline.limits.json_shape` counts it (game, hands, hand,
announced, item, cards): under a lower ``--max-depth`` the row path reads the file, so that it rejects what the
limit says."""


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
    version, vv = al.ints(col["version"])
    ok &= vv & (version == 2)
    for name in ("source", "source_game_id", "variant", "n_players", "players", "hands"):
        ok &= al.validity(col[name])                               # missing: the row path names the field
    sgid = col["source_game_id"]
    if pa.types.is_string(sgid.type) or pa.types.is_large_string(sgid.type):
        ok &= pc.fill_null(pc.utf8_length(sgid), 0).to_numpy(zero_copy_only=False) > 0    # native.game_to_rows
    n, _ = al.ints(col["n_players"])
    ok &= (n >= 2) & (n <= 4)
    ok &= al.isin(col["variant"], VARIANTS)
    source = col["source"]
    # the driver's source-name check (pipeline.names.is_plain), once per distinct name
    from pipeline.names import is_plain
    names = [s for s in pc.unique(source).to_pylist() if s is not None and is_plain(s)]
    ok &= al.isin(source, names)
    p_off, _, p_vals = al.lists(col["players"])
    p_len = p_off[1:] - p_off[:-1]
    ok &= p_len == n
    po, _, pv = al.strings(p_vals)
    bad_name = ~pv | (po[1:] - po[:-1] == 0)
    ok &= al.seg_sum(bad_name, p_off) == 0

    gid_raw = col["game_id"]
    gid_given = al.validity(gid_raw) & (pc.fill_null(pc.utf8_length(gid_raw), 0).to_numpy(zero_copy_only=False) > 0)
    default_gid = pc.binary_join_element_wise(source, col["source_game_id"], ":")
    game_id = pc.if_else(pa.array(gid_given), gid_raw, default_gid)

    prov = col["provenance"]
    prov_valid = al.validity(prov)
    sf = al.field(prov, "source_format")
    sfile = al.field(prov, "source_file")
    source_format = pc.fill_null(sf, "rebelote")
    # an exported game of a single-deal format (colver CFN) is matched by deal against its copies: the row path's
    from pipeline.formats import DEAL_COPY_FORMATS
    ok &= ~al.isin(source_format, sorted(DEAL_COPY_FORMATS))
    source_file = pc.fill_null(sfile, blk.path)
    g_sl, g_sl_valid = al.ints(al.field(prov, "source_line"))

    target, target_v = al.ints(col["target"])
    ok &= al.in_range(target, target_v, al.INT32)
    winner, winner_v = al.ints(col["recorded_winner"])
    ok &= al.in_range(winner, winner_v, al.INT8)
    # the driver's game checks (validate.check_game): a positive target, a winner among the teams
    ok &= ~target_v | (target > 0)
    ok &= ~winner_v | ((winner >= 0) & (winner < np.where(n == 3, 3, 2)))
    played_at, played_ok = nf.times(col["played_at"])
    ok &= played_ok
    rf_off, rf_valid, rf_vals = al.lists(col["recorded_final"])
    rf, rf_v = al.ints(rf_vals)
    ok &= al.seg_sum(~al.in_range(rf, rf_v, al.INT32), rf_off) == 0

    # ---- hands
    h_off, _, hv = al.lists(col["hands"])
    n_hands = h_off[1:] - h_off[:-1]
    ok &= n_hands >= 1                                        # driver: "the game has no hands"
    H = len(hv)
    par = al.parents(h_off)                                     # game (block row) of each hand
    hok = al.validity(hv)
    nh = n[par]
    pos = np.arange(H) - h_off[par]                           # index of the hand in its game
    hv_valid = al.validity(hv)

    hn_raw, hn_v = al.ints(al.field(hv, "hand_no"))
    hand_no = np.where(hn_v, hn_raw, pos + 1)
    hok &= (hand_no >= 1) & (hand_no <= al.INT32[1])

    comp = al.field(hv, "completeness")
    completeness = pc.fill_null(comp, "full_play")
    hok &= al.isin(completeness, COMPLETENESS)
    full_play = pc.fill_null(pc.equal(completeness, "full_play"), False).to_numpy(zero_copy_only=False)

    dealer, dealer_v = al.ints(al.field(hv, "dealer"))
    hok &= dealer_v & (dealer >= 0) & (dealer < nh)

    contract = al.field(hv, "contract")
    taker, taker_v = al.ints(al.field(contract, "taker"))
    strain = al.field(contract, "strain")
    bid, bid_v = al.ints(al.field(contract, "bid"))
    capot_raw = al.field(contract, "capot_bid")
    capot_v = al.validity(capot_raw)
    coinche_raw, coinche_v = al.ints(al.field(contract, "coinche"))
    capot = pc.fill_null(capot_raw, False).to_numpy(zero_copy_only=False).astype(bool)
    coinche = np.where(coinche_v, coinche_raw, 0)
    hok &= (coinche >= 0) & (coinche <= 2)
    hok &= ~taker_v | ((taker >= 0) & (taker < nh))
    hok &= ~taker_v | al.isin(strain, STRAIN_NAMES)
    hok &= ~taker_v | ~bid_v | ((bid >= 1) & (bid <= 1000))
    hok &= al.in_range(bid, bid_v, al.INT16)

    # auction: {seat, call} objects; an absent list is []
    auc = nf.calls(al.field(hv, "auction"))
    a_hand = al.parents(auc.offsets)
    a_bad = ~auc.ok | (auc.seat >= nh[a_hand]) | (auc.seat < 0)
    hok &= al.count_by_row(a_hand, a_bad, H) == 0

    # plays: the cards, with the seat of each in play_seats
    ply = nf.plays(hv)
    card = ply.card
    hok &= ply.ok

    # initial hands and tricks taken: lists of card lists -> one bitmask per seat
    init = nf.card_lists(al.field(hv, "hands"))
    tricks = nf.card_lists(al.field(hv, "tricks_taken"))
    hok &= init.ok & tricks.ok
    hok &= ~init.valid | (init.count == nh)
    cps = np.where(nh == 4, 8, np.where(init.valid & (init.count > 0), init.first_size, -1))
    # 3-player deals give 8, 9 or 10 cards a seat (validate.THREE_PLAYER_SIZES); "deal" hands: the row path's
    hok &= ~init.valid | (nh != 3) | np.isin(cps, THREE_PLAYER_SIZES)
    hok &= ~pc.fill_null(pc.equal(completeness, "deal"), False).to_numpy(zero_copy_only=False)
    seat_hand = init.seat_hand
    size_bad = init.sizes != cps[seat_hand] if len(seat_hand) else np.zeros(0, bool)
    hok &= ~init.valid | (al.seg_sum(size_bad, init.offsets) == 0)
    hok &= ~init.valid | (popcount32(init.union) == init.total)          # no card dealt twice

    turned_raw = al.field(hv, "turned_card")
    turned_v = al.validity(turned_raw)
    turned = al.string_cards(turned_raw)
    hok &= ~turned_v | (turned >= 0)

    lts, lts_v = al.ints(al.field(hv, "last_trick_seat"))
    hok &= ~lts_v | ((lts >= 0) & (lts < nh))
    bel, bel_v = al.ints(al.field(hv, "belote_seat"))
    hok &= ~bel_v | ((bel >= -1) & (bel < nh))
    carried, carried_v = al.ints(al.field(hv, "carried_in"))
    hok &= al.in_range(carried, carried_v, (0, MAX_CARRIED_IN))      # validate._check_hand's bound

    ann = nf.announced(al.field(hv, "announced"), nh)
    hok &= ann.hand_ok

    rec = al.field(hv, "recorded")
    rs_off, rs_valid, rs_vals = al.lists(al.field(rec, "score"))
    rs, rs_v = al.ints(rs_vals)
    hok &= al.seg_sum(~al.in_range(rs, rs_v, al.INT32), rs_off) == 0
    hok &= ~rs_valid | (rs_off[1:] - rs_off[:-1] == np.where(nh == 3, 3, 2))
    rcp_off, rcp_valid, rcp_vals = al.lists(al.field(rec, "card_points"))
    rcp, rcp_v = al.ints(rcp_vals)
    hok &= al.seg_sum(~al.in_range(rcp, rcp_v, al.INT32), rcp_off) == 0
    rt_off, rt_valid, rt_vals = al.lists(al.field(rec, "totals"))
    rt, rt_v = al.ints(rt_vals)
    hok &= al.seg_sum(~al.in_range(rt, rt_v, al.INT32), rt_off) == 0
    margin, margin_v = al.ints(al.field(rec, "margin"))
    hok &= al.in_range(margin, margin_v, al.INT32)

    # penalties ({seat, kind}: a seat of the game, a known kind; [] reads as none) and the claim ({seat, trick})
    pen = nf.Penalties.of(al.field(hv, "penalties"), nh)
    hok &= pen.hand_ok
    claim = al.field(hv, "claim")
    claim_v = al.validity(claim)
    cl_seat, cl_seat_v = al.ints(al.field(claim, "seat"))
    cl_trick, cl_trick_v = al.ints(al.field(claim, "trick"))
    hok &= ~claim_v | (cl_seat_v & (cl_seat >= 0) & (cl_seat < nh) & cl_trick_v & (cl_trick >= 1)
                       & (cl_trick <= MAX_TRICKS))

    err = al.field(hv, "errors")
    e_off, e_valid, e_vals = al.lists(err)
    hok &= al.seg_sum(~al.validity(e_vals), e_off) == 0 if len(e_vals) else True

    # validate.check_hand, play by play
    hok &= ~(full_play & taker_v) | (ply.valid & init.valid)
    hok &= ~ply.valid | taker_v
    n_plays = ply.offsets[1:] - ply.offsets[:-1]
    # every play a card by a seat of this game, no card played twice, each held by its seat
    hok &= kernels.call(nf.plays_ok, ply.offsets, np.ones(len(card), bool), ply.seat, card.astype(np.int64), nh,
                        init.valid, init.count,
                     init.offsets, init.masks)
    hok &= ~(ply.valid & full_play & (cps > 0)) | (n_plays == nh * np.maximum(cps, 0))

    # hand provenance source_line: its own, else the game's, else none in an exported game (one with a
    # provenance), else the line number (native.game_to_rows, version 2)
    hprov = al.field(hv, "provenance")
    h_sl, h_sl_v = al.ints(al.field(hprov, "source_line"))

    # duplicate hand numbers within a game (driver check)
    if H:
        key = par.astype(np.int64) * (1 << 32) + hand_no
        srt = np.sort(key[hv_valid])
        dup = srt[1:][srt[1:] == srt[:-1]] >> 32
        if dup.size:
            ok[np.unique(dup)] = False

    ok &= al.count_by_row(par, ~hok, N) == 0
    if not ok.any():
        return Batch(ok, schema.empty("games"), schema.empty("hands"), np.zeros(1, np.int64), [], [], [])

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
        "source_hand_id": al.field(hv, "source_hand_id").take(take_h),
        "variant": col["variant"].take(pa.array(hp)),
        "ruleset_hint": col["ruleset_hint"].take(pa.array(hp)),
        "n_players": pa.array(nh[hs], pa.int8()),
        "players": col["players"].take(pa.array(hp)),
        "dealer": pa.array(dealer[hs], pa.int8()),
        "completeness": completeness.take(take_h),
        "initial_hands": init.column(hs, pa.uint32()),
        "turned_card": pa.array(turned[hs], pa.int8(), mask=~turned_v[hs]),
        "auction": nf.auction_column(auc, hs),
        "taker": pa.array(taker[hs], pa.int8(), mask=~taker_v[hs]),
        "taker_team": pa.nulls(len(hs), pa.int8()),    # the native format names the taker's seat
        "strain": strain.take(take_h),
        "bid": pa.array(bid[hs], pa.int16(), mask=~bid_v[hs]),
        "capot_bid": pa.array(capot[hs], pa.bool_()),
        "coinche": pa.array(coinche[hs], pa.int8()),
        "plays": nf.list_column(ply.offsets, ply.valid, card, hs, pa.int8()),
        "play_seats": nf.list_column(ply.offsets, ply.valid, ply.seat, hs, pa.int8()),
        "tricks_taken": tricks.column(hs, pa.uint32()),
        "last_trick_seat": pa.array(lts[hs], pa.int8(), mask=~lts_v[hs]),
        "announced": ann.column(hs),
        "belote_seat": pa.array(bel[hs], pa.int8(), mask=~bel_v[hs]),
        "carried_in": pa.array(carried[hs], pa.int32(), mask=~carried_v[hs]),
        "recorded_score": nf.list_column(rs_off, rs_valid, rs, hs, pa.int32(), rs_v),
        "recorded_margin": pa.array(margin[hs], pa.int32(), mask=~margin_v[hs]),
        "recorded_card_points": nf.list_column(rcp_off, rcp_valid, rcp, hs, pa.int32(), rcp_v),
        "recorded_totals": nf.list_column(rt_off, rt_valid, rt, hs, pa.int32(), rt_v),
        "errors": nf.list_column(e_off, np.ones(H, bool), None, hs, pa.string(), values_array=e_vals),
        "penalties": pen.column(hs),
        "claim": nf.claim_column(claim_v, cl_seat, cl_trick, hs),
    }

    players_sel = col["players"].take(pa.array(games_sel))
    hand_key_col = content_keys.hand_keys(pa.table({k: hand_cols[k] for k in content_keys.HAND_FIELDS}))
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
        "recorded_final": nf.list_column(rf_off, rf_valid, rf, gs, pa.int32(), rf_v),
        "recorded_winner": pa.array(winner[gs], pa.int8(), mask=~winner_v[gs]),
        "played_at": played_at.take(tg),
    }
    by_game = content_keys.ordered_hand_keys(hand_no[hs], hand_key_col, np.asarray(hand_offsets, np.int64))
    game_key_col = content_keys.game_keys(pa.table({k: game_cols[k] for k in content_keys.GAME_FIELDS}), by_game)
    game_keys = game_key_col.to_pylist()
    game_cols["game_key"] = game_key_col
    gsch = schema.schema("games")
    games = pa.Table.from_arrays([game_cols[f.name] for f in gsch], schema=gsch)
    return Batch(ok, games, hands, hand_offsets, gid_sel.to_pylist(), game_keys, game_cols["source_file"].to_pylist())


# --------------------------------------------------------------------------------------------- columns
