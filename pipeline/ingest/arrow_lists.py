"""Arrow list, string and struct columns as numpy arrays: offsets, validity, per-row sums and picks, card tokens.

The columnar native reader (:mod:`pipeline.ingest.native_columns`) checks and builds rows a block of lines at
a time from the nested columns pyarrow's JSON reader gives; these are the few operations it needs on them,
each one vectorised (no Python object per element, except the rare card token that is not two bytes).
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.cards import CardError, parse_card

INT8 = (-2**7, 2**7 - 1)
INT16 = (-2**15, 2**15 - 1)
INT32 = (-2**31, 2**31 - 1)
"""Integer ranges of the lake's int8/int16/int32 columns (:func:`in_range`)."""


def validity(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), bool)
    return arr.is_valid().to_numpy(zero_copy_only=False)


def ints(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values with 0 for nulls, validity)."""
    v = validity(arr)
    vals = (pc.fill_null(arr, 0) if arr.null_count else arr).to_numpy(zero_copy_only=False)
    return np.asarray(vals, np.int64), v


def lists(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(offsets int64 [n+1] from 0, validity, the child elements those offsets cover)."""
    off = arr.offsets.to_numpy().astype(np.int64)
    first = int(off[0]) if len(off) else 0
    child = arr.values.slice(first, int(off[-1]) - first) if len(off) else arr.values.slice(0, 0)
    return off - first, validity(arr), child


def strings(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets int64 [n+1] into data, data bytes as uint8, validity) of a string array."""
    n = len(arr)
    bufs = arr.buffers()
    if n == 0 or bufs[1] is None:
        return np.zeros(n + 1, np.int64), np.zeros(8, np.uint8), validity(arr)
    off = np.frombuffer(bufs[1], np.int32, count=n + 1, offset=arr.offset * 4).astype(np.int64)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(8, np.uint8)
    return off, data, validity(arr)


def field(arr: pa.Array, name: str) -> pa.Array:
    """A struct member, null where the struct is null."""
    return pc.struct_field(arr, name)


def count_by_row(parent: np.ndarray, flags: np.ndarray, n: int) -> np.ndarray:
    """Per-row count of the True flags of child elements whose row is ``parent``."""
    return np.bincount(parent[flags], minlength=n)


def pick(values, idx):
    """``values[idx]`` for a numpy array or a pyarrow array, ``idx`` an index array or a slice (:func:`gather`)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if isinstance(idx, slice):
            return values.slice(idx.start, idx.stop - idx.start)
        return values.take(pa.array(idx))
    return values[idx]


def parents(offsets: np.ndarray) -> np.ndarray:
    """Row of each child element of a list column (offsets from 0, as :func:`lists` gives them)."""
    return np.repeat(np.arange(len(offsets) - 1), offsets[1:] - offsets[:-1])


def seg_or(bits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Bitwise OR of ``bits[offsets[i]:offsets[i+1]]`` for each i (0 for empty ranges)."""
    n = len(offsets) - 1
    out = np.zeros(n, bits.dtype)
    nonempty = offsets[1:] > offsets[:-1]
    if nonempty.any():
        out[nonempty] = np.bitwise_or.reduceat(bits[:offsets[-1]], offsets[:-1][nonempty])
    return out


def seg_sum(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``x[offsets[i]:offsets[i+1]]`` for each i."""
    cs = np.zeros(len(x) + 1, np.int64)
    np.cumsum(x, out=cs[1:])
    return cs[offsets[1:]] - cs[offsets[:-1]]


def gather(offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | slice]:
    """Offsets (from 0) and child indices of the lists of ``rows``, in that order: a ``slice`` when ``rows`` is
    every row (the usual case: every line of a block accepted), so no index is built and no value copied (read
    the children with :func:`pick`)."""
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
    two = valid & (lengths == 2)
    if not two.any() or len(data) < 2:
        pairs16 = None
    else:   # the two bytes at any offset as one big-endian 16-bit number (an unaligned view, no copy)
        pairs16 = np.ndarray(shape=(len(data) - 1,), dtype=">u2", buffer=data, strides=(1,))
        if two.all():                                   # every token two bytes long, the usual case
            return _two_char_cards()[pairs16[starts]]
    out = np.full(len(starts), -1, np.int16)
    if pairs16 is not None:
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


def string_cards(arr: pa.Array) -> np.ndarray:
    """Card id of each string of ``arr`` (-1 for null or not a card)."""
    off, data, valid = strings(arr)
    return _card_ids(off[:-1], off[1:] - off[:-1], data, valid)


def in_range(v: np.ndarray, valid: np.ndarray, lo_hi: tuple[int, int]) -> np.ndarray:
    return ~valid | ((v >= lo_hi[0]) & (v <= lo_hi[1]))


def isin(arr: pa.Array, values) -> np.ndarray:
    return pc.fill_null(pc.is_in(arr, value_set=pa.array(list(values), arr.type)), False).to_numpy(
        zero_copy_only=False)
