"""`rebelote simulate`, `demo`, `show`, `bench`, `formats`, `schema` and `rules ...`."""

from __future__ import annotations


import shlex
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from pipeline.catalog import ALL_TABLES, DEFAULT_LAKE
from pipeline.words import count


from pipeline.cli.lake_cmds import _score_own, ingest
from pipeline.cli.common import (_need_current, app, _complete_rules, _emit, err, EXIT_REJECTED, _fail, FormatOpt, LakeOpt,
                                 _load_rules, _need_lake, out, OutputOpt, _phase_progress, rules_app)


@app.command()
def simulate(
    rules: Annotated[str, typer.Option("--rules", autocompletion=_complete_rules, help="Ruleset to play (its auction style and target).")] = "belote-classic",
    games: Annotated[int, typer.Option("--games", min=1, help="Number of complete games.")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same games).")] = 1,
    output: Annotated[Path, typer.Option("--output", "-o", help="Native JSON Lines file to write.")] = Path("simulated.jsonl"),
) -> None:
    """Deal and play complete legal games with random and heuristic players; writes the native format."""
    from pipeline.simulate.games import simulate_to_file

    try:
        with _phase_progress(f"simulate [{rules}]") as progress:
            n_games, n_hands = simulate_to_file(_load_rules(rules), games, seed, output, progress)
    except ValueError as e:      # a deal shape or auction the simulator cannot play (pipeline.simulate.games.shape_error)
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
        from pipeline.stats import reports as stats
        from pipeline.rules import own

        _score_own(target)     # ingest scored each game under its own ruleset: only if that failed
        for report in ("players", "declarations"):
            out.print(f"\n{report} (each game under its own ruleset)")
            _emit(stats.run_report(target, report, own.OWN), "table", None, stats.display_columns(report), saves=False)
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

    from pipeline.stats import show as showmod, show_game
    _need_current(lake)
    try:
        hands = showmod.game_hands(lake, game, hand)
    except LookupError as e:
        _fail(str(e))
    if rules and len(rules) > 2:
        _fail("show compares at most two rulesets side by side: give --rules once or twice")
    # by default the game's own ruleset as the reports count it (`own`: its source's choice, else its record's)
    names = rules or ["own"]
    from pipeline.stats import report_rules
    from pipeline.rules import RulesetError
    try:
        loaded = [report_rules.game_rules(_load_rules(r, lake), hands[0]) for r in names]
    except RulesetError as e:
        _fail(str(e))
    # the whole game: running totals, carry-over and result after the hands (a per-table target option)
    target = show_game.game_target(lake, hands[0]["game_id"]) if hand is None else None
    # the double-dummy lines, where `rebelote analyse` ran under the ruleset shown: stored under its name, or
    # under "own" (analyse's default) when it is the game's own ruleset
    try:       # a lake whose own rules do not load (a house file moved) still shows the rulesets named
        own_name = report_rules.game_rules(report_rules.load_rules("own", lake), hands[0]).name
    except (RulesetError, OSError):
        own_name = None
    stored = {r.name: list(dict.fromkeys([name, r.name] + (["own"] if r.name == own_name else [])))
              for r, name in zip(loaded, names)}
    analysed = showmod.dd_rows(lake, [h["hand_key"] for h in hands],
                               list(dict.fromkeys(n for ns in stored.values() for n in ns)))
    dd = {}
    for shown, under in stored.items():
        for n_ in reversed(under):        # the first name wins
            dd.update({(shown, k): v for (m, k), v in analysed.items() if m == n_})
    result = show_game.breakdowns(hands, loaded, whole=hand is None, target=target, dd=dd)
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
    _emit(table, "table", None, saves=False)
    grow = benchmod.growth(rows)
    if grow:
        cols = [str(n) for n in sorted({int(k) for g in grow for k in g["seconds"]})]
        gt = pa.Table.from_pylist([{"stage": g["stage"], "what": g["what"],
                                    **{f"s@{c}": g["seconds"].get(c) for c in cols}, "slope": g["slope"]} for g in grow])
        out.print("\nGrowth: seconds against N (log-log slope; 1 = linear)")
        _emit(gt, "table", None, saves=False)
    if json_out:
        json_out.write_bytes(benchmod.to_json(rows))


