"""The rescoring entry point: a pure function from a batch of hands to a batch of scores.

``score_batch(hands, rules)`` takes rows of the ``hands`` table (a pyarrow Table or RecordBatch) and
returns a pyarrow Table with the ``scores`` schema (``schemas/scores.toml``). It is row-local: any split
of the input into batches gives the same rows, which is what lets it run unchanged on a distributed
engine (Ray ``map_batches``, Spark ``mapInArrow``). Game-level results are a second pass
(:mod:`pipeline.rescore.game`).

Rows that cannot be scored get ``status = 'unscorable'`` and a ``reason``; nothing is guessed.

The work is three compiled passes over the hands and the vectorised steps between them
(:mod:`pipeline.rescore.hand_pass`), which read the input columns' Arrow buffers (the per-hand values copied
into three small matrices, :class:`pipeline.rescore.pass_layout.Inputs`) and write the output columns' buffers;
this module hands them those buffers and wraps what they wrote as Arrow arrays. Declarations recorded as announced are settled before that pass
(:func:`pipeline.rescore.declarations.from_announced`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import schema
from pipeline.cards import STRAINS
from pipeline.rescore import (columns, contract, declarations, declarations_pass, hand_pass, pass_layout as pl, play,
                              tables)
from pipeline.rescore.declaration_items import KINDS, Entries
from pipeline.rescore.reasons import SUMMARY_REASON
from pipeline.rules import Ruleset

_STATUS = ("passed_out", "scored", "unscorable")
CHUNK = 65_536

_OPTIONAL = ("tricks_taken", "last_trick_seat", "announced", "recorded_score", "recorded_margin", "bid",
             "carried_in", "taker_team", "penalties", "claim")


def reason_texts(R: Ruleset) -> list[str]:
    """The ``reason`` texts of ruleset ``R``, indexed by the reason codes of :mod:`pipeline.rescore.pass_layout`
    (0: no reason). The first reason that applies to a hand, in this order, is its reason."""
    P, T = int(R["deal.n_players"]), int(R["deal.tricks"])
    return ["", f"ruleset {R.name} is for {P} players",
            "deal level: the cards dealt only, no contract or play recorded",
            SUMMARY_REASON,
            f"play record is not {P * T} cards",
            "initial hands missing",
            "tricks taken or last trick missing",
            f"ruleset {R.name} counts declarations/belote held, which needs the initial hands",
            "contract strain missing",
            f"ruleset {R.name}: 3-player belote has no coinche and no capot bid",
            f"a 7 or an 8 is dealt, but ruleset {R.name} plays a 24-card pack",
            f"contract has no bid value, which ruleset {R.name} needs",
            f"ruleset {R.name} has no contract in this strain (auction.strains: {' '.join(R['auction.strains'])})",
            f"ruleset {R.name} has no coinche and no capot bid (auction.style: prise)"]


class _Prepared:
    """Everything the pass takes from a ruleset, built once per ruleset."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        t = tables.build(rules)
        dt = declarations.build_tables(rules)
        self.params = pl.params(rules, play.flags(play.PlayRules.of(rules)))
        self.tables = pl.Tables(t.points_flat.astype(np.int64), play._STRENGTH, play._ABOVE_TRUMP, dt,
                                contract._made_params(rules), contract._award_params(rules))
        self.texts = reason_texts(rules)
        sch = schema.schema("scores")
        self.types = {f.name: f.type for f in sch}
        self.ruleset = pa.scalar(rules.name, pa.string())


_CACHE: dict[int, _Prepared] = {}


def _prepared(rules: Ruleset) -> _Prepared:
    """The :class:`_Prepared` of ``rules``, kept for the last ruleset asked for (the entry holds the ruleset, so
    its id cannot be reused while cached). Returns the object it built or found, never a second lookup: the
    threads of ``rescore --threads`` share the cache, and one may clear it between another's store and lookup."""
    key = id(rules)
    prep = _CACHE.get(key)
    if prep is None:
        prep = _Prepared(rules)
        _CACHE.clear()
        _CACHE[key] = prep
    return prep


