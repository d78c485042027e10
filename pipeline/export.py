"""Exports of the lake: the native JSON Lines format (one game per line). The DuckDB dashboard file is
:mod:`pipeline.dashboard`."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import IO

import orjson
import pyarrow.compute as pc

from pipeline import lake as lakemod
from pipeline.native import game_to_json
from pipeline.pseudonymize import Pseudonymizer


def export_jsonl(lake: Path, out: IO[bytes], source: list[str] | str | None = None,
                 pseudonymize: str | None = None) -> tuple[int, int]:
    """Write every game of the lake (optionally only some sources) as native JSON Lines to ``out``.

    Games are written in game_id order, hands in hand_no order. With ``pseudonymize`` (a salt), the
    ``players`` lists hold pseudonyms instead of names (:mod:`pipeline.pseudonymize`; game ids, file names
    and the rest are kept). Returns (games, hands) written.
    """
    pseudo = Pseudonymizer(pseudonymize) if pseudonymize else None
    if isinstance(source, str):
        source = [source]
    flt = pc.field("source").isin(source) if source else None
    games = lakemod.read(lake, "games", filter=flt).sort_by("game_id").to_pylist()
    hands = lakemod.read(lake, "hands", filter=flt).sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
    by_game: dict[str, list[dict]] = defaultdict(list)
    for h in hands.to_pylist():
        by_game[h["game_id"]].append(h)
    n_hands = 0
    seen: set[str] = set()
    for g in games:
        if g["game_id"] in seen:  # a game re-imported with other content: export each version's hands once
            continue
        seen.add(g["game_id"])
        hs = by_game.get(g["game_id"], [])
        n_hands += len(hs)
        if pseudo:
            g = dict(g, players=pseudo.names(g["source"], g["players"]))
            hs = [dict(h, players=pseudo.names(h["source"], h["players"])) for h in hs]
        out.write(orjson.dumps(game_to_json(g, hs)) + b"\n")
    return len(seen), n_hands
