"""The files an ingest reads: which files a path names, how each is opened (gzip or plain, CR line ends,
held to the reading limits), its numbered lines, and the manifest's record of each file read (size, time,
reader, content hash), by which an unchanged file is skipped on the next run."""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import orjson

from pipeline import limits

from pipeline.storage import lake as lakemod
from pipeline.ingest import fast_native, line_ends
from pipeline.formats.records import Line, Provenance, Reject

HEAD_BYTES = 65536


class NotRegularFileError(OSError):
    """A path named on the command line that exists but is neither a regular file nor a folder."""


def walk(paths: list[Path]) -> Iterator[Path]:
    """Files under the given paths (folders recursively; a folder's own files before its subfolders', each
    sorted by name; hidden files skipped). Top-level files first means an index such as OpenSpiel's
    histories.jsonl is read before the per-deal files that repeat it. Raises FileNotFoundError for a named path
    that does not exist, NotRegularFileError for one that is a pipe, socket or device (a folder's are skipped)."""
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*"), key=lambda f: (len(f.relative_to(p).parts), str(f))):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    yield f
        elif p.is_file():
            yield p
        elif p.exists():     # a pipe (``<(zcat f.gz)``), socket or device: read twice, it would be empty (no_records)
            raise NotRegularFileError(f"{p}: not a regular file (a pipe, socket or device): the ingest reads a file "
                                      "twice (detection, then import) and records its size and content hash; save "
                                      "it to a file first")
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")


def open_stream(path: Path):
    with path.open("rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")


def text_head(path: Path, head: bytes) -> tuple[bytes, int, bool]:
    """The first :data:`HEAD_BYTES` of ``path`` from its first byte that is not white space, given its first bytes
    ``head`` (decompressed); how many bytes of white space come before them; and whether the file was read to
    its end. A file whose first 64 KiB are blank lines or spaces may still hold records further on: it is read
    on, within the run's limits, rather than called empty. ``(b'', n, True)``: nothing but ``n`` bytes of white
    space; ``(b'', n, False)``: white space up to a damaged part, which reading the file then reports.

    Raises :class:`pipeline.limits.LimitExceeded` when the white space alone passes a limit (a gzip bomb of spaces)."""
    if head.strip() or len(head) < HEAD_BYTES:
        blank = len(head) - len(head.lstrip()) if head.strip() else len(head)
        return head[blank:], blank, not head.strip()
    stream = open_stream(path)
    blank = 0
    with limits.Bounded(stream, limits.active(), path.stat().st_size, isinstance(stream, gzip.GzipFile)) as fh:
        try:
            while chunk := fh.read(1 << 20):
                text = chunk.lstrip()
                if text:
                    blank += len(chunk) - len(text)
                    return (text + fh.read(max(0, HEAD_BYTES - len(text))))[:HEAD_BYTES], blank, False
                blank += len(chunk)
        except (OSError, EOFError, zlib.error):     # a damaged gzip after its blank start
            return b"", blank, False
        finally:
            stream.close()
    return b"", blank, True


def blank_file_reject(path: Path, reader: str | None, blank: int) -> Reject:
    """The reject for a file with no record at all: empty, or ``blank`` bytes of white space only."""
    reason = ("file is empty: no records" if blank == 0
              else f"file holds only white space ({blank:,} bytes, blank lines or spaces): no records")
    return Reject(Provenance(reader, str(path)), "empty_file", reason, "")


def readable_head(path: Path) -> bytes:
    """As much of the start of a damaged (e.g. truncated gzip) file as decompresses, up to HEAD_BYTES."""
    out = b""
    try:
        with open_stream(path) as fh:
            while len(out) < HEAD_BYTES:
                chunk = fh.read(4096)
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError, zlib.error):
        pass
    return out[:HEAD_BYTES]


def numbered_lines(binary, raw_bad: bool = False) -> Iterator[Line]:
    """(line number, byte offset, text) per line of ``binary``; a line that is not UTF-8 gives None, or its bytes
    with ``raw_bad`` (the native reader names the game they still show)."""
    offset = 0
    for i, raw in enumerate(binary, start=1):
        try:
            text: str | bytes | None = raw.decode("utf-8")
            if i == 1:
                text = text.removeprefix("\ufeff")   # a byte-order mark is not content
        except UnicodeDecodeError:
            text = raw if raw_bad else None
        yield i, offset, text
        offset += len(raw)


def physical_name(path: Path) -> str:
    """The name of a file that ingest reads, as the manifest keys it and the ``ingest_file`` column records
    it: the absolute path, symbolic links resolved."""
    return str(Path(path).resolve())


MANIFEST = "_manifest.json"


def load_manifest(lake) -> dict:
    data = lakemod.read_bytes(lake, MANIFEST)
    try:
        return orjson.loads(data) if data else {}
    except orjson.JSONDecodeError:
        return {}


