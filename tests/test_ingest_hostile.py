"""Quirks a hostile tester found in the ingest of native JSON Lines files (issue #4), one test each, named after
the quirk. The games are the hand-built deals of tests/deals.py; expected rows and reasons are written out by hand
from the records each test builds."""

import os
import time

import orjson
import pytest

from conftest import write_jsonl
from deals import DEAL_A, DEAL_L, native_game, native_hand
from pipeline.storage import lake as lakemod
from pipeline.ingest import fast_native, native_pool
from pipeline.ingest.run import ingest_paths

REJECT_COLS = ("source_line", "game_id", "hand_no", "reason_code", "reason")


def _rejects(lake):
    if not lakemod.has_table(lakemod.locate(lake), "rejects"):
        return []
    return sorted(tuple(r[c] for c in REJECT_COLS) for r in lakemod.read(lake, "rejects").to_pylist())


def _hands(lake):
    return {(h["game_id"], h["hand_no"]): h for h in lakemod.read(lake, "hands").to_pylist()}


@pytest.fixture(params=["columnar", "rows"])
def native_path(request, monkeypatch):
    """Both native readers (the columnar one hands the lines it cannot vouch for to the row reader)."""
    monkeypatch.setenv(fast_native.ENV, request.param)
    return request.param


def test_passed_out_hand_with_empty_plays_list_imports_as_passed_out(tmp_path, native_path):
    # hand 2 is passed out (contract null): "plays": [] must read exactly as a missing "plays" key
    taken = native_hand(DEAL_A, 1, taker=0)
    passed = native_hand(DEAL_L, 2, taker=None)
    passed["auction"] = [[0, "pass"], [1, "pass"], [2, "pass"], [3, "pass"]]
    empty = native_game("p", [taken, dict(passed, plays=[])])
    absent = native_game("p", [taken, {k: v for k, v in passed.items() if k != "plays"}])
    f1, f2 = write_jsonl(tmp_path / "empty.jsonl", [empty]), write_jsonl(tmp_path / "absent.jsonl", [absent])
    s = ingest_paths([f1], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected)) == (1, 2, {})
    ingest_paths([f2], tmp_path / "lake2")
    got, want = _hands(tmp_path / "lake")[("test:p", 2)], _hands(tmp_path / "lake2")[("test:p", 2)]
    assert (got["taker"], got["plays"], got["play_seats"]) == (None, None, None)
    assert got["hand_key"] == want["hand_key"]      # the same hand, whichever way it was written


def test_taken_hand_with_empty_plays_list_stays_a_reject_naming_the_hand(tmp_path, native_path):
    # a hand with a contract and no card played is a truncated full_play record (validate.check_hand)
    bad = native_hand(DEAL_A, 1, taker=0)
    bad["plays"] = []
    f = write_jsonl(tmp_path / "e.jsonl", [native_game("e", [bad])])
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands) == (0, 0)
    assert _rejects(tmp_path / "lake") == [(1, "test:e", 1, "truncated_play", "0 cards played, expected 32")]


def test_cr_only_line_ends_are_read_as_line_ends(tmp_path, native_path):
    # two games, lines ended by CR alone (old Mac): read as the same file with LF line ends, same byte offsets
    games = [native_game("m1", [native_hand(DEAL_A, 1, taker=0)]), native_game("m2", [native_hand(DEAL_L, 1, 2)])]
    body = [orjson.dumps(g) for g in games]
    mac, unix = tmp_path / "mac.jsonl", tmp_path / "unix.jsonl"
    mac.write_bytes(b"\r".join(body) + b"\r")
    unix.write_bytes(b"\n".join(body) + b"\n")
    s = ingest_paths([mac], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected), s.cr_files) == (2, 2, {}, [str(mac)])
    assert str(s).endswith("; 1 file with old Mac line ends (CR alone) read with CR as the line end")
    u = ingest_paths([unix], tmp_path / "lake2")
    assert u.cr_files == []
    got = {k: (h["hand_key"], h["source_line"]) for k, h in _hands(tmp_path / "lake").items()}
    want = {k: (h["hand_key"], h["source_line"]) for k, h in _hands(tmp_path / "lake2").items()}
    assert got == want == {("test:m1", 1): (want[("test:m1", 1)][0], 1), ("test:m2", 1): (want[("test:m2", 1)][0], 2)}


