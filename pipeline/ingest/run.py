"""The ingest driver: walk paths, detect formats, read, validate, deduplicate and write the lake.

This is the one place that decides what an error does: every Reject goes to the ``rejects`` table
(and, under ``strict``, stops the run with :class:`StrictError`). Files no reader recognises are
reported in the summary, never guessed.
"""

from __future__ import annotations

import contextlib
import os
import time
import zlib
from collections import Counter
from concurrent.futures import Future, wait as futures_wait
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from pipeline import formats
from pipeline.storage import lake as lakemod
from pipeline.formats import content_keys, native_jsonl, validate
from pipeline.ingest import archives, fast_native, holdings, input_files, native_columns, takeover
from pipeline import limits
from pipeline.formats import lenient as leniency
from pipeline.ingest.copy_checks import SAME_GAME
from pipeline.formats.records import GameRecord, Notice, Provenance, Reject
from pipeline.ingest.summary import DOCUMENTATION, IngestSummary, StrictError
from pipeline.ingest.writer import Writer
from pipeline.words import count

PROGRESS_BYTES = 1 << 20    # the progress callback is called each time this many more bytes were read


SET_ASIDE_CODES = {"duplicate_game_id", "conflicting_copy"}
"""Rejects of a game only because another file's version came first: its file still holds it (holdings)."""


def ingest_paths(paths: list[Path], lake: Path, fmt: str | None = None, strict: bool = False,
                 on_reject: Callable[[Reject], None] | None = None,
                 on_file: Callable[[Path, str | None], None] | None = None, reread: bool = False,
                 lenient: bool = False, on_repair: Callable[["leniency.Repair"], None] | None = None,
                 on_notice: Callable[[str], None] | None = None, prune: bool = False,
                 bounds: limits.Limits = limits.DEFAULT,
                 on_bytes: Callable[[int], None] | None = None) -> IngestSummary:
    """Import every file under ``paths`` into ``lake`` (a folder or URL, see :func:`pipeline.storage.lake.locate`).

    Nothing is lost: a file imported before from inside a folder of ``paths`` and now gone from it keeps its
    games, hands and rejects in the lake (a notice names it and the summary counts it) unless ``prune``; a hand
    that leaves the lake because its file no longer holds it (edited, or gone and pruned) is taken over by
    another imported file that still holds a copy, which is read again (:mod:`pipeline.ingest.takeover`).

    A file no reader recognises is skipped and listed in the summary's ``unrecognised``; when ``paths`` names it
    (not met inside a folder) it is listed in ``unrecognised_named`` too, which the CLI turns into exit status 1.

    Args:
        fmt: force this reader (name from :func:`pipeline.formats.names`) instead of detection.
        strict: raise :class:`StrictError` at the first reject (rows read before it are not written).
        lenient: keep a hand that fails a check at the completeness its data still supports, with the reason
            in its ``errors`` (:mod:`pipeline.formats.lenient`); what cannot be kept honestly is still rejected.
        on_repair: called with each hand kept that way (the CLI prints them).
        prune: remove the games, hands and rejects of the files gone from a folder of ``paths`` since they were
            imported (their source is gone, so this cannot be undone by importing again; hence opt-in).
        bounds: the reading limits (:mod:`pipeline.limits`: decompressed bytes, line length, JSON depth);
            a file crossing one gives a reject of its own code, after the records read before it.
        reread: read every file even when the lake's manifest (``_manifest.json``: path, size, modification
            time, reader and content hash of each file read before) says it is unchanged; by default unchanged
            files are skipped without being opened (or, when only their time changed, after hashing them).
        on_reject: called with each Reject (the CLI prints them).
        on_file: called with each file and the reader chosen (None: not recognised; :data:`DOCUMENTATION`: a
            file documenting its folder, skipped); a file rejected whole before a reader is chosen (unreadable,
            UTF-16, an archive, empty) gives its reject instead, which names it.
        on_bytes: called, while a file is read, with the byte offset reached in it (decompressed: a gzip
            file's offsets run past its size on disk), for a progress bar.
        on_notice: called with a one-line message for what is worth saying but is no error: a reader's
            :class:`~pipeline.formats.records.Notice`, a file gone since imported, a file read again to take
            over hands.
    Raises:
        FileNotFoundError for a missing path; KeyError for an unknown ``fmt``; StrictError.
    """
    for p in paths:                    # a big file named directly: its reader's kernels load while the lake's
        if fmt in (None, native_jsonl.NAME) and Path(p).is_file():     # keys are read (see fast_native.prepare_for)
            fast_native.prepare_for(Path(p))
    with lakemod.lock(lake), limits.applied(bounds):
        if not lenient:
            return _ingest(paths, lake, fmt, strict, on_reject, on_file, reread, on_notice, prune, on_bytes)
        with leniency.collecting() as repairs:
            summary = _ingest(paths, lake, fmt, strict, on_reject, on_file, reread, on_notice, prune, on_bytes)
        for r in repairs if on_repair else ():
            on_repair(r)
        return summary


