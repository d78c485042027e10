"""``rebelote migrate``: bring a lake written by an older Rebelote to this one's layout version
(:data:`pipeline.storage.lake.LAKE_VERSION`), so that the readers and writers need no fallback for older layouts.

Each step takes a lake from one version to the next; :func:`migrate` runs the steps needed, all in one
transaction (:mod:`pipeline.storage.commits`): a crash leaves the lake as before, and running it again finishes it.

Version 1 -> 2 (lakes written before the version record): every Parquet file holds every column of its
table's schema. A file of a base table (hands, games, rejects, holdings, scores, game_scores) written before a
column was added gets the column as nulls, which is what every reader already read there, so no value
changes. A stored partition of a derived table (:data:`pipeline.facts.derived.DERIVED`'s tables) with a file that
lacks a column is dropped: the views compute that ruleset's rows from hands and scores instead, the same rows,
until its next rescore writes them again. The version record is then written.

Version 2 -> 3 (keys over typed columns): every ``hand_key`` and ``game_key`` is recomputed from the rows'
columns (:mod:`pipeline.formats.content_keys`), where version 2 hashed a reader's JSON text of them. Every table
that names a hand by its key (scores, holdings, the derived tables) gets the new key of that hand; a row whose
hand is not in the lake keeps its key (it named no stored hand before either). That includes the ``holdings``
rows of copies that were not stored (a poorer copy, a single-deal copy replaced by a richer one): their content is
not in the lake, so their new key cannot be computed; a file read again writes them anew, and taking hands over
matches such rows by game id and deal, not by key. No other value changes, and the
scores and derived rows stay fresh (the rulesets that were fresh are recorded against the rewritten hand files).

Version 3 -> 4 (ingest no longer deletes what was computed from a game it replaces): every ``game_scores`` row
gets the ``game_key`` of its game (version 3 deleted the results of a replaced game, so the stored rows are
those of the games as they are), and the rulesets that were fresh record the game files too
(:func:`pipeline.facts.derived.hands_unchanged` now compares both).

Version 5 -> 6 (``player_hands`` and ``pair_hands`` no longer stored: the rescore adds their rows up into
``player_games`` and ``pair_games`` as it makes them): their stored partitions are dropped, and the views compute
their rows from hands and scores whenever they are read. No report reads them but for the games a filter selects
in part, so no report's rows change.

Version 6 -> 7 (``dealt_events`` no longer stored: the fairness report counts the events from the deals): its
stored partitions are dropped the same way; its view computes the rows from ``hands``.

Version 7 -> 8 (``player_games.coinches_decided``, the denominator of the players report's coinches won): the
stored ``player_games`` partitions written without the column are dropped, as step 4 -> 5 drops them; the views
compute those rows until the next rescore writes them again.

Version 8 -> 9 (belote-rebelote counted per team, so that a hand where both teams hold one, in all-trump, counts
for both: ``hand_facts.belote_teams``, and ``player_games.team_belotes`` from each team's belote points; and no
capot made or suffered by a name seated on both teams): the
stored ``hand_facts`` and ``player_games`` partitions are dropped, as written with the old count; the views
compute those rows until the next rescore writes them again.

Version 9 -> 10 (a name, or a pair, seated on both teams of a hand has no points in it): the stored
``player_games`` and ``pair_games`` partitions are dropped when some hand of the lake repeats a name (the only
hands whose rows change); a lake whose hands all seat distinct names keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import lake_write
from pipeline.storage import lake as lakemod
from pipeline.storage import schema
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
    rekeyed: dict[str, int] = field(default_factory=dict)
    results_keyed: int = 0      # game_scores files given their games' keys (3 -> 4)
    completed: dict[str, int] = field(default_factory=dict)   # derived partitions lacking a column dropped (4 -> 5, 7 -> 8)
    unstored: dict[str, int] = field(default_factory=dict)    # partitions of tables no longer stored dropped (5 -> 6, 6 -> 7)
    recounted: dict[str, int] = field(default_factory=dict)   # partitions written with an old count dropped (8 -> 9, 9 -> 10)

    def __str__(self) -> str:
        if self.before == self.after:
            return f"{self.lake}: already at layout version {self.after}, nothing to do"
        def listed(d: dict[str, int]) -> str:
            return f" ({', '.join(f'{t} {n}' for t, n in d.items() if n)})" if sum(d.values()) else ""
        text = f"{self.lake}: migrated from layout version {self.before} to {self.after}"
        if self.before < 2:
            text += (f"; {count(sum(self.rewritten.values()), 'file')} rewritten with the columns they lacked"
                     f"{listed(self.rewritten)}, {count(sum(self.dropped.values()), 'stored partition')} of derived "
                     f"tables dropped (computed from scores until the next rescore){listed(self.dropped)}")
        if self.before < 3:
            text += (f"; keys recomputed from the typed columns, {count(sum(self.rekeyed.values()), 'file')} "
                     f"rewritten{listed(self.rekeyed)}")
        if self.before < 4:
            text += (f"; game results keyed by the game they were computed from, "
                     f"{count(self.results_keyed, 'file')} rewritten")
        if sum(self.completed.values()):
            text += (f"; {count(sum(self.completed.values()), 'stored partition')} of derived tables written before "
                     f"a column was added dropped{listed(self.completed)} (the reports compute them from the scores; "
                     f"`rebelote rescore` writes them again)")
        if sum(self.unstored.values()):
            text += (f"; {count(sum(self.unstored.values()), 'stored partition')} of tables no longer stored dropped"
                     f"{listed(self.unstored)} (their rows are computed from the hands and scores when read)")
        if sum(self.recounted.values()):
            text += (f"; {count(sum(self.recounted.values()), 'stored partition')} of derived tables counted anew "
                     f"dropped{listed(self.recounted)} (the reports compute them from the scores; "
                     f"`rebelote rescore` writes them again)")
        return text


def _with_every_column(table: str):
    """A :func:`pipeline.storage.lake_write.rewrite_files` fix: a file's rows with the columns of ``table``'s schema it lacks
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
    from pipeline.facts.derived import DERIVED

    for table in schema.TABLES:
        if table in DERIVED:
            gone = _partitions_missing_columns(lake, table)
            for part in gone:
                lake_write.drop_partition(lake, table, part.split("=", 1)[1])
            summary.dropped[table] = len(gone)
        else:
            summary.rewritten[table] = lake_write.rewrite_files(lake, table, _with_every_column(table))