def test_crlf_line_ends_are_not_taken_for_cr_only(tmp_path):
    games = [native_game("w1", [native_hand(DEAL_A, 1, taker=0)]), native_game("w2", [native_hand(DEAL_L, 1, 2)])]
    f = tmp_path / "windows.jsonl"
    f.write_bytes(b"".join(orjson.dumps(g) + b"\r\n" for g in games))
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected), s.cr_files) == (2, 2, {}, [])


def test_truncated_last_line_reject_names_its_game(tmp_path, native_path):
    whole = orjson.dumps(native_game("t1", [native_hand(DEAL_A, 1, taker=0)]))
    cut = orjson.dumps(native_game("t2", [native_hand(DEAL_L, 1, taker=2)]))[:300]    # cut inside hand 1
    f = tmp_path / "cut.jsonl"
    f.write_bytes(whole + b"\n" + cut)
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands) == (1, 1)
    # orjson's words for a text that stops inside the object: line 1, column 301 (char 300) of the cut line
    assert _rejects(tmp_path / "lake") == [
        (2, "test:t2", None, "invalid_json", "invalid JSON: unexpected end of data: line 1 column 301 (char 300)")]


def test_truncated_line_game_id_from_game_id_key_or_numeric_source_game_id(tmp_path):
    from pipeline.formats.native_jsonl import game_id_in_prefix
    assert game_id_in_prefix('{"format":"rebelote","game_id":"x:\\"y\\"","source":"s","hands":[{') == 'x:"y"'
    assert game_id_in_prefix('{"format": "rebelote", "source": "club", "source_game_id": 17, "hands": [') == "club:17"
    assert game_id_in_prefix('{"format":"rebelote","source":"club","sour') is None
    # a "source" key inside a hand is not the game's
    assert game_id_in_prefix('{"format":"rebelote","hands":[{"source":"a","source_game_id":"b"') is None


def test_bad_variant_reject_names_the_game_not_hand_1(tmp_path, native_path):
    f = write_jsonl(tmp_path / "v.jsonl", [native_game("v", [native_hand(DEAL_A, 1, taker=0)], variant="blotto")])
    seen = []
    s = ingest_paths([f], tmp_path / "lake", on_reject=seen.append)
    assert dict(s.rejected) == {"bad_value": 1}
    reason = "variant 'blotto' is not one of belote, coinche, bulgarian, belote-2p, belote-3p"
    assert _rejects(tmp_path / "lake") == [(1, "test:v", None, "bad_value", reason)]
    assert [r.message() for r in seen] == [f"{f}:1, game test:v: {reason} [bad_value]"]


def _dying_work(src, end, lineno, offset, path, out_dir):
    """native_pool._work, except that the worker process converting a block after the first one exits (as if
    killed), once the first block's worker has finished and a moment more for its result to reach the parent
    (so the block the pool breaks on is always the second). Module-level, so the forked workers can unpickle
    it."""
    done = os.path.join(out_dir, "first-block-done")
    if lineno > 1:
        for _ in range(500):
            if os.path.exists(done):
                break
            time.sleep(0.01)
        time.sleep(0.3)
        os._exit(3)
    out = _REAL_WORK(src, end, lineno, offset, path, out_dir)
    open(done, "w").close()
    return out


_REAL_WORK = native_pool._work


def test_dead_ingest_worker_falls_back_to_this_process(tmp_path, monkeypatch):
    # 40 games, one per line, in blocks of about 4 KB: the workers take the blocks, and every block after the
    # first kills its worker. The file must still import whole, as a one-process ingest imports it.
    from test_fast_native import v2
    # version 2: a version 1 file is read by the row path, in this process, from its first line
    games = [v2(native_game(f"k{i:02d}", [native_hand(DEAL_A if i % 2 else DEAL_L, 1, taker=i % 4)])) for i in range(40)]
    f = write_jsonl(tmp_path / "big.jsonl", games)
    one = ingest_paths([f], tmp_path / "one")          # files under POOL_MIN_BYTES: read in this process
    assert (one.games, one.hands, one.workers_lost) == (40, 40, [])
    monkeypatch.setattr(native_pool, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(fast_native, "BLOCK_BYTES", 4096)
    monkeypatch.setenv(native_pool.WORKERS_ENV, "2")
    monkeypatch.setattr(native_pool, "_work", _dying_work)
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected)) == (40, 40, {})
    (lost,) = s.workers_lost
    first = 4096 // len(orjson.dumps(games[0]) + b"\n") + 1       # the first line of the second block
    assert lost == f"{f} (from line {first})"
    assert f"; an ingest worker process died reading 1 file, read on in this process instead: {lost}" in str(s)
    key = lambda t: sorted(zip(t.column("hand_key").to_pylist(), t.column("source_line").to_pylist()))
    assert key(lakemod.read(tmp_path / "lake", "hands")) == key(lakemod.read(tmp_path / "one", "hands"))


