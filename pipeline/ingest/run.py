"""The ingest driver: walk paths, detect formats, read, validate, deduplicate and write the lake.

This is the one place that decides what an error does: every Reject goes to the ``rejects`` table
(and, under ``strict``, stops the run with :class:`StrictError`). Files no reader recognises are
reported in the summary, never guessed.
"""

from __future__ import annotations

import gzip
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pyarrow as pa

from pipeline import ingest, lake as lakemod, schema
from pipeline.ingest.records import GameRecord, Line, Provenance, Reject

HEAD_BYTES = 65536
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
FLUSH_HANDS = 50_000


class StrictError(RuntimeError):
    """Raised under --strict at the first rejected record; the message names file, line, game, hand."""


@dataclass
class IngestSummary:
    """Counts of one ingest run; ``str()`` is the one-line summary."""

    files: int = 0
    games: int = 0
    hands: int = 0
    duplicates: int = 0
    rejected: Counter = field(default_factory=Counter)
    unrecognised: list[str] = field(default_factory=list)
    formats: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    bytes: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        rej = sum(self.rejected.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.rejected.items()))
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        s = (f"ingest: {self.files} files, {self.games} games, {self.hands} hands, {self.duplicates} duplicates skipped, "
             f"{rej} rejected{f' ({by})' if by else ''}, {self.seconds:.2f} s, {rate:,.0f} hands/s")
        if self.unrecognised:
            s += f"; {len(self.unrecognised)} file{'s' if len(self.unrecognised) != 1 else ''} not recognised"
        if self.unchanged:
            s += f"; {self.unchanged} unchanged file{'s' if self.unchanged != 1 else ''} skipped"
        return s


def walk(paths: list[Path]) -> Iterator[Path]:
    """Files under the given paths (folders recursively; a folder's own files before its subfolders', each
    sorted by name; hidden files skipped). Top-level files first means an index such as OpenSpiel's
    histories.jsonl is read before the per-deal files that repeat it."""
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*"), key=lambda f: (len(f.relative_to(p).parts), str(f))):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    yield f
        elif p.exists():
            yield p
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")


def _open(path: Path):
    with path.open("rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")


def _readable_head(path: Path) -> bytes:
    """As much of the start of a damaged (e.g. truncated gzip) file as decompresses, up to HEAD_BYTES."""
    out = b""
    try:
        with _open(path) as fh:
            while len(out) < HEAD_BYTES:
                chunk = fh.read(4096)
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError, zlib.error):
        pass
    return out[:HEAD_BYTES]


def _lines(binary) -> Iterator[Line]:
    offset = 0
    for i, raw in enumerate(binary, start=1):
        try:
            text: str | None = raw.decode("utf-8")
            if i == 1:
                text = text.removeprefix("\ufeff")   # a byte-order mark is not content
        except UnicodeDecodeError:
            text = None
        yield i, offset, text
        offset += len(raw)


