"""Player pseudonyms: stable salted hashes that replace player names in exports, reports and dashboards.

A pseudonym is ``p_`` + the first 12 hex digits of HMAC-SHA256(key = salt, message = source + U+001F + name)
(UTF-8). The source is part of the message because names are per source (the reports treat the same name
in two sources as two players), so one name gets one pseudonym per source.

* Same salt, same name and source: same pseudonym, in every table and file of one export and across
  exports. Datasets made with the same salt can therefore be joined on players (linkable).
* Different salt: unrelated pseudonyms (unlinkable), as long as the salts stay secret. Keep the salt out of
  the shared data: anyone who has it can test guessed names against the pseudonyms.
* 12 hex digits are 48 bits: two distinct names of one source share a pseudonym with probability about
  n^2 / 2^49 (n names), under 1e-6 for 10,000 names.

This module is the one place that computes them. :func:`register` makes them available in DuckDB: the table
``_pseudonyms`` of the lake's names (each hashed once), the SQL functions ``rebelote_pseudonyms(source, names)``
(lists, by Arrow batches) and ``rebelote_pseudonym(source, name)``. :func:`pseudonymized_sql` replaces a
relation's name columns through them; :func:`pipeline.stats.reports.connect` applies it to the ``players`` lists of
``hands`` and ``games`` (``seats.player`` / ``seats.partner`` derive from them) and to the name columns of the
derived tables, so every report, export and dashboard built on those views inherits the pseudonyms.

Keys too: ``hand_key``, ``game_key`` and ``reject_key`` are plain SHA-256 digests of content that holds the
names (a game key hashes the players list), so anyone could test guessed names against them. In pseudonymized
views each is replaced by HMAC-SHA256(key = salt, message = the stored key), first 32 hex digits
(:func:`keyed`, :func:`rekeyed_sql`): the same in every table, so joins on keys still hold, and only someone
with the salt can link a key to content. So are the identifiers and file names (:data:`ID_COLUMNS`: a game id
or a file may be named after its players), and the free texts that may quote a name are removed
(:func:`texts_removed_sql`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

import duckdb

PREFIX = "p_"
HEX_DIGITS = 12
SEPARATOR = "\x1f"
#: SQL name of the DuckDB function registered by :func:`register`: (VARCHAR, VARCHAR[]) -> VARCHAR[].
SQL_FUNCTION = "rebelote_pseudonyms"
#: SQL name of the per-name function registered by :func:`register`: (VARCHAR, VARCHAR) -> VARCHAR.
NAME_FUNCTION = "rebelote_pseudonym"
#: Table of the pseudonyms of the lake's names, made by :func:`register` (in the connection's database).
MAP_TABLE = "_pseudonyms"
#: The most seats a hand has (2-, 3- and 4-player games): the length of a players list looked up seat by seat.
MAX_SEATS = 4
#: What replaces ``rejects.raw`` (the raw record text, which holds the names) in a pseudonymized view.
RAW_REMOVED = "(raw record removed: pseudonymized export)"
#: Columns holding a content digest (of content that includes names): re-keyed with the salt (:func:`rekeyed_sql`).
KEY_COLUMNS = ("hand_key", "game_key", "reject_key")
#: Identifiers and file names a source may make of player names (a coinche-cli game folder, a table called
#: "alice-vs-bruno", a score sheet's game ids, a file per player): keyed like the content keys, alike in every
#: table (joins on game_id still hold). ``source`` (a club, a site: named by whoever imports) is kept.
ID_COLUMNS = ("game_id", "source_game_id", "source_hand_id", "source_file", "ingest_file")
#: What replaces each of ``hands.errors`` (free text: a score keeper's round notes) in a pseudonymized view.
ERROR_REMOVED = "(text removed: pseudonymized export)"
KEY_HEX_DIGITS = 32
_BLOCK = 64          # SHA-256's block size: HMAC pads its key to it


def keyed(salt: str, key: str) -> str:
    """A stored key under ``salt``: HMAC-SHA256(salt, key), first 32 hex digits (what :func:`rekeyed_sql`
    computes in SQL). Raises ValueError for an empty salt."""
    if not salt:
        raise ValueError("the pseudonymization salt must not be empty")
    return hmac.new(salt.encode("utf-8"), key.encode("utf-8"), hashlib.sha256).hexdigest()[:KEY_HEX_DIGITS]


def texts_removed_sql(table: str, relation: str) -> str:
    """SELECT of ``relation`` (rows of lake table ``table``) with the free texts that can quote a name replaced:
    ``rejects.raw`` by :data:`RAW_REMOVED`, ``rejects.reason`` (a reason quotes the value it refuses: a dealer
    "Zoé" who is not one of the players) by what its ``reason_code`` means (:mod:`pipeline.ingest.reject_codes`),
    each of ``hands.errors`` by :data:`ERROR_REMOVED` (their number stays). Other tables: unchanged."""
    def s(text: str) -> str:
        return "'" + text.replace("'", "''") + "'"
    if table == "rejects":
        from pipeline.ingest.reject_codes import CODES
        cases = " ".join(f"WHEN {s(code)} THEN {s(words)}" for code, words in CODES.items())
        return (f"SELECT * REPLACE ({s(RAW_REMOVED)} AS raw, CASE reason_code {cases} ELSE {s(RAW_REMOVED)} END "
                f"AS reason) FROM ({relation})")
    if table == "hands":
        return f"SELECT * REPLACE (list_transform(errors, lambda e: {s(ERROR_REMOVED)}) AS errors) FROM ({relation})"
    return f"SELECT * FROM ({relation})"


def _pads(salt: str) -> tuple[str, str]:
    """HMAC's inner and outer padded keys of ``salt`` (RFC 2104), as hex."""
    k = salt.encode("utf-8")
    if len(k) > _BLOCK:
        k = hashlib.sha256(k).digest()
    k = k.ljust(_BLOCK, b"\0")
    return bytes(b ^ 0x36 for b in k).hex(), bytes(b ^ 0x5C for b in k).hex()


