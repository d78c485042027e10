"""No name can be recovered from a pseudonymized output without the salt (issue 18, finding 2).

The attack: hash guessed names (and the contents the lake's keys digest, which hold the names: a game key hashes
the players list) with plain SHA-256 and look for the digests in the output. Every column of every pseudonymized
output (the DuckDB export, every report as JSON, CSV and Parquet, the JSON Lines export, the HTML report) is
searched for the real names, their SHA-256 digests (full and the prefixes the lake uses) and every key the lake
stores (hand_key, game_key, reject_key: the digests an attacker recomputes from guessed names)."""

from __future__ import annotations

import hashlib

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from helpers import simulated_lake
from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.stats.pseudonymize import keyed

SALT = "pepper"
REPORTS = ("players", "partnerships", "head-to-head", "contracts", "declarations", "declaration-kinds", "audit")
runner = CliRunner()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return simulated_lake(tmp_path_factory.mktemp("guess") / "lake", extra_lines=['{"game_id": "bad", "players": '
                                                                                   '["Alice", "Bruno"]}'])


@pytest.fixture(scope="module")
def secrets(lake):
    """Every string a guesser can compute without the salt: the real names, SHA-256 of each (hex, and the 12, 16
    and 32 first digits), and the keys the lake stores (plain digests of contents holding the names)."""
    names = {n for t in ("hands", "games") for ps in lakemod.read(lake, t, ["players"]).column(0).to_pylist()
             for n in ps or ()}
    assert len(names) >= 8
    out = set(names)
    for n in names:
        h = hashlib.sha256(n.encode()).hexdigest()
        out |= {h, h[:12], h[:16], h[:32]}
    for table, col in (("hands", "hand_key"), ("games", "game_key"), ("rejects", "reject_key")):
        keys = lakemod.read(lake, table, [col]).column(0).to_pylist()
        assert keys
        out |= set(keys)
    return out


def _found(text: str, secrets: set[str]) -> set[str]:
    return {s for s in secrets if s in text}


def test_the_duckdb_export_holds_no_guessable_digest(lake, secrets, tmp_path):
    db = tmp_path / "d.duckdb"
    r = runner.invoke(app, ["export", "duckdb", str(db), "--lake", str(lake), "--pseudonymize", SALT])
    assert r.exit_code == 0, r.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        assert {"hands", "games", "rejects", "scores", "game_scores"} <= set(tables)
        for t in tables:
            cols = [c for (c,) in con.execute("SELECT column_name FROM information_schema.columns "
                                              "WHERE table_name = ?", [t]).fetchall()]
            for c in cols:
                text = "\n".join(str(v) for (v,) in con.execute(f'SELECT DISTINCT CAST("{c}" AS VARCHAR) FROM "{t}"')
                                 .fetchall())
                assert _found(text, secrets) == set(), f"{t}.{c}"
        # keys are re-keyed alike in every table (joins hold) and are the HMAC of the stored ones
        raw = sorted(keyed(SALT, k) for k in lakemod.read(lake, "hands", ["hand_key"]).column(0).to_pylist())
        assert sorted(k for (k,) in con.execute("SELECT hand_key FROM hands").fetchall()) == raw
        assert con.execute("SELECT count(*) FROM scores WHERE hand_key NOT IN (SELECT hand_key FROM hands)"
                           ).fetchone() == (0,)
    finally:
        con.close()


@pytest.mark.parametrize("fmt", ["json", "csv", "parquet"])
@pytest.mark.parametrize("report", REPORTS)
def test_no_report_holds_a_guessable_digest(lake, secrets, tmp_path, report, fmt):
    out = tmp_path / f"r.{fmt}"
    r = runner.invoke(app, ["stats", report, "--lake", str(lake), "--rules", "belote-classic", "--pseudonymize", SALT,
                            "--output", str(out)])
    assert r.exit_code == 0, r.output
    text = str(pq.read_table(out).to_pylist()) if fmt == "parquet" else out.read_text()
    assert text.strip()
    assert _found(text, secrets) == set()


def test_the_jsonl_export_and_the_html_report_hold_no_guessable_digest(lake, secrets, tmp_path):
    jsonl, html = tmp_path / "e.jsonl", tmp_path / "r.html"
    assert runner.invoke(app, ["export", "jsonl", "--lake", str(lake), "--pseudonymize", SALT, "--output",
                               str(jsonl)]).exit_code == 0
    r = runner.invoke(app, ["report", "--html", str(html), "--lake", str(lake), "--rules", "belote-classic",
                            "--pseudonymize", SALT])
    assert r.exit_code == 0, r.output
    for f in (jsonl, html):
        assert _found(f.read_text(), secrets) == set(), f.name


# ----------------------------------------------------------------------------------------------------------
# ids, file names and texts made of names (issue 18): a game id "Alice-vs-Bruno", a folder and a file named after
# players, a hand's error text and a reject reason quoting a name. Every pseudonymized output must hold none of
# the names, nor any of the ids, paths and texts that embed them, nor SHA-256 digests of those.
# ----------------------------------------------------------------------------------------------------------

NAMES = ("Alice", "Bruno", "Chloé", "Denis", "Zoé")   # Zoé: named only in a reject's reason (not a player)


