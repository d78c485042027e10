"""One canonical JSON text per row, written by a compiled kernel: the text that content keys hash.

:func:`pipeline.ingest.records.hand_key` hashes ``json.dumps(fields, separators=(",", ":"))`` of a hand row's
key fields. The columnar native reader needs that text for every hand of a block (~10^4 at a time). Building
it with one Arrow string array per field and joining them row by row cost more than pyarrow's JSON parse of
the block; this module writes every row's text in one pass instead, from the fields' numpy arrays.

A row is ``[f1,f2,...]``: each field is a :class:`Piece`, one of

* :data:`TEXT`: JSON text already written, e.g. ``json.dumps`` of a string, once per distinct value (a
  dictionary): row ``i`` writes ``data[toffsets[j]:toffsets[j+1]]`` with ``j = index[i]``;
* :data:`INT`: an integer (``int64``), ``null`` where not ``valid``;
* :data:`BOOL`: ``true``/``false``;
* :data:`INTS`: a list of integers ``[1,2]``, elements ``null`` where not ``vvalid``, ``null`` where the row is
  not ``valid``;
* :data:`TEXTS`: a list of JSON texts ``[t,t]`` (a dictionary, as :data:`TEXT`, indexed by ``values``),
  ``null`` where the row is not ``valid``.

``index`` maps each output row to the row of the piece's arrays (hands to their game for a game field), so no
field is copied before writing. The text is byte-identical to ``json.dumps`` (tested in
``tests/test_json_rows.py`` against it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.ingest import kernels
from pipeline.jit import njit

TEXT, INT, BOOL, INTS, TEXTS = 0, 1, 2, 3, 4


def _i64() -> np.ndarray:
    return np.zeros(0, np.int64)


def _bool() -> np.ndarray:
    return np.zeros(0, np.bool_)


def _u8() -> np.ndarray:
    return np.zeros(0, np.uint8)


@dataclass
class Piece:
    """One field of every row (see the module text); arrays not used by the kind are empty."""

    kind: int
    index: np.ndarray                                # int64 per output row: the piece row it writes
    offsets: np.ndarray = field(default_factory=_i64)     # INTS, TEXTS: int64 per piece row + 1, into values
    values: np.ndarray = field(default_factory=_i64)      # INT, BOOL: per piece row; INTS: elements; TEXTS: codes
    valid: np.ndarray = field(default_factory=_bool)      # INT, INTS, TEXTS: per piece row (empty: all valid)
    vvalid: np.ndarray = field(default_factory=_bool)     # INTS: per element (empty: all valid)
    toffsets: np.ndarray = field(default_factory=_i64)    # TEXT, TEXTS: dictionary text offsets into data
    data: np.ndarray = field(default_factory=_u8)         # TEXT, TEXTS: dictionary texts (ASCII after json.dumps)

    def as_tuple(self) -> tuple:
        """The piece as the kernels take it: one tuple type for every kind (writable C arrays)."""
        return (int(self.kind), _arr(self.index, np.int64), _arr(self.offsets, np.int64), _arr(self.values, np.int64),
                _arr(self.valid, np.bool_), _arr(self.vvalid, np.bool_), _arr(self.toffsets, np.int64),
                _arr(self.data, np.uint8))


def _arr(a, dtype) -> np.ndarray:
    """``a`` as a writable, contiguous 1-d array of ``dtype`` (numba types read-only arrays apart)."""
    a = np.asarray(a)
    if a.dtype != dtype or not a.flags.c_contiguous or not a.flags.writeable:
        a = np.array(a, dtype)
    return a


def text(index: np.ndarray, words: list[str]) -> Piece:
    """A :data:`TEXT` piece: row ``i`` writes ``words[index[i]]`` (already JSON text)."""
    toff, data = _dictionary(words)
    return Piece(TEXT, index, toffsets=toff, data=data)


def strings(arr: pa.Array, index: np.ndarray | None = None) -> Piece:
    """A :data:`TEXT` piece of ``json.dumps`` of each string of ``arr`` (``null`` for nulls), written once per
    distinct value; ``index`` (default: every row in order) maps output rows to ``arr``'s rows."""
    arr = arr.cast(pa.string()) if arr.type != pa.string() else arr
    enc = pc.dictionary_encode(arr)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    words = [json.dumps(s) for s in enc.dictionary.to_pylist()] + ["null"]
    codes = pc.fill_null(enc.indices, len(words) - 1).to_numpy(zero_copy_only=False).astype(np.int64)
    return text(codes if index is None else codes[index], words)