@pytest.mark.parametrize("head, rest, expected", [
    (b'{"a":1}\r{"b":2}\r', b"", True),          # CR line ends
    (b'{"a":1}\r\n{"b":2}\r\n', b"", False),     # CR LF: a line feed ends each line already
    (b'{"a":1}\r{"b":2}\n', b"", False),         # mixed: a line feed in the head, never translated
    (b'{"a":', b'1}\r{"b":2}', True),            # no line end in the head: read on to the first one
    (b'{"a":1}\r', b'\n{"b":2}', False),         # the head ends between the CR and the LF of a CR LF
    (b'{"a":1}', b"", False),                    # one line, no line end at all
])
def test_cr_only_detection(head, rest, expected):
    import io

    from pipeline.ingest.line_ends import cr_only
    assert cr_only(head, io.BytesIO(rest)) is expected


def test_truncated_last_line_cut_inside_a_multibyte_character_is_invalid_json_naming_its_game(tmp_path, native_path):
    # A file cut in the middle of "è" (UTF-8 C3 A8) of a player's name: its last line is a line cut short, as if it
    # stopped on an ASCII byte (docs/ingest.md: "rejected as invalid_json with the game id its start still
    # shows"), not a line in another encoding (bad_encoding named no game).
    whole = orjson.dumps(native_game("t1", [native_hand(DEAL_A, 1, taker=0)]))
    line2 = orjson.dumps(native_game("t2", [native_hand(DEAL_L, 1, taker=2)], players=("Ana", "Ben", "Gisèle", "Dan")))
    i = line2.index("è".encode())
    f = tmp_path / "cut.jsonl"
    f.write_bytes(whole + b"\n" + line2[:i + 1])          # keeps C3, drops A8 and the rest
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands) == (1, 1)
    # the i bytes before "è" are ASCII, so orjson stops at character i of the whole part: column i + 1 (char i)
    assert _rejects(tmp_path / "lake") == [
        (2, "test:t2", None, "invalid_json",
         f"invalid JSON: unexpected end of data: line 1 column {i + 1} (char {i}); "
         "the line stops inside a multi-byte UTF-8 character (cut short)")]


def test_latin1_byte_inside_a_line_reject_names_its_game(tmp_path, native_path):
    # "Gis\xe8le" is Latin-1: the line is not UTF-8 (bad_encoding), but its start shows the game it holds
    whole = orjson.dumps(native_game("t1", [native_hand(DEAL_A, 1, taker=0)]))
    line2 = orjson.dumps(native_game("t2", [native_hand(DEAL_L, 1, taker=2)], players=("Ana", "Ben", "Gisèle", "Dan")))
    f = tmp_path / "latin1.jsonl"
    f.write_bytes(whole + b"\n" + line2.replace("è".encode(), b"\xe8") + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands) == (1, 1)
    assert _rejects(tmp_path / "lake") == [
        (2, "test:t2", None, "bad_encoding", "line is not valid UTF-8 text (is the file in another encoding?)")]
    raw = lakemod.read(tmp_path / "lake", "rejects").to_pylist()[0]["raw"]
    assert "Gis\xe8le" in raw          # the line's bytes, read as Latin-1 (one character a byte)


