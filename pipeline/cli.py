"""The ``rebelote`` command line (typer). Thin: each command calls one library function and prints its
one-line summary.

Exit status: 0 success; 1 the command ran but some records were rejected (ingest); 2 usage error,
unreadable input, bad ruleset or lake problem (the message says which).
"""

from __future__ import annotations


import contextlib
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import orjson
import typer
from rich.console import Console
from rich.markup import escape

from pipeline.catalog import ALL_TABLES, DEFAULT_LAKE
from pipeline import limits as _limits     # the reading limits' defaults (imports nothing heavy)
from pipeline.terminal import printable
from pipeline.words import count

app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", context_settings={"help_option_names": ["-h", "--help"]},
                  help="Rebelote: import belote game records into a Parquet lake, rescore them under any ruleset, "
                       "and report statistics with DuckDB.")
rules_app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", help="List and show rulesets.")
stats_app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", help="Statistics over the lake (SQL files in queries/, run by DuckDB).")
app.add_typer(rules_app, name="rules")
app.add_typer(stats_app, name="stats")

err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
out = Console(highlight=False, markup=False, soft_wrap=True, emoji=False)
# a terminal wraps long lines at word boundaries (rich); a pipe or file gets each line whole, for grep and scripts
for _c in (err, out):
    _c.soft_wrap = not _c.is_terminal

def _complete_rules(incomplete: str) -> list[str]:
    """Shell completion of ``--rules``: the shipped rulesets' names and ``own`` (a house file is a path, which
    the shell completes itself)."""
    from pipeline.rules import shipped_names

    return [n for n in ("own", *shipped_names()) if n.startswith(incomplete)]


LakeOpt = Annotated[str, typer.Option("--lake", help="Lake folder or URL (file:///abs/path, s3://bucket/prefix; "
                                       "default: $REBELOTE_LAKE or ./rebelote-lake).")]
_LIMITS = _limits.DEFAULT
EXIT_REJECTED = 1
EXIT_ERROR = 2


def _fail(msg: str) -> None:
    err.print(f"[bold red]error:[/] {escape(msg)}")
    raise typer.Exit(EXIT_ERROR)


def _need_lake(lake) -> None:
    """Exit with status 2 (EXIT_ERROR) and a message when the lake folder (or URL) does not exist: a report over no lake is
    an error, not an empty table."""
    from pipeline import lake as lakemod
    try:
        found = lakemod.exists(lake)
    except ValueError as e:     # an unusable URL
        _fail(str(e))
    if not found:
        _fail(f"lake folder not found: {lake} (import records first with `rebelote ingest FILES... --lake {lake}`, "
              "or name another lake with --lake DIR or $REBELOTE_LAKE)")


def _load_rules(name: str, lake=None, house: bool = True):
    """:func:`pipeline.report_rules.load_rules`, its errors ending the command."""
    from pipeline import report_rules
    from pipeline.rules import RulesetError
    try:
        return report_rules.load_rules(name, lake, house)
    except RulesetError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"lake {lake}: {e}")


def _report_rules(arg: str | None, lake) -> str | None:
    """The ruleset name whose stored scores a report reads for ``--rules ARG`` (None: each game under its own
    ruleset, :mod:`pipeline.report_rules`). A ruleset with no scores yet, or stale ones (hands imported since, a
    house file edited, a shipped ruleset changed by an upgrade), is rescored first, with a one-line note. A lake
    with no hands: ARG as given (the report says what is missing)."""
    from pipeline import report_rules
    from pipeline.rules import RulesetError

    if not _lake_has_table(lake, "hands"):
        return arg
    try:
        choice = report_rules.choose(lake, arg)
    except RulesetError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"lake {lake}: {e}")
    if choice.stale:
        err.print(f"[yellow]warning:[/] {escape(choice.stale)}")
    if choice.rescore is not None:
        given = f" --rules {shlex.quote(arg)}" if arg is not None and choice.name != "own" else ""
        err.print(f"note: scoring the lake under {escape(choice.name)} first ({escape(choice.why)}; "
                  f"`rebelote rescore{escape(given)}` does this alone)")
        try:
            _run_rescore(lake, choice.rescore, quiet=True, update=True)
        except (OSError, ValueError) as e:      # a lake this process may not write (read-only, an older layout)
            present = report_rules.scored(lake)
            name = choice.name if choice.name in present else (present[0] if arg is None and len(present) == 1
                                                                 else None)
            if name is None:
                _fail(f"cannot score the lake under {choice.name}: {e}")
            err.print(f"[yellow]warning:[/] cannot score under {escape(choice.name)} ({escape(str(e))}): the "
                      f"report reads the stored scores of {escape(name)}")
            return name
    return choice.name


def _lake_has_table(lake, table: str) -> bool:
    from pipeline import lake as lakemod
    try:
        return bool(lakemod.list_files(lake, table))
    except (OSError, ValueError):
        return False


