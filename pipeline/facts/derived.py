"""The derived tables: facts computed from ``hands`` and ``scores`` when a ruleset is rescored, so that the
reports over millions of hands read narrow tables instead of joining per seat or on string keys.

Each derived table (:data:`DERIVED`) has a SELECT that computes its rows from the lake's ``hands`` and
``scores`` (its module's ``live_*sql``). At rescore time the hand-level tables are computed batch by batch in
the hand pass (:mod:`pipeline.facts.batch_facts`) and the game-level ones added up from each batch's rows after the
game pass (:mod:`pipeline.facts.game_sums`); :func:`materialize` computes every table by its SQL on its own (the
Ray engine, ``migrate``, and the tests' reference), each writing the ruleset's
partition; :func:`pipeline.stats.views.create_views` shows the written rows, plus the same rows computed on the fly
for the rulesets rescored before the table existed (so a report never depends on which path ran, as long as
every hand has been rescored). Ingest never touches them: the rows of a hand or game imported again with other
content are found stale by joins on the keys they carry (:mod:`pipeline.rescore.stale`) and replaced by the
next update (:data:`DERIVED`'s ``key`` says which rows a game's update replaces).

Staleness: the written rows are those of the hands and games in the lake at the last rescore.
:func:`hands_snapshot` records which hand and game files that rescore read (``scores/ruleset=R/_ruleset.json``,
keys ``hands_files`` and ``games_files``), so :func:`hands_unchanged` tells cheaply whether anything was imported
since; when it was, a report rescores the stale games first (or, when it cannot, leaves them out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pyarrow as pa

from pipeline.facts import dealt_events

from pipeline.facts import declaration_facts

from pipeline.facts import hand_facts

from pipeline.facts import pair_facts

from pipeline.facts import player_facts

from pipeline.storage import schema
@dataclass(frozen=True)
class Derived:
    """One derived table. ``key``: the column an update deletes a stale game's rows by ('hand_key' or 'game_id');
    ``names``: columns holding player names (pseudonymized in the views); ``pair``: ``names`` are a sorted pair,
    sorted again after pseudonymizing; ``name_lists``: columns holding a list of names by seat (pseudonymized
    too; ``sorted_lists``: lists of names sorted, sorted again after pseudonymizing); ``live(hands, scores, rulesets)``: SELECT of its rows from relations
    ``hands`` and ``scores`` for the rulesets listed by the SELECT ``rulesets``; ``parent``/``from_parent``: a
    game-level table is computed from its hand-level parent's rows instead (``from_parent(relation)``);
    ``seated(hands, rulesets)``: a SELECT of the parent's hands' (ruleset, game_id, players) from ``hands``,
    which ``from_parent`` reads the seated names from when given (cheaper than the parent's rows); ``stored``:
    its rows are written at rescore time (False: never written, the views compute them from ``hands`` and
    ``scores`` whenever read; no report reads such a table directly: ``player_hands`` and ``pair_hands`` only
    for their game-level child's rows of the games a filter selects in part, ``dealt_events`` only as the
    dashboard's view, the fairness report counting the deals itself)."""

    table: str
    key: str
    names: tuple[str, ...] = ()
    pair: bool = False
    name_lists: tuple[str, ...] = ()
    sorted_lists: bool = False
    live: Callable[[str, str, str], str] | None = None
    parent: str | None = None
    from_parent: Callable[..., str] | None = None
    seated: Callable[[str, str], str] | None = None
    stored: bool = True

    def live_sql(self, hands: str, scores: str, rulesets: str) -> str:
        """SELECT of this table's rows computed from ``hands`` and ``scores`` for the ``rulesets`` SELECT."""
        if self.parent is None:
            return self.live(hands, scores, rulesets)
        return self.from_parent(f"({DERIVED[self.parent].live_sql(hands, scores, rulesets)})")


#: Every derived table, parents before the tables computed from them.
DERIVED: dict[str, Derived] = {d.table: d for d in (
    Derived("player_hands", "hand_key", ("player",), name_lists=("players",), live=player_facts.live_hands_sql,
            stored=False),
    Derived("player_games", "game_id", ("player",), name_lists=("players", "players_every_hand"), sorted_lists=True,
            parent="player_hands", from_parent=player_facts.games_sql, seated=player_facts.seated_hands_sql),
    Derived("hand_facts", "hand_key", name_lists=("players",), live=hand_facts.live_sql),
    Derived("pair_hands", "hand_key", ("player_a", "player_b"), pair=True, name_lists=("players",),
            live=pair_facts.live_hands_sql, stored=False),
    Derived("pair_games", "game_id", ("player_a", "player_b"), pair=True,
            name_lists=("players", "players_every_hand"), sorted_lists=True, parent="pair_hands",
            from_parent=pair_facts.games_sql, seated=pair_facts.seated_hands_sql),
    Derived("declaration_items", "hand_key", ("player",), name_lists=("players",), live=declaration_facts.live_sql),
    Derived("dealt_events", "hand_key", ("player",), name_lists=("players",), live=dealt_events.live_sql,
            stored=False),
)}

#: The derived tables written at rescore time. ``player_hands`` and ``pair_hands`` (four and two rows a hand) are
#: not: the hand pass adds their rows up into ``player_games`` and ``pair_games`` as it makes them, and writing
#: them cost more than scoring (docs/bench-results.md, "player_hands and pair_hands no longer written").
#: ``dealt_events`` is not either: the same rows under every ruleset, which the fairness report counts from the
#: deals for less than writing them cost (docs/bench-results.md, "dealt_events no longer written").
STORED: tuple[str, ...] = tuple(name for name, d in DERIVED.items() if d.stored)


def materialize(lake, ruleset: str, only: tuple[str, ...] | None = None, games: pa.Array | None = None,
                written: tuple[str, ...] = ()) -> dict[str, int]:
    """Write the ``ruleset`` partition of every stored derived table (:data:`STORED`; or of those in ``only``)
    from the lake's hands, its scores under that ruleset and their game results (``game_scores``: the game-level
    tables carry the winner), replacing earlier ones; a game-level table reads its parent's rows back from the
    files just written, or from its SQL when the parent is not stored. DuckDB's memory limit: ``$REBELOTE_DUCKDB_MEMORY``, default 4GB (it spills past it).
    With ``games`` (game ids): only the rows of those games, added to the partitions (the caller deleted their
    old rows: an update, :mod:`pipeline.rescore.stale`); their ``hand_facts`` rows carry no ``hand_seq``.
    ``written``: tables whose rows the caller has just written in this transaction (the rescore's hand pass,
    :mod:`pipeline.facts.batch_facts`): not computed again, their children read them.
    Returns rows written per table. Raises duckdb.Error / OSError on a read or write failure, KeyError for an unknown table."""
    from pipeline.storage import lake as lakemod
    from pipeline.storage import lake_write
    from pipeline.storage.duck import PASS_LIMIT, arrow_reader, duckdb_connection, empty_sql, table_source

    wanted = set(DERIVED) if only is None else {t for t in only} | {DERIVED[t].parent for t in only if DERIVED[t].parent}
    counts = {t: 0 for t in STORED if t in wanted and t not in written}
    if not lakemod.has_table(lake, "hands") or not lakemod.has_table(lake, "scores"):
        return counts
    con = duckdb_connection(default_limit=PASS_LIMIT)   # spills past it: the peak does not grow with the lake
    try:
        loc = lakemod.locate(lake)
        src = table_source(con, loc, "hands", hands_files(loc))
        only = ""
        if games is not None:
            con.register("_only_arrow", pa.table({"game_id": games}))
            con.execute("CREATE TEMP TABLE _only AS SELECT DISTINCT game_id FROM _only_arrow")
            only = " AND game_id IN (SELECT game_id FROM _only)"
        if loc.local and games is None:
            # read_parquet numbers the files of its list (file_index) and their rows: the hand's position
            seq = "(file_index::BIGINT << 32) | file_row_number"
            src = src[:-1] + ", file_row_number = true)"
        else:
            seq = "NULL::BIGINT"
        # hand files written before a column was added to the schema read it as null (hands.taker_team)
        con.execute(f"CREATE TEMP VIEW h AS {empty_sql(con, 'hands')} UNION ALL BY NAME "
                    + (f"SELECT * EXCLUDE (file_row_number), {seq} AS hand_seq FROM {src}"
                       if loc.local and games is None else f"SELECT *, {seq} AS hand_seq FROM {src} WHERE true{only}"))
        r = "'" + ruleset.replace("'", "''") + "'"     # a view cannot take parameters: a quoted literal
        con.execute(f"CREATE TEMP VIEW s AS SELECT * FROM {table_source(con, lake, 'scores')} WHERE ruleset = {r}{only}")
        # the game results the game-level tables carry (winner), written by the rescore's game pass just before
        results = (f"SELECT * FROM {table_source(con, lake, 'game_scores')} WHERE ruleset = {r}{only}"
                   if lakemod.has_table(lake, "game_scores") else empty_sql(con, "game_scores"))
        con.execute(f"CREATE TEMP VIEW game_scores AS {results}")
        write = lake_write.replace_partition if games is None else lake_write.append_partition
        parents = {d.parent for d in DERIVED.values() if d.parent}
        for name, d in DERIVED.items():
            if name not in wanted:
                continue
            if not d.stored:
                # never written: its children add up its rows as its SQL gives them
                con.execute(f"CREATE OR REPLACE TEMP VIEW _t_{name} AS {d.live('h', 's', f'SELECT {r} AS ruleset')}")
                continue
            if name in written:
                pass
            elif d.parent:
                sql = d.from_parent(f"_t_{d.parent}", f"({d.seated('h', f'SELECT {r} AS ruleset')})")
            elif name == "hand_facts":     # written in hand order, with the position (compare pairs rows by it)
                sql = hand_facts.live_sql("h", "s", f"SELECT {r} AS ruleset", hand_seq="h.hand_seq") + " ORDER BY hand_seq"
            else:
                sql = d.live("h", "s", f"SELECT {r} AS ruleset")
            if name not in written:     # streamed out in batches
                counts[name] = write(lake, name, ruleset, (
                    _conform(name, pa.Table.from_batches([b])) for b in arrow_reader(con, sql, {}, 262_144)))
            if name in parents:
                # its children read the rows just written back from their files: a temporary table of them
                # (40 M rows at 10^7 hands) spilled past DuckDB's memory limit and doubled the time
                files = [f.path for f in lakemod.list_files(loc, name, f"ruleset={ruleset}")]
                src = (table_source(con, loc, name, files) if files
                       else f"({empty_sql(con, name)})")
                con.execute(f"CREATE OR REPLACE TEMP VIEW _t_{name} AS SELECT * FROM {src} WHERE ruleset = {r}{only}")
        return counts
    finally:
        con.close()


def _conform(table: str, t: pa.Table) -> pa.Table:
    return schema.conform(table, t.select(schema.schema(table).names))


def hands_files(lake) -> list[str]:
    """Paths of the lake's hand files in the order :func:`materialize` numbers them (``hand_facts.hand_seq``):
    sorted by path, as :func:`hands_snapshot` lists them."""
    from pipeline.storage import lake as lakemod
    return [f.path for f in lakemod.list_files(lakemod.locate(lake), "hands")]


def hand_seq_basis(lake, ruleset: str) -> list | None:
    """The hand files whose positions the stored ``hand_facts`` rows of ``ruleset`` carry (``hand_seq``): the
    ``hand_seq_files`` its last rescore recorded in ``scores/ruleset=R/_ruleset.json``, or None when that
    rescore wrote no derived tables or predates the record. Unlike ``hands_files`` it is not updated by
    ``compact`` (which renumbers the files but not the stored rows)."""
    import orjson

    from pipeline.storage import lake as lakemod
    raw = lakemod.read_bytes(lake, f"scores/ruleset={ruleset}/_ruleset.json")
    try:
        return orjson.loads(raw).get("hand_seq_files") if raw is not None else None
    except (orjson.JSONDecodeError, AttributeError):
        return None


def hands_snapshot(lake, table: str = "hands") -> list[list]:
    """The files of ``table`` (hands, or games) in the lake now: ``[path under the table's folder, size in bytes,
    modification time in ns]`` each, sorted. Recorded by a rescore; equal later means no row of the table was
    imported, replaced or removed since (a file is never modified in place)."""
    from pipeline.storage import lake as lakemod
    loc = lakemod.locate(lake)
    base = loc.path(table).rstrip("/") + "/"
    return [[f.path[len(base):], f.size, f.mtime_ns] for f in lakemod.list_files(loc, table)]


def hands_unchanged(lake, ruleset: str) -> bool:
    """True when the lake's hand and game files are exactly those the last rescore of ``ruleset`` read (so every
    hand has its score and its derived rows under it, every game its results). False when hands or games were
    imported, replaced or compacted since, or when the rescore predates this record. Ingest never deletes the
    rows computed from what it replaces (:mod:`pipeline.rescore.stale` finds them), so this is the freshness."""
    import orjson

    from pipeline.storage import lake as lakemod
    raw = lakemod.read_bytes(lake, f"scores/ruleset={ruleset}/_ruleset.json")
    if raw is None:
        return False
    try:
        rec = orjson.loads(raw)
        recorded, games = rec.get("hands_files"), rec.get("games_files")
    except (orjson.JSONDecodeError, AttributeError):
        return False
    return (recorded is not None and games is not None and recorded == hands_snapshot(lake)
            and games == hands_snapshot(lake, "games"))


def fresh_rulesets(lake) -> list[str]:
    """The rulesets whose last rescore read exactly the lake's current hand files (:func:`hands_unchanged`)."""
    from pipeline.storage import lake as lakemod
    return [p.split("=", 1)[1] for p in lakemod.partitions(lake, "scores")
            if p and hands_unchanged(lake, p.split("=", 1)[1])]


def record_hands(lake, rulesets: list[str]) -> None:
    """Record the lake's current hand and game files as those the last rescore of each of ``rulesets`` read. Only
    for a rewrite that keeps every row (``compact``, ``migrate``), so that :func:`hands_unchanged` stays true
    across it."""
    import orjson

    from pipeline.storage import lake as lakemod
    snapshot, games = hands_snapshot(lake), hands_snapshot(lake, "games")
    for r in rulesets:
        name = f"scores/ruleset={r}/_ruleset.json"
        raw = lakemod.read_bytes(lake, name)
        if raw is not None:
            lakemod.write_bytes(lake, name, orjson.dumps(dict(orjson.loads(raw), hands_files=snapshot,
                                                              games_files=games),
                                                         option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