def _ingest(paths, lake, fmt, strict, on_reject, on_file, reread=False, on_notice=None,
            prune=False, on_bytes=None) -> IngestSummary:
    t0 = time.perf_counter()
    summary = IngestSummary()
    writer = Writer(lake, summary)
    writer.on_bytes = on_bytes
    run = _Run(lake, input_files.load_manifest(lake), writer, strict, on_reject, on_file, on_notice)
    try:
        _ingest_files(paths, fmt, reread, run, prune)
    except BaseException:
        with contextlib.suppress(Exception):   # the run's own error is the one to report
            writer.close()
        with contextlib.suppress(Exception):
            writer.drop_early_holdings()
        raise
    writer.close()
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class _Run:
    """What every file of one ingest run shares: the lake, its manifest (written at the end), the writer and
    the callbacks."""

    lake: object
    manifest: dict
    writer: "Writer"
    strict: bool
    on_reject: Callable[[Reject], None] | None
    on_file: Callable[[Path, str | None], None] | None
    on_notice: Callable[[str], None] | None
    _rejected_files: set[str] | None = None    # files the stored rejects came from (read_before), read once
    named: frozenset = frozenset()     # physical names of the files given on the command line (not met in a folder)

    def notice(self, text: str) -> None:
        if self.on_notice:
            self.on_notice(text)

    def read_before(self, key: str) -> bool:
        """Whether file ``key`` (a physical name) gave rows or rejects to the lake before this run: it is in the
        manifest, or it gave only rejects (empty, unreadable, UTF-16: such files are not in the manifest), which
        its next read clears once it no longer raises them."""
        if key in self.manifest:
            return True
        if self._rejected_files is None:
            self._rejected_files = set()
            if lakemod.has_table(lakemod.locate(self.lake), "rejects"):
                col = lakemod.read(self.lake, "rejects", columns=["ingest_file"]).column("ingest_file")
                self._rejected_files = {f for f in pc.unique(col).to_pylist() if f is not None}
        return key in self._rejected_files


def _ingest_files(paths, fmt, reread, run: _Run, prune: bool = False) -> None:
    writer, summary, manifest = run.writer, run.writer.summary, run.manifest
    forced = formats.get(fmt) if fmt else None
    skipped: set[str] = set()     # physical names of the unchanged files skipped
    walked: set[str] = set()
    named = {input_files.physical_name(Path(p)) for p in paths if Path(p).is_file()}   # files given by name, not met in a folder
    run.named = frozenset(named)
    loc = lakemod.locate(run.lake)
    own = os.path.realpath(loc.root) + os.sep if loc.local else None      # the lake's files are not input
    noted = False
    for path in input_files.walk(paths):
        if own is not None and os.path.realpath(path).startswith(own):
            if not noted:
                run.notice(f"{loc.root}: the lake's own folder is inside a folder being imported: its files are not read")
                noted = True
            continue
        summary.files += 1
        key = input_files.physical_name(path)
        walked.add(key)
        unrecognised = len(summary.unrecognised)
        if not _import_file(path, key, forced, fmt or "auto", reread, run):
            skipped.add(key)
        if len(summary.unrecognised) > unrecognised and key in named:
            summary.unrecognised_named.append(str(path))
    writer.flush()
    writer.drop_poorer_copies()
    _drop_gone(paths, walked, run, prune)
    _take_over(run)
    lakemod.write_bytes(run.lake, input_files.MANIFEST, orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS))
    summary.earlier_rejects = _stored_rejects(run.lake, skipped) if skipped else 0