@app.command()
def formats() -> None:
    """List the input formats `rebelote ingest` recognises."""
    from pipeline import formats as readers

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
    from pipeline.storage import schema
    if dashboards:
        from pipeline.report.dashboard import markdown as dashboards_markdown
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
    chosen = []      # (KEY as given, section, key, ruleset) of each --set
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
            chosen.append((item.partition("=")[0], section, key, rules))
        own.write_overrides(lake, doc)
    try:
        plan = own.plan(lake)
    except RulesetError as e:
        _fail(str(e))
    for given, section, key, rules in chosen:
        if _warn_unknown_key(plan, given, section, key):
            continue
        _warn_unscorable(lake, plan, given, section, key, rules)
    table = pa.table({
        "source": [c.source for c in plan.choices], "variant": [c.variant for c in plan.choices],
        "records_name": pa.array([c.hint for c in plan.choices], pa.string()),
        "ruleset": [c.ruleset for c in plan.choices], "games": pa.array([c.games for c in plan.choices], pa.int64()),
        "why": [c.why for c in plan.choices]})
    _emit(table, format, output, lake=lake)


def _warn_unknown_key(plan, given: str, section: str, key: str) -> bool:
    """Warn when no game of the lake has the source, variant or recorded ruleset a --set names (a typo, or a
    source not imported yet: the choice is kept either way), with the closest names the lake has. Returns
    whether it warned."""
    import difflib

    field, what = {"sources": ("source", "source"), "variants": ("variant", "variant"),
                   "rulesets": ("hint", "records naming")}[section]
    known = sorted({getattr(c, field) for c in plan.choices if getattr(c, field) is not None})
    if key in known:
        return False
    near = difflib.get_close_matches(key, known, n=2, cutoff=0.6)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    listed = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
    err.print(f"[yellow]note:[/] --set {escape(given)}: no game of the lake has {what} '{escape(key)}' "
              f"({hint}the lake's: {escape(listed) or 'none'}); the choice is kept for games imported later")
    return True


def _warn_unscorable(lake, plan, given: str, section: str, key: str, rules, sample: int = 2000) -> None:
    """Warn when ``rules`` cannot score some of the first ``sample`` hands its --set choice ``given`` covers now
    (those ``plan`` scores under it: a variant's choice covers only the games whose records name no shipped
    ruleset), before any report finds them unscored: a coinche ruleset for a source of classic belote games,
    whose bids carry no points."""
    import pyarrow.compute as pc

    from pipeline.rescore import score_batch
    from pipeline.storage import lake as lakemod
    if not lakemod.has_table(lake, "hands"):
        return
    column = {"sources": "source", "variants": "variant", "rulesets": "ruleset_hint"}[section]
    hands = lakemod.dataset(lake, "hands").head(sample + 1, filter=pc.field(column) == key)
    hands = hands.filter(pc.equal(plan.ruleset_of(hands), rules.name))
    more, hands = hands.num_rows > sample, hands.slice(0, sample)
    if hands.num_rows == 0:
        return
    scored = score_batch(hands, rules)
    bad = scored.filter(pc.equal(scored.column("status"), "unscorable"))
    if bad.num_rows:
        reasons = pc.value_counts(bad.column("reason")).to_pylist()
        top = max(reasons, key=lambda r: r["counts"])["values"]
        what = {"sources": f"source {key}", "variants": f"{key} games",
                "rulesets": f"the games whose records name {key}"}[section]
        err.print(f"[yellow]warning:[/] {escape(rules.name)} cannot score {bad.num_rows} of the "
                  f"{'first ' if more else ''}{hands.num_rows} hands it now scores for {escape(what)} (most "
                  f"often: {escape(str(top))}); `rebelote rules sources --unset {escape(given)}` undoes it")


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
    from pipeline.rules import own

    if own.is_own(name):      # what --rules own means is a choice per game, not one ruleset to show
        _fail(f"'{name}' is not one ruleset: each game is scored under its own; `rebelote rules sources --lake DIR` "
              "shows which ruleset each source's games get, and `rebelote rules show NAME` any of them")
    r = _load_rules(name)
    out.print(f"{r.name} ({' < '.join(r.chain)})" + (f"\n{r.description}" if r.description.strip() else "") + "\n")
    keys = sorted(ruleset_keys(r.description, r.sources.values()), key=str.casefold)
    if keys:
        out.print(f"Sources cited ({', '.join(keys)}): see {SOURCES_DOC} in the Rebelote repository.\n")
    for key, value in r.flat().items():
        src = r.sources.get(key, "")
        out.print(f"{key} = {value!r}" + (f"   # {src}" if src else ""))
