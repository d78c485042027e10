"""`rebelote stats ...`, `rejects`, `games` and `compare`: the reports over the lake."""

from __future__ import annotations


import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from pipeline.catalog import DEFAULT_LAKE
from pipeline.words import count


from pipeline.cli.common import (_values_given, _need_current, _games_where, app, ByOpt, ColumnsOpt, _complete_rules, _emit, err, _fail, _filters, _lake_has_table, _load_rules,
                                 FormatOpt, LakeOpt, LimitOpt, MinHandsOpt, _need_lake, out, OutputOpt,
                                 PlayerOpt, PseudoOpt, _report_rules, RulesOpt, _salt, _shape, SinceOpt,
                                 SortOpt, SourceOpt, stats_app, UntilOpt, VariantOpt, _warn_undated)


def _stats(report: str, lake: Path, ruleset: Optional[str], fmt: str, output: Optional[Path],
           source: Optional[list[str]], variant: Optional[list[str]], player: Optional[list[str]] = None,
           min_hands: Optional[int] = None, pseudonymize: Optional[str] = None, since: Optional[str] = None,
           until: Optional[str] = None, sort: Optional[list[str]] = None, limit: Optional[int] = None,
           columns: Optional[str] = None, by: Optional[str] = None) -> None:
    from pipeline.stats import reports as stats
    if by not in (None, "month"):
        _fail(f"--by {by}: the reports group by month only (--by month)")

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize), since, until)
    if "ruleset" in stats.report_params(report):
        ruleset = _report_rules(ruleset, lake)   # scored first when missing or stale; a file: its name
    con = None
    try:
        # one connection for the report and its notes (each connection makes the views again)
        con = None if by else stats.connect(lake, filters)
        table = (stats.run_report_by_month(lake, report, ruleset, filters) if by else
                 stats.run_report_on(con, report, ruleset, filters))
        used = table.column("ruleset")[0].as_py() if table.num_rows and "ruleset" in table.column_names else ruleset
        missing = stats.unscored_hands(lake, used, filters, con) if used else 0
        unscorable = stats.unscorable_by_source(lake, used, filters, con) if used else []
    except stats.StatsError as e:
        _fail(str(e))
    finally:
        if con is not None:
            con.close()
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
                      + (" (no recorded score differs from the rescoring)" if report == "audit" else
                         " (it reads the double-dummy analysis: run `rebelote analyse` first)"
                         if report.startswith("dd_") else ""))
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
                  f"`rebelote rescore --rules {escape(_rules_arg(used))}`")
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
          all_rows=limit is not None, selects=True)


