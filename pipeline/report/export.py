"""Exports of the lake: the native JSON Lines format (one game per line), streamed. The DuckDB dashboard file
is :mod:`pipeline.report.dashboard`.

Games and hands are read sorted by game with DuckDB (which spills to disk past its memory limit, see
:func:`pipeline.storage.duck.duckdb_connection`) and merged one game at a time, so memory is
bounded by a batch of rows, not by the lake.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import orjson
import pyarrow as pa

from pipeline.storage import lake as lakemod

from pipeline.storage import schema
from pipeline.storage.duck import arrow_reader, duckdb_connection, table_source
from pipeline.formats.native import game_to_json
from pipeline.stats.pseudonymize import ERROR_REMOVED, ID_COLUMNS, Pseudonymizer, keyed


def _rows(lake, table: str, where: str, order: str, params: dict, batch_rows: int) -> Iterator[dict]:
    """Rows of ``table`` (filtered by ``where``, which may read the view ``_all_games``) in ``order``, as dicts
    with the table's schema types, on a connection of their own (two of these stream side by side)."""
    sch = schema.schema(table)
    con = duckdb_connection()
    try:
        con.execute(f"CREATE TEMP VIEW _all_games AS SELECT * FROM {table_source(con, lake, 'games')}")
        src = table_source(con, lake, table)
        for b in arrow_reader(con, f"SELECT * FROM {src} {where} ORDER BY {order}", params, batch_rows):
            yield from pa.Table.from_batches([b]).select(sch.names).cast(sch).to_pylist()
    finally:
        con.close()


def export_jsonl(lake, out: IO[bytes], source: list[str] | str | None = None,
                 pseudonymize: str | None = None, batch_rows: int = 16_384, where: str = "") -> tuple[int, int]:
    """Write every game of the lake (optionally only some sources) as native JSON Lines to ``out``.

    ``where``: an SQL condition on ``games`` columns (source, variant, players, game_id; the view ``_all_games``
    may be read), such as :meth:`pipeline.stats.reports.Filters.hands_where` gives: only the games it keeps, with every
    hand of theirs.

    Games are written in game_id order, hands in hand_no order; a game id present twice in ``games`` (the same
    game re-imported with other content) is written once, with every hand of that id. With ``pseudonymize``
    (a salt), the ``players`` lists hold pseudonyms instead of names, the identifiers and file names are keyed and
    the hands' error texts removed, as in every pseudonymized view (:func:`_pseudonymized`). Returns (games, hands)
    written. Raises OSError on a write failure.
    """
    pseudo = Pseudonymizer(pseudonymize) if pseudonymize else None
    if isinstance(source, str):
        source = [source]
    loc = lakemod.locate(lake)
    lakemod.require_current(loc)      # LakeVersionError (an OSError) for a lake of another layout version
    if not lakemod.has_table(loc, "games"):
        return 0, 0
    conds = (["source IN (SELECT unnest($sources))"] if source else []) + ([f"({where})"] if where else [])
    params = {"sources": list(source)} if source else {}
    kept = f"WHERE {' AND '.join(conds)}" if conds else ""
    games = _rows(loc, "games", kept, "game_id, game_key", params, batch_rows)
    hand_rows = (f"WHERE game_id IN (SELECT game_id FROM _all_games {kept})" if where
                 else kept)     # a player filter tests the game's players, not each hand's
    hands = (_rows(loc, "hands", hand_rows, "game_id, hand_no, hand_key", params, batch_rows)
             if lakemod.has_table(loc, "hands") else iter(()))
    n_games = n_hands = 0
    try:
        last = None
        pending = next(hands, None)
        for g in games:
            gid = g["game_id"]
            if gid == last:          # a game re-imported with other content: its hands went out already
                continue
            last = gid
            while pending is not None and pending["game_id"] < gid:   # hands without a game row: not exported
                pending = next(hands, None)
            hs = []
            while pending is not None and pending["game_id"] == gid:
                hs.append(pending)
                pending = next(hands, None)
            n_games += 1
            n_hands += len(hs)
            if pseudo:
                g, hs = _pseudonymized(pseudo, g), [_pseudonymized(pseudo, h) for h in hs]
            out.write(orjson.dumps(game_to_json(g, hs)) + b"\n")
    finally:
        games.close()
        if hasattr(hands, 'close'):
            hands.close()
    return n_games, n_hands


def _pseudonymized(pseudo: Pseudonymizer, row: dict) -> dict:
    """A game or hand row as a pseudonymized view has it (:mod:`pipeline.stats.pseudonymize`): pseudonyms for names,
    :data:`~pipeline.stats.pseudonymize.ID_COLUMNS` keyed (None stays None), each error text removed."""
    out = dict(row, players=pseudo.names(row["source"], row["players"]))
    for c in ID_COLUMNS:
        if out.get(c) is not None:
            out[c] = keyed(pseudo.salt, out[c])
    if out.get("errors"):
        out["errors"] = [ERROR_REMOVED] * len(out["errors"])
    return out