def _new_hand_keys(lake) -> pa.Table:
    """(old, new, game_id, hand_no) of every stored hand, ``new`` its key over its typed columns."""
    from pipeline.formats.content_keys import HAND_FIELDS, hand_keys

    parts = []
    for t in lakemod.iter_batches(lake, "hands", columns=["hand_key", *HAND_FIELDS]):
        parts.append(pa.table({"old": t.column("hand_key"), "new": hand_keys(t), "game_id": t.column("game_id"),
                               "hand_no": t.column("hand_no")}))
    sch = pa.schema([("old", pa.string()), ("new", pa.string()), ("game_id", pa.string()), ("hand_no", pa.int32())])
    return pa.concat_tables(parts).cast(sch) if parts else sch.empty_table()


def _remap(column: str, old: pa.Array, new: pa.Array):
    """A :func:`pipeline.storage.lake_write.rewrite_files` fix: ``column``'s values found in ``old`` replaced by the ``new``
    value at the same position (others kept), or None when no value changes."""
    def fix(t: pa.Table) -> pa.Table | None:
        if column not in t.column_names or not t.num_rows:
            return None
        cur = t.column(column)
        at = pc.index_in(cur, value_set=old)
        mapped = pc.coalesce(pc.take(new, at), cur)
        if pc.all(pc.equal(mapped, cur)).as_py():
            return None
        return t.set_column(t.column_names.index(column), t.schema.field(column), mapped)
    return fix


