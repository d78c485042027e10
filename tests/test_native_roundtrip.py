"""The native JSON Lines format round-trips losslessly: lake -> export -> import gives identical tables."""

import io

import orjson

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline.storage import lake as lakemod
from pipeline.formats import native
from pipeline.report.export import export_jsonl
from pipeline.ingest.run import ingest_paths


def _games():
    g1 = native_game("r1", [native_hand(DEAL_A, 1, taker=0, recorded=[92, 90]), native_hand(DEAL_L, 2, taker=None),
                            native_hand(DEAL_K, 3, taker=1, bid=90, coinche=2)])
    g1["hands"][0]["auction"] = [[0, "take"]]
    g1["hands"][0]["turned_card"] = "JH"
    g1["hands"][0]["announced"] = [{"seat": 0, "kind": "tierce", "cards": ["7D", "8D", "9D"]},
                                   {"seat": 1, "kind": "quinte", "rank": "A"}, {"seat": 3, "kind": "belote", "suit": "H"}]
    g1["hands"][0]["belote_seat"] = 3
    g1["recorded_final"] = [92, 90]
    g1["recorded_winner"] = 0
    g1["played_at"] = "2026-03-01T21:15:00+01:00"      # exported as 2026-03-01T20:15:00Z, the same instant
    g2 = native_game("r2", [native_hand(DEAL_L, 1, taker=2)], source="other", players=("W", "X", "Y", "Z"))
    return [g1, g2]


def _sorted(t, key):
    return t.sort_by(key).to_pylist()


def test_lake_export_import_round_trip(tmp_path):
    f = write_jsonl(tmp_path / "in.jsonl", _games())
    lake1, lake2 = tmp_path / "l1", tmp_path / "l2"
    ingest_paths([f], lake1)
    buf = io.BytesIO()
    assert export_jsonl(lake1, buf) == (2, 4)
    out = tmp_path / "out.jsonl"
    out.write_bytes(buf.getvalue())
    s = ingest_paths([out], lake2)
    assert (s.games, s.hands) == (2, 4)
    for table, key in (("hands", "hand_key"), ("games", "game_key")):
        # every column but ingest_file, the physical file each lake read (not part of the exported content)
        one, two = lakemod.read(lake1, table), lakemod.read(lake2, table)
        assert set(one.column("ingest_file").to_pylist()) == {str(f.resolve())}
        assert set(two.column("ingest_file").to_pylist()) == {str((tmp_path / "out.jsonl").resolve())}
        assert _sorted(one.drop_columns(["ingest_file"]), key) == _sorted(two.drop_columns(["ingest_file"]), key)
    # exporting the second lake gives the same bytes
    buf2 = io.BytesIO()
    export_jsonl(lake2, buf2)
    assert buf2.getvalue() == buf.getvalue()
    # importing the export into the first lake is a no-op
    s = ingest_paths([out], lake1)
    assert (s.hands, s.duplicates) == (0, 4)


def test_game_to_rows_and_back_is_lossless():
    for obj in _games():
        game, hands = native.game_to_rows(obj, "rebelote", "x.jsonl", 7)
        back = native.game_to_json(game, hands)
        game2, hands2 = native.game_to_rows(orjson.loads(orjson.dumps(back)), "rebelote", "elsewhere.jsonl", 99)
        assert game2 == game and hands2 == hands


def test_played_at_is_read_as_utc_and_checked():
    from datetime import datetime, timezone

    import pytest
    from pipeline.formats.records import RecordError

    g = _games()[0]
    game, _ = native.game_to_rows(g, "rebelote", "x.jsonl", 1)
    assert game["played_at"] == datetime(2026, 3, 1, 20, 15, tzinfo=timezone.utc)
    assert native.game_to_json(game, [])["played_at"] == "2026-03-01T20:15:00Z"
    g["played_at"] = "2026-03-02"                     # a bare date: midnight UTC
    assert native.game_to_rows(g, "rebelote", "x.jsonl", 1)[0]["played_at"] == datetime(2026, 3, 2, tzinfo=timezone.utc)
    g["played_at"] = "yesterday"
    with pytest.raises(RecordError, match="played_at: 'yesterday' is not an ISO 8601"):
        native.game_to_rows(g, "rebelote", "x.jsonl", 1)