def _run_rescore(lake, rules, quiet: bool = False, warm_up: bool = True, **kwargs):
    """Rescore ``lake`` under ``rules`` (a Ruleset or own rules) with the compile note (``warm_up``: the first
    rescore of a command) and a progress bar; returns the summary, its time including the engine's compile.
    Raises what rescore_lake raises."""
    from pipeline.rescore import rescore_lake

    warm = _warm_engine(lake, rules) if warm_up and kwargs.get("engine", "local") == "local" else 0.0
    with _phase_progress(f"rescore [{rules.name}]") as progress:
        summary = rescore_lake(lake, rules, progress=progress, **kwargs)
    summary.seconds += warm
    summary.seconds_compile = warm
    if not quiet:
        out.print(str(summary))
    return summary


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to import (.gz accepted).")],
    lake: LakeOpt = DEFAULT_LAKE,
    format: Annotated[Optional[str], typer.Option("--format", help="Force a reader instead of detection (see `rebelote formats`).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on the first rejected record.")] = False,
    on_error: Annotated[Optional[str], typer.Option("--on-error", help="strict (= --strict), skip (the default: a bad "
                                                    "game goes to rejects) or lenient (keep a damaged hand at the "
                                                    "completeness its data supports, reason in its errors).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary lines (the ingest's, and the scoring's).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every file read with its reader (by "
                                          "default only files with rejects, kept hands or no reader are named).")] = False,
    reread: Annotated[bool, typer.Option("--reread", help="Read files the lake's manifest says are unchanged.")] = False,
    prune: Annotated[bool, typer.Option("--prune", help="Remove the games, hands and rejects of files gone from a "
                                        "folder given again since they were imported (by default they stay, "
                                        "named by a note).")] = False,
    max_bytes: Annotated[int, typer.Option("--max-bytes", min=1, help="Most bytes one file may give, decompressed "
                                           "(default 64 GiB; reject file_too_large; docs/limits.md).")] = _LIMITS.max_bytes,
    max_ratio: Annotated[int, typer.Option("--max-ratio", min=1, help="Most times its stored size a gzip file may "
                                           "decompress to (default 200; reject file_too_large).")] = _LIMITS.max_ratio,
    max_line_bytes: Annotated[int, typer.Option("--max-line-bytes", min=1, help="Longest line, in bytes (default "
                                                "64 MiB; reject line_too_long).")] = _LIMITS.max_line_bytes,
    max_depth: Annotated[int, typer.Option("--max-depth", min=1, max=_limits.PARSER_DEPTH, help="Deepest JSON "
                                           "nesting of a record (default 64, at most 1024; reject too_deep).")]
    = _LIMITS.max_depth,
    score: Annotated[bool, typer.Option("--score/--no-score", help="Then score the lake's games under their own "
                                        "rules (`rebelote rescore`), when anything changed (default: score).")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object (the rescore's, "
                                          "if any, under \"rescore\") instead of the summary lines.")] = False,
) -> None:
    """Import game records into the lake, then score each game under its own rules. Re-importing the same records
    adds nothing.

    Bad records go to the lake's rejects table with file, line, game, hand and reason (`rebelote rejects`
    lists them); a changed file read again clears the rejects its new version no longer raises. A file imported
    from a folder given again and gone from it since is named; with --prune its hands and rejects leave the
    lake. A hand that leaves because its file no longer holds it is taken over by another imported file that
    still does. A file no reader recognises is listed and skipped (--format forces a reader). Exit status 1
    when any record was rejected, when an unchanged file skipped still has rejects from an earlier run, or when
    a file named on the command line is not recognised (one met inside a folder is only listed); 2 on a usage
    or I/O error.
    """
    from pipeline.ingest.run import StrictError, ingest_paths
    from pipeline import ingest as readers

    if on_error is not None:
        if on_error not in ("strict", "skip", "lenient"):
            _fail(f"--on-error {on_error!r}: choose strict, skip or lenient")
        if strict and on_error != "strict":
            _fail(f"--strict contradicts --on-error {on_error}")
        strict = strict or on_error == "strict"

    if format:
        try:
            readers.get(format)
        except KeyError as e:
            _fail(str(e.args[0]))

    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TransferSpeedColumn

    from pipeline.limits import Limits
    from pipeline.ingest.input_files import walk

    # a progress bar over the bytes to read, on a terminal only (never in pipes, logs or CI): each file's size
    # counts from where the walk meets it, its records move the bar as they are read (a gzip file's offsets are
    # in its decompressed text: capped at its size on disk)
    progress = Progress(TextColumn("ingest"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeElapsedColumn(),
                        console=err, transient=True, disable=quiet or not err.is_terminal)
    try:
        sizes = {str(p): p.stat().st_size for p in walk(paths)}
    except OSError as e:          # missing, or not a regular file (a pipe): exit 2
        _fail(str(e))
    before, at = {}, 0
    for name, size in sizes.items():
        before[name] = at
        at += size
    task = progress.add_task("bytes", total=at)
    reading = {"base": 0, "size": 0}

    def on_bytes(offset: int) -> None:
        progress.update(task, completed=reading["base"] + min(offset, reading["size"]))
    # one line per file with --verbose; by default only for a file no reader recognises, and, before its first
    # reject or kept hand, for a file that gives one (thousands of clean files print nothing)
    current: dict = {"path": None, "reader": None, "shown": True}

    def show_file(path: Path, reader: str | None) -> None:
        progress.console.print(escape(str(path)) + ": " + (reader or "[yellow]not recognised (skipped; use --format to force a reader)[/]"))

    def on_file(path: Path, reader: str | None) -> None:
        reading.update(base=before.get(str(path), 0), size=sizes.get(str(path), 0))
        progress.update(task, completed=reading["base"])
        shown = not quiet and (verbose or reader is None)
        if shown:
            show_file(path, reader)
        current.update(path=path, reader=reader, shown=shown or quiet)

    def name_file(source_file: str | None) -> None:
        """The current file's line, once, before the first problem it gives (``source_file``: the problem's)."""
        if not current["shown"] and source_file == str(current["path"]):
            show_file(current["path"], current["reader"])
            current["shown"] = True

    def on_reject(rej) -> None:
        if not quiet:
            name_file(rej.where.source_file)
            progress.console.print(f"[red]rejected[/] {escape(printable(rej.message()))}")

    def on_repair(rep) -> None:
        if not quiet:
            name_file(rep.source_file)
            progress.console.print(f"[yellow]kept[/] {escape(printable(rep.message()))}")

    def on_notice(text: str) -> None:
        if not quiet:
            progress.console.print(f"[yellow]note[/] {escape(text)}")

    try:
        with progress:
            summary = ingest_paths(paths, lake, fmt=format, strict=strict, on_reject=on_reject, on_file=on_file,
                                   reread=reread, lenient=on_error == "lenient", on_repair=on_repair,
                                   on_notice=on_notice, prune=prune,
                                   bounds=Limits(max_bytes, max_ratio, max_line_bytes, max_depth), on_bytes=on_bytes)
    except StrictError as e:
        _fail(f"--strict: {e}")
    except OSError as e:
        _fail(f"{e.filename or lake}: {e.strerror or e}")
    if as_json:
        scored = _score_own(lake, quiet=True) if score else None
        out.print_json(data={**summary.to_dict(), "rescore": scored.to_dict() if scored else None}, indent=None)
    else:
        if not quiet and (len(summary.by_format) > 1 or verbose):
            for line in summary.format_lines():
                out.print(line)
        out.print(str(summary))
        if score:
            _score_own(lake)
    if sum(summary.rejected.values()) or summary.earlier_rejects or summary.unrecognised_named:
        raise typer.Exit(EXIT_REJECTED)


def _score_own(lake, quiet: bool = False):
    """After an ingest: score the lake under ``own`` rules when its scores are missing or stale (new hands, a
    changed choice), printing the summary unless ``quiet``; returns it (None when nothing was scored). A failure
    is a warning (the import itself is done)."""
    from pipeline import report_rules
    from pipeline.rules import RulesetError

    if not _lake_has_table(lake, "hands"):
        return None
    try:
        choice = report_rules.choose(lake, "own")
        if choice.rescore is not None:
            return _run_rescore(lake, choice.rescore, quiet=quiet, update=True)
    except (RulesetError, OSError, ValueError) as e:
        err.print(f"[yellow]warning:[/] the games were imported but not scored ({escape(str(e))}): run "
                  "`rebelote rescore` once this is fixed")
    return None


@app.command()
def rescore(
    rules: Annotated[Optional[list[str]], typer.Option("--rules", autocompletion=_complete_rules, help="Ruleset name or path to a .toml file; repeat "
                                                       "for several. Default: own (each game under its own ruleset, "
                                                       "see `rebelote rules sources`).")] = None,
    lake: LakeOpt = DEFAULT_LAKE,
    engine: Annotated[str, typer.Option("--engine", help="local (this process) or ray (Ray Data map_batches; needs "
                                        "the 'ray' extra; joins $RAY_ADDRESS if set).")] = "local",
    threads: Annotated[int, typer.Option("--threads", min=1, help="Local engine: score this many batches at once "
                                         "(one more batch in memory each; score_batch alone ran 1.4x faster with 2 on 2 cores).")] = 1,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1024, help="Hands per score_batch call (with the input row group, this bounds memory).")] = 262_144,
    no_derived: Annotated[bool, typer.Option("--no-derived", help="Do not write the derived report tables (player_hands, "
                                             "hand_facts...): a faster rescore, slower reports (they compute the same "
                                             "rows on the fly).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print each ruleset's summary as one JSON object per line "
                                          "instead of the summary line.")] = False,
    update: Annotated[bool, typer.Option("--update", help="Score only the games new or changed since the ruleset's "
                                         "last rescore (what ingest and the reports do); everything when its "
                                         "rules changed.")] = False,
) -> None:
    """Recompute every hand of the lake: each game under its own ruleset (the default, stored as ruleset `own`),
    or every hand under the rulesets given (what-if); writes scores/ and game_scores/ for each."""
    from pipeline.rescore import ENGINES
    from pipeline.rescore.ray_engine import EngineUnavailable

    if engine not in ENGINES:
        _fail(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    if engine == "ray":
        try:
            from pipeline.rescore.ray_engine import _ray
            _ray()
        except EngineUnavailable as e:
            _fail(str(e))
    if not _has_hands(lake):
        _fail(f"no hands in lake {lake} (run `rebelote ingest` first)")
    loaded = {}
    for name in rules or ["own"]:            # every ruleset is checked before any work starts
        r = _load_rules(name, lake, house=False)
        loaded.setdefault(r.name, r)
    for i, r in enumerate(loaded.values()):
        try:
            summary = _run_rescore(lake, r, quiet=as_json, warm_up=i == 0, batch_size=batch_size, engine=engine, threads=threads,
                                   derived=not no_derived, update=update)
            if as_json:
                out.print_json(data=summary.to_dict(), indent=None)
        except EngineUnavailable as e:
            _fail(str(e))
        except OSError as e:
            _fail(f"{e.filename or lake}: {e.strerror or e}")


@contextlib.contextmanager
def _phase_progress(label: str):
    """A progress bar for a long command, on a terminal only (never in pipes, logs or CI): yields
    ``progress(phase, done, total)``; a phase with a total shows a bar of it, one without a spinner."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), TextColumn(escape(label) + " {task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)
    tasks: dict[str, int] = {}

    def progress(phase: str, done: int, total: int | None) -> None:
        for other, t in tasks.items():
            if other != phase:
                bar.update(t, visible=False)
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total)
        bar.update(tasks[phase], completed=done, total=total)
    with bar:
        yield progress


#: seconds the first hand may take to score before the rescore says the rules engine is being compiled
COMPILE_NOTE_AFTER = 2.0


def _warm_engine(lake, rules) -> float:
    """Score the lake's first hand before the rescore: when the rules engine has to be compiled for this machine
    (the first rescore after an install or an upgrade, about 15 s; later runs load it from numba's cache in
    about 0.5 s), a note says so instead of a silent wait. Errors are left to the rescore, which reports them.
    Returns the seconds it took (the rescore's summary counts them)."""
    import threading
    import time

    from pipeline import lake as lakemod
    from pipeline.rescore.own import score_any
    t0 = time.perf_counter()
    try:
        first = next(iter(lakemod.iter_batches(lake, "hands", batch_size=1024)), None)
    except (OSError, ValueError):
        return 0.0
    if first is None:
        return 0.0
    note = threading.Timer(COMPILE_NOTE_AFTER, lambda: err.print(
        "note: compiling the rules engine for this machine (once after an install or an upgrade, about 15 s; "
        "later runs load it from the cache)"))
    note.daemon = True
    note.start()
    try:
        import pyarrow as pa
        score_any(pa.Table.from_batches([first.slice(0, 1)]), rules)
    except Exception:   # noqa: BLE001 - the rescore itself meets and reports the same error
        pass
    finally:
        note.cancel()
    return time.perf_counter() - t0


def _has_hands(lake: str) -> bool:
    from pipeline import lake as lakemod
    try:
        return lakemod.has_table(lake, "hands")
    except ValueError as e:          # a URL no filesystem handles
        _fail(str(e))
    except OSError as e:
        _fail(f"lake {lake}: {e}")


@app.command()
def status(
    lake: LakeOpt = DEFAULT_LAKE,
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as one JSON object.")] = False,
) -> None:
    """What the lake holds (sources, games, hands, dates, rejects by reason), which rulesets are scored and
    whether each is fresh, and the next command to run when something is stale."""
    import json

    from pipeline.status import lake_status

    _need_lake(lake)
    try:
        st = lake_status(lake)
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{e.filename or lake}: {e.strerror or e}")
    if as_json:
        print(json.dumps(st.to_dict(), ensure_ascii=False))
        return
    for line in st.lines():
        out.print(escape(printable(line)))


@app.command()
def recover(lake: LakeOpt = DEFAULT_LAKE) -> None:
    """Finish or undo a write that stopped half-way (a crash, a kill): committed, it is completed; not committed,
    its files are removed. Every write does this first on a local lake; on object storage (no lock) an unfinished
    write may be another writer still running, so writes there refuse, and this command says it is not."""
    from pipeline import commits, lake as lakemod

    _need_lake(lake)
    try:
        loc = lakemod.locate(lake)
        with lakemod.lock(loc, recover=False):
            done = commits.recover(loc, force=True)
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{e.filename or lake}: {e.strerror or e}")
    out.print(f"recover: {done}" if done else "recover: nothing to do (no unfinished write)")


@app.command()
def migrate(lake: LakeOpt = DEFAULT_LAKE) -> None:
    """Bring a lake written by an older Rebelote to this one's layout version (one transaction: a crash leaves it
    as before). Writes to an older lake refuse until it is migrated; reading it works without."""
    from pipeline import migrate as migration

    _need_lake(lake)
    try:
        out.print(f"migrate: {migration.migrate(lake)}")
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{e.filename or lake}: {e.strerror or e}")


@app.command()
def compact(
    lake: LakeOpt = DEFAULT_LAKE,
    table: Annotated[Optional[list[str]], typer.Option("--table", help="Only this table (repeatable; default: all).")] = None,
) -> None:
    """Rewrite each partition's many small Parquet files (one per import) into few large ones: row groups of
    1M rows, files of about 200 MB. Contents are unchanged; runs under the lake lock, in one transaction."""
    from pipeline import compaction, schema

    for t in table or []:
        if t not in schema.ALL_TABLES:
            _fail(f"unknown table {t!r}; tables: {', '.join(schema.ALL_TABLES)}")
    _need_lake(lake)
    try:
        out.print(str(compaction.compact(lake, table or None)))
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{e.filename or lake}: {e.strerror or e}")


def _outside_lake(output: Optional[Path], lake) -> None:
    """Exit with status 2 when the file ``output`` would be written inside the local lake folder ``lake``: there it
    could replace one of the lake's own files (``-o LAKE/hands/source=x/part-....parquet``) or be read as one."""
    import os

    from pipeline import lake as lakemod
    if output is None or lakemod.is_url(lake):
        return
    root = os.path.realpath(lake)
    if os.path.commonpath([root, os.path.realpath(output)]) == root:
        _fail(f"{output} is inside the lake folder {lake}: a file written there could replace the lake's own "
              "files; write it outside the lake")


def _emit(table, fmt: str, output: Optional[Path], display: Optional[list[str]] = None, lake=None,
          all_rows: bool = False) -> None:
    from pipeline import output as outmod
    if lake is not None:
        _outside_lake(output, lake)
    if fmt is None:
        ext = output.suffix.lower().lstrip(".") if output else ""
        if ext and ext not in ("csv", "json", "parquet", "txt"):
            _fail(f"cannot tell the format of {output} from its extension '.{ext}': give --format table, csv, "
                  "json or parquet (or name the file .csv, .json, .parquet or .txt)")
        fmt = ext if ext in ("csv", "json", "parquet") else "table"
    fmt = fmt.lower()
    if fmt == "table" and display:
        table = table.select([c for c in display if c in table.column_names])
    try:
        outmod.write(table, fmt, output, out, warn=lambda text: err.print(f"[dim]note: {escape(text)}[/]"),
                     max_rows=None if all_rows else outmod.TERMINAL_ROWS)
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}")


def _filters(source: Optional[list[str]], variant: Optional[list[str]], player: Optional[list[str]] = None,
             min_hands: Optional[int] = None, pseudonymize: Optional[str] = None, since: Optional[str] = None,
             until: Optional[str] = None):
    from pipeline import stats

    try:
        when = (stats.parse_when(since) if since else None, stats.parse_when(until, end=True) if until else None)
    except ValueError as e:
        _fail(f"--since/--until: {e}")
    return stats.Filters(tuple(source) if source else None, tuple(variant) if variant else None,
                         tuple(player) if player else None, min_hands, pseudonymize, *when)


def _warn_undated(lake, filters, why: str = "--since/--until") -> None:
    """Under --since/--until (or ``why``: another option that needs a game's time, with the time filters set
    to pass every dated game), say how many games the other filters keep but the time filter cannot place (no
    games.played_at) rather than drop them silently."""
    if not (filters.since or filters.until):
        return
    import dataclasses

    from pipeline import stats
    con = stats.connect(lake, dataclasses.replace(filters, since=None, until=None))
    try:
        undated = con.execute("SELECT count(DISTINCT game_id) FROM hands WHERE game_id IN "
                              "(SELECT game_id FROM _all_games WHERE played_at IS NULL)").fetchall()[0][0]
    finally:
        con.close()
    if undated:
        many = undated > 1
        err.print(f"[yellow]warning:[/] {undated:,} game{'s' if many else ''} that match{'' if many else 'es'} the "
                  f"other filters record{'' if many else 's'} no time (games.played_at) and {'are' if many else 'is'} "
                  f"left out by {why}")


def _shape(table, sort: Optional[list[str]], limit: Optional[int], columns: Optional[str]):
    """``table`` sorted (``--sort COL``, ``-COL`` descending, repeatable: the first is the main key; a column of
    ``made/of`` counts sorts by their rate, then by ``of``), cut to ``limit`` rows and to the comma-separated
    ``columns``, in that order. An unknown column is an error that lists the report's columns."""
    names = table.column_names

    def known(c: str) -> str:
        if c not in names:
            _fail(f"no column {c!r} in this report; its columns: {', '.join(names)}")
        return c
    if sort:
        import pyarrow as pa
        import pyarrow.compute as pc

        keys, added = [], []
        for s in sort:
            name, order = (s[1:], "descending") if s.startswith("-") else (s, "ascending")
            col = table.column(known(name))
            if pa.types.is_string(col.type) and col.null_count < len(col) and pc.all(pc.or_kleene(
                    pc.is_null(col), pc.match_substring_regex(col, r"^\d+/\d+$"))).as_py():
                # "made/of" counts sort by their rate, then by how many (0/0 last in either order)
                parts = pc.split_pattern(col, "/")
                num = pc.cast(pc.list_element(parts, 0), pa.float64())
                den = pc.cast(pc.list_element(parts, 1), pa.float64())
                rate = pc.if_else(pc.equal(den, 0), None, pc.divide(num, den))
                for extra in (rate, den):
                    added.append(f"__sort{len(added)}")
                    table = table.append_column(added[-1], extra)
                    keys.append((added[-1], order))
            else:
                keys.append((name, order))
        table = table.sort_by(keys).drop_columns(added)         # nulls last (pyarrow's default)
    if limit is not None:
        table = table.slice(0, limit)
    if columns:
        table = table.select([known(c.strip()) for c in columns.split(",") if c.strip()])
    return table


def _stats(report: str, lake: Path, ruleset: Optional[str], fmt: str, output: Optional[Path],
           source: Optional[list[str]], variant: Optional[list[str]], player: Optional[list[str]] = None,
           min_hands: Optional[int] = None, pseudonymize: Optional[str] = None, since: Optional[str] = None,
           until: Optional[str] = None, sort: Optional[list[str]] = None, limit: Optional[int] = None,
           columns: Optional[str] = None, by: Optional[str] = None) -> None:
    from pipeline import stats

    if by not in (None, "month"):
        _fail(f"--by {by}: the reports group by month only (--by month)")

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize), since, until)
    if "ruleset" in stats.report_params(report):
        ruleset = _report_rules(ruleset, lake)   # scored first when missing or stale; a file: its name
    try:
        table = (stats.run_report_by_month(lake, report, ruleset, filters) if by else
                 stats.run_report(lake, report, ruleset, filters))
        used = table.column("ruleset")[0].as_py() if table.num_rows and "ruleset" in table.column_names else ruleset
        missing = stats.unscored_hands(lake, used, filters) if used else 0
        unscorable = stats.unscorable_by_source(lake, used, filters) if used else []
    except stats.StatsError as e:
        _fail(str(e))
    if table.num_rows == 0:
        given = ([f"--source {s}" for s in source or []] + [f"--variant {v}" for v in variant or []]
                 + [f"--player {p}" for p in player or []] + ([f"--since {since}"] if since else [])
                 + ([f"--until {until}"] if until else []))
        con = stats.connect(lake, filters)
        try:
            selected = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
            timed = con.execute("SELECT count(*) FROM _all_games WHERE played_at IS NOT NULL").fetchall()[0][0]
        finally:
            con.close()
        if selected == 0 and given:
            hint = (f"; sources in the lake: {', '.join(stats.lake_values(lake, 'source'))}; variants: "
                    f"{', '.join(stats.lake_values(lake, 'variant'))}")
            if since or until:
                hint += f"; {timed} games in the lake record when they were played (games.played_at)"
            err.print(f"[yellow]warning:[/] no hands match the filters {escape(' '.join(given))}{escape(hint)}")
        elif selected:
            err.print(f"no rows: the {selected:,} hands selected have nothing for this report"
                      + (" (no recorded score differs from the rescoring)" if report == "audit" else ""))
    if table.num_rows:
        _warn_undated(lake, filters)
    if by and not (filters.since or filters.until):
        import dataclasses
        _warn_undated(lake, dataclasses.replace(filters, since=stats.parse_when("0001-01-01")), why="--by month")
    if unscorable:
        by_source = ", ".join(f"{src} {n:,}: {reason}" for src, n, reason in unscorable)
        err.print(f"note: {sum(n for _, n, _ in unscorable):,} of the hands selected are unscorable under "
                  f"{escape(used)} ({escape(by_source)}): they add no points and no contract result to the report "
                  f"(made_of 0/0). Report them under their own ruleset, or leave them out with --source or "
                  f"--variant")
    if missing:
        err.print(f"[yellow]warning:[/] {count(missing, 'hand', grouped=True)} {'has' if missing == 1 else 'have'} no scores under {escape(used)} "
                  f"(imported after the last rescore?); the reports leave them out of the counts written at "
                  f"rescore time (per player, pair, contract, declaration) until you run "
                  f"`rebelote rescore --rules {escape(used)}`")
    if "command" in table.column_names and str(lake) != str(DEFAULT_LAKE):
        # the printed `rebelote show` commands must find this lake when pasted as they are
        from pipeline import arrow_rows
        suffix = f" --lake {shlex.quote(str(lake))}"
        cmd = arrow_rows.array([None if c is None else c + suffix for c in table.column("command").to_pylist()],
                               table.schema.field("command").type)
        table = table.set_column(table.column_names.index("command"), "command", cmd)
    shaped = sort or limit is not None or columns
    table = _shape(table, sort, limit, columns) if shaped else table
    display = stats.display_columns(report)
    _emit(table, fmt, output, None if columns else (["month"] + display if by and display else display), lake=lake,
          all_rows=limit is not None)


