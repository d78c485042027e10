"""Statistics over a lake: DuckDB views on the Parquet tables, and the SQL reports of ``queries/``.

:func:`connect` opens an in-memory DuckDB connection with one view per table of :data:`schema.TABLES`
(``hands``, ``games``, ``rejects``, ``scores``, ``game_scores``) over ``LAKE/<table>/**/*.parquet``
(hive partitions such as ``source=...`` / ``ruleset=...`` become VARCHAR columns). A table with no
files is still a view, with no rows and the columns of its schema, so queries never fail on a young
lake. Each view has the schema's columns first, in schema order (files missing a column read NULL).

It adds the view ``seats``: one row per hand per seat, to make player queries simple:

    hand_key, game_id, hand_no, source, n_players   the hand (as in ``hands``)
    seat      int     0..n_players-1
    team      int     seat % 2 in 2- and 4-player games (team 0 = seats 0 and 2), the seat itself in 3-player
    player    string  hands.players[seat]
    partner   string  the partner's name (seat + 2) in 4-player games, else NULL
    taker     int8    hands.taker (NULL when passed out)
    is_taker  bool    taker = seat (false when passed out)

A report is one file ``queries/<name>.sql``: a single SELECT that starts with a ``--`` comment block
(what it answers, its parameters, its columns). Parameters are DuckDB named parameters ``$name``;
:func:`run_report` binds the ones the SQL uses. ``$ruleset`` is special: a report that uses it needs
scores, and when no ruleset is given the only ruleset present in ``scores`` is taken.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dataclasses import dataclass

import duckdb
import pyarrow as pa

from pipeline import schema
from pipeline.resources import resource_dir

_PARAM = re.compile(r"\$([A-Za-z_]\w*)")


class StatsError(ValueError):
    """A report that cannot run: unknown name, missing lake, missing or ambiguous ruleset, missing parameter."""


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Filters:
    """Row filters applied to the lake's views, so every report honours them.

    sources / variants: keep hands whose ``source`` / ``variant`` is in the tuple (None = all);
    players: keep hands where one of these names sat. Scores, games and game results follow the hands kept.
    min_hands: after the report runs, keep rows whose ``hands`` column is at least this (reports without one
    are unchanged).
    """

    sources: tuple[str, ...] | None = None
    variants: tuple[str, ...] | None = None
    players: tuple[str, ...] | None = None
    min_hands: int | None = None

    def hands_where(self) -> str:
        conds = []
        if self.sources:
            conds.append(f"source IN ({', '.join(_sql_str(x) for x in self.sources)})")
        if self.variants:
            conds.append(f"variant IN ({', '.join(_sql_str(x) for x in self.variants)})")
        if self.players:
            conds.append(f"len(list_intersect(players, [{', '.join(_sql_str(x) for x in self.players)}])) > 0")
        return " AND ".join(conds)


def connect(lake: Path | str, filters: Filters | None = None) -> duckdb.DuckDBPyConnection:
    """In-memory DuckDB connection with views ``hands games rejects scores game_scores seats`` over ``lake``
    (a folder, or a URL such as ``s3://bucket/lake`` or ``file:///abs/lake``: see :func:`pipeline.lake.locate`).

    With ``filters``, the views hold only the selected hands and what belongs to them.
    Raises :class:`StatsError` when ``lake`` is not a folder or a table's files cannot be read together
    (e.g. partitioned and unpartitioned files mixed). Missing table folders give empty views.
    """
    from pipeline import lake as lakemod

    try:
        loc = lakemod.locate(lake)
    except ValueError as e:
        raise StatsError(str(e)) from e
    if not lakemod.exists(loc):
        raise StatsError(f"lake folder not found: {lake}")
    from pipeline.duck import duckdb_connection
    con = duckdb_connection(default_limit="4GB")   # $REBELOTE_DUCKDB_MEMORY: big reports spill to disk past it
    for table in schema.TABLES:
        empty = f"_empty_{table}"
        con.register(empty, schema.empty(table))
        if lakemod.has_table(loc, table):
            if loc.local:
                # partition values stay VARCHAR (no autocast: a source named '2023' is not a number)
                hive = "true, hive_types_autocast = false" if schema.partition_columns(table) else "false"
                src = (f"read_parquet({_sql_str(loc.path(table, '**', '*.parquet'))}, "
                       f"hive_partitioning = {hive}, union_by_name = true)")
            else:
                # object storage: pyarrow's filesystem reads the files (DuckDB's httpfs is not needed), DuckDB
                # scans the Arrow dataset with projection and filter pushdown
                src = f"_arrow_{table}"
                con.register(src, lakemod.dataset(loc, table))
            # the empty table first: its columns (schema order, schema types) lead, files fill them by name
            try:
                con.execute(f"CREATE VIEW _all_{table} AS SELECT * FROM {empty} UNION ALL BY NAME SELECT * FROM {src}")
            except duckdb.Error as e:
                con.close()
                raise StatsError(f"cannot read table {table!r} under {loc.path(table)}: {e}") from e
        else:
            con.execute(f"CREATE VIEW _all_{table} AS SELECT * FROM {empty}")
    where = (filters or Filters()).hands_where()
    if where:
        con.execute(f"CREATE VIEW hands AS SELECT * FROM _all_hands WHERE {where}")
        con.execute("CREATE VIEW scores AS SELECT * FROM _all_scores WHERE hand_key IN (SELECT hand_key FROM hands)")
        for table in ("games", "game_scores"):
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM _all_{table} WHERE game_id IN (SELECT game_id FROM hands)")
    else:
        for table in ("hands", "scores", "games", "game_scores"):
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM _all_{table}")
    con.execute("CREATE VIEW rejects AS SELECT * FROM _all_rejects")
    con.execute("""
        CREATE VIEW seats AS
        SELECT hand_key, game_id, hand_no, source, n_players,
               seat::TINYINT AS seat,
               (CASE WHEN n_players = 3 THEN seat ELSE seat % 2 END)::TINYINT AS team,
               players[seat + 1] AS player,
               CASE WHEN n_players = 4 THEN players[(seat + 2) % 4 + 1] END AS partner,
               taker,
               coalesce(taker = seat, false) AS is_taker
        FROM (SELECT *, unnest(range(len(players))) AS seat FROM hands)
    """)
    return con


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


def unscored_hands(lake: Path | str, ruleset: str, filters: Filters | None = None) -> int:
    """Hands (after filters) with no row in the ruleset's scores: imported after the last rescore."""
    con = connect(lake, filters)
    try:
        return con.execute("SELECT count(*) FROM hands WHERE hand_key NOT IN "
                           "(SELECT hand_key FROM scores WHERE ruleset = $r)", {"r": ruleset}).fetchone()[0]
    finally:
        con.close()


def resolve_ruleset(con: duckdb.DuckDBPyConnection, ruleset: str | None) -> str:
    """``ruleset`` if it has scores, else the only ruleset scored; :class:`StatsError` naming those found."""
    found = rulesets(con)
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


def run_report(lake: Path | str, name: str, ruleset: str | None = None, filters: Filters | None = None,
               **params: Any) -> pa.Table:
    """Run report ``name`` over ``lake`` and return its rows as a pyarrow Table.

    Args:
        lake: lake root folder (holding ``hands/``, ``scores/`` ...).
        name: a name of :func:`list_reports`.
        ruleset: ruleset whose scores to report (``$ruleset``); None = the only one scored.
        filters: restrict every view to some sources / variants (see :class:`Filters`).
        params: values of the report's other ``$name`` parameters; those it does not use are ignored.
    Raises:
        StatsError: unknown report, missing lake, ruleset missing/ambiguous, parameter not given.
    """
    sql = report_sql(name)
    wanted = report_params(name)
    con = connect(lake, filters)
    try:
        values = dict(params)
        if "ruleset" in wanted:
            values["ruleset"] = resolve_ruleset(con, ruleset)
        missing = [p for p in wanted if p not in values]
        if missing:
            raise StatsError(f"report {name!r} needs parameter(s) {', '.join(missing)}")
        result = con.sql(sql, params={p: values[p] for p in wanted}).to_arrow_table()
        if filters and filters.min_hands and "hands" in result.column_names:
            import pyarrow.compute as pc
            result = result.filter(pc.greater_equal(result.column("hands"), filters.min_hands))
        if filters and filters.players and "player" in result.column_names:
            import pyarrow.compute as pc
            result = result.filter(pc.is_in(result.column("player"), pa.array(list(filters.players))))
        return result
    finally:
        con.close()


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
