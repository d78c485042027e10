"""Hand and game keys computed from the typed columns of the lake's tables, many rows at once.

A key identifies a row by its content, so that importing the same hand twice (from one file read again, or
from two sources that give the same record) stores it once. It is computed here, from the Arrow columns of
the ``hands`` and ``games`` tables cast to their schema, never from a reader's text: it is the same whichever
reader built the row, and a lake can recompute its keys from the rows it stores (``rebelote migrate`` does).

The key of a row is the first 32 hex digits of the SHA-256 of one binary string, the concatenation of its
key fields (:data:`HAND_FIELDS`, :data:`GAME_FIELDS`, in that order), each written self-delimiting after a
cast to its type in the table's schema (``schemas/*.toml``):

* every value starts with a tag byte, 0 for null or 1;
* an integer is then its value in its schema type's width, little-endian; a boolean one byte, 0 or 1;
* a text is then its UTF-8 length in bytes (4 bytes, little-endian), then its bytes;
* a list is then its number of items (4 bytes), then each item written the same way;
* a struct is then each of its fields in schema order, written the same way;
* a null is the tag 0 followed by zeros where a value's fixed part would be (an integer's width, a text's or
  list's 4-byte length; nothing for a struct), and nothing else.

So two rows share the binary string only when every key field is equal; the Arrow widths a reader used, the
chunks, or the order the columns were built in do not matter. Widening a column's schema type changes the
keys: that is a new layout version, whose ``migrate`` step recomputes them. A game's key covers its own
fields and its hands' keys in hand-number order. Building the strings is pyarrow's and numpy's work, one
vectorised pass per column; hashing is ``hashlib``, once per row.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import schema
HAND_FIELDS = ("game_id", "hand_no", "dealer", "n_players", "players", "initial_hands", "turned_card", "auction",
               "taker", "taker_team", "strain", "bid", "capot_bid", "coinche", "plays", "play_seats", "tricks_taken",
               "last_trick_seat", "announced", "belote_seat", "recorded_score", "recorded_card_points",
               "recorded_totals", "recorded_margin", "carried_in", "completeness", "penalties", "claim")
"""The ``hands`` columns a hand key covers: everything the source said about the hand (a renamed player is
another hand), nothing about where it was read (file, line, reader) or what ingest noted (``errors``)."""
GAME_FIELDS = ("game_id", "variant", "n_players", "players", "target", "recorded_final", "recorded_winner")
"""The ``games`` columns a game key covers, before its hands' keys."""

_BIN = pa.large_binary()


def _fixed(data: np.ndarray, width: int) -> pa.Array:
    """``large_binary`` array of ``len(data) // width`` values, value i being ``data[width i : width (i+1)]``."""
    n = len(data) // width
    offsets = np.arange(0, n * width + 1, width, dtype=np.int64)
    return pa.Array.from_buffers(_BIN, n, [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))])


def _units(valid: np.ndarray, values: np.ndarray, dtype: str) -> np.ndarray:
    """uint8 (n, 1 + width): a tag byte and each value as ``dtype`` (``"<i1"``, ``"<u4"``...), zero where not
    ``valid``."""
    out = np.empty(len(valid), np.dtype([("tag", "u1"), ("value", dtype)]))
    out["tag"] = valid
    out["value"] = values
    if not valid.all():
        out["value"][~valid] = 0
    return out.view(np.uint8).reshape(len(valid), -1)


def _join(*parts: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(*parts, pa.scalar(b"", _BIN))


def _offsets(arr: pa.Array) -> np.ndarray:
    """The int64 value offsets of a ``large_binary`` array (``[0]`` when it is empty)."""
    if not len(arr):
        return np.zeros(1, np.int64)
    return np.frombuffer(arr.buffers()[1], np.int64, len(arr) + 1, arr.offset * 8)


def _numbers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, str]:
    """(valid, values, little-endian numpy type) of an integer or boolean array (a null's value is not read)."""
    t = arr.type
    dtype = "u1" if pa.types.is_boolean(t) else np.dtype(t.to_pandas_dtype()).newbyteorder("<").str
    if not arr.null_count:
        return np.ones(len(arr), bool), arr.to_numpy(zero_copy_only=False), dtype
    return (arr.is_valid().to_numpy(zero_copy_only=False),
            pc.fill_null(arr, False if pa.types.is_boolean(t) else 0).to_numpy(zero_copy_only=False), dtype)


