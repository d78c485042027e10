"""The columnar native reader (pipeline/ingest/fast_native.py) against the row path it replaces.

The files are in version 2 of the native format (the one the columnar reader reads: every field one JSON
type); version 1 lines are read by the row path alone, so each damage below is written in version 2.

Every test ingests the same files twice, once with ``REBELOTE_NATIVE_PATH=rows`` (the reference: native_jsonl +
validate, row by row) and once columnar, and requires identical results: the hands, games and rejects tables
row for row, the Parquet files written (same flush points, same rows in each), the summary counts and the
reject messages in the order they were reported. Block size and flush size are varied so block boundaries fall
everywhere. Clean files must be read entirely as columns (otherwise the comparison would prove nothing).
"""

from __future__ import annotations

import re

import functools
import gzip
import hashlib
import io
import json
from concurrent.futures import Future
from collections import Counter
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from test_fuzz import mutate, mutation
from pipeline.storage import lake as lakemod
from pipeline.report.export import export_jsonl
from pipeline.ingest import fast_native, input_files, kernels, native_blocks, native_pool, run
from pipeline.ingest import writer as writer_mod
from pipeline.ingest.run import StrictError, ingest_paths
from pipeline.simulate.games import simulate

KEYS = {"hands": "hand_key", "games": "game_key", "rejects": "reject_key"}


def v2(game: dict) -> dict:
    """A version-1 native game object written as version 2: calls as objects, plays as cards with their seats."""
    game = json.loads(json.dumps(game))
    game["version"] = 2
    for h in game["hands"]:
        h["auction"] = [{"seat": s, "call": c} for s, c in h.get("auction") or []]
        if h.get("plays") is not None:
            h["play_seats"] = [p[0] for p in h["plays"]]
            h["plays"] = [p[1] for p in h["plays"]]
    return game


