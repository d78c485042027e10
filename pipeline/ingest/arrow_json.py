"""Canonical JSON text of whole columns, and the content keys built from it.

:func:`pipeline.ingest.records.hand_key` and :func:`~pipeline.ingest.records.game_key` hash the compact
``json.dumps`` text (``separators=(",", ":")``, ``ensure_ascii=True``) of a few fields of one row. The
columnar native reader (:mod:`pipeline.ingest.native_columns`) needs the same keys for ~10^4 rows at a time,
so this module writes the same text for a whole column at once:

* scalars (ints, booleans, strings) once per distinct combination of values (:func:`scalars`);
* lists of integers (plays, seats, bitmasks, recorded scores) through orjson's numpy serialiser, one matrix
  per list length, cut into rows where each row's ``]`` is (:func:`int_lists`);
* strings through ``json.dumps`` once per distinct value.

Every piece is an Arrow ``string`` array with one element per row that **starts with its own separator**
(its ``lead``: ``,`` for a field after the first, ``[`` for the first field of a row): a row is then the
concatenation of its pieces and a closing ``]`` (:func:`join`), and a list of integers is a slice of orjson's
text as it stands (the ``,`` orjson writes between two rows is the lead of the second). :func:`sha32` hashes
each row (:mod:`pipeline.ingest.sha_keys`). The result is byte-identical to the row path's (tested in ``tests/test_fast_native.py``).
"""

from __future__ import annotations

import json

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.ingest import sha_keys

_NUMPY = orjson.OPT_SERIALIZE_NUMPY
_CLOSE = 0x5D     # ']'


def const(value: str, n: int) -> pa.StringArray:
    """``n`` copies of one text."""
    return pa.array([value], pa.string()).take(np.zeros(n, np.int64)) if n else pa.array([], pa.string())


def ints(values: np.ndarray, valid: np.ndarray | None = None, lead: str = "") -> pa.StringArray:
    """``lead`` + the JSON text of each integer; ``null`` where ``valid`` is False."""
    return scalars([("int", values, valid)], lead)


def strings(arr: pa.Array, lead: str = "") -> pa.StringArray:
    """``lead`` + ``json.dumps`` (ASCII-escaped) of each string of ``arr``; ``null`` for nulls.

    Computed once per distinct value, so columns with few distinct values (strains, calls) cost little."""
    arr = arr.cast(pa.string()) if arr.type != pa.string() else arr
    enc = pc.dictionary_encode(arr)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    words = pa.array([lead + json.dumps(s) for s in enc.dictionary.to_pylist()] + [lead + "null"], pa.string())
    return words.take(pc.fill_null(enc.indices, len(words) - 1))


def _narrow(vals: np.ndarray) -> np.ndarray:
    """``vals`` (integers) in the smallest signed type that holds them: orjson writes an int8 matrix 3x faster
    than an int64 one."""
    if not vals.size:
        return vals.astype(np.int64)
    lo, hi = int(vals.min()), int(vals.max())
    for t in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return vals if vals.dtype == t else vals.astype(t)
    raise OverflowError(f"integers {lo}..{hi} do not fit in int64")


def _matrix(offsets: np.ndarray, vals: np.ndarray, rows: np.ndarray, length: int) -> np.ndarray:
    """The lists of ``rows`` (each ``length`` long) as a (rows, length) C matrix: a view when they lie end to end
    in ``vals`` (the usual case: every hand has 32 plays), else a gather."""
    if not len(rows):
        return np.zeros((0, length), vals.dtype)
    a = int(offsets[rows[0]])
    if int(offsets[rows[-1]]) - a == length * (len(rows) - 1):      # no other values in between
        return vals[a:a + length * len(rows)].reshape(len(rows), length)
    idx = offsets[rows][:, None] + np.arange(length)[None, :]
    return np.ascontiguousarray(vals[idx])


def _matrix_rows(mat: np.ndarray) -> pa.StringArray:
    """``,[a,b,...]`` for each row of a 2-d integer matrix: one orjson text ``[[a,b],[c,d]]`` whose first byte
    becomes the first row's comma, cut after each row's ``]`` (the only ``]`` but the last)."""
    raw = bytearray(orjson.dumps(mat, option=_NUMPY))
    raw[0] = 0x2C                                    # ','
    ends = np.flatnonzero(np.frombuffer(raw, np.uint8) == _CLOSE)
    offsets = np.zeros(len(mat) + 1, np.int64)
    offsets[1:] = ends[:-1] + 1
    return pa.Array.from_buffers(pa.large_string(), len(mat), [None, pa.py_buffer(offsets), pa.py_buffer(raw)])


def int_lists(offsets: np.ndarray, values: np.ndarray, valid: np.ndarray,
              value_valid: np.ndarray | None = None, lead: str = ",") -> pa.StringArray:
    """``lead`` + the JSON text of lists of integers: row ``i`` is ``values[offsets[i]:offsets[i+1]]`` written
    ``[1,2,3]``, or ``null`` where ``valid`` is False; elements where ``value_valid`` is False are ``null``.

    ``offsets`` int64 (rows + 1), ``values`` any integer dtype. Rows of one length are serialised together by
    orjson (a matrix), so the cost is one C call per distinct list length."""
    offsets = np.asarray(offsets, np.int64)
    n = len(offsets) - 1
    if lead != ",":
        out = int_lists(offsets, values, valid, value_valid)
        return pc.binary_join_element_wise(lead, pc.utf8_slice_codeunits(out, 1), "")
    lengths = offsets[1:] - offsets[:-1]
    if value_valid is not None and not value_valid.all():
        return _int_lists_with_nulls(offsets, values, valid, value_valid)
    vals = _narrow(np.asarray(values))
    groups = []          # (rows, string array)
    live = valid & (lengths > 0)
    for length in np.unique(lengths[live]):
        rows = np.flatnonzero(live & (lengths == length))
        groups.append((rows, _matrix_rows(_matrix(offsets, vals, rows, int(length)))))
    empty = valid & (lengths == 0)
    nulls = ~valid
    if empty.any():
        groups.append((np.flatnonzero(empty), const(",[]", int(empty.sum()))))
    if nulls.any():
        groups.append((np.flatnonzero(nulls), const(",null", int(nulls.sum()))))
    return _scatter(groups, n)


