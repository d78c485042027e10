"""Arrow tables from columns of Python values, without importing pandas.

pyarrow converts Python sequences (``pa.array([...])``, ``pa.table({...})``, ``pa.scalar(x)``) through a path that
first imports pandas to recognise pandas objects, which costs more than the rest of a `rebelote stats` start-up.
The few small result tables the commands build from Python values (the fairness report's rows) go through
:func:`table` instead, which lays out the Arrow buffers itself from numpy arrays.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_NUMPY = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
          pa.float32(): np.float32, pa.float64(): np.float64}


def _validity(values: list) -> tuple[pa.Buffer | None, int]:
    """Arrow validity bitmap of ``values`` (bit i set when values[i] is not None, least significant bit first)
    and the null count; (None, 0) when nothing is null."""
    valid = np.fromiter((v is not None for v in values), bool, len(values))
    nulls = len(values) - int(valid.sum())
    return (pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None), nulls


def array(values: list, type: pa.DataType) -> pa.Array:
    """An Arrow array of ``type`` holding ``values`` (None = null). Types: int8-int64, float32/64, bool, string.
    Raises TypeError for another type, ValueError/TypeError (from numpy) for a value that does not fit."""
    validity, nulls = _validity(values)
    n = len(values)
    if type in _NUMPY:
        data = np.array([0 if v is None else v for v in values], _NUMPY[type])
        return pa.Array.from_buffers(type, n, [validity, pa.py_buffer(data)], null_count=nulls)
    if type == pa.bool_():
        bits = np.packbits(np.array([bool(v) for v in values], bool), bitorder="little")
        return pa.Array.from_buffers(type, n, [validity, pa.py_buffer(bits)], null_count=nulls)
    if type == pa.string():
        encoded = [b"" if v is None else v.encode("utf-8") for v in values]
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return pa.Array.from_buffers(type, n, [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
                                     null_count=nulls)
    raise TypeError(f"arrow_rows.array: unsupported type {type}")


def table(columns: dict[str, list], schema: pa.Schema) -> pa.Table:
    """A table with ``schema`` whose column ``name`` holds ``columns[name]`` (lists of one length, None = null):
    what ``pa.table(columns, schema=schema)`` gives, without importing pandas. Raises KeyError for a schema
    field missing from ``columns``, TypeError for an unsupported type (see :func:`array`)."""
    return pa.Table.from_arrays([array(columns[f.name], f.type) for f in schema], schema=schema)
