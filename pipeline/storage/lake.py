"""The Parquet lake: hive-partitioned tables under one folder or object-storage prefix, written with zstd.

Layout (``schemas/<table>.toml`` gives each table's partition column)::

    LAKE/hands/source=<source>/part-<hash>-<tx>-<n>.parquet
    LAKE/games/source=<source>/part-<hash>-<tx>-<n>.parquet
    LAKE/rejects/part-<hash>-<tx>-<n>.parquet
    LAKE/scores/ruleset=<name>/part-<tx>-<n>.parquet   (and _ruleset.json)
    LAKE/_manifest.json                                 (the files ingest has read)

This module says where a lake is (:func:`locate`), locks it, keeps its layout version and reads it; the writes
are :mod:`pipeline.storage.lake_write`'s. Appends are idempotent: rows whose key (hand_key, game_key, reject_key) is
already in the lake are skipped by ingest. Rescoring replaces its ruleset's partition;
:mod:`pipeline.maintenance.compaction` rewrites a partition's many small files into few large ones.

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
import os
import posixpath
import warnings
from urllib.parse import unquote
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.fs as pafs

from pipeline import names

from pipeline.storage import commits

from pipeline.storage import schema
from pipeline.catalog import DEFAULT_LAKE  # noqa: F401  (re-exported: lake.DEFAULT_LAKE)
from pipeline.storage.commits import FaultInjected, LakeBusy  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    import pyarrow.dataset as ds

# pyarrow.dataset (which imports pandas), pyarrow.compute and pyarrow.parquet are imported by the
# functions that use them, so that a command which only lists the lake's files (every `rebelote stats`) starts
# without them.

KEYS = {"hands": "hand_key", "games": "game_key", "rejects": "reject_key"}
NAME_COLUMNS = {"holdings": ("ingest_file", "hand_key", "copy")}
"""Tables appended without a unique key: the columns whose content names each file written (see :func:`append`)."""
#: The lake's layout version, recorded in :data:`VERSION_FILE` by the first write. A lake written before the
#: record existed is version 1; :mod:`pipeline.maintenance.migrate` brings an older lake to this one, and a writer refuses a
#: lake of another version (:class:`LakeVersionError`) rather than guess how to read its files.
LAKE_VERSION = 10
VERSION_FILE = "_lake.json"
ROW_GROUP = 1_000_000                 # rows per Parquet row group (the scan unit)
FILE_BYTES = 200 * 1024 * 1024        # a written file is closed once it reaches about this size (target 100-250 MB)
BUFFER_BYTES = 256 * 1024 * 1024      # a row group is also flushed once its Arrow rows hold this much memory
READ_BUFFER = 1 << 20                # bytes read at a time from a local Parquet file by iter_positioned


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
    transaction (:mod:`pipeline.storage.commits`): what the block writes is committed when it ends and rolled back if
    it raises, so readers see the lake as before or as after. A second writer waits for the first; a writer
    left unfinished by a crash is rolled back or forward first (:func:`pipeline.storage.commits.recover`).

    On a non-local lake (object storage) there is no lock: a :class:`LakeWarning` is issued once per lake,
    and a transaction of another writer still open there raises :class:`LakeBusy`. Raises OSError (e.g.
    NotADirectoryError, PermissionError) when a local lake cannot be created or written. ``recover=False``:
    leave an unfinished write to the caller (``rebelote recover``). A lake of another layout version raises
    :class:`LakeVersionError` before anything is written (``migrating=True``: :mod:`pipeline.maintenance.migrate`, which
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
    if _foreign_folder(root):
        raise FileExistsError(17, "a folder of other files, not a lake (no _lake.json, no table folder): give "
                                  "--lake a new or empty folder, or an existing lake", loc.uri)
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


def _foreign_folder(root: Path) -> bool:
    """A local folder that holds files of its own and no lake: a writer would put the lake's folders beside the
    user's files (``ingest records/ --lake records``). A lake's own names start with ``_`` or ``.``. Checked on
    local folders only: listing an object-storage prefix to find other objects is left to the user."""
    if not root.is_dir() or (root / VERSION_FILE).exists() or any((root / t).is_dir() for t in schema.TABLES):
        return False
    return any(not p.name.startswith(("_", ".")) for p in root.iterdir())


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


def require_current(lake: str | Path | Location) -> None:
    """Refuse to read a lake of another layout version: its files may lack what the readers expect, and
    :mod:`pipeline.maintenance.migrate` (not a fallback in each reader) brings it to this one. An empty or absent lake
    passes. Raises :class:`LakeVersionError` naming the command to run."""
    loc = locate(lake)
    v = version(loc)
    if v > LAKE_VERSION:
        raise LakeVersionError(f"the lake {loc.uri} has layout version {v}, written by a newer Rebelote; this one "
                               f"reads version {LAKE_VERSION}: upgrade Rebelote to read it")
    if v < LAKE_VERSION:
        raise LakeVersionError(f"the lake {loc.uri} has layout version {v}, older than this Rebelote's "
                               f"{LAKE_VERSION}: run `rebelote migrate --lake {loc.uri}` once, then read it")


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


def exists(lake: str | Path | Location) -> bool:
    """True when the lake's root folder exists (on object storage: when anything is stored under it)."""
    loc = locate(lake)
    info = loc.fs.get_file_info(loc.root)
    if info.type == pafs.FileType.Directory:
        return True
    if info.type == pafs.FileType.NotFound and not loc.local:
        return bool(loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=False, allow_not_found=True)))
    return False