def _ingest(files, lake: Path, mode: str, monkeypatch, block: int, flush: int, strict: bool = False,
            workers: int = 1, compiled: bool = True) -> dict:
    """Ingest with one path; returns everything observable: tables, files, summary, messages, lines read.
    ``workers`` > 1: the columnar path parses and converts in that many forked worker processes, whatever the
    size of the file (native_pool). ``compiled``: the byte kernels run compiled whatever the size of the file,
    else as plain Python (pipeline.ingest.kernels)."""
    monkeypatch.setattr(kernels, "COMPILED_MIN_BYTES", 0 if compiled else 1 << 62)
    monkeypatch.setenv(fast_native.ENV, mode)
    monkeypatch.setenv(fast_native.DEBUG_ENV, "1")      # a converter error fails the test instead of hiding
    monkeypatch.setenv(native_pool.WORKERS_ENV, str(workers))
    monkeypatch.setattr(native_pool, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(fast_native, "BLOCK_BYTES", block)
    monkeypatch.setattr(writer_mod, "FLUSH_HANDS", flush)
    seen: Counter = Counter()
    real_row_path = native_blocks.read_line

    def counting_row_path(lineno, offset, text, *a):
        seen["row path lines"] += text is None or bool(text.strip())
        return real_row_path(lineno, offset, text, *a)
    monkeypatch.setattr(native_blocks, "read_line", counting_row_path)
    messages: list[str] = []
    try:
        s = ingest_paths([Path(f) for f in files], lake, strict=strict, on_reject=lambda r: messages.append(r.message()))
        summary = (s.files, s.games, s.hands, s.duplicates, dict(s.rejected), s.unrecognised)
    except StrictError as e:
        summary = ("strict", str(e))
    except Exception as e:     # a driver failure must at least be the same failure
        summary = ("error", type(e).__name__, str(e))
    out = {"summary": summary, "messages": messages,
           # file names without the transaction id (pipeline.storage.commits), which differs between two runs
           "files": sorted(re.sub(r"-[0-9a-f]{12}-", "-TX-", str(p.relative_to(lake)))
                           for p in Path(lake).rglob("*.parquet"))}
    for table, key in KEYS.items():
        out[table] = lakemod.read(lake, table).sort_by(key).to_pylist()
    return out, seen["row path lines"]


def same_lake(tmp_path: Path, monkeypatch, files, block: int = 4096, flush: int = 50_000,
              strict: bool = False, workers: int = 1, compiled: bool = True) -> tuple[dict, int]:
    """Ingest ``files`` by both paths into two fresh lakes, assert every observable is identical; returns the
    columnar run's results and how many non-blank lines it left to the row path. ``compiled``: see _ingest."""
    n = len(list(tmp_path.glob("lake-*")))
    rows, _ = _ingest(files, tmp_path / f"lake-{n}-rows", "rows", monkeypatch, block, flush, strict)
    cols, fallback = _ingest(files, tmp_path / f"lake-{n}-cols", "columnar", monkeypatch, block, flush, strict,
                             workers, compiled)
    for key in ("summary", "messages", "files", "hands", "games", "rejects"):
        assert cols[key] == rows[key], f"{key} differs between the columnar and the row path"
    return cols, fallback


# ------------------------------------------------------------------------------------------ sample files

def _simulated(rules: str, games: int, seed: int = 3) -> list[bytes]:
    return [orjson.dumps(o) + b"\n" for o in simulate(rules, games, seed)]


def _handwritten() -> list[bytes]:
    """Games written the way a person or another tool would: no hand provenance, no errors list, no hand
    source ids; one hand passed out; the second game coinche with a surcoinche."""
    g1 = native_game("hw1", [native_hand(DEAL_A, 1, taker=0, recorded=[92, 90]), native_hand(DEAL_L, 2, taker=None),
                             native_hand(DEAL_K, 3, taker=1, bid=90, coinche=2)])
    g1["hands"][0]["auction"] = [[0, "take"]]
    g1["hands"][0]["turned_card"] = "JH"
    g2 = native_game("hw2", [native_hand(DEAL_L, 1, taker=2, bid=110, strain="S")], variant="coinche",
                     players=("Éric", "Zoë", "李", "O'Neil"))
    g2["hands"][0]["auction"] = [[0, "pass"], [1, "pass"], [2, "110S"], [3, "pass"], [0, "pass"], [1, "pass"]]
    return [orjson.dumps(v2(g)) + b"\n" for g in (g1, g2)]


@functools.cache
def _base_lines() -> tuple[bytes, ...]:
    return tuple(_simulated("belote-classic", 3) + _handwritten() + [_three_players()])


def _base() -> list[bytes]:
    """Three simulated classic games (lines 0-2), the two hand-written ones (lines 3-4) and a hand-written
    three-player game (line 5)."""
    return list(_base_lines())


def _three_players() -> bytes:
    """A three-player game: 10 cards a seat (7C and 7D left out), ten tricks played seat 0, 1, 2, a recorded
    score per player."""
    deck = [r + s for s in "CDHS" for r in "789TJQKA"]
    deck = [c for c in deck if c not in ("7C", "7D")]
    seats = [deck[s::3] for s in range(3)]
    plays = [[s, seats[s][t]] for t in range(10) for s in range(3)]
    hand = {"hand_no": 1, "dealer": 2, "completeness": "full_play", "hands": seats, "auction": [[0, "take"]],
            "contract": {"taker": 0, "strain": "H"}, "plays": plays, "recorded": {"score": [80, 42, 40]}}
    game = {"format": "rebelote", "version": 1, "source": "test", "source_game_id": "three", "variant": "belote-3p",
            "n_players": 3, "players": ["A", "B", "C"], "hands": [hand]}
    return orjson.dumps(v2(game)) + b"\n"


def _write(tmp_path: Path, name: str, lines: list[bytes] | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(lines if isinstance(lines, bytes) else b"".join(lines))
    return p


# ------------------------------------------------------------------------------------------ clean files

@pytest.mark.parametrize("rules", ["belote-classic", "ffb-coinche-2015", "bulgarian", "belote-2p", "colver",
                                   "belote-classic-501"])
def test_clean_simulated_files_are_read_as_columns_and_give_the_same_lake(tmp_path, monkeypatch, rules):
    f = _write(tmp_path, f"{rules}.jsonl", _simulated(rules, 5))
    cols, fallback = same_lake(tmp_path, monkeypatch, [f], block=20_000, flush=37)
    assert fallback == 0, "clean simulated lines must all be read as columns"
    assert cols["summary"][1] == 5 and cols["rejects"] == []    # 5 games simulated, none rejected


def test_hand_written_and_exported_files_are_read_as_columns(tmp_path, monkeypatch):
    f = _write(tmp_path, "hand-written.jsonl", _handwritten())
    cols, fallback = same_lake(tmp_path, monkeypatch, [f])
    assert fallback == 0
    # (3 + 1) hands in the two games written above
    assert cols["summary"][1:4] == (2, 4, 0)
    # an export carries provenance (source_line numbers, the original reader and file) and announcements
    g = json.loads(_handwritten()[0])
    g["hands"][0]["announced"] = [{"seat": 0, "kind": "tierce", "cards": ["7D", "8D", "9D"]},
                                  {"seat": 1, "kind": "quinte", "rank": "A"}, {"seat": 3, "kind": "belote", "suit": "H"},
                                  {"seat": 2, "kind": "carre", "rank": "10", "suit": None, "length": None}]
    g["hands"][0]["belote_seat"] = 3
    src = _write(tmp_path, "src.jsonl", [orjson.dumps(g) + b"\n"] + _simulated("ffb-coinche-2015", 2))
    ingest_paths([src], tmp_path / "l0")
    buf = io.BytesIO()
    export_jsonl(tmp_path / "l0", buf)
    exported = _write(tmp_path, "export.jsonl", buf.getvalue())
    cols, fallback = same_lake(tmp_path, monkeypatch, [exported], block=3000, flush=5)
    assert fallback == 0
    assert [h["source_line"] for h in cols["hands"] if h["game_id"] == "test:hw1"] == [1, 1, 1]


def test_python_json_dumps_default_layout_is_read_as_columns(tmp_path, monkeypatch):
    # json.dumps without options: ", " and ": " separators, non-ASCII names escaped as \u00e9
    lines = [json.dumps(json.loads(ln)).encode() + b"\n" for ln in _base()]
    assert b'", "' in b"".join(lines) and b"\\u00c9ric" in b"".join(lines)
    cols, fallback = same_lake(tmp_path, monkeypatch, [_write(tmp_path, "py.jsonl", lines)])
    assert fallback == 0 and cols["summary"][1] == 6


def test_played_at_is_read_as_columns(tmp_path, monkeypatch):
    # the forms native.parse_time reads (docs/native-format.md): a bare date, a time with an offset, UTC with Z
    # and microseconds, an explicit null; the values expected are those instants in UTC, worked out by hand
    from datetime import datetime, timezone
    stamps = ["2026-03-01", "2026-03-01T21:15:00+01:00", "2025-12-31T23:59:59.123456Z", None, "2026-03-01"]
    lines = [ln.replace(b'"version":2', b'"version":2,"played_at":' + json.dumps(t).encode(), 1)
             for ln, t in zip(_base(), stamps)] + _base()[5:]
    cols, fallback = same_lake(tmp_path, monkeypatch, [_write(tmp_path, "timed.jsonl", lines)])
    assert fallback == 0, "lines with played_at must be read as columns"
    utc = timezone.utc
    got = {g["game_id"]: g["played_at"] for g in cols["games"]}
    ids = [json.loads(ln)["game_id"] if "game_id" in json.loads(ln) else
           f'{json.loads(ln)["source"]}:{json.loads(ln)["source_game_id"]}' for ln in lines]
    assert [got[i] for i in ids] == [datetime(2026, 3, 1, tzinfo=utc), datetime(2026, 3, 1, 20, 15, tzinfo=utc),
                                     datetime(2025, 12, 31, 23, 59, 59, 123456, tzinfo=utc), None,
                                     datetime(2026, 3, 1, tzinfo=utc), None]


def test_reimport_and_a_second_copy_are_duplicates(tmp_path, monkeypatch):
    f = _write(tmp_path, "a.jsonl", _base())
    g = _write(tmp_path, "b.jsonl", _base()[::-1])        # same games, other file and order: all duplicates
    cols, _ = same_lake(tmp_path, monkeypatch, [f, g], block=5000, flush=11)
    assert cols["summary"][3] == cols["summary"][2]      # every hand of the second file is a duplicate


# ------------------------------------------------------------------------------------------ damaged files

def _edit(i: int, fn):
    """A mutator that decodes line i, applies fn to the object and writes it back (compact)."""
    def run_(lines):
        lines = list(lines)
        obj = json.loads(lines[i])
        fn(obj)                         # edits in place (its return value is ignored)
        lines[i] = orjson.dumps(obj) + b"\n"
        return lines
    return run_


def _set(path, value):
    """fn for _edit: set obj[path...] = value (path of keys and indices)."""
    def fn(obj):
        o = obj
        for k in path[:-1]:
            o = o[k]
        o[path[-1]] = value
    return fn


def _drop(path):
    def fn(obj):
        o = obj
        for k in path[:-1]:
            o = o[k]
        del o[path[-1]]
    return fn


def _raw(fn):
    """A mutator working on the list of raw lines."""
    return fn


def _replace(i: int, old: bytes, new: bytes, count: int = 1):
    return lambda lines: [ln.replace(old, new, count) if j == i else ln for j, ln in enumerate(lines)]


def _swap_plays(obj):
    s = obj["hands"][1]["play_seats"]
    s[1], s[2] = s[2], s[1]


def _played_twice(obj):
    h = obj["hands"][1]
    h["plays"][5] = h["plays"][4]


# P: the first played hand of the first simulated game (the corruptions below damage it); Q, R: a passed-out
# hand, on line R
P = next(i for i, h in enumerate(json.loads(_base()[0])["hands"]) if h["plays"])
H = ["hands", P]
R, Q = next((r, i) for r, line in enumerate(_base()) for i, h in enumerate(json.loads(line)["hands"])
            if h.get("contract") is None)
CORRUPTIONS = {
    "unknown_card": _edit(0, lambda o: o["hands"][P]["hands"][0].__setitem__(0, "ZZ")),
    "card_played_twice": _edit(0, _played_twice),
    "card_not_held": _edit(0, _swap_plays),
    "seven_card_hand": _edit(0, lambda o: o["hands"][P]["hands"][0].pop()),
    "card_dealt_twice": _edit(0, lambda o: o["hands"][P]["hands"][1].__setitem__(0, o["hands"][P]["hands"][0][0])),
    "truncated_plays": _edit(0, lambda o: (o["hands"][P]["plays"].pop(), o["hands"][P]["play_seats"].pop())),
    "invalid_json_line": _raw(lambda ls: ls[:2] + [b'{"format": "rebelote", "hands": [\n'] + ls[2:]),
    "truncated_last_line": _raw(lambda ls: ls[:-1] + [ls[-1][: len(ls[-1]) // 2]]),
    "last_line_without_newline": _raw(lambda ls: ls[:-1] + [ls[-1].rstrip(b"\n")]),
    "two_objects_on_a_line": _raw(lambda ls: [ls[0].rstrip(b"\n") + b" " + ls[1]] + ls[2:]),
    "carriage_return_inside": _raw(lambda ls: [ls[0].rstrip(b"\n") + b"\r" + ls[1]] + ls[2:]),
    "crlf_line_ends": _raw(lambda ls: [ln.replace(b"\n", b"\r\n") for ln in ls]),
    "blank_and_space_lines": _raw(lambda ls: [b"\n", b"   \n"] + ls[:2] + [b"\t\n"] + ls[2:]),
    "indented_line": _raw(lambda ls: [b"  " + ls[0]] + ls[1:]),
    "top_level_array_and_null": _raw(lambda ls: ls[:1] + [b"[1, 2]\n", b"null\n", b"5\n"] + ls[1:]),
    "bom_first_line": _raw(lambda ls: [b"\xef\xbb\xbf" + ls[0]] + ls[1:]),
    "bom_second_line": _raw(lambda ls: ls[:1] + [b"\xef\xbb\xbf" + ls[1]] + ls[2:]),
    "not_utf8": _replace(3, b'"Ana"', b'"An\xe9"'),
    "raw_del_byte": _replace(3, b'"Ana"', b'"An\x7fa"'),
    "escaped_del": _replace(3, b'"Ana"', b'"An\\u007fa"'),
    "escaped_names": _replace(3, b'"Ana"', b'"\\u00c9ric \\"the\\" \\\\ best"'),
    "unknown_game_field": _replace(1, b'"version":2', b'"version":2,"date":"2026-01-01"'),
    "unknown_hand_field": _replace(1, b'"dealer":', b'"table":7,"dealer":'),
    "duplicate_key": _replace(1, b'"dealer":', b'"dealer":2,"dealer":'),
    "escaped_key_hand_no_null": _replace(1, b'"hand_no":1,', b'"hand\\u005fno":null,'),
    "dealer_as_text": _edit(0, _set(H + ["dealer"], "1")),
    "hand_no_as_float": _edit(0, _set(H + ["hand_no"], 2.0)),
    "hand_no_null": _edit(0, _set(H + ["hand_no"], None)),
    "hand_no_absent": _edit(0, _drop(H + ["hand_no"])),
    "hand_no_zero": _edit(0, _set(H + ["hand_no"], 0)),
    "hand_no_repeated": _edit(0, lambda o: o["hands"][P].__setitem__("hand_no", o["hands"][P + 1]["hand_no"])),
    "hand_no_huge": _edit(0, _set(H + ["hand_no"], 2**40)),
    "n_players_as_text": _edit(0, _set(["n_players"], "4")),
    "n_players_three": _edit(0, _set(["n_players"], 3)),
    "players_numbers": _edit(0, _set(["players"], [1, 2, 3, 4])),
    "player_empty": _edit(0, lambda o: o["players"].__setitem__(2, "")),
    "player_null": _edit(0, lambda o: o["players"].__setitem__(2, None)),
    "source_number": _edit(0, _set(["source"], 5)),
    "source_unsafe": _edit(0, _set(["source"], "a/b")),
    "source_trailing_newline": _edit(0, _set(["source"], "abc\n")),
    "source_missing": _edit(0, _drop(["source"])),
    "source_game_id_null": _edit(0, _set(["source_game_id"], None)),
    "source_game_id_number": _edit(0, _set(["source_game_id"], 17)),
    "game_id_empty": _edit(0, _set(["game_id"], "")),
    "game_id_null": _edit(0, _set(["game_id"], None)),
    "variant_unknown": _edit(0, _set(["variant"], "poker")),
    "format_wrong": _edit(0, _set(["format"], "other")),
    "version_one": _edit(0, _set(["version"], 1)),
    "version_three": _edit(0, _set(["version"], 3)),
    "version_true": _edit(0, _set(["version"], True)),
    "version_missing": _edit(0, _drop(["version"])),
    "players_missing": _edit(0, _drop(["players"])),
    "hands_missing": _edit(0, _drop(["hands"])),
    "hands_empty": _edit(0, _set(["hands"], [])),
    "hand_null": _edit(0, lambda o: o["hands"].append(None)),
    "capot_bid_number": _edit(0, _set(H + ["contract", "capot_bid"], 1)),
    "capot_bid_null": _edit(0, _set(H + ["contract", "capot_bid"], None)),
    "capot_bid_absent": _edit(0, _drop(H + ["contract", "capot_bid"])),
    "coinche_true": _edit(0, _set(H + ["contract", "coinche"], True)),
    "coinche_null": _edit(0, _set(H + ["contract", "coinche"], None)),
    "coinche_absent": _edit(0, _drop(H + ["contract", "coinche"])),
    "coinche_three": _edit(0, _set(H + ["contract", "coinche"], 3)),
    "contract_empty": _edit(0, _set(H + ["contract"], {})),
    "contract_without_taker": _edit(0, _set(H + ["contract"], {"strain": 7, "bid": 99999})),
    "contract_strain_only": _edit(0, _set(H + ["contract"], {"strain": "H"})),
    "contract_list": _edit(0, _set(H + ["contract"], [])),
    "strain_unknown": _edit(0, _set(H + ["contract", "strain"], "X")),
    "bid_text": _edit(0, _set(H + ["contract", "bid"], "90")),
    "bid_too_high": _edit(0, _set(H + ["contract", "bid"], 5000)),
    "taker_out_of_range": _edit(0, _set(H + ["contract", "taker"], 4)),
    "dealer_out_of_range": _edit(0, _set(H + ["dealer"], 7)),
    "dealer_missing": _edit(0, _drop(H + ["dealer"])),
    "completeness_absent": _edit(0, _drop(H + ["completeness"])),
    "completeness_null": _edit(0, _set(H + ["completeness"], None)),
    "completeness_summary": _edit(0, _set(H + ["completeness"], "summary")),
    "completeness_unknown": _edit(0, _set(H + ["completeness"], "half")),
    "errors_absent": _edit(0, _drop(H + ["errors"])),
    "errors_null": _edit(0, _set(H + ["errors"], None)),
    "errors_numbers": _edit(0, _set(H + ["errors"], [1])),
    "errors_texts": _edit(0, _set(H + ["errors"], ["seat 2 revoked", "late"])),
    "auction_absent": _edit(0, _drop(H + ["auction"])),
    "auction_null": _edit(0, _set(H + ["auction"], None)),
    "auction_bad_seat": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": 4, "call": "pass"})),
    "auction_seat_negative": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": -1, "call": "pass"})),
    "auction_seat_text": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": "1", "call": "pass"})),
    "auction_call_number": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": 1, "call": 110})),
    "auction_extra_field": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": 1, "call": "pass", "x": 1})),
    "auction_call_missing": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": 1})),
    "auction_seat_null": _edit(0, lambda o: o["hands"][P]["auction"].append({"seat": None, "call": "pass"})),
    "auction_pair_of_version_1": _edit(0, lambda o: o["hands"][P]["auction"].append([1, "pass"])),
    "auction_item_null": _edit(0, lambda o: o["hands"][P]["auction"].append(None)),
    "auction_spaced": _replace(0, b'{"seat":1,"call":"pass"}', b'{"seat": 1, "call": "pass"}'),
    "play_seat_negative": _edit(0, lambda o: o["hands"][P]["play_seats"].__setitem__(0, -1)),
    "play_seat_ten": _edit(0, lambda o: o["hands"][P]["play_seats"].__setitem__(0, 10)),
    "play_seat_null": _edit(0, lambda o: o["hands"][P]["play_seats"].__setitem__(0, None)),
    "play_seats_longer": _edit(0, lambda o: o["hands"][P]["play_seats"].append(1)),
    "play_seats_missing": _edit(0, _drop(H + ["play_seats"])),
    "play_seats_without_plays": _edit(R, lambda o: o["hands"][Q].__setitem__("play_seats", [0, 1])),
    "plays_as_pairs_of_version_1": _edit(0, lambda o: o["hands"][P].__setitem__(
        "plays", [[s, c] for s, c in zip(o["hands"][P]["play_seats"], o["hands"][P]["plays"])])),
    "plays_null_with_contract": _edit(0, lambda o: o["hands"][P].update(plays=None, play_seats=None)),
    "plays_without_contract": _edit(R, lambda o: o["hands"][Q].update(plays=["JH"], play_seats=[0])),
    "hand_passed_out_without_plays": _edit(R, lambda o: o["hands"][Q].__setitem__("plays", None)),
    "card_notations": _raw(lambda ls: ls[:3] + [ls[3].replace(b'"TC"', b'"10C"').replace(b'"AS"', "\"A♠\"".encode())
                                                .replace(b'"KH"', "\"roi de cœur\"".encode()).replace(b'"JH"', b'"jh"')]
                           + ls[4:]),
    "three_players_bad_score": _replace(5, b'"score":[80,42,40]', b'"score":[80,42]'),
    "three_players_card_repeated_in_a_seat": _replace(5, b'"AS"]', b'"AS","AS"]'),   # a set: still 10 cards
    "three_players_eleven_cards": _edit(5, lambda o: o["hands"][0]["hands"][0].append(o["hands"][0]["hands"][1].pop())),
    "card_lowercase_plays": _replace(3, b'"plays":["JH"', b'"plays":["jh"'),
    "turned_card_bad": _edit(0, _set(H + ["turned_card"], "11X")),
    "turned_card_number": _edit(0, _set(H + ["turned_card"], 11)),
    "tricks_taken_given": _edit(0, _set(H + ["tricks_taken"], [["JH", "9H"], [], ["7C"], ["AS", "AS"]])),
    "tricks_taken_bad": _edit(0, _set(H + ["tricks_taken"], [["JH", None]])),
    "last_trick_seat_bad": _edit(0, _set(H + ["last_trick_seat"], 9)),
    "belote_seat_minus_one": _edit(0, _set(H + ["belote_seat"], -1)),
    "belote_seat_bad": _edit(0, _set(H + ["belote_seat"], -2)),
    "carried_in_given": _edit(0, _set(H + ["carried_in"], 20)),
    "carried_in_over_int32": _edit(0, _set(H + ["carried_in"], 2**35)),
    "recorded_null_items": _edit(0, _set(H + ["recorded"], {"score": [None, 5], "card_points": [1, 2, 3],
                                                            "totals": [], "margin": -7})),
    "recorded_score_three": _edit(0, _set(H + ["recorded", "score"], [1, 2, 3])),
    "recorded_score_text": _edit(0, _set(H + ["recorded", "score"], ["1", "2"])),
    "recorded_huge": _edit(0, _set(H + ["recorded", "totals"], [2**31, 0])),
    "recorded_margin_float": _edit(0, _set(H + ["recorded", "margin"], 1.5)),
    "recorded_list": _edit(0, _set(H + ["recorded"], [])),
    "target_huge": _edit(0, _set(["target"], 2**40)),
    "target_float": _edit(0, _set(["target"], 1000.0)),
    "recorded_final_items": _edit(0, _set(["recorded_final"], [None, 3, -4])),
    "recorded_winner_big": _edit(0, _set(["recorded_winner"], 300)),
    "ruleset_hint_number": _edit(0, _set(["ruleset_hint"], 3)),
    "source_hand_id_given": _edit(0, _set(H + ["source_hand_id"], "deal-17")),
    "source_hand_id_number": _edit(0, _set(H + ["source_hand_id"], 17)),
    "announced_entries": _edit(0, _set(H + ["announced"], [
        {"seat": 0, "kind": "tierce", "cards": ["7D", "8D", "9D"]}, {"seat": 1, "kind": "carre", "cards": ["JD", "JH"]},
        {"seat": 2, "kind": "quarte", "rank": "k", "suit": "s", "length": 4}, {"seat": 3, "kind": "belote"},
        {"seat": 1, "kind": "quinte", "rank": "10", "cards": []}])),
    "announced_bad_kind": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "sixte", "rank": "A"}])),
    "announced_rank_missing": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "tierce"}])),
    "announced_rank_bad": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "tierce", "rank": "Z"}])),
    "announced_suit_substring": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "tierce", "rank": "A",
                                                                    "suit": "CD"}])),
    "announced_seat_bad": _edit(0, _set(H + ["announced"], [{"seat": 5, "kind": "belote"}])),
    "announced_length_big": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "tierce", "rank": "A",
                                                                "length": 300}])),
    "announced_bad_card": _edit(0, _set(H + ["announced"], [{"seat": 0, "kind": "tierce", "cards": ["7D", "ZZ"]}])),
    "hand_provenance_line": _edit(0, _set(H + ["provenance"], {"source_line": 12})),
    "hand_provenance_absent": _edit(0, _drop(H + ["provenance"])),
    "hand_provenance_empty": _edit(0, _set(H + ["provenance"], {})),
    "hand_provenance_null": _edit(0, _set(H + ["provenance"], None)),
    "hand_provenance_text": _edit(0, _set(H + ["provenance"], {"source_line": "12"})),
    "game_provenance_line": _edit(0, lambda o: o["provenance"].__setitem__("source_line", 40)),
    "game_provenance_null_line": _edit(0, lambda o: o["provenance"].__setitem__("source_line", None)),
    "game_provenance_null_line_hands_absent": _edit(0, lambda o: (o["provenance"].__setitem__("source_line", None),
                                                                  [h.pop("provenance") for h in o["hands"]])),
    "game_provenance_absent": _edit(0, _drop(["provenance"])),
    "game_provenance_format_null": _edit(0, lambda o: o["provenance"].__setitem__("source_format", None)),
    "game_provenance_file_absent": _edit(0, lambda o: o["provenance"].pop("source_file")),
    "spaced_json": _raw(lambda ls: [json.dumps(json.loads(ls[0])).encode() + b"\n"] + ls[1:]),
    "spaced_null_source_line_and_line": _raw(
        lambda ls: [ls[0].replace(b'"source_line":null', b'"source_line": null', 1)] + ls[1:]),
    "source_line_space_before_colon": _replace(0, b'"source_line":null', b'"source_line" :null'),
    "source_line_spaced_null_in_game": _replace(0, b'"source_file":"<simulate>"',
                                                b'"source_file":"<simulate>","source_line": null'),
    "escaped_ascii_name": _replace(3, b'"Ana"', b'"\\u0041na"'),
    "escaped_ascii_name_and_absent_errors": _raw(
        lambda ls: ls[:3] + [ls[3].replace(b'"Ana"', b'"\\u0041na"')] + ls[4:]),
    "duplicate_line": _raw(lambda ls: ls[:2] + ls[1:2] + ls[2:]),
    "same_id_other_content": _raw(lambda ls: ls + [ls[1].replace(b'"dealer":1', b'"dealer":2', 1)]),
    "very_long_line": _edit(0, _set(["padding_is_unknown"], "x" * 20_000)),
    # plays and dealt hands where they do not belong, or given twice
    "plays_at_game_level": _replace(1, b'"version":2', b'"version":2,"plays":["JH","9H"]'),
    "plays_in_contract": _replace(1, b'"contract":{', b'"contract":{"plays":["JH"],'),
    "plays_twice": _replace(1, b'"dealer":', b'"plays":["JH"],"dealer":'),
    "plays_twice_other_notation": _replace(1, b'"dealer":', b'"plays":["10H"],"dealer":'),
    "dealt_hands_twice": _replace(1, b'"dealer":', b'"hands":[["7C"],["8C"],["9C"],["TC"]],"dealer":'),
    "plays_list_in_the_game_and_in_a_hand": _replace(1, b'"players":', b'"plays":["JH"],"players":'),
    "hand_without_plays_between_two_with": _edit(0, lambda o: o["hands"][P].update(plays=None, play_seats=None)),
    "plays_unknown_card": _edit(0, lambda o: o["hands"][P]["plays"].__setitem__(3, "ZZ")),
    "plays_card_with_space": _edit(0, lambda o: o["hands"][P]["plays"].__setitem__(3, "J ")),
    "plays_card_escaped": _replace(3, b'"plays":["JH"', b'"plays":["J\\u0048"'),
    "play_seat_seven": _edit(0, lambda o: o["hands"][P]["play_seats"].__setitem__(0, 7)),
    "plays_empty_list": _edit(0, lambda o: o["hands"][P].update(plays=[], play_seats=[])),
    "name_spelling_a_plays_list": _replace(3, b'"Ana"', b'"\"plays\":[[1,\"JH\"]]"'),
    "played_at_not_a_time": _edit(0, _set(["played_at"], "yesterday")),
    "played_at_number": _edit(0, _set(["played_at"], 20260301)),
    "played_at_empty": _edit(0, _set(["played_at"], "")),
    "played_at_year_one_east_of_utc": _edit(0, _set(["played_at"], "0001-01-01T00:30:00+01:00")),
    "carried_in_int32_max": _edit(0, _set(H + ["carried_in"], 2**31 - 1)),
    "carried_in_negative": _edit(0, _set(H + ["carried_in"], -500)),
    "carried_in_at_the_bound": _edit(0, _set(H + ["carried_in"], 100_000)),
    "source_game_id_empty": _edit(0, _set(["source_game_id"], "")),
    "played_at_twice": _replace(1, b'"version":2', b'"version":2,"played_at":"2026-01-01","played_at":"2026-01-02"'),
    # a key repeated with null after a canonical list: the row path (json, last key wins) reads no plays or no
    # dealt hands; the list was read as a text under another key, so the columnar path kept it (line 3, hand 1 of
    # hw1: its keys are in native_hand's order, so the first "recorded" and "auction" follow its plays and hands)
    "plays_repeated_null_after_the_list": _replace(3, b'"recorded":', b'"plays":null,"recorded":'),
    "plays_repeated_spaced_null_after_the_list": _replace(3, b'"recorded":', b'"plays": null,"recorded":'),
    "hands_repeated_null_after_the_list": _replace(3, b'"auction":', b'"hands":null,"auction":'),
    "plays_repeated_null_with_tabs_and_spaces": _replace(3, b'"recorded":', b'"plays"\t :  \tnull,"recorded":'),
    "hands_repeated_null_with_a_cr": _replace(3, b'"auction":', b'"hands":\rnull,"auction":'),
    "plays_repeated_null_before_the_list": _replace(3, b'"plays":[[', b'"plays":null,"plays":[['),
    "plays_null_at_game_level": _replace(1, b'"version":2', b'"version":2,"plays":null'),
    "hands_null_in_contract": _replace(3, b'"contract":{', b'"contract":{"hands":null,'),
    # found by trying to break version 2 (issue 19): a negative seat number read another seat's hand (or past the
    # arrays: a segfault of the compiled check); checks of the row path the columnar one lacked
    "play_seat_very_negative": _edit(0, lambda o: o["hands"][P]["play_seats"].__setitem__(0, -2**40)),
    "deal_level_hand_with_an_auction": _edit(0, _set(H + ["completeness"], "deal")),
    "three_players_one_card_each": _edit(5, lambda o: o["hands"][0].update(
        hands=[[s[0]] for s in o["hands"][0]["hands"]], plays=[s[0] for s in o["hands"][0]["hands"]],
        play_seats=[0, 1, 2])),
    "played_at_after_year_9999_in_utc": _edit(0, _set(["played_at"], "9999-12-31T23:59:59-01:00")),
    "version_as_float": _edit(0, _set(["version"], 2.0)),
    "provenance_a_list": _edit(0, _set(["provenance"], [])),
    "hand_provenance_false": _edit(0, _set(H + ["provenance"], False)),
}


