"""The Parquet lake: hive-partitioned tables under one folder or object-storage prefix, written with zstd.

Layout (``schemas/<table>.toml`` gives each table's partition column)::

    LAKE/hands/source=<source>/part-<hash>-<tx>-<n>.parquet
    LAKE/games/source=<source>/part-<hash>-<tx>-<n>.parquet
    LAKE/rejects/part-<hash>-<tx>-<n>.parquet
    LAKE/scores/ruleset=<name>/part-<tx>-<n>.parquet   (and _ruleset.json)
    LAKE/_manifest.json                                 (the files ingest has read)

Appends are idempotent: rows whose key (hand_key, game_key, reject_key) is already in the lake are
skipped. Rescoring replaces its ruleset's partition; :func:`compact` rewrites a partition's many small
files into few large ones.

Commits (see :class:`Transaction`): every write runs in a transaction, one per :func:`lock` (an ingest, a
rescore, a compaction), which is whole or absent for every reader. A file is never modified: a write adds new
files whose names carry the transaction id, and marks replaced files for removal. ``LAKE/_commit.json`` is the
commit record: while it says ``pending``, readers hide the transaction's files; once it says ``committed``
(one atomic write, the commit point), they see them and hide the replaced ones, which are then deleted and the
record removed. A writer that dies leaves the record behind, and the next writer (or ``rebelote migrate``)
rolls it back (pending) or forward (committed). With no record the lake is plain hive-partitioned Parquet that
any engine reads as it is.

``LAKE`` is a local folder (``Path`` or text), or a URL that ``pyarrow.fs.FileSystem.from_uri`` opens
(``file:///abs/path``, ``s3://bucket/prefix``, ``gs://``, ``hdfs://``), or, when fsspec is installed, any
fsspec URL (``memory://lake``). See docs/scale.md for object-storage credentials. Object storage has no
file lock: a writer that finds another's pending record there refuses (:class:`LakeBusy`), see :func:`lock`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import posixpath
import re
import warnings
from urllib.parse import unquote
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.fs as pafs

from pipeline import commits, names, schema
from pipeline.catalog import DEFAULT_LAKE  # noqa: F401  (re-exported: lake.DEFAULT_LAKE)
from pipeline.commits import FaultInjected, LakeBusy  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    import pyarrow.dataset as ds

# pyarrow.dataset (which imports pandas: 0.2-0.4 s), pyarrow.compute and pyarrow.parquet are imported by the
# functions that use them, so that a command which only lists the lake's files (every `rebelote stats`) starts
# without them.

KEYS = {"hands": "hand_key", "games": "game_key", "rejects": "reject_key"}
NAME_COLUMNS = {"holdings": ("ingest_file", "hand_key", "copy")}
"""Tables appended without a unique key: the columns whose content names each file written (see :func:`append`)."""
#: The lake's layout version, recorded in :data:`VERSION_FILE` by the first write. A lake written before the
#: record existed is version 1; :mod:`pipeline.migrate` brings an older lake to this one, and a writer refuses a
#: lake of another version (:class:`LakeVersionError`) rather than guess how to read its files.
LAKE_VERSION = 4
VERSION_FILE = "_lake.json"
ROW_GROUP = 1_000_000                 # rows per Parquet row group (the scan unit)
FILE_BYTES = 200 * 1024 * 1024        # a written file is closed once it reaches about this size (target 100-250 MB)
BUFFER_BYTES = 256 * 1024 * 1024      # a row group is also flushed once its Arrow rows hold this much memory


class LakeWarning(UserWarning):
    """A lake operation that goes on with a weaker guarantee (e.g. no lock on object storage)."""


class LakeVersionError(OSError):
    """The lake's layout version (:func:`version`) is not the one this code writes: older (run
    ``rebelote migrate``) or newer (written by a newer Rebelote). An OSError, so that every command reports it
    as it reports a storage failure: one line, exit 2."""


@dataclass(frozen=True)
class Location:
    """Where a lake lives: a pyarrow filesystem and the root path inside it.

    ``fs``: a ``pyarrow.fs.FileSystem``; ``root``: the lake's path in ``fs`` (no trailing slash);
    ``uri``: the text the user gave (for messages); ``local``: True on the local filesystem (locks, renames
    and DuckDB's own Parquet reader are available there).
    """

    fs: pafs.FileSystem
    root: str
    uri: str
    local: bool

    def path(self, *parts: str) -> str:
        """The path of ``parts`` under the lake root, in ``fs``. Raises :class:`pipeline.names.BadName` for a part
        that would leave the root (``..``, absolute, NUL): no lake command may touch a path outside the lake."""
        for part in parts:
            names.check_part(part)
        return posixpath.join(self.root, *parts) if parts else self.root

    def __str__(self) -> str:
        return self.uri


def is_url(lake: str | Path) -> bool:
    """True when ``lake`` is written as a URL (``scheme://...``) rather than a local path."""
    return isinstance(lake, str) and "://" in lake


def locate(lake: str | Path | Location) -> Location:
    """Resolve a lake given as a local path or a URL.

    Raises ValueError naming the URL when no filesystem handles its scheme (pyarrow's, then fsspec's).
    """
    if isinstance(lake, Location):
        return lake
    if not is_url(lake):
        return Location(pafs.LocalFileSystem(), os.path.abspath(os.fspath(lake)), os.fspath(lake), True)
    try:
        fs, root = pafs.FileSystem.from_uri(lake)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as e:
        try:
            import fsspec
            fs_spec, root = fsspec.core.url_to_fs(lake)
        except ImportError:
            raise ValueError(f"lake {lake}: pyarrow cannot open this URL ({e}) and fsspec is not installed") from e
        except (ValueError, KeyError) as e2:
            raise ValueError(f"lake {lake}: no filesystem for this URL (pyarrow: {e}; fsspec: {e2})") from e2
        fs = pafs.PyFileSystem(pafs.FSSpecHandler(fs_spec))
    local = isinstance(fs, pafs.LocalFileSystem)
    return Location(fs, root.rstrip("/") or root, lake, local)


_warned: set[str] = set()


@contextlib.contextmanager
def lock(lake: str | Path | Location, recover: bool = True, migrating: bool = False):
    """Exclusive lock on a lake for the duration of a write (ingest, rescore, compact), and the write's
    transaction (:mod:`pipeline.commits`): what the block writes is committed when it ends and rolled back if
    it raises, so readers see the lake as before or as after. A second writer waits for the first; a writer
    left unfinished by a crash is rolled back or forward first (:func:`pipeline.commits.recover`).

    On a non-local lake (object storage) there is no lock: a :class:`LakeWarning` is issued once per lake,
    and a transaction of another writer still open there raises :class:`LakeBusy`. Raises OSError (e.g.
    NotADirectoryError, PermissionError) when a local lake cannot be created or written. ``recover=False``:
    leave an unfinished write to the caller (``rebelote recover``). A lake of another layout version raises
    :class:`LakeVersionError` before anything is written (``migrating=True``: :mod:`pipeline.migrate`, which
    writes the new version itself); a new lake gets the version record in the block's transaction."""
    loc = locate(lake)
    if not loc.local:
        if loc.uri not in _warned:
            _warned.add(loc.uri)
            warnings.warn(f"lake {loc.uri} is not on a local disk: no lock is taken, so run one writer "
                          "(ingest, rescore, compact) at a time", LakeWarning, stacklevel=3)
        loc.fs.create_dir(loc.root, recursive=True)
        if recover:
            commits.recover(loc)
        with commits.transaction(loc):
            _check_version(loc, migrating)
            yield
        return
    root = Path(loc.root)
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(20, "the lake path is a file, not a folder", loc.uri)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            if recover:
                commits.recover(loc)
            with commits.transaction(loc):
                _check_version(loc, migrating)
                yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def version(lake: str | Path | Location) -> int:
    """The lake's layout version: the one :data:`VERSION_FILE` records; 1 for a lake that holds tables but no
    record (written before it existed); :data:`LAKE_VERSION` for an empty or absent lake. Raises
    LakeVersionError when the record cannot be read as a version."""
    recorded = _recorded_version(locate(lake))
    if recorded is not None:
        return recorded
    loc = locate(lake)
    return 1 if exists(loc) and any(has_table(loc, t) for t in schema.TABLES) else LAKE_VERSION


def _recorded_version(loc: Location) -> int | None:
    """The version :data:`VERSION_FILE` records, or None when there is no record."""
    import json

    raw = read_bytes(loc, VERSION_FILE)
    if raw is None:
        return None
    try:
        v = json.loads(raw)["version"]
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(v)
        return v
    except (ValueError, KeyError, TypeError) as e:
        raise LakeVersionError(f"lake {loc.uri}: {VERSION_FILE} does not hold a lake version ({e})") from None


def write_version(lake: str | Path | Location, v: int = LAKE_VERSION) -> None:
    """Record layout version ``v`` in the current transaction."""
    import json

    write_bytes(lake, VERSION_FILE, json.dumps({"format": "rebelote-lake", "version": v}).encode() + b"\n")


def _check_version(loc: Location, migrating: bool) -> None:
    """Refuse a lake of another layout version (see :func:`lock`); record the version in a new lake."""
    recorded = _recorded_version(loc)
    v = version(loc) if recorded is None else recorded
    if v > LAKE_VERSION:
        raise LakeVersionError(f"the lake {loc.uri} has layout version {v}, written by a newer Rebelote; this one "
                               f"writes version {LAKE_VERSION}: upgrade Rebelote to write to it")
    if v < LAKE_VERSION and not migrating:
        raise LakeVersionError(f"the lake {loc.uri} has layout version {v}, older than this Rebelote's "
                               f"{LAKE_VERSION}: run `rebelote migrate --lake {loc.uri}` once, then write to it")
    if not migrating and recorded is None:
        write_version(loc)


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


def exists(lake: str | Path | Location) -> bool:
    """True when the lake's root folder exists (on object storage: when anything is stored under it)."""
    loc = locate(lake)
    info = loc.fs.get_file_info(loc.root)
    if info.type == pafs.FileType.Directory:
        return True
    if info.type == pafs.FileType.NotFound and not loc.local:
        return bool(loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=False, allow_not_found=True)))
    return False