def _v2_to_v3(lake, summary: "MigrateSummary") -> None:
    from pipeline.facts import derived
    from pipeline.formats.content_keys import GAME_FIELDS, game_keys

    fresh = _fresh_by_hands(lake)
    keys = _new_hand_keys(lake)
    # each game's new hand keys in hand-number order
    by_game = keys.sort_by([("game_id", "ascending"), ("hand_no", "ascending")]).group_by(
        "game_id", use_threads=False).aggregate([("new", "list")])
    gids, lists = by_game.column("game_id").combine_chunks(), by_game.column("new_list").combine_chunks()

    def rekey_games(t: pa.Table) -> pa.Table | None:
        at = pc.index_in(t.column("game_id"), value_set=gids)
        hands = pc.take(lists, at)
        hands = pc.if_else(pc.is_null(hands), pa.scalar([], pa.list_(pa.string())), hands)
        new = game_keys(t.select(list(GAME_FIELDS)), hands)
        if pc.all(pc.equal(new, t.column("game_key"))).as_py():
            return None
        return t.set_column(t.column_names.index("game_key"), t.schema.field("game_key"), new)

    summary.rekeyed["games"] = lake_write.rewrite_files(lake, "games", rekey_games)
    old, new = keys.column("old").combine_chunks(), keys.column("new").combine_chunks()
    for table in schema.ALL_TABLES:
        if "hand_key" in schema.schema(table).names:
            summary.rekeyed[table] = lake_write.rewrite_files(lake, table, _remap("hand_key", old, new))
    derived.record_hands(lake, fresh)


def _fresh_by_hands(lake) -> list[str]:
    """The rulesets fresh as a lake before version 4 judged it: the hand files its last rescore read are the
    lake's (version 4 also records the game files, :func:`pipeline.facts.derived.hands_unchanged`; an older record
    has none, and ingest deleted the results of the games it replaced then)."""
    import orjson

    from pipeline.facts import derived
    fresh, now = [], derived.hands_snapshot(lake)
    for part in lakemod.partitions(lake, "scores"):
        r = part.split("=", 1)[1] if part else None
        raw = lakemod.read_bytes(lake, f"scores/ruleset={r}/_ruleset.json") if r else None
        try:
            rec = orjson.loads(raw) if raw else {}
        except orjson.JSONDecodeError:
            rec = {}
        if isinstance(rec, dict) and rec.get("hands_files") is not None and rec["hands_files"] == now:
            fresh.append(r)
    return fresh


def _v3_to_v4(lake, summary: "MigrateSummary") -> None:
    from pipeline.facts import derived
    fresh = _fresh_by_hands(lake)
    keys = lakemod.read(lake, "games", columns=["game_id", "game_key"]) if lakemod.has_table(lake, "games") else None
    gids = keys.column("game_id").combine_chunks() if keys is not None else pa.array([], pa.string())
    gkeys = keys.column("game_key").combine_chunks() if keys is not None else pa.array([], pa.string())
    key_field = schema.schema("game_scores").field("game_key")

    def with_game_key(t: pa.Table) -> pa.Table | None:
        # absent, or all null (version 1 -> 2 adds a missing column as nulls)
        if "game_key" in t.column_names and t.column("game_key").null_count < t.num_rows:
            return None
        key = pc.take(gkeys, pc.index_in(t.column("game_id"), value_set=gids))
        if "game_key" in t.column_names:
            return t.set_column(t.column_names.index("game_key"), key_field, key)
        return t.add_column(t.column_names.index("game_id") + 1, key_field, key)

    summary.results_keyed = lake_write.rewrite_files(lake, "game_scores", with_game_key)
    derived.record_hands(lake, fresh)