FormatOpt = Annotated[Optional[str], typer.Option("--format", help="table, csv, json or parquet (default: from the "
                                                  "--output file's extension, else table).")]
OutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of the terminal.")]
RulesOpt = Annotated[Optional[str], typer.Option("--rules", "--ruleset", autocompletion=_complete_rules, help="Ruleset whose scores to use, scored "
                                                 "first if needed (default: each game under its own ruleset).")]
SourceOpt = Annotated[Optional[list[str]], typer.Option("--source", help="Only hands from this source (repeatable).")]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only hands of this variant: belote, coinche... (repeatable).")]
PlayerOpt = Annotated[Optional[list[str]], typer.Option("--player", help="Only hands where this player sat (repeatable); "
                                                        "per-player reports keep only these players' rows.")]
MinHandsOpt = Annotated[Optional[int], typer.Option("--min-hands", min=1, help="Only rows with at least this many hands.")]
SinceOpt = Annotated[Optional[str], typer.Option("--since", help="Only games played on or after this date or time "
                                                 "(YYYY-MM-DD or ISO 8601, UTC unless an offset is given).")]
UntilOpt = Annotated[Optional[str], typer.Option("--until", help="Only games played before this time, or on or before "
                                                 "this date (YYYY-MM-DD includes the whole day).")]
