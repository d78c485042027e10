"""Arrow columns to and from the numpy arrays the kernels work on, without a Python object per row.

* :func:`fixed_list`: rows of a list column whose lists all have one length, as a 2-D array (a compiled
  gather straight from the column's offsets and values buffers);
* :func:`strings`: a string column from small integer codes and the list of texts they stand for.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.rescore.jit import njit


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


def strings(codes: np.ndarray, texts: list[str] | np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A string column (n,): ``texts[codes[i]]`` for each row, NULL where ``valid`` is False (codes there are
    ignored). codes: int (n,) indices into ``texts``."""
    codes = np.asarray(codes, dtype=np.int32)
    if valid is None:
        idx = pa.array(codes)
    else:
        valid = np.asarray(valid, dtype=bool)
        idx = pa.array(np.where(valid, codes, 0), mask=~valid)
    return pc.take(pa.array(list(texts), type=pa.string()), idx)