def _drop_incomplete(lake, summary: "MigrateSummary") -> None:
    """Derived partitions written before a column was added to their schema (4 -> 5: ``players``, ``winner``,
    ``players_every_hand``...; 7 -> 8: ``coinches_decided``) are dropped, as step 1 -> 2 drops them: the views compute those rows until the
    next rescore, and the reports read every column as written, with no fallback for a missing one."""
    from pipeline.facts.derived import DERIVED

    for table in DERIVED:
        gone = _partitions_missing_columns(lake, table)
        for part in gone:
            lake_write.drop_partition(lake, table, part.split("=", 1)[1])
        summary.completed[table] = summary.completed.get(table, 0) + len(gone)


def _drop_unstored(lake, summary: "MigrateSummary") -> None:
    """The stored partitions of the derived tables no longer stored (:data:`pipeline.facts.derived.STORED`) are
    dropped: the views compute those rows, and a partition left would be read as the rows of its ruleset's last
    rescore before this version, stale after the next one. Version 5 -> 6: ``player_hands`` and ``pair_hands``;
    6 -> 7: ``dealt_events``."""
    from pipeline.facts.derived import DERIVED, STORED

    for table in DERIVED:
        if table not in STORED:
            parts = [p for p in lakemod.partitions(lake, table) if p] if lakemod.has_table(lake, table) else []
            for part in parts:
                lake_write.drop_partition(lake, table, part.split("=", 1)[1])
            if parts:
                summary.unstored[table] = summary.unstored.get(table, 0) + len(parts)


#: version -> the derived tables whose stored values the next version counts anew
RECOUNTED = {8: ("hand_facts", "player_games"),     # belote-rebelote held by both teams
             9: ("player_games", "pair_games")}     # no points for a name (a pair) seated on both teams


def _drop_recounted(lake, summary: "MigrateSummary", version: int) -> None:
    """The stored partitions of the derived tables whose values a version counts anew (:data:`RECOUNTED`) are
    dropped, so that no report reads a row of the old count; the views compute those rows until the next
    rescore. 9 -> 10 changes only the rows of hands that repeat a name: a lake without one keeps its tables
    (the reports computing them from the views are many times slower)."""
    if version == 9 and not _repeats_a_name(lake):
        return
    for table in RECOUNTED[version]:
        parts = [p for p in lakemod.partitions(lake, table) if p] if lakemod.has_table(lake, table) else []
        for part in parts:
            lake_write.drop_partition(lake, table, part.split("=", 1)[1])
        summary.recounted[table] = summary.recounted.get(table, 0) + len(parts)


def _repeats_a_name(lake) -> bool:
    """Whether some hand of the lake seats a name twice (then a name or a pair may sit on both teams)."""
    from pipeline.storage.duck import duckdb_connection, table_source

    loc = lakemod.locate(lake)
    if not lakemod.has_table(loc, "hands") or not lakemod.list_files(loc, "hands"):
        return False
    con = duckdb_connection()
    try:
        return bool(con.execute(
            f"SELECT 1 FROM {table_source(con, loc, 'hands')} "
            "WHERE len(list_distinct(players)) < len(list_filter(players, lambda p: p IS NOT NULL)) LIMIT 1").fetchall())
    finally:
        con.close()


#: version -> the step that takes a lake of that version to the next one
STEPS = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _drop_incomplete, 5: _drop_unstored, 6: _drop_unstored,
         7: _drop_incomplete, 8: lambda lake, summary: _drop_recounted(lake, summary, 8),
         9: lambda lake, summary: _drop_recounted(lake, summary, 9)}


def migrate(lake) -> MigrateSummary:
    """Run every step from the lake's version to :data:`pipeline.storage.lake.LAKE_VERSION`, in one transaction, under
    the lake lock (which first finishes or undoes a write left half-way, an earlier migration's included).
    Raises :class:`pipeline.storage.lake.LakeVersionError` for a lake newer than this code (the lock refuses it)."""
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