def test_exported_single_deal_games_are_matched_by_deal_as_the_row_path_does(tmp_path, monkeypatch):
    # an export of colver CFN games (provenance.source_format "colver-cfn", one hand each) is matched by deal against
    # its copies (copy_checks.CopyChecks.same_deal): the columnar path leaves such lines to the row path (it kept both copies)
    g = json.loads(_base()[0])
    one = dict(g, hands=[dict(g["hands"][P], hand_no=1)], provenance={"source_format": "colver-cfn",
                                                                      "source_file": "x.cfn"})
    other = dict(one, source_game_id="other", game_id="simulate:other")
    f = _write(tmp_path, "cfn.jsonl", [orjson.dumps(one) + b"\n", orjson.dumps(other) + b"\n"])
    rows, _ = _ingest([f], tmp_path / "rows", "rows", monkeypatch, 4096, 50_000)
    cols, fallback = _ingest([f], tmp_path / "cols", "columnar", monkeypatch, 4096, 50_000)
    assert fallback == 2
    for key in ("summary", "messages", "hands", "games", "rejects"):      # (the files are flushed elsewhere)
        assert cols[key] == rows[key], key
    assert rows["summary"][1:3] == (1, 1)        # one game of one hand: the second line is a copy of its deal


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_damaged_file_gives_the_same_lake_and_rejects(tmp_path, monkeypatch, name):
    lines = CORRUPTIONS[name](_base())
    f = _write(tmp_path, "damaged.jsonl", lines)
    same_lake(tmp_path, monkeypatch, [f], block=3000, flush=13)


