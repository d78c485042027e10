"""pipeline/batch_facts.py derives the hand-level report tables batch by batch in the rescore's hand pass, with
Arrow and numpy for plain hands and the tables' SQL for the others. Its rows must be exactly the SQL's
(:mod:`pipeline.derived`'s reference SELECTs over the whole lake), however the hands are split into batches, and
a rescore must write exactly what :func:`pipeline.derived.materialize` writes from scratch (game-level tables and
``hand_facts.hand_seq`` included).

The lake (tests/test_player_facts_paths.py) holds every kind of hand the derivations tell apart: classic, coinche
(coinches, declarations), 3- and 2-player games, a name on two seats, a missing partner's name swapped in, club
score sheets (summary hands, whose points read the game's running totals) and illegal plays."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline import batch_facts, derived, lake as lakemod, stats
from pipeline.rescore import comparable_only, foreign_games, rescore_lake
from pipeline.rescore.own import score_any
from pipeline.rules import load

from test_player_facts_paths import lake  # noqa: F401  (the fixture)

RULESETS = ("pagat-coinche", "belote-classic", "belote-3p", "belote-2p")


def _sorted(t: pa.Table) -> pa.Table:
    keys = [(c, "ascending") for c in t.column_names
            if not (pa.types.is_list(t.schema.field(c).type) or pa.types.is_struct(t.schema.field(c).type))]
    return t.sort_by(keys)


def _reference(lake_path: Path, ruleset: str, table: str) -> pa.Table:
    """The table's rows by its SQL over the whole lake's hands and the ruleset's scores (the reports' on-the-fly
    path), without ``hand_seq``."""
    con = stats.connect(lake_path)
    try:
        sql = derived.DERIVED[table].live("hands", "scores", f"SELECT '{ruleset}' AS ruleset")
        t = con.sql(sql).to_arrow_table()
    finally:
        con.close()
    from pipeline import schema
    return schema.conform(table, t.select(schema.schema(table).names))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_batch_rows_equal_the_sql_rows_under_any_batch_split(lake: Path, ruleset: str):  # noqa: F811
    rules = load(ruleset)
    hands = lakemod.read(lake, "hands")
    facts = batch_facts.BatchFacts(lake, ruleset)
    foreign, _ = foreign_games(lake, rules)     # their recorded scores are not compared, as the rescore does
    rng = random.Random(ruleset)
    try:
        for split in ("whole", "random", "ones"):
            cuts = ([0, hands.num_rows] if split == "whole" else
                    list(range(0, hands.num_rows + 1)) if split == "ones" and hands.num_rows <= 400 else
                    sorted({0, hands.num_rows, *rng.sample(range(1, hands.num_rows), 12)}))
            got = {name: [] for name in batch_facts.HAND_LEVEL}
            for a, b in zip(cuts, cuts[1:]):
                h = hands.slice(a, b - a)
                for name, rows in facts.rows(h, comparable_only(score_any(h, rules), foreign)[0]).items():
                    got[name].append(rows)
            for name in batch_facts.HAND_LEVEL:
                ref = _reference(lake, ruleset, name)
                mine = pa.concat_tables(got[name])
                if "hand_seq" in ref.column_names:
                    ref, mine = ref.drop_columns(["hand_seq"]), mine.drop_columns(["hand_seq"])
                assert mine.num_rows == ref.num_rows, (split, name)
                assert _sorted(mine).equals(_sorted(ref)), (split, name)
    finally:
        facts.close()


def test_plain_hands_are_most_but_not_all(lake: Path):  # noqa: F811
    # the fast path must be exercised and the SQL remainder too: the lake's bots, shared seats and score sheets
    plain = batch_facts._plain_hands(lakemod.read(lake, "hands"))
    assert 0 < (~plain).sum() < plain.sum()


def test_rescore_writes_what_materialize_writes(lake: Path, tmp_path: Path):  # noqa: F811
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    for r in ("pagat-coinche", "belote-3p"):
        rescore_lake(copy, load(r))                 # the hand pass writes the hand-level tables
        written = {name: lakemod.read(copy, name, filter=None) for name in derived.DERIVED}
        with lakemod.lock(copy):
            derived.materialize(copy, r)            # every table again, by SQL over the whole lake
        again = {name: lakemod.read(copy, name) for name in derived.DERIVED}
        for name in derived.DERIVED:
            a = written[name].filter(pa.compute.equal(written[name].column("ruleset"), r))
            b = again[name].filter(pa.compute.equal(again[name].column("ruleset"), r))
            assert a.num_rows == b.num_rows > 0 or name in ("declaration_items", "dealt_events", "pair_hands",
                                                           "pair_games"), name
            assert _sorted(a).equals(_sorted(b)), (r, name)
