"""What `rebelote ingest` shows while it reads: a progress bar over the bytes, and one line per problem.

The bar is drawn on a terminal only (never in pipes, logs or CI). Each file's size counts from where the walk
meets it and its records move the bar as they are read (a gzip file's offsets are in its decompressed text:
capped at its size on disk). A file's name is printed once, before the first reject or kept record it gives
(thousands of clean files print nothing), always with ``--verbose``, and for a file no reader recognises.
A file's first :data:`SHOWN` problems are printed, then one line counting the rest by reason with the command
that lists them (a file read with the wrong ``--format`` rejects every record: a million lines would bury the
summary); ``--verbose`` prints them all. Every reject is in the lake's ``rejects`` table either way.
:class:`IngestConsole` gives :func:`pipeline.ingest.run.ingest_paths` its callbacks.
"""

from __future__ import annotations

import shlex
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TransferSpeedColumn

from pipeline.terminal import printable
from pipeline.words import count

SHOWN = 20
"""Problems (rejects and kept records) printed per file before the rest are only counted (not with --verbose)."""


class IngestConsole:
    """The progress bar and the per-file, per-reject lines of one ingest. ``sizes``: bytes of each file to
    read, by path, in the order the walk gives them; a context manager (the bar is shown inside it)."""

    def __init__(self, console: Console, sizes: dict[str, int], quiet: bool, verbose: bool, lake_option: str = ""):
        self.quiet, self.verbose = quiet, verbose
        self.lake_option = lake_option      # " --lake L" when not the default: the hint names the same lake
        self.progress = Progress(TextColumn("ingest"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                                 TimeElapsedColumn(), console=console, transient=True,
                                 disable=quiet or not console.is_terminal)
        self.sizes, self.before, at = sizes, {}, 0
        for name, size in sizes.items():
            self.before[name] = at
            at += size
        self.task = self.progress.add_task("bytes", total=at)
        self.base = self.size = 0
        self.path: Path | None = None
        self.reader: str | None = None
        self.shown = True
        self.problems = 0                     # problems of the current file printed or counted
        self.unshown: Counter = Counter()     # reason code (or "kept") -> problems of the current file not printed

    def __enter__(self) -> "IngestConsole":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._count_unshown()
        self.progress.__exit__(*exc)

    def callbacks(self) -> dict:
        """The keyword arguments of :func:`~pipeline.ingest.run.ingest_paths` that report to this console."""
        return {"on_bytes": self.on_bytes, "on_file": self.on_file, "on_reject": self.on_reject,
                "on_repair": self.on_repair, "on_notice": self.on_notice}

    def on_bytes(self, offset: int) -> None:
        self.progress.update(self.task, completed=self.base + min(offset, self.size))

    def on_file(self, path: Path, reader: str | None) -> None:
        self._count_unshown()
        self.base, self.size = self.before.get(str(path), 0), self.sizes.get(str(path), 0)
        self.progress.update(self.task, completed=self.base)
        shown = not self.quiet and (self.verbose or reader is None)
        if shown:
            self._show_file(path, reader)
        self.path, self.reader, self.shown = path, reader, shown or self.quiet

    def on_reject(self, rej) -> None:
        if not self.quiet and self._shows(rej.where.source_file, rej.code):
            self._name_file(rej.where.source_file)
            self.progress.console.print(f"[red]rejected[/] {escape(printable(rej.message()))}")

    def on_repair(self, rep) -> None:
        if not self.quiet and self._shows(rep.source_file, "kept"):
            self._name_file(rep.source_file)
            self.progress.console.print(f"[yellow]kept[/] {escape(printable(rep.message()))}")

    def on_notice(self, text: str) -> None:
        if not self.quiet:
            self.progress.console.print(f"[yellow]note[/] {escape(text)}")

    def _shows(self, source_file: str | None, code: str) -> bool:
        """Whether a problem of ``source_file`` is printed: always with --verbose or when it is not the current
        file's (a file-level reject of another path); else the current file's first :data:`SHOWN`."""
        if self.verbose or self.path is None or source_file != str(self.path):
            return True
        self.problems += 1
        if self.problems <= SHOWN:
            return True
        self.unshown[code] += 1
        return False

    def _count_unshown(self) -> None:
        """The line counting the current file's problems not printed, by reason, with the command listing them."""
        unshown, self.unshown, self.problems = self.unshown, Counter(), 0
        kept = unshown.pop("kept", 0)
        name = escape(printable(str(self.path)))
        if unshown:
            codes = ", ".join(f"{n} {code}" for code, n in sorted(unshown.items(), key=lambda kv: (-kv[1], kv[0])))
            self.progress.console.print(
                f"[red]...[/] {name}: {count(sum(unshown.values()), 'more reject', grouped=True)} not shown "
                f"({codes}); list them: rebelote rejects --file {escape(printable(shlex.quote(str(self.path))))}"
                f"{escape(printable(self.lake_option))}")
        if kept:
            self.progress.console.print(f"[yellow]...[/] {name}: {count(kept, 'more kept record', grouped=True)} "
                                        "not shown (--verbose shows them)")

    def _show_file(self, path: Path, reader: str | None) -> None:
        self.progress.console.print(escape(str(path)) + ": " + (
            reader or "[yellow]not recognised (skipped; use --format to force a reader)[/]"))

    def _name_file(self, source_file: str | None) -> None:
        """The current file's line, once, before the first problem it gives (``source_file``: the problem's)."""
        if not self.shown and source_file == str(self.path):
            self._show_file(self.path, self.reader)
            self.shown = True
