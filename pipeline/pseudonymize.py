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


def register(con: duckdb.DuckDBPyConnection, salt: str) -> Pseudonymizer:
    """Define the SQL function ``rebelote_pseudonyms(source VARCHAR, names VARCHAR[]) -> VARCHAR[]`` on
    ``con`` (NULL list -> NULL, NULL name -> NULL). It lives in this Python process only: views that call it
    cannot be stored in a database file for other programs. Returns the :class:`Pseudonymizer` it uses."""
    p = Pseudonymizer(salt)
    con.create_function(SQL_FUNCTION, p.names, ["VARCHAR", "VARCHAR[]"], "VARCHAR[]", null_handling="special",
                        side_effects=False)
    return p


def players_sql(source: str = "source", players: str = "players") -> str:
    """SQL expression replacing a players list column by its pseudonyms (needs :func:`register`)."""
    return f"{SQL_FUNCTION}({source}, {players})"