def list_files(lake: str | Path | Location, table: str, partition: str | None = None) -> list[pafs.FileInfo]:
    """The Parquet files of a table (or of one partition folder such as ``source=x``), sorted by path.
    Files and folders whose name starts with ``_`` or ``.`` are skipped, as pyarrow and DuckDB readers do."""
    loc = locate(lake)
    base = loc.path(table, partition) if partition else loc.path(table)
    infos = loc.fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
    seen = commits.Visibility(loc)      # the committed files only (and this process's own writes)
    out = []
    for f in infos:
        rel = f.path[len(base):].strip("/").split("/")
        if f.type == pafs.FileType.File and f.path.endswith(".parquet") and not any(p[:1] in "_." for p in rel) \
                and not seen.hidden(f.path):
            out.append(f)
    return sorted(out, key=lambda f: f.path)


def has_table(lake: str | Path | Location, table: str) -> bool:
    """True when the table has at least one Parquet file."""
    return bool(list_files(lake, table))


def partitions(lake: str | Path | Location, table: str) -> list[str | None]:
    """The partition folders of a table (``['source=a', 'source=b']``), or ``[None]`` for an unpartitioned one."""
    if not schema.partition_columns(table):
        return [None]
    loc = locate(lake)
    base = loc.path(table).rstrip("/") + "/"
    # from the visible files: a partition whose files are all retired or pending is no partition
    return sorted({f.path[len(base):].split("/", 1)[0] for f in list_files(loc, table)
                   if "=" in f.path[len(base):].split("/", 1)[0]})