def _import_file(path: Path, key: str, forced, label: str, reread: bool, run: _Run, again: bool = False) -> bool:
    """Read one file into the lake unless the manifest says it is unchanged (then return False). ``forced``: the
    reader to use (None: detect it); ``label``: the manifest's record of that choice ('auto' or a reader name);
    ``again``: read again because of other files (:func:`_take_over`), so what it gave before is checked in
    full even when its bytes and counts are unchanged (a reject it raised may no longer hold)."""
    writer, summary, manifest = run.writer, run.writer.summary, run.manifest
    strict, on_reject, on_file = run.strict, run.on_reject, run.on_file
    prev, stamp = manifest.get(key), input_files.stamp(path, label)
    sidecars_same = prev is None or input_files.sidecars_unchanged(prev)
    if not reread and prev is not None and prev[:3] == stamp and sidecars_same:
        summary.unchanged += 1
        return False
    fast_native.prepare_for(path)      # a big native file: its compiled kernels load meanwhile
    # a file never read before needs its hash only for the manifest, once read: hashed on a thread meanwhile
    # (a big native file's once its worker processes are forked, see below)
    forking = prev is None and fast_native.forks_for(path)
    digest: str | Future | None = (None if forking else input_files.hash_later(path)) if prev is None else input_files.content_hash(path)
    if not reread and prev is not None and prev[2:4] == [stamp[2], digest] and sidecars_same:
        manifest[key] = stamp + [digest] + prev[4:]      # touched, same bytes: nothing to read
        summary.unchanged += 1
        return False
    try:
        with input_files.open_stream(path) as fh:
            head_bytes = fh.read(input_files.HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as e:
        # a gzip cut short may still start with readable records: read what can be read
        head_bytes = input_files.readable_head(path)
        if not head_bytes:
            _file_reject(path, label if forced else None, "unreadable_file", f"cannot read the file ({e})", writer,
                         strict, on_reject)
            return True
    utf16 = "" if head_bytes[:2] in (b"\xff\xfe", b"\xfe\xff") else input_files.utf16_without_bom(head_bytes)
    if utf16 is not None:
        _file_reject(path, label if forced else None, "bad_encoding",
                     f"the file is UTF-16 text{utf16}; convert it to UTF-8", writer, strict, on_reject)
        return True
    packed = archives.packed(head_bytes)
    if packed is not None:      # a zip, xz, bzip2...: named for what it is instead of read as text
        _file_reject(path, label if forced else None, "unreadable_file", packed, writer, strict, on_reject)
        return True
    head = head_bytes.decode("utf-8", errors="replace").removeprefix("\ufeff")
    blank, ended = 0, True
    if not head_bytes.strip():
        try:
            text, blank, ended = input_files.text_head(path, head_bytes)
        except limits.LimitExceeded as e:
            _file_reject(path, label if forced else None, e.code, e.reason, writer, strict, on_reject)
            return True
        if text:
            head_bytes = text
            head = head_bytes.decode("utf-8", errors="replace")
    if not head_bytes.strip() and ended:
        rej = input_files.blank_file_reject(path, label if forced else None, blank)
        if strict:
            raise StrictError(rej.message())
        emptied = run.read_before(key)      # emptied since: what it gave leaves, as from any edited file
        writer.start_file(path, replacing=emptied)
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)
        if emptied:
            summary.replaced += writer.replace_stale()
            manifest.pop(key, None)    # a file that gives only rejects is not in the manifest
        writer.start_file(None)
        return True
    reader = forced or formats.detect(path.name, head)
    if reader is None and key not in run.named and formats.is_documentation(path.name):
        run.writer.summary.documentation.append(str(path))
        if on_file:
            on_file(path, DOCUMENTATION)
        return True
    if on_file:
        on_file(path, reader.NAME if reader else None)
    if reader is None:
        summary.unrecognised.append(str(path))
        return True
    summary.formats[reader.NAME] += 1
    summary.bytes += path.stat().st_size
    counted = summary.by_format.setdefault(reader.NAME, Counter())
    counted["files"] += 1
    before = summary._counts()
    if digest is None and not (reader is native_jsonl and fast_native.enabled()):
        digest = input_files.hash_later(path)         # no worker processes to wait for: hashed while it is read
    stamp = input_files.stamp(path, label) + [digest]
    same_bytes = prev is not None and prev[2:4] == stamp[2:] and sidecars_same
    # a file read before (it is in the manifest) and read again has changed, or --reread was given:
    # its new content replaces what it gave before
    writer.start_file(path, replacing=run.read_before(key), same_bytes=same_bytes)
    writer.file_formats[writer.reading] = reader.NAME
    added_before = summary.games + summary.hands + sum(summary.rejected.values())
    hint = forced_hint(forced, path.name, head)
    cr_lines = input_files.cr_line_ends(path, head_bytes)
    if cr_lines:
        summary.cr_files.append(str(path))
        run.notice(f"{path}: lines end in CR alone (old Mac line ends): read with each CR as a line end")

    def forked() -> None:
        """The hash thread starts once the worker processes exist: a thread inside OpenSSL while they fork could
        leave a lock held in them (waiting for the hash first would leave a core idle)."""
        if stamp[3] is None:
            stamp[3] = input_files.hash_later(path)
    try:
        _read_file(path, reader, writer, strict, on_reject, run.notice, hint,
                   claimed=forced is None or bool(forced.sniff(path.name, head)), cr_lines=cr_lines, forked=forked,
                   version_1=reader is native_jsonl and native_jsonl.first_version(head) == 1)
    except StrictError:
        raise
    except limits.LimitExceeded as e:
        rej = Reject(Provenance(reader.NAME, str(path), e.line, e.offset), e.code, e.reason, "")
        if strict:
            raise StrictError(rej.message()) from None
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)
    except (OSError, EOFError, zlib.error) as e:
        _file_reject(path, reader.NAME, "unreadable_file", f"cannot read the file ({e}); records after the "
                     "point of failure are not imported", writer, strict, on_reject)
    except Exception as e:  # a reader bug must not lose the batch; the reject keeps the evidence
        _file_reject(path, reader.NAME, "reader_error", f"the {reader.NAME} reader failed on this file: "
                     f"{type(e).__name__}: {e}{hint}", writer, strict, on_reject)
    else:
        forked()                           # (a reader that forked nothing)
        if isinstance(stamp[3], Future):
            stamp[3] = stamp[3].result()
        manifest[key] = stamp + input_files.sidecar_record(path, reader)
        unchanged = (same_bytes and not again
                     and summary.games + summary.hands + sum(summary.rejected.values()) == added_before)
        disputed = bool(hint) and writer.replacing is not None   # --format against detection: a doubtful read
        if disputed:
            run.notice(f"{path}: read with --format {label}, which detection disputes (it reads this file as "
                       f"'{formats.detect(path.name, head).NAME}'): nothing the file gave before is removed")
        writer.finish_holdings(changed=not (unchanged or disputed))
        if unchanged or disputed:
            # --reread of unchanged bytes that gave nothing new: the same rows as before, none stale (checking
            # reads the lake, per file: it made re-reading a folder of small files slower than importing it)
            writer.replacing = None
        summary.replaced += writer.replace_stale()
    if isinstance(stamp[3], Future):
        futures_wait([stamp[3]])           # a failed read leaves no hash thread running into the next file's fork
    for k, was, now in zip(("games", "hands", "duplicates", "rejected"), before, summary._counts()):
        counted[k] += now - was
    writer.start_file(None)
    return True