# the hands columns the passes read (pass_layout.Inputs): primitive ones into its values (with their Arrow type's
# numpy dtype), the validity of some into its flags, list ones as offsets and values
_VALUES = ((pl.V_N_PL, "n_players", np.int8), (pl.V_TAKER, "taker", np.int8), (pl.V_TTEAM, "taker_team", np.int8),
           (pl.V_LTS, "last_trick_seat", np.int8), (pl.V_DEALER, "dealer", np.int8), (pl.V_COINCHE, "coinche", np.int8),
           (pl.V_BID, "bid", np.int16), (pl.V_MARGIN, "recorded_margin", np.int32))
_VALID = ((pl.B_TAKER, "taker"), (pl.B_TTEAM, "taker_team"), (pl.B_PLAYS, "plays"), (pl.B_HANDS, "initial_hands"),
          (pl.B_TT, "tricks_taken"), (pl.B_LTS, "last_trick_seat"), (pl.B_ANN, "announced"), (pl.B_BID, "bid"),
          (pl.B_REC, "recorded_score"), (pl.B_MARGIN, "recorded_margin"))
_LISTS = ((pl.O_PLAYS, "plays", np.int8), (pl.O_SEATS, "play_seats", np.int8),
          (pl.O_HANDS, "initial_hands", np.uint32), (pl.O_TT, "tricks_taken", np.uint32),
          (pl.O_REC, "recorded_score", np.int32))


def _inputs(hands: pa.Table) -> pl.Inputs:
    """The hands columns as the passes read them (columns cast to the ``hands`` schema's types first when they
    differ): per-hand values, validity and list offsets copied into three matrices (the thread's, reused: valid
    until its next batch), list columns' values in place."""
    hs = schema.schema("hands")
    n = hands.num_rows

    def col(name):
        c = hands.column(name)
        typ = hs.field(name).type
        return c.cast(typ) if c.type != typ else c

    vals, valid, offs = pl.input_matrices(n)
    for row, name, dtype in _VALUES:
        vals[row] = columns.values(col(name), dtype)[:n]
    vals[pl.V_COMP] = columns.codes(col("completeness"), pl.COMPLETENESS, pl.COMP_OTHER)
    vals[pl.V_STRAIN] = columns.codes(col("strain"), STRAINS, -1)
    vals[pl.V_CLAIM] = _claim_fields(col("claim"))[1]
    for row, name in _VALID:
        valid[row] = columns.bit_bytes(*columns.validity(col(name)), n)
    valid[pl.B_CBID] = columns.bit_bytes(*columns.bools(col("capot_bid")), n)
    items = []
    for row, name, dtype in _LISTS:
        offs[row], v = columns.list_parts(col(name), dtype)
        items.append(v)
    return pl.Inputs(vals, valid, offs, *items)


