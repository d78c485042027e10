"""Writing the lake: every write runs in the current transaction (:mod:`pipeline.storage.commits`), adds new files
named after their content and the transaction, and retires the files it replaces; a file is never modified.
:func:`append` writes deduplicated rows into their partitions, :func:`replace_partition` and
:func:`append_partition` stream a ruleset's rows in few large files (:class:`RollingWriter`),
:func:`delete_rows` and :func:`rewrite_files` replace files by new ones without some rows, :func:`pipeline.storage.lake.write_bytes` writes a small
file (a manifest, a ruleset's record). Where the lake is and how it is read: :mod:`pipeline.storage.lake`."""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs

from pipeline import names

from pipeline.storage import commits

from pipeline.storage import schema
from pipeline.storage.lake import (BUFFER_BYTES, FILE_BYTES, KEYS, NAME_COLUMNS, ROW_GROUP, Location, has_table, list_files,
                           locate)


def rewrite_files(lake: str | Path | Location, table: str, fix: Callable[[pa.Table], pa.Table | None]) -> int:
    """Replace each Parquet file of ``table`` for which ``fix(its rows)`` returns a table by a new file of those
    rows, in the current transaction (files are never modified); ``fix`` returns None to keep a file. One file
    is held in memory at a time. Returns files replaced."""
    import pyarrow.parquet as pq

    loc = locate(lake)
    if not has_table(loc, table):
        return 0
    n = 0
    with commits.transaction(loc) as tx:
        for f in list_files(loc, table):
            new = fix(pq.read_table(f.path, filesystem=loc.fs))
            if new is None:
                continue
            if new.num_rows:
                _write(loc, new, tx.new_path(_stem(f.path)))
            tx.retire(f.path)
            n += 1
    return n


def _write(loc: Location, data: pa.Table, path: str) -> None:
    """Write a new Parquet file (a path of the current transaction: hidden from readers until committed)."""
    import pyarrow.parquet as pq

    commits.step(f"write {path[len(loc.root):].lstrip('/')}")
    loc.fs.create_dir(posixpath.dirname(path), recursive=True)
    pq.write_table(data, path, filesystem=loc.fs, compression="zstd", row_group_size=ROW_GROUP,
                   use_dictionary=dictionary_columns(data.schema))


DISTINCT = frozenset({"hand_key", "game_key", "reject_key", "initial_hands", "tricks_taken"})
"""Columns whose values are nearly all different (keys; dealt hands and tricks as bitmasks): written without a
Parquet dictionary, which for them only costs time and space (it fills up and falls back to plain values)."""


def dictionary_columns(sch: pa.Schema) -> list[str]:
    """The Parquet column paths of ``sch`` written with a dictionary: every leaf outside :data:`DISTINCT`."""
    def leaves(t: pa.DataType, path: str):
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return leaves(t.value_type, f"{path}.list.element")
        if pa.types.is_struct(t):
            return [p for f in t for p in leaves(f.type, f"{path}.{f.name}")]
        return [path]
    return [p for f in sch if f.name not in DISTINCT for p in leaves(f.type, f.name)]


_TX_SUFFIX = re.compile(r"-[0-9a-f]{12}-\d+$")


_BLOB_TMP = re.compile(r"-[0-9a-f]{12}-tmp$")


def _stem(path: str) -> str:
    """A Parquet file's path without ``.parquet`` and without the transaction tag of the write that made it."""
    return _TX_SUFFIX.sub("", path[:-len(".parquet")] if path.endswith(".parquet") else path)


def _keys_digest(keys: pa.ChunkedArray, *more: pa.ChunkedArray) -> str:
    """First 16 hex digits of the sha256 of the keys written end to end (UTF-8), a file's name: the bytes of
    the string column's data buffers, so ``sha256("".join(keys).encode())`` without a Python string per row.
    Further columns (``more``) are hashed after it, in order."""
    import numpy as np

    h = hashlib.sha256()
    for chunk in (c for col in (keys, *more) for c in col.chunks):
        if not len(chunk):
            continue
        off_type = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        width = np.dtype(off_type).itemsize
        offsets = np.frombuffer(chunk.buffers()[1], off_type, count=len(chunk) + 1, offset=chunk.offset * width)
        data = chunk.buffers()[2]
        if data is not None and offsets[-1] > offsets[0]:
            h.update(memoryview(data)[int(offsets[0]):int(offsets[-1])])
    return h.hexdigest()[:16]