def test_damage_is_rejected_with_its_reason(tmp_path, monkeypatch):
    # spot checks that the comparison above compares real rejects (codes from validate.py / native.py)
    for name, code in [("unknown_card", "unknown_card"), ("card_played_twice", "card_played_twice"),
                       ("seven_card_hand", "wrong_hand_size"), ("invalid_json_line", "invalid_json"),
                       ("hand_no_as_float", "bad_field"), ("same_id_other_content", "duplicate_game_id"),
                       # "plays"/"hands" written twice: ambiguous, rejected naming the key (issue 18), by both paths
                       ("plays_repeated_null_after_the_list", "duplicate_key"),
                       # a game without "version" said "unsupported native format version None"
                       ("version_missing", "missing_field"),
                       ("hands_repeated_null_after_the_list", "duplicate_key")]:
        f = _write(tmp_path, f"{name}.jsonl", CORRUPTIONS[name](_base()))
        cols, _ = same_lake(tmp_path, monkeypatch, [f])
        assert [r["reason_code"] for r in cols["rejects"]] == [code], name


def test_the_undamaged_sample_is_read_as_columns(tmp_path, monkeypatch):
    cols, fallback = same_lake(tmp_path, monkeypatch, [_write(tmp_path, "base.jsonl", _base())])
    assert fallback == 0
    # 3 simulated games, 2 hand-written 4-player games and 1 three-player game
    assert cols["summary"][1] == 6
    three = [h for h in cols["hands"] if h["game_id"] == "test:three"]
    assert [(h["n_players"], len(h["plays"]), h["recorded_score"]) for h in three] == [(3, 30, [80, 42, 40])]


