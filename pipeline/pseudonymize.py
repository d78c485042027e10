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

This module is the one place that computes them. :func:`register` makes them available in DuckDB as the
SQL function ``rebelote_pseudonyms(source, names)``, which :func:`pipeline.stats.connect` applies to the
``players`` lists of ``hands`` and ``games`` (``seats.player`` / ``seats.partner`` derive from them), so
every report, export and dashboard built on those views inherits the pseudonyms.
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
#: Temp table of the pseudonyms of the lake's names, made by :func:`register`.
MAP_TABLE = "_pseudonyms"
#: What replaces ``rejects.raw`` (the raw record text, which holds the names) in a pseudonymized view.
RAW_REMOVED = "(raw record removed: pseudonymized export)"


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
    temp table ``_pseudonyms(source, name, pseudonym)`` (all VARCHAR): the pseudonym of every distinct
    (source, name) of the SELECT ``names_sql`` (columns ``source`` and ``name``; None: no rows), each hashed
    once in Python. :func:`pseudonymized_sql` looks names up in that table by a hash join, which DuckDB runs in
    parallel (0.4 s of CPU per 20 M rows, against about 4 s for a Python call per row), and calls
    ``rebelote_pseudonym`` only for a name the table lacks. The functions live in this Python process only: views
    that call them cannot be stored in a database file for other programs. Returns the :class:`Pseudonymizer`
    they use. Raises ValueError for an empty salt."""
    from pipeline.arrow_rows import table

    p = Pseudonymizer(salt)
    con.create_function(SQL_FUNCTION, p.names, ["VARCHAR", "VARCHAR[]"], "VARCHAR[]", null_handling="special",
                        side_effects=False)
    con.create_function(NAME_FUNCTION, p.name, ["VARCHAR", "VARCHAR"], "VARCHAR", null_handling="special",
                        side_effects=False)
    rows = con.execute(f"SELECT DISTINCT source, name FROM ({names_sql}) WHERE source IS NOT NULL AND name IS NOT NULL"
                       ).fetchall() if names_sql else []
    con.execute(f"CREATE OR REPLACE TEMP TABLE {MAP_TABLE} (source VARCHAR, name VARCHAR, pseudonym VARCHAR)")
    if rows:
        import pyarrow as pa

        _map_rows = table({"source": [r[0] for r in rows], "name": [r[1] for r in rows],
                           "pseudonym": [p.name(r[0], r[1]) for r in rows]},
                          pa.schema([("source", pa.string()), ("name", pa.string()), ("pseudonym", pa.string())]))
        con.register("_pseudonym_rows", _map_rows)
        con.execute(f"INSERT INTO {MAP_TABLE} SELECT source, name, pseudonym FROM _pseudonym_rows")
        con.unregister("_pseudonym_rows")
    return p


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
                      sort_lists: bool = False) -> str:
    """SELECT of every column of ``relation`` (SQL of a relation with a ``source`` column) with player names
    replaced by their pseudonyms (needs :func:`register`): the VARCHAR columns ``names`` by a LEFT JOIN with
    ``_pseudonyms`` each (``rebelote_pseudonym`` for a name the table lacks); with ``pair``, the two ``names``
    sorted again (pseudonyms sort differently); the VARCHAR[] columns ``lists`` by ``rebelote_pseudonyms``, per
    row (sorted again with ``sort_lists``). Only the columns a query reads are computed, but every join runs: a
    relation with no ``names`` is joined with nothing. Row order is not kept."""
    joins, new = [], {}
    for i, c in enumerate(names):
        m = f"_m{i}"
        joins.append(f"LEFT JOIN {MAP_TABLE} AS {m} ON {m}.source = _t.source AND {m}.name = _t.{c}")
        new[c] = (f"CASE WHEN {m}.pseudonym IS NOT NULL OR _t.{c} IS NULL THEN {m}.pseudonym "
                  f"ELSE {NAME_FUNCTION}(_t.source, _t.{c}) END")
    if pair and len(names) == 2:
        both = f"list_sort([{new[names[0]]}, {new[names[1]]}])"
        new = {names[0]: f"{both}[1]", names[1]: f"{both}[2]"}
    for c in lists:
        one = players_sql("_t.source", f"_t.{c}")
        new[c] = f"list_sort({one})" if sort_lists else one
    if not new:
        return f"SELECT * FROM ({relation})"
    replaced = ", ".join(f"{e} AS {c}" for c, e in new.items())
    return f"SELECT _t.* REPLACE ({replaced}) FROM ({relation}) AS _t {' '.join(joins)}"


def players_sql(source: str = "source", players: str = "players") -> str:
    """SQL expression replacing a players list column by its pseudonyms (needs :func:`register`)."""
    return f"{SQL_FUNCTION}({source}, {players})"