SortOpt = Annotated[Optional[list[str]], typer.Option("--sort", help="Sort by this column (-COL: descending; "
                                                      "repeatable, the first is the main key).")]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", min=0, help="Only the first N rows (after --sort).")]
ByOpt = Annotated[Optional[str], typer.Option("--by", help="month: the report once per month (UTC) of the games' "
                                              "recorded time, with a month column; games with no time are left "
                                              "out.")]
ColumnsOpt = Annotated[Optional[str], typer.Option("--columns", help="Only these columns, comma-separated, in this "
                                                   "order (every format; a wrong name lists the report's columns).")]


def _report_command(report: str, doc: str) -> None:
    """Register `rebelote stats <report>` (underscores become dashes) running queries/<report>.sql."""
    def command(lake: LakeOpt = DEFAULT_LAKE, rules: RulesOpt = None, format: FormatOpt = None,
                output: OutputOpt = None, source: SourceOpt = None, variant: VariantOpt = None,
                player: PlayerOpt = None, min_hands: MinHandsOpt = None, pseudonymize: PseudoOpt = None,
                since: SinceOpt = None, until: UntilOpt = None, sort: SortOpt = None, limit: LimitOpt = None,
                columns: ColumnsOpt = None, by: ByOpt = None) -> None:
        _stats(report, lake, rules, format, output, source, variant, player, min_hands, pseudonymize, since, until,
               sort, limit, columns, by)
    command.__doc__ = doc
    stats_app.command(report.replace("_", "-"))(command)


for _report, _doc in [
    ("players", "Per player: hands, takes, contracts made as taker (x/y), points per hand, games won (x/y)."),
    ("partnerships", "Per pair of partners: games, hands, takes, contracts made (x/y), points per hand, games won (x/y)."),
    ("head_to_head", "Pair against pair: games played and won by each."),
    ("contracts", "By strain, bid level and coinche: frequency, made (x/y), success rate, average margin."),
    ("bidding", "Contracts made (x/y) by strain, bid level and what the taker's team held: trumps, jack and nine "
                "of trump, aces."),
    ("bidders", "Per player as taker: contracts made (x/y) beside the trumps, jack and nine of trump and aces the "
                "team held; coinches called and how often they were right."),
    ("declarations", "Declarations and belote: how often each team scored them, what they were worth, and how "
                     "often they decided the contract."),
    ("declaration_kinds", "Each kind of declaration (tierce ... each carré, belote) per player and per source: "
                          "items per 100 hands, points, scored, announced vs held."),
    ("audit", "Hands whose recorded score differs from the rescoring, with the component that differs and the "
              "`rebelote show` command that explains it."),
]:
    _report_command(_report, _doc)


