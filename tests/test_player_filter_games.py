"""--player over the derived tables: the rows' own ``players`` lists (hand level) and the game-level rows kept as
stored when the filter selects every hand of their game (``players_every_hand``), pseudonyms looked up in a
table of the lake's names (pipeline/stats/reports.py ``_derived_views``, pipeline/stats/pseudonymize.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import rules

from pipeline.stats import pseudonymize

from pipeline.stats import reports as stats
from pipeline.facts.derived import STORED
from pipeline.rescore import rescore_lake

RULES = "belote-classic"


@pytest.fixture(scope="module")
def lakes(tmp_path_factory) -> tuple[Path, Path, str, str]:
    """A simulated lake (11 classic games of source club, 12 colver games of source online) where, in the first
    game, one seat of hand 2 is taken by a substitute, 'Zoe', and in the second hand 3 is marked as coinche; rescored under both rulesets (derived tables
    written), and a copy without the derived tables (the reports compute their rows on the fly). Returns
    (written, live, the first game's id, the name Zoe replaced)."""
    from helpers import simulated_lake

    tmp = tmp_path_factory.mktemp("players")
    lake = simulated_lake(tmp / "lake")
    files = sorted((lake / "hands").rglob("*.parquet"))
    t = pq.read_table(files[0])
    first = min(t.column("game_id").to_pylist())
    rows = t.to_pylist()
    second = sorted(set(t.column("game_id").to_pylist()))[1]
    replaced = None
    for r in rows:
        if r["game_id"] == first and r["hand_no"] == 2:
            replaced = r["players"][1]
            r["players"] = [r["players"][0], "Zoe", *r["players"][2:]]
        if r["game_id"] == second and r["hand_no"] == 3:
            assert r["variant"] == "belote"
            r["variant"] = "coinche"     # the second game is then selected in part by --variant belote
    assert replaced is not None
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), files[0])
    for r in ("belote-classic", "colver"):
        rescore_lake(lake, rules.load(r))
    live = tmp / "live"
    shutil.copytree(lake, live)
    for name in STORED:
        shutil.rmtree(live / name)
    return lake, live, first, replaced


def test_game_rows_carry_the_seated_names(lakes):
    # the first game: four names in hands 1 and 3.., Zoe instead of `replaced` in hand 2 (the fixture)
    lake, _, first, replaced = lakes
    con = stats.connect(lake)
    try:
        seated = con.execute("SELECT DISTINCT players, players_every_hand FROM player_games "
                             "WHERE ruleset = $r AND game_id = $g", {"r": RULES, "g": first}).fetchall()
        names = con.execute("SELECT players FROM hands WHERE game_id = $g AND hand_no = 1", {"g": first}).fetchone()[0]
    finally:
        con.close()
    every = sorted(n for n in names if n != replaced)
    assert seated == [(sorted([*names, "Zoe"]), every)]
    for f in (lake / "pair_games").rglob("*.parquet"):
        assert "players_every_hand" in pq.read_schema(f).names


def _view(con, name: str) -> str:
    return con.execute("SELECT sql FROM duckdb_views() WHERE view_name = $v", {"v": name}).fetchone()[0]


@pytest.mark.parametrize("who", ["steady", "Zoe", "variant", "variant, steady",
                                 pytest.param("replaced", marks=pytest.mark.slow),
                                 pytest.param("pseudonym", marks=pytest.mark.slow),
                                 pytest.param("Zoe's pseudonym", marks=pytest.mark.slow),
                                 pytest.param("variant, pseudonymized", marks=pytest.mark.slow)])