def _int_lists_with_nulls(offsets, values, valid, value_valid) -> pa.StringArray:
    """Slow path of :func:`int_lists` for lists holding nulls (rare: recorded scores like ``[null, 5]``)."""
    arr = pa.array(np.asarray(values, np.int64), mask=~value_valid)
    items = pc.fill_null(pc.cast(arr, pa.string()), "null")
    lst = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), items)
    joined = pc.binary_join_element_wise(",[", pc.binary_join(lst, ","), "]", "")
    return pc.if_else(pa.array(valid), joined, ",null").cast(pa.string())


def _scatter(groups: list[tuple[np.ndarray, pa.Array]], n: int) -> pa.StringArray:
    """One string array of ``n`` rows from groups of (row numbers, strings)."""
    groups = [(r, a) for r, a in groups if len(r)]
    if not groups:
        return pa.array([], pa.string())
    if len(groups) == 1:
        return groups[0][1].cast(pa.string())
    order = np.concatenate([r for r, _ in groups])
    allv = pa.concat_arrays([a.cast(pa.string()) for _, a in groups])
    inverse = np.empty(n, np.int64)
    inverse[order] = np.arange(n)
    return allv.take(inverse)


def scalars(columns: list[tuple], lead: str = ",") -> pa.StringArray:
    """``lead`` + the JSON text ``a,b,c`` of several scalar columns, row by row, written once per distinct
    combination.

    Each column is ``("int", values int64, valid bool or None)``, ``("bool", values bool, None)`` or
    ``("str", string array, None)`` (nulls are ``null``). Columns whose combinations cannot be numbered in 63
    bits are written in several runs."""
    n = len(columns[0][1])
    codes, decoders, radix = [], [], 1
    for i, (kind, values, valid) in enumerate(columns):
        if kind == "str":
            enc = pc.dictionary_encode(values)
            words = [json.dumps(w) for w in enc.dictionary.to_pylist()]
            code = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64) + 1
            decoders.append(lambda c, words=words: "null" if c == 0 else words[c - 1])
            size = len(words) + 1
        elif kind == "bool":
            code = np.asarray(values, np.int64)
            decoders.append(lambda c: "true" if c else "false")
            size = 2
        else:
            v = np.asarray(values, np.int64)
            ok = np.ones(n, bool) if valid is None else valid
            lo = int(v[ok].min()) if ok.any() else 0
            hi = int(v[ok].max()) if ok.any() else 0
            code = np.where(ok, v - lo + 1, 0)
            decoders.append(lambda c, lo=lo: "null" if c == 0 else str(c - 1 + lo))
            size = hi - lo + 2
        if radix * size >= 2**62:
            if i == 0:         # one column alone: its values' text by Arrow's cast
                arr = pa.array(np.asarray(values, np.int64), mask=None if valid is None else ~valid)
                return pc.binary_join_element_wise(lead, pc.fill_null(pc.cast(arr, pa.string()), "null"), "")
            return pc.binary_join_element_wise(scalars(columns[:i], lead), scalars(columns[i:], ","), "")
        codes.append((code, size))
        radix *= size
    total = np.zeros(n, np.int64)
    for code, size in codes:
        total = total * size + code
    uniq, inverse = np.unique(total, return_inverse=True)
    texts = []
    for u in uniq.tolist():
        digits = []
        for _, size in reversed(codes):
            digits.append(u % size)
            u //= size
        texts.append(lead + ",".join(dec(d) for dec, d in zip(decoders, reversed(digits))))
    return pa.array(texts, pa.string()).take(pa.array(inverse.ravel()))


def lists_of(offsets: np.ndarray, items: pa.StringArray, valid: np.ndarray, lead: str = ",") -> pa.StringArray:
    """``lead`` + the JSON text of lists whose elements are already JSON text (``items``): ``[a,b]``, or
    ``null``."""
    lst = pa.ListArray.from_arrays(pa.array(np.asarray(offsets, np.int32)), items)
    joined = pc.binary_join_element_wise(lead + "[", pc.binary_join(lst, ","), "]", "")
    return pc.if_else(pa.array(valid), joined, lead + "null").cast(pa.string())


def join(pieces: list[pa.Array]) -> pa.StringArray:
    """Row-wise concatenation of pieces that carry their own separators (the first starting with ``[``),
    closed by ``]``."""
    return pc.binary_join_element_wise(*pieces, "]", "")


def sha32(texts: pa.Array) -> tuple[pa.StringArray, list[str]]:
    """Keys of each row's UTF-8 text (as ``records.hand_key`` computes them): see
    :func:`pipeline.ingest.sha_keys.sha32`."""
    texts = texts.cast(pa.large_string()) if texts.type != pa.large_string() else texts
    bufs = texts.buffers()
    offs = np.frombuffer(bufs[1], np.int64)[texts.offset: texts.offset + len(texts) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return sha_keys.sha32(offs, data)