def test_pipe_named_on_the_command_line_is_a_usage_error_not_an_empty_file(tmp_path):
    # `rebelote ingest <(zcat games.jsonl.gz)` names a pipe: detection read its head, the import found it empty and
    # rejected it as no_records (a reason about the file's content, which was fine). A named FIFO with no writer
    # hung the ingest. Now both stop before reading, with exit status 2 (docs/ingest.md: usage or I/O error).
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.ingest.input_files import NotRegularFileError
    fifo = tmp_path / "games.jsonl"
    os.mkfifo(fifo)                  # no writer: opening it would block; stat() does not
    with pytest.raises(NotRegularFileError, match="games.jsonl: not a regular file"):
        ingest_paths([fifo], tmp_path / "lake")
    r = CliRunner().invoke(app, ["ingest", str(fifo), "--lake", str(tmp_path / "lake")])
    assert r.exit_code == 2
    assert "not a regular file (a pipe, socket or device)" in " ".join(r.output.split())
    assert not (tmp_path / "lake").exists() or not lakemod.has_table(tmp_path / "lake", "rejects")
    # inside a folder a pipe is skipped, as before (a folder's files are the regular ones)
    d = tmp_path / "in"
    d.mkdir()
    os.mkfifo(d / "p.jsonl")
    write_jsonl(d / "g.jsonl", [native_game("g", [native_hand(DEAL_A, 1, taker=0)])])
    s = ingest_paths([d], tmp_path / "lake2")
    assert (s.files, s.games, s.hands) == (1, 1, 1)


def test_wrong_format_forced_on_an_imported_file_keeps_its_rows(tmp_path):
    # `ingest a.jsonl --format colver` on a native file already imported: the colver reader rejects its line
    # (bad_record), and the file's 2 hands left the lake as "superseded (edited or removed)" though
    # its bytes never changed. A read that detection disputes (its rejects say "drop --format") removes nothing.
    f = write_jsonl(tmp_path / "a.jsonl", [native_game("g", [native_hand(DEAL_A, 1, taker=0),
                                                              native_hand(DEAL_L, 2, taker=1)])])
    lake = tmp_path / "lake"
    assert ingest_paths([f], lake).hands == 2
    notes = []
    s = ingest_paths([f], lake, fmt="colver", on_notice=notes.append)
    assert (s.hands, s.replaced, dict(s.rejected)) == (0, 0, {"bad_record": 1})
    assert sorted(_hands(lake)) == [("test:g", 1), ("test:g", 2)]
    assert notes == [f"{f}: read with --format colver, which detection disputes (it reads this file as "
                     "'rebelote'): nothing the file gave before is removed"]
    # the next read without --format clears the colver reject, still with both hands
    s = ingest_paths([f], lake)
    assert (s.hands, s.replaced, dict(s.rejected), s.rejects_cleared) == (0, 0, {}, 1)
    assert sorted(_hands(lake)) == [("test:g", 1), ("test:g", 2)] and _rejects(lake) == []


@pytest.mark.parametrize("codec, words", [("utf-16-le", "little-endian"), ("utf-16-be", "big-endian")])
def test_utf16_without_byte_order_mark_is_named_not_unrecognised(tmp_path, codec, words):
    # Windows tools write UTF-16 without a BOM too; such a file was "not recognised (use --format to force a
    # reader)", and forcing a reader gave one bad_encoding or invalid_json reject a line. Its bytes say what it
    # is (every other byte 0 in ASCII text), so it is rejected once, as a UTF-16 file with a BOM is.
    f = tmp_path / "u16.jsonl"
    f.write_bytes(orjson.dumps(native_game("u", [native_hand(DEAL_A, 1, taker=0)])).decode().encode(codec) +
                  "\n".encode(codec))
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.hands, s.unrecognised, dict(s.rejected)) == (0, [], {"bad_encoding": 1})
    assert _rejects(tmp_path / "lake") == [
        (None, None, None, "bad_encoding", f"the file is UTF-16 text ({words}, no byte-order mark); convert it to UTF-8")]


