"""Scoring under ``own`` rules (:mod:`pipeline.rules.own`): each batch split by the ruleset of each row's game,
each part through the one-ruleset function, the parts put back in input order under the name ``own``.

The split costs one hash lookup per row and one ``take`` per ruleset; the scoring is the same compiled code as
under a single ruleset, so a game's scores under ``own`` are exactly its scores under its own ruleset (a test
compares them).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.rules import Ruleset
from pipeline.rules.own import OwnRules


def _split(t: pa.Table, plan: OwnRules, every_row: bool = True):
    """(member ruleset, row indices) for each ruleset the rows of ``t`` are scored under, in name order. A row
    of no known game and no variant with a default: ValueError with ``every_row`` (hands: every variant of the
    schema has a default), else left out (score rows of a game gone from ``games``: no game result)."""
    names = plan.ruleset_of(t)
    if names.null_count and every_row:
        raise ValueError("own rules: a hand whose game and variant name no ruleset")
    for name in sorted(n for n in pc.unique(names).to_pylist() if n is not None):
        yield plan.member(name), pc.indices_nonzero(pc.equal(names, name))


def _renamed(t: pa.Table, name: str) -> pa.Table:
    i = t.schema.get_field_index("ruleset")
    return t.set_column(i, t.schema.field(i), pa.repeat(pa.scalar(name, pa.string()), t.num_rows))


def _in_order(parts: list[pa.Table], positions: list[pa.Array], name: str) -> pa.Table:
    if len(parts) == 1:
        return _renamed(parts[0], name)
    out = pa.concat_tables(parts)
    return _renamed(out.take(pc.sort_indices(pa.concat_arrays(positions))), name)


def score_batch_own(hands: pa.Table | pa.RecordBatch, rules: OwnRules) -> pa.Table:
    """:func:`pipeline.rescore.engine.score_batch` of each row under its game's own ruleset: the ``scores``
    rows of ``hands`` in input order, ``ruleset`` = ``own``. Same arguments and errors as ``score_batch``."""
    from pipeline.rescore.engine import score_batch

    if isinstance(hands, pa.RecordBatch):
        hands = pa.Table.from_batches([hands])
    parts, positions = [], []
    for member, idx in _split(hands, rules):
        parts.append(score_batch(hands.take(idx), member))
        positions.append(idx)
    if not parts:
        return score_batch(hands, next(iter(rules.by_variant.values())))
    return _in_order(parts, positions, rules.name)


def score_any(hands: pa.Table | pa.RecordBatch, rules: Ruleset | OwnRules) -> pa.Table:
    """``score_batch`` under a ruleset, or :func:`score_batch_own` under ``own`` rules (one function for both
    engines: Ray's ``map_batches`` takes it with the rules as a keyword)."""
    if isinstance(rules, OwnRules):
        return score_batch_own(hands, rules)
    from pipeline.rescore.engine import score_batch
    return score_batch(hands, rules)


def game_pass_own(t: pa.Table, rules: OwnRules, one) -> pa.Table:
    """The game pass of each game of ``t`` (score rows of whole games, sorted by game) under its own ruleset:
    ``one(rows, member)`` gives the ``game_scores`` rows of ``rows`` under ``member``; returns them all, sorted
    by game, ``ruleset`` = ``own`` (rows of a game the plan does not know are left out)."""
    parts = [one(t.take(idx), member) for member, idx in _split(t, rules, every_row=False)]
    if not parts:
        return one(t.slice(0, 0), next(iter(rules.by_variant.values())))
    out = pa.concat_tables(parts)
    return _renamed(out.take(pc.sort_indices(out, [("game_id", "ascending")])), rules.name)