def append(lake: str | Path | Location, table: str, rows: pa.Table) -> int:
    """Write rows (already deduplicated by the caller) into their partitions, in the current transaction;
    returns rows written. Each file is named ``part-<16 hex digits>-<tx>-<n>.parquet`` after the content of its
    key column (:data:`KEYS`; for a table without one, its :data:`NAME_COLUMNS`) and the transaction."""
    if rows.num_rows == 0:
        return 0
    import pyarrow.compute as pc

    loc = locate(lake)
    rows = schema.conform(table, rows)
    parts = schema.partition_columns(table)
    key = KEYS.get(table)
    groups: Iterable[tuple[tuple, pa.Table]]
    if parts:
        p = parts[0]
        values = pc.unique(rows.column(p)).to_pylist()
        if len(values) == 1:
            groups = [((values[0],), rows.drop_columns([p]))]
        else:
            groups = [((v,), rows.filter(pc.equal(rows.column(p), v)).drop_columns([p]))
                      for v in sorted(values)]
    else:
        groups = [((), rows)]
    with commits.transaction(loc) as tx:
        _append_groups(loc, tx, table, parts, key, groups)
    return rows.num_rows


def _append_groups(loc, tx, table, parts, key, groups) -> None:
    for values, data in groups:
        if key:
            digest = _keys_digest(data.column(key))
        elif table in NAME_COLUMNS:
            digest = _keys_digest(*(data.column(c) for c in NAME_COLUMNS[table]))
        else:
            digest = "0"
        d = loc.path(table, *(_partition(table, p, v) for p, v in zip(parts, values)))
        _write(loc, data, tx.new_path(posixpath.join(d, f"part-{digest}")))