def test_cr_only_head_then_crlf_lines_keep_the_editor_line_numbers(tmp_path, native_path):
    # A file whose head (the first 64 KiB, input_files.HEAD_BYTES) ends its lines in CR alone is read with CR as the line
    # end; when later lines end in CR LF (a file appended to on another system), each CR LF became two line ends
    # (LF, LF): the blank line between them shifted every later line number by one (the last game, on line n + 2
    # in an editor, was reported on line n + 3). Only a bare CR (not followed by LF) is a line end to translate.
    from pipeline.ingest.input_files import HEAD_BYTES
    body = [orjson.dumps(native_game(f"m{i}", [native_hand(DEAL_A, 1, taker=0)])) for i in range(1, 200)]
    n = next(k for k in range(len(body)) if sum(len(b) + 1 for b in body[:k]) > HEAD_BYTES)   # CR lines 1..n
    f = tmp_path / "mixed.jsonl"
    f.write_bytes(b"\r".join(body[:n]) + b"\r" + body[n] + b"\r\n" + body[n + 1] + b"\r\n"
                  + b'{"format":"rebelote","source":"test","source_game_id":"cut","hands":[\r\n')
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands, s.cr_files) == (n + 2, n + 2, [str(f)])
    lines = {k: h["source_line"] for k, h in _hands(tmp_path / "lake").items()}
    assert (lines[(f"test:m{n}", 1)], lines[(f"test:m{n + 1}", 1)], lines[(f"test:m{n + 2}", 1)]) == (n, n + 1, n + 2)
    (rej,) = _rejects(tmp_path / "lake")
    assert rej[:4] == (n + 3, "test:cut", None, "invalid_json")


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 16])
def test_cr_translation_keeps_crlf_across_read_boundaries(chunk):
    # every bare CR becomes LF, a CR LF stays, one byte for one byte, whatever the read sizes (a CR ending a chunk
    # is checked against the next byte); expected: the data with each CR not followed by LF replaced by hand
    import io

    from pipeline.ingest.line_ends import _CrToLf
    data = b"a\rb\r\nc\r\r\nd\r\re\r"
    want = b"a\nb\r\nc\n\r\nd\n\ne\n"
    raw, out = _CrToLf(io.BytesIO(data)), b""
    while True:
        buf = bytearray(chunk)
        k = raw.readinto(buf)
        if not k:
            break
        out += bytes(buf[:k])
    assert out == want


def test_folder_holding_the_lake_does_not_read_the_lake_files(tmp_path):
    # `rebelote ingest .` with the default lake ./rebelote-lake: the folder walk went into the lake and read the
    # head of every Parquet file, the manifest and the ruleset files (listing each as "not recognised"), on every
    # run, while writing to it. The lake's own folder is not input.
    d = tmp_path / "in"
    d.mkdir()
    write_jsonl(d / "g.jsonl", [native_game("g", [native_hand(DEAL_A, 1, taker=0)])])
    lake = d / "rebelote-lake"
    notes: list[str] = []
    s1 = ingest_paths([d], lake, on_notice=notes.append)
    s2 = ingest_paths([d], lake, on_notice=notes.append)     # the lake now holds files
    assert (s1.files, s1.hands, s1.unrecognised) == (1, 1, [])
    assert (s2.files, s2.unchanged, s2.unrecognised) == (1, 1, [])
    # once per run that meets the lake's files (the first run already writes its version record there)
    assert set(notes) == {f"{lake}: the lake's own folder is inside a folder being imported: its files are not read"}


def test_file_emptied_since_imported_takes_its_rows_with_it(tmp_path):
    # docs/ingest.md (Reading a file again): a changed file is read again and "hands no longer in the file leave
    # the lake"; `--prune` treats a gone file "as if emptied". A file emptied to 0 bytes (or blank lines) kept
    # its 2 hands, only adding an empty_file reject; deleting one line of two did remove that line's hand. Now
    # emptied = no hands left.
    f = write_jsonl(tmp_path / "a.jsonl", [native_game("g", [native_hand(DEAL_A, 1, taker=0)]),
                                           native_game("h", [native_hand(DEAL_L, 1, taker=1)])])
    lake = tmp_path / "lake"
    assert ingest_paths([f], lake).hands == 2
    f.write_bytes(b"\n\n")
    s = ingest_paths([f], lake)
    assert (s.replaced, dict(s.rejected)) == (2, {"empty_file": 1})
    assert _hands(lake) == {} and lakemod.read(lake, "games").num_rows == 0
    assert _rejects(lake) == [(None, None, None, "empty_file", "file holds only white space (2 bytes, blank lines or spaces): no records")]
    # refilled: read as a new file, its hands back, the empty_file reject cleared
    write_jsonl(f, [native_game("g", [native_hand(DEAL_A, 1, taker=0)])])
    s = ingest_paths([f], lake)
    assert (s.hands, dict(s.rejected)) == (1, {})
    assert sorted(_hands(lake)) == [("test:g", 1)] and _rejects(lake) == []


