"""pipeline/arrow_rows.py: Arrow tables from Python values, equal to pyarrow's own conversion, pandas not imported."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pytest

from pipeline import arrow_rows

SCHEMA = pa.schema([("group", pa.string()), ("n", pa.int64()), ("small", pa.int8()), ("x", pa.float64()),
                    ("ok", pa.bool_())])
# nulls at both ends and inside, a non-ASCII name, an empty string, a row count that is not a multiple of 8
COLUMNS = {"group": ["Gisèle", None, "", "p_0a1b", "(all)", "x" * 40, "Émile", None, "last"],
           "n": [0, 1, -5, None, 2**40, 7, 8, 9, None],
           "small": [1, -128, 127, None, 0, 3, 4, 5, 6],
           "x": [0.5, None, 1e-300, float("inf"), -2.0, 3.25, None, 0.0, 1.0],
           "ok": [True, False, None, True, True, False, False, None, True]}


def test_table_equals_pyarrow_conversion():
    # the expected table is pyarrow's own conversion of the same Python values
    got = arrow_rows.table(COLUMNS, SCHEMA)
    assert got.equals(pa.table(COLUMNS, schema=SCHEMA)) and got.schema == SCHEMA
    assert got.column("group").null_count == 2 and got.to_pylist()[1] == {"group": None, "n": 1, "small": -128,
                                                                          "x": None, "ok": False}
    assert arrow_rows.table({f.name: [] for f in SCHEMA}, SCHEMA).equals(SCHEMA.empty_table())
    with pytest.raises(TypeError, match="unsupported type"):
        arrow_rows.array([[1]], pa.list_(pa.int64()))


def test_pandas_not_imported():
    # the reason the module exists: pa.table() on Python lists imports pandas (0.3 s of start-up), this does not
    code = ("import sys; from pipeline import arrow_rows; import pyarrow as pa; "
            "arrow_rows.table({'a': ['x', None], 'b': [1, None]}, pa.schema([('a', pa.string()), ('b', pa.int64())])); "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
