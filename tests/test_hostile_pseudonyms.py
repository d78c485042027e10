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
from pipeline import lake as lakemod
from pipeline.cli import app
from pipeline.pseudonymize import keyed

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