def _drop_gone(paths, walked: set[str], run: _Run, prune: bool = False) -> None:
    """Files imported before from inside a folder of ``paths`` and gone from it since (:func:`takeover.gone_files`).

    Without ``prune`` they are only named (a notice each, counted in ``summary.gone``): their rows stay, since
    their source is gone and removing them could not be undone. With ``prune`` their games, hands and rejects
    leave the lake, with their holdings and manifest entries, as if each had been emptied and read again; the
    hands another file holds are then taken over (:func:`_take_over`)."""
    writer, summary = run.writer, run.writer.summary
    if not any(Path(p).is_dir() for p in paths):
        return
    # the manifest knows the files read whole; a file that only gave rejects (empty, unreadable) is not in it
    rejected_by = pc.unique(lakemod.read(run.lake, "rejects", columns=["ingest_file"]).column("ingest_file"))
    known = set(run.manifest) | {f for f in rejected_by.to_pylist() if f is not None}
    for f in takeover.gone_files(paths, walked, known):
        if not prune:
            summary.gone.append(f)
            summary.gone_kept = True
            run.notice(f"{f}: gone from its folder since it was imported; its rows stay in the lake "
                       "(ingest --prune removes them)")
            continue
        cleared = summary.rejects_cleared
        writer.start_file(Path(f), replacing=True)
        hands = writer.replace_stale()
        writer.start_file(None)
        gone_rejects = summary.rejects_cleared - cleared
        summary.rejects_cleared = cleared
        summary.gone.append(f)
        summary.gone_hands += hands
        summary.gone_rejects += gone_rejects
        run.manifest.pop(f, None)
        run.notice(f"{f}: gone from its folder since it was imported: its {count(hands, 'hand')} and "
                   f"{count(gone_rejects, 'reject')} leave the lake")


