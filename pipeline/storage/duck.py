"""DuckDB connections over the lake: memory-limited (spilling to disk), streaming Arrow results, and the
``FROM`` source of a table (DuckDB's own Parquet reader on a local lake, a registered pyarrow dataset on
object storage, where DuckDB would need its httpfs extension)."""

from __future__ import annotations

import os
import tempfile

import duckdb

from pipeline.storage import lake as lakemod

from pipeline.storage import schema
def memory_limit(default: str = "1GB") -> str:
    """DuckDB's memory limit for Rebelote's connections: ``$REBELOTE_DUCKDB_MEMORY`` (e.g. '4GB') when set, else
    ``default``. Past it DuckDB spills sorts, joins and aggregates to disk instead of growing."""
    return os.environ.get("REBELOTE_DUCKDB_MEMORY", default)


PASS_LIMIT = "512MB"
"""DuckDB's default memory limit in the rescore's passes (the game pass's sort by game, the game-level report
tables, the hand pass's per-batch SQL). They spill past it, so a larger lake costs disk rather than memory; a
larger limit bought no CPU at 10^7 hands, and a much smaller one makes the sort fail (docs/bench-results.md,
"Rescore memory at 10^7 hands")."""


def duckdb_connection(tmp: str | None = None, default_limit: str = "1GB") -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection that spills to ``tmp`` (default: a ``rebelote-duckdb`` folder in the
    system's temporary folder) past :func:`memory_limit` (``default_limit`` when the variable is unset)."""
    tmp = tmp or os.path.join(tempfile.gettempdir(), "rebelote-duckdb")
    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit = '{memory_limit(default_limit)}'")
    con.execute("SET enable_progress_bar = false")     # no progress bar drawn over the command's own output
    con.execute(f"SET temp_directory = '{tmp}'")
    con.execute("SET TimeZone = 'UTC'")
    return con


def arrow_reader(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None, batch_rows: int):
    """A ``pyarrow.RecordBatchReader`` over a query's result, ``batch_rows`` rows at a time (streamed: DuckDB
    produces the rows as they are read). Run two at once on two ``con.cursor()``s."""
    rel = con.sql(sql, params=params or None)
    for name in ("to_arrow_reader", "fetch_arrow_reader", "record_batch"):   # DuckDB 2.x, then 1.x names
        if hasattr(rel, name):
            return getattr(rel, name)(batch_rows)
    raise RuntimeError("this DuckDB version has no streaming Arrow reader")


def sql_list(paths: list[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def empty_sql(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """A SELECT of no rows with ``table``'s schema columns, in schema order, as DuckDB types (written as SQL casts,
    so it works on any connection). ``{empty_sql} UNION ALL BY NAME SELECT * FROM files`` reads files written
    before a column was added to the schema with that column null."""
    if table not in _EMPTY:      # the same on every connection: made once per process
        rel = con.from_arrow(schema.empty(table))
        _EMPTY[table] = ("SELECT " + ", ".join(f"CAST(NULL AS {ty}) AS {quote(c)}" for c, ty in zip(rel.columns, rel.types))
                         + " WHERE false")
    return _EMPTY[table]


_EMPTY: dict[str, str] = {}


def quote(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def table_source(con: duckdb.DuckDBPyConnection, lake, table: str, files: list[str] | None = None) -> str:
    """SQL for a ``FROM`` clause reading ``table`` of ``lake`` (or only ``files`` of it), with its hive partition
    columns as VARCHAR. Local lake: ``read_parquet`` (its memory counts against DuckDB's limit); other
    filesystems: the pyarrow dataset registered on ``con`` as ``_ds_<table>``. ``files`` must not be empty."""
    loc = lakemod.locate(lake)
    if files is None:
        files = [f.path for f in lakemod.list_files(loc, table)]
    if loc.local:
        hive = "true, hive_types_autocast = false" if schema.partition_columns(table) else "false"
        return f"read_parquet({sql_list(files)}, hive_partitioning = {hive}, union_by_name = true)"
    name = f"_ds_{table}"
    con.register(name, lakemod.dataset(loc, table))
    return name