def test_empty_file_filled_later_clears_its_empty_file_reject(tmp_path):
    # docs/ingest.md: "once the file is fixed, the next ingest reads it again, imports the fixed games and clears the
    # rejects it no longer raises". A file that only ever gave a file-level reject (empty here; unreadable and
    # UTF-16 alike) is not in the manifest, so its fixed read did not clear it: empty_file stayed in the lake.
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"")
    lake = tmp_path / "lake"
    assert dict(ingest_paths([f], lake).rejected) == {"empty_file": 1}
    write_jsonl(f, [native_game("g", [native_hand(DEAL_A, 1, taker=0)])])
    s = ingest_paths([f], lake)
    assert (s.hands, s.rejects_cleared) == (1, 1)
    assert _rejects(lake) == []


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_records_after_more_than_64_kib_of_blank_lines_are_read_not_called_an_empty_file(tmp_path, native_path,
                                                                                          gzipped):
    # the start of a file (64 KiB) decided whether it was empty: 200,000 blank lines, then a game, read as
    # "file is empty: no records" and the game was lost
    import gzip

    game = orjson.dumps(native_game("late", [native_hand(DEAL_A, 1, taker=0)])) + b"\n"
    # (gzip: within the ratio limit, 200 decompressed bytes per stored byte, which blank lines soon pass)
    data = (b"\n" * 40_000 + b" " * 30_000 + b"\n" if gzipped else b"\n" * 200_000 + b" " * 70_000 + b"\n") + game
    f = tmp_path / ("late.jsonl.gz" if gzipped else "late.jsonl")
    f.write_bytes(gzip.compress(data) if gzipped else data)
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected)) == (1, 1, {})
    assert [h["hand_no"] for h in _hands(tmp_path / "lake").values()] == [1]


def test_a_file_of_white_space_only_says_so_and_how_much(tmp_path):
    import gzip

    f = tmp_path / "blank.jsonl"
    f.write_bytes(b" " * 100_000 + b"\n\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert dict(s.rejected) == {"empty_file": 1}
    assert _rejects(tmp_path / "lake") == [
        (None, None, None, "empty_file", "file holds only white space (100,002 bytes, blank lines or spaces): no records")]
    # past the ratio limit (a gzip bomb of spaces) it is the limit that is reported, not an empty file
    f = tmp_path / "blank.jsonl.gz"
    f.write_bytes(gzip.compress(b" " * 3_000_000 + b"\n\n"))
    s = ingest_paths([f], tmp_path / "lake2")
    assert dict(s.rejected) == {"file_too_large": 1}
    assert "gzip bomb" in _rejects(tmp_path / "lake2")[0][4]


def test_a_file_of_bad_lines_alone_writes_its_rejects_as_it_reads(tmp_path, monkeypatch):
    # a gzip of millions of bad lines read with --format (a bomb within the ratio limit: 70 M rejects) buffered
    # every reject row until the end, for the buffers were flushed on hands only, and held every reject key in a
    # Python set (9.4 GB resident after ten minutes). Rejects now flush by their own count: with 5 a flush, 12
    # bad lines are written in 3 appends, every one kept, and the good game of the next file imports.
    from pipeline.ingest import writer
    monkeypatch.setattr(writer, "FLUSH_HANDS", 5)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(b'{"format": "rebelote", "n": %d}\n' % i for i in range(12)))
    good = write_jsonl(tmp_path / "good.jsonl", [native_game("g", [native_hand(DEAL_A, 1, taker=0)])])
    lake = tmp_path / "lake"
    s = ingest_paths([bad, good], lake, fmt="rebelote")
    assert (sum(s.rejected.values()), s.games, s.hands) == (12, 1, 1)
    rejects = lakemod.read(lake, "rejects")
    assert sorted(rejects.column("source_line").to_pylist()) == list(range(1, 13))
    assert len(lakemod.list_files(lake, "rejects")) >= 3