@stats_app.command("fairness")
def stats_fairness(
    lake: LakeOpt = DEFAULT_LAKE,
    by: Annotated[str, typer.Option("--by", help="source, player or all.")] = "source",
    format: FormatOpt = None,
    output: OutputOpt = None,
    source: SourceOpt = None,
    variant: VariantOpt = None,
    player: PlayerOpt = None,
    pseudonymize: PseudoOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    min_hands: Annotated[Optional[int], typer.Option("--min-hands", min=1, help="Only groups (sources, players) "
                                                     "with at least this many seat hands dealt.")] = None,
) -> None:
    """Dealt-hand events (carrés, runs, voids, trump length, J+9 of trump) observed against their exact
    probabilities for a uniformly shuffled deck, with a binomial test per event (docs/fairness.md).

    No --rules: the events are those of the dealt cards (and the recorded contract's trump), the same under
    every ruleset."""
    from pipeline.fairness import TRUMP_CAVEAT, fairness_report

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize), since, until)
    _need_lake(lake)
    try:
        table = fairness_report(lake, by, filters=filters if (source or variant or player or pseudonymize or since
                                                              or until or min_hands) else None)
    except ValueError as e:      # StatsError is a ValueError too
        _fail(str(e))
    _emit(table, format, output, lake=lake)
    if table.num_rows:
        err.print(f"note: {TRUMP_CAVEAT} Seats of one deal are not independent. See docs/fairness.md, Caveats.")


@stats_app.command("ratings")
def stats_ratings(
    lake: LakeOpt = DEFAULT_LAKE,
    rules: RulesOpt = None,
    partnerships: Annotated[bool, typer.Option("--partnerships", help="Rate each pair of partners (4-player games) "
                                               "as one entity, pairs against pairs.")] = False,
    history: Annotated[bool, typer.Option("--history", help="The rating after each game of the --player given "
                                          "(its trajectory), instead of the leaderboard.")] = False,
    predict: Annotated[Optional[list[str]], typer.Option("--predict", help="A team, 'A+B' (one name per team in "
                                                         "2- and 3-player games), repeatable: the win probability "
                                                         "of each team given.")] = None,
    hold_back: Annotated[Optional[float], typer.Option("--calibration", min=0.01, max=0.9, help="Hold back this "
                                                       "share of the last games (e.g. 0.2): rate the others, "
                                                       "predict these, and print log-loss and Brier score against "
                                                       "an even prediction.")] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="The ratings as they stood after the games played "
                                                 "on or before this date (YYYY-MM-DD or ISO 8601); games with no "
                                                 "recorded time are then left out.")] = None,
    min_games: Annotated[int, typer.Option("--min-games", min=1, help="Only entities with at least this many "
                                           "rated games.")] = 1,
    player: Annotated[Optional[list[str]], typer.Option("--player", help="Only these players' rows (NAME, or "
                                                        "NAME@SOURCE); with --history, whose trajectory. Every "
                                                        "game is still rated.")] = None,
    source: SourceOpt = None,
    variant: VariantOpt = None,
    pseudonymize: PseudoOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    sort: SortOpt = None,
    limit: LimitOpt = None,
    columns: ColumnsOpt = None,
) -> None:
    """Ratings of players (or partnerships) from their games' results in time order, with uncertainty: a
    leaderboard ranked by the conservative ordinal (rating - 3 x uncertainty), a player's trajectory (--history),
    win probabilities (--predict) and a calibration check (--calibration). Model: openskill's Plackett-Luce,
    teams of two in 4-player games, every player alone in 2- and 3-player games (docs/reports.md, Ratings)."""
    from pipeline import ratings, stats

    if history and not player:
        _fail("--history needs --player NAME (whose trajectory to show)")
    if history and len(player) > 1:
        _fail("--history shows one player's trajectory: give --player once")
    if as_of:
        if until:
            _fail("--as-of and --until say the same thing: give one")
        try:
            stats.parse_when(as_of, end=True)
        except ValueError as e:
            _fail(f"--as-of: {e}")
        until = as_of
    filters = _filters(source, variant, None, None, _salt(pseudonymize), since, until)
    ruleset = _report_rules(rules, lake)
    _need_lake(lake)
    try:
        con = stats.connect(lake, filters)
        try:
            used = stats.resolve_ruleset(con, ruleset)
            results = ratings.game_results(con, used)
        finally:
            con.close()
    except stats.StatsError as e:
        _fail(str(e))
    who = player[0].partition("@")[0] if history else None
    summary = ratings.rate(results, partnerships, history_of=who, hold_back=hold_back or 0.0)
    err.print(escape(summary.line(used)))
    _warn_undated(lake, filters)
    if summary.calibration:
        err.print(escape(summary.calibration_line()))      # beside the table, never in it: stdout may be CSV or JSON
    elif hold_back:
        err.print(f"[yellow]warning:[/] --calibration {hold_back} holds back no game of the {summary.rated:,} rated: "
                  "hold back a larger share")
    try:
        table = ratings.board(summary, player or (), min_games, history, predict or ())
    except ValueError as e:
        _fail(str(e))
    if not table.num_rows and not predict:
        err.print("no rows: no game of the selection could be rated" if not summary.rated else
                  "no rows: no entity has as many games as --min-games asks" if not history else
                  f"no rows: {escape(player[0])} played none of the games rated")
    shaped = sort or limit is not None or columns
    table = _shape(table, sort, limit, columns) if shaped else table
    _emit(table, format, output, lake=lake, all_rows=limit is not None)


@app.command()
def rejects(
    lake: LakeOpt = DEFAULT_LAKE,
    file: Annotated[Optional[str], typer.Option("--file", help="Only rejects of files whose path contains this text.")] = None,
    reason: Annotated[Optional[list[str]], typer.Option("--reason", help="Only this reason code, e.g. card_played_twice "
                                                        "(repeatable; when none matches, the codes the lake "
                                                        "holds are listed).")] = None,
    raw: Annotated[bool, typer.Option("--raw", help="Also show the rejected record's text (first 4 KB).")] = False,
    format: FormatOpt = None,
    output: OutputOpt = None,
) -> None:
    """List the records the lake's imports rejected: file, line, game, hand, reason code and reason.

    Rejects stay until their file changes and is read again without raising them (see `ingest`). When nothing
    matches, the reason codes the lake holds are listed; a --reason that is no reject code is named as such.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline import lake as lakemod

    _need_lake(lake)
    table = lakemod.read(lake, "rejects")
    if file:
        table = table.filter(pc.match_substring(table.column("source_file"), file))
    present = table.column("reason_code")
    if reason:
        table = table.filter(pc.is_in(table.column("reason_code"), value_set=pa.array(reason, pa.string())))
    table = table.sort_by([("source_file", "ascending"), ("source_line", "ascending"), ("reject_key", "ascending")])
    notes = _reason_notes(reason or [], present, bool(file)) if not table.num_rows else []
    if not table.num_rows and format in (None, "table") and output is None:
        out.print("no rejects" + (" match the filters" if file or reason else " in the lake"))
        for n in notes:
            out.print(n)
        return
    for n in notes:
        err.print(escape(n))
    display = ["source_file", "source_line", "game_id", "hand_no", "reason_code", "reason"] + (["raw"] if raw else [])
    _emit(table, format, output, display, lake=lake)


@app.command()
def games(
    lake: LakeOpt = DEFAULT_LAKE,
    source: Annotated[Optional[list[str]], typer.Option("--source", help="Only games from this source "
                                                        "(repeatable).")] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    sort: SortOpt = None,
    limit: LimitOpt = None,
    columns: ColumnsOpt = None,
    variant: VariantOpt = None,
    player: PlayerOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """List the lake's games by game id: source, variant, hands, players (comma-separated, by seat), when
    played, the recorded final totals and the file. The ids are what `rebelote show --game` takes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline import lake as lakemod

    _need_lake(lake)
    cols = ["game_id", "source", "variant", "n_hands", "players", "played_at", "recorded_final", "source_file"]
    table = (lakemod.read(lake, "games", columns=cols) if lakemod.has_table(lake, "games")
             else _empty_games(cols))
    if source:
        table = table.filter(pc.is_in(table.column("source"), value_set=pa.array(source, pa.string())))
    where = _games_where(variant, player, since, until)
    if where:      # the reports' filters, over the games' own columns
        import duckdb
        con = duckdb.connect()
        con.register("_all_games", table)
        table = con.sql(f"SELECT * FROM _all_games WHERE {where}").to_arrow_table()
        con.close()
    table = table.sort_by([("game_id", "ascending")])
    # lists as text, so that every format (csv too) can carry them
    for name, sep in (("players", ", "), ("recorded_final", " - ")):
        text = [None if v is None else sep.join(map(str, v)) for v in table.column(name).to_pylist()]
        table = table.set_column(table.column_names.index(name), name, pa.array(text, pa.string()))
    if not table.num_rows and format in (None, "table") and output is None:
        out.print("no games" + (" match these filters" if source or where else " in the lake"))
        return
    if sort or limit is not None or columns:
        table = _shape(table, sort, limit, columns)
    # the table leaves the file out (csv, json, parquet carry it)
    _emit(table, format, output, None if columns else cols[:-1], lake=lake, all_rows=limit is not None)


