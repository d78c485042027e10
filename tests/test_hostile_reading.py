"""Bounded reading and ambiguous JSON (issue 18, findings 4, 5 and 7): a gzip bomb, endless blank lines, one huge
line, deep nesting and a key written twice each give a reject of their own code, the records before are imported,
and memory stays bounded (checked under RLIMIT_AS in a subprocess)."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import orjson
import pytest

from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.limits import Bounded, Limits
from pipeline.rules import load
from pipeline.simulate.games import simulate

GAMES = [orjson.dumps(g) for g in simulate(load("belote-classic"), 2, 5)]


def _rejects(lake) -> list[tuple]:
    t = lakemod.read(lake, "rejects", ["reason_code", "source_line"]).to_pylist()
    return sorted((r["reason_code"], r["source_line"]) for r in t)


def _ingest_limited(args: list[str], mem_mb: int = 3000, seconds: int = 120) -> subprocess.CompletedProcess:
    """``rebelote ingest ARGS`` in a subprocess whose address space is capped at ``mem_mb``."""
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({mem_mb} << 20, {mem_mb} << 20))
        sys.argv = ["rebelote", "ingest", *{args!r}]
        from pipeline.cli import main
        main()
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=seconds)


@pytest.mark.parametrize("filler, code", [(b"\0", "file_too_large"), (b"\n", "file_too_large")], ids=["nul", "blank"])
def test_a_gzip_bomb_stops_at_the_ratio_after_importing_the_game_before(tmp_path, filler, code):
    f = tmp_path / "bomb.jsonl.gz"
    with gzip.open(f, "wb") as out:
        out.write(GAMES[0] + b"\n")
        for _ in range(64):
            out.write(filler * (1 << 20))      # 64 MiB decompressed, about 64 kB stored
    lake = tmp_path / "lake"
    r = _ingest_limited([str(f), "--lake", str(lake), "--max-ratio", "20", "--max-line-bytes", str(1 << 20)])
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert lakemod.read(lake, "games", ["game_id"]).num_rows == 1
    rejected = lakemod.read(lake, "rejects", ["reason_code", "reason"]).to_pylist()
    assert [x["reason_code"] for x in rejected] == [code if filler == b"\n" else "line_too_long"]
    assert not list(lake.rglob("*.tmp"))


def test_a_huge_line_is_rejected_with_its_number_and_the_lines_before_are_imported(tmp_path):
    f = tmp_path / "long.jsonl"
    f.write_bytes(GAMES[0] + b"\n" + b'{"players": "' + b"x" * 300_000 + b'"}\n' + GAMES[1] + b"\n")
    for path in ("columnar", "rows"):
        lake = tmp_path / f"lake-{path}"
        s = ingest_paths([f], lake, bounds=Limits(max_line_bytes=100_000)) if path == "columnar" else None
        if path == "rows":
            r = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(f), "--lake", str(lake),
                                "--max-line-bytes", "100000"], capture_output=True, text=True,
                               env={**__import__("os").environ, "REBELOTE_NATIVE_PATH": "rows"})
            assert r.returncode == 1 and "Traceback" not in r.stderr
        else:
            assert (s.games, dict(s.rejected)) == (1, {"line_too_long": 1})
        assert _rejects(lake) == [("line_too_long", 2)]
        assert lakemod.read(lake, "games", ["game_id"]).num_rows == 1
        assert not list(lake.rglob("*.tmp"))


def test_the_absolute_byte_limit_holds_for_a_plain_file(tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_bytes(GAMES[0] + b"\n" + GAMES[1] + b"\n")
    s = ingest_paths([f], tmp_path / "lake", bounds=Limits(max_bytes=len(GAMES[0]) + 10))
    assert (s.games, dict(s.rejected)) == (1, {"file_too_large": 1})


@pytest.mark.parametrize("native_path", ["columnar", "rows"])
def test_a_key_twice_is_a_reject_naming_the_key(tmp_path, monkeypatch, native_path):
    monkeypatch.setenv("REBELOTE_NATIVE_PATH", native_path)
    text = GAMES[1].decode().replace('"players":', '"players":["A","B","C","D"],"players":', 1)
    f = tmp_path / "dup.jsonl"
    f.write_bytes(GAMES[0] + b"\n" + text.encode() + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (1, {"duplicate_key": 1})
    r = lakemod.read(tmp_path / "lake", "rejects", ["reason", "source_line", "game_id"]).to_pylist()
    assert r == [{"reason": "key 'players' appears twice in one JSON object: a JSON reader keeps only the last "
                            "value, so the record is ambiguous (remove one)", "source_line": 2,
                  "game_id": orjson.loads(GAMES[1])["game_id"]}]


def test_a_colon_inside_a_text_is_no_duplicate_key(tmp_path):
    g = orjson.loads(GAMES[0])
    g["players"] = ['a":', 'b":', "c", "d"]           # more '":' in the text than keys: the slow check clears it
    f = tmp_path / "a.jsonl"
    f.write_bytes(orjson.dumps(g) + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (1, {})


def test_deep_nesting_is_a_reject_of_its_own(tmp_path):
    f = tmp_path / "deep.jsonl"
    f.write_bytes(GAMES[0] + b"\n" + b'{"a":' * 70 + b"1" + b"}" * 70 + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (1, {"too_deep": 1})
    assert _rejects(tmp_path / "lake") == [("too_deep", 2)]
    s = ingest_paths([f], tmp_path / "lake2", bounds=Limits(max_depth=80))
    assert dict(s.rejected) != {"too_deep": 1}       # raised: the line is read (and rejected for its content)


def test_bounded_stream_gives_lines_and_counts_them(tmp_path):
    import io
    b = Bounded(io.BytesIO(b"ab\n\ncd\nef"), Limits(max_line_bytes=2), 9, False)
    assert list(b) == [b"ab\n", b"\n", b"cd\n", b"ef"]
    b = Bounded(io.BytesIO(b"ab\nabc\n"), Limits(max_line_bytes=2), 7, False)
    assert next(b) == b"ab\n"
    with pytest.raises(Exception) as e:
        next(b)
    assert (e.value.code, e.value.line) == ("line_too_long", 2)


PAST_PARSER = "[" * 1100 + "]" * 1100      # 1100 levels: past orjson's own 1024, which --max-depth cannot raise
DEEP_WORDS = ("the JSON value nests more than 1024 levels deep, the parser's own limit (--max-depth cannot raise it "
              "past 1024)")


@pytest.mark.parametrize("fmt, name, text, line", [
    ("rebelote", "g.jsonl", GAMES[0].decode() + '\n{"format": "rebelote", "game_id": "deep-1", "players": %s}\n', 2),
    ("colver", "deals.jsonl", '{"engine": "colver", "deal_no": 1, "game_id": "g0", "bots": %s}\n', 1),
    ("colver-games", "games.jsonl", '{"game_id": "g0", "game_seed": 1, "final_scores": %s, "first_dealer": 0}\n', 1),
    ("openspiel-jsonl", "histories.jsonl", '\n{"game": "python_belote()", "history": %s}\n', 2),
    ("bridgebelot2001", "golden_score.json", '{"scoring": %s, "lastTrick": 1, "taken": 1}', 1),
    ("carg-json", "dump.json", '{"__collections__": {"coinche-game": {"g1": %s}}}', 1),
    ("bga", "table.json", '{"channel": "/table/t1", "packet_id": 1, "type": "updateBidPass", "data": %s}\n', 1),
    ("coinche-cli", "A0001/stream_N.jsonl", '{"type": "hello", "payload": %s}\n', 1),
])
def test_nesting_past_the_parser_limit_is_too_deep_in_every_json_reader(tmp_path, monkeypatch, fmt, name, text, line):
    # orjson refuses the text ("depth limit exceeded") before json_shape can count it: it was invalid_json
    monkeypatch.setenv("REBELOTE_NATIVE_PATH", "rows")
    f = tmp_path / name
    f.parent.mkdir(exist_ok=True)
    f.write_text(text % PAST_PARSER)
    s = ingest_paths([f], tmp_path / "lake", fmt=fmt)
    assert (s.games, dict(s.rejected)) == (1 if fmt == "rebelote" else 0, {"too_deep": 1})
    r = lakemod.read(tmp_path / "lake", "rejects", ["reason", "source_line", "game_id"]).to_pylist()
    # the game named where the text shows it before the damage: the native game_id key, BGA's /table/t<id> channel,
    # the coinche-cli game folder (whose game is rejected whole)
    game = {"rebelote": "deep-1", "bga": "bga:1", "coinche-cli": "coinche-cli:A0001"}.get(fmt)
    words = DEEP_WORDS + (" (the whole game is rejected)" if fmt == "coinche-cli" else "")
    assert r == [{"reason": words, "source_line": line, "game_id": game}]


def test_nesting_past_the_parser_limit_is_too_deep_on_the_columnar_native_path(tmp_path, monkeypatch):
    monkeypatch.setenv("REBELOTE_NATIVE_PATH", "columnar")
    f = tmp_path / "g.jsonl"
    f.write_text(GAMES[0].decode() + '\n{"format": "rebelote", "game_id": "deep-1", "players": %s}\n' % PAST_PARSER)
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (1, {"too_deep": 1})
    assert _rejects(tmp_path / "lake") == [("too_deep", 2)]


def test_max_depth_past_the_parser_limit_is_refused():
    with pytest.raises(ValueError, match="max_depth must be at most 1024"):
        Limits(max_depth=1025)