class _Writer:
    """Buffers rows and appends them to the lake, skipping keys already present."""

    def __init__(self, lake: Path, summary: IngestSummary):
        self.lake = lakemod.locate(lake)
        self.summary = summary
        self.keys = {t: lakemod.existing_keys(self.lake, t) for t in ("hands", "games", "rejects")}
        self.buf: dict[str, list[dict]] = {"hands": [], "games": [], "rejects": []}
        games = lakemod.read(self.lake, "games", columns=["game_id", "game_key", "source_file"]).to_pylist()
        self.game_ids = {g["game_id"]: (g["game_key"], g["source_file"]) for g in games}

    def conflict(self, rec: GameRecord) -> Reject | None:
        """A game whose id is already in the lake with other content (the same game from another file or format,
        or an edited file): it is not imported a second time; the reject says where the first one came from."""
        gid = rec.game["game_id"]
        seen = self.game_ids.get(gid)
        if seen is None or seen[0] == rec.game["game_key"]:
            return None
        return Reject(rec.where, "duplicate_game_id",
                      f"game {gid} is already in the lake with other content (imported from {seen[1]}); "
                      "not imported twice", "", gid)

    def check(self, rec: GameRecord) -> Reject | None:
        """Checks shared by every reader, on the finished rows: a safe source name (it becomes a folder),
        values that fit the schema, hand numbers 1..n without repeats, at least one hand."""
        gid = rec.game.get("game_id")

        def rej(code: str, reason: str, hand_no=None) -> Reject:
            return Reject(rec.where, code, reason, "", gid, hand_no)
        source = rec.game.get("source")
        if not isinstance(source, str) or not _SAFE_NAME.match(source):
            return rej("bad_source", f"source {source!r} is not a plain name (letters, digits, '.', '_', '-'; "
                                     "it names a lake folder)")
        if not rec.hands:
            return rej("no_hands", "the game has no hands")
        err = schema.check_row("games", rec.game)
        if err:
            return rej("bad_value", err)
        numbers = [h.get("hand_no") for h in rec.hands]
        if len(set(numbers)) != len(numbers):
            dup = next(x for x in numbers if numbers.count(x) > 1)
            return rej("duplicate_hand_no", f"hand number {dup} appears twice", dup)
        for h in rec.hands:
            err = schema.check_row("hands", h)
            if err:
                return rej("bad_value", err, h.get("hand_no"))
        return None

    def add_game(self, rec: GameRecord) -> None:
        self.game_ids.setdefault(rec.game["game_id"], (rec.game["game_key"], rec.game["source_file"]))
        new = [h for h in rec.hands if h["hand_key"] not in self.keys["hands"]]
        self.summary.duplicates += len(rec.hands) - len(new)
        for h in new:
            self.keys["hands"].add(h["hand_key"])
        self.buf["hands"].extend(new)
        self.summary.hands += len(new)
        if rec.game["game_key"] not in self.keys["games"]:
            self.keys["games"].add(rec.game["game_key"])
            self.buf["games"].append(rec.game)
            self.summary.games += 1
        if len(self.buf["hands"]) >= FLUSH_HANDS:
            self.flush()

    def add_reject(self, rej: Reject) -> None:
        row = rej.row()
        self.summary.rejected[rej.code] += 1
        if row["reject_key"] not in self.keys["rejects"]:
            self.keys["rejects"].add(row["reject_key"])
            self.buf["rejects"].append(row)

    def flush(self) -> None:
        for table, rows in self.buf.items():
            if rows:
                lakemod.append(self.lake, table, pa.Table.from_pylist(rows, schema=schema.schema(table)))
        self.buf = {t: [] for t in self.buf}


MANIFEST = "_manifest.json"


def _load_manifest(lake) -> dict:
    data = lakemod.read_bytes(lake, MANIFEST)
    try:
        return orjson.loads(data) if data else {}
    except orjson.JSONDecodeError:
        return {}


def _stamp(path: Path, fmt: str) -> list:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, fmt]


def ingest_paths(paths: list[Path], lake: Path, fmt: str | None = None, strict: bool = False,
                 on_reject: Callable[[Reject], None] | None = None,
                 on_file: Callable[[Path, str | None], None] | None = None, reread: bool = False) -> IngestSummary:
    """Import every file under ``paths`` into ``lake`` (a folder or URL, see :func:`pipeline.lake.locate`).

    Args:
        fmt: force this reader (name from :func:`pipeline.ingest.names`) instead of detection.
        strict: raise :class:`StrictError` at the first reject (rows read before it are not written).
        reread: read every file even when the lake's manifest (``_manifest.json``: path, size, modification
            time and reader of each file read before) says it is unchanged; by default unchanged files are
            skipped without being opened.
        on_reject: called with each Reject (the CLI prints them).
        on_file: called with each file and the reader chosen (None: not recognised).
    Raises:
        FileNotFoundError for a missing path; KeyError for an unknown ``fmt``; StrictError.
    """
    with lakemod.lock(lake):
        return _ingest(paths, lake, fmt, strict, on_reject, on_file, reread)