def test_lines_the_row_path_reads_are_only_the_damaged_ones(tmp_path, monkeypatch):
    lines = CORRUPTIONS["card_played_twice"](_base())
    f = _write(tmp_path, "d.jsonl", lines)
    _, fallback = same_lake(tmp_path, monkeypatch, [f], block=1 << 20)
    assert fallback == 1


@pytest.mark.parametrize("content", [b"", b"\n\n", b"\xef\xbb\xbf", b"   \n\t\n", b'\n{"format": "rebelote"}\n'])
def test_empty_and_near_empty_files(tmp_path, monkeypatch, content):
    f = _write(tmp_path, "empty.jsonl", content)
    same_lake(tmp_path, monkeypatch, [f])


def test_gzip_and_truncated_gzip(tmp_path, monkeypatch):
    data = b"".join(_base() + _simulated("bulgarian", 4, seed=9))
    gz = tmp_path / "games.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    cols, fallback = same_lake(tmp_path, monkeypatch, [gz], block=2000)
    assert fallback == 0
    for cut in (0.3, 0.6, 0.95):
        bad = tmp_path / f"cut-{cut}.jsonl.gz"
        bad.write_bytes(gzip.compress(data)[: int(len(gzip.compress(data)) * cut)])
        cols, _ = same_lake(tmp_path, monkeypatch, [bad], block=2000)
        assert "unreadable_file" in cols["summary"][4]