def test_an_export_is_version_2_and_typed_json_readers_read_it_as_it_stands(tmp_path):
    # issue 19: version 2 gives every field one JSON type, so Arrow's, polars' and DuckDB's JSON readers read an
    # export directly (version 1's [seat, "card"] pairs made pyarrow fail: "changed from number to string")
    import duckdb
    import polars as pl
    import pyarrow.json as pj

    f = write_jsonl(tmp_path / "in.jsonl", _games())            # version 1, written by tests/deals.py
    ingest_paths([f], tmp_path / "lake")
    out = tmp_path / "out.jsonl"
    with out.open("wb") as fh:
        export_jsonl(tmp_path / "lake", fh)
    games = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert {g["version"] for g in games} == {2}
    first = next(g for g in games if g["source_game_id"] == "r1")["hands"][0]
    # DEAL_A's first trick (tests/deals.py): seats 0 1 2 3 play JH 7H 8H QH
    assert first["plays"][:4] == ["JH", "7H", "8H", "QH"] and first["play_seats"][:4] == [0, 1, 2, 3]
    assert first["auction"] == [{"seat": 0, "call": "take"}]
    arrow = pj.read_json(out)
    frame = pl.read_ndjson(out)
    duck = duckdb.sql(f"SELECT source_game_id, hands[1].plays[1] AS lead FROM read_json('{out}') ORDER BY 1").fetchall()
    assert arrow.num_rows == frame.height == 2
    assert duck == [("r1", "JH"), ("r2", "JH")]


def test_version_1_and_version_2_of_the_same_games_give_the_same_lake(tmp_path):
    # the keys come from the typed columns (pipeline/formats/content_keys.py), so the version a file is written in
    # does not matter: the second file's hands and games are all duplicates of the first's
    v1 = write_jsonl(tmp_path / "v1.jsonl", _games())
    g1, g2 = (native.game_to_rows(g, "rebelote", "x", None) for g in _games())
    v2 = write_jsonl(tmp_path / "v2.jsonl", [native.game_to_json(*g1), native.game_to_json(*g2)])
    assert b'"version":2' in v2.read_bytes() and b'"version":1' in v1.read_bytes()
    lake_a, lake_b = tmp_path / "a", tmp_path / "b"
    ingest_paths([v1], lake_a)
    ingest_paths([v2], lake_b)
    for table, key in (("hands", "hand_key"), ("games", "game_key")):
        cols = [c for c in lakemod.read(lake_a, table).column_names if c not in ("ingest_file", "source_file",
                                                                                   "source_line")]
        assert (_sorted(lakemod.read(lake_a, table).select(cols), key)
                == _sorted(lakemod.read(lake_b, table).select(cols), key))
    s = ingest_paths([v2], lake_a)
    assert (s.games, s.hands, s.duplicates) == (0, 0, 4)


def test_a_version_1_file_is_read_by_the_row_path_from_its_first_line(tmp_path, monkeypatch):
    # every version 1 line would fail the columnar parse and be keyed alone (8.7 ms a game, the review of issue 19
    # measured 20 s for 1,500 games against 4.4 by the row reader): such a file is not given to it at all
    from pipeline.ingest import fast_native

    called = []
    real = fast_native.read_into
    monkeypatch.setattr(fast_native, "read_into", lambda *a, **k: called.append(1) or real(*a, **k))
    v1 = write_jsonl(tmp_path / "v1.jsonl", _games())
    s = ingest_paths([v1], tmp_path / "a")
    assert (s.games, s.hands, called) == (2, 4, [])
    g1, g2 = (native.game_to_rows(g, "rebelote", "x", None) for g in _games())
    v2 = write_jsonl(tmp_path / "v2.jsonl", [native.game_to_json(*g1), native.game_to_json(*g2)])
    s = ingest_paths([v2], tmp_path / "b")
    assert (s.games, s.hands, called) == (2, 4, [1])