def test_player_filter_same_rows_written_and_live(lakes, who):
    # Every report under --player gives the rows the on-the-fly path gives (derived tables removed), for a name
    # that sat in every hand of its games (stored game rows read as they are), for the name replaced in one
    # hand and for the substitute (the first game added up again from the selected hands), and for a pseudonym
    # given to --player on pseudonymized views (Zoe's: a name seated in hands only, not in games.players, which
    # the table of names is made from at first). The same under --variant (alone, with a player, pseudonymized):
    # the games it selects whole read as stored, the second game (one hand of another variant) added up again.
    lake, live, first, replaced = lakes
    con = stats.connect(lake)
    try:
        names = con.execute("SELECT players FROM hands WHERE game_id = $g AND hand_no = 1", {"g": first}).fetchone()[0]
    finally:
        con.close()
    steady = next(n for n in names if n != replaced)
    if who == "pseudonym":
        f = stats.Filters(players=(pseudonymize.pseudonym("pepper", "club", replaced),), pseudonymize="pepper")
    elif who == "Zoe's pseudonym":
        f = stats.Filters(players=(pseudonymize.pseudonym("pepper", "club", "Zoe"),), pseudonymize="pepper")
    elif who.startswith("variant"):
        f = stats.Filters(variants=("belote",), players=(steady,) if who.endswith("steady") else None,
                          pseudonymize="pepper" if who.endswith("pseudonymized") else None)
    else:
        f = stats.Filters(players=({"steady": steady, "replaced": replaced, "Zoe": "Zoe"}[who],))
    con_w, con_l = stats.connect(lake, f), stats.connect(live, f)
    try:
        # the game-level views read the stored rows, adding up hands only for the first game (when selected), or
        # under --variant for the second, once, into a temporary table (_added_player_games)
        sql = _view(con_w, "player_games")
        if who.startswith("variant"):
            part = con_w.execute("SELECT count(*) FROM _selected_games WHERE NOT whole").fetchall()
            # the second game is in part whenever selected: always by --variant alone
            assert "_selected_games" in sql and ("_added_player_games" in sql) == (part == [(1,)]), sql
            assert part == [(1,)] or who.endswith("steady")
        else:
            assert "players_every_hand" in sql and (("_added_player_games" in sql) == (who != "steady")), sql
        if who == "Zoe's pseudonym":
            assert con_w.execute("SELECT count(*) FROM _pseudonyms WHERE name = 'Zoe'").fetchall() == [(1,)]
        for report in stats.list_reports():
            for ruleset in ("belote-classic", "colver"):
                extra = {"other": "colver"} if "other" in stats.report_params(report) else {}
                written = stats.run_report_on(con_w, report, ruleset, f, **extra).to_pylist()
                assert stats.run_report_on(con_l, report, ruleset, f, **extra).to_pylist() == written, (report, who)
        if who in ("Zoe", "Zoe's pseudonym"):
            # Zoe: one hand, in the first game (classic, source club)
            rows = stats.run_report_on(con_w, "players", RULES, f).to_pylist()
            zoe = f.players[0] if f.pseudonymize else "Zoe"
            assert [(r["player"], r["games"], r["hands"]) for r in rows] == [(zoe, 1, 1)]
        for table in ("player_games", "pair_games"):
            got = con_w.sql(f"SELECT * EXCLUDE (players, players_every_hand) FROM {table}").to_arrow_table()
            want = con_l.sql(f"SELECT * EXCLUDE (players, players_every_hand) FROM {table}").to_arrow_table()
            order = [(c, "ascending") for c in got.column_names if not pa.types.is_list(got.schema.field(c).type)]
            assert got.sort_by(order).to_pylist() == want.sort_by(order).to_pylist(), table
    finally:
        con_w.close()
        con_l.close()


def test_pseudonymized_sql_looks_names_up_and_falls_back():
    # A name missing from the table of names (here 'Zed', not in names_sql) gets its pseudonym from the per-row
    # function; pairs are sorted again; NULL stays NULL. Values: pseudonymize.pseudonym (HMAC-SHA256, tested
    # against published vectors in test_pseudonymize.py).
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ('club', 'Ann', 'Bea', ['Ann', 'Bea', NULL]), "
                "('club', 'Zed', NULL, ['Zed']), ('web', 'Ann', 'Zed', NULL)) AS v(source, a, b, players)")
    pseudonymize.register(con, "salt", "SELECT * FROM (VALUES ('club', 'Ann'), ('club', 'Bea'), ('web', 'Ann')) "
                                       "AS n(source, name)")
    assert con.execute("SELECT count(*) FROM _pseudonyms").fetchone()[0] == 3

    def p(s: str, n: str | None) -> str | None:
        return None if n is None else pseudonymize.pseudonym("salt", s, n)
    got = con.execute(pseudonymize.pseudonymized_sql("SELECT * FROM t", ("a", "b"), ("players",)) + " ORDER BY ALL"
                      ).fetchall()
    want = sorted([("club", p("club", "Ann"), p("club", "Bea"), [p("club", "Ann"), p("club", "Bea"), None]),
                   ("club", p("club", "Zed"), None, [p("club", "Zed")]),
                   ("web", p("web", "Ann"), p("web", "Zed"), None)], key=lambda r: (r[0], r[1]))
    assert sorted(got, key=lambda r: (r[0], r[1])) == want
    pairs = con.execute(pseudonymize.pseudonymized_sql("SELECT * FROM t WHERE b IS NOT NULL", ("a", "b"), pair=True)
                        + " ORDER BY source").fetchall()
    assert [(r[1], r[2]) for r in pairs] == [tuple(sorted([p("club", "Ann"), p("club", "Bea")])),
                                             tuple(sorted([p("web", "Ann"), p("web", "Zed")]))]
    assert pseudonymize.real_names(con, [p("club", "Bea"), "Zed"]) == ("Bea", "Zed", p("club", "Bea"))