def stamp(path: Path, fmt: str) -> list:
    """The manifest's record of a file: [size, modification time (ns), reader asked for]; the content hash is
    appended once the file is read (see :func:`content_hash`)."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, fmt]


def sidecar_record(path: Path, reader) -> list:
    """The manifest's record of the files beside ``path`` that its reader also reads (``reader.SIDECARS``: file
    names, e.g. colver's ``games.jsonl``): ``[{path: content hash or None when absent}]``, or ``[]`` when the
    reader has none. A changed sidecar makes the file "changed" on the next run, so what it decided (a game
    rejected for disagreeing with it) is decided again."""
    names = getattr(reader, "SIDECARS", ())
    if not names:
        return []
    return [{str(path.parent / n): (content_hash(path.parent / n) if (path.parent / n).is_file() else None)
             for n in names}]


def sidecars_unchanged(prev: list) -> bool:
    """Whether the sidecars recorded in a manifest entry (see :func:`sidecar_record`) still hold the same bytes."""
    if len(prev) < 5:
        return True
    return all((content_hash(Path(p)) if Path(p).is_file() else None) == h for p, h in prev[4].items())


_HASH_THREAD_BYTES = 8 << 20     # files from this size on are hashed on a thread (hash_later)


def hash_later(path: Path) -> Future:
    """:func:`content_hash` of ``path`` computed on a thread (hashlib releases the GIL on large reads, so it
    overlaps the reading of the file); a file under 8 MB is hashed here at once (a thread per small file costs
    more than the hash)."""
    try:
        small = path.stat().st_size < _HASH_THREAD_BYTES
    except OSError:
        small = True        # the hash raises the error where the caller reads the future
    if small:
        done: Future = Future()
        try:
            done.set_result(content_hash(path))
        except OSError as e:
            done.set_exception(e)
        return done
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebelote-hash")
    try:
        return pool.submit(content_hash, path)
    finally:
        pool.shutdown(wait=False)


def content_hash(path: Path) -> str:
    """SHA-256 of the file's bytes (as stored, compressed or not), for the manifest: a file touched but not
    changed (copied back, restored from a backup) is recognised as unchanged without being parsed."""
    import hashlib
    h = hashlib.sha256()
    with path.open("rb", buffering=0) as f:
        # 16 MB reads: hashlib releases the GIL while it hashes one, so on a thread (hash_later) a few reads
        # leave the GIL to the main thread most of the time; a smaller file gets a buffer of its size, not 16 MB
        buf = bytearray(max(1, min(16 << 20, os.fstat(f.fileno()).st_size + 1)))
        view = memoryview(buf)
        while n := f.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def utf16_without_bom(head: bytes) -> str | None:
    """`` (little-endian, no byte-order mark)`` (or big-endian) when a file's first bytes ``head`` are UTF-16 text
    without a BOM: in their first 512 bytes every byte at odd (even) offsets is 0, and none at the others, as
    ASCII text reads in UTF-16 (UTF-8 text holds no 0 byte). None otherwise."""
    sample = head[:512]
    sample = sample[:len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) == len(odd) and 0 not in even:
        return " (little-endian, no byte-order mark)"
    if even.count(0) == len(even) and 0 not in odd:
        return " (big-endian, no byte-order mark)"
    return None


def cr_line_ends(path: Path, head: bytes) -> bool:
    """Whether the lines of ``path`` (whose first bytes, decompressed, are ``head``) end in CR alone
    (:func:`pipeline.ingest.line_ends.cr_only`); a file longer than ``head`` is opened again to read on past it
    when that is needed. False when the file cannot be read further (reading it will then say why)."""
    if len(head) < HEAD_BYTES or b"\n" in head:
        return line_ends.cr_only(head)
    try:
        with open_stream(path) as fh:
            return line_ends.cr_only(fh.read(HEAD_BYTES), fh)
    except (OSError, EOFError, zlib.error):
        return False


def bounded(path: Path, cr_lines: bool, bounds: limits.Limits):
    """The stream a reader reads of ``path``, held to ``bounds`` (:class:`pipeline.limits.Bounded`): a gzip
    or CR-translated file as a bounded stream; a plain file as itself when the columnar native reader may read it
    by ``pread`` (which applies the limits itself), else bounded too."""
    stored = open_stream(path)
    compressed = isinstance(stored, gzip.GzipFile)
    fh = line_ends.as_lf(stored) if cr_lines else stored
    if not (compressed or cr_lines) and fast_native.enabled():
        # the row readers iterate it: bounded; the columnar reader checks `stream_only` and preads
        return limits.Bounded(fh, bounds, path.stat().st_size, False, plain=fh)
    return limits.Bounded(fh, bounds, path.stat().st_size, compressed)


def same_file(recorded: str, path: Path) -> bool:
    """Whether a lake row's ``source_file`` names ``path`` (as given then, relative to the current folder)."""
    try:
        return recorded == str(path) or Path(recorded).resolve() == path.resolve()
    except OSError:
        return False

