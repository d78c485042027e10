"""Crash-safe commits of the lake: every write is a transaction that readers see whole or not at all.

Why a record of our own rather than a table format: the lake stays plain hive-partitioned Parquet that DuckDB,
polars, pyarrow and Spark read as a folder (Delta Lake would need its log to be read, and has no unsigned
integer types), and what needs protecting is small: a file is never modified in place, so a transaction only
*adds* files and *retires* others. docs/architecture.md has the protocol in one picture.

The protocol, for a transaction ``T`` (a random 12-hex id):

1. ``_commit.json`` is written saying ``{"tx": T, "state": "pending"}`` before T writes anything;
2. every file T writes carries ``-T-`` in its name (Parquet ``part-…-T-3.parquet``; a small file such as
   ``_manifest.json`` is written as ``_manifest.json-T-tmp``), so readers can hide them all while T is pending;
3. the commit point: ``_commit.json`` is replaced (atomically) by ``{"state": "committed", "garbage": [the files
   T retires], "renames": {the small files' tmp names: final names}}``; readers now see T's files and hide the
   garbage;
4. the garbage is deleted, the small files renamed into place, empty folders removed, and ``_commit.json``
   deleted.

A writer killed anywhere leaves a record: the next writer (:func:`recover`, run by ``lake.lock``) rolls a
pending transaction back (deletes every file named with its id) and a committed one forward (steps 4 again;
each is idempotent). Every file-system change goes through :func:`step`, which fault-injection tests use to
stop a writer at each step in turn (tests/test_commit_faults.py).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import orjson
import pyarrow.fs as pafs

RECORD = "_commit.json"


class FaultInjected(BaseException):
    """Raised by :func:`step` when a test stops the writer there (a BaseException, as a kill is: no ``except
    Exception`` handler may turn it into a clean exit)."""


class LakeBusy(OSError):
    """Another writer's transaction is open on a lake that has no file lock (object storage). An OSError, so
    that every command reports it as it reports a storage failure: one line, exit 2."""


# -- fault injection -------------------------------------------------------------------------------------------

_hook: Callable[[str], None] | None = None


def _env_hook() -> Callable[[str], None] | None:
    """``REBELOTE_FAULT_AT=N``: the process dies (``os._exit(137)``, as under ``kill -9``) at its N-th step;
    ``REBELOTE_FAULT_TRACE=FILE``: each step's label is appended to FILE. For the subprocess fault tests."""
    at, trace = os.environ.get("REBELOTE_FAULT_AT"), os.environ.get("REBELOTE_FAULT_TRACE")
    if not at and not trace:
        return None
    count = [0]

    def hook(label: str) -> None:
        count[0] += 1
        if trace:
            with open(trace, "a") as fh:
                fh.write(label + "\n")
        if at and count[0] == int(at):
            os._exit(137)
    return hook


_hook = _env_hook()


def step(label: str) -> None:
    """Called before every change a lake write makes to the file system (``label`` says which)."""
    if _hook is not None:
        _hook(label)


@contextlib.contextmanager
def faults(hook: Callable[[str], None] | None) -> Iterator[None]:
    """Run with ``hook`` called at every step (a test raises :class:`FaultInjected` from it)."""
    global _hook
    old, _hook = _hook, hook
    try:
        yield
    finally:
        _hook = old


# -- the record ------------------------------------------------------------------------------------------------

def _rel(loc, path: str) -> str:
    return path[len(loc.root):].lstrip("/")


def _abs(loc, rel: str) -> str:
    return posixpath.join(loc.root, rel)


def read_record(loc) -> dict | None:
    """The lake's commit record, or None when no transaction is open or unfinished. An unreadable record
    (which the atomic write never leaves) reads as None."""
    try:
        with loc.fs.open_input_stream(_abs(loc, RECORD)) as fh:
            raw = fh.read()
    except (FileNotFoundError, OSError):
        return None
    try:
        rec = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("tx"), str) else None


def _put_record(loc, rec: dict, label: str) -> None:
    """Write the record whole or not at all (local: aside, fsync, rename; object storage: one put)."""
    step(label)
    data = orjson.dumps(rec, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    path = _abs(loc, RECORD)
    if loc.local:
        tmp = f"{path}.{uuid.uuid4().hex[:8]}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    else:
        with loc.fs.open_output_stream(path) as fh:
            fh.write(data)


def _clear_record(loc) -> None:
    step("clear record")
    with contextlib.suppress(FileNotFoundError):
        loc.fs.delete_file(_abs(loc, RECORD))


def tag(tx: str) -> str:
    """What every file of transaction ``tx`` has in its name."""
    return f"-{tx}-"


def _all_files(loc) -> list[str]:
    infos = loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=True, allow_not_found=True))
    return [f.path for f in infos if f.type == pafs.FileType.File]


