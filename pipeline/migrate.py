"""``rebelote migrate``: bring a lake written by an older Rebelote to this one's layout version
(:data:`pipeline.lake.LAKE_VERSION`), so that the readers and writers need no fallback for older layouts.

Each step takes a lake from one version to the next; :func:`migrate` runs the steps needed, all in one
transaction (:mod:`pipeline.commits`): a crash leaves the lake as before, and running it again finishes it.

Version 1 -> 2 (lakes written before the version record): every Parquet file holds every column of its
table's schema. A file of a base table (hands, games, rejects, holdings, scores, game_scores) written before a
column was added gets the column as nulls, which is what every reader already read there, so no value
changes. A stored partition of a derived table (:data:`pipeline.derived.DERIVED`'s tables) with a file that
lacks a column is dropped: the views compute that ruleset's rows from hands and scores instead, the same rows,
until its next rescore writes them again. The version record is then written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from pipeline import lake as lakemod, schema
from pipeline.words import count

@dataclass
class MigrateSummary:
    """What a migration did: the version before and after; per table, files rewritten (base tables) or stored
    partitions dropped (derived tables, computed by the views until the next rescore)."""

    lake: str
    before: int
    after: int
    rewritten: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        if self.before == self.after:
            return f"{self.lake}: already at layout version {self.after}, nothing to do"
        def listed(d: dict[str, int]) -> str:
            return f" ({', '.join(f'{t} {n}' for t, n in d.items() if n)})" if sum(d.values()) else ""
        return (f"{self.lake}: migrated from layout version {self.before} to {self.after}; "
                f"{count(sum(self.rewritten.values()), 'file')} rewritten with the columns they lacked"
                f"{listed(self.rewritten)}, {count(sum(self.dropped.values()), 'stored partition')} of derived "
                f"tables dropped (computed from scores until the next rescore){listed(self.dropped)}")


def _with_every_column(table: str):
    """A :func:`pipeline.lake.rewrite_files` fix: a file's rows with the columns of ``table``'s schema it lacks
    added as nulls (partition columns aside: the folder names hold them), or None when it has them all."""
    parts = set(schema.partition_columns(table))
    want = [f for f in schema.schema(table) if f.name not in parts]

    def fix(t: pa.Table) -> pa.Table | None:
        missing = [f for f in want if f.name not in t.column_names]
        for f in missing:
            t = t.append_column(f.with_nullable(True), pa.nulls(t.num_rows, f.type))
        return t if missing else None
    return fix


def _partitions_missing_columns(lake, table: str) -> list[str]:
    """The partition values of ``table`` with a file that lacks a column of the schema (footers only)."""
    import pyarrow.parquet as pq

    loc = lakemod.locate(lake)
    parts = set(schema.partition_columns(table))
    want = {f.name for f in schema.schema(table)} - parts
    out = []
    for part in lakemod.partitions(loc, table):
        files = lakemod.list_files(loc, table, part)
        if any(want - set(pq.read_schema(loc.fs.open_input_file(f.path)).names) for f in files):
            out.append(part)
    return out


def _v1_to_v2(lake, summary: "MigrateSummary") -> None:
    from pipeline.derived import DERIVED

    for table in schema.TABLES:
        if table in DERIVED:
            gone = _partitions_missing_columns(lake, table)
            for part in gone:
                lakemod.drop_partition(lake, table, part.split("=", 1)[1])
            summary.dropped[table] = len(gone)
        else:
            summary.rewritten[table] = lakemod.rewrite_files(lake, table, _with_every_column(table))


#: version -> the step that takes a lake of that version to the next one
STEPS = {1: _v1_to_v2}


def migrate(lake) -> MigrateSummary:
    """Run every step from the lake's version to :data:`pipeline.lake.LAKE_VERSION`, in one transaction, under
    the lake lock (which first finishes or undoes a write left half-way, an earlier migration's included).
    Raises :class:`pipeline.lake.LakeVersionError` for a lake newer than this code (the lock refuses it)."""
    loc = lakemod.locate(lake)
    with lakemod.lock(loc, migrating=True):
        before = lakemod.version(loc)
        summary = MigrateSummary(loc.uri, before, lakemod.LAKE_VERSION)
        if before == lakemod.LAKE_VERSION:       # current, or empty (its first write records the version)
            return summary
        for v in range(before, lakemod.LAKE_VERSION):
            STEPS[v](loc, summary)
        lakemod.write_version(loc)
    return summary