def arrow_texts(arr: pa.Array, index: np.ndarray | None = None) -> Piece:
    """A :data:`TEXT` piece whose texts are the strings of ``arr`` (already JSON text; no nulls), row ``i``
    writing ``arr[index[i]]`` (default: ``arr[i]``)."""
    arr = arr.cast(pa.large_string()) if arr.type != pa.large_string() else arr
    if arr.null_count:
        raise ValueError("arrow_texts: the texts must not be null")
    bufs = arr.buffers()
    toff = np.frombuffer(bufs[1], np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(1, np.uint8)
    return Piece(TEXT, np.arange(len(arr)) if index is None else index, toffsets=toff, data=data)


def ints(index: np.ndarray, values: np.ndarray, valid: np.ndarray | None = None) -> Piece:
    """An :data:`INT` piece (``valid`` None: no nulls)."""
    return Piece(INT, index, values=np.asarray(values, np.int64), valid=np.zeros(0, bool) if valid is None else valid)


def bools(index: np.ndarray, values: np.ndarray) -> Piece:
    """A :data:`BOOL` piece."""
    return Piece(BOOL, index, values=np.asarray(values, np.int64))


def int_lists(index: np.ndarray, offsets: np.ndarray, values: np.ndarray, valid: np.ndarray,
              vvalid: np.ndarray | None = None) -> Piece:
    """An :data:`INTS` piece: piece row ``j`` is ``values[offsets[j]:offsets[j+1]]``."""
    return Piece(INTS, index, offsets=offsets, values=np.asarray(values, np.int64), valid=valid,
                 vvalid=np.zeros(0, bool) if vvalid is None else vvalid)


def text_lists(index: np.ndarray, offsets: np.ndarray, codes: np.ndarray, words: list[str],
               valid: np.ndarray | None = None) -> Piece:
    """A :data:`TEXTS` piece: piece row ``j`` is the list of ``words[c]`` for ``c`` in
    ``codes[offsets[j]:offsets[j+1]]``."""
    toff, data = _dictionary(words)
    return Piece(TEXTS, index, offsets=offsets, values=np.asarray(codes, np.int64),
                 valid=np.zeros(0, bool) if valid is None else valid, toffsets=toff, data=data)


def _dictionary(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [w.encode() for w in words]
    toff = np.zeros(len(raw) + 1, np.int64)
    np.cumsum([len(b) for b in raw], out=toff[1:])
    return toff, np.frombuffer(b"".join(raw) or b"\0", np.uint8).copy()


def render(pieces: list[Piece], rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The JSON text ``[f1,f2,...]`` of each of ``rows`` rows: (offsets int64 [rows + 1], data uint8).

    One kernel call per piece and pass (lengths, then text): a piece's rows are written in one tight loop,
    each row's write position kept in ``cursor``."""
    if not pieces:
        raise ValueError("render needs at least one piece")
    arrays = [p.as_tuple()[1:] for p in pieces]
    lengths = np.full(rows, 1 + len(pieces), np.int64)          # '[' ',' * (pieces - 1) ']'
    for p, arr in zip(pieces, arrays):
        kernels.call(_LENGTH[p.kind], *arr, lengths)
    offsets = np.zeros(rows + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.empty(int(offsets[-1]), np.uint8)
    cursor = offsets[:-1].copy()
    for k, (p, arr) in enumerate(zip(pieces, arrays)):
        kernels.call(_WRITE[p.kind], *arr, data, cursor, 0x5B if k == 0 else 0x2C)
    data[cursor] = 0x5D                                             # ']'
    return offsets, data


# ----------------------------------------------------------------------------------------------- kernels
# Every kernel takes the piece's arrays (index, offsets, values, valid, vvalid, toffsets, data) and then either
# ``lengths`` (added to) or ``out, cursor, lead`` (the lead byte is written first, then the field; cursor moves).

@njit(cache=True, nogil=True)
def _digits(v: int) -> int:
    """Characters of the decimal text of ``v`` (its sign included)."""
    if 0 <= v < 10:
        return 1
    n = 1
    if v < 0:
        if v == -9223372036854775808:
            return 20
        n = 2
        v = -v
    while v >= 10:
        v //= 10
        n += 1
    return n


@njit(cache=True, nogil=True)
def _put_int(out, at: int, v: int) -> int:
    if 0 <= v < 100:                 # cards, seats, hand numbers: most integers of a key
        if v < 10:
            out[at] = 48 + v
            return at + 1
        out[at] = 48 + v // 10
        out[at + 1] = 48 + v % 10
        return at + 2
    if v == -9223372036854775808:
        s = "-9223372036854775808"
        for k in range(20):
            out[at + k] = ord(s[k])
        return at + 20
    end = at + _digits(v)
    if v < 0:
        out[at] = 45                 # '-'
        v = -v
    k = end - 1
    while True:
        out[k] = 48 + v % 10
        v //= 10
        k -= 1
        if v == 0:
            break
    return end


@njit(cache=True, nogil=True)
def _put_null(out, at: int) -> int:
    out[at], out[at + 1], out[at + 2], out[at + 3] = 110, 117, 108, 108      # 'null'
    return at + 4


@njit(cache=True, nogil=True)
def _text_len(index, offsets, values, valid, vvalid, toffsets, data, lengths):
    for i in range(len(index)):
        j = index[i]
        lengths[i] += toffsets[j + 1] - toffsets[j]


@njit(cache=True, nogil=True)
def _text_write(index, offsets, values, valid, vvalid, toffsets, data, out, cursor, lead):
    for i in range(len(index)):
        at = cursor[i]
        out[at] = lead
        at += 1
        j = index[i]
        for b in range(toffsets[j], toffsets[j + 1]):
            out[at] = data[b]
            at += 1
        cursor[i] = at


@njit(cache=True, nogil=True)
def _int_len(index, offsets, values, valid, vvalid, toffsets, data, lengths):
    nulls = len(valid) > 0
    for i in range(len(index)):
        j = index[i]
        lengths[i] += 4 if nulls and not valid[j] else _digits(values[j])


@njit(cache=True, nogil=True)
def _int_write(index, offsets, values, valid, vvalid, toffsets, data, out, cursor, lead):
    nulls = len(valid) > 0
    for i in range(len(index)):
        at = cursor[i]
        out[at] = lead
        j = index[i]
        cursor[i] = _put_null(out, at + 1) if nulls and not valid[j] else _put_int(out, at + 1, values[j])


@njit(cache=True, nogil=True)
def _bool_len(index, offsets, values, valid, vvalid, toffsets, data, lengths):
    for i in range(len(index)):
        lengths[i] += 4 if values[index[i]] != 0 else 5


@njit(cache=True, nogil=True)
def _bool_write(index, offsets, values, valid, vvalid, toffsets, data, out, cursor, lead):
    for i in range(len(index)):
        at = cursor[i]
        out[at] = lead
        if values[index[i]] != 0:
            out[at + 1], out[at + 2], out[at + 3], out[at + 4] = 116, 114, 117, 101              # 'true'
            cursor[i] = at + 5
        else:
            out[at + 1], out[at + 2], out[at + 3], out[at + 4], out[at + 5] = 102, 97, 108, 115, 101  # 'false'
            cursor[i] = at + 6


_SMALL_LEN = np.array([1] * 10 + [2] * 90, np.int64)
_SMALL_HI = np.array([48 + v if v < 10 else 48 + v // 10 for v in range(100)], np.uint8)
_SMALL_LO = np.array([44 if v < 10 else 48 + v % 10 for v in range(100)], np.uint8)
"""Text of 0-99 (cards, seats): first byte, second byte (a comma when there is none), length. A list of small
integers is written without a branch per element: both bytes and the comma after them are written, and the
position moves by the length (the next element or the closing bracket overwrites what was written beyond)."""


@njit(cache=True, nogil=True)
def _ints_len(index, offsets, values, valid, vvalid, toffsets, data, lengths):
    nulls, enulls = len(valid) > 0, len(vvalid) > 0
    small_len = _SMALL_LEN
    for i in range(len(index)):
        j = index[i]
        if nulls and not valid[j]:
            lengths[i] += 4
            continue
        a, b = offsets[j], offsets[j + 1]
        n = 1 + max(b - a, 1)                    # brackets and commas
        for k in range(a, b):
            v = values[k]
            if enulls and not vvalid[k]:
                n += 4
            elif 0 <= v < 100:
                n += small_len[v]
            else:
                n += _digits(v)
        lengths[i] += n


@njit(cache=True, nogil=True)
def _ints_write(index, offsets, values, valid, vvalid, toffsets, data, out, cursor, lead):
    nulls, enulls = len(valid) > 0, len(vvalid) > 0
    small_len, hi, lo = _SMALL_LEN, _SMALL_HI, _SMALL_LO
    for i in range(len(index)):
        at = cursor[i]
        out[at] = lead
        at += 1
        j = index[i]
        if nulls and not valid[j]:
            cursor[i] = _put_null(out, at)
            continue
        out[at] = 91                             # '['
        at += 1
        a, b = offsets[j], offsets[j + 1]
        for k in range(a, b):
            v = values[k]
            if enulls and not vvalid[k]:
                at = _put_null(out, at)
            elif 0 <= v < 100:                   # 'd,' or 'dd' then ','
                out[at] = hi[v]
                out[at + 1] = lo[v]
                out[at + 2] = 44
                at += small_len[v]
            else:
                at = _put_int(out, at, v)
            out[at] = 44                         # ',' (the closing bracket overwrites the last)
            at += 1
        if b > a:
            at -= 1
        out[at] = 93
        cursor[i] = at + 1


@njit(cache=True, nogil=True)
def _texts_len(index, offsets, values, valid, vvalid, toffsets, data, lengths):
    nulls = len(valid) > 0
    for i in range(len(index)):
        j = index[i]
        if nulls and not valid[j]:
            lengths[i] += 4
            continue
        a, b = offsets[j], offsets[j + 1]
        n = 2 + max(b - a - 1, 0)
        for k in range(a, b):
            c = values[k]
            n += toffsets[c + 1] - toffsets[c]
        lengths[i] += n


@njit(cache=True, nogil=True)
def _texts_write(index, offsets, values, valid, vvalid, toffsets, data, out, cursor, lead):
    nulls = len(valid) > 0
    for i in range(len(index)):
        at = cursor[i]
        out[at] = lead
        at += 1
        j = index[i]
        if nulls and not valid[j]:
            cursor[i] = _put_null(out, at)
            continue
        out[at] = 91
        at += 1
        a, b = offsets[j], offsets[j + 1]
        for k in range(a, b):
            if k > a:
                out[at] = 44
                at += 1
            c = values[k]
            for t in range(toffsets[c], toffsets[c + 1]):
                out[at] = data[t]
                at += 1
        out[at] = 93
        cursor[i] = at + 1


_LENGTH = {TEXT: _text_len, INT: _int_len, BOOL: _bool_len, INTS: _ints_len, TEXTS: _texts_len}
_WRITE = {TEXT: _text_write, INT: _int_write, BOOL: _bool_write, INTS: _ints_write, TEXTS: _texts_write}


def warm_up() -> None:
    """Compile (or load from the cache) the kernels, e.g. before forking workers that use them."""
    idx = np.zeros(1, np.int64)
    render([ints(idx, np.zeros(1, np.int64)), text(idx, ['"a"']), bools(idx, np.ones(1, bool)),
            int_lists(idx, np.array([0, 1]), np.ones(1, np.int64), np.ones(1, bool)),
            text_lists(idx, np.array([0, 1]), np.zeros(1, np.int64), ["1"])], 1)