def keyed_sql(salt: str, expr: str) -> str:
    """SQL of :func:`keyed` for the VARCHAR expression ``expr`` (NULL stays NULL): HMAC written with DuckDB's
    ``sha256`` of the padded keys, so the whole column is hashed in parallel inside DuckDB, no Python call per row."""
    if not salt:
        raise ValueError("the pseudonymization salt must not be empty")
    inner, outer = _pads(salt)
    return (f"substr(sha256(unhex('{outer}' || sha256(unhex('{inner}' || hex({expr}))))), 1, {KEY_HEX_DIGITS})")


def rekeyed_sql(relation: str, columns: Sequence[str], salt: str) -> str:
    """SELECT of every column of ``relation`` with the key columns ``columns`` (of :data:`KEY_COLUMNS`) re-keyed
    under ``salt`` (:func:`keyed_sql`)."""
    if not columns:
        return f"SELECT * FROM ({relation})"
    replaced = ", ".join(f"{keyed_sql(salt, c)} AS {c}" for c in columns)
    return f"SELECT * REPLACE ({replaced}) FROM ({relation})"


def pseudonym(salt: str, source: str, name: str) -> str:
    """The pseudonym of player ``name`` of ``source`` under ``salt``: ``p_`` + 12 lowercase hex digits.

    Raises ValueError when ``salt`` is empty (an empty key would make the pseudonyms a public hash).
    """
    if not salt:
        raise ValueError("the pseudonymization salt must not be empty")
    mac = hmac.new(salt.encode("utf-8"), (source + SEPARATOR + name).encode("utf-8"), hashlib.sha256)
    return PREFIX + mac.hexdigest()[:HEX_DIGITS]