def _take_over(run: _Run) -> None:
    """Read again the files that hold hands which left the lake in this run because their file no longer holds
    them (:func:`takeover.files_to_read`), and the files whose single-deal copy a whole game displaced, until
    none is left (each file at most once more); their copies take over with their own provenance."""
    writer, summary = run.writer, run.writer.summary
    done: set[str] = set()
    while True:
        writer.flush()
        writer.drop_poorer_copies()
        orphans, writer.orphans = writer.orphans, []
        todo = takeover.files_to_read(run.lake, orphans, writer.keys["hands"], writer.last_read)
        for f in writer.reread_files:
            todo.setdefault(f, 0)
        writer.reread_files = set()
        todo = {f: n for f, n in todo.items() if f not in done}
        if not todo:
            return
        for f, n in sorted(todo.items()):
            done.add(f)
            path = Path(f)
            if not path.is_file():
                summary.holders_missing += 1
                continue
            prev = run.manifest.get(f)
            label = prev[2] if prev else "auto"
            forced = formats.get(label) if label != "auto" and label in formats.names() else None
            hands_before = summary.hands
            run.notice(f"{f}: read again, to take over {count(n, 'hand')} that the file which brought "
                       f"{'it' if n == 1 else 'them'} no longer holds" if n else
                       f"{f}: read again: a whole game read from another file disagrees with one of its single-deal "
                       "copies")
            _import_file(path, f, forced, label if forced else "auto", True, run, again=True)
            if n:
                summary.reread.append(f)
                summary.taken_over += summary.hands - hands_before
            else:
                summary.rechecked.append(f)


