"""The Parquet lake: hive-partitioned tables under one folder, written with zstd.

Layout (``schemas/<table>.toml`` gives each table's partition column)::

    LAKE/hands/source=<source>/part-<hash>.parquet
    LAKE/games/source=<source>/part-<hash>.parquet
    LAKE/rejects/part-<hash>.parquet
    LAKE/scores/ruleset=<name>/part-<n>.parquet
    LAKE/game_scores/ruleset=<name>/part-<n>.parquet

Appends are idempotent: rows whose key (hand_key, game_key, reject_key) is already in the lake are
skipped. Rescoring replaces its ruleset's partition.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from pipeline import schema

DEFAULT_LAKE = Path(os.environ.get("REBELOTE_LAKE", "rebelote-lake"))
KEYS = {"hands": "hand_key", "games": "game_key", "rejects": "reject_key"}
ROW_GROUP = 1_000_000


@contextlib.contextmanager
def lock(lake: Path):
    """Exclusive lock on a lake for the duration of a write (ingest, rescore): a second writer waits for the
    first, so concurrent runs neither duplicate rows nor trip over each other's files.
    Raises OSError (e.g. NotADirectoryError, PermissionError) when the lake cannot be created or written."""
    lake = Path(lake)
    if lake.exists() and not lake.is_dir():
        raise NotADirectoryError(20, "the lake path is a file, not a folder", str(lake))
    lake.mkdir(parents=True, exist_ok=True)
    with open(lake / ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def table_dir(lake: Path, table: str) -> Path:
    return Path(lake) / table


def has_table(lake: Path, table: str) -> bool:
    """True when the table has at least one Parquet file."""
    d = table_dir(lake, table)
    return d.is_dir() and any(d.rglob("*.parquet"))


def dataset(lake: Path, table: str) -> ds.Dataset:
    """A pyarrow dataset over the table with its declared schema (partition columns included)."""
    sch = schema.schema(table)
    parts = schema.partition_columns(table)
    part = ds.partitioning(pa.schema([sch.field(p) for p in parts]), flavor="hive") if parts else None
    return ds.dataset(str(table_dir(lake, table)), format="parquet", schema=sch, partitioning=part)


def read(lake: Path, table: str, columns: list[str] | None = None, filter=None) -> pa.Table:
    """Read a table (or some columns). An absent table reads as empty."""
    if not has_table(lake, table):
        t = schema.empty(table)
        return t.select(columns) if columns else t
    return dataset(lake, table).to_table(columns=columns, filter=filter)


def iter_batches(lake: Path, table: str, batch_size: int = 262_144, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """Stream a table in record batches (memory bounded by batch_size)."""
    if not has_table(lake, table):
        return
    yield from dataset(lake, table).to_batches(batch_size=batch_size, columns=columns)


def existing_keys(lake: Path, table: str) -> set[str]:
    """Every key of an append-only table already in the lake."""
    key = KEYS[table]
    if not has_table(lake, table):
        return set()
    return set(read(lake, table, columns=[key]).column(key).to_pylist())


def _write(data: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pq.write_table(data, tmp, compression="zstd", row_group_size=ROW_GROUP)
    os.replace(tmp, path)


def append(lake: Path, table: str, rows: pa.Table) -> int:
    """Write rows (already deduplicated by the caller) into their partitions; returns rows written."""
    if rows.num_rows == 0:
        return 0
    rows = schema.conform(table, rows)
    parts = schema.partition_columns(table)
    key = KEYS.get(table)
    groups: Iterable[tuple[tuple, pa.Table]]
    if parts:
        p = parts[0]
        groups = [((v,), rows.filter(pc.equal(rows.column(p), v)).drop_columns([p]))
                  for v in sorted(set(rows.column(p).to_pylist()))]
    else:
        groups = [((), rows)]
    for values, data in groups:
        digest = hashlib.sha256("".join(data.column(key).to_pylist()).encode()).hexdigest()[:16] if key else "0"
        d = table_dir(lake, table)
        for p, v in zip(parts, values):
            d = d / f"{p}={v}"
        _write(data, d / f"part-{digest}.parquet")
    return rows.num_rows


def replace_partition(lake: Path, table: str, value: str, batches: Iterable[pa.Table]) -> int:
    """Replace partition ``<col>=value`` of a table (scores, game_scores) with the given tables."""
    part = schema.partition_columns(table)[0]
    d = table_dir(lake, table) / f"{part}={value}"
    staging = d.with_name(d.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    n = 0
    for i, t in enumerate(batches):
        if t.num_rows == 0:
            continue
        t = schema.conform(table, t).drop_columns([part])
        _write(t, staging / f"part-{i:05d}.parquet")
        n += t.num_rows
    shutil.rmtree(d, ignore_errors=True)
    if staging.exists():
        os.replace(staging, d)
    return n


def delete_rows(lake: Path, table: str, column: str, values: set, also: tuple[str, set] | None = None) -> int:
    """Remove the rows whose ``column`` is in ``values`` (and, with ``also = (column2, values2)``, whose
    ``column2`` is in ``values2`` too) from every Parquet file of ``table``; each file that holds one is
    rewritten (atomically, file by file) or removed when nothing is left. Returns rows removed.
    Used when a changed source file is re-imported, or a richer copy of a game replaces a poorer one."""
    if not values or not has_table(lake, table):
        return 0
    wanted = pa.array(sorted(values))
    removed = 0
    for path in sorted(table_dir(lake, table).rglob("*.parquet")):
        t = pq.read_table(path)
        hit = pc.is_in(t.column(column), value_set=wanted.cast(t.schema.field(column).type))
        if also is not None:
            col2, values2 = also
            hit = pc.and_(hit, pc.is_in(t.column(col2), value_set=pa.array(sorted(values2), t.schema.field(col2).type)))
        n = pc.sum(hit).as_py() or 0
        if not n:
            continue
        removed += n
        kept = t.filter(pc.invert(hit))
        if kept.num_rows:
            _write(kept, path)
        else:
            path.unlink()
    return removed