def unreadable(lake: str | Path | Location) -> str | None:
    """Why a reader cannot read ``lake`` as a lake, said with what to do: not there (ingest makes it), a file, or
    a local folder of other files; None when it can."""
    loc = locate(lake)
    if loc.fs.get_file_info(loc.root).type == pafs.FileType.File:
        return (f"--lake names a file, not a lake folder: {lake} (a lake is the folder `rebelote ingest` writes; "
                "name it with --lake DIR or $REBELOTE_LAKE)")
    if not exists(loc):
        return (f"lake folder not found: {lake} (import records first with `rebelote ingest FILES... --lake "
                f"{lake}`, or name another lake with --lake DIR or $REBELOTE_LAKE)")
    if loc.local and _foreign_folder(Path(loc.root)):
        return (f"{lake} is a folder of other files, not a lake (no _lake.json, no table folder): name the lake "
                "with --lake DIR or $REBELOTE_LAKE")
    return None


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

    Memory is bounded by one row group of one file (a pyarrow dataset scanner, reading ahead across files,
    held more: docs/scale.md). With ``filter`` (a pyarrow expression) the
    dataset scanner is used instead."""
    if not has_table(lake, table):
        return
    if filter is not None:
        yield from dataset(lake, table).to_batches(batch_size=batch_size, columns=columns, filter=filter,
                                                   batch_readahead=2, fragment_readahead=1)
        return
    for _, _, b in iter_positioned(lake, table, batch_size, columns):
        yield b


def iter_positioned(lake: str | Path | Location, table: str, batch_size: int = 262_144,
                    columns: list[str] | None = None) -> Iterator[tuple[int, int, pa.RecordBatch]]:
    """:func:`iter_batches` without a filter, each batch with where it comes from: (the file's index in the
    table's files sorted by path, the batch's first row in that file, the batch)."""
    import pyarrow.parquet as pq

    if not has_table(lake, table):
        return
    loc = locate(lake)
    sch = schema.schema(table)
    want = pa.schema([sch.field(c) for c in (columns or sch.names)])
    for i, f in enumerate(list_files(loc, table)):
        parts = _hive_values(loc, table, f.path)
        with loc.fs.open_input_file(f.path) as fh:
            # on a local disk, pages are read as decoded rather than a whole row group's column chunks first
            # (pre_buffer): the reading then holds about one batch, whatever the row groups' size; object
            # storage keeps pre_buffer, which coalesces its requests
            pf = (pq.ParquetFile(fh, pre_buffer=False, buffer_size=READ_BUFFER) if loc.local
                  else pq.ParquetFile(fh))
            present = set(pf.schema_arrow.names)
            read = [c for c in want.names if c in present and c not in parts]
            row = 0
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
                yield i, row, pa.RecordBatch.from_arrays(cols, schema=want)
                row += n


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
    of the write's transaction: written aside, moved into place once committed (:mod:`pipeline.storage.commits`)."""
    loc = locate(lake)
    path = loc.path(name)
    with commits.transaction(loc) as tx:
        tmp = tx.blob_path(path)
        commits.step(f"write {name}")
        loc.fs.create_dir(posixpath.dirname(path), recursive=True)
        with loc.fs.open_output_stream(tmp) as f:
            f.write(data)


