"""DuckDB views over a lake: the tables the reports read.

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
``pair_games``, ``declaration_items``, ``dealt_events``: :mod:`pipeline.facts.derived`): the rows written at
rescore time, computed on the fly for rulesets rescored before the table existed, and for ``player_hands``,
``pair_hands`` and ``dealt_events``, which are never stored, always computed (for the hands scored, as stored rows
would be); the reports read the stored tables rather than joining ``hands`` and ``scores``.

With ``Filters.pseudonymize`` (a salt), player names are replaced by salted pseudonyms in ``hands.players``
and ``games.players`` before anything else reads them (:mod:`pipeline.stats.pseudonymize`), so ``seats`` and every
report see only pseudonyms; ``rejects.raw`` (the raw record text) is blanked.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

import duckdb
import pyarrow as pa

from pipeline.storage import schema
from pipeline.stats.report_filters import Filters, StatsError, sql_str


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

    ``lake`` is a folder or URL (:func:`pipeline.storage.lake.locate`). A local lake is read by DuckDB's Parquet
    reader with absolute paths, so the SQL works from any directory; a lake on object storage is read
    through pyarrow's filesystem, as a dataset registered on ``con`` (``_arrow_<table>``), so that SQL only
    works on ``con``. Raises :class:`StatsError` when the files cannot be read together (e.g. partitioned
    and unpartitioned files mixed); with ``check=False`` that is left to the caller (:func:`_create_table_view`:
    creating a view over the SQL reads the same footers, so checking first reads them twice).
    """
    from pipeline.storage import lake as lakemod
    from pipeline.storage.duck import empty_sql

    loc = lakemod.locate(lake)
    empty = empty_sql(con, table)
    if not lakemod.has_table(loc, table):
        return empty
    if loc.local:
        # partition values stay VARCHAR (no autocast: a source named '2023' is not a number)
        hive = "true, hive_types_autocast = false" if schema.partition_columns(table) else "false"
        src = (f"read_parquet({sql_str(loc.path(table, '**', '*.parquet'))}, "
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
    from pipeline.storage import lake as lakemod
    try:
        con.execute(f"CREATE VIEW {name} AS {sql}")
    except duckdb.Error as e:
        raise StatsError(f"cannot read table {table!r} under {lakemod.locate(lake).path(table)}: {e}") from e


def filter_player_names(con: duckdb.DuckDBPyConnection, filters: Filters) -> tuple[str, ...] | None:
    """The ``--player`` names to match: as given, plus their pseudonyms in every source of the lake when the
    views are pseudonymized (so real names and pseudonyms both work). Needs ``_all_hands`` when so."""
    if not filters.players or not filters.pseudonymize:
        return filters.players
    from pipeline.stats.pseudonymize import Pseudonymizer
    sources = [r[0] for r in con.execute("SELECT DISTINCT source FROM _all_hands").fetchall()]
    return Pseudonymizer(filters.pseudonymize).expand(sources, filters.players)


def _key_columns(table: str) -> list[str]:
    """The columns of ``table`` keyed in a pseudonymized view: content keys and identifiers
    (:data:`pipeline.stats.pseudonymize.KEY_COLUMNS`, :data:`~pipeline.stats.pseudonymize.ID_COLUMNS`)."""
    from pipeline.stats.pseudonymize import ID_COLUMNS, KEY_COLUMNS
    names = schema.schema(table).names
    return [c for c in KEY_COLUMNS + ID_COLUMNS if c in names]


#: A game's id for its natural order: the source's, else ours
GAME_ID_SQL = "coalesce(source_game_id, game_id, '')"


def natural_sql(text: str) -> str:
    """SQL of the natural-order key of the SQL text ``text``: its runs of the digits 0-9 compared as numbers (by
    their length without leading zeros, then their digits: numbers of any size), before any text at the same place."""
    return rf"""list_transform(regexp_extract_all({text}, '[0-9]+|[^0-9]+'),
        lambda p: CASE WHEN p[1] BETWEEN '0' AND '9'
                       THEN {{'text': false, 'digits': length(coalesce(nullif(ltrim(p, '0'), ''), '0')),
                             'part': coalesce(nullif(ltrim(p, '0'), ''), '0')}}
                       ELSE {{'text': true, 'digits': 0, 'part': p}} END)"""


def game_order_sql(games: str) -> str:
    """SELECT (game_id, natural_rank) of the games of relation ``games`` (rows of the ``games`` table): each game's
    place in the natural order of its ids (:func:`natural_sql` of :data:`GAME_ID_SQL`, then the id), the order
    the ratings take after time and source (:data:`pipeline.stats.ratings.ORDER_SQL`). Pseudonymized views keep
    it, the game ids keyed (``_game_order``): the ratings then rate the games in the order of their stored ids, as
    without pseudonyms. The rank tells the order of the games, no id."""
    return (f"SELECT game_id, row_number() OVER (ORDER BY {natural_sql(GAME_ID_SQL)}, game_id) AS natural_rank "
            f"FROM (SELECT game_id, any_value(source_game_id) AS source_game_id FROM ({games}) GROUP BY game_id)")


def create_views(con: duckdb.DuckDBPyConnection, lake: Path | str, filters: Filters | None = None,
                 internal: bool = True, derived: Collection[str] | None = None) -> None:
    """Create the views :data:`VIEWS` on ``con`` over ``lake`` (see :func:`connect`).

    internal=True also creates ``_all_<table>``, the unfiltered (but pseudonymized) tables, which
    :func:`pipeline.stats.reports.rulesets` and :func:`pipeline.stats.reports.lake_values` read; internal=False inlines them into the public views, so
    ``con`` holds exactly :data:`VIEWS` (what a dashboard file wants). Pseudonymization needs a Python
    function, so it is refused with internal=False (:class:`StatsError`). ``derived``: the derived views to
    make (:func:`derived_needed`), None for all: DuckDB binds each view's SQL when it is made, the live ones
    (``player_hands``, ``pair_hands``, ``dealt_events``) most dearly.
    """
    from pipeline.storage import lake as lakemod
    lake = lakemod.locate(lake)
    filters = filters or Filters()
    _selected_views(con, lake, filters, internal, derived, *_unfiltered_views(con, lake, filters, internal))


def _unfiltered_views(con: duckdb.DuckDBPyConnection, lake, filters: Filters,
                      internal: bool) -> tuple[dict, dict, dict]:
    """The part of :func:`create_views` that no date filter changes: the tables' SELECTs (``raw``: as stored;
    ``base``: pseudonymized), the ``_all_<table>`` views over them when ``internal``, and the macros. Returns
    (``src``: each table's relation for the filtered views, ``raw``, ``base``)."""
    from pipeline.stats import pseudonymize as pseudo
    if not internal and not lake.local:
        raise StatsError(f"lake {lake}: a dashboard file's views read local Parquet files; for a lake on object "
                         "storage, materialize the tables instead")
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
        # the games' order by their stored ids, keyed like them: the ratings rate undated games in that order
        # (keyed ids in their own order would rate them in another, and change the ratings); a view, computed
        # only when the ratings read it
        con.execute("CREATE OR REPLACE VIEW _game_order AS "
                    + pseudo.rekeyed_sql(game_order_sql(raw["games"]), ["game_id"], salt))
    if internal:
        for t in schema.TABLES:
            _create_table_view(con, lake, t, f"_all_{t}", base[t])
        src = {t: f"_all_{t}" for t in schema.TABLES}
    else:
        src = {t: f"({base[t]}) AS _all_{t}" for t in schema.TABLES}
    add_macros(con)
    if internal:
        _hand_seq_bases(con, lake)
    return src, raw, base


def _selected_views(con: duckdb.DuckDBPyConnection, lake, filters: Filters, internal: bool,
                    derived: Collection[str] | None, src: dict, raw: dict, base: dict) -> None:
    """The views :data:`VIEWS` of the hands ``filters`` selects, over the unfiltered ones (``src``; ``raw``,
    ``base``: the tables' stored and pseudonymized SELECTs) that :func:`create_views` made first."""
    from pipeline.stats import pseudonymize as pseudo
    salt = filters.pseudonymize
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
    _derived_views(con, src, filters if where else None, stored_names, salt, lake, derived)
    if internal:
        con.execute(f"CREATE TEMP TABLE _views_filtered AS SELECT {bool(where)} AS filtered")   # read by hand_pairing


def _without_stale_games(con: duckdb.DuckDBPyConnection, lake, base: dict[str, str], temp: bool) -> dict[str, str]:
    """``base`` (table -> SELECT of its stored rows) with the rows of stale games left out of every table computed
    per ruleset, for the rulesets read as they stand while stale (a report that could not rescore first, a house
    ruleset known only by its record): ingest never deletes what was computed from a game it replaced
    (:mod:`pipeline.rescore.stale`), so such rows are the old game's. A game's rows go together, from every table,
    so the reports see the fresh games whole. The stale games are listed in temporary tables ``_stale_games``
    (ruleset, game_id) and ``_stale_hands`` (ruleset, hand_key; for tables without game_id).

    Nothing changes when every scored ruleset is fresh (:func:`pipeline.facts.derived.hands_unchanged`), for a ruleset
    whose scores carry no record of the files they were computed from, or when not ``temp`` (the views of a
    dashboard file read the lake as it is whenever the file is opened: a list of stale games written into the
    file would hide them after the next rescore too; ``export duckdb`` rescores the rulesets it reports first).
    A ruleset whose tables cannot be read is left as it stands (creating the views names the table)."""
    from pipeline.storage import lake as lakemod
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
    from pipeline.facts import derived
    from pipeline.rescore import stale

    rec = stale.record(lake, ruleset)
    if (rec or {}).get("hands_files") is None:
        return None
    hands_now, games_now = derived.hands_snapshot(lake), derived.hands_snapshot(lake, "games")
    if rec.get("hands_files") == hands_now and rec.get("games_files") == games_now:
        return None                 # fresh: what pipeline.facts.derived.hands_unchanged tests, without listing twice
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


def _hand_seq_bases(con: duckdb.DuckDBPyConnection, lake) -> None:
    """Temp table ``_hand_seq_basis(ruleset VARCHAR, basis VARCHAR)``: per ruleset with stored ``hand_facts``
    rows, a digest of the hand files their ``hand_seq`` numbers (:func:`pipeline.facts.derived.hand_seq_basis`); none
    when unknown. Read by :func:`pipeline.stats.reports.hand_pairing`."""
    import hashlib

    import orjson

    from pipeline.facts import derived

    from pipeline.storage import lake as lakemod
    rows = []
    # on object storage the stored rows carry no hand_seq (schemas/hand_facts.toml): no basis, pairing by key
    for p in lakemod.partitions(lake, "hand_facts") if lakemod.locate(lake).local else []:
        if p:
            r = p.split("=", 1)[1]
            basis = derived.hand_seq_basis(lake, r)
            if basis:
                rows.append((r, hashlib.sha256(orjson.dumps(basis)).hexdigest()))
    values = " UNION ALL ".join(f"SELECT {sql_str(r)}, {sql_str(b)}" for r, b in rows)
    con.execute("CREATE TEMP TABLE _hand_seq_basis (ruleset VARCHAR, basis VARCHAR)")
    if rows:
        con.execute(f"INSERT INTO _hand_seq_basis {values}").fetchall()


#: The lake's own tables; the others of :data:`schema.TABLES` are derived from them (:mod:`pipeline.facts.derived`).
BASE_TABLES = ("hands", "games", "rejects", "scores", "game_scores")
#: Tables of analyses run on demand (``rebelote analyse``): a view each, filtered with the hands.
ANALYSIS_TABLES = ("dd_hands",)


def _derived_views(con: duckdb.DuckDBPyConnection, src: dict, filters: Filters | None, names: tuple[str, ...] | None,
                   salt: str | None, lake, only: Collection[str] | None = None) -> None:
    """One view per derived table (:data:`pipeline.facts.derived.DERIVED`): the rows written at rescore time for the
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
    column of its schema (layout version 5: :mod:`pipeline.maintenance.migrate`)."""
    from pipeline.storage import lake as lakemod
    from pipeline.stats import pseudonymize as pseudo
    from pipeline.facts.derived import DERIVED

    def rulesets(table: str) -> set[str]:
        return {p.split("=", 1)[1] for p in lakemod.partitions(lake, table) if p}

    scored = rulesets("scores")
    for name, d in DERIVED.items():
        if only is not None and name not in only:
            continue

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
            live = d.live_sql("hands", "scores", " UNION ALL ".join(f"SELECT {sql_str(r)} AS ruleset" for r in missing))
            if not d.stored:
                live = _scored_only(live, "scores")
            stored = f"SELECT * FROM ({stored}) UNION ALL BY NAME ({live})"
        con.execute(f"CREATE VIEW {name} AS {stored}")


def _scored_only(sql: str, scores: str) -> str:
    """The rows of ``sql`` (a hand-level table's, computed from hands and scores) of the hands ``scores`` holds under
    their ruleset: those a rescore would have stored. A hand imported after its ruleset's last rescore, or of a
    stale game (whose scores the views leave out: :func:`_without_stale_games`), has none."""
    return (f"SELECT * FROM ({sql}) AS _rows SEMI JOIN (SELECT ruleset, hand_key FROM {scores}) AS _scored "
            "USING (ruleset, hand_key)")


def _any_name(column: str, names: tuple[str, ...]) -> str:
    """SQL: list column ``column`` holds one of ``names`` (one list_contains per name, as in :meth:`Filters.hands_where`)."""
    return "(" + " OR ".join(f"list_contains({column}, {sql_str(x)})" for x in names) + ")"


def _filtered_games(con: duckdb.DuckDBPyConnection, src: dict, name: str, d, filters: Filters,
                    names: tuple[str, ...] | None, written: set[str], scored: set[str], pz) -> str:
    """SELECT of game-level derived table ``name``'s rows under ``filters`` (see :func:`_derived_views`): each row
    adds up the selected hands of its game.

    A filter on sources and players only: a game whose source is kept and where one of ``names`` sat in every
    hand has all its hands selected, so its stored rows are the answer as they are (read directly, pseudonymized
    by ``pz``). Only the other games where one of ``names`` sat in some hand (counted here, usually none) and the
    rulesets without stored rows are added up from the filtered parent view. Any other filter (variants, dates)
    is tested on the hands themselves: the games whose every hand the ``hands`` view holds
    (:func:`_selected_games`) have their stored rows read as they are, and only the games it holds in part are
    added up from the parent view (four rows a hand)."""
    if not written:
        return d.from_parent(d.parent)
    rest = [f"ruleset IN ({', '.join(sql_str(r) for r in sorted(scored - written))})"] if scored - written else []
    games = None        # a condition on game_id: the games selected in part
    if not filters.row_local:
        whole, part = _selected_games(con, src)
        stored = pz(f"SELECT * FROM {src[name]} WHERE game_id IN (SELECT game_id FROM {whole})")
        # a dashboard file's views read the lake as it is when opened: there may be such games by then
        if src["hands"] != "_all_hands" or con.execute(f"SELECT count(*) FROM {part}").fetchall()[0][0]:
            games = _games_in(con, part, src)
    else:
        conds = [Filters(sources=filters.sources).hands_where()] if filters.sources else []
        partial = None
        if names:
            full = _any_name("players_every_hand", names)
            # a row of a name of ``names``: one of them sat in the game (a test on a plain column, cheaper than on
            # the list ``players``, which holds the same names)
            sat = " OR ".join(f"{c} IN ({', '.join(sql_str(x) for x in names)})" for c in d.names)
            partial = " AND ".join(conds + [f"({sat})", f"NOT coalesce({full}, false)"])
            conds.append(full)
        stored = pz(f"SELECT * FROM {src[name]}" + (f" WHERE {' AND '.join(conds)}" if conds else ""))
        # a game is selected in part under every ruleset alike (its hands and names are the same)
        if partial and (src["hands"] != "_all_hands"
                        or con.execute(f"SELECT count(*) FROM {src[name]} WHERE {partial}").fetchall()[0][0]):
            games = _games_in(con, f"(SELECT game_id FROM {src[name]} WHERE {partial})", src)
    if games and not rest and src["hands"] == "_all_hands":
        # only games selected in part (a few, usually): their rows are added up once, here, from their selected
        # hands and their scores (the parent, player_hands or pair_hands, is not stored; its view would join the
        # scores to every selected hand for every query that reads this one)
        from pipeline.facts.derived import DERIVED

        rulesets = " UNION ALL ".join(f"SELECT {sql_str(r)} AS ruleset" for r in sorted(written))
        scores = f"(SELECT * FROM {src['scores']} WHERE {games})"
        rows = _scored_only(DERIVED[d.parent].live(f"(SELECT * FROM hands WHERE {games})", scores, rulesets), scores)
        # the game results those games' rows carry, read from the stored rows of those games only (the view
        # would first match every game to the selected hands)
        con.execute(f"CREATE TEMP TABLE _added_{name} AS WITH game_scores AS "
                    f"(SELECT * FROM {src['game_scores']} WHERE {games}) SELECT * FROM ({d.from_parent(f'({rows})')})")
        return f"SELECT * FROM ({stored}) UNION ALL BY NAME (SELECT * FROM _added_{name})"
    if games:
        rest.append(games)
    if not rest:
        return stored
    added = d.from_parent(f"(SELECT * FROM {d.parent} WHERE {' OR '.join(rest)})")
    return f"SELECT * FROM ({stored}) UNION ALL BY NAME ({added})"


#: Games named one by one in a view's condition at most (:func:`_games_in`).
GAMES_LISTED = 10_000


def _games_in(con: duckdb.DuckDBPyConnection, games: str, src: dict) -> str:
    """SQL condition: ``game_id`` is one of the relation ``games``' (``game_id``). On a report's connection the ids
    are listed as constants when there are at most :data:`GAMES_LISTED`: the parent rows of a game-level table
    are then computed for those games only (``player_hands`` is not stored, and DuckDB applies a list of
    constants to its SQL before the joins, a subquery after them: docs/bench-results.md). A dashboard file's
    views read the lake as it is when opened: they keep the subquery."""
    sub = f"game_id IN (SELECT game_id FROM {games})"
    if src["hands"] != "_all_hands":
        return sub
    ids = [r[0] for r in con.execute(f"SELECT DISTINCT game_id FROM {games} LIMIT {GAMES_LISTED + 1}").fetchall()]
    if len(ids) > GAMES_LISTED or None in ids:
        return sub
    return f"game_id IN ({', '.join(sql_str(g) for g in ids)})"


def _selected_games(con: duckdb.DuckDBPyConnection, src: dict) -> tuple[str, str]:
    """Relations (``game_id``) of the games the filtered ``hands`` view holds whole (every hand of the game in the
    lake) and in part, for a filter not tested on the derived rows themselves (:func:`_filtered_games`): the
    game-level rows of a whole game are its stored sums. Counted once into a temporary table on a connection with
    ``_all_hands`` (a report's); inlined as subqueries in a dashboard file's views, which read the lake as it is
    whenever the file is opened."""
    counts = ("(SELECT game_id, count(*) = any_value(n) AS whole FROM hands "
              f"JOIN (SELECT game_id, count(*) AS n FROM {src['hands']} GROUP BY game_id) AS _n USING (game_id) "
              "GROUP BY game_id)")
    if src["hands"] != "_all_hands":
        return (f"(SELECT game_id FROM {counts} AS _c WHERE whole)",
                f"(SELECT game_id FROM {counts} AS _c WHERE NOT whole)")
    exists = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = '_selected_games'").fetchall()[0][0]
    if not exists:
        con.execute(f"CREATE TEMP TABLE _selected_games AS SELECT * FROM {counts}")
    return "(SELECT game_id FROM _selected_games WHERE whole)", "(SELECT game_id FROM _selected_games WHERE NOT whole)"


def _filtered_rows(stored: str, table: str, key: str, filters: Filters, names: tuple[str, ...] | None) -> str:
    """SELECT of the rows of ``stored`` (a derived table's stored rows, pseudonymized) that belong to the hands
    ``filters`` selects (see :func:`_derived_views`)."""
    semi = f"SELECT * FROM ({stored}) WHERE {key} IN (SELECT {key} FROM hands)"
    columns = schema.schema(table).names
    if not filters.row_local or (filters.sources and "source" not in columns) or (names and "players" not in columns):
        return semi
    return f"SELECT * FROM ({stored}) WHERE {Filters(sources=filters.sources).hands_where(names)}"


def windows(lake: Path | str, filters: Filters, spans: Iterable[Filters],
            derived: Collection[str] | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """One connection yielded once per filter of ``spans`` (``filters`` with other dates: months), its views
    those :func:`connect` makes for that filter: the unfiltered views, the connection and the macros are made
    once (a connection per month cost about twice the month's report), the selected views again for each.
    Each span differs from ``filters`` by its dates only. Raises as :func:`connect`."""
    import dataclasses

    loc, con = _opened(lake)
    try:
        tables = _unfiltered_views(con, loc, dataclasses.replace(filters, since=None, until=None), True)
        for w in spans:
            for name in VIEWS:
                con.execute(f"DROP VIEW IF EXISTS {name}")
            for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary AND (table_name IN "
                                    "('_selected_games', '_views_filtered') "
                                    "OR starts_with(table_name, '_added_'))").fetchall():
                con.execute(f"DROP TABLE {t}")
            _selected_views(con, loc, w, True, derived, *tables)
            yield con
    finally:
        con.close()


def derived_needed(sql_texts: Iterable[str]) -> set[str]:
    """The derived views that SQL texts (reports' queries) read, with the parents those are computed from under a
    filter: what :func:`connect`'s ``derived`` needs to make for them."""
    import re

    from pipeline.facts.derived import DERIVED

    text = "\n".join(sql_texts)
    need = {name for name in DERIVED if re.search(rf"\b{name}\b", text)}
    while parents := {DERIVED[n].parent for n in need if DERIVED[n].parent} - need:
        need |= parents
    return need


def connect(lake: Path | str, filters: Filters | None = None,
            derived: Collection[str] | None = None) -> duckdb.DuckDBPyConnection:
    """In-memory DuckDB connection with views ``hands games rejects scores game_scores seats`` over ``lake``
    (a folder, or a URL such as ``s3://bucket/lake`` or ``file:///abs/lake``: see :func:`pipeline.storage.lake.locate`).

    With ``filters``, the views hold only the selected hands and what belongs to them; with
    ``filters.pseudonymize``, player names are pseudonyms in every view and ``rejects.raw`` is blanked.
    Raises :class:`StatsError` when ``lake`` is not a folder, is of another layout version (``rebelote
    migrate`` first), or a table's files cannot be read together (e.g. partitioned and unpartitioned files
    mixed). Missing table folders give empty views. ``derived``: only these derived views
    (:func:`derived_needed`; None: all of them).
    """
    loc, con = _opened(lake)
    try:
        create_views(con, loc, filters, derived=derived)
    except BaseException:
        con.close()
        raise
    return con


def _opened(lake: Path | str):
    """(the lake's Location, a new DuckDB connection) once the lake is found readable and current; StatsError
    otherwise."""
    from pipeline.storage import lake as lakemod
    from pipeline.storage.duck import duckdb_connection

    try:
        loc = lakemod.locate(lake)
    except ValueError as e:
        raise StatsError(str(e)) from e
    why = lakemod.unreadable(lake)
    if why:
        raise StatsError(why)
    try:
        lakemod.require_current(loc)
    except lakemod.LakeVersionError as e:
        raise StatsError(str(e)) from None
    return loc, duckdb_connection(default_limit="4GB")   # $REBELOTE_DUCKDB_MEMORY: big reports spill to disk past it