def _stored_rejects(lake, files: set[str]) -> int:
    """How many rows of the lake's ``rejects`` table came from ``files`` (physical names): by ``ingest_file``, or,
    for rows written before that column existed, by the recorded ``source_file`` resolved the same way."""
    rej = lakemod.read(lake, "rejects", columns=["source_file", "ingest_file"])
    names: dict[str, bool] = {}
    n = 0
    for sf, pf in zip(rej.column("source_file").to_pylist(), rej.column("ingest_file").to_pylist()):
        if pf is None:
            if sf not in names:
                names[sf] = input_files.physical_name(Path(sf)) in files
            n += names[sf]
        else:
            n += pf in files
    return n


def _file_reject(path: Path, fmt: str | None, code: str, reason: str, writer: "Writer", strict: bool,
                 on_reject) -> None:
    rej = Reject(Provenance(fmt, str(path)), code, reason, "")
    if strict:
        raise StrictError(rej.message())
    writer.add_reject(rej)
    if on_reject:
        on_reject(rej)


def forced_hint(forced, name: str, head: str) -> str:
    """What to add to the reason of every reject of a file read with a reader forced by ``--format`` (``forced``,
    a reader module; None: detected) when detection would have chosen another reader for it (file ``name``,
    decoded ``head``): `` (detection reads this file as 'rebelote'; drop --format)``. '' otherwise, and when no
    reader recognises the file (forcing a reader is then what --format is for)."""
    if forced is None:
        return ""
    detected = formats.detect(name, head)
    if detected is None or detected is forced:
        return ""
    return f" (detection reads this file as '{detected.NAME}'; drop --format)"


