"""Compare two lakes table by table: same tables, same Arrow schema, same rows (each table sorted by all its
scalar columns, so the files' layout and row order do not matter), and the same manifest entries (file size,
format, content hash; not the modification time).

    python benchmarks/compare_lakes.py LAKE_A LAKE_B

Prints one line per table (rows in each, files in each, identical or which columns differ) and exits 0 when
everything is identical, 1 otherwise. Used to check that a change to the ingest leaves the lake as it was
(docs/scale.md, native ingest).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds


def tables(lake: Path) -> list[str]:
    """The table folders of ``lake`` (not the lock or the manifest)."""
    return sorted(p.name for p in lake.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def read_sorted(folder: Path) -> pa.Table:
    """Every row of a table folder (hive partitions as columns), columns by name, rows sorted by every column
    that is not a list or struct."""
    t = ds.dataset(folder, partitioning="hive").to_table()
    t = t.select(sorted(t.column_names))
    keys = [(c, "ascending") for c in t.column_names if not pa.types.is_nested(t.schema.field(c).type)]
    return t.sort_by(keys)


def manifest(lake: Path) -> dict:
    """The manifest's entries without their modification times: {file: [size, format, content hash]}."""
    f = lake / "_manifest.json"
    if not f.exists():
        return {}
    return {k: [v[0], v[2], v[3]] if isinstance(v, list) else v for k, v in json.loads(f.read_text()).items()}


def compare(a: Path, b: Path) -> bool:
    """Print the comparison of lakes ``a`` and ``b``; True when they are identical."""
    same = True
    ta, tb = tables(a), tables(b)
    if ta != tb:
        print(f"tables differ: {ta} / {tb}")
        same = False
    for name in sorted(set(ta) & set(tb)):
        x, y = read_sorted(a / name), read_sorted(b / name)
        files = f"{len(list((a / name).rglob('*.parquet')))}/{len(list((b / name).rglob('*.parquet')))}"
        if x.schema != y.schema:
            print(f"{name:10s} schema differs")
            same = False
            continue
        if x.equals(y):
            print(f"{name:10s} {x.num_rows:>9} {y.num_rows:>9} rows, files {files}: identical")
            continue
        same = False
        cols = [c for c in x.column_names if x.num_rows != y.num_rows or not x.column(c).equals(y.column(c))]
        print(f"{name:10s} {x.num_rows:>9} {y.num_rows:>9} rows, files {files}: DIFFERENT in {', '.join(cols)}")
    ok = manifest(a) == manifest(b)
    print(f"manifest   {'identical' if ok else 'DIFFERENT'} (size, format, content hash per file)")
    return same and ok


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(0 if compare(Path(sys.argv[1]), Path(sys.argv[2])) else 1)