def _rules_arg(name: str) -> str:
    """What `rebelote rescore --rules` takes for the stored ruleset ``name``: a shipped name as it is, a house
    ruleset its file (``NAME.toml``: the name alone is not found)."""
    from pipeline.rules import shipped_names
    return name if name == "own" or name in set(shipped_names()) else f"{name}.toml"


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
    ("dd_players", "Per player, against double-dummy best play (`rebelote analyse` first): share of optimal cards, "
                   "card points lost per hand as taker and as defender, contracts makeable (x/y), coinches right."),
    ("dd_bids", "Contracts against double-dummy best play (`rebelote analyse` first), by strain and level: makeable "
                "(x/y), made (x/y), overbids, underbids, par strain."),
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
    sort: SortOpt = None,
    limit: LimitOpt = None,
    columns: ColumnsOpt = None,
) -> None:
    """Dealt-hand events (carrés, runs, voids, trump length, J+9 of trump) observed against their exact
    probabilities for a uniformly shuffled deck, with a binomial test per event (docs/fairness.md).

    No --rules: the events are those of the dealt cards (and the recorded contract's trump), the same under
    every ruleset."""
    from pipeline.stats.fairness import TRUMP_CAVEAT, fairness_report

    filters = _filters(source, variant, player, min_hands, _salt(pseudonymize), since, until)
    _need_lake(lake)
    try:
        table = fairness_report(lake, by, filters=filters if (source or variant or player or pseudonymize or since
                                                              or until or min_hands) else None)
    except ValueError as e:      # StatsError is a ValueError too
        _fail(str(e))
    shaped = sort or limit is not None or columns
    table = _shape(table, sort, limit, columns) if shaped else table
    _emit(table, format, output, lake=lake, all_rows=limit is not None, selects=True)
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
    predict: Annotated[Optional[list[str]], typer.Option("--predict", callback=_values_given, help="A team, 'A+B' (one name per team in "
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
    teams of two in 4-player games, every player alone in 2- and 3-player games (docs/reports.md, Ratings).
    --since rates only the games from then on (every rating starts afresh there); --as-of the games up to then."""
    from pipeline.stats import ratings
    from pipeline.stats import reports as stats
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
    if filters.pseudonymize and player:       # a real name stands for its pseudonyms, as in the other reports
        player = ratings.as_rated(player, filters.pseudonymize, results)
        if history and len(player) > 1:
            _fail(f"{player[0].partition('@')[0]} is rated in several sources "
                  f"({', '.join(p.partition('@')[2] for p in player)}): write NAME@SOURCE")
    who = player[0].partition("@")[0] if history else None
    summary = ratings.rate(results, partnerships, history_of=who, hold_back=hold_back or 0.0)
    err.print(escape(summary.line(used)))
    _warn_undated(lake, filters, ("--since/--as-of" if since else "--as-of") if as_of else "--since/--until")
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
    _emit(table, format, output, lake=lake, all_rows=limit is not None, selects=True)


@app.command()
def rejects(
    lake: LakeOpt = DEFAULT_LAKE,
    file: Annotated[Optional[str], typer.Option("--file", help="Only rejects of files whose path contains this text.")] = None,
    reason: Annotated[Optional[list[str]], typer.Option("--reason", help="Only this reason code, e.g. card_played_twice "
                                                        "(repeatable; when none matches, the codes the lake "
                                                        "holds are listed).")] = None,
    raw: Annotated[bool, typer.Option("--raw", help="Also show the rejected record's text (first 4 KB).")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", min=0, help="Only the first N rejects (in file and "
                                                 "line order).")] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
) -> None:
    """List the records the lake's imports rejected: file, line, game, hand, reason code and reason.

    Rejects stay until their file changes and is read again without raising them (see `ingest`). When nothing
    matches, the reason codes the lake holds are listed; a --reason that is no reject code is named as such, and
    the command exits 2.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline.storage import lake as lakemod
    _need_lake(lake)
    table = lakemod.read(lake, "rejects")
    if file:
        table = table.filter(pc.match_substring(table.column("source_file"), file))
    present = table.column("reason_code")
    if reason:
        table = table.filter(pc.is_in(table.column("reason_code"), value_set=pa.array(reason, pa.string())))
    table = table.sort_by([("source_file", "ascending"), ("source_line", "ascending"), ("reject_key", "ascending")])
    notes = _reason_notes(reason or [], present, bool(file)) if not table.num_rows else []
    # a code Rebelote never gives is a usage error, as a misspelt option is (exit 2, after saying why)
    unknown = any(n.startswith("--reason ") for n in notes)
    if not table.num_rows and format in (None, "table") and output is None:
        out.print("no rejects" + (" match the filters" if file or reason else " in the lake"))
        for n in notes:
            out.print(n)
        if unknown:
            raise typer.Exit(2)
        return
    for n in notes:
        err.print(escape(n))
    display = ["source_file", "source_line", "game_id", "hand_no", "reason_code", "reason"] + (["raw"] if raw else [])
    if limit is not None and table.num_rows > limit:
        err.print(f"[dim]note: the first {limit} of {count(table.num_rows, 'reject', grouped=True)}[/]")
        table = table.slice(0, limit)
    _emit(table, format, output, display, lake=lake, all_rows=limit is not None)
    if unknown:
        raise typer.Exit(2)


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
    played, the recorded final totals, and the file read (source_file: in csv, json and parquet; on the terminal
    with --columns). The ids are what `rebelote show --game` takes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline.storage import lake as lakemod
    _need_lake(lake)
    _need_current(lake)
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
    _emit(table, format, output, None if columns else cols[:-1], lake=lake, all_rows=limit is not None, selects=True)


def _empty_games(cols: list[str]):
    """An empty ``games`` table with ``cols``."""
    from pipeline.storage import schema
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


def _target(rules) -> str | None:
    """A ruleset's game target as said in a note ("1000", "the record's, else 1000"), None for own rules (each
    game its own ruleset's)."""
    try:
        target, from_record = rules["game.target"], rules["game.target_from_record"]
    except (KeyError, TypeError):
        return None
    return f"the record's, else {target}" if from_record else str(target)


@app.command()
def compare(
    rules: Annotated[list[str], typer.Option("--rules", autocompletion=_complete_rules, help="Two rulesets (each scored over the lake first when its scores are missing or stale).")],
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
    from pipeline.stats import reports as stats
    if len(rules) != 2:
        _fail("give exactly two rulesets: --rules A --rules B")
    loaded = []
    if _lake_has_table(lake, "hands"):
        # both known before either is scored (an unknown second one came after the first's rescore)
        loaded = [_load_rules(r, lake) for r in rules]
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
    targets = [_target(r) for r in loaded]
    if len(targets) == 2 and None not in targets and targets[0] != targets[1]:
        err.print(f"[dim]note: the game targets differ ({escape(a)} {targets[0]}, {escape(b)} {targets[1]}): a game "
                  "ends at another hand under each, so its winner may differ even where no hand's score does[/]")
    for gid, hn, sa, sb in rows:
        lake_arg = "" if str(lake) == str(DEFAULT_LAKE) else f" --lake {shlex.quote(str(lake))}"
        out.print(f"{gid} hand {hn}: {a} {sa} vs {b} {sb}  ->  rebelote show --game {shlex.quote(gid)} "
                  f"--hand {hn} --rules {shlex.quote(a)} --rules {shlex.quote(b)}{lake_arg}")