def _empty_games(cols: list[str]):
    """An empty ``games`` table with ``cols``."""
    from pipeline import schema
    return schema.empty("games").select(cols)


def _reason_notes(asked: list[str], present, by_file: bool) -> list[str]:
    """What to say when ``rejects --reason`` matched nothing: each code asked that Rebelote never gives (with
    the known codes spelt like it), then the codes the rejects hold (``present``: the ``reason_code`` column,
    after --file when ``by_file``) with their counts."""
    import pyarrow.compute as pc

    from pipeline.ingest import reject_codes

    counts = {c: n for c, n in zip(*(x.to_pylist() for x in pc.value_counts(present).flatten())) if c is not None}
    notes = []
    for code in dict.fromkeys(asked):
        if code not in counts and not reject_codes.known(code):
            near = reject_codes.close_to(code)
            notes.append(f"--reason {code!r} is not a reject code Rebelote gives"
                         + (f" (did you mean {' or '.join(near)}?)" if near else ""))
    if not asked:
        return notes
    if counts:
        listed = ", ".join(f"{c} ({n})" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        notes.append(f"reason codes in {'the rejects of the files matching --file' if by_file else 'the lake'}: "
                     f"{listed}")
    else:
        notes.append("no reject comes from a file matching --file" if by_file else "the lake holds no rejects")
    return notes


@app.command()
def compare(
    rules: Annotated[list[str], typer.Option("--rules", autocompletion=_complete_rules, help="Two rulesets, already rescored over the lake.")],
    lake: LakeOpt = DEFAULT_LAKE,
    format: FormatOpt = None,
    output: OutputOpt = None,
    examples: Annotated[int, typer.Option("--examples", min=0, help="Hands whose score differs to list.")] = 5,
    source: SourceOpt = None,
    variant: VariantOpt = None,
    player: PlayerOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """How many hands, contracts, games and winners change between two rulesets, with examples to `show`.

    The filters keep the hands (and the games they belong to) compared; the measures count hands and games, not
    players, so there is no --min-hands."""
    from pipeline import stats

    if len(rules) != 2:
        _fail("give exactly two rulesets: --rules A --rules B")
    a, b = (_report_rules(r, lake) for r in rules)
    filters = _filters(source, variant, player, None, None, since, until)
    shown = examples if format in (None, "table") and output is None else 0    # examples go to the terminal only
    try:
        con = stats.connect(lake, filters)
        try:
            table, rows = stats.compare(con, a, b, filters, shown)
        finally:
            con.close()
    except stats.StatsError as e:
        _fail(str(e))
    _emit(table, format, output, stats.display_columns("compare"), lake=lake)
    _warn_undated(lake, filters)
    for gid, hn, sa, sb in rows:
        lake_arg = "" if str(lake) == str(DEFAULT_LAKE) else f" --lake {shlex.quote(str(lake))}"
        out.print(f"{gid} hand {hn}: {a} {sa} vs {b} {sb}  ->  rebelote show --game {shlex.quote(gid)} "
                  f"--hand {hn} --rules {shlex.quote(a)} --rules {shlex.quote(b)}{lake_arg}")


export_app = typer.Typer(help="Export the lake: native JSON Lines (`export jsonl`, or `export --format jsonl` as "
                                "before) or a DuckDB database for dashboards (`export duckdb FILE.duckdb`).")
app.add_typer(export_app, name="export", invoke_without_command=True)

PseudoOpt = Annotated[Optional[str], typer.Option("--pseudonymize", metavar="SALT",
                                                  help="Replace player names by stable salted hashes (p_ + 12 hex "
                                                       "digits). Same salt: same pseudonyms (linkable); another "
                                                       "salt: unlinkable. Keep the salt secret.")]


def _salt(pseudonymize: Optional[str]) -> Optional[str]:
    if pseudonymize is not None and not pseudonymize:
        _fail("--pseudonymize needs a non-empty salt")
    return pseudonymize


def _games_where(variant, player, since, until) -> str:
    """The SQL condition on ``games`` columns for --variant, --player (a real name who sat in the game), --since
    and --until, as the reports read them ('' for none)."""
    return _filters(None, variant, player, None, None, since, until).hands_where()


def _export_jsonl(output: Optional[Path], lake: Path, source: Optional[list[str]], salt: Optional[str],
                  where: str = "") -> None:
    import gzip

    from pipeline.export import export_jsonl

    if not _has_hands(lake):
        _fail(f"no hands in lake {lake}")
    _outside_lake(output, lake)
    if output is None and sys.stdout.isatty():     # the whole lake as JSON on the screen helps no one
        _fail("export writes every game of the lake as JSON Lines: give --output FILE (FILE.gz to compress it), "
              "or redirect it: rebelote export jsonl > games.jsonl")
    try:
        if output is None:
            games, hands = export_jsonl(lake, sys.stdout.buffer, source, salt, where=where)
        else:
            opener = gzip.open if output.suffix == ".gz" else open
            with opener(output, "wb") as f:
                games, hands = export_jsonl(lake, f, source, salt, where=where)
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}")
    err.print(f"export: {count(games, 'game', grouped=True)}, {count(hands, 'hand', grouped=True)}" + (" (pseudonymized)" if salt else "")
              + (f" -> {output}" if output else ""))
    if games == 0:
        err.print("[yellow]warning:[/] nothing exported" + (" (no game matches the filters)" if source or where else ""))


JsonlOutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: standard "
                                                        "output; FILE.gz is gzipped).")]
ExportSourceOpt = Annotated[Optional[list[str]], typer.Option("--source", help="Only these sources (repeatable).")]


@export_app.callback()
def export(
    ctx: typer.Context,
    format: Annotated[str, typer.Option("--format", help="jsonl (Rebelote native JSON Lines). For a DuckDB "
                                        "file use `rebelote export duckdb FILE`.")] = "jsonl",
    output: JsonlOutputOpt = None,
    lake: LakeOpt = DEFAULT_LAKE,
    source: ExportSourceOpt = None,
    pseudonymize: PseudoOpt = None,
    variant: VariantOpt = None,
    player: PlayerOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Export the lake: native JSON Lines (the default), or a DuckDB database for dashboards.

    Without a subcommand: the games in the native JSON Lines format (lossless; re-importable; FILE.gz is
    gzipped), as `export jsonl`. `export duckdb FILE.duckdb` writes the dashboard database."""
    if ctx.invoked_subcommand is not None:
        return
    if format.lower() != "jsonl":
        _fail(f"unknown export format {format!r}; available: jsonl (for DuckDB: rebelote export duckdb FILE.duckdb)")
    _export_jsonl(output, lake, source, _salt(pseudonymize), _games_where(variant, player, since, until))


@export_app.command("jsonl")
def export_jsonl_cmd(
    output: JsonlOutputOpt = None,
    lake: LakeOpt = DEFAULT_LAKE,
    source: ExportSourceOpt = None,
    pseudonymize: PseudoOpt = None,
    variant: VariantOpt = None,
    player: PlayerOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Write the lake's games in the native JSON Lines format (lossless; re-importable; FILE.gz is gzipped)."""
    _export_jsonl(output, lake, source, _salt(pseudonymize), _games_where(variant, player, since, until))


@export_app.command("duckdb")
def export_duckdb_cmd(
    file: Annotated[Path, typer.Argument(help="DuckDB file to write (replaced if it exists).")],
    lake: LakeOpt = DEFAULT_LAKE,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", autocompletion=_complete_rules, help="Rulesets to report (repeatable; default: "
                                                       "every ruleset rescored).")] = None,
    source: SourceOpt = None,
    variant: VariantOpt = None,
    player: Annotated[Optional[list[str]], typer.Option("--player", help="Only hands where this player sat "
                                                        "(repeatable); per-player reports keep only these players.")] = None,
    min_hands: Annotated[Optional[int], typer.Option("--min-hands", min=1, help="Only report rows with at least "
                                                     "this many hands.")] = None,
    materialize: Annotated[bool, typer.Option("--materialize", help="Copy the lake's rows into the file (self-"
                                              "contained) instead of views over the lake's Parquet files.")] = False,
    pseudonymize: PseudoOpt = None,
) -> None:
    """Write a DuckDB database for dashboards (Metabase, Superset, Grafana, Evidence).

    It holds views (or, with --materialize, tables) hands, games, rejects, scores, game_scores, seats, and one
    report_<name> table per report for each ruleset. docs/dashboards.md describes every table and view."""
    from pipeline import dashboard, stats

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize))
    names = [_report_rules(r, lake) for r in rules or []]
    _outside_lake(file, lake)
    try:
        with _phase_progress(f"export {file.name}") as progress:
            summary = dashboard.export_duckdb(lake, file, names, filters, materialize, progress=progress)
    except stats.StatsError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {file}: {e.strerror or e}")
    if filters.pseudonymize and not materialize:
        err.print("note: --pseudonymize copies the rows into the file (as --materialize does): views would "
                  "carry the salt and read the real names")
    out.print(str(summary))


