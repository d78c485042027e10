"""Arrow columns to and from the numpy arrays the kernels work on, without a Python object per row.

In (zero-copy views of a column's buffers, read-only, for the compiled kernels to read by row):

* :func:`validity`: the validity bitmap of a column and its bit offset;
* :func:`values`, :func:`bools`: the values buffer of a primitive / boolean column;
* :func:`list_parts`: offsets and values of a list column; :func:`bit_bytes`: a bitmap's bits as bytes;
  :func:`codes`: a string column as indices into a list of texts;
* :func:`fixed_list`: rows of a list column whose lists all have one length, as a 2-D array (a compiled
  gather straight from the column's offsets and values buffers).

Out (Arrow arrays over numpy buffers, no per-row Python work):

* :func:`primitive`, :func:`fixed_lists`: a primitive column, a list column of one width per row;
* :func:`strings`: a string column from small integer codes and the list of texts they stand for (Arrow's
  ``take``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.jit import njit


@njit(cache=True, nogil=True)
def _gather(values, offsets, rows, out):
    """out[q, :] = values[offsets[rows[q]] : offsets[rows[q]] + out.shape[1]]."""
    width = out.shape[1]
    for q in range(len(rows)):
        start = offsets[rows[q]]
        for k in range(width):
            out[q, k] = values[start + k]


def fixed_list(col: pa.ChunkedArray | pa.Array, idx: np.ndarray, width: int, dtype) -> np.ndarray:
    """Rows ``idx`` (int (m,), positions in ``col``) of a list column whose lists at those rows all hold
    ``width`` non-null items, as an array (m, width) of ``dtype`` (values cast as numpy casts them). The
    caller checks the lengths first; an item past the end of the values buffer raises IndexError."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    out = np.empty((len(idx), width), dtype=dtype)
    if not len(idx):
        return out
    offsets = col.offsets.to_numpy()          # absolute positions in col.values, the slice offset applied
    # col.values is the whole child array of a sliced column: keep only this slice's range, so that the null
    # fill and the cast below cost this slice's items, not the whole batch's at every slice
    lo = int(offsets[0])
    values = col.values.slice(lo, int(offsets[-1]) - lo)
    if lo:
        offsets = offsets - lo
    if values.null_count:     # null items (in rows the caller does not ask for) read as 0
        values = pc.fill_null(values, 0)
    values = values.to_numpy(zero_copy_only=False)
    if values.dtype != out.dtype:
        values = values.astype(dtype)
    rows = np.ascontiguousarray(idx, dtype=np.int64)
    if int(offsets[rows].max()) + width > len(values):
        raise IndexError(f"fixed_list: a list at rows {rows[:5].tolist()}... is shorter than {width} items")
    _gather(values, offsets, rows, out)
    return out


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a`` as a read-only array: the kernels then see one array type (Arrow buffers are read-only), so each
    compiles once."""
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


_ONES = _read_only(np.full(1, 255, dtype=np.uint8))


def _all_valid(n: int) -> np.ndarray:
    global _ONES
    if len(_ONES) * 8 < n + 8:
        _ONES = _read_only(np.full(max(n // 8 + 2, 2 * len(_ONES)), 255, dtype=np.uint8))
    return _ONES


def _single(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def validity(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int]:
    """(bitmap, bit offset) of the validity of ``col`` (n rows): row i is valid when bit (offset + i) of the
    uint8 bitmap (least significant bit first, Arrow's order) is set. A column without nulls gets an all-set
    bitmap."""
    arr = _single(col)
    buf = arr.buffers()[0]
    if buf is None or arr.null_count == 0:
        return _all_valid(len(arr)), 0
    return _read_only(np.frombuffer(buf, dtype=np.uint8)), arr.offset


def values(col: pa.ChunkedArray | pa.Array, dtype) -> np.ndarray:
    """The values buffer of a primitive column (n rows) as ``dtype`` (its Arrow type's width): row i at [i].
    Values under nulls are whatever the buffer holds (read :func:`validity` with them)."""
    arr = _single(col)
    n, off = len(arr), arr.offset
    buf = arr.buffers()[1]
    if buf is None or n == 0:
        return _read_only(np.zeros(max(n, 1), dtype=dtype))
    return _read_only(np.frombuffer(buf, dtype=dtype, count=off + n)[off:])


def bools(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int]:
    """(bitmap, bit offset) of the values of a boolean column (bit-packed as the validity, :func:`validity`)."""
    arr = _single(col)
    buf = arr.buffers()[1]
    if buf is None:
        return _read_only(np.zeros(1, dtype=np.uint8)), 0
    return _read_only(np.frombuffer(buf, dtype=np.uint8)), arr.offset


def list_parts(col: pa.ChunkedArray | pa.Array, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int32 (n + 1,), values ``dtype``) of a list column: row i's items are
    values[offsets[i]:offsets[i + 1]] (when the row is valid, :func:`validity`). Null items read as 0."""
    arr = _single(col)
    offsets = arr.offsets.to_numpy()
    child = arr.values
    if child.null_count:      # only this column's range of the child, nulls read as 0
        lo = int(offsets[0])
        child = pc.fill_null(child.slice(lo, int(offsets[-1]) - lo), 0)
        offsets = offsets - lo
    if len(child) == 0:
        return _read_only(offsets), _read_only(np.zeros(1, dtype=dtype))
    return _read_only(offsets), values(child, dtype)


def bit_bytes(bits: np.ndarray, off: int, n: int) -> np.ndarray:
    """The n bits of an Arrow bitmap from bit ``off`` on (:func:`validity`, :func:`bools`) as uint8 0/1 (n,)."""
    return np.unpackbits(bits, count=off + n, bitorder="little")[off:]


def codes(col: pa.ChunkedArray | pa.Array, texts, missing: int) -> np.ndarray:
    """int8 (n,): the index of each row's string among ``texts`` (exact match), ``missing`` for another text or
    a null."""
    idx = pc.index_in(col, value_set=pa.array(list(texts), pa.string()))
    return pc.fill_null(idx, missing).to_numpy(zero_copy_only=False).astype(np.int8)


def bitmap(valid: np.ndarray) -> pa.Buffer:
    """An Arrow bitmap buffer of a bool (or 0/1 uint8) array (n,)."""
    return pa.py_buffer(np.packbits(np.asarray(valid), bitorder="little"))


def primitive(a: np.ndarray, typ: pa.DataType, valid: np.ndarray | pa.Buffer | None = None) -> pa.Array:
    """A primitive Arrow array over the numpy array ``a`` (n,) of ``typ``'s width (no copy; booleans are
    bit-packed), NULL where ``valid`` (bool (n,), or an Arrow bitmap) is false."""
    n = len(a)
    if typ == pa.bool_():
        data = bitmap(a)
    else:
        a = np.ascontiguousarray(a)
        if a.dtype.itemsize != typ.bit_width // 8:
            raise TypeError(f"primitive: {a.dtype} values for Arrow type {typ}")
        data = pa.py_buffer(a)
    vb = valid if isinstance(valid, pa.Buffer) or valid is None else bitmap(valid)
    return pa.Array.from_buffers(typ, n, [vb, data])


_STEPS: dict[tuple[int, int], pa.Buffer] = {}


def fixed_lists(a: np.ndarray, typ: pa.DataType, valid: np.ndarray | pa.Buffer | None = None) -> pa.Array:
    """A list column (n rows) of ``typ`` (a list type) whose row i holds a[i] (a: (n, width) of the item type's
    width), NULL where ``valid`` (bool (n,), or an Arrow bitmap) is false."""
    n, width = a.shape
    key = (n, width)
    steps = _STEPS.get(key)
    if steps is None:       # (held in a local: a thread of rescore --threads may clear the cache meanwhile)
        if len(_STEPS) > 64:
            _STEPS.clear()
        steps = _STEPS[key] = pa.py_buffer(np.arange(0, n * width + 1, width, dtype=np.int32))
    child = primitive(a.reshape(-1), typ.value_type)
    vb = valid if isinstance(valid, pa.Buffer) or valid is None else bitmap(valid)
    return pa.Array.from_buffers(typ, n, [vb, steps], children=[child])


_TEXTS: dict[tuple, pa.Array] = {}


def strings(codes: np.ndarray, texts: list[str] | np.ndarray, valid: np.ndarray | pa.Buffer | None = None) -> pa.Array:
    """A string column (n,): ``texts[codes[i]]`` for each row, NULL where ``valid`` (bool (n,), or an Arrow
    bitmap) is false (codes there are ignored). codes: int (n,) indices into ``texts`` (int8 ones are used in
    place); pyarrow.ArrowIndexError for a valid code outside them."""
    key = tuple(texts)
    arr = _TEXTS.get(key)
    if arr is None:
        if len(_TEXTS) > 64:
            _TEXTS.clear()
        arr = _TEXTS[key] = pa.array(list(key), type=pa.string())
    codes = np.asarray(codes)
    if codes.dtype.itemsize != 1 or codes.dtype.kind not in "iub" or len(texts) > 127:
        codes = codes.astype(np.int32)
    elif codes.dtype != np.int8:
        codes = codes.view(np.int8)
    codes = np.ascontiguousarray(codes)
    vb = valid if isinstance(valid, pa.Buffer) or valid is None else bitmap(valid)
    typ = pa.int8() if codes.dtype == np.int8 else pa.int32()
    idx = pa.Array.from_buffers(typ, len(codes), [vb, pa.py_buffer(codes)])
    return pc.take(arr, idx)