def test_strict_stops_at_the_same_record(tmp_path, monkeypatch):
    lines = _base() + CORRUPTIONS["card_not_held"](_base())[:1] + _base()
    f = _write(tmp_path, "s.jsonl", lines)
    cols, _ = same_lake(tmp_path, monkeypatch, [f], block=2500, flush=3, strict=True)
    assert cols["summary"][0] == "strict" and "card_not_held" in cols["summary"][1]


def test_memory_is_bounded_by_the_block(tmp_path, monkeypatch):
    lines = _simulated("belote-classic", 12)
    f = _write(tmp_path, "m.jsonl", lines)
    sizes = []
    real = fast_native._block
    monkeypatch.setattr(fast_native, "_block", lambda ls, *a: (sizes.append(int(ls.starts[-1])), real(ls, *a)))
    same_lake(tmp_path, monkeypatch, [f], block=5000)
    longest = max(map(len, lines))
    assert len(sizes) >= len(lines) // 2 and max(sizes) < 5000 + longest


def _random_case(tmp_path_factory, monkeypatch, ops, block, flush, seed) -> None:
    tmp = tmp_path_factory.mktemp("fastnative")
    rules = ["belote-classic", "ffb-coinche-2015", "bulgarian", "belote-2p"][seed]
    data = mutate(b"".join(_simulated(rules, 3, seed) + _handwritten() + [_three_players()]), ops)
    f = _write(tmp, "r.jsonl", data)
    with monkeypatch.context() as m:
        same_lake(tmp, m, [f], block=block, flush=flush)


