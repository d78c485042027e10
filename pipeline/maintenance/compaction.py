"""Compaction: rewrite a table partition's many small files into few large ones, in one lake transaction.

Above :mod:`pipeline.storage.lake` because it must keep the rescores' freshness records true (:mod:`pipeline.facts.derived`):
the same hands in other files are still the hands a rescore read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pipeline.storage import commits

from pipeline.facts import derived

from pipeline.storage import schema
from pipeline.storage.lake import FILE_BYTES, ROW_GROUP, Location, list_files, locate, lock, partitions
from pipeline.storage.lake_write import RollingWriter


@dataclass
class CompactSummary:
    """Counts of one compaction; ``str()`` is the one-line summary."""

    partitions: int = 0
    files_before: int = 0
    files_after: int = 0
    rows: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        from pipeline.words import count
        return (f"compact: {count(self.partitions, 'partition', True)} rewritten, "
                f"{count(self.files_before, 'file', True)} -> {self.files_after}, {count(self.rows, 'row', True)}, "
                f"{self.bytes_before / 1e6:,.1f} -> "
                f"{self.bytes_after / 1e6:,.1f} MB, {self.seconds:.2f} s")


def compact(lake: str | Path | Location, tables: Iterable[str] | None = None, row_group: int = ROW_GROUP,
            file_bytes: int = FILE_BYTES) -> CompactSummary:
    """Rewrite each partition of ``tables`` (default: every table) that has more than one file into few
    large files (row groups of ``row_group`` rows, files of about ``file_bytes`` bytes).

    Rows keep their order (files in path order, rows in file order) and every value is unchanged, so
    reports, rescoring and re-ingest (keys, manifest) give the same results. Runs under the lake lock, in one
    transaction: readers see every partition as before or every one as after. Raises OSError on I/O failure
    (the lake is then unchanged: the transaction is rolled back).
    """
    import time

    import pyarrow.dataset as ds

    t0 = time.perf_counter()
    loc = locate(lake)
    out = CompactSummary()
    tables = list(tables or schema.ALL_TABLES)
    with lock(loc):
        tx = commits.active(loc)
        # rescores that covered every hand and game still do after compaction (same rows, other files): say so
        fresh = derived.fresh_rulesets(loc) if {"hands", "games"} & set(tables) else []
        for table in tables:
            sch = schema.schema(table)
            cols = schema.partition_columns(table)
            file_schema = sch.remove(sch.get_field_index(cols[0])) if cols else sch
            for part in partitions(loc, table):
                files = list_files(loc, table, part)
                if len(files) < 2:
                    continue
                target = loc.path(table, part) if part else loc.path(table)
                w = RollingWriter(loc, target, file_schema, tx, prefix="compact", row_group=row_group,
                                  file_bytes=file_bytes)
                try:
                    for f in files:   # one file at a time, in order (a file lacking a column reads it as null)
                        one = ds.dataset([f.path], filesystem=loc.fs, format="parquet", schema=file_schema)
                        for b in one.to_batches(batch_size=65_536):
                            w.write(b)
                    w.close()
                except BaseException:
                    w._close_file()
                    raise
                for f in files:
                    tx.retire(f.path)
                out.partitions += 1
                out.files_before += len(files)
                out.bytes_before += sum(f.size for f in files)
                out.rows += w.rows
                out.files_after += len(w.paths)
                out.bytes_after += sum(i.size for i in loc.fs.get_file_info(w.paths))
        derived.record_hands(loc, fresh)
    out.seconds = time.perf_counter() - t0
    return out