def _game_rows(con, table: str) -> list[str]:
    t = con.sql(f"SELECT * FROM {table}").to_arrow_table()
    return sorted(repr(sorted(r.items())) for r in t.to_pylist())


def test_a_dashboard_file_sees_games_selected_in_part_after_it_was_made(lakes, tmp_path):
    # A dashboard file's views read the lake whenever the file is opened: made when --variant belote selected every
    # game whole, they still add up the game it selects in part once the lake has one (the fixture's second game,
    # one hand marked coinche), as a report's connection does.
    from pipeline.report import dashboard

    lake = tmp_path / "lake"
    shutil.copytree(lakes[0], lake)
    path = sorted((lake / "hands").rglob("*.parquet"))[0]
    marked = pq.read_table(path)
    i = marked.schema.get_field_index("variant")
    plain = pa.array(["belote" if v == "coinche" else v for v in marked.column(i).to_pylist()], pa.string())
    pq.write_table(marked.set_column(i, marked.schema.field(i), plain), path)
    f = stats.Filters(variants=("belote",))
    dashboard.export_duckdb(lake, tmp_path / "board.duckdb", ["belote-classic", "colver"], f, False)
    pq.write_table(marked, path)
    db, con = duckdb.connect(str(tmp_path / "board.duckdb"), read_only=True), stats.connect(lake, f)
    try:
        assert con.execute("SELECT count(*) FROM _selected_games WHERE NOT whole").fetchall() == [(1,)]
        for table in ("player_games", "pair_games"):
            assert _game_rows(db, table) == _game_rows(con, table), table
    finally:
        db.close()
        con.close()


def test_hands_without_scores_have_no_hand_level_rows(lakes, tmp_path):
    # player_hands and pair_hands are computed, not stored: like stored rows they hold the hands scored under the
    # ruleset only. A game imported after the last rescore (here with a substitute, 'Zed', in its hand 2) has no
    # rows in them, nor in player_games under --player Zed, which adds up the games Zed sat in in part.
    from pipeline.ingest.run import ingest_paths
    from pipeline.simulate.games import simulate

    lake = tmp_path / "lake"
    shutil.copytree(lakes[0], lake)
    before = {f for f in (lake / "hands").rglob("*.parquet")}
    (game,) = simulate(rules.load(RULES), 1, 99)
    game["source"] = "club"
    (tmp_path / "late.jsonl").write_bytes(orjson.dumps(game) + b"\n")
    assert ingest_paths([tmp_path / "late.jsonl"], lake).games == 1
    (path,) = {f for f in (lake / "hands").rglob("*.parquet")} - before
    t = pq.read_table(path)
    rows = t.to_pylist()
    for r in rows:
        if r["hand_no"] == 2:
            r["players"] = [r["players"][0], "Zed", *r["players"][2:]]
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), path)
    late = rows[0]["game_id"]
    con = stats.connect(lake)
    try:
        assert con.execute("SELECT count(*) FROM hands WHERE game_id = $g", {"g": late}).fetchall() == [(len(rows),)]
        for table in ("player_hands", "pair_hands"):
            assert con.execute(f"SELECT count(*) FROM {table} WHERE game_id = $g", {"g": late}).fetchall() == [(0,)]
    finally:
        con.close()
    f = stats.Filters(players=("Zed",))
    con = stats.connect(lake, f)
    try:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(1,)]
        assert con.execute("SELECT count(*) FROM player_games").fetchall() == [(0,)]
        assert stats.run_report_on(con, "players", RULES, f).num_rows == 0
    finally:
        con.close()