class RollingWriter:
    """Writes a stream of tables of one schema as few large Parquet files in a folder.

    Rows are buffered into row groups of ``row_group`` rows (or fewer once the buffer holds ``buffer_bytes``);
    a file is closed and the next one started once it reaches ``file_bytes`` on disk. Files are named
    ``<prefix>-<tx>-<n>.parquet``, new files of transaction ``tx`` (:class:`pipeline.storage.commits.Transaction`), or
    with no ``tx`` (a folder outside any lake) ``<prefix>-<nnnnn>.parquet``.
    Memory is bounded by one row group. :meth:`close` returns the paths written.
    """

    def __init__(self, loc: Location, folder: str, sch: pa.Schema, tx: commits.Transaction | None = None,
                 prefix: str = "part",
                 row_group: int = ROW_GROUP, file_bytes: int = FILE_BYTES, buffer_bytes: int = BUFFER_BYTES):
        self.loc, self.folder, self.schema, self.prefix, self.tx = loc, folder, sch, prefix, tx
        self.row_group, self.file_bytes, self.buffer_bytes = row_group, file_bytes, buffer_bytes
        self.buf: list[pa.Table] = []
        self.buf_rows = self.buf_bytes = 0
        self.sink = self.writer = None
        self.paths: list[str] = []
        self.rows = 0

    def write(self, t: pa.Table | pa.RecordBatch) -> None:
        if isinstance(t, pa.RecordBatch):
            t = pa.Table.from_batches([t])
        while t.num_rows:
            take = min(t.num_rows, self.row_group - self.buf_rows)
            part = t.slice(0, take)
            t = t.slice(take)
            self.buf.append(part)
            self.buf_rows += part.num_rows
            self.buf_bytes += part.nbytes
            if self.buf_rows >= self.row_group or self.buf_bytes >= self.buffer_bytes:
                self._flush()

    def _open(self) -> None:
        import pyarrow.parquet as pq

        path = (self.tx.new_path(posixpath.join(self.folder, self.prefix)) if self.tx is not None
                else posixpath.join(self.folder, f"{self.prefix}-{len(self.paths):05d}.parquet"))
        commits.step(f"write {path[len(self.loc.root):].lstrip('/')}")
        self.loc.fs.create_dir(self.folder, recursive=True)
        self.paths.append(path)
        self.sink = self.loc.fs.open_output_stream(path)
        self.writer = pq.ParquetWriter(self.sink, self.schema, compression="zstd",
                                       use_dictionary=dictionary_columns(self.schema))

    def _flush(self) -> None:
        if not self.buf_rows:
            return
        if self.writer is None:
            self._open()
        group = pa.concat_tables(self.buf)      # chunked: the writer encodes it without a combined copy
        commits.step(f"write a row group of {self.paths[-1][len(self.loc.root):].lstrip('/')}")
        self.writer.write_table(group, row_group_size=group.num_rows)
        self.rows += group.num_rows
        self.buf, self.buf_rows, self.buf_bytes = [], 0, 0
        if self.sink.tell() >= self.file_bytes:
            self._close_file()

    def _close_file(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.sink.close()
            self.writer = self.sink = None

    def close(self, keep_empty: bool = False) -> list[str]:
        """Flush the last row group, close the file; the paths of every file written. ``keep_empty``: with no
        row written, write one file of no rows (its schema), so that readers see an empty table, not none."""
        self._flush()
        if keep_empty and not self.paths:
            self._open()
        self._close_file()
        return self.paths


def _partition(table: str, column: str, value: object) -> str:
    """The folder ``column=value`` of a partition; BadName (:func:`pipeline.names.check`) for a value that is no
    plain name (``ruleset=../../victim`` would be a folder outside the lake)."""
    return f"{column}={names.check(f'{table}.{column}', value)}"


def replace_partition(lake: str | Path | Location, table: str, value: str, batches: Iterable[pa.Table | pa.RecordBatch]) -> int:
    """Replace partition ``<col>=value`` of a table (scores, game_scores) with the rows of ``batches``
    (streamed: written as they come, in few large files), in the current transaction; the partition's small
    files (``_ruleset.json``) go too: the caller writes them again. Returns rows written."""
    return _write_partition(lake, table, value, batches, replace=True)


def append_partition(lake: str | Path | Location, table: str, value: str, batches: Iterable[pa.Table | pa.RecordBatch]) -> int:
    """Add the rows of ``batches`` to partition ``<col>=value`` of a table, streamed as :func:`replace_partition`
    writes them, keeping the partition's files (an update of some games' rows, after :func:`delete_rows` of their
    old ones). Returns rows written."""
    return _write_partition(lake, table, value, batches, replace=False)


def _write_partition(lake, table: str, value: str, batches, replace: bool) -> int:
    loc = locate(lake)
    with commits.transaction(loc) as tx:
        w = PartitionWriter(loc, table, value, replace, tx)
        try:
            for t in batches:
                w.write(t)
        except BaseException:
            w.abandon()
            raise
        return w.close()


class PartitionWriter:
    """Writes the rows of partition ``<col>=value`` of ``table`` as they come (:class:`RollingWriter`), in
    transaction ``tx``; :meth:`close` retires the partition's earlier files when ``replace`` (they stay visible
    until then) and returns the rows written. Several of them let one pass write several tables (the rescore's
    hand pass writes ``scores`` and the hand-level derived tables side by side)."""

    def __init__(self, loc: Location, table: str, value: str, replace: bool, tx: commits.Transaction,
                 buffer_bytes: int = BUFFER_BYTES):
        self.loc, self.table, self.tx, self.replace = loc, table, tx, replace
        self.part = schema.partition_columns(table)[0]
        self.folder = loc.path(table, _partition(table, self.part, value))
        self.old = _partition_files(loc, self.folder) if replace else []
        sch = schema.schema(table)
        self.writer = RollingWriter(loc, self.folder, sch.remove(sch.get_field_index(self.part)), tx,
                                    buffer_bytes=buffer_bytes)

    def write(self, t: pa.Table | pa.RecordBatch) -> None:
        if t.num_rows == 0:
            return
        if isinstance(t, pa.RecordBatch):
            t = pa.Table.from_batches([t])
        self.writer.write(schema.conform(self.table, t).drop_columns([self.part]))

    def abandon(self) -> None:
        """Close the open file after a failure (the transaction, rolled back, removes what was written)."""
        self.writer._close_file()

    def close(self) -> int:
        """Close the last file, retire the replaced ones; the rows written. A replaced partition that gets no
        rows keeps one file of none: a ruleset's report table with no rows (no declaration in any hand) is then
        written and empty, which readers tell from one never written (computed on the fly by the views,
        named by ``rebelote status``)."""
        self.writer.close(keep_empty=self.replace)
        for p in self.old:
            self.tx.retire(p)
        return self.writer.rows


def _partition_files(loc: Location, folder: str) -> list[str]:
    """Every file of a partition folder that readers see now: its Parquet files and its small ``_`` files."""
    seen = commits.Visibility(loc)
    infos = loc.fs.get_file_info(pafs.FileSelector(folder, recursive=True, allow_not_found=True))
    out = []
    for f in infos:
        if f.type != pafs.FileType.File or seen.hidden(f.path):
            continue
        base = posixpath.basename(f.path)
        if f.path.endswith(".parquet") and base[:1] not in "_.":
            out.append(f.path)
        elif base[:1] == "_" and not _BLOB_TMP.search(base) and seen.blob_source(f.path) == f.path:
            out.append(f.path)
    return sorted(out)


def drop_partition(lake: str | Path | Location, table: str, value: str) -> bool:
    """Remove partition ``<col>=value`` of a partitioned table, if it exists (readers then see no such partition,
    not an empty one), in the current transaction. Returns whether there was one."""
    loc = locate(lake)
    folder = loc.path(table, _partition(table, schema.partition_columns(table)[0], value))
    files = _partition_files(loc, folder)
    if not files:
        return False
    with commits.transaction(loc) as tx:
        for p in files:
            tx.retire(p)
    return True


def delete_rows(lake: str | Path | Location, table: str, column: str, values: set,
                where: Callable[[pa.Table], pa.ChunkedArray | pa.Array] | None = None,
                partition: str | None = None) -> int:
    """Remove the rows whose ``column`` is in ``values`` (and, with ``where``, for which ``where(file's table)``
    is true too; it must accept files written before a column was added) from every Parquet file of
    ``table`` (or of its ``partition`` only, e.g. ``"ruleset=own"``); each file that holds one is replaced by a new file of the rows kept (none when nothing is left),
    in the current transaction. Returns rows removed. Used when a changed source file is re-imported, or a
    richer copy of a game replaces a poorer one (under the lake lock, like every write)."""
    loc = locate(lake)
    if not values or not has_table(loc, table):
        return 0
    with commits.transaction(loc) as tx:
        return _delete_rows(loc, tx, table, column, values, where, partition)


def _delete_rows(loc, tx, table, column, values, where, partition=None) -> int:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    wanted = pa.array(sorted(values))
    removed = 0
    for f in list_files(loc, table, partition):
        # the key column first: a file without one of the keys (most of a big lake) is not read whole
        keys = pq.read_table(f.path, filesystem=loc.fs, columns=[column]).column(column)
        if not pc.any(pc.is_in(keys, value_set=wanted.cast(keys.type))).as_py():
            continue
        t = pq.read_table(f.path, filesystem=loc.fs)
        hit = pc.is_in(t.column(column), value_set=wanted.cast(t.schema.field(column).type))
        if where is not None:
            hit = pc.and_(hit, where(t))
        n = pc.sum(hit).as_py() or 0
        if not n:
            continue
        removed += n
        kept = t.filter(pc.invert(hit))
        if kept.num_rows:     # a new file in place of the old one (files are never modified)
            _write(loc, kept, tx.new_path(_stem(f.path)))
        tx.retire(f.path)
    return removed