_RANDOM = dict(ops=st.lists(mutation, min_size=0, max_size=3), block=st.integers(min_value=1, max_value=40_000),
               flush=st.integers(min_value=1, max_value=80), seed=st.integers(min_value=0, max_value=3))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**_RANDOM)
def test_random_damage_and_block_sizes(tmp_path_factory, monkeypatch, ops, block, flush, seed):
    _random_case(tmp_path_factory, monkeypatch, ops, block, flush, seed)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**_RANDOM)
def test_random_damage_and_block_sizes_long(tmp_path_factory, monkeypatch, ops, block, flush, seed):
    _random_case(tmp_path_factory, monkeypatch, ops, block, flush, seed)


@pytest.mark.bench
def test_bench_native_ingest_columnar_against_rows(tmp_path, capsys):
    """On demand (`pytest -m bench`): both paths on 2,000 simulated classic games (~18 MB). For the 216 MB
    figures use `python benchmarks/ingest_native.py --rows`."""
    from pipeline.simulate.games import simulate_to_file
    f = tmp_path / "bench.jsonl"
    games, hands = simulate_to_file("belote-classic", 2000, 7, f)
    from pipeline.bench.native_ingest import measure
    cols = measure(f)
    rows = measure(f, rows=True)
    assert (cols["games"], cols["hands"]) == (rows["games"], rows["hands"]) == (games, hands)
    with capsys.disabled():
        for r in (cols, rows):
            print(f"\ningest native [{r['path']}]: {r['bytes'] / 1e6:.1f} MB, {r['seconds']:.2f} s, "
                  f"{r['mb_per_s']:.1f} MB/s, {r['hands_per_s']:,} hands/s")


def test_measure_parse_reads_every_clean_line_as_columns(tmp_path):
    # the sample's 6 lines (3 simulated, 3 hand-written games) are all parsed as columns by the parse stage
    f = _write(tmp_path, "base.jsonl", _base())
    m = fast_native.measure_parse(f)
    assert (m["rows"], m["bytes"]) == (6, f.stat().st_size)
    assert m["seconds"] > 0 and m["mb_per_s"] > 0


# ------------------------------------------------------------------------------------------ worker processes

def test_worker_processes_give_the_same_lake(tmp_path, monkeypatch):
    # the damaged lines of every case of CORRUPTIONS in one file, then the clean games, read by 2 forked workers in
    # 3 kB blocks:
    # the lake, the rejects and their messages (in order) are the row path's
    base = set(_base())
    lines = [ln for name in sorted(CORRUPTIONS) for ln in CORRUPTIONS[name](_base()) if ln not in base] + _base()
    f = _write(tmp_path, "damaged.jsonl", lines)
    cols, fallback = same_lake(tmp_path, monkeypatch, [f], block=3000, flush=13, workers=2)
    assert cols["rejects"] and fallback > 0
    clean = _write(tmp_path, "clean.jsonl", _base() + _simulated("ffb-coinche-2015", 3))
    cols, fallback = same_lake(tmp_path, monkeypatch, [clean], block=5000, flush=7, workers=2)
    assert fallback == 0 and cols["summary"][1] == 9         # 6 games of the sample, 3 simulated


def test_worker_processes_gzip_truncated_gzip_and_strict(tmp_path, monkeypatch):
    data = b"".join(_base() + _simulated("bulgarian", 4, seed=9))
    gz = tmp_path / "games.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    cols, fallback = same_lake(tmp_path, monkeypatch, [gz], block=2000, workers=2)
    assert fallback == 0 and cols["summary"][1] == 10        # 6 + 4 games
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(data)[: len(gzip.compress(data)) * 2 // 3])
    cols, _ = same_lake(tmp_path, monkeypatch, [cut], block=2000, workers=2)
    assert "unreadable_file" in cols["summary"][4]
    lines = _base() + CORRUPTIONS["card_not_held"](_base())[:1] + _base()
    cols, _ = same_lake(tmp_path, monkeypatch, [_write(tmp_path, "s.jsonl", lines)], block=2500, flush=3,
                        strict=True, workers=2)
    assert cols["summary"][0] == "strict" and "card_not_held" in cols["summary"][1]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**_RANDOM)
def test_random_damage_with_worker_processes(tmp_path_factory, monkeypatch, ops, block, flush, seed):
    tmp = tmp_path_factory.mktemp("fastnative-pool")
    rules = ["belote-classic", "ffb-coinche-2015", "bulgarian", "belote-2p"][seed]
    data = mutate(b"".join(_simulated(rules, 3, seed) + _handwritten() + [_three_players()]), ops)
    with monkeypatch.context() as m:
        same_lake(tmp, m, [_write(tmp, "r.jsonl", data)], block=block, flush=flush, workers=2)


def test_blocks_of_a_stream_that_is_not_a_file(tmp_path):
    # a plain file is read with pread, any other binary stream in turn: the same blocks (line numbers, line
    # counts, bytes), here over the sample cut in blocks of 2,500 bytes
    data = b"".join(_base())
    f = _write(tmp_path, "s.jsonl", data)
    with f.open("rb") as fh:
        by_file = [(b.lineno, b.n, b.end) for b in native_blocks.blocks(fh, 2500)]
    by_stream = [(b.lineno, b.n, b.end) for b in native_blocks.blocks(io.BytesIO(data), 2500)]
    assert by_file == by_stream and sum(n for _, n, _ in by_file) == len(_base())


