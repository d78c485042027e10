"""pipeline/facts/batch_facts.py derives the hand-level report tables batch by batch in the rescore's hand pass, with
Arrow and numpy for plain hands and the tables' SQL for the others. Its rows must be exactly the SQL's
(:mod:`pipeline.facts.derived`'s reference SELECTs over the whole lake), however the hands are split into batches, and
a rescore must write exactly what :func:`pipeline.facts.derived.materialize` writes from scratch (game-level tables and
``hand_facts.hand_seq`` included).

The lake (tests/test_player_facts_paths.py) holds every kind of hand the derivations tell apart: classic, coinche
(coinches, declarations), 3- and 2-player games, a name on two seats, a missing partner's name swapped in, club
score sheets (summary hands, whose points read the game's running totals) and illegal plays."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pipeline.facts import batch_facts

from pipeline.facts import derived

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.rescore import comparable_only, foreign_games, rescore_lake
from pipeline.rescore.own import score_any
from pipeline.rules import load

from test_player_facts_paths import lake  # noqa: F401  (the fixture)

RULESETS = ("pagat-coinche", "belote-classic", "belote-3p", "belote-2p")


@pytest.fixture(scope="module")
def announced_lake(tmp_path_factory) -> Path:
    """Simulated FFB classic games whose hands record announced declarations (``hands.announced``): 1 to 5
    items a hand, with a kind twice by one name, carrés of several ranks and a belote; scored under ffb-classic
    (which counts the announced ones) and belote-classic (which counts the held ones, listing the announced)."""
    import orjson

    from pipeline.ingest.run import ingest_paths
    from pipeline.simulate.games import simulate

    d = tmp_path_factory.mktemp("announced")
    lines = []
    for g in simulate(load("ffb-classic"), 4, 5):
        for i, h in enumerate(g["hands"]):
            h["announced"] = [{"seat": 0, "kind": "tierce", "rank": "A"}, {"seat": 0, "kind": "tierce", "rank": "K"},
                              {"seat": 2, "kind": "carre", "rank": ["J", "A", "10", "Q", "K"][i % 5]},
                              {"seat": 1, "kind": "quarte", "rank": "K"}, {"seat": 3, "kind": "belote"}][: 1 + i % 5]
        lines.append(orjson.dumps(g))
    (d / "announced.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    ingest_paths([d / "announced.jsonl"], d / "lake")
    for r in ("ffb-classic", "belote-classic"):
        rescore_lake(d / "lake", load(r))
    return d / "lake"


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
    from pipeline.storage import schema
    return schema.conform(table, t.select(schema.schema(table).names))


@pytest.mark.parametrize("splits", [pytest.param(("whole", "random"), id="whole-random"),
                                    pytest.param(("ones",), id="ones", marks=pytest.mark.slow)])
@pytest.mark.parametrize("ruleset", RULESETS + ("announced:ffb-classic", "announced:belote-classic"))
def test_batch_rows_equal_the_sql_rows_under_any_batch_split(lake: Path, announced_lake: Path,  # noqa: F811
                                                            ruleset: str, splits: tuple[str, ...]):
    # splits: the whole lake as one batch, 12 random cuts (games split between batches), or one hand a batch
    # (hundreds of batches: on demand, -m slow)
    if ruleset.startswith("announced:"):
        lake, ruleset = announced_lake, ruleset.split(":", 1)[1]
        items = lakemod.read(lake, "declaration_items")
        assert pa.compute.sum(items.column("announced")).as_py() > 0      # the lake holds announced items
    rules = load(ruleset)
    hands = lakemod.read(lake, "hands")
    facts = batch_facts.BatchFacts(lake, ruleset)
    foreign, _ = foreign_games(lake, rules)     # their recorded scores are not compared, as the rescore does
    rng = random.Random(ruleset)
    try:
        for split in splits:
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


@pytest.mark.parametrize("batch_size, close_rows", [(5, 1), (5, 50_000), (100_000, 50_000)])
def test_rescore_writes_what_materialize_writes(lake: Path, tmp_path: Path, batch_size: int, close_rows: int,  # noqa: F811
                                                monkeypatch):
    # hands scored 5 at a time, so that games are split between batches (their game-level rows are added up from
    # partial sums), or all at once (each game's partial rows are final, a game of one run of names takes that
    # run's list), and a substitute in hand 2 of one game (its seated names differ from those in every hand);
    # the closed games' rows added up after each batch (close_rows 1) or all after the last (game_sums.CLOSE_ROWS)
    import pyarrow.parquet as pq

    from pipeline.facts import game_sums

    monkeypatch.setattr(game_sums, "CLOSE_ROWS", close_rows)

    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    files = sorted((copy / "hands").rglob("*.parquet"))
    tables = {f: pq.read_table(f).to_pylist() for f in files}
    four = list(dict.fromkeys(r["game_id"] for rows in tables.values() for r in rows
                              if r["n_players"] == 4 and r["hand_no"] == 2))
    assert len(four) >= 4
    game = four[0]
    # odd lists of names, whose seated names the partial counts must read as the lists do: a hand with no list,
    # one with a name missing, one with a name on both teams' seats, a game whose names are all unknown
    odd = {(four[1], 1): None, (four[1], 3): lambda p: [p[0], None, *p[2:]],
           (four[2], 2): lambda p: [p[0], p[0], *p[2:]]}
    for f, rows in tables.items():
        for r in rows:
            if r["game_id"] == game and r["hand_no"] == 2:
                r["players"] = [r["players"][0], "Zoé", *r["players"][2:]]
            change = odd.get((r["game_id"], r["hand_no"]), False)
            if change is not False:
                r["players"] = change(r["players"]) if change else None
            if r["game_id"] == four[3]:
                r["players"] = [None] * 4
        pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(f)), f)
    for r in ("pagat-coinche", "belote-3p"):
        rescore_lake(copy, load(r), batch_size=batch_size)  # the hand pass writes the hand-level tables, partial sums
        written = {name: lakemod.read(copy, name) for name in derived.STORED}
        with lakemod.lock(copy):
            derived.materialize(copy, r)            # every table again, by SQL over the whole lake
        again = {name: lakemod.read(copy, name) for name in derived.STORED}
        for name in derived.STORED:
            a = written[name].filter(pa.compute.equal(written[name].column("ruleset"), r))
            b = again[name].filter(pa.compute.equal(again[name].column("ruleset"), r))
            assert a.num_rows == b.num_rows > 0 or name in ("declaration_items", "dealt_events", "pair_games"), name
            assert _sorted(a).equals(_sorted(b)), (r, name)
        # hand_facts is stored in hand order (schemas/hand_facts.toml: compare pairs two rulesets' rows by it),
        # also where a batch mixes plain hands with others
        a, b = (t["hand_facts"].filter(pa.compute.equal(t["hand_facts"].column("ruleset"), r)) for t in (written, again))
        assert a.column("hand_seq").to_pylist() == sorted(a.column("hand_seq").to_pylist())
        assert a.equals(b), r
        if r == "pagat-coinche":    # the substitute: seated in the game, not in every hand of it
            pg = again["player_games"].filter(pa.compute.and_(pa.compute.equal(again["player_games"].column("game_id"), game),
                                                              pa.compute.equal(again["player_games"].column("ruleset"), r)))
            seated = pg.column("players")[0].as_py()
            every = pg.column("players_every_hand")[0].as_py()
            assert "Zoé" in seated and "Zoé" not in every and len(seated) == len(every) + 2


def test_odd_values_give_the_sql_rows(lake: Path):  # noqa: F811
    """Values no simulated game has, put into plain hands: the taker's seat unknown but its team named (as colver
    CFN records give it), a contract with no strain, a hand with an empty auction, coinches from no seat or from
    a seat outside the table. The rows must still be the SQL's."""
    import pyarrow.compute as pc

    rules = load("pagat-coinche")
    hands = lakemod.read(lake, "hands")
    hands = hands.filter(pc.equal(hands.column("n_players"), 4)).slice(0, 40)
    n = hands.num_rows
    idx = np.arange(n)

    def put(table, name, values):
        i = table.schema.get_field_index(name)
        return table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))

    taker = hands.column("taker").to_pylist()
    hands = put(hands, "taker", [None if i % 4 == 0 else t for i, t in zip(idx, taker)])
    hands = put(hands, "taker_team", [1 if i % 4 == 0 else None for i in idx])
    hands = put(hands, "strain", [None if i % 7 == 3 else s for i, s in zip(idx, hands.column("strain").to_pylist())])
    auction = hands.column("auction").to_pylist()
    auction = [[] if i % 5 == 1 else a + [{"seat": 5 if i % 3 else None, "call": "coinche"}]
               for i, a in zip(idx, auction)]
    hands = put(hands, "auction", auction)
    scores = score_any(hands, rules)
    facts = batch_facts.BatchFacts(lake, "pagat-coinche")
    try:
        got = facts.rows(hands, scores)
        h = hands.append_column("hand_seq", pa.nulls(n, pa.int64()))
        assert batch_facts._plain_hands(h).sum() >= n // 2       # most of them through the Arrow path
        for name in batch_facts.HAND_LEVEL:
            assert _sorted(got[name]).equals(_sorted(facts._sql(name, h, scores))), name
    finally:
        facts.close()