def dataset(lake: str | Path | Location, table: str) -> ds.Dataset:
    """A pyarrow dataset over the table with its declared schema (partition columns included)."""
    import pyarrow.dataset as ds

    loc = locate(lake)
    sch = schema.schema(table)
    parts = schema.partition_columns(table)
    part = ds.partitioning(pa.schema([sch.field(p) for p in parts]), flavor="hive") if parts else None
    files = [f.path for f in list_files(loc, table)]
    return ds.dataset(files, filesystem=loc.fs, format="parquet", schema=sch, partitioning=part,
                      partition_base_dir=loc.path(table))


def row_count(lake: str | Path | Location, table: str) -> int:
    """Rows of ``table``, from its files' Parquet footers (no data is read); 0 for an absent table."""
    import pyarrow.parquet as pq

    loc = locate(lake)
    n = 0
    for f in list_files(loc, table):
        with loc.fs.open_input_file(f.path) as fh:
            n += pq.ParquetFile(fh).metadata.num_rows
    return n


def read(lake: str | Path | Location, table: str, columns: list[str] | None = None, filter=None) -> pa.Table:
    """Read a table (or some columns). An absent table reads as empty."""
    if not has_table(lake, table):
        t = schema.empty(table)
        return t.select(columns) if columns else t
    return dataset(lake, table).to_table(columns=columns, filter=filter)


def _hive_values(loc: Location, table: str, path: str) -> dict[str, str]:
    """Partition values (``{'source': 'x'}``) from a file path's ``name=value`` folders under the table."""
    rel = path[len(loc.path(table)):].strip("/").split("/")[:-1]
    return {k: unquote(v) for k, _, v in (p.partition("=") for p in rel) if _}