# ------------------------------------------------------------------------------------------ plain Python kernels

@pytest.mark.parametrize("rules", ["belote-classic", "ffb-coinche-2015", "bulgarian", "belote-2p"])
def test_plain_python_kernels_give_the_row_paths_lake(tmp_path, monkeypatch, rules):
    # a file below kernels.COMPILED_MIN_BYTES runs the numba kernels' own Python functions: every clean line is
    # still read as columns (no converter error: REBELOTE_NATIVE_DEBUG is set) and the lake is the row path's
    lines = _simulated(rules, 4, seed=11) + _base()          # other game ids than the sample's seed 3
    f = _write(tmp_path, "small.jsonl", lines)
    cols, fallback = same_lake(tmp_path, monkeypatch, [f], compiled=False)
    assert fallback == 0 and cols["summary"][1] == 10        # 4 simulated games and the 6 of the sample


def test_plain_python_kernels_on_every_damage(tmp_path, monkeypatch):
    # the damaged lines of every case of CORRUPTIONS in one file, then the sample, in 3 kB blocks: the rejects,
    # their messages and the lake are the row path's, as with the compiled kernels
    base = set(_base())
    lines = [ln for name in sorted(CORRUPTIONS) for ln in CORRUPTIONS[name](_base()) if ln not in base] + _base()
    f = _write(tmp_path, "damaged.jsonl", lines)
    plain, fallback = same_lake(tmp_path, monkeypatch, [f], block=3000, flush=13, compiled=False)
    compiled, fallback_compiled = same_lake(tmp_path, monkeypatch, [f], block=3000, flush=13)
    assert plain["rejects"] and fallback == fallback_compiled > 0


def test_small_files_use_plain_python_kernels(tmp_path, monkeypatch):
    # the size rule itself: below COMPILED_MIN_BYTES (bytes as stored) no compiled kernel is called
    monkeypatch.setenv(fast_native.DEBUG_ENV, "1")
    f = _write(tmp_path, "small.jsonl", _base())
    called = []
    real = kernels.pure
    monkeypatch.setattr(kernels, "pure", lambda k: called.append(k.py_func.__name__) or real(k))
    s = ingest_paths([f], tmp_path / "lake")
    assert s.games == 6 and {"_masks_kernel", "plays_ok"} <= set(called)
    assert kernels.compiled()                  # the mode is restored after the file
    assert kernels.use_compiled(None) and kernels.use_compiled(kernels.COMPILED_MIN_BYTES)
    assert not kernels.use_compiled(kernels.COMPILED_MIN_BYTES - 1)


def test_block_pool_leaves_no_block_folder_when_its_workers_cannot_start(tmp_path, monkeypatch):
    """A pool whose workers fail to start (here: the first submit raises, as a fork refused for memory would)
    raises that error and removes its block folder, which no context manager would remove yet."""
    made: list[str] = []
    real_mkdtemp = native_pool.tempfile.mkdtemp

    def mkdtemp(**kw):
        made.append(real_mkdtemp(**dict(kw, dir=str(tmp_path))))
        return made[-1]

    class NoFork(native_pool.ProcessPoolExecutor):
        def submit(self, *a, **kw):
            raise OSError("fork refused")

    monkeypatch.setattr(native_pool.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(native_pool, "ProcessPoolExecutor", NoFork)
    with pytest.raises(OSError, match="fork refused"):
        native_pool.BlockPool(2)
    assert len(made) == 1 and not Path(made[0]).exists()


def test_big_native_file_is_hashed_for_the_manifest_after_the_workers_fork(tmp_path, monkeypatch):
    # the manifest's content hash of a file the worker processes read is computed on a thread started once they
    # are forked (a thread inside OpenSSL while they fork could leave them a held lock; waiting for the hash
    # first left one core idle for 0.8 s of a 9 s import): same digest as hashlib's, started after the fork
    f = _write(tmp_path, "big.jsonl", _base())
    monkeypatch.setenv(native_pool.WORKERS_ENV, "2")
    monkeypatch.setattr(native_pool, "POOL_MIN_BYTES", 0)
    events: list[str] = []
    real_init, real_hash = native_pool.BlockPool.__init__, input_files.hash_later

    def init(self, n):
        real_init(self, n)
        events.append("forked")

    def hash_later(path):
        events.append("hash started")
        return real_hash(path)
    monkeypatch.setattr(native_pool.BlockPool, "__init__", init)
    monkeypatch.setattr(input_files, "hash_later", hash_later)
    lake = tmp_path / "lake"
    s = ingest_paths([f], lake)
    assert s.games == len(_base()) and events == ["forked", "hash started"]
    [entry] = input_files.load_manifest(lake).values()
    assert entry[3] == hashlib.sha256(f.read_bytes()).hexdigest()
    assert ingest_paths([f], lake).unchanged == 1           # the manifest recognises it: not read again


def test_a_failed_read_leaves_no_hash_thread_running(tmp_path, monkeypatch):
    # the file's hash thread starts once the workers are forked; when the read then fails (a reader_error reject),
    # the import of that file still waits for the hash, so no thread is inside OpenSSL when the next file forks
    import threading
    import time
    f = _write(tmp_path, "big.jsonl", _base())
    monkeypatch.setenv(native_pool.WORKERS_ENV, "2")
    monkeypatch.setattr(native_pool, "POOL_MIN_BYTES", 0)
    started: list = []

    def slow_hash(path):
        fut = Future()
        t = threading.Thread(target=lambda: (time.sleep(1.0), fut.set_result("x" * 64)))
        t.start()
        started.append((fut, t))
        return fut

    def failing_read(fh, path, writer, take, block_bytes=None, size=None, forked=None, bounds=None):
        forked()
        raise RuntimeError("a reader bug")
    monkeypatch.setattr(input_files, "hash_later", slow_hash)
    monkeypatch.setattr(fast_native, "read_into", failing_read)
    s = ingest_paths([f], tmp_path / "lake")
    assert s.rejected == {"reader_error": 1}
    [(fut, _)] = started
    assert fut.done()


def test_a_game_without_version_names_the_missing_field(tmp_path, monkeypatch):
    # native.py checked the version's value first: a game without one read "unsupported native format version None"
    f = _write(tmp_path, "noversion.jsonl", CORRUPTIONS["version_missing"](_base()))
    cols, _ = same_lake(tmp_path, monkeypatch, [f])
    assert cols["messages"] == [f"{f}:1, game {json.loads(_base()[0]).get('game_id', 'simulate:1')}: missing field "
                                "'version' (the native format's version, 2) [missing_field]"]
