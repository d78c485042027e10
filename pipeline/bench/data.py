"""Benchmark inputs: simulated games of each ruleset family, as native files and as lakes of any size.

A base of real simulated games (at most :data:`BASE_HANDS` hands) is made once per family; bigger inputs
repeat it with fresh ids (``<game_id>~<copy>``), so every game stays a complete, legal game and every key
stays unique. Repetition does not flatter the stages: rescoring is row-local, the game pass and the reports
do the same work per row; Parquet compresses a repeated base no better than fresh games as long as the base
is larger than a page (the base is tens of thousands of hands, pages hold a few thousand).
"""

from __future__ import annotations

import math
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc


from pipeline.storage import lake_write
from pipeline.storage import lake as lakemod
from pipeline.storage import schema
from pipeline.rules import load
from pipeline.simulate.games import simulate

FAMILIES = {"classic": "belote-classic", "coinche": "pagat-coinche", "bulgarian": "bulgarian", "2-player": "belote-2p",
            "3-player": "belote-3p"}
BASE_HANDS = 50_000


def base_games(ruleset: str, hands: int, seed: int = 1) -> list[dict]:
    """Simulated native game objects of ``ruleset`` holding at least ``min(hands, BASE_HANDS)`` hands."""
    want = min(hands, BASE_HANDS)
    out: list[dict] = []
    n = 0
    batch = max(10, want // 9)
    while n < want:
        for g in simulate(load(ruleset), batch, seed + len(out)):
            out.append(g)
            n += len(g["hands"])
            if n >= want:
                break
    return out


def write_native(games: list[dict], hands: int, path: Path) -> tuple[int, int]:
    """Write native JSON Lines holding ``hands`` hands or a little more (whole games), repeating ``games`` with
    fresh ids. Returns (games, hands) written."""
    n_games = n_hands = 0
    copy = 0
    with open(path, "wb") as f:
        while n_hands < hands:
            for g in games:
                if copy:
                    g = dict(g, game_id=f"{g['game_id']}~{copy}", source_game_id=f"{g['source_game_id']}~{copy}")
                f.write(orjson.dumps(g) + b"\n")
                n_games += 1
                n_hands += len(g["hands"])
                if n_hands >= hands:
                    break
            copy += 1
    return n_games, n_hands


def _suffix(col: pa.ChunkedArray, copy: int) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(col, pa.scalar(f"~{copy}"), "") if copy else col


def replicate_lake(base_lake: Path, lake: Path, hands: int) -> int:
    """Make ``lake`` hold ``hands`` hands (whole games, so a little more): the hands and games of ``base_lake``
    repeated with fresh game ids and keys, written as the lake writes (row groups of 1M rows, ~200 MB files).
    Returns the hands written. Memory: one copy of the base plus one row group."""
    loc = lakemod.locate(lake)
    base_h = lakemod.read(base_lake, "hands").sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
    base_g = lakemod.read(base_lake, "games").sort_by("game_id")
    sources = set(base_h.column("source").to_pylist())
    if len(sources) != 1:
        raise ValueError(f"{base_lake}: a benchmark base lake has one source, found {sorted(sources)}")
    part = f"source={sources.pop()}"
    writers = {t: lake_write.RollingWriter(loc, loc.path(t, part), schema.schema(t).remove(schema.schema(t).get_field_index("source")))
               for t in ("hands", "games")}
    # hands per game, so the last copy stops at a whole game
    gid = base_h.column("game_id").to_numpy(zero_copy_only=False)
    starts = [0] + [i for i in range(1, len(gid)) if gid[i] != gid[i - 1]] + [len(gid)]
    written = 0
    for copy in range(math.ceil(hands / base_h.num_rows)):
        h, g = base_h, base_g
        if written + h.num_rows > hands:       # the last copy: whole games up to the target
            k = next(i for i, s in enumerate(starts) if written + s >= hands)
            h = h.slice(0, starts[k])
            g = g.slice(0, k)
        h = h.set_column(h.schema.get_field_index("game_id"), "game_id", _suffix(h.column("game_id"), copy))
        h = h.set_column(h.schema.get_field_index("hand_key"), "hand_key", _suffix(h.column("hand_key"), copy))
        g = g.set_column(g.schema.get_field_index("game_id"), "game_id", _suffix(g.column("game_id"), copy))
        g = g.set_column(g.schema.get_field_index("game_key"), "game_key", _suffix(g.column("game_key"), copy))
        writers["hands"].write(schema.conform("hands", h).drop_columns(["source"]))
        writers["games"].write(schema.conform("games", g).drop_columns(["source"]))
        written += h.num_rows
        if written >= hands:
            break
    for w in writers.values():
        w.close()
    lakemod.write_version(loc)          # written as this code writes a lake: its layout version
    return written


def write_mixed_native(bases: dict[str, list[dict]], every: dict[str, int], hands: int, path: Path) -> tuple[int, int]:
    """Write native JSON Lines of about ``hands`` hands mixing several families: the game stream of the first
    family of ``bases`` (e.g. classic), with one game of family ``f`` after every ``every[f]`` games of it (e.g.
    ``{"coinche": 20, "bulgarian": 25}``). Each family's base games repeat with fresh ids (``~copy``) as in
    :func:`write_native`. Returns (games, hands) written."""
    names = list(bases)
    main, others = names[0], names[1:]
    pos = {f: 0 for f in names}

    def nxt(f: str) -> dict:
        g = bases[f][pos[f] % len(bases[f])]
        copy = pos[f] // len(bases[f])
        pos[f] += 1
        if copy:
            g = dict(g, game_id=f"{g['game_id']}~{copy}", source_game_id=f"{g['source_game_id']}~{copy}")
        return g

    n_games = n_hands = 0
    with open(path, "wb") as fh:
        while n_hands < hands:
            batch = [nxt(main)]
            batch += [nxt(f) for f in others if pos[main] % every[f] == 0]
            for g in batch:
                fh.write(orjson.dumps(g) + b"\n")
                n_games += 1
                n_hands += len(g["hands"])
    return n_games, n_hands