def _claim_fields(claim: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(seat, trick) int8 (n,) of the ``hands.claim`` column, -1 where the hand has no claim."""
    claim = columns._single(claim)
    if claim.null_count == len(claim):
        return np.full(len(claim), -1, np.int8), np.full(len(claim), -1, np.int8)
    valid = claim.is_valid()

    def field(name):
        f = pc.if_else(valid, pc.struct_field(claim, name), None)
        return pc.fill_null(f, -1).to_numpy(zero_copy_only=False).astype(np.int8)
    return field("seat"), field("trick")


def penalty_points(hands: pa.Table, rules: Ruleset) -> np.ndarray:
    """int64 (n, K): the game points each team loses for the penalties each hand's record lists
    (``hands.penalties``, the ruleset's ``[penalties]`` values; 0 or negative), vectorised over the items."""
    from pipeline.rules import PENALTY_KINDS
    n, K = hands.num_rows, rules.n_teams
    out = np.zeros((n, K), np.int64)
    pen = columns._single(hands.column("penalties"))
    if pen.null_count == n:
        return out
    items = pc.list_flatten(pen)
    if len(items) == 0:
        return out
    rows = pc.list_parent_indices(pen).to_numpy(zero_copy_only=False)
    seat = pc.fill_null(pc.struct_field(items, "seat"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    codes = pc.index_in(pc.struct_field(items, "kind"), value_set=pa.array(PENALTY_KINDS))
    value = np.array([int(rules[f"penalties.{k}"]) for k in PENALTY_KINDS] + [0], np.int64)
    code = pc.fill_null(codes, len(PENALTY_KINDS)).to_numpy(zero_copy_only=False).astype(np.int64)
    np.subtract.at(out, (rows, np.mod(seat, K)), value[code])
    return out


def claim_notes(hands: pa.Table, rules: Ruleset, counted: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Per hand, what became of its recorded claim when it does not go to the game pass as made: (int8 codes into
    the texts, the texts, bool (n,) a note applies). ``counted``: bool (n,) the hand pass counted the claim's
    tricks (its play record was replayed)."""
    seat, trick = _claim_fields(hands.column("claim"))
    T = int(rules["deal.tricks"])
    has = trick >= 0
    texts = ["ignored: the ruleset does not play declaring out (game.claims = false)",
             f"not allowed: a claim with one trick or none left to play (of {T}) is a wrong claim (seed 001): "
             "its side loses the game (game.claims)",
             "not judged: no play record to count the tricks won up to the claim (game.claims)"]
    code = np.zeros(len(has), np.int8)
    if not rules["game.claims"]:
        return code, texts, has
    late = has & (trick.astype(np.int64) >= T - 1)
    code[late] = 1
    code[has & ~late & ~counted] = 2
    return code, texts, has & (late | ~counted)


def _entries_column(e: Entries, offsets: np.ndarray, typ: pa.DataType, valid: pa.Buffer) -> pa.Array:
    """``scores.declarations`` (a list column of ``typ``): hand i's items are e[offsets[i]:offsets[i + 1]] (rows
    sorted), NULL where ``valid`` (a bitmap) is not set."""
    item = typ.value_type
    items = pa.StructArray.from_arrays(
        [columns.primitive(e.seat, pa.int8()), columns.strings(e.kind, KINDS),
         columns.primitive(e.rank, pa.int8(), e.rank >= 0), columns.primitive(e.suit, pa.int8(), e.suit >= 0),
         columns.primitive(e.length, pa.int8()), columns.primitive(e.points.astype(np.int16), pa.int16()),
         columns.primitive(e.scored, pa.bool_())], fields=list(item))
    return pa.Array.from_buffers(typ, len(offsets) - 1, [valid, pa.py_buffer(offsets)], children=[items])


def score_batch(hands: pa.Table | pa.RecordBatch, rules: Ruleset) -> pa.Table:
    """Rescore every hand of ``hands`` under ``rules``.

    Args:
        hands: rows with (at least) the ``hands`` columns hand_key, game_id, hand_no, source, n_players,
            dealer, completeness, initial_hands, taker, strain, capot_bid, coinche, plays, play_seats; the
            optional ones (tricks_taken, last_trick_seat, announced, recorded_score, recorded_margin, bid,
            carried_in, taker_team) read as all-null when absent.
        rules: a resolved ruleset.
    Returns:
        A pyarrow Table with the ``scores`` schema, one row per input row, in input order. Per-team lists
        (card_points, hand_score...) have ``rules.n_teams`` entries: 2 with 2 or 4 players (team = seat % 2),
        3 with 3 players (team = seat: each plays for himself).
    Raises:
        ValueError: the ruleset's rounding mode has no implementation (only once a hand is to be scored).
        SchemaError: a non-nullable column (hand_key...) holds a null.
    """
    if isinstance(hands, pa.RecordBatch):
        hands = pa.Table.from_batches([hands])
    if hands.num_rows > CHUNK:   # row-local: score slices that keep the per-hand buffers in cache (fastest here)
        return pa.concat_tables([score_batch(hands.slice(i, CHUNK), rules) for i in range(0, hands.num_rows, CHUNK)])
    # optional columns a caller may leave out are read as all-null
    hs = schema.schema("hands")
    for name in _OPTIONAL:
        if name not in hands.column_names:
            hands = hands.append_column(hs.field(name), pa.nulls(hands.num_rows, hs.field(name).type))
    n = hands.num_rows
    prep = _prepared(rules)
    inputs = _inputs(hands)
    ann, ann_entries = _announced(hands, prep, inputs)
    out, n_items = hand_pass.run(n, prep.params, prep.tables, inputs, ann, False)
    e = out.entries(n_items)
    offsets = out.item_offsets
    if ann_entries is not None and len(ann_entries.row):   # merge by (row, seat), as the held ones are listed
        e = Entries.concat([ann_entries, e])
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(np.bincount(e.row, minlength=n), out=offsets[1:])
    return _table(hands, prep, out, e, offsets)


def _announced(hands: pa.Table, prep: _Prepared, inputs: pl.Inputs) -> tuple[np.ndarray, Entries | None]:
    """The declarations of the hands that take them from the record (``declarations.count``) and are scored,
    settled in Python (:func:`declarations.from_announced`) before the passes: (team points and belote, int64
    (2, n, K), or (2, 1, K) zeros when no hand takes them; their items, rows renumbered to the batch, or None).
    Raises the settlement's ValueError when the ruleset's rounding mode has no code and a hand is scored."""
    R, rp = prep.rules, prep.params
    n, K = hands.num_rows, int(rp[pl.P_TEAMS])
    count, bel_count = int(rp[pl.P_COUNT]), int(rp[pl.P_BELOTE_COUNT]) if rp[pl.P_BELOTE_ON] else pl.COUNT_HELD
    announced = hands.column("announced")
    need_ann = any(c == pl.COUNT_ANNOUNCED or (c == pl.COUNT_ELSE_HELD and announced.null_count < n)
                   for c in (count, bel_count))
    ann = np.zeros((2, 1, K), np.int64)
    if not need_ann and rp[pl.P_RCODE] >= 0:
        return ann, None
    first, _ = hand_pass.run(n, rp, prep.tables, inputs, ann, True)      # which hands are scored
    ok = first.flags[pl.F_OK].view(bool)
    if rp[pl.P_RCODE] < 0 and ok.any():
        contract._round_code(R["rounding.mode"])      # raises the settlement's ValueError
    from_ann, bel_ann = first.flags[pl.F_FROM_ANN].view(bool), first.flags[pl.F_BELOTE_ANN].view(bool)
    ai = np.nonzero(ok & (from_ann | bel_ann))[0]
    if not (need_ann and len(ai)):
        return ann, None
    dec = declarations.from_announced(hands.column("announced").take(pa.array(ai)), first.small[pl.S_STRAIN][ai],
                                      R, int(rp[pl.P_PLAYERS]), inputs.vals[pl.V_DEALER][ai],
                                      _held(inputs, ai, int(rp[pl.P_PLAYERS])))
    ann = np.zeros((2, n, K), np.int64)
    ann[0, ai], ann[1, ai] = dec.team_points, dec.belote
    # each row lists the record's items only for what it takes from the record (declarations.count, belote.count)
    e = dec.entries
    e.row = ai[e.row]
    is_bel = e.kind == KINDS.index("belote")
    keep = np.where(is_bel, bel_ann[e.row], from_ann[e.row])
    return ann, e.take(np.nonzero(keep)[0]) if not keep.all() else e


def _held(inputs: pl.Inputs, rows: np.ndarray, P: int) -> np.ndarray:
    """int64 (len(rows), P): each seat's dealt cards (``initial_hands``) in those hands, -1 (every card) where the
    record gives no P hands (then what it says was announced cannot be checked)."""
    o = inputs.offs[pl.O_HANDS]
    whole = o[rows + 1] - o[rows] == P
    held = np.full((len(rows), P), -1, np.int64)
    held[whole] = declarations_pass.seat_hands(inputs, rows[whole], len(o) - 1, P)
    return held


def _table(hands: pa.Table, prep: _Prepared, out: pl.Outputs, e: Entries, offsets: np.ndarray) -> pa.Table:
    """The ``scores`` table of the passes' outputs (the Arrow arrays wrap their buffers) and the hands' own
    columns; ``e``/``offsets``: the declaration items and each hand's first item."""
    n = hands.num_rows
    K = prep.rules.n_teams
    seat, _ = _claim_fields(hands.column("claim"))
    has_claim = seat >= 0
    claim_team = np.mod(seat.astype(np.int64), K).astype(np.int8)
    note_code, note_texts, noted = claim_notes(hands, prep.rules, out.flags[pl.F_CLAIM].astype(bool))
    packed = np.packbits(out.flags, axis=1, bitorder="little")
    bit = lambda f: pa.py_buffer(packed[f])        # noqa: E731  the bitmap of a flags row
    small, team16, types = out.small, out.team16, prep.types

    def boolean(values: int, valid: int | None) -> pa.Array:
        return pa.Array.from_buffers(pa.bool_(), n, [None if valid is None else bit(valid), bit(values)])

    cols = {
        "ruleset": pa.repeat(prep.ruleset, n),
        "hand_key": hands.column("hand_key"),
        "game_id": hands.column("game_id"),
        "hand_no": hands.column("hand_no"),
        "source": hands.column("source"),
        "status": columns.strings(small[pl.S_STATUS], _STATUS),
        "reason": columns.strings(small[pl.S_REASON], prep.texts, bit(pl.F_REASON)),
        "legal": boolean(pl.F_LEGAL, pl.F_PLAYED),
        "illegal_trick": columns.primitive(small[pl.S_ILL_TRICK], pa.int8(), bit(pl.F_ILLEGAL)),
        "illegal_seat": columns.primitive(small[pl.S_ILL_SEAT], pa.int8(), bit(pl.F_ILLEGAL)),
        "illegal_card": columns.primitive(small[pl.S_ILL_CARD], pa.int8(), bit(pl.F_ILLEGAL)),
        "illegal_rule": columns.strings(small[pl.S_ILL_RULE], play.RULE_NAMES, bit(pl.F_ILLEGAL)),
        "illegal_plays": columns.primitive(small[pl.S_ILL_COUNT], pa.int8(), bit(pl.F_PLAYED)),
        "taker_team": columns.primitive(small[pl.S_TAKER_TEAM], pa.int8(), bit(pl.F_HAS_TAKER)),
        "trick_winners": columns.fixed_lists(out.winners, types["trick_winners"], bit(pl.F_PLAYED)),
        "card_points": columns.fixed_lists(team16[pl.T_CARD], types["card_points"], bit(pl.F_OK)),
        "last_trick_team": columns.primitive(small[pl.S_LAST_TEAM], pa.int8(), bit(pl.F_OK)),
        "capot_team": columns.primitive(small[pl.S_CAPOT_TEAM], pa.int8(), bit(pl.F_CAPOT)),
        "declaration_points": columns.fixed_lists(team16[pl.T_DECL], types["declaration_points"], bit(pl.F_OK)),
        "declarations": _entries_column(e, offsets, types["declarations"], bit(pl.F_OK)),
        "declarations_from": columns.strings(out.flags[pl.F_FROM_ANN], ("held", "announced"), bit(pl.F_OK)),
        "declarations_decided": boolean(pl.F_DECIDED, pl.F_DECIDED_V),
        "belote_team": columns.primitive(small[pl.S_BELOTE_TEAM], pa.int8(), bit(pl.F_BELOTE)),
        "belote_points": columns.fixed_lists(team16[pl.T_BELOTE], types["belote_points"], bit(pl.F_OK)),
        "contract_points": columns.fixed_lists(team16[pl.T_CONTRACT], types["contract_points"], bit(pl.F_OK)),
        "contract_made": boolean(pl.F_MADE, pl.F_MADE_V),
        "litige": boolean(pl.F_LITIGE, None),
        "hand_score": columns.fixed_lists(out.score, types["hand_score"], bit(pl.F_SCORE_V)),
        "penalty_points": columns.fixed_lists(penalty_points(hands, prep.rules).astype(np.int32),
                                              types["penalty_points"]),
        "claim_team": columns.primitive(claim_team, pa.int8(), has_claim),
        "claim_points": columns.fixed_lists(np.ascontiguousarray(team16[pl.T_CLAIM]), types["claim_points"],
                                            bit(pl.F_CLAIM)),
        "claim_note": columns.strings(note_code, note_texts, noted),
        "carried_in": pc.fill_null(hands.column("carried_in"), 0).cast(pa.int32()),
        "held_points": columns.primitive(out.held, pa.int32()),
        "matches_recorded": boolean(pl.F_MATCH, pl.F_MATCH_V),
    }
    return schema.conform("scores", pa.table(cols))
