"""Test helpers: native objects -> hands table -> scores."""

from __future__ import annotations

import pyarrow as pa

from pipeline import rules

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.rescore import game_pass, score_batch


def hands_table(*games: dict) -> pa.Table:
    rows = []
    for g in games:
        _, hs = native.game_to_rows(g, "rebelote", "<test>", None)
        rows.extend(hs)
    return pa.Table.from_pylist(rows, schema=schema.schema("hands"))


def score(ruleset: str, *games: dict) -> list[dict]:
    return score_batch(hands_table(*games), rules.load(ruleset)).to_pylist()


def game_results(ruleset: str, *games: dict) -> list[dict]:
    r = rules.load(ruleset)
    return game_pass(score_batch(hands_table(*games), r), r).to_pylist()


def simulated_lake(lake, plan=(("belote-classic", 4, 11, "club"), ("colver", 2, 12, "online")), rename=None,
                   extra_lines=()):
    """A small lake built as a user would: ``rebelote simulate`` per (ruleset, games, seed, source) of
    ``plan`` (the games' source set to that name), ingest, and rescore under every ruleset of the plan. ``rename`` maps simulated player names to others
    (e.g. names that need HTML escaping); ``extra_lines`` are raw lines appended to the first file (a bad
    line lands in rejects). Returns the lake path."""
    from pathlib import Path

    import orjson

    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake
    from pipeline.simulate.games import simulate

    lake = Path(lake)
    files = []
    for i, (ruleset, games, seed, source) in enumerate(plan):
        lines = []
        for obj in simulate(rules.load(ruleset), games, seed):
            obj["source"] = source
            if rename:
                obj["players"] = [rename.get(p, p) for p in obj["players"]]
            lines.append(orjson.dumps(obj))
        if i == 0:
            lines.extend(x.encode() if isinstance(x, str) else x for x in extra_lines)
        path = lake.parent / f"{lake.name}-sim-{i}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        files.append(path)
    ingest_paths(files, lake)
    for ruleset in dict.fromkeys(p[0] for p in plan):
        rescore_lake(lake, rules.load(ruleset))
    return lake


def record_version(lake) -> None:
    """Record the current layout version in a lake a test wrote by hand (Parquet files only): readers refuse a
    lake without the record as one written before it existed (layout version 1, ``rebelote migrate`` first)."""
    import json
    from pathlib import Path

    from pipeline.storage import lake as lakemod
    Path(lake, lakemod.VERSION_FILE).write_text(
        json.dumps({"format": "rebelote-lake", "version": lakemod.LAKE_VERSION}) + "\n")
