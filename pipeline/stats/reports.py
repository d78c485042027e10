"""The SQL reports of ``queries/`` over a lake's views (:mod:`pipeline.stats.views`).

A report is one file ``queries/<name>.sql``: a single SELECT that starts with a ``--`` comment block
(what it answers, its parameters, its columns). Parameters are DuckDB named parameters ``$name``;
:func:`run_report` binds the ones the SQL uses. ``$ruleset`` is special: a report that uses it needs
scores, and when no ruleset is given the only ruleset present in ``scores`` is taken.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.resources import resource_dir
# the views and filters, read by every report and by the modules that import them from here
from pipeline.stats.report_filters import Filters, StatsError, parse_when, sql_str  # noqa: F401
from pipeline.stats import views
from pipeline.stats.views import (ANALYSIS_TABLES, BASE_TABLES, SEATS_COLUMNS, VIEWS, add_macros, connect,  # noqa: F401
                            create_views, derived_needed, filter_player_names, table_sql)

_PARAM = re.compile(r"\$([A-Za-z_]\w*)")


def hand_pairing(con: duckdb.DuckDBPyConnection, a: str, b: str) -> str:
    """How to pair the ``hand_facts`` rows of rulesets ``a`` and ``b`` (the ``$pair_by`` of ``compare``):
    'position' when both partitions number the same hand files (``_hand_seq_basis``) and their rows carry the
    same ``hand_seq`` row by row; 'seq' when they number the same files but their order differs (e.g. a filter
    reordered them); 'key' otherwise (rows computed on the fly, different hand files, a lake on object storage,
    a connection without ``_hand_seq_basis``).

    Row by row: on unfiltered views (``_views_filtered``) each partition holds, as written by
    :func:`pipeline.facts.derived.materialize`, one row per hand of those files in ``hand_seq`` order, so equal row
    counts (read from the Parquet footers) are checked, not the rows; under a filter the rows are checked (one
    pass over two BIGINT columns)."""
    try:
        bases = dict(con.execute("SELECT ruleset, basis FROM _hand_seq_basis WHERE ruleset IN ($a, $b)",
                                 {"a": a, "b": b}).fetchall())
        filtered = con.execute("SELECT filtered FROM _views_filtered").fetchall()[0][0]
    except duckdb.Error:
        return "key"
    if a not in bases or bases.get(b) != bases[a]:
        return "key"
    if not filtered:
        counts = dict(con.execute("SELECT ruleset, count(*) FROM hand_facts WHERE ruleset IN ($a, $b) GROUP BY ruleset",
                                  {"a": a, "b": b}).fetchall())
        return "position" if counts.get(a) == counts.get(b) else "seq"
    differ = con.execute(
        "SELECT count_if(x.hand_seq IS NULL OR x.hand_seq IS DISTINCT FROM y.hand_seq) FROM "
        "(SELECT hand_seq FROM hand_facts WHERE ruleset = $a) x POSITIONAL JOIN "
        "(SELECT hand_seq FROM hand_facts WHERE ruleset = $b) y", {"a": a, "b": b}).fetchall()[0][0]
    return "position" if differ == 0 else "seq"


_PAIRINGS = {"position": "a POSITIONAL JOIN b", "seq": "a JOIN b USING (hand_seq)", "key": "a JOIN b USING (hand_key)"}


def compare_examples(con: duckdb.DuckDBPyConnection, a: str, b: str, n: int, pair_by: str | None = None) -> list[tuple]:
    """The first ``n`` hands (by game_id, then hand_no) scored under both rulesets ``a`` and ``b`` whose hand
    score differs, as (game_id, hand_no, hand_score under a, hand_score under b) tuples, scores in game points
    per team (per player with 3 players).

    ``pair_by``: as in report ``compare`` (None: :func:`hand_pairing`).
    The hands are looked for among the games with the smallest ids first (:func:`_examples_in_first_games`: a
    few hundred hands read, not millions), then, when those hold fewer than ``n``, among all hands."""
    pair_by = pair_by or hand_pairing(con, a, b)
    for games in (4 * n, 64 * n):
        found = _examples_in_first_games(con, a, b, n, "hand_key" if pair_by == "key" else "hand_seq", games)
        if found is not None:
            return found
    return con.execute(
        "WITH a AS (SELECT * FROM hand_facts WHERE ruleset = $a), b AS (SELECT * FROM hand_facts WHERE ruleset = $b) "
        f"SELECT a.game_id, a.hand_no, a.hand_score, b.hand_score FROM {_PAIRINGS.get(pair_by, _PAIRINGS['key'])} "
        "WHERE a.status = 'scored' AND b.status = 'scored' AND a.hand_score IS DISTINCT FROM b.hand_score "
        "ORDER BY a.game_id, a.hand_no LIMIT $n", {"a": a, "b": b, "n": n}).fetchall()


def _examples_in_first_games(con: duckdb.DuckDBPyConnection, a: str, b: str, n: int, key: str,
                             games: int) -> list[tuple] | None:
    """:func:`compare_examples` among the hands whose game_id is at most the ``games``-th smallest of ruleset
    ``a``'s ``game_scores``, or None when they hold fewer than ``n`` such hands (or the lake fewer games): every
    hand of a larger game id sorts after them, so n found are the first n of the whole lake. Reads ruleset
    ``a``'s rows of those games, then ruleset ``b``'s rows of the same hands (``key``: 'hand_seq' or 'hand_key')
    by a list the Parquet scan filters on."""
    bound, counted = con.execute("SELECT max(game_id), count(*) FROM (SELECT game_id FROM game_scores "
                                 "WHERE ruleset = $a ORDER BY game_id LIMIT $k)", {"a": a, "k": games}).fetchall()[0]
    if counted < games:
        return None
    mine = con.execute(f"SELECT {key}, game_id, hand_no, hand_score FROM hand_facts WHERE ruleset = $a "
                       "AND status = 'scored' AND game_id <= $g", {"a": a, "g": bound}).fetchall()
    theirs = dict(con.execute(f"SELECT {key}, hand_score FROM hand_facts WHERE ruleset = $b AND status = 'scored' "
                              f"AND {key} = ANY($keys)", {"b": b, "keys": sorted(r[0] for r in mine)}).fetchall())
    # hand_score IS DISTINCT FROM: lists of ints (or None), compared as Python values
    found = sorted(((g, h, sa, theirs[k]) for k, g, h, sa in mine if k in theirs and sa != theirs[k]),
                   key=lambda r: (r[0], r[1]))
    return found[:n] if len(found) >= n else None


def list_reports() -> list[str]:
    """Names of the shipped reports (``queries/<name>.sql``), sorted."""
    return sorted(p.stem for p in resource_dir("queries").glob("*.sql"))


def report_sql(name: str) -> str:
    """Text of report ``name``. Raises :class:`StatsError` naming the known reports."""
    path = resource_dir("queries") / f"{name}.sql"
    if name not in list_reports():
        raise StatsError(f"unknown report {name!r}; reports: {', '.join(list_reports()) or 'none'}")
    return path.read_text(encoding="utf-8")


def report_doc(name: str) -> str:
    """The leading ``--`` comment block of report ``name``, without the dashes (for ``--help`` / docs)."""
    lines = []
    for line in report_sql(name).splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].removeprefix(" "))
    return "\n".join(lines).strip()


def display_columns(name: str) -> list[str] | None:
    """Columns the terminal table shows (the ``-- display: a, b`` line of the report's header), or None for all."""
    for line in report_doc(name).splitlines():
        if line.startswith("display:"):
            return [c.strip() for c in line.removeprefix("display:").split(",") if c.strip()]
    return None


def report_params(name: str) -> list[str]:
    """Named parameters (``$name``) report ``name`` uses, comments excluded, in first-use order."""
    code = "\n".join(line.split("--", 1)[0] for line in report_sql(name).splitlines())
    return list(dict.fromkeys(_PARAM.findall(code)))


def rulesets(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Rulesets present in the lake's scores (before any filter), sorted."""
    return [r[0] for r in con.execute("SELECT DISTINCT ruleset FROM _all_scores ORDER BY 1").fetchall()]


def unscored_hands(lake: Path | str, ruleset: str, filters: Filters | None = None,
                   con: duckdb.DuckDBPyConnection | None = None) -> int:
    """Hands (after filters) with no row in the ruleset's scores: imported after the last rescore.

    0 at once, without reading any table, when the lake's hand files are those the last rescore of ``ruleset``
    read (:func:`pipeline.facts.derived.hands_unchanged`: that rescore scored every one of their hands); otherwise
    the hands are matched to the scores by ``hand_key``, which takes seconds over millions of hands. ``con``: an
    open :func:`connect` connection made with ``filters`` (one is opened otherwise)."""
    from pipeline.facts import derived
    try:
        if derived.hands_unchanged(lake, ruleset):
            return 0
    except (OSError, ValueError):
        pass
    own = con is None
    con = connect(lake, filters) if own else con
    try:
        return con.execute("SELECT count(*) FROM hands WHERE hand_key NOT IN "
                           "(SELECT hand_key FROM scores WHERE ruleset = $r)", {"r": ruleset}).fetchone()[0]
    finally:
        if own:
            con.close()


def unscorable_by_source(lake: Path | str, ruleset: str, filters: Filters | None = None,
                         con: duckdb.DuckDBPyConnection | None = None) -> list[tuple[str, int, str]]:
    """Hands (after filters) that ``ruleset`` could not score, per source, summary hands left out.

    A hand is unscorable when the ruleset cannot score it (``scores.status = 'unscorable'``), such as a classic
    take under a ruleset that needs a bid value. The reports count such a hand in ``hands`` and ``taken`` but
    give it no points and no contract result, so a source played under other rules shows players with
    ``made_of`` 0/0. Summary hands (score sheets, carg) are not counted, whatever the reason they are unscorable:
    the reports use their recorded scores.

    ``con``: an open :func:`connect` connection made with ``filters`` (one is opened otherwise).

    Returns:
        ``[(source, hands, reasons), ...]``, most hands first: ``hands`` an int count of hands, ``reasons`` the
        source's ``scores.reason`` texts, commonest first, each with its count when there are several ("R1
        7,043; R2 1,240"; past three, how many other reasons). Empty when every hand was scored.
    """
    from pipeline.rescore.reasons import SUMMARY_REASON

    own = con is None
    con = connect(lake, filters) if own else con
    try:
        # summary hands by their completeness too: a 3-player sheet under a 4-player ruleset is unscorable for
        # its player count, yet the reports count its recorded scores
        rows = con.execute("SELECT source, reason, count(*) AS n FROM scores WHERE ruleset = $r "
                           "AND status = 'unscorable' AND reason IS DISTINCT FROM $summary "
                           "AND hand_key NOT IN (SELECT hand_key FROM hands WHERE completeness = 'summary') "
                           "GROUP BY source, reason ORDER BY n DESC, reason",
                           {"r": ruleset, "summary": SUMMARY_REASON}).fetchall()
    finally:
        if own:
            con.close()
    by: dict[str, list[tuple[str, int]]] = {}
    for source, reason, n in rows:                  # commonest first, as queried
        by.setdefault(source, []).append((str(reason), int(n)))

    def said(reasons: list[tuple[str, int]]) -> str:
        if len(reasons) == 1:
            return reasons[0][0]
        text = "; ".join(f"{r} {n:,}" for r, n in reasons[:3])
        return text + (f"; {len(reasons) - 3} other reasons {sum(n for _, n in reasons[3:]):,}"
                       if len(reasons) > 3 else "")
    out = [(source, sum(n for _, n in reasons), said(reasons)) for source, reasons in by.items()]
    return sorted(out, key=lambda t: (-t[1], t[0]))


def resolve_ruleset(con: duckdb.DuckDBPyConnection, ruleset: str | None) -> str:
    """``ruleset`` if it has scores, else the only ruleset scored; :class:`StatsError` naming those found."""
    found = rulesets(con)
    if not found and not con.execute("SELECT 1 FROM hands LIMIT 1").fetchall():   # rescore would say: no hands
        raise StatsError("this report needs scores but the lake holds no hands yet: run rebelote ingest first")
    if ruleset is not None:
        if ruleset not in found:
            raise StatsError(f"no scores for ruleset {ruleset!r} in the lake; rulesets scored: "
                             f"{', '.join(found) or 'none (run rescore first)'}")
        return ruleset
    if not found:
        raise StatsError("this report needs scores but the lake has none: run rescore first")
    if len(found) > 1:
        raise StatsError(f"several rulesets scored ({', '.join(found)}): choose one with --rules")
    return found[0]


def months(lake: Path | str, filters: Filters | None = None) -> list[datetime]:
    """The first instant (UTC) of every month in which a game of the selection was played (games.played_at),
    in order. Games with no recorded time have no month."""
    con = connect(lake, filters)
    try:
        rows = con.execute("SELECT DISTINCT date_trunc('month', played_at AT TIME ZONE 'UTC') AS m FROM games "
                           "WHERE played_at IS NOT NULL ORDER BY m").fetchall()
    finally:
        con.close()
    return [r[0].replace(tzinfo=timezone.utc) for r in rows]


def run_report_by_month(lake: Path | str, name: str, ruleset: str | None = None, filters: Filters | None = None,
                        **params: Any) -> pa.Table:
    """Report ``name`` once per month of :func:`months`, each over the games played in that month (UTC; the
    report's own ``--since``/``--until`` filter, intersected with ``filters``'), stacked with a ``month``
    column ('YYYY-MM') after ``ruleset``. Games with no recorded time are in no month. Raises StatsError as
    :func:`run_report` does."""
    return reports_by_month(lake, [name], [ruleset], filters, **params)[name]


def reports_by_month(lake: Path | str, names: list[str], rulesets: list[str | None], filters: Filters | None = None,
                     **params: Any) -> dict[str, pa.Table]:
    """:func:`run_report_by_month` of each report of ``names`` under each ruleset of ``rulesets`` (stacked by
    ruleset, then month): name -> table. One connection serves every month, report and ruleset
    (:func:`pipeline.stats.views.windows`: only the selected views are made again for each month, and only the
    derived ones the reports read; a dashboard's monthly tables of a few years of games opened hundreds of
    connections)."""
    import dataclasses

    filters = filters or Filters()
    windows = []
    for start in months(lake, filters):
        end = (start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1))
        windows.append((start.strftime("%Y-%m"), dataclasses.replace(
            filters, since=max(start, filters.since) if filters.since else start,
            until=min(end, filters.until) if filters.until else end)))
    if not windows:       # no month: the columns, from a window no game is in
        windows = [(None, dataclasses.replace(filters, since=datetime(1, 1, 1, tzinfo=timezone.utc),
                                              until=datetime(1, 1, 2, tzinfo=timezone.utc)))]
    parts: dict[tuple[str, int], list[pa.Table]] = {(n, i): [] for n in names for i in range(len(rulesets))}
    derived = derived_needed(report_sql(n) for n in names)    # a month's views: only those the reports read
    spans = views.windows(lake, filters, [w for _, w in windows], derived)
    try:
        for (month, window), con in zip(windows, spans):
            for n in names:
                for i, r in enumerate(rulesets):
                    t = run_report_on(con, n, r, window, **params)
                    at = 1 if t.column_names[:1] == ["ruleset"] else 0
                    parts[n, i].append(t.add_column(at, "month", pa.array([month] * t.num_rows if month else [],
                                                                          pa.string())))
    finally:
        spans.close()       # the connection
    return {n: pa.concat_tables([t for i in range(len(rulesets)) for t in parts[n, i]]) for n in names}


def run_report(lake: Path | str, name: str, ruleset: str | None = None, filters: Filters | None = None,
               **params: Any) -> pa.Table:
    """Run report ``name`` over ``lake`` and return its rows as a pyarrow Table.

    Args:
        lake: lake root folder (holding ``hands/``, ``scores/`` ...).
        name: a name of :func:`list_reports`.
        ruleset: ruleset whose scores to report (``$ruleset``); None = the only one scored.
        filters: restrict every view to some sources / variants / players, pseudonymize names (see
            :class:`Filters`).
        params: values of the report's other ``$name`` parameters; those it does not use are ignored.
    Raises:
        StatsError: unknown report, missing lake, ruleset missing/ambiguous, parameter not given.
    """
    report_sql(name)        # an unknown report is said first, lake or not
    con = connect(lake, filters)
    try:
        return run_report_on(con, name, ruleset, filters, **params)
    finally:
        con.close()


def run_report_on(con: duckdb.DuckDBPyConnection, name: str, ruleset: str | None = None,
                  filters: Filters | None = None, **params: Any) -> pa.Table:
    """:func:`run_report` on an open connection from :func:`connect` (made with the same ``filters``):
    several reports then share one connection. Same arguments, result and errors."""
    return _report(con, name, ruleset, filters, params)[0]


def _report(con: duckdb.DuckDBPyConnection, name: str, ruleset: str | None, filters: Filters | None,
            params: dict) -> tuple[pa.Table, dict]:
    """:func:`run_report_on`, and the values of the report's parameters it ran with (``pair_by``: the pairing
    ``compare`` used)."""
    sql = report_sql(name)
    wanted = report_params(name)
    values = dict(params)
    if "ruleset" in wanted:
        values["ruleset"] = resolve_ruleset(con, ruleset)
    if "pair_by" in wanted and "pair_by" not in values and "other" in values:
        values["pair_by"] = hand_pairing(con, values["ruleset"], values["other"])
    missing = [p for p in wanted if p not in values]
    if missing:
        raise StatsError(f"report {name!r} needs parameter(s) {', '.join(missing)}")
    return _run(con, sql, {p: values[p] for p in wanted}, filters), values


def compare(con: duckdb.DuckDBPyConnection, a: str, b: str, filters: Filters | None = None,
            examples: int = 0) -> tuple[pa.Table, list[tuple]]:
    """``rebelote compare``: the rows of report ``compare`` for rulesets ``a`` and ``b`` (one per measure, see
    queries/compare.sql) and, when some hand score differs, up to ``examples`` of those hands
    (:func:`compare_examples`), paired as the report paired them. Raises :class:`StatsError` for a ruleset
    without scores."""
    for r in (a, b):
        resolve_ruleset(con, r)
    table, used = _report(con, "compare", a, filters, {"other": b})
    differ = dict(zip(table.column("measure").to_pylist(), table.column("count").to_pylist())).get("hand score differs")
    return table, (compare_examples(con, a, b, examples, used["pair_by"]) if examples and differ else [])


def _run(con: duckdb.DuckDBPyConnection, sql: str, params: dict, filters: Filters | None) -> pa.Table:
    """Run a report's SQL with its parameters and keep the rows ``filters`` asks for (see :func:`run_report`)."""
    rel = con.sql(sql, params=params)
    # the row filters run in DuckDB, on the report's result (in its order): converting Python values for
    # pyarrow.compute would import pandas, a large share of the command's start-up
    columns, keep = set(rel.columns), []
    if filters and filters.min_hands and "hands" in columns:
        keep.append(f"hands >= {int(filters.min_hands)}")
    if filters and filters.players and ("player" in columns or {"player_a", "player_b"} <= columns):
        names = "(" + ", ".join(sql_str(x) for x in filter_player_names(con, filters)) + ")"
        # pairs: those the player belongs to (the views keep every pair of the games the player sat in)
        keep.append(f"player IN {names}" if "player" in columns else f"(player_a IN {names} OR player_b IN {names})")
    if keep:
        rel = rel.filter(" AND ".join(keep))
    return rel.to_arrow_table()


def lake_values(lake: Path | str, column: str) -> list[str]:
    """Distinct values of a hands column (source, variant) in the lake, for messages."""
    try:
        con = connect(lake)
    except StatsError:
        return []
    try:
        return [r[0] for r in con.execute(f"SELECT DISTINCT {column} FROM _all_hands ORDER BY 1").fetchall()]
    finally:
        con.close()