@pytest.fixture(scope="module")
def named_lake(tmp_path_factory):
    import orjson

    from deals import DEAL_A, DEAL_K, native_game, native_hand
    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake
    from pipeline.rules import load

    tmp = tmp_path_factory.mktemp("named")
    folder = tmp / "Alice_et_Bruno"
    folder.mkdir()
    hand = native_hand(DEAL_A, 1, taker=0)
    hand["errors"] = ["Alice disputed the last trick"]
    game = dict(native_game("Alice-vs-Bruno", [hand], source="club", players=NAMES[:4]), played_at="2024-03-01")
    other = dict(native_game("Chloé-Denis-2", [native_hand(DEAL_K, 1, taker=2)], source="club",
                             players=("Denis", "Chloé", "Bruno", "Alice")), played_at="2024-03-02")
    (folder / "Chloé.jsonl").write_bytes(orjson.dumps(game) + b"\n" + orjson.dumps(other) + b"\n")
    # a score sheet whose dealer is no player: the reject's reason quotes the cell (scoresheet_csv "is not one of
    # the players")
    (folder / "Denis.csv").write_text("game_id,hand_no,variant,source,player1,player2,player3,player4,dealer,taker,"
                                      "strain,bid,made,score_a,score_b\nDenis-night,1,belote,club,Alice,Bruno,Chloé,"
                                      "Denis,Zoé,Alice,H,80,yes,100,62\n")
    lake = tmp / "lake"
    s = ingest_paths([folder], lake)
    assert (s.games, s.hands, dict(s.rejected)) == (2, 2, {"bad_value": 1})
    reason = lakemod.read(lake, "rejects", ["reason"]).column(0).to_pylist()[0]
    assert "Zoé" in reason                 # the attack needs a name in a stored reason
    rescore_lake(lake, load("belote-classic"))
    return lake


@pytest.fixture(scope="module")
def named_secrets(named_lake):
    """The names, every stored id, path and text that holds one, and SHA-256 (hex, 12/16/32 first digits) of
    each: what a guesser computes without the salt."""
    stored = set(NAMES)
    for table, cols in (("games", ["game_id", "source_game_id", "source_file", "ingest_file"]),
                        ("hands", ["game_id", "source_game_id", "source_file", "ingest_file"]),
                        ("rejects", ["source_file", "ingest_file", "reason", "raw"])):
        for row in lakemod.read(named_lake, table, cols).to_pylist():
            stored |= {v for v in row.values() if isinstance(v, str) and any(n in v for n in NAMES)}
    stored |= {e for es in lakemod.read(named_lake, "hands", ["errors"]).column(0).to_pylist() for e in es}
    assert {"club:Alice-vs-Bruno", "Alice-vs-Bruno", "Alice disputed the last trick"} <= stored
    out = set(stored)
    for v in stored:
        h = hashlib.sha256(v.encode()).hexdigest()
        out |= {h, h[:12], h[:16], h[:32]}
    return out


def test_ids_paths_and_texts_made_of_names_are_in_no_pseudonymized_output(named_lake, named_secrets, tmp_path):
    lake = str(named_lake)
    db, jsonl, html = tmp_path / "d.duckdb", tmp_path / "e.jsonl", tmp_path / "r.html"
    assert runner.invoke(app, ["export", "duckdb", str(db), "--lake", lake, "--pseudonymize", SALT]).exit_code == 0
    assert runner.invoke(app, ["export", "jsonl", "--lake", lake, "--pseudonymize", SALT, "--output",
                               str(jsonl)]).exit_code == 0
    r = runner.invoke(app, ["report", "--html", str(html), "--lake", lake, "--rules", "belote-classic",
                            "--pseudonymize", SALT])
    assert r.exit_code == 0, r.output
    texts = {"e.jsonl": jsonl.read_text(), "r.html": html.read_text()}
    con = duckdb.connect(str(db), read_only=True)
    try:
        for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
            texts[f"duckdb {t}"] = str(con.execute(f'SELECT * FROM "{t}"').fetchall())
        # game ids keyed alike in every table: the two games, their hands and scores still join
        assert con.execute("SELECT count(*) FROM hands JOIN games USING (game_id) JOIN game_scores USING (game_id)"
                           ).fetchone() == (2,)
        assert con.execute("SELECT game_id FROM games ORDER BY 1").fetchall() == sorted(
            (keyed(SALT, g),) for g in ("club:Alice-vs-Bruno", "club:Chloé-Denis-2"))
    finally:
        con.close()
    for report in REPORTS:
        for fmt in ("json", "csv", "parquet"):
            out = tmp_path / f"{report}.{fmt}"
            r = runner.invoke(app, ["stats", report, "--lake", lake, "--rules", "belote-classic", "--pseudonymize",
                                    SALT, "--output", str(out)])
            assert r.exit_code == 0, r.output
            texts[out.name] = str(pq.read_table(out).to_pylist()) if fmt == "parquet" else out.read_text()
    found = {name: _found(text, named_secrets) for name, text in texts.items()}
    assert {name: f for name, f in found.items() if f} == {}


def test_a_date_filter_keeps_the_same_hands_under_pseudonyms(named_lake):
    # the date filter reads the games' stored ids while the views hold keyed ones: both games (March 1 and 2)
    # before, one after 2024-03-02
    from datetime import datetime, timezone

    from pipeline.stats import reports as stats
    for salt in (None, SALT):
        con = stats.connect(named_lake, stats.Filters(pseudonymize=salt, since=datetime(2024, 3, 2, tzinfo=timezone.utc)))
        try:
            assert con.execute("SELECT count(*) FROM hands").fetchone() == (1,)
        finally:
            con.close()