def _ingest(paths, lake, fmt, strict, on_reject, on_file, reread=False) -> IngestSummary:
    t0 = time.perf_counter()
    summary = IngestSummary()
    writer = _Writer(lake, summary)
    forced = ingest.get(fmt) if fmt else None
    manifest = _load_manifest(lake)
    for path in walk(paths):
        summary.files += 1
        key = str(path.resolve())
        if not reread and manifest.get(key) == _stamp(path, fmt or "auto"):
            summary.unchanged += 1
            continue
        try:
            with _open(path) as fh:
                head_bytes = fh.read(HEAD_BYTES)
        except (OSError, EOFError, zlib.error) as e:
            # a gzip cut short may still start with readable records: read what can be read
            head_bytes = _readable_head(path)
            if not head_bytes:
                _file_reject(path, fmt, "unreadable_file", f"cannot read the file ({e})", writer, strict, on_reject)
                if on_file:
                    on_file(path, None)
                continue
        if head_bytes[:2] in (b"\xff\xfe", b"\xfe\xff"):
            _file_reject(path, fmt, "bad_encoding", "the file is UTF-16 text; convert it to UTF-8", writer, strict,
                         on_reject)
            if on_file:
                on_file(path, None)
            continue
        head = head_bytes.decode("utf-8", errors="replace").removeprefix("\ufeff")
        if not head_bytes.strip():
            rej = empty_file_reject(path, fmt)
            if strict:
                raise StrictError(rej.message())
            writer.add_reject(rej)
            if on_reject:
                on_reject(rej)
            continue
        reader = forced or ingest.detect(path.name, head)
        if on_file:
            on_file(path, reader.NAME if reader else None)
        if reader is None:
            summary.unrecognised.append(str(path))
            continue
        summary.formats[reader.NAME] += 1
        summary.bytes += path.stat().st_size
        stamp = _stamp(path, fmt or "auto")
        try:
            _read_file(path, reader, writer, strict, on_reject)
        except StrictError:
            raise
        except (OSError, EOFError, zlib.error) as e:
            _file_reject(path, reader.NAME, "unreadable_file", f"cannot read the file ({e}); records after the "
                         "point of failure are not imported", writer, strict, on_reject)
        except Exception as e:  # a reader bug must not lose the batch; the reject keeps the evidence
            _file_reject(path, reader.NAME, "reader_error", f"the {reader.NAME} reader failed on this file: "
                         f"{type(e).__name__}: {e}", writer, strict, on_reject)
        else:
            manifest[key] = stamp
    writer.flush()
    lakemod.write_bytes(lake, MANIFEST, orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS))
    summary.seconds = time.perf_counter() - t0
    return summary


def _file_reject(path: Path, fmt: str | None, code: str, reason: str, writer: "_Writer", strict: bool,
                 on_reject) -> None:
    rej = Reject(Provenance(fmt, str(path)), code, reason, "")
    if strict:
        raise StrictError(rej.message())
    writer.add_reject(rej)
    if on_reject:
        on_reject(rej)


def _read_file(path: Path, reader, writer: "_Writer", strict: bool, on_reject) -> None:
    """Feed one file through its reader; every reject goes to the writer (or stops the run under strict)."""
    def reject(rej: Reject) -> None:
        if strict:
            raise StrictError(rej.message())
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)

    with _open(path) as fh:
        for rec in reader.read(_lines(fh), str(path)):
            if isinstance(rec, Reject):
                reject(rec)
                continue
            rej = writer.check(rec) or writer.conflict(rec)
            if rej is None:
                writer.add_game(rec)
            else:
                reject(rej)


def empty_file_reject(path: Path, reader: str | None) -> Reject:
    """The reject for a file with no record at all."""
    return Reject(Provenance(reader, str(path)), "empty_file", "file is empty: no records", "")