class Pseudonymizer:
    """:func:`pseudonym` with a fixed salt and a cache (each (source, name) is hashed once)."""

    def __init__(self, salt: str) -> None:
        pseudonym(salt, "", "")          # validates the salt
        self.salt = salt
        self._cache: dict[tuple[str, str], str] = {}

    def name(self, source: str, name: str | None) -> str | None:
        """Pseudonym of one name (None stays None)."""
        if name is None:
            return None
        key = (source, name)
        p = self._cache.get(key)
        if p is None:
            p = self._cache[key] = pseudonym(self.salt, source, name)
        return p

    def names(self, source: str, names: Sequence[str | None] | None) -> list[str | None] | None:
        """Pseudonyms of a ``players`` list (by seat); None stays None, so does each None entry."""
        if names is None:
            return None
        return [self.name(source, n) for n in names]

    def lists(self, sources, lists):
        """Arrow batch form of :meth:`names` (what DuckDB calls with ``type='arrow'``): ``sources`` a string array,
        ``lists`` a list<string> array of the same length (either may be chunked). Returns the list<string>
        array of pseudonyms, nulls kept. Vectorised: when the batch holds one source (a partition's rows: nearly
        always) each distinct name of the batch is hashed or looked up once, and the values are gathered with
        Arrow's ``take``; a batch mixing sources is done name by name."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(sources, pa.ChunkedArray):
            sources = sources.combine_chunks()
        if isinstance(lists, pa.ChunkedArray):
            lists = lists.combine_chunks()
        if pa.types.is_large_list(lists.type):
            lists = lists.cast(pa.list_(pa.string()))
        offsets = lists.offsets
        start, end = offsets[0].as_py(), offsets[-1].as_py()
        values = lists.values.slice(start, end - start)
        if start:
            offsets = pc.subtract(offsets, start)
        distinct = pc.unique(sources.drop_null()) if sources.null_count else pc.unique(sources)
        if len(distinct) == 1 and not sources.null_count:
            source = distinct[0].as_py()
            encoded = values.dictionary_encode()
            mapped = pa.array([self.name(source, n) for n in encoded.dictionary.to_pylist()], pa.string())
            out = pc.take(mapped, encoded.indices)
        else:
            parents = pc.list_parent_indices(lists.slice(0)) if len(values) else pa.array([], pa.int64())
            src = pc.take(sources, parents).to_pylist()
            out = pa.array([self.name(s, n) for s, n in zip(src, values.to_pylist())], pa.string())
        mask = lists.is_null() if lists.null_count else None
        return pa.ListArray.from_arrays(offsets, out, mask=mask)

    def expand(self, sources: Iterable[str], names: Iterable[str]) -> tuple[str, ...]:
        """``names`` plus their pseudonyms in each of ``sources``: a player filter given real names (or
        pseudonyms) then matches the pseudonymized rows. Sorted, without duplicates."""
        names = list(names)
        out = set(names)
        for s in sources:
            out.update(self.name(s, n) for n in names)
        return tuple(sorted(out))


def register(con: duckdb.DuckDBPyConnection, salt: str, names_sql: str | None = None) -> Pseudonymizer:
    """Define on ``con`` the SQL functions ``rebelote_pseudonyms(source VARCHAR, names VARCHAR[]) -> VARCHAR[]``
    and ``rebelote_pseudonym(source VARCHAR, name VARCHAR) -> VARCHAR`` (NULL list or name -> NULL), and the
    table ``_pseudonyms(source, name, pseudonym)`` (all VARCHAR): the pseudonym of every distinct
    (source, name) of the SELECT ``names_sql`` (columns ``source`` and ``name``; None: no rows), each hashed
    once in Python. ``rebelote_pseudonyms`` takes Arrow batches (:meth:`Pseudonymizer.lists`: each distinct name
    of a batch hashed once). :func:`pseudonymized_sql` looks names up in that table by a hash join, which DuckDB runs in
    parallel (a tenth of the CPU of a Python call per row: docs/bench-results.md), and calls
    ``rebelote_pseudonym`` only for a name the table lacks. The functions live in this Python process only: views
    that call them cannot be stored in a database file for other programs. Returns the :class:`Pseudonymizer`
    they use. Raises ValueError for an empty salt."""
    p = Pseudonymizer(salt)
    con.create_function(SQL_FUNCTION, p.lists, ["VARCHAR", "VARCHAR[]"], "VARCHAR[]", type="arrow",
                        null_handling="special", side_effects=False)
    con.create_function(NAME_FUNCTION, p.name, ["VARCHAR", "VARCHAR"], "VARCHAR", null_handling="special",
                        side_effects=False)
    # a table of the (in-memory) database, not TEMP: cursors of the connection (export duckdb) read it too
    con.execute(f"CREATE OR REPLACE TABLE {MAP_TABLE} (source VARCHAR, name VARCHAR, pseudonym VARCHAR)")
    if names_sql:
        add_names(con, p, names_sql)
    return p


def add_names(con: duckdb.DuckDBPyConnection, p: Pseudonymizer, names_sql: str) -> int:
    """Add to ``_pseudonyms`` (made by :func:`register`) the distinct (source, name) of the SELECT ``names_sql``
    (columns ``source``, ``name``) it does not hold yet, with their pseudonyms under ``p``. Returns how many."""
    from pipeline.arrow_rows import table

    rows = con.execute(f"SELECT DISTINCT source, name FROM ({names_sql}) AS n WHERE source IS NOT NULL AND name IS NOT NULL "
                       f"AND NOT EXISTS (SELECT 1 FROM {MAP_TABLE} AS m WHERE m.source = n.source AND m.name = n.name)"
                       ).fetchall()
    if rows:
        import pyarrow as pa

        new_rows = table({"source": [r[0] for r in rows], "name": [r[1] for r in rows],
                          "pseudonym": [p.name(r[0], r[1]) for r in rows]},
                         pa.schema([("source", pa.string()), ("name", pa.string()), ("pseudonym", pa.string())]))
        con.register("_pseudonym_rows", new_rows)
        con.execute(f"INSERT INTO {MAP_TABLE} SELECT source, name, pseudonym FROM _pseudonym_rows")
        con.unregister("_pseudonym_rows")
    return len(rows)


def unknown(con: duckdb.DuckDBPyConnection, given: Iterable[str]) -> list[str]:
    """The strings of ``given`` that ``_pseudonyms`` holds neither as a name nor as a pseudonym, sorted."""
    given = sorted(set(given))
    known = {r[0] for r in con.execute(f"SELECT name FROM {MAP_TABLE} WHERE list_contains($g, name) UNION "
                                       f"SELECT pseudonym FROM {MAP_TABLE} WHERE list_contains($g, pseudonym)",
                                       {"g": given}).fetchall()}
    return [g for g in given if g not in known]


def real_names(con: duckdb.DuckDBPyConnection, given: Iterable[str]) -> tuple[str, ...]:
    """The real names a ``--player`` filter given as real names or pseudonyms stands for: the names given, plus
    every name of ``_pseudonyms`` (:func:`register`) whose pseudonym is given. Sorted, without duplicates. A
    filter tested on the real names (before they are replaced) then keeps the rows the pseudonymized views would
    keep, without pseudonymizing every row to test it."""
    given = sorted(set(given))
    found = con.execute(f"SELECT DISTINCT name FROM {MAP_TABLE} WHERE list_contains($g, pseudonym)",
                        {"g": given}).fetchall()
    return tuple(sorted(set(given) | {r[0] for r in found}))


def pseudonymized_sql(relation: str, names: Sequence[str] = (), lists: Sequence[str] = (), pair: bool = False,
                      sort_lists: bool = False, seat_lists: Sequence[str] = ()) -> str:
    """SELECT of every column of ``relation`` (SQL of a relation with a ``source`` column) with player names
    replaced by their pseudonyms (needs :func:`register`): the VARCHAR columns ``names`` by a LEFT JOIN with
    ``_pseudonyms`` each (``rebelote_pseudonym`` for a name the table lacks); with ``pair``, the two ``names``
    sorted again (pseudonyms sort differently); the VARCHAR[] columns ``lists`` by ``rebelote_pseudonyms`` (Arrow
    batches; sorted again with ``sort_lists``); the VARCHAR[] columns ``seat_lists`` (names by seat: at most
    :data:`MAX_SEATS`) by one LEFT JOIN per seat, ``rebelote_pseudonyms`` for a longer list or a name the table
    lacks. Only the columns a query reads are computed, but every join runs whenever the relation is read (so
    ``seat_lists`` suits a small relation such as ``games``: 0.5 M rows for 5 M hands). Row order is not kept."""
    joins, new = [], {}
    for c in names:
        m = f"_m{len(joins)}"
        joins.append(f"LEFT JOIN {MAP_TABLE} AS {m} ON {m}.source = _t.source AND {m}.name = _t.{c}")
        new[c] = (f"CASE WHEN {m}.pseudonym IS NOT NULL OR _t.{c} IS NULL THEN {m}.pseudonym "
                  f"ELSE {NAME_FUNCTION}(_t.source, _t.{c}) END")
    pair = pair and len(names) == 2
    for c in lists:
        one = players_sql("_t.source", f"_t.{c}")
        new[c] = f"list_sort({one})" if sort_lists else one
    for c in seat_lists:
        ms = [f"_m{len(joins) + i}" for i in range(MAX_SEATS)]
        joins += [f"LEFT JOIN {MAP_TABLE} AS {m} ON {m}.source = _t.source AND {m}.name = _t.{c}[{i + 1}]"
                  for i, m in enumerate(ms)]
        found = " AND ".join(f"(_t.{c}[{i + 1}] IS NULL OR {m}.pseudonym IS NOT NULL)" for i, m in enumerate(ms))
        new[c] = (f"CASE WHEN _t.{c} IS NULL THEN NULL WHEN len(_t.{c}) <= {MAX_SEATS} AND {found} "
                  f"THEN [{', '.join(f'{m}.pseudonym' for m in ms)}][1:len(_t.{c})] "
                  f"ELSE {players_sql('_t.source', f'_t.{c}')} END")
    if not new:
        return f"SELECT * FROM ({relation})"
    replaced = ", ".join(f"{e} AS {c}" for c, e in new.items())
    sql = f"SELECT _t.* REPLACE ({replaced}) FROM ({relation}) AS _t {' '.join(joins)}"
    if not pair:
        return sql
    # sorted again as list_sort sorts the pair (NULLs last), written with least/greatest: list_sort builds a
    # sort per row
    a, b = names
    first = f"CASE WHEN {a} IS NULL THEN {b} WHEN {b} IS NULL THEN {a} ELSE least({a}, {b}) END"
    second = f"CASE WHEN {a} IS NULL OR {b} IS NULL THEN NULL ELSE greatest({a}, {b}) END"
    return f"SELECT * REPLACE ({first} AS {a}, {second} AS {b}) FROM ({sql})"


def players_sql(source: str = "source", players: str = "players") -> str:
    """SQL expression replacing a players list column by its pseudonyms (needs :func:`register`)."""
    return f"{SQL_FUNCTION}({source}, {players})"
