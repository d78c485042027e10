"""Which imported file holds which hand: the lake's ``holdings`` table (``schemas/holdings.toml``).

A hand is stored once in ``hands``, and its row names the file that brought it (``ingest_file``). Other files
may hold the same hand: the same records in a second file, a poorer copy of a game (OpenSpiel's per-deal state
files repeat ``histories.jsonl``), a single-deal copy of a deal (a colver CFN line, whose deal ``deals.jsonl``
also records), or a copy set aside because another file's version came first (rejected as
``duplicate_game_id`` or ``conflicting_copy``). ``holdings`` has one row per hand of every such copy, by the
file that holds it. When a hand leaves the lake because its file no longer holds it (the file was edited or
deleted), the other files that still hold a copy of it (same hand key, same game id or, for single-deal
copies and copies of a game stored under another id, same deal: :func:`pipeline.ingest.takeover.files_to_read`)
are read again, and their copy takes over, with its own provenance (:mod:`pipeline.ingest.run`). A copy under
another id is a coinche-cli game folder renamed or copied: its id is the folder's name, so it shares neither hand
keys nor game id with the stored game, only its deals.

A file's rows are written as it is read and replaced each time it is read again; they are removed when the
file is gone from a folder that is imported again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import pyarrow as pa


from pipeline.storage import lake_write
from pipeline.storage import schema
TABLE = "holdings"
STORED, POORER, SET_ASIDE = "stored", "poorer", "set_aside"
"""Values of the ``copy`` column: what became of the copy when its file was read."""


def deal_digest(source: str, n_players: int, dealer: int, initial_hands: Iterable[int] | None) -> str | None:
    """16 hex digits of the SHA-256 of a deal's identity (source, player count, dealer, the dealt hands as
    card bitmasks): the same deal read from two files under two game ids gets the same digest. None when the
    hand has no dealt hands (summary level)."""
    if not initial_hands:
        return None
    text = f"{source}|{n_players}|{dealer}|{','.join(str(int(m)) for m in initial_hands)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Rows:
    """Holdings rows in the order they come, collected as column lists (row path) and Arrow tables
    (columnar reader), returned as one table by :meth:`table`."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {n: [] for n in schema.schema(TABLE).names}
        self.tables: list[pa.Table] = []
        self.rows = 0

    def __len__(self) -> int:
        return self.rows

    def _close_lists(self) -> None:
        if self.cols["hand_key"]:
            self.tables.append(pa.Table.from_pydict(self.cols, schema=schema.schema(TABLE)))
            self.cols = {n: [] for n in self.cols}

    def add_hands(self, ingest_file: str, hands: list[dict[str, Any]], copy: str, single: bool) -> None:
        """One row per hand dict (columns of ``hands``); ``single``: the game is a single-deal copy (or a copy of
        a stored game under another id), whose deal digest is recorded."""
        c = self.cols
        self.rows += len(hands)
        for h in hands:
            c["ingest_file"].append(ingest_file)
            c["hand_key"].append(h["hand_key"])
            c["game_id"].append(h["game_id"])
            c["source"].append(h["source"])
            c["deal"].append(deal_digest(h["source"], h["n_players"], h["dealer"], h.get("initial_hands"))
                             if single else None)
            c["copy"].append(copy)

    def add_table(self, ingest_file: str, hands: pa.Table) -> None:
        """Rows for a table of ``hands`` rows stored (or found already stored) by the columnar reader."""
        n = hands.num_rows
        if n:
            self._close_lists()
            self.rows += n
            self.tables.append(pa.table({
                "ingest_file": pa.repeat(pa.scalar(ingest_file, pa.string()), n),
                "hand_key": hands.column("hand_key"), "game_id": hands.column("game_id"),
                "source": hands.column("source"), "deal": pa.nulls(n, pa.string()),
                "copy": pa.repeat(pa.scalar(STORED, pa.string()), n)}))

    def extend(self, other: Rows) -> None:
        """Append the rows of ``other``, after these."""
        if len(other):
            self._close_lists()
            self.tables.append(other.table())
            self.rows += len(other)

    def take_first(self, n: int) -> pa.Table:
        """Remove the first ``n`` rows (in order of arrival) and return them as a table; the rest stay."""
        t = self.table()
        self.tables = [t.slice(n)] if t.num_rows > n else []
        self.rows = t.num_rows - min(n, t.num_rows)
        return t.slice(0, n)

    def table(self) -> pa.Table:
        """Everything collected, with the table's schema, in order of arrival."""
        self._close_lists()
        parts = [schema.conform(TABLE, t) for t in self.tables]
        return pa.concat_tables(parts) if parts else schema.empty(TABLE)


def remove(lake, files: set[str]) -> int:
    """Delete the holdings of ``files`` (physical names); returns rows removed."""
    return lake_write.delete_rows(lake, TABLE, "ingest_file", files)