def _delete(loc, path: str) -> None:
    step(f"delete {_rel(loc, path)}")
    with contextlib.suppress(FileNotFoundError):
        loc.fs.delete_file(path)


def _prune_dirs(loc, paths: list[str]) -> None:
    """Remove the folders of ``paths`` left empty (local disk; object storage has no folders)."""
    if not loc.local:
        return
    for d in sorted({posixpath.dirname(p) for p in paths}, key=len, reverse=True):
        while d.startswith(loc.root + "/") and os.path.isdir(d) and not os.listdir(d):
            step(f"rmdir {_rel(loc, d)}")
            with contextlib.suppress(OSError):
                os.rmdir(d)
            d = posixpath.dirname(d)


def roll_forward(loc, rec: dict) -> None:
    """Finish a committed transaction: delete its garbage, move its small files into place, drop the record."""
    garbage = [_abs(loc, g) for g in rec.get("garbage", [])]
    for path in garbage:
        _delete(loc, path)
    for tmp, final in sorted(rec.get("renames", {}).items()):
        tmp, final = _abs(loc, tmp), _abs(loc, final)
        if loc.fs.get_file_info(tmp).type == pafs.FileType.File:
            step(f"rename {_rel(loc, tmp)}")
            if loc.local:
                os.replace(tmp, final)
            else:
                loc.fs.move(tmp, final)
    _prune_dirs(loc, garbage)
    _clear_record(loc)


def roll_back(loc, tx: str) -> None:
    """Undo a pending transaction: delete every file named with its id, drop the record."""
    mine = [p for p in _all_files(loc) if tag(tx) in posixpath.basename(p)]
    for path in mine:
        _delete(loc, path)
    _prune_dirs(loc, mine)
    _clear_record(loc)


def recover(loc, force: bool = False) -> str | None:
    """Finish or undo the transaction an earlier writer left open (called under the lake lock, before any
    write). Returns what was done (``'rolled back'``, ``'rolled forward'``) or None. On a lake with no lock
    (object storage) a pending record may be a live writer: raises :class:`LakeBusy` naming it, unless
    ``force`` (the user says that writer is gone: ``rebelote recover``)."""
    rec = read_record(loc)
    if rec is None:
        return None
    if rec.get("state") == "committed":
        roll_forward(loc, rec)
        return "rolled forward"
    if not loc.local and not force:
        raise LakeBusy(f"lake {loc.uri}: another writer's transaction {rec['tx']} is open (started "
                       f"{rec.get('started', '?')} by process {rec.get('pid', '?')} on {rec.get('host', '?')}); "
                       "object storage has no lock, so one writer at a time. If that writer is no longer "
                       f"running, `rebelote recover --lake {loc.uri}` rolls its transaction back")
    roll_back(loc, rec["tx"])
    return "rolled back"


# -- transactions ----------------------------------------------------------------------------------------------