@app.command()
def report(
    html: Annotated[Path, typer.Option("--html", help="Write one self-contained HTML page (charts and tables; "
                                       "opens with no network).")],
    lake: LakeOpt = DEFAULT_LAKE,
    rules: Annotated[Optional[str], typer.Option("--rules", autocompletion=_complete_rules, help="Ruleset whose scores to use, scored first if "
                                                 "needed (default: each game under its own ruleset).")] = None,
    source: SourceOpt = None,
    variant: VariantOpt = None,
    player: Annotated[Optional[list[str]], typer.Option("--player", help="Only hands where this player sat "
                                                        "(repeatable); per-player tables keep only these players.")] = None,
    min_hands: Annotated[Optional[int], typer.Option("--min-hands", min=1, help="Only table rows with at least "
                                                     "this many hands.")] = None,
    pseudonymize: PseudoOpt = None,
) -> None:
    """Write the main reports as one self-contained static HTML page.

    Charts and tables: hand scores and contract margins, take and success rates per player, contracts by
    strain, dealt declarations observed vs expected, partnerships, head to head, score audit."""
    from pipeline import html_report, stats

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize))
    rules = _report_rules(rules, lake)
    _outside_lake(html, lake)
    try:
        with _phase_progress(f"report {html.name}") as progress:
            summary = html_report.write_html_report(lake, html, rules, filters, progress=progress)
    except stats.StatsError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {html}: {e.strerror or e}")
    out.print(str(summary))


@app.command()
def simulate(
    rules: Annotated[str, typer.Option("--rules", autocompletion=_complete_rules, help="Ruleset to play (its auction style and target).")] = "belote-classic",
    games: Annotated[int, typer.Option("--games", min=1, help="Number of complete games.")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same games).")] = 1,
    output: Annotated[Path, typer.Option("--output", "-o", help="Native JSON Lines file to write.")] = Path("simulated.jsonl"),
) -> None:
    """Deal and play complete legal games with random and heuristic players; writes the native format."""
    from pipeline.simulate import simulate_to_file

    try:
        with _phase_progress(f"simulate [{rules}]") as progress:
            n_games, n_hands = simulate_to_file(_load_rules(rules), games, seed, output, progress)
    except ValueError as e:      # a deal shape or auction the simulator cannot play (pipeline.simulate.shape_error)
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}")
    out.print(f"simulate [{rules}]: {count(n_games, 'game', grouped=True)}, {count(n_hands, 'hand', grouped=True)} -> {output}")


@app.command()
def demo(
    lake: Annotated[Optional[str], typer.Option("--lake", help="Lake folder to create (default: a temporary folder).")] = None,
) -> None:
    """Run the whole pipeline on the embedded sample in data/: ingest, rescore, reports."""
    from pipeline.resources import resource_dir

    data = resource_dir("data")
    ctx = tempfile.TemporaryDirectory(prefix="rebelote-demo-") if lake is None else None
    target = ctx.name if ctx else lake
    try:
        out.print(f"Rebelote demo on {data} -> lake {target}")
        ingest([data], lake=target, format=None, strict=False, quiet=True)
    except typer.Exit as e:
        if e.exit_code not in (0, None, EXIT_REJECTED):
            raise
    try:
        from pipeline import stats
        from pipeline.rules import own

        _score_own(target)     # ingest scored each game under its own ruleset: only if that failed
        for report in ("players", "declarations"):
            out.print(f"\n{report} (each game under its own ruleset)")
            _emit(stats.run_report(target, report, own.OWN), "table", None, stats.display_columns(report))
        if not ctx:
            out.print(f"\nThe lake stays in {target}: try `rebelote status --lake {shlex.quote(str(target))}`.")
        out.print("\nOn your own records (files or folders; gzip files are read as they are):\n"
                  "  rebelote ingest PATH... --lake my-lake    # imports, and scores each game under its own rules\n"
                  "  rebelote status --lake my-lake            # what the lake holds, and what to run next\n"
                  "  rebelote stats players --lake my-lake     # or: rebelote report --html report.html --lake my-lake")
    finally:
        if ctx:
            ctx.cleanup()


