"""Canonical JSON text of whole columns, and the content keys built from it.

:func:`pipeline.ingest.records.hand_key` and :func:`~pipeline.ingest.records.game_key` hash the compact
``json.dumps`` text (``separators=(",", ":")``, ``ensure_ascii=True``) of a few fields of one row. The
columnar native reader (:mod:`pipeline.ingest.native_columns`) needs the same keys for ~10^5 rows at a time,
so this module writes the same text for a whole column at once:

* scalars (int64 numpy arrays with a validity mask) through Arrow's cast to text;
* lists of integers (plays, seats, bitmasks, recorded scores) through orjson's numpy serialiser, one
  matrix per list length, cut into rows by digit counts;
* strings through ``json.dumps`` once per distinct value.

Every piece is an Arrow ``string`` array with one element per row; :func:`join` concatenates pieces row by
row and :func:`sha32` hashes each row. The result is byte-identical to the row path's (tested in
``tests/test_fast_native.py``).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

_NUMPY = orjson.OPT_SERIALIZE_NUMPY


def const(value: str, n: int) -> pa.StringArray:
    """``n`` copies of one JSON text."""
    return pa.array([value], pa.string()).take(np.zeros(n, np.int64)) if n else pa.array([], pa.string())


def ints(values: np.ndarray, valid: np.ndarray | None = None) -> pa.StringArray:
    """JSON text of each integer (int64 numpy array); ``"null"`` where ``valid`` is False."""
    arr = pa.array(np.asarray(values, np.int64), mask=None if valid is None else ~valid)
    return pc.fill_null(pc.cast(arr, pa.string()), "null")


def bools(values: np.ndarray) -> pa.StringArray:
    """JSON ``true``/``false`` of each boolean."""
    return pc.if_else(pa.array(np.asarray(values, bool)), "true", "false")


def strings(arr: pa.Array) -> pa.StringArray:
    """``json.dumps`` (ASCII-escaped) of each string of ``arr``; ``"null"`` for nulls.

    Computed once per distinct value, so columns with few distinct values (strains, calls) cost little."""
    arr = arr.cast(pa.string()) if arr.type != pa.string() else arr
    enc = pc.dictionary_encode(arr)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    words = pa.array([json.dumps(s) for s in enc.dictionary.to_pylist()], pa.string())
    idx = enc.indices
    if idx.null_count:
        words = pa.concat_arrays([words, pa.array(["null"], pa.string())])
        idx = pc.fill_null(idx, len(words) - 1)
    return words.take(idx)


def _digit_count(a: np.ndarray, axis) -> np.ndarray:
    """Total characters of the decimal texts of the integers of ``a`` (signs included), summed over ``axis``."""
    if not a.size:
        return np.zeros(a.shape[0], np.int64)
    lo, top = int(a.min()), int(a.max())
    n = np.full(a.shape[0], int(np.prod([a.shape[i] for i in np.atleast_1d(axis)])), np.int64)
    if lo < 0:
        n += (a < 0).sum(axis=axis)
        mag = np.abs(a.astype(np.int64))
        top = max(top, -lo)
    else:
        mag = a
    p = 10
    while p <= top:
        n += (mag >= p).sum(axis=axis)
        p *= 10
    return n


def int_lists(offsets: np.ndarray, values: np.ndarray, valid: np.ndarray,
              value_valid: np.ndarray | None = None) -> pa.StringArray:
    """JSON text of lists of integers: row ``i`` is ``values[offsets[i]:offsets[i+1]]`` written ``[1,2,3]``,
    or ``null`` where ``valid`` is False; elements where ``value_valid`` is False are written ``null``.

    ``offsets`` int64 (rows + 1), ``values`` any integer dtype. Rows of one length are serialised together by
    orjson (a matrix), so the cost is one C call per distinct list length."""
    offsets = np.asarray(offsets, np.int64)
    n = len(offsets) - 1
    lengths = offsets[1:] - offsets[:-1]
    if value_valid is not None and not value_valid.all():
        return _int_lists_with_nulls(offsets, values, valid, value_valid)
    vals = np.asarray(values)
    if vals.dtype == np.uint32:
        vals = vals.astype(np.int64)
    groups = []          # (rows, string array)
    live = valid & (lengths > 0)
    for length in np.unique(lengths[live]):
        rows = np.flatnonzero(live & (lengths == length))
        idx = offsets[rows][:, None] + np.arange(length)[None, :]
        mat = np.ascontiguousarray(vals[idx])
        raw = orjson.dumps(mat, option=_NUMPY)   # [[a,b],[c,d]]
        row_len = _digit_count(mat, 1) + (length - 1) + 2
        # '[[1,2],[3,4]]' -> '[1,2][3,4]': the rows end to end ('],[' only occurs between rows)
        body = raw.replace(b"],[", b"][")[1:-1]
        offs = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(row_len, out=offs[1:])
        groups.append((rows, pa.Array.from_buffers(pa.large_string(), len(rows),
                                                   [None, pa.py_buffer(offs), pa.py_buffer(body)])))
    empty = valid & (lengths == 0)
    nulls = ~valid
    if empty.any():
        groups.append((np.flatnonzero(empty), const("[]", int(empty.sum()))))
    if nulls.any():
        groups.append((np.flatnonzero(nulls), const("null", int(nulls.sum()))))
    return _scatter(groups, n)


def _int_lists_with_nulls(offsets, values, valid, value_valid) -> pa.StringArray:
    """Slow path of :func:`int_lists` for lists holding nulls (rare: recorded scores like ``[null, 5]``)."""
    items = ints(np.asarray(values, np.int64), value_valid)
    lst = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), items)
    joined = pc.binary_join_element_wise("[", pc.binary_join(lst, ","), "]", "")
    return pc.if_else(pa.array(valid), joined, "null").cast(pa.string())


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


def int_list_pairs(offsets: np.ndarray, first: np.ndarray, second: np.ndarray, valid: np.ndarray) -> pa.StringArray:
    """JSON text ``[a1,a2],[b1,b2]`` of two integer lists sharing ``offsets`` (plays and their seats); rows
    where ``valid`` is False are ``null,null``. One orjson call per distinct length, as :func:`int_lists`."""
    offsets = np.asarray(offsets, np.int64)
    n = len(offsets) - 1
    lengths = offsets[1:] - offsets[:-1]
    groups = []
    live = valid & (lengths > 0)
    for length in np.unique(lengths[live]):
        rows = np.flatnonzero(live & (lengths == length))
        idx = offsets[rows][:, None] + np.arange(length)[None, :]
        mat = np.empty((len(rows), 2, length), np.int64)
        mat[:, 0, :] = np.asarray(first)[idx]
        mat[:, 1, :] = np.asarray(second)[idx]
        raw = orjson.dumps(mat, option=_NUMPY)       # [[[a],[b]],[[a],[b]]]
        row_len = _digit_count(mat, (1, 2)) + 2 * (length - 1) + 5
        body = raw.replace(b"]],[[", b"][")[2:-2]    # '[a],[b][a],[b]'
        offs = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(row_len, out=offs[1:])
        groups.append((rows, pa.Array.from_buffers(pa.large_string(), len(rows),
                                                   [None, pa.py_buffer(offs), pa.py_buffer(body)])))
    empty = valid & (lengths == 0)
    if empty.any():
        groups.append((np.flatnonzero(empty), const("[],[]", int(empty.sum()))))
    if (~valid).any():
        groups.append((np.flatnonzero(~valid), const("null,null", int((~valid).sum()))))
    return _scatter(groups, n)


def scalars(columns: list[tuple]) -> pa.StringArray:
    """JSON text ``a,b,c`` of several scalar columns, row by row, written once per distinct combination.

    Each column is ``("int", values int64, valid bool)``, ``("bool", values bool, None)`` or
    ``("str", string array, None)`` (nulls are ``null``). Falls back to joining one piece per column when the
    combinations cannot be numbered in 63 bits."""
    n = len(columns[0][1])
    codes, decoders, radix = [], [], 1
    for kind, values, valid in columns:
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
            return pc.binary_join_element_wise(*[_column_text(c) for c in columns], ",")
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
        texts.append(",".join(dec(d) for dec, d in zip(decoders, reversed(digits))))
    return pa.array(texts, pa.string()).take(pa.array(inverse.ravel()))


def _column_text(column: tuple) -> pa.StringArray:
    kind, values, valid = column
    if kind == "str":
        return strings(values)
    if kind == "bool":
        return bools(values)
    return ints(values, valid)


def lists_of(offsets: np.ndarray, items: pa.StringArray, valid: np.ndarray) -> pa.StringArray:
    """JSON text of lists whose elements are already JSON text (``items``): ``[a,b]``, or ``null``."""
    lst = pa.ListArray.from_arrays(pa.array(np.asarray(offsets, np.int32)), items)
    joined = pc.binary_join_element_wise("[", pc.binary_join(lst, ","), "]", "")
    return pc.if_else(pa.array(valid), joined, "null").cast(pa.string())


def join(pieces: list[pa.Array], sep: str = ",") -> pa.StringArray:
    """Row-wise concatenation of text pieces with ``sep`` between them, the whole wrapped in ``[ ]``."""
    return pc.binary_join_element_wise("[", pc.binary_join_element_wise(*pieces, sep), "]", "")


def sha32(texts: pa.Array) -> list[str]:
    """First 32 hex digits of the sha256 of each row's UTF-8 text (as ``records.hand_key`` computes them)."""
    texts = texts.cast(pa.large_string()) if texts.type != pa.large_string() else texts
    bufs = texts.buffers()
    offs = np.frombuffer(bufs[1], np.int64)[texts.offset: texts.offset + len(texts) + 1].tolist()
    mv = memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")
    sha = hashlib.sha256
    return [sha(mv[a:b]).hexdigest()[:32] for a, b in zip(offs, offs[1:])]
