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

It also has one view per derived table (``player_hands``, ``player_games``, ``hand_facts``, ``pair_hands``,
``pair_games``, ``declaration_items``, ``dealt_events``: :mod:`pipeline.derived`), the rows written at rescore time, computed on
the fly for rulesets rescored before the table existed; the reports read these rather than joining ``hands``
and ``scores``.

With ``Filters.pseudonymize`` (a salt), player names are replaced by salted pseudonyms in ``hands.players``
and ``games.players`` before anything else reads them (:mod:`pipeline.pseudonymize`), so ``seats`` and every
report see only pseudonyms; ``rejects.raw`` (the raw record text) is blanked.

A report is one file ``queries/<name>.sql``: a single SELECT that starts with a ``--`` comment block
(what it answers, its parameters, its columns). Parameters are DuckDB named parameters ``$name``;
:func:`run_report` binds the ones the SQL uses. ``$ruleset`` is special: a report that uses it needs
scores, and when no ruleset is given the only ruleset present in ``scores`` is taken.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from dataclasses import dataclass, field

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
    pseudonymize: a salt; when set, player names are replaced by their pseudonyms in every view (see
    :mod:`pipeline.pseudonymize`), and ``players`` may be given as real names or as pseudonyms.
    since / until: keep games whose ``games.played_at`` (UTC) is at or after ``since`` / before ``until``
    (aware datetimes; :func:`parse_when` turns a command-line date into them). Games with no recorded time
    are left out when either is set.
    """

    sources: tuple[str, ...] | None = None
    variants: tuple[str, ...] | None = None
    players: tuple[str, ...] | None = None
    min_hands: int | None = None
    pseudonymize: str | None = field(default=None, repr=False)
    since: datetime | None = None
    until: datetime | None = None

    @property
    def row_local(self) -> bool:
        """True when the filter tests only a hand's ``source`` and ``players`` (no variant, no time): a derived
        table holding those columns can then apply it to its own rows (:meth:`hands_where`) instead of joining
        the filtered hands on ``hand_key``."""
        return not (self.variants or self.since or self.until)

    def hands_where(self, players: tuple[str, ...] | None = None, games: str = "_all_games") -> str:
        """SQL condition on ``hands`` columns (empty string: no filter). ``players`` overrides
        ``self.players`` (used to pass the names expanded with their pseudonyms); ``games`` is the relation
        the time filter reads ``played_at`` from."""
        players = self.players if players is None else players
        conds = []
        if self.sources:
            conds.append(f"source IN ({', '.join(_sql_str(x) for x in self.sources)})")
        if self.variants:
            conds.append(f"variant IN ({', '.join(_sql_str(x) for x in self.variants)})")
        if players:
            # one list_contains per name: what len(list_intersect(...)) > 0 tests, without building a list per row
            conds.append("(" + " OR ".join(f"list_contains(players, {_sql_str(x)})" for x in players) + ")")
        if self.since or self.until:
            when = [f"played_at >= {_sql_str(self.since.isoformat())}::TIMESTAMPTZ" if self.since else "true",
                    f"played_at < {_sql_str(self.until.isoformat())}::TIMESTAMPTZ" if self.until else "true"]
            conds.append(f"game_id IN (SELECT game_id FROM {games} WHERE {' AND '.join(when)})")
        return " AND ".join(conds)


def parse_when(text: str, end: bool = False) -> datetime:
    """A command-line time bound: ``YYYY-MM-DD`` or an ISO 8601 time (no offset = UTC). With ``end``, a bare
    date means the end of that day (``--until 2026-03-31`` keeps March 31). Returns an aware UTC datetime.
    Raises ValueError with the accepted forms."""
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO 8601 time") from None
    if end and len(text) == 10:
        t += timedelta(days=1)
    return (t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t).astimezone(timezone.utc)


WILSON_Z = 1.959964   # two-sided 95 %


def add_macros(con: duckdb.DuckDBPyConnection) -> None:
    """SQL macros the reports use: ``wilson_lo(x, n)`` / ``wilson_hi(x, n)``, the bounds of the 95 % Wilson
    score interval of the proportion x/n (Wilson 1927; Newcombe 1998, method 3), rounded to 4 decimals, NULL
    when n = 0. Unlike x/n +- 1.96 se, it stays within [0, 1] and is honest for small n, which is what
    comparing players with few hands needs."""
    z2 = WILSON_Z ** 2
    centre = f"(x + {z2 / 2}) / (n + {z2})"
    half = f"{WILSON_Z} * sqrt(x * (n - x) / n + {z2 / 4}) / (n + {z2})"
    con.execute(f"CREATE OR REPLACE MACRO wilson_lo(x, n) AS "
                f"CASE WHEN n > 0 THEN round(greatest(0, {centre} - {half}), 4) END")
    con.execute(f"CREATE OR REPLACE MACRO wilson_hi(x, n) AS "
                f"CASE WHEN n > 0 THEN round(least(1, {centre} + {half}), 4) END")


#: Columns of the ``seats`` view: (name, DuckDB type, meaning). Also documented in docs/dashboards.md.
SEATS_COLUMNS = [
    ("hand_key", "VARCHAR", "hands.hand_key of the hand."),
    ("game_id", "VARCHAR", "hands.game_id."),
    ("hand_no", "INTEGER", "hands.hand_no."),
    ("source", "VARCHAR", "hands.source."),
    ("n_players", "TINYINT", "hands.n_players."),
    ("seat", "TINYINT", "Seat, 0 .. n_players-1, in playing order."),
    ("team", "TINYINT", "seat % 2 in 2- and 4-player hands (team 0 = seats 0 and 2); the seat itself in 3-player hands."),
    ("player", "VARCHAR", "hands.players[seat]: the player's name (a pseudonym in a pseudonymized export)."),
    ("partner", "VARCHAR", "The partner's name (seat + 2) in 4-player hands, else NULL."),
    ("taker", "TINYINT", "hands.taker: the taker's seat, NULL when passed out."),
    ("is_taker", "BOOLEAN", "taker = seat (false when passed out)."),
]

SEATS_SQL = """
        SELECT hand_key, game_id, hand_no, source, n_players,
               seat::TINYINT AS seat,
               (CASE WHEN n_players = 3 THEN seat ELSE seat % 2 END)::TINYINT AS team,
               players[seat + 1] AS player,
               CASE WHEN n_players = 4 THEN players[(seat + 2) % 4 + 1] END AS partner,
               taker,
               coalesce(taker = seat, false) AS is_taker
        FROM (SELECT *, unnest(range(len(players))) AS seat FROM hands)