def iter_batches(lake: str | Path | Location, table: str, batch_size: int = 262_144, columns: list[str] | None = None,
                 filter=None) -> Iterator[pa.RecordBatch]:
    """Stream a table in record batches of at most ``batch_size`` rows with the table's schema (partition
    columns filled from the folder names, columns a file lacks as nulls), file by file in path order.

    Memory is bounded by one row group of one file (about 1 GB for a 10^7-hand lake, measured; a pyarrow
    dataset scanner reading ahead across files held twice that). With ``filter`` (a pyarrow expression) the
    dataset scanner is used instead."""
    if not has_table(lake, table):
        return
    if filter is not None:
        yield from dataset(lake, table).to_batches(batch_size=batch_size, columns=columns, filter=filter,
                                                   batch_readahead=2, fragment_readahead=1)
        return
    import pyarrow.parquet as pq

    loc = locate(lake)
    sch = schema.schema(table)
    want = pa.schema([sch.field(c) for c in (columns or sch.names)])
    for f in list_files(loc, table):
        parts = _hive_values(loc, table, f.path)
        with loc.fs.open_input_file(f.path) as fh:
            pf = pq.ParquetFile(fh)
            present = set(pf.schema_arrow.names)
            read = [c for c in want.names if c in present and c not in parts]
            for b in pf.iter_batches(batch_size=batch_size, columns=read):
                n = b.num_rows
                cols = []
                for fld in want:
                    if fld.name in parts:
                        cols.append(pa.array([parts[fld.name]] * n, type=pa.string()).cast(fld.type))
                    elif fld.name in present:
                        col = b.column(fld.name)
                        cols.append(col if col.type == fld.type else col.cast(fld.type))
                    else:
                        cols.append(pa.nulls(n, fld.type))
                yield pa.RecordBatch.from_arrays(cols, schema=want)


def read_bytes(lake: str | Path | Location, name: str) -> bytes | None:
    """Contents of a small file at the lake root (``_manifest.json``), or None when absent."""
    loc = locate(lake)
    path = commits.Visibility(loc).blob_source(loc.path(name))
    if path is None:
        return None
    try:
        with loc.fs.open_input_stream(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def write_bytes(lake: str | Path | Location, name: str, data: bytes) -> None:
    """Write a small file under the lake root (``_manifest.json``, ``scores/ruleset=x/_ruleset.json``), as part
    of the write's transaction: written aside, moved into place once committed (:mod:`pipeline.commits`)."""
    loc = locate(lake)
    path = loc.path(name)
    with commits.transaction(loc) as tx:
        tmp = tx.blob_path(path)
        commits.step(f"write {name}")
        loc.fs.create_dir(posixpath.dirname(path), recursive=True)
        with loc.fs.open_output_stream(tmp) as f:
            f.write(data)


def _write(loc: Location, data: pa.Table, path: str) -> None:
    """Write a new Parquet file (a path of the current transaction: hidden from readers until committed)."""
    import pyarrow.parquet as pq

    commits.step(f"write {path[len(loc.root):].lstrip('/')}")
    loc.fs.create_dir(posixpath.dirname(path), recursive=True)
    pq.write_table(data, path, filesystem=loc.fs, compression="zstd", row_group_size=ROW_GROUP)


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
    ``<prefix>-<tx>-<n>.parquet``, new files of transaction ``tx`` (:class:`pipeline.commits.Transaction`), or
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

    def _flush(self) -> None:
        if not self.buf_rows:
            return
        if self.writer is None:
            import pyarrow.parquet as pq

            path = (self.tx.new_path(posixpath.join(self.folder, self.prefix)) if self.tx is not None
                    else posixpath.join(self.folder, f"{self.prefix}-{len(self.paths):05d}.parquet"))
            commits.step(f"write {path[len(self.loc.root):].lstrip('/')}")
            self.loc.fs.create_dir(self.folder, recursive=True)
            self.paths.append(path)
            self.sink = self.loc.fs.open_output_stream(path)
            self.writer = pq.ParquetWriter(self.sink, self.schema, compression="zstd")
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

    def close(self) -> list[str]:
        """Flush the last row group, close the file; the paths of every file written."""
        self._flush()
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
    part = schema.partition_columns(table)[0]
    name = _partition(table, part, value)
    folder = loc.path(table, name)
    sch = schema.schema(table)
    out_schema = sch.remove(sch.get_field_index(part))
    with commits.transaction(loc) as tx:
        old = _partition_files(loc, folder) if replace else []
        w = RollingWriter(loc, folder, out_schema, tx)
        try:
            for t in batches:
                if t.num_rows == 0:
                    continue
                if isinstance(t, pa.RecordBatch):
                    t = pa.Table.from_batches([t])
                w.write(schema.conform(table, t).drop_columns([part]))
            w.close()
        except BaseException:
            w._close_file()
            raise
        for p in old:
            tx.retire(p)
    return w.rows


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
