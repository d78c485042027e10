"""What every command of the ``rebelote`` command line shares: the typer apps, the consoles, the options, the
error exit (:func:`_fail`), the ruleset and lake checks, and the table output (:func:`_emit`)."""

from __future__ import annotations


import contextlib
import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from pipeline import limits as _limits     # the reading limits' defaults (imports nothing heavy)


app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", context_settings={"help_option_names": ["-h", "--help"]},
                  help="Rebelote: import belote game records into a Parquet lake, rescore them under any ruleset, "
                       "and report statistics with DuckDB.")
rules_app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", help="List and show rulesets.")
stats_app = typer.Typer(no_args_is_help=True, rich_markup_mode="markdown", help="Statistics over the lake (SQL files in queries/, run by DuckDB).")
app.add_typer(rules_app, name="rules")
app.add_typer(stats_app, name="stats")



def _flags_show_no_type() -> None:
    """typer (0.2x) shows an on/off flag such as ``--json`` with the type ``<bool>``, which reads as if it took a
    value (``--json true``); a flag's help shows no type, as click's own help does."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_flags_untyped", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._flags_untyped = True
    TyperOption.display_type_rich = display_type_rich


_flags_show_no_type()

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
    from pipeline.storage import lake as lakemod
    try:
        why = lakemod.unreadable(lake)
    except ValueError as e:     # an unusable URL
        _fail(str(e))
    if why:
        _fail(why)


def _need_current(lake) -> None:
    """Exit with status 2 and the command to run when the lake is of another layout version (readers refuse it as
    writers do: :func:`pipeline.storage.lake.require_current`)."""
    from pipeline.storage import lake as lakemod
    try:
        lakemod.require_current(lake)
    except lakemod.LakeVersionError as e:
        _fail(str(e))


def _load_rules(name: str, lake=None, house: bool = True):
    """:func:`pipeline.stats.report_rules.load_rules`, its errors ending the command."""
    from pipeline.stats import report_rules
    from pipeline.rules import RulesetError
    try:
        return report_rules.load_rules(name, lake, house)
    except RulesetError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"lake {lake}: {e}")


def _report_rules(arg: str | None, lake) -> str | None:
    """The ruleset name whose stored scores a report reads for ``--rules ARG`` (None: each game under its own
    ruleset, :mod:`pipeline.stats.report_rules`). A ruleset with no scores yet, or stale ones (hands imported since, a
    house file edited, a shipped ruleset changed by an upgrade), is rescored first, with a one-line note. A lake
    with no hands: ARG as given (the report says what is missing)."""
    from pipeline.stats import report_rules
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
    from pipeline.storage import lake as lakemod
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


def _outside_lake(output: Optional[Path], lake) -> None:
    """Exit with status 2 when the file ``output`` would be written inside the local lake folder ``lake``: there it
    could replace one of the lake's own files (``-o LAKE/hands/source=x/part-....parquet``) or be read as one."""
    import os

    from pipeline.storage import lake as lakemod
    if output is None or lakemod.is_url(lake):
        return
    root = os.path.realpath(lake)
    if os.path.commonpath([root, os.path.realpath(output)]) == root:
        _fail(f"{output} is inside the lake folder {lake}: a file written there could replace the lake's own "
              "files; write it outside the lake")


def _emit(table, fmt: str, output: Optional[Path], display: Optional[list[str]] = None, lake=None,
          all_rows: bool = False, selects: bool = False, saves: bool = True) -> None:
    """Write a command's result (``output.write``); ``selects``: the command has --limit, --sort and --columns,
    ``saves`` --format and --output, so the notes on a cut table may suggest them."""
    from pipeline.report import output as outmod
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
                     max_rows=None if all_rows else outmod.TERMINAL_ROWS, selects=selects, saves=saves)
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}")


