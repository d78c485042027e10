"""Test helpers: native objects -> hands table -> scores."""

from __future__ import annotations

import pyarrow as pa

from pipeline import native, rules, schema
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