class Transaction:
    """One writer's changes to a lake, committed whole by :meth:`commit` (see the module docstring).

    ``removed``: paths retired so far (hidden from this process at once, deleted after the commit);
    ``renames``: small files written aside, tmp path -> final path. Thread-safe (ingest writes from a
    background thread)."""

    def __init__(self, loc):
        self.loc = loc
        self.id = uuid.uuid4().hex[:12]
        self.started = False
        self.removed: set[str] = set()
        self.renames: dict[str, str] = {}
        self._seq = 0
        self._mutex = threading.RLock()

    def _begin(self) -> None:
        if not self.started:
            _put_record(self.loc, {"format": 1, "tx": self.id, "state": "pending", "pid": os.getpid(),
                                   "host": socket.gethostname(),
                                   "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
                        "begin")
            self.started = True

    def owns(self, path: str) -> bool:
        return tag(self.id) in posixpath.basename(path)

    def new_path(self, stem: str, ext: str = ".parquet") -> str:
        """A fresh path for a file of this transaction: ``stem-<id>-<n><ext>`` (``stem`` a path in the lake)."""
        with self._mutex:
            self._begin()
            self._seq += 1
            return f"{stem}{tag(self.id)}{self._seq:05d}{ext}"   # padded: files sort in writing order

    def blob_path(self, final: str) -> str:
        """Where a small file (``_manifest.json``) is written until the commit moves it to ``final``."""
        with self._mutex:
            self._begin()
            tmp = f"{final}{tag(self.id)}tmp"
            self.renames[tmp] = final
            self.removed.discard(final)
            return tmp

    def retire(self, path: str) -> None:
        """Retire ``path``: hidden from now on in this process, deleted once committed. A file this transaction
        wrote itself is deleted at once (no reader has seen it)."""
        with self._mutex:
            self._begin()
            if self.owns(path):
                for tmp, final in list(self.renames.items()):
                    if tmp == path:
                        del self.renames[tmp]
                _delete(self.loc, path)
                return
            self.removed.add(path)
            for tmp, final in list(self.renames.items()):
                if final == path:
                    del self.renames[tmp]
                    _delete(self.loc, tmp)

    def commit(self) -> None:
        """The commit point, then the clean-up (:func:`roll_forward`). On object storage, raises LakeBusy when
        another writer replaced the record meanwhile (nothing of this transaction is then visible)."""
        if not self.started:
            return
        if not self.loc.local:
            rec = read_record(self.loc)
            if rec is None or rec.get("tx") != self.id:
                raise LakeBusy(f"lake {self.loc.uri}: another writer took over during this write; nothing of it "
                               "was committed (object storage has no lock: run one writer at a time)")
        rec = {"format": 1, "tx": self.id, "state": "committed",
               "garbage": sorted(_rel(self.loc, p) for p in self.removed),
               "renames": {_rel(self.loc, t): _rel(self.loc, f) for t, f in sorted(self.renames.items())}}
        _put_record(self.loc, rec, "commit")
        roll_forward(self.loc, rec)

    def abort(self) -> None:
        """Undo everything (a failed write): the lake reads as before."""
        if self.started:
            roll_back(self.loc, self.id)

    # -- what readers see --------------------------------------------------------------------------------------

    def hidden(self, path: str) -> bool:
        return path in self.removed

    def blob_source(self, final: str) -> str | None:
        with self._mutex:
            for tmp, f in self.renames.items():
                if f == final:
                    return tmp
            return None if final in self.removed else final


_active: dict[str, Transaction] = {}
_active_mutex = threading.Lock()


def active(loc) -> Transaction | None:
    """The transaction this process has open on the lake, if any."""
    return _active.get(loc.root)


@contextlib.contextmanager
def transaction(loc) -> Iterator[Transaction]:
    """The transaction of a write: the one this process has open on the lake (``lake.lock``), or a new one
    committed when the block ends (a write outside any lock) and rolled back if it raises."""
    tx = _active.get(loc.root)
    if tx is not None:
        yield tx
        return
    tx = Transaction(loc)
    with _active_mutex:
        _active[loc.root] = tx
    try:
        yield tx
    except BaseException as e:
        _active.pop(loc.root, None)
        if not isinstance(e, FaultInjected):     # a killed writer undoes nothing: recover() does, later
            with contextlib.suppress(Exception):
                tx.abort()
        raise
    _active.pop(loc.root, None)
    tx.commit()


class Visibility:
    """Which files of the lake a reader sees: decided once per listing from the process's own transaction or
    the commit record. ``hidden(path)``: True for a file of a pending transaction or a retired one."""

    def __init__(self, loc):
        self.tx = active(loc)
        self.rec = None if self.tx is not None else read_record(loc)
        self.loc = loc
        if self.rec is not None and self.rec.get("state") == "committed":
            self.garbage = {_abs(loc, g) for g in self.rec.get("garbage", [])}
            self.renames = {_abs(loc, f): _abs(loc, t) for t, f in self.rec.get("renames", {}).items()}
        else:
            self.garbage, self.renames = set(), {}

    def hidden(self, path: str) -> bool:
        if self.tx is not None:
            return self.tx.hidden(path)
        if self.rec is None:
            return False
        if self.rec.get("state") == "committed":
            return path in self.garbage
        return tag(self.rec["tx"]) in posixpath.basename(path)

    def blob_source(self, final: str) -> str | None:
        """The path to read the small file ``final`` from (None: removed by the visible transaction)."""
        if self.tx is not None:
            return self.tx.blob_source(final)
        if final in self.garbage:
            return None
        tmp = self.renames.get(final)
        if tmp is not None and self.loc.fs.get_file_info(tmp).type == pafs.FileType.File:
            return tmp
        return final