def _is_number(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_boolean(t)


def _rows(n: int, bounds: np.ndarray, data: pa.Buffer) -> pa.Array:
    """``large_binary`` array of ``n`` values: value i is ``data[bounds[i]:bounds[i+1]]``."""
    bounds = np.asarray(bounds, np.int64)
    return pa.Array.from_buffers(_BIN, n, [None, pa.py_buffer(bounds - bounds[0]), data.slice(int(bounds[0]))])


def _encode(arr: pa.Array) -> pa.Array:
    """Each value of ``arr`` written as the module text says: ``large_binary``, no nulls, offset 0."""
    return _joined(_parts(arr))


def _parts(arr: pa.Array) -> list:
    """Each value of ``arr`` written as the module text says, as parts to be joined row by row: uint8 matrices
    (n, width) for runs of bytes of one width, ``large_binary`` arrays for the others."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    n, t = len(arr), arr.type
    if not n:
        return [pa.array([], _BIN)]
    if _is_number(t):
        return [_units(*_numbers(arr))]
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        lengths = np.where(valid, pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False), 0)
        head = _units(valid, lengths, "<u4")
        items = arr.flatten()                        # the items of the non-null lists, in order
        ends = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        if _is_number(t.value_type) and len(items):  # items of one width: their bytes straight from numpy
            units = _units(*_numbers(items))
            return [head, _rows(n, ends * units.shape[1], pa.py_buffer(units.reshape(-1)))]
        enc = _encode(items)
        data = enc.buffers()[2] if len(enc) else pa.py_buffer(b"")
        return [head, _rows(n, _offsets(enc)[ends], data)]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
        data = pc.fill_null(arr.cast(_BIN), b"")
        return [_units(valid, pc.binary_length(data).to_numpy(zero_copy_only=False), "<u4"), data]
    if pa.types.is_struct(t):
        head = [valid.astype(np.uint8).reshape(-1, 1)]
        if valid.all():
            return head + [p for f in arr.flatten() for p in _parts(f)]
        if not valid.any():
            return head
        return head + [pc.if_else(pa.array(valid), _encode(f), pa.scalar(b"", _BIN)) for f in arr.flatten()]
    raise TypeError(f"no key encoding for Arrow type {t}")


def _joined(parts: list) -> pa.Array:
    """The parts (:func:`_parts`) joined row by row, each run of matrices side by side first: one join."""
    runs: list = []
    for p in parts:
        if isinstance(p, np.ndarray) and runs and isinstance(runs[-1], list):
            runs[-1].append(p)
        else:
            runs.append([p] if isinstance(p, np.ndarray) else p)
    arrays = [_fixed(np.hstack(r).reshape(-1), sum(m.shape[1] for m in r)) if isinstance(r, list) else r
              for r in runs]
    return arrays[0] if len(arrays) == 1 else _join(*arrays)


SMALL = 32
"""Batches of at most this many rows are written by :func:`_encode_small` (Python, per value) instead of
:func:`_encode` (pyarrow and numpy, per column): a column pass costs a few compute calls whatever its length,
which for the single record of a one-game file (OpenSpiel's state files) is most of the import."""


def _value_bytes(v, t: pa.DataType, out: bytearray) -> None:
    """Append ``v`` (a Python value of Arrow type ``t``, as ``to_pylist`` gives it) to ``out`` as the module
    text says: the same bytes as :func:`_encode`."""
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        width = 1 if pa.types.is_boolean(t) else t.bit_width // 8
        if v is None:
            out += bytes(1 + width)
        else:
            out.append(1)
            out += int(v).to_bytes(width, "little", signed=pa.types.is_signed_integer(t))
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        if v is None:
            out += bytes(5)
        else:
            out.append(1)
            out += len(v).to_bytes(4, "little")
            for item in v:
                _value_bytes(item, t.value_type, out)
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
        if v is None:
            out += bytes(5)
        else:
            data = v.encode() if isinstance(v, str) else bytes(v)
            out.append(1)
            out += len(data).to_bytes(4, "little")
            out += data
    elif pa.types.is_struct(t):
        if v is None:
            out.append(0)
        else:
            out.append(1)
            for f in t:
                _value_bytes(v.get(f.name), f.type, out)
    else:
        raise TypeError(f"no key encoding for Arrow type {t}")


def _encode_small(columns: list) -> pa.Array:
    """The rows of ``columns`` (equal-length Arrow arrays of the schema's types) written as the concatenation
    of their values, as ``_join(*[_encode(c) for c in columns])`` writes them, one Python pass per value."""
    rows = [bytearray() for _ in range(len(columns[0]))]
    for c in columns:
        t = c.type
        for row, v in zip(rows, c.to_pylist()):
            _value_bytes(v, t, row)
    return pa.array([bytes(r) for r in rows], _BIN)


def _write(columns: list) -> pa.Array:
    """Each row of ``columns`` written as its key's binary string (``large_binary``)."""
    if len(columns[0]) <= SMALL:
        return _encode_small(columns)
    return _joined([p for c in columns for p in _parts(c)])


def _digests(rows: pa.Array) -> pa.Array:
    """``string`` array: the first 32 hex digits of the SHA-256 of each ``large_binary`` value of ``rows``."""
    if not len(rows):
        return pa.array([], pa.string())
    offsets = _offsets(rows).tolist()
    data = memoryview(rows.buffers()[2] or b"")
    sha = hashlib.sha256
    return pa.array([sha(data[a:b]).hexdigest()[:32] for a, b in zip(offsets, offsets[1:])], pa.string())


_HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
_NIBBLE = np.full(256, 255, np.uint8)
_NIBBLE[_HEX] = np.arange(16, dtype=np.uint8)


def key_bits(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keys as their 128 bits: ``text`` uint8 (n * 32,), n keys' characters one after another -> (uint8 (n, 16)
    each key's 16 bytes, bool (n,) the keys that are not 32 lowercase hex digits, whose bytes mean nothing)."""
    nib = _NIBBLE[text].reshape(-1, 32)
    return ((nib[:, 0::2] << 4) | nib[:, 1::2]).astype(np.uint8), (nib == 255).any(axis=1)


def key_hex(bits: np.ndarray) -> np.ndarray:
    """uint8 (n, 16) -> uint8 (n, 32): each key's 32 lowercase hex digits (what :func:`key_bits` reads)."""
    text = np.empty((len(bits), 32), np.uint8)
    text[:, 0::2], text[:, 1::2] = _HEX[bits >> 4], _HEX[bits & 15]
    return text


def _columns(table: pa.Table, name: str, fields: tuple[str, ...]) -> list[pa.Array]:
    sch = schema.schema(name)
    return [table.column(f).cast(sch.field(f).type) for f in fields]


def hand_keys(hands: pa.Table) -> pa.Array:
    """The key of each row of ``hands`` (at least the :data:`HAND_FIELDS` columns, any widths that cast to the
    ``hands`` schema's types): ``string`` array, 32 lowercase hex digits each, in row order.

    Raises:
        KeyError: a key column is missing. pyarrow.ArrowInvalid: a value does not fit its schema type.
    """
    return _digests(_write(_columns(hands, "hands", HAND_FIELDS)))


def game_keys(games: pa.Table, hand_keys_by_game: pa.Array) -> pa.Array:
    """The key of each row of ``games`` (at least the :data:`GAME_FIELDS` columns), given, for each, the list of
    its hands' keys in hand-number order (``list<string>``, one list per game): ``string`` array in row order."""
    return _digests(_write([*_columns(games, "games", GAME_FIELDS), hand_keys_by_game]))


def ordered_hand_keys(hand_no: np.ndarray, keys: pa.Array, game_offsets: np.ndarray) -> pa.Array:
    """``list<string>``: for game i, the keys of hands ``game_offsets[i]:game_offsets[i+1]`` sorted by their hand
    numbers (``hand_no``, one per hand), as :func:`game_keys` takes them."""
    game = np.repeat(np.arange(len(game_offsets) - 1), np.diff(game_offsets))
    order = np.lexsort((hand_no, game))
    return pa.ListArray.from_arrays(pa.array(game_offsets.astype(np.int32)), keys.take(pa.array(order)))


def key_records(records: list) -> None:
    """Set ``hand_key`` in every hand row and ``game_key`` in every game row of ``records``
    (:class:`pipeline.formats.records.GameRecord`, rows as dicts), all in one pass: :func:`key_rows`."""
    key_rows([(r.game, r.hands) for r in records])


def key_rows(games: list[tuple[dict, list[dict]]]) -> None:
    """Set ``hand_key`` in every hand row and ``game_key`` in every game row of ``games`` ((game row, its hand
    rows) pairs, as dicts), all in one pass.

    Raises:
        pyarrow.ArrowInvalid / ArrowTypeError / OverflowError: a value does not fit its column (the ingest
            driver then keys such records one by one, and its checks reject the bad one).
    """
    if not games:
        return
    hsch, gsch = schema.schema("hands"), schema.schema("games")
    hrows = [h for _, hs in games for h in hs]
    # from_pylist reads the schema's fields of each row dict and leaves the others: no copy of a row
    hands = pa.Table.from_pylist(hrows, schema=pa.schema([hsch.field(k) for k in HAND_FIELDS]))
    keys = hand_keys(hands)
    offsets = np.concatenate([[0], np.cumsum([len(hs) for _, hs in games])]).astype(np.int64)
    by_game = ordered_hand_keys(np.array([h.get("hand_no") or 0 for h in hrows], np.int64), keys, offsets)
    table = pa.Table.from_pylist([g for g, _ in games], schema=pa.schema([gsch.field(k) for k in GAME_FIELDS]))
    for h, k in zip(hrows, keys.to_pylist()):
        h["hand_key"] = k
    for (g, _), k in zip(games, game_keys(table, by_game).to_pylist()):
        g["game_key"] = k
