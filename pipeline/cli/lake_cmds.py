"""`rebelote ingest`, `rescore`, `status`, `recover`, `migrate` and `compact`: the commands that write the lake."""

from __future__ import annotations


import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from pipeline.catalog import DEFAULT_LAKE
from pipeline import limits as _limits     # the reading limits' defaults (imports nothing heavy)
from pipeline.terminal import printable


from pipeline.cli.common import (app, _phase_progress, _report_rules, _complete_rules, err, EXIT_REJECTED, _fail, _has_hands, _lake_has_table,
                                 LakeOpt, _LIMITS, _load_rules, _need_lake, out, _run_rescore)


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
    from pipeline import formats as readers

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

    from pipeline.cli.ingest_console import IngestConsole
    from pipeline.ingest.input_files import walk
    from pipeline.limits import Limits

    try:
        sizes = {str(p): p.stat().st_size for p in walk(paths)}
    except OSError as e:          # missing, or not a regular file (a pipe): exit 2
        _fail(str(e))
    try:
        lake_option = "" if str(lake) == str(DEFAULT_LAKE) else f" --lake {shlex.quote(str(lake))}"
        with IngestConsole(err, sizes, quiet, verbose, lake_option) as console:
            summary = ingest_paths(paths, lake, fmt=format, strict=strict, reread=reread,
                                   lenient=on_error == "lenient", prune=prune,
                                   bounds=Limits(max_bytes, max_ratio, max_line_bytes, max_depth), **console.callbacks())
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
    from pipeline.stats import report_rules
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
                                         "(one more batch in memory each; score_batch runs faster on two threads when two cores are free).")] = 1,
    batch_size: Annotated[Optional[int], typer.Option("--batch-size", min=1024, help="Hands read and scored at a "
                                                      "time (this bounds memory; default 32768).")] = None,
    no_derived: Annotated[bool, typer.Option("--no-derived", help="Do not write the derived report tables (player_games, "
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
    from pipeline.rules.own import OwnRules
    from pipeline.stats.scored_with import changed_parameters, describe
    for i, r in enumerate(loaded.values()):
        try:
            size = {} if batch_size is None else {"batch_size": batch_size}
            changed = [] if isinstance(r, OwnRules) else changed_parameters(lake, r)
            summary = _run_rescore(lake, r, quiet=as_json, warm_up=i == 0, engine=engine, threads=threads,
                                   derived=not no_derived, update=update, **size)
            if as_json:
                out.print_json(data=summary.to_dict(), indent=None)
            if changed:     # a house-rules file edited, or another file of the same name: say what was replaced
                err.print(f"[dim]note: ruleset '{escape(r.name)}' was scored before with other values "
                          f"({escape(describe(changed))}): those scores and report rows were replaced[/]")
        except EngineUnavailable as e:
            _fail(str(e))
        except OSError as e:
            _fail(f"{e.filename or lake}: {e.strerror or e}")


#: seconds the first hand may take to score before the rescore says the rules engine is being compiled


@app.command()
def status(
    lake: LakeOpt = DEFAULT_LAKE,
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as one JSON object.")] = False,
) -> None:
    """What the lake holds (sources, games, hands, dates, rejects by reason), which rulesets are scored and
    whether each is fresh, and the next command to run when something is stale."""
    import json

    from pipeline.maintenance.status import lake_status

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
    from pipeline.storage import commits
    from pipeline.storage import lake as lakemod
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
    as before). An older lake is neither read nor written until it is migrated."""
    from pipeline.maintenance import migrate as migration
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
    from pipeline.maintenance import compaction
    from pipeline.storage import schema
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


@app.command()
def analyse(
    rules: Annotated[Optional[str], typer.Option("--rules", autocompletion=_complete_rules, help="The scoring whose "
                                                 "hands to analyse (default: each game under its own rules); scored "
                                                 "first when its scores are missing or stale.")] = None,
    lake: LakeOpt = DEFAULT_LAKE,
    sample: Annotated[Optional[int], typer.Option("--sample", min=1, help="Analyse this many hands at most, the same "
                                                  "ones each time (chosen by the hash of their keys).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Processes solving at once (one per core).")] = 1,
    engine: Annotated[str, typer.Option("--engine", help="local (this process, or --workers processes) or ray "
                                        "(each batch of hands a Ray task; needs the 'ray' extra; joins $RAY_ADDRESS "
                                        "if set).")] = "local",
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Double-dummy analysis of every hand (2, 3 or 4 players) with its deal and whole play: what the taker's side
    makes with best play in the contract's strain and in each strain (par), whether the contract was makeable, and
    what each card played cost its side. Writes the dd_hands table (`rebelote stats dd-players` reports it;
    `rebelote show` adds it to each trick). Solving takes a fraction of a CPU-second a hand: use --sample and
    --workers on a large lake."""
    from pipeline.stats import analyse as analyse_mod
    from pipeline.stats import reports as stats
    from pipeline.rescore.ray_engine import EngineUnavailable
    from pipeline.rules import RulesetError

    if engine not in analyse_mod.ENGINES:
        _fail(f"unknown engine {engine!r}; engines: {', '.join(analyse_mod.ENGINES)}")
    _need_lake(lake)
    used = _report_rules(rules, lake)
    with _phase_progress("analyse") as progress:
        try:
            summary = analyse_mod.analyse_lake(lake, used or "own", sample, workers, engine=engine,
                                               progress=lambda done, total: progress("hands", done, total))
        except (stats.StatsError, RulesetError, EngineUnavailable) as e:
            _fail(str(e))
        except OSError as e:
            _fail(f"{e.filename or lake}: {e.strerror or e}")
    if as_json:
        out.print_json(data=summary.to_dict(), indent=None)
    else:
        out.print(str(summary))