def _filters(source: Optional[list[str]], variant: Optional[list[str]], player: Optional[list[str]] = None,
             min_hands: Optional[int] = None, pseudonymize: Optional[str] = None, since: Optional[str] = None,
             until: Optional[str] = None):
    from pipeline.stats import reports as stats
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

    from pipeline.stats import reports as stats
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
    """``table`` sorted (``--sort COL``, ``-COL`` descending, repeatable or comma-separated as ``--columns`` is: the
    first is the main key; a column of
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
        for s in (part.strip() for given in sort for part in given.split(",") if part.strip()):
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


FormatOpt = Annotated[Optional[str], typer.Option("--format", help="table, csv, json or parquet (default: from the "
                                                  "--output file's extension, else table).")]
OutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of the terminal.")]
RulesOpt = Annotated[Optional[str], typer.Option("--rules", "--ruleset", autocompletion=_complete_rules, help="Ruleset whose scores to use, scored "
                                                 "first if needed (default: each game under its own ruleset).")]
def _values_given(ctx: typer.Context, param, values: Optional[list[str]]) -> Optional[list[str]]:
    """A repeatable option's check while the options are parsed: ``--player --limit 5`` takes ``--limit`` as the
    name, and click would only say that ``5`` is an extra argument. A value starting with ``--`` is refused."""
    for v in values or ():
        if v.startswith("--"):
            raise typer.BadParameter(f"needs a value: {v!r} looks like the next option")
    return values


SourceOpt = Annotated[Optional[list[str]], typer.Option("--source", callback=_values_given,
                                                        help="Only hands from this source (repeatable).")]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", callback=_values_given,
                                                         help="Only hands of this variant: belote, coinche... (repeatable).")]
PlayerOpt = Annotated[Optional[list[str]], typer.Option("--player", callback=_values_given,
                                                        help="Only hands where this player sat (repeatable); "
                                                        "per-player reports keep only these players' rows.")]
MinHandsOpt = Annotated[Optional[int], typer.Option("--min-hands", min=1, help="Only rows with at least this many hands.")]
SinceOpt = Annotated[Optional[str], typer.Option("--since", help="Only games played on or after this date or time "
                                                 "(YYYY-MM-DD or ISO 8601, UTC unless an offset is given).")]
UntilOpt = Annotated[Optional[str], typer.Option("--until", help="Only games played before this time, or on or before "
                                                 "this date (YYYY-MM-DD includes the whole day).")]
SortOpt = Annotated[Optional[list[str]], typer.Option("--sort", help="Sort by this column (-COL: descending; "
                                                      "repeatable or comma-separated, the first is the main key).")]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", min=0, help="Only the first N rows (after --sort).")]
ByOpt = Annotated[Optional[str], typer.Option("--by", help="month: the report once per month (UTC) of the games' "
                                              "recorded time, with a month column; games with no time are left "
                                              "out.")]
ColumnsOpt = Annotated[Optional[str], typer.Option("--columns", help="Only these columns, comma-separated, in this "
                                                   "order (every format; a wrong name lists the report's columns).")]

def _salt_given(value: Optional[str]) -> Optional[str]:
    """``--pseudonymize``'s check while the options are parsed: ``--pseudonymize --source x`` takes ``--source`` as
    the salt, and click would only say that ``x`` is an extra argument."""
    if value is not None and value.startswith("-"):
        raise typer.BadParameter(f"needs a SALT: {value!r} looks like the next option (e.g. --pseudonymize my-secret)")
    return value


PseudoOpt = Annotated[Optional[str], typer.Option("--pseudonymize", metavar="SALT", callback=_salt_given,
                                                  help="Replace player names by stable salted hashes (p_ + 12 hex "
                                                       "digits). Same salt: same pseudonyms (linkable); another "
                                                       "salt: unlinkable. Keep the salt secret.")]


def _salt(pseudonymize: Optional[str]) -> Optional[str]:
    if pseudonymize is not None and not pseudonymize:
        _fail("--pseudonymize needs a non-empty salt")
    return pseudonymize


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


COMPILE_NOTE_AFTER = 2.0


def _warm_engine(lake, rules) -> float:
    """Score the lake's first hand before the rescore: when the rules engine has to be compiled for this machine
    (the first rescore after an install or an upgrade; later runs load it from numba's cache), a note says so
    instead of a silent wait. Errors are left to the rescore, which reports them.
    Returns the seconds it took (the rescore's summary counts them)."""
    import threading
    import time

    from pipeline.storage import lake as lakemod
    from pipeline.rescore.own import score_any
    import pyarrow as pa

    t0 = time.perf_counter()
    try:    # the first hand only: read as the hand pass reads (a dataset scan would decode a whole row group)
        first = next((b for _, _, b in lakemod.iter_positioned(lake, "hands", batch_size=1)), None)
    except (OSError, ValueError):
        return 0.0
    if first is None:
        return 0.0
    note = threading.Timer(COMPILE_NOTE_AFTER, lambda: err.print(
        "note: compiling the rules engine for this machine (once after an install or an upgrade; "
        "later runs load it from the cache)"))
    note.daemon = True
    note.start()
    try:
        score_any(pa.Table.from_batches([first.slice(0, 1)]), rules)
    except Exception:   # noqa: BLE001 - the rescore itself meets and reports the same error
        pass
    finally:
        note.cancel()
        pa.default_memory_pool().release_unused()
    return time.perf_counter() - t0


def _has_hands(lake: str) -> bool:
    from pipeline.storage import lake as lakemod
    try:
        return lakemod.has_table(lake, "hands")
    except ValueError as e:          # a URL no filesystem handles
        _fail(str(e))
    except OSError as e:
        _fail(f"lake {lake}: {e}")


def _games_where(variant, player, since, until) -> str:
    """The SQL condition on ``games`` columns for --variant, --player (a real name who sat in the game), --since
    and --until, as the reports read them ('' for none)."""
    return _filters(None, variant, player, None, None, since, until).hands_where()