@app.command()
def show(
    game: Annotated[str, typer.Option("--game", help="Game id (or the source's own game id).")],
    hand: Annotated[Optional[int], typer.Option("--hand", help="Hand number (default: every hand of the game).")] = None,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", autocompletion=_complete_rules, help="Ruleset (repeat for a side-by-side comparison); "
                                                       "default: the game's own ruleset.")] = None,
    format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    lake: LakeOpt = DEFAULT_LAKE,
) -> None:
    """Explain a hand's score step by step: tricks, legality, declarations, contract test, multipliers,
    rounding, each line with the ruleset parameter that produced it."""
    import orjson

    from pipeline import show as showmod

    try:
        hands = showmod.game_hands(lake, game, hand)
    except LookupError as e:
        _fail(str(e))
    if rules and len(rules) > 2:
        _fail("show compares at most two rulesets side by side: give --rules once or twice")
    names = rules or ([hands[0]["ruleset_hint"]] if hands[0]["ruleset_hint"] else [])
    if not names:
        _fail("the game names no ruleset of its own: choose one with --rules")
    from pipeline import report_rules
    loaded = [report_rules.game_rules(_load_rules(r, lake), hands[0]) for r in names]
    # the whole game: running totals, carry-over and result after the hands (a per-table target option)
    target = showmod.game_target(lake, hands[0]["game_id"]) if hand is None else None
    result = showmod.breakdowns(hands, loaded, whole=hand is None, target=target)
    if format.lower() == "json":   # each line says whether it differs from the line it faces under the other ruleset
        result = [showmod.mark_differences(per_rules) for per_rules in result]
        out.file.write(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    if format.lower() != "text":
        _fail(f"unknown format {format!r}; choose text or json")
    styled = Console(highlight=False, soft_wrap=True, emoji=False)   # colour on a terminal, plain when piped
    for per_rules in result:
        for line in showmod.render(per_rules, columns=styled.width if styled.is_terminal else None).split("\n"):
            if line.startswith("*"):
                styled.print(escape(line), style="bold yellow")
            elif line and not line.startswith(" ") and not line.startswith("game "):
                styled.print(escape(line), style="bold")
            else:
                styled.print(escape(line))
        styled.print("")


@app.command()
def bench(
    hands: Annotated[Optional[list[str]], typer.Option("--hands", help="Sizes in hands: 100000, 1e6 or 10^6; "
                                                       "comma-separated or repeated (default 1e4,1e5).")] = None,
    family: Annotated[Optional[list[str]], typer.Option("--family", help="Ruleset families to rescore: classic, "
                                                        "coinche, bulgarian, 2-player, 3-player (repeatable; default all).")] = None,
    ingest_max: Annotated[str, typer.Option("--ingest-max", help="Largest size (hands) whose ingest, compact "
                                            "and export are measured; above it only rescore, game pass and stats.")] = "1e6",
    real: Annotated[bool, typer.Option("--real/--no-real", help="Also ingest the real files of ../shared "
                                       "($REBELOTE_SHARED), once.")] = True,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Also write the rows and the growth table as JSON.")] = None,
    workdir: Annotated[Optional[Path], typer.Option("--workdir", help="Folder for the temporary files (default: the "
                                                    "system's temporary folder).")] = None,
    keep: Annotated[bool, typer.Option("--keep", help="Keep the generated files and lakes.")] = False,
) -> None:
    """Measure each stage (ingest per format, rescore per ruleset family, game pass, every report, compact, export,
    Parquet bytes per hand, peak memory) at each size, each stage in a fresh process; prints one table and the
    log-log growth of each stage's time with N."""
    import pyarrow as pa

    from pipeline import bench as benchmod
    from pipeline.bench.data import FAMILIES

    try:
        sizes = benchmod.parse_sizes(hands or ["1e4,1e5"])
        cap = benchmod.parse_sizes([ingest_max])[0]
    except ValueError as e:
        _fail(str(e).replace("--hands", "--hands/--ingest-max"))
    for f in family or []:
        if f not in FAMILIES:
            _fail(f"unknown family {f!r}; families: {', '.join(FAMILIES)}")
    rows = benchmod.run(sizes, family or None, cap, real, workdir, keep,
                        log=lambda m: err.print(escape(m), style="dim"))
    table = pa.Table.from_pylist([{"N": r.size or None, "stage": r.stage, "what": r.what, "rows": r.rows,
                                   "seconds": round(r.seconds, 3), "rate": round(r.rate, 1), "unit": r.unit,
                                   "peak RSS MB": round(r.peak_rss_mb), "note": r.note} for r in rows])
    _emit(table, "table", None)
    grow = benchmod.growth(rows)
    if grow:
        cols = [str(n) for n in sorted({int(k) for g in grow for k in g["seconds"]})]
        gt = pa.Table.from_pylist([{"stage": g["stage"], "what": g["what"],
                                    **{f"s@{c}": g["seconds"].get(c) for c in cols}, "slope": g["slope"]} for g in grow])
        out.print("\nGrowth: seconds against N (log-log slope; 1 = linear)")
        _emit(gt, "table", None)
    if json_out:
        json_out.write_bytes(benchmod.to_json(rows))


@app.command()
def formats() -> None:
    """List the input formats `rebelote ingest` recognises."""
    from pipeline import ingest as readers

    for r in readers.READERS:
        out.print(f"{r.NAME}: {r.DESCRIPTION}")


@app.command("schema")
def schema_cmd(
    table: Annotated[Optional[str], typer.Argument(help=f"Table name ({', '.join(ALL_TABLES)}).")] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Markdown documentation of every table.")] = False,
    dashboards: Annotated[bool, typer.Option("--dashboards", help="Markdown documentation of every table and view "
                                             "of `rebelote export duckdb`'s file (docs/dashboards.md).")] = False,
) -> None:
    """Show the Arrow schema of a lake table (from schemas/), or document all tables."""
    from pipeline import schema

    if dashboards:
        from pipeline.dashboard import markdown as dashboards_markdown
        out.file.write(dashboards_markdown())
        return
    if table is not None and table not in schema.ALL_TABLES:
        _fail(f"unknown table {table!r}; tables: {', '.join(schema.ALL_TABLES)}")
    if markdown:
        out.print(schema.markdown(table))
        return
    for t in ([table] if table else schema.ALL_TABLES):
        out.print(f"{t} (version {schema.version(t)}, partitioned by {', '.join(schema.partition_columns(t)) or 'nothing'})")
        for name, typ, nullable, doc in schema.field_docs(t):
            out.print(f"  {name}: {typ}{'' if nullable else ' not null'}  -- {doc}")


@rules_app.command("list")
def rules_list() -> None:
    """Shipped rulesets with their descriptions."""
    from pipeline.rules import shipped_names

    for name in shipped_names():
        r = _load_rules(name)
        line = f"{name} ({' < '.join(r.chain)}): {r.description}"
        # one line each: the description's beginning (`rules show NAME` prints all of it), cut at the
        # terminal's width on a terminal
        most = min(LIST_LINE, out.width) if out.is_terminal else LIST_LINE
        out.print(line if len(line) <= most else line[:most - 1].rstrip() + "…", soft_wrap=True)


#: longest line of `rules list` (on a terminal, at most its width)
LIST_LINE = 160


@rules_app.command("sources")
def rules_sources(
    lake: LakeOpt = DEFAULT_LAKE,
    set_: Annotated[Optional[list[str]], typer.Option("--set", help="KEY=RULESET (repeatable): score the games of "
                                                      "source KEY under RULESET (a name or a .toml file); "
                                                      "variant:NAME=RULESET for the games of a variant that name "
                                                      "no ruleset; named:NAME=RULESET for the games whose records "
                                                      "name NAME.")] = None,
    unset: Annotated[Optional[list[str]], typer.Option("--unset", help="KEY (as for --set) to forget "
                                                       "(repeatable).")] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
) -> None:
    """Which ruleset each game is scored under by default (`rescore` without --rules, and every report): per
    source, variant and the ruleset its records name, with why. --set and --unset change it (kept in the
    lake's _own_rules.toml); the next report or `rebelote rescore` scores again what changed."""
    import pyarrow as pa

    from pipeline.rules import RulesetError, load, own

    _need_lake(lake)
    if set_ or unset:
        try:
            doc = own.overrides(lake)
        except RulesetError as e:
            _fail(str(e))
        for item in unset or []:
            section, key = _own_key(item)
            if doc[section].pop(key, None) is None:
                _fail(f"--unset {item}: the lake's {own.OVERRIDE_FILE} has no such choice")
        for item in set_ or []:
            key, eq, ref = item.partition("=")
            if not eq or not ref:
                _fail(f"--set {item!r}: give KEY=RULESET (a source, variant:NAME or named:NAME)")
            section, key = _own_key(key)
            try:
                rules = load(ref)
            except RulesetError as e:
                _fail(f"--set {item}: {e}")
            doc[section][key] = str(Path(ref).resolve()) if ref.endswith(".toml") else rules.name
        own.write_overrides(lake, doc)
    try:
        plan = own.plan(lake)
    except RulesetError as e:
        _fail(str(e))
    table = pa.table({
        "source": [c.source for c in plan.choices], "variant": [c.variant for c in plan.choices],
        "records_name": pa.array([c.hint for c in plan.choices], pa.string()),
        "ruleset": [c.ruleset for c in plan.choices], "games": pa.array([c.games for c in plan.choices], pa.int64()),
        "why": [c.why for c in plan.choices]})
    _emit(table, format, output, lake=lake)


def _own_key(text: str) -> tuple[str, str]:
    """(section of the own-rules file, key) for a --set/--unset KEY."""
    kind, colon, name = text.partition(":")
    if colon and kind in ("variant", "named"):
        return ("variants" if kind == "variant" else "rulesets"), name
    return "sources", text


@rules_app.command("show")
def rules_show(name: Annotated[str, typer.Argument(help="Ruleset name or .toml path.")]) -> None:
    """Every parameter of a ruleset, resolved through `extends`, with its source. One line names the
    abbreviations its citations use and the page that explains them (docs/sources.md)."""
    from pipeline.rules.citations import SOURCES_DOC, ruleset_keys

    r = _load_rules(name)
    out.print(f"{r.name} ({' < '.join(r.chain)})" + (f"\n{r.description}" if r.description.strip() else "") + "\n")
    keys = sorted(ruleset_keys(r.description, r.sources.values()), key=str.casefold)
    if keys:
        out.print(f"Sources cited ({', '.join(keys)}): see {SOURCES_DOC} in the Rebelote repository.\n")
    for key, value in r.flat().items():
        src = r.sources.get(key, "")
        out.print(f"{key} = {value!r}" + (f"   # {src}" if src else ""))


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version
        try:
            out.print(f"rebelote {version('rebelote')}")
        except PackageNotFoundError:
            out.print("rebelote (not installed)")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Rebelote: import belote game records into a Parquet lake, rescore them under any ruleset, and report
    statistics with DuckDB."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):   # one plain line, no source location
        err.print(f"[yellow]warning:[/] {escape(str(message))}")
    warnings.showwarning = show


def main() -> None:
    import signal
    # a closed pipe (`rebelote export | head`) ends the command quietly, as for other Unix tools
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    app()


if __name__ == "__main__":
    main()
