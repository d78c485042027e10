"""Exports of the lake: the native JSON Lines format (one game per line), streamed.

Games and hands are read sorted by game with DuckDB (which spills to disk past its memory limit, see
:func:`pipeline.rescore.sorted_games.duckdb_connection`) and merged one game at a time, so memory is
bounded by a batch of rows, not by the lake.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO

import orjson
import pyarrow as pa

from pipeline import lake as lakemod, schema
from pipeline.native import game_to_json


def _rows(tmp: str, view: str, data, sql: str, params: dict, sch: pa.Schema, batch_rows: int) -> Iterator[dict]:
    """Rows of ``sql`` over ``data`` (registered as ``view``) as dicts of ``sch``, on a connection of their own
    (two of these stream side by side)."""
    from pipeline.rescore.sorted_games import arrow_reader, duckdb_connection

    con = duckdb_connection(tmp)
    try:
        con.register(view, data)
        for b in arrow_reader(con, sql, params, batch_rows):
            yield from pa.Table.from_batches([b]).select(sch.names).cast(sch).to_pylist()
    finally:
        con.close()


def export_jsonl(lake, out: IO[bytes], source: list[str] | str | None = None,
                 batch_rows: int = 16_384) -> tuple[int, int]:
    """Write every game of the lake (optionally only some sources) as native JSON Lines to ``out``.

    Games are written in game_id order, hands in hand_no order; a game id present twice in ``games`` (the same
    game re-imported with other content) is written once, with every hand of that id. Returns (games, hands)
    written. Raises OSError on a write failure.
    """
    if isinstance(source, str):
        source = [source]
    loc = lakemod.locate(lake)
    if not lakemod.has_table(loc, "games"):
        return 0, 0
    where = "WHERE source IN (SELECT unnest($sources))" if source else ""
    params = {"sources": list(source)} if source else {}
    hands_data = lakemod.dataset(loc, "hands") if lakemod.has_table(loc, "hands") else schema.empty("hands")
    with tempfile.TemporaryDirectory(prefix="rebelote-duckdb-") as tmp:
        games = _rows(tmp, "games_ds", lakemod.dataset(loc, "games"),
                      f"SELECT * FROM games_ds {where} ORDER BY game_id, game_key", params, schema.schema("games"),
                      batch_rows)
        hands = _rows(tmp, "hands_ds", hands_data, f"SELECT * FROM hands_ds {where} ORDER BY game_id, hand_no, hand_key",
                      params, schema.schema("hands"), batch_rows)
        n_games = n_hands = 0
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
            out.write(orjson.dumps(game_to_json(g, hs)) + b"\n")
        games.close()
        hands.close()
    return n_games, n_hands