"""

#: The views every connection (and a dashboard file) has, in creation order.
VIEWS = ("hands", "games", "rejects", "scores", "game_scores", "seats", "player_hands", "player_games",
         "hand_facts", "pair_hands", "pair_games", "declaration_items", "dealt_events", "dd_hands")


def table_sql(lake, table: str, con: duckdb.DuckDBPyConnection, check: bool = True) -> str:
    """A self-contained SELECT of every row of lake table ``table``: the schema's columns first, in schema
    order and schema types (an empty typed relation, written as SQL casts), then the files under
    ``LAKE/<table>/`` filled in by name. A table with no files is just the empty relation.

    ``lake`` is a folder or URL (:func:`pipeline.lake.locate`). A local lake is read by DuckDB's Parquet
    reader with absolute paths, so the SQL works from any directory; a lake on object storage is read
    through pyarrow's filesystem, as a dataset registered on ``con`` (``_arrow_<table>``), so that SQL only
    works on ``con``. Raises :class:`StatsError` when the files cannot be read together (e.g. partitioned
    and unpartitioned files mixed); with ``check=False`` that is left to the caller (:func:`_create_table_view`:
    creating a view over the SQL reads the same footers, so checking first reads them twice).
    """
    from pipeline import lake as lakemod

    from pipeline.duck import empty_sql

    loc = lakemod.locate(lake)
    empty = empty_sql(con, table)
    if not lakemod.has_table(loc, table):
        return empty
    if loc.local:
        # partition values stay VARCHAR (no autocast: a source named '2023' is not a number)
        hive = "true, hive_types_autocast = false" if schema.partition_columns(table) else "false"
        src = (f"read_parquet({_sql_str(loc.path(table, '**', '*.parquet'))}, "
               f"hive_partitioning = {hive}, union_by_name = true)")
    else:
        src = f"_arrow_{table}"
        con.register(src, lakemod.dataset(loc, table))
    sql = f"{empty} UNION ALL BY NAME SELECT * FROM {src}"
    if check:
        try:
            con.sql(f"SELECT * FROM ({sql}) LIMIT 0").fetchall()
        except duckdb.Error as e:
            raise StatsError(f"cannot read table {table!r} under {loc.path(table)}: {e}") from e
    return sql


def _create_table_view(con: duckdb.DuckDBPyConnection, lake, table: str, name: str, sql: str) -> None:
    """CREATE VIEW ``name`` AS ``sql`` (lake table ``table``'s :func:`table_sql`); :class:`StatsError` naming the
    table when its files cannot be read together (DuckDB reads their footers to create the view)."""
    from pipeline import lake as lakemod

    try:
        con.execute(f"CREATE VIEW {name} AS {sql}")
    except duckdb.Error as e:
        raise StatsError(f"cannot read table {table!r} under {lakemod.locate(lake).path(table)}: {e}") from e


def filter_player_names(con: duckdb.DuckDBPyConnection, filters: Filters) -> tuple[str, ...] | None:
    """The ``--player`` names to match: as given, plus their pseudonyms in every source of the lake when the
    views are pseudonymized (so real names and pseudonyms both work). Needs ``_all_hands`` when so."""
    if not filters.players or not filters.pseudonymize:
        return filters.players
    from pipeline.pseudonymize import Pseudonymizer
    sources = [r[0] for r in con.execute("SELECT DISTINCT source FROM _all_hands").fetchall()]
    return Pseudonymizer(filters.pseudonymize).expand(sources, filters.players)


def _key_columns(table: str) -> list[str]:
    """The columns of ``table`` keyed in a pseudonymized view: content keys and identifiers
    (:data:`pipeline.pseudonymize.KEY_COLUMNS`, :data:`~pipeline.pseudonymize.ID_COLUMNS`)."""
    from pipeline.pseudonymize import ID_COLUMNS, KEY_COLUMNS
    names = schema.schema(table).names
    return [c for c in KEY_COLUMNS + ID_COLUMNS if c in names]


def create_views(con: duckdb.DuckDBPyConnection, lake: Path | str, filters: Filters | None = None,
                 internal: bool = True) -> None:
    """Create the views :data:`VIEWS` on ``con`` over ``lake`` (see :func:`connect`).

    internal=True also creates ``_all_<table>``, the unfiltered (but pseudonymized) tables, which
    :func:`rulesets` and :func:`lake_values` read; internal=False inlines them into the public views, so
    ``con`` holds exactly :data:`VIEWS` (what a dashboard file wants). Pseudonymization needs a Python
    function, so it is refused with internal=False (:class:`StatsError`).
    """
    from pipeline import lake as lakemod, pseudonymize as pseudo

    lake = lakemod.locate(lake)
    if not internal and not lake.local:
        raise StatsError(f"lake {lake}: a dashboard file's views read local Parquet files; for a lake on object "
                         "storage, materialize the tables instead")
    filters = filters or Filters()
    salt = filters.pseudonymize
    if salt and not internal:
        raise StatsError("pseudonymized views need rebelote's Python function: materialize them instead")
    base = {t: table_sql(lake, t, con, check=not internal) for t in schema.TABLES}   # internal: checked below
    base = _without_stale_games(con, lake, base, temp=internal)
    raw = dict(base)
    if salt:
        # the names to hash once: the games' (0.5 M lists for 5 M hands); a hand's name missing there is hashed
        # when a row needs it (rebelote_pseudonym). A --player string that is neither one of those names nor
        # their pseudonym may be a name, or the pseudonym of a name, seated in hands only: the hands' names are
        # added then (5 M lists read), so that the filter finds its real name
        p = pseudo.register(con, salt, f"SELECT source, unnest(players) AS name FROM ({raw['games']})")
        if filters.players and pseudo.unknown(con, filters.players):
            pseudo.add_names(con, p, f"SELECT source, unnest(players) AS name FROM ({raw['hands']})")
        base["hands"] = pseudo.pseudonymized_sql(raw["hands"], lists=("players",))
        base["games"] = pseudo.pseudonymized_sql(raw["games"], seat_lists=("players",))
        base = {t: pseudo.texts_removed_sql(t, sql) for t, sql in base.items()}
        # every table's content keys re-keyed alike (joins on them hold): a plain digest of a players list is a
        # test for guessed names
        base = {t: pseudo.rekeyed_sql(sql, _key_columns(t), salt) for t, sql in base.items()}
    if internal:
        for t in schema.TABLES:
            _create_table_view(con, lake, t, f"_all_{t}", base[t])
        src = {t: f"_all_{t}" for t in schema.TABLES}
    else:
        src = {t: f"({base[t]}) AS _all_{t}" for t in schema.TABLES}
    add_macros(con)
    # the hands filter is tested on the stored rows under a salt (below): their game ids are the stored ones too
    games_src = f"({raw['games']}) AS _g" if salt else src["games"] if internal else f"({base['games']}) AS _g"
    names = filter_player_names(con, filters)
    # the filter is tested on the names as stored (real names), before they are replaced: testing the pseudonyms
    # would compute one for every row; the real names matching a pseudonym given come from _pseudonyms
    stored_names = pseudo.real_names(con, filters.players) if salt and filters.players else names
    where = filters.hands_where(stored_names, games_src)
    if where and salt:
        hands = pseudo.pseudonymized_sql(f"SELECT * FROM ({raw['hands']}) WHERE {where}", lists=("players",))
        hands = pseudo.rekeyed_sql(pseudo.texts_removed_sql("hands", hands), _key_columns("hands"), salt)
        con.execute(f"CREATE VIEW hands AS {hands}")
    elif where:
        con.execute(f"CREATE VIEW hands AS SELECT * FROM {src['hands']} WHERE {where}")
    if where:
        con.execute(f"CREATE VIEW games AS SELECT * FROM {src['games']} WHERE game_id IN (SELECT game_id FROM hands)")
        con.execute(f"CREATE VIEW rejects AS SELECT * FROM {src['rejects']}")
        con.execute(f"CREATE VIEW scores AS SELECT * FROM {src['scores']} "
                    "WHERE hand_key IN (SELECT hand_key FROM hands)")
        con.execute(f"CREATE VIEW game_scores AS SELECT * FROM {src['game_scores']} "
                    "WHERE game_id IN (SELECT game_id FROM hands)")
        con.execute(f"CREATE VIEW dd_hands AS SELECT * FROM {src['dd_hands']} "
                    "WHERE hand_key IN (SELECT hand_key FROM hands)")
    else:
        for t in BASE_TABLES + ANALYSIS_TABLES:
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM {src[t]}")
    con.execute(f"CREATE VIEW seats AS {SEATS_SQL}")
    _derived_views(con, src, filters if where else None, stored_names, salt, lake)
    if internal:
        con.execute(f"CREATE TEMP TABLE _views_filtered AS SELECT {bool(where)} AS filtered")   # read by hand_pairing
        _hand_seq_bases(con, lake)
        _dealt_events_ruleset(con, lake)


def _without_stale_games(con: duckdb.DuckDBPyConnection, lake, base: dict[str, str], temp: bool) -> dict[str, str]:
    """``base`` (table -> SELECT of its stored rows) with the rows of stale games left out of every table computed
    per ruleset, for the rulesets read as they stand while stale (a report that could not rescore first, a house
    ruleset known only by its record): ingest never deletes what was computed from a game it replaced
    (:mod:`pipeline.rescore.stale`), so such rows are the old game's. A game's rows go together, from every table,
    so the reports see the fresh games whole. The stale games are listed in temporary tables ``_stale_games``
    (ruleset, game_id) and ``_stale_hands`` (ruleset, hand_key; for tables without game_id).

    Nothing changes when every scored ruleset is fresh (:func:`pipeline.derived.hands_unchanged`), for a ruleset
    whose scores carry no record of the files they were computed from, or when not ``temp`` (the views of a
    dashboard file read the lake as it is whenever the file is opened: a list of stale games written into the
    file would hide them after the next rescore too; ``export duckdb`` rescores the rulesets it reports first).
    A ruleset whose tables cannot be read is left as it stands (creating the views names the table)."""
    from pipeline import derived, lake as lakemod

    if not temp:
        return base
    scored = sorted(p.split("=", 1)[1] for p in lakemod.partitions(lake, "scores") if p)
    games, hands = [], []
    for r in scored:
        found = _stale_of(lake, r)
        if found is None:
            continue
        games.append(pa.table({"ruleset": pa.array([r] * len(found.game_ids), pa.string()), "game_id": found.game_ids}))
        keys = sorted(found.hand_keys)
        hands.append(pa.table({"ruleset": pa.array([r] * len(keys), pa.string()), "hand_key": pa.array(keys, pa.string())}))
    if not games:
        return base
    for name, parts in (("_stale_games", games), ("_stale_hands", hands)):
        con.register("_stale_rows", pa.concat_tables(parts))
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM _stale_rows")
        con.unregister("_stale_rows")
    out = dict(base)
    for t, sql in base.items():
        names = schema.schema(t).names
        if "ruleset" not in names or t in ("hands", "games", "rejects", "holdings"):
            continue
        by = "game_id" if "game_id" in names else "hand_key"
        out[t] = f"SELECT * FROM ({sql}) AS _fresh ANTI JOIN {'_stale_games' if by == 'game_id' else '_stale_hands'} USING (ruleset, {by})"
    return out


#: (lake, ruleset, its record, the hand and game files) -> its stale games: one command opens several
#: connections over the same files, and finding them reads every key of the lake
_STALE_FOUND: dict[tuple, object] = {}


def _stale_of(lake, ruleset: str):
    """The stale games of ``ruleset`` (:func:`pipeline.rescore.stale.stale`), or None when it is fresh, has no
    record of the files it read, or its tables cannot be read. Remembered per file snapshot in this process."""
    from pipeline import derived
    from pipeline.rescore import stale

    rec = stale.record(lake, ruleset)
    if (rec or {}).get("hands_files") is None:
        return None
    hands_now, games_now = derived.hands_snapshot(lake), derived.hands_snapshot(lake, "games")
    if rec.get("hands_files") == hands_now and rec.get("games_files") == games_now:
        return None                 # fresh: what pipeline.derived.hands_unchanged tests, without listing twice
    import orjson
    key = (str(lake), ruleset, orjson.dumps(rec, option=orjson.OPT_SORT_KEYS), orjson.dumps([hands_now, games_now]))
    if key not in _STALE_FOUND:
        try:
            _STALE_FOUND[key] = stale.stale(lake, ruleset)
        except (duckdb.Error, OSError):
            return None
        if len(_STALE_FOUND) > 64:
            del _STALE_FOUND[next(iter(_STALE_FOUND))]
    return _STALE_FOUND[key]


def _dealt_events_ruleset(con: duckdb.DuckDBPyConnection, lake) -> None:
    """Temp table ``_dealt_events_ruleset(ruleset VARCHAR)``: the ruleset whose stored ``dealt_events`` rows cover
    exactly the lake's hands (:func:`pipeline.derived.fresh_ruleset`), or no row. Read by
    :func:`pipeline.fairness.fairness_on`, which counts the events from those rows instead of the deals when
    there is one."""
    from pipeline.derived import fresh_ruleset

    con.execute("CREATE TEMP TABLE _dealt_events_ruleset (ruleset VARCHAR)")
    fresh = fresh_ruleset(lake, "dealt_events")
    if fresh is not None:
        con.execute("INSERT INTO _dealt_events_ruleset VALUES ($r)", {"r": fresh})


def _hand_seq_bases(con: duckdb.DuckDBPyConnection, lake) -> None:
    """Temp table ``_hand_seq_basis(ruleset VARCHAR, basis VARCHAR)``: per ruleset with stored ``hand_facts``
    rows, a digest of the hand files their ``hand_seq`` numbers (:func:`pipeline.derived.hand_seq_basis`); none
    when unknown. Read by :func:`hand_pairing`."""
    import hashlib

    import orjson

    from pipeline import derived, lake as lakemod

    rows = []
    # on object storage the stored rows carry no hand_seq (schemas/hand_facts.toml): no basis, pairing by key
    for p in lakemod.partitions(lake, "hand_facts") if lakemod.locate(lake).local else []:
        if p:
            r = p.split("=", 1)[1]
            basis = derived.hand_seq_basis(lake, r)
            if basis:
                rows.append((r, hashlib.sha256(orjson.dumps(basis)).hexdigest()))
    values = " UNION ALL ".join(f"SELECT {_sql_str(r)}, {_sql_str(b)}" for r, b in rows)
    con.execute("CREATE TEMP TABLE _hand_seq_basis (ruleset VARCHAR, basis VARCHAR)")
    if rows:
        con.execute(f"INSERT INTO _hand_seq_basis {values}").fetchall()


def hand_pairing(con: duckdb.DuckDBPyConnection, a: str, b: str) -> str:
    """How to pair the ``hand_facts`` rows of rulesets ``a`` and ``b`` (the ``$pair_by`` of ``compare``):
    'position' when both partitions number the same hand files (``_hand_seq_basis``) and their rows carry the
    same ``hand_seq`` row by row; 'seq' when they number the same files but their order differs (e.g. a filter
    reordered them); 'key' otherwise (rows computed on the fly, different hand files, a lake on object storage,
    a connection without ``_hand_seq_basis``).

    Row by row: on unfiltered views (``_views_filtered``) each partition holds, as written by
    :func:`pipeline.derived.materialize`, one row per hand of those files in ``hand_seq`` order, so equal row
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


#: The lake's own tables; the others of :data:`schema.TABLES` are derived from them (:mod:`pipeline.derived`).
BASE_TABLES = ("hands", "games", "rejects", "scores", "game_scores")
#: Tables of analyses run on demand (``rebelote analyse``): a view each, filtered with the hands.
ANALYSIS_TABLES = ("dd_hands",)


def _derived_views(con: duckdb.DuckDBPyConnection, src: dict, filters: Filters | None, names: tuple[str, ...] | None,
                   salt: str | None, lake) -> None:
    """One view per derived table (:data:`pipeline.derived.DERIVED`): the rows written at rescore time for the
    rulesets that have them (restricted to the selected hands, names pseudonymized like every view), plus the
    same rows computed from the ``hands`` and ``scores`` views for rulesets rescored before that table existed
    (which rulesets is read from the partition folders, so a lake that has them all pays nothing for the
    fallback).

    ``filters`` (None: no filter) selects the hands; ``names`` are its player names as stored (real names: the
    filter is tested before the names are pseudonymized). A filter on sources and players only
    (:attr:`Filters.row_local`) is tested on the stored rows' own ``source`` and ``players`` columns when the table
    has them; otherwise the rows are those whose key is among the filtered hands' (a join on a string, much
    dearer than the list test). A game-level table's row adds up its game's hands: under a filter it is computed
    from the selected rows of its hand-level parent, except where the filter selects every hand of the game
    (:func:`_filtered_games`), where the stored row is that sum already. Every stored partition holds every
    column of its schema (layout version 5: :mod:`pipeline.migrate`)."""
    from pipeline import lake as lakemod, pseudonymize as pseudo
    from pipeline.derived import DERIVED

    def rulesets(table: str) -> set[str]:
        return {p.split("=", 1)[1] for p in lakemod.partitions(lake, table) if p}

    scored = rulesets("scores")
    for name, d in DERIVED.items():
        def pz(sql: str, d=d) -> str:
            return pseudo.pseudonymized_sql(sql, d.names, d.name_lists, d.pair, d.sorted_lists) if salt else sql
        written = rulesets(name)
        if filters is not None and d.parent:
            con.execute(f"CREATE VIEW {name} AS {_filtered_games(con, src, name, d, filters, names, written, scored, pz)}")
            continue
        stored = f"SELECT * FROM {src[name]}"
        if filters is not None:
            stored = _filtered_rows(stored, name, d.key, filters, names)
        stored = pz(stored)
        missing = sorted(scored - written)
        if missing:
            live = d.live_sql("hands", "scores", " UNION ALL ".join(f"SELECT {_sql_str(r)} AS ruleset" for r in missing))
            stored = f"SELECT * FROM ({stored}) UNION ALL BY NAME ({live})"
        con.execute(f"CREATE VIEW {name} AS {stored}")


def _any_name(column: str, names: tuple[str, ...]) -> str:
    """SQL: list column ``column`` holds one of ``names`` (one list_contains per name, as in :meth:`Filters.hands_where`)."""
    return "(" + " OR ".join(f"list_contains({column}, {_sql_str(x)})" for x in names) + ")"


def _filtered_games(con: duckdb.DuckDBPyConnection, src: dict, name: str, d, filters: Filters,
                    names: tuple[str, ...] | None, written: set[str], scored: set[str], pz) -> str:
    """SELECT of game-level derived table ``name``'s rows under ``filters`` (see :func:`_derived_views`): each row
    adds up the selected hands of its game.

    A filter on sources and players only: a game whose source is kept and where one of ``names`` sat in every
    hand has all its hands selected, so its stored rows are the answer as they are (read directly, pseudonymized
    by ``pz``). Only the other games where one of ``names`` sat in some hand (counted here, usually none) and the
    rulesets without stored rows are added up from the filtered parent view. Otherwise every row is added up
    from the parent view (four rows a hand)."""
    everything = d.from_parent(d.parent)
    if not (filters.row_local and written):
        return everything
    conds = [Filters(sources=filters.sources).hands_where()] if filters.sources else []
    partial = None
    if names:
        full = _any_name("players_every_hand", names)
        # a row of a name of ``names``: one of them sat in the game (a test on a plain column, cheaper than on
        # the list ``players``, which holds the same names)
        sat = " OR ".join(f"{c} IN ({', '.join(_sql_str(x) for x in names)})" for c in d.names)
        partial = " AND ".join(conds + [f"({sat})", f"NOT coalesce({full}, false)"])
        conds.append(full)
    stored = pz(f"SELECT * FROM {src[name]}" + (f" WHERE {' AND '.join(conds)}" if conds else ""))
    rest = [f"ruleset IN ({', '.join(_sql_str(r) for r in sorted(scored - written))})"] if scored - written else []
    if partial and con.execute(f"SELECT count(*) FROM {src[name]} WHERE {partial}").fetchall()[0][0]:
        game = "ruleset || chr(31) || game_id"
        rest.append(f"{game} IN (SELECT {game} FROM {src[name]} WHERE {partial})")
    if not rest:
        return stored
    added = d.from_parent(f"(SELECT * FROM {d.parent} WHERE {' OR '.join(rest)})")
    return f"SELECT * FROM ({stored}) UNION ALL BY NAME ({added})"


def _filtered_rows(stored: str, table: str, key: str, filters: Filters, names: tuple[str, ...] | None) -> str:
    """SELECT of the rows of ``stored`` (a derived table's stored rows, pseudonymized) that belong to the hands
    ``filters`` selects (see :func:`_derived_views`)."""
    semi = f"SELECT * FROM ({stored}) WHERE {key} IN (SELECT {key} FROM hands)"
    columns = schema.schema(table).names
    if not filters.row_local or (filters.sources and "source" not in columns) or (names and "players" not in columns):
        return semi
    return f"SELECT * FROM ({stored}) WHERE {Filters(sources=filters.sources).hands_where(names)}"


def connect(lake: Path | str, filters: Filters | None = None) -> duckdb.DuckDBPyConnection:
    """In-memory DuckDB connection with views ``hands games rejects scores game_scores seats`` over ``lake``
    (a folder, or a URL such as ``s3://bucket/lake`` or ``file:///abs/lake``: see :func:`pipeline.lake.locate`).

    With ``filters``, the views hold only the selected hands and what belongs to them; with
    ``filters.pseudonymize``, player names are pseudonyms in every view and ``rejects.raw`` is blanked.
    Raises :class:`StatsError` when ``lake`` is not a folder, is of another layout version (``rebelote
    migrate`` first), or a table's files cannot be read together (e.g. partitioned and unpartitioned files
    mixed). Missing table folders give empty views.
    """
    from pipeline import lake as lakemod
    from pipeline.duck import duckdb_connection

    try:
        loc = lakemod.locate(lake)
    except ValueError as e:
        raise StatsError(str(e)) from e
    if not lakemod.exists(loc):
        raise StatsError(f"lake folder not found: {lake} (import records first with `rebelote ingest FILES... "
                         f"--lake {lake}`, or name another lake with --lake DIR or $REBELOTE_LAKE)")
    try:
        lakemod.require_current(loc)
    except lakemod.LakeVersionError as e:
        raise StatsError(str(e)) from None
    con = duckdb_connection(default_limit="4GB")   # $REBELOTE_DUCKDB_MEMORY: big reports spill to disk past it
    try:
        create_views(con, loc, filters)
    except BaseException:
        con.close()
        raise
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
    """Hands (after filters) with no row in the ruleset's scores: imported after the last rescore.

    0 at once, without reading any table, when the lake's hand files are those the last rescore of ``ruleset``
    read (:func:`pipeline.derived.hands_unchanged`: that rescore scored every one of their hands); otherwise
    the hands are matched to the scores by ``hand_key``, which takes seconds over millions of hands."""
    from pipeline import derived

    try:
        if derived.hands_unchanged(lake, ruleset):
            return 0
    except (OSError, ValueError):
        pass
    con = connect(lake, filters)
    try:
        return con.execute("SELECT count(*) FROM hands WHERE hand_key NOT IN "
                           "(SELECT hand_key FROM scores WHERE ruleset = $r)", {"r": ruleset}).fetchone()[0]
    finally:
        con.close()


def unscorable_by_source(lake: Path | str, ruleset: str, filters: Filters | None = None) -> list[tuple[str, int, str]]:
    """Hands (after filters) that ``ruleset`` could not score, per source, summary hands left out.

    A hand is unscorable when the ruleset cannot score it (``scores.status = 'unscorable'``), such as a classic
    take under a ruleset that needs a bid value. The reports count such a hand in ``hands`` and ``taken`` but
    give it no points and no contract result, so a source played under other rules shows players with
    ``made_of`` 0/0. Summary hands (score sheets, carg) are not counted, whatever the reason they are unscorable:
    the reports use their recorded scores.

    Returns:
        ``[(source, hands, reason), ...]``, most hands first: ``hands`` an int count of hands, ``reason`` the
        commonest ``scores.reason`` of the source's unscorable hands. Empty when every hand was scored.
    """
    from pipeline.rescore.reasons import SUMMARY_REASON

    con = connect(lake, filters)
    try:
        # summary hands by their completeness too: a 3-player sheet under a 4-player ruleset is unscorable for
        # its player count, yet the reports count its recorded scores
        rows = con.execute("SELECT source, count(*) AS n, mode(reason) FROM scores WHERE ruleset = $r "
                           "AND status = 'unscorable' AND reason IS DISTINCT FROM $summary "
                           "AND hand_key NOT IN (SELECT hand_key FROM hands WHERE completeness = 'summary') "
                           "GROUP BY source ORDER BY n DESC, source",
                           {"r": ruleset, "summary": SUMMARY_REASON}).fetchall()
    finally:
        con.close()
    return [(source, int(n), reason) for source, n, reason in rows]


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
    import dataclasses

    filters = filters or Filters()
    parts = []
    for start in months(lake, filters):
        end = (start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1))
        window = dataclasses.replace(filters, since=max(start, filters.since) if filters.since else start,
                                     until=min(end, filters.until) if filters.until else end)
        t = run_report(lake, name, ruleset, window, **params)
        at = 1 if t.column_names[:1] == ["ruleset"] else 0
        parts.append(t.add_column(at, "month", pa.array([start.strftime("%Y-%m")] * t.num_rows, pa.string())))
    if not parts:
        t = run_report(lake, name, ruleset, dataclasses.replace(filters, since=datetime(1, 1, 1, tzinfo=timezone.utc),
                                                                until=datetime(1, 1, 2, tzinfo=timezone.utc)), **params)
        at = 1 if t.column_names[:1] == ["ruleset"] else 0
        return t.add_column(at, "month", pa.array([], pa.string()))
    return pa.concat_tables(parts)


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
        names = "(" + ", ".join(_sql_str(x) for x in filter_player_names(con, filters)) + ")"
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
