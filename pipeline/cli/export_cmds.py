"""`rebelote export` (JSON Lines, the dashboard database) and `report --html`."""

from __future__ import annotations


import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from pipeline.catalog import DEFAULT_LAKE
from pipeline.words import count
from typer.core import TyperGroup

from pipeline.cli.common import (_need_current, _games_where, app, _complete_rules, err, _fail, _filters, _has_hands,
                                 _lake_has_table, LakeOpt, out,
                                 _outside_lake, _phase_progress, PlayerOpt, PseudoOpt, _report_rules, _salt,
                                 SinceOpt, SourceOpt, UntilOpt, VariantOpt)


class _ExportGroup(TyperGroup):
    """``export`` with a hint for the formats a report writes: CSV, JSON and Parquet come from ``stats``."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if name in ("csv", "json", "parquet") and name not in self.commands:
            ctx.fail(f"`export` writes the lake as native JSON Lines (`export jsonl`) or a DuckDB file "
                     f"(`export duckdb`); a report as {name.upper()} is `rebelote stats REPORT --output "
                     f"FILE.{name}` (e.g. `rebelote stats players -o players.{name}`)")
        return super().resolve_command(ctx, args)


export_app = typer.Typer(cls=_ExportGroup, help="Export the lake: native JSON Lines (`export jsonl`, or `export --format jsonl` as "
                                "before) or a DuckDB database for dashboards (`export duckdb FILE.duckdb`).")
app.add_typer(export_app, name="export", invoke_without_command=True)


def _export_jsonl(output: Optional[Path], lake: Path, source: Optional[list[str]], salt: Optional[str],
                  where: str = "") -> None:
    import gzip

    from pipeline.report.export import export_jsonl

    if not _has_hands(lake):
        _fail(f"no hands in lake {lake}")
    _need_current(lake)
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
        hint = ("; a report as CSV, JSON or Parquet is `rebelote stats REPORT --output FILE.csv` (e.g. `rebelote "
                "stats players -o players.csv`)" if format.lower() in ("csv", "json", "parquet") else "")
        _fail(f"unknown export format {format!r}; available: jsonl (for DuckDB: rebelote export duckdb FILE.duckdb)"
              + hint)
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
    from pipeline.report import dashboard
    from pipeline.stats import reports as stats
    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize))
    _outside_lake(file, lake)
    if not file.parent.is_dir():
        _fail(f"cannot write {file}: no folder {file.parent}")
    # as every report: the rulesets named (or, by default, each game's own) scored first when their scores are
    # missing or stale; by default every ruleset the lake holds scores of is exported, its own among them
    names = [_report_rules(r, lake) for r in rules or [None]]
    names = names if rules else []
    if not rules:
        _warn_stale_others(lake)
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


def _warn_stale_others(lake) -> None:
    """Every ruleset exported by default whose scores are stale (the default one was just rescored): say so, and
    the command that updates it. Its tables hold the games its scores answer for (a report over stale scores
    leaves the stale games out), so the file is not silently partial."""
    from pipeline.rules import RulesetError, load
    from pipeline.stats import report_rules

    if not _lake_has_table(lake, "hands"):
        return
    scored = report_rules.scored(lake)
    for name in scored:
        try:
            why = report_rules.staleness(lake, load(name), scored) if name != "own" else ""
        except (RulesetError, OSError, ValueError):
            continue       # a house ruleset known by its record only: the reports say what they can
        if why:
            err.print(f"[yellow]warning:[/] the scores under {escape(name)} are stale ({escape(why)}): exported as "
                      f"they stand, without the games they do not answer for; `rebelote rescore --rules "
                      f"{shlex.quote(name)} --lake {shlex.quote(str(lake))}` updates them")


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
    from pipeline.report import html_report
    from pipeline.stats import reports as stats
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