def _read_file(path: Path, reader, writer: "Writer", strict: bool, on_reject,
               on_notice: Callable[[str], None] | None = None, hint: str = "", claimed: bool = True,
               cr_lines: bool = False, forked: Callable[[], None] | None = None, version_1: bool = False) -> None:
    """Feed one file through its reader; every reject goes to the writer (or stops the run under strict), every
    notice to ``on_notice``; what the file holds goes to its holdings (:meth:`Writer.hold`). ``hint`` ends the
    reason of every reject (:func:`forced_hint`); ``claimed``: the reader's own detection recognises the file
    (False when --format forced it on a file it would not claim: a file that then gives nothing is rejected as
    ``no_records`` even from a reader whose side files give nothing by design); ``cr_lines``: the file's lines end
    in CR alone (:mod:`pipeline.ingest.line_ends`), each read as a line end; ``forked``: called once the
    columnar native reader's worker processes are forked (:func:`pipeline.ingest.fast_native.read_into`);
    ``version_1``: a native file whose first record is version 1, read by the row path (its lines would each fail
    the columnar parse, and be keyed one by one)."""
    def reject(rej: Reject) -> None:
        if hint and not rej.reason.endswith(hint):
            rej.reason += hint
        if strict:
            raise StrictError(rej.message())
        writer.add_reject(rej)
        if on_reject:
            on_reject(rej)

    taken = 0
    path_ids = bool(getattr(reader, "GAME_ID_FROM_PATH", False))

    reported = 0

    def take(rec: GameRecord | Reject | Notice) -> None:
        nonlocal taken, reported
        taken += not isinstance(rec, Notice)
        if writer.on_bytes is not None and (rec.where.offset or 0) >= reported + PROGRESS_BYTES:
            reported = rec.where.offset       # a call per MiB read, not per record: this is the row path's hot loop
            writer.on_bytes(reported)
        if isinstance(rec, Reject):
            reject(rec)
            return
        if isinstance(rec, Notice):
            writer.summary.notices += 1
            if on_notice:
                on_notice(rec.message())
            return
        rej = validate.check_game(rec)
        if rej is not None:
            reject(rej)
            return
        if rec.game.get("game_key") is None:        # not keyed with its batch (see keyed)
            try:
                content_keys.key_records([rec])
            except KEY_ERRORS as e:                  # a value the checks let through but its column cannot hold
                reject(Reject(rec.where, "bad_value", f"a value does not fit its column ({e})", "",
                              rec.game.get("game_id")))
                return
        rej = writer.conflict(rec) or (path_ids and writer.same_content(rec)) or writer.same_deal(rec)
        if rej is None:
            writer.add_game(rec)
        elif rej is SAME_GAME:
            writer.hold(rec, holdings.POORER)
        elif isinstance(rej, Notice):      # the same game under another id (same_content): held by deal
            writer.hold(rec, holdings.POORER, by_deal=True)
            if on_notice:
                on_notice(rej.message())
        else:
            if rej.code in SET_ASIDE_CODES:     # the file still holds it: it may take over one day
                writer.hold(rec, holdings.SET_ASIDE)
            reject(rej)

    s = writer.summary
    before = s.games + s.hands + s.duplicates + s.deal_replaced + sum(s.rejected.values())
    leniency.reading(str(path))
    bounds = limits.active()
    with input_files.bounded(path, cr_lines, bounds) as fh:
        if (reader is native_jsonl and fast_native.enabled() and not version_1
                and bounds.max_depth >= native_columns.DEPTH):
            # columnar reading of whole blocks; lines it cannot vouch for come back through `take`
            fast_native.read_into(fh, str(path), writer, take, size=path.stat().st_size, forked=forked,
                                  bounds=bounds)
        else:
            for rec in keyed(reader.read(input_files.numbered_lines(fh, reader is native_jsonl), str(path))):
                take(rec)
    # a recognised file that gave neither a game nor a reject (a CSV header alone, an envelope with an empty
    # list) must not vanish; readers whose side files are read through another file say so (SIDE_FILES)
    # (a game that displaced as many copies of its deals as it has hands leaves the counts as they were: the
    # records taken say it was there)
    if (not taken and s.games + s.hands + s.duplicates + s.deal_replaced + sum(s.rejected.values()) == before
            and (not getattr(reader, "SIDE_FILES", False) or not claimed)):
        reject(Reject(Provenance(reader.NAME, str(path)), "no_records",
                      f"the {reader.NAME} reader found no game record in the file "
                      + ("(only a header or an empty envelope?)" if claimed else
                         f"(it does not look like a {reader.NAME} file)"), ""))


KEY_BATCH = 512
"""Game records keyed at a time by :func:`keyed`."""
KEY_ERRORS = (pa.ArrowException, OverflowError, TypeError, ValueError)
"""What keying raises for a value that does not fit its column (:func:`pipeline.formats.content_keys.key_rows`)."""


def keyed(items: Iterator) -> Iterator:
    """A reader's results in order, its game records keyed (:func:`pipeline.formats.content_keys.key_records`)
    :data:`KEY_BATCH` at a time. In a batch holding a value that does not fit its column, the record holding it is
    found by halves and passed on without keys, for the checks to reject. When reading raises, the results read
    before are given first, then the error is raised, as if read one at a time."""
    batch: list = []

    def key(records: list) -> None:
        """Key ``records`` together; a value that does not fit its column is isolated by halves, and the record
        holding it stays unkeyed."""
        try:
            content_keys.key_records(records)
        except KEY_ERRORS:
            if len(records) == 1:
                records[0].game["game_key"] = None
                return
            key(records[:len(records) // 2])
            key(records[len(records) // 2:])

    def keyed_batch():
        key([r for r in batch if isinstance(r, GameRecord)])
        yield from batch
        batch.clear()

    it = iter(items)
    while True:
        try:
            item = next(it)
        except StopIteration:
            break
        except Exception:          # reading failed (a damaged stream...): what was read before is taken first
            yield from keyed_batch()
            raise
        batch.append(item)
        if len(batch) >= KEY_BATCH:
            yield from keyed_batch()
    yield from keyed_batch()
