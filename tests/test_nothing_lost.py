"""Issue #4, "nothing lost": the known limits of re-import, one test per quirk.

(a) a hand held by two files stays as long as one of them holds it (the other file's copy takes over, with its
own provenance); (b) a file gone from a folder imported again takes its hands and rejects with it, while a file
not given on the command line is never taken for gone; (c) colver copies that disagree are rejects naming file,
line and field, exact repeats are notices; (d) the same-game check reads only the rows of the game it checks.

Hand-built games come from tests/deals.py (DEAL_A, DEAL_K, DEAL_L); the colver lines are the first game of
../shared/data/real/colver (g0000: lines 1-13 of deals.jsonl, deals.final.cfn and deals.initial.cfn are
line-aligned copies, README.md "Files"; g0000#1 is ``... 110sEW``, FORMAT.md §4). Native files run through both
readers (row by row and columnar), which must give the same lake.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from conftest import shared_path, write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline import rules
from pipeline.storage import lake as lakemod
from pipeline.cli import app
from pipeline.ingest import deal_copies, fast_native, game_copies
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.simulate.games import simulate_to_file

runner = CliRunner()


@pytest.fixture(params=["rows", "columnar"])
def reader(request, monkeypatch):
    """Run the test with the row-by-row native reader, then with the columnar one."""
    monkeypatch.setenv(fast_native.ENV, request.param)
    monkeypatch.setenv(fast_native.DEBUG_ENV, "1")
    return request.param


def _g1(taker: int = 0) -> dict:
    return native_game("g1", [native_hand(DEAL_A, 1, taker=taker)])


def _g2(recorded: list[int] | None = None) -> dict:
    return native_game("g2", [native_hand(DEAL_K, 1, taker=2, recorded=recorded)])


def _hands(lake) -> dict[str, tuple[str, str, int]]:
    """game id -> (ingest_file name, source_file, source_line) of every stored hand (one-hand games here)."""
    return {h["game_id"]: (Path(h["ingest_file"]).name, h["source_file"], h["source_line"])
            for h in lakemod.read(lake, "hands").to_pylist()}


def _held(lake) -> list[tuple[str, str, str]]:
    return sorted((Path(r["ingest_file"]).name, r["game_id"], r["copy"])
                  for r in lakemod.read(lake, "holdings").to_pylist())


def _two_holders(tmp_path) -> tuple[Path, Path, Path, Path]:
    """d/a.jsonl holds g1 and g2, d/b.jsonl holds g1 again: imported once, g1 stored from a (read first)."""
    d = tmp_path / "d"
    d.mkdir()
    a = write_jsonl(d / "a.jsonl", [_g1(), _g2()])
    b = write_jsonl(d / "b.jsonl", [_g1()])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.games, s.hands, s.duplicates) == (2, 2, 1)
    assert _held(lake) == [("a.jsonl", "test:g1", "stored"), ("a.jsonl", "test:g2", "stored"),
                           ("b.jsonl", "test:g1", "stored")]
    return d, a, b, lake


# ----------------------------------------------------------------------------------------------------------
# (a) a hand stays as long as an imported file holds it
# ----------------------------------------------------------------------------------------------------------

def test_hand_held_by_two_files_stays_when_deleted_from_its_owner(tmp_path, reader):
    d, a, b, lake = _two_holders(tmp_path)
    assert _hands(lake)["test:g1"] == ("a.jsonl", str(a), 1)
    write_jsonl(a, [_g2()])                                   # g1 deleted from its owner
    notes = []
    s = ingest_paths([d], lake, on_notice=notes.append)
    # a is read (changed) and drops g1; b (unchanged, skipped) still holds it: b is read again and takes it over
    assert (s.unchanged, s.replaced, s.taken_over, s.reread, sum(s.rejected.values())) == (
        1, 1, 1, [str(b.resolve())], 0)
    assert notes == [f"{b.resolve()}: read again, to take over 1 hand that the file which brought it no longer holds"]
    assert _hands(lake) == {"test:g1": ("b.jsonl", str(b.resolve()), 1), "test:g2": ("a.jsonl", str(a), 2)}
    games = {g["game_id"]: Path(g["ingest_file"]).name for g in lakemod.read(lake, "games").to_pylist()}
    assert games == {"test:g1": "b.jsonl", "test:g2": "a.jsonl"}
    assert _held(lake) == [("a.jsonl", "test:g2", "stored"), ("b.jsonl", "test:g1", "stored")]
    assert rescore_lake(lake, rules.load("belote-classic")).hands == 2
    # nothing changed since: both files skipped unread, nobody read again (re-imports stay cheap)
    s = ingest_paths([d], lake)
    assert (s.unchanged, s.hands, s.reread, s.replaced) == (2, 0, [], 0)
    # --reread of the same bytes: the holdings they hold are the stored ones, kept as they are (not doubled)
    files = [f.path for f in lakemod.list_files(lake, "holdings")]
    s = ingest_paths([d], lake, reread=True)
    assert (s.hands, s.duplicates, s.replaced) == (0, 2, 0)
    assert [f.path for f in lakemod.list_files(lake, "holdings")] == files
    assert _held(lake) == [("a.jsonl", "test:g2", "stored"), ("b.jsonl", "test:g1", "stored")]


def test_a_lake_imported_before_holdings_learns_them_when_its_files_are_read_again(tmp_path, reader):
    # a lake written before the holdings table: nothing says b holds g1 until b is read again (--reread)
    import shutil
    d, a, b, lake = _two_holders(tmp_path)
    shutil.rmtree(lake / "holdings")
    s = ingest_paths([d], lake, reread=True)
    assert (s.hands, s.duplicates) == (0, 3)
    assert _held(lake) == [("a.jsonl", "test:g1", "stored"), ("a.jsonl", "test:g2", "stored"),
                           ("b.jsonl", "test:g1", "stored")]
    write_jsonl(a, [_g2()])
    s = ingest_paths([d], lake)
    assert (s.taken_over, _hands(lake)["test:g1"][0]) == (1, "b.jsonl")


def test_hand_held_by_two_files_stays_when_its_owner_file_is_deleted(tmp_path, reader):
    d, a, b, lake = _two_holders(tmp_path)
    a.unlink()
    s = ingest_paths([d], lake, prune=True)
    # a is gone: g1 and g2 leave with it; b still holds g1, which it takes over
    assert (s.gone, s.gone_hands, s.taken_over, s.reread) == ([str(a.resolve())], 2, 1, [str(b.resolve())])
    assert _hands(lake) == {"test:g1": ("b.jsonl", str(b.resolve()), 1)}
    assert sorted(orjson.loads(lakemod.read_bytes(lake, "_manifest.json"))) == [str(b.resolve())]
    # the hand disappears only when no file holds it
    b.unlink()
    s = ingest_paths([d], lake, prune=True)
    assert (s.gone, s.gone_hands, s.taken_over) == ([str(b.resolve())], 1, 0)
    assert (lakemod.read(lake, "hands").num_rows, lakemod.read(lake, "games").num_rows, _held(lake)) == (0, 0, [])


def test_owner_edit_makes_the_other_files_old_copy_a_duplicate_game_id_reject(tmp_path, reader):
    # a's g1 now names seat 1 as taker; b still holds g1 with seat 0: the lake holds one g1, a's (a edited its
    # own game), and b's copy, read again, is rejected as what it now is: another file's other version of g1
    d, a, b, lake = _two_holders(tmp_path)
    write_jsonl(a, [_g1(taker=1), _g2()])
    s = ingest_paths([d], lake)
    assert (s.replaced, s.taken_over, dict(s.rejected)) == (1, 0, {"duplicate_game_id": 1})
    [rej] = lakemod.read(lake, "rejects").to_pylist()
    assert (Path(rej["source_file"]).name, rej["source_line"], rej["game_id"]) == ("b.jsonl", 1, "test:g1")
    assert f"game test:g1 is already in the lake with other content (imported from {a}" in rej["reason"]
    [g1] = [h for h in lakemod.read(lake, "hands").to_pylist() if h["game_id"] == "test:g1"]
    assert (g1["taker"], Path(g1["ingest_file"]).name) == (1, "a.jsonl")
    assert ("b.jsonl", "test:g1", "set_aside") in _held(lake)
    # a reverted: b's copy agrees again, and its reject is cleared when b is read again
    write_jsonl(a, [_g1(), _g2()])
    s = ingest_paths([d], lake)
    assert (s.rejects_cleared, sum(s.rejected.values())) == (1, 0)
    assert lakemod.read(lake, "rejects").num_rows == 0
    assert _hands(lake)["test:g1"][0] == "a.jsonl"


def test_richer_copy_gone_the_poorer_copy_takes_over(tmp_path, reader):
    # g2 from first.jsonl has no recorded score; richer.jsonl records it (DEAL_K: capot 252 + belote 20 = 272 to
    # team 0, tests/deals.py), so it replaces first's copy; when richer.jsonl is gone, first's copy is back
    d = tmp_path / "d"
    d.mkdir()
    first = write_jsonl(d / "first.jsonl", [_g2()])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    richer = write_jsonl(d / "richer.jsonl", [_g2(recorded=[272, 0])])
    s = ingest_paths([d], lake)
    assert s.replaced_by_richer == 1
    [h] = lakemod.read(lake, "hands").to_pylist()
    assert (Path(h["ingest_file"]).name, h["recorded_score"]) == ("richer.jsonl", [272, 0])
    richer.unlink()
    s = ingest_paths([d], lake, prune=True)
    assert (s.gone, s.taken_over) == ([str(richer.resolve())], 1)
    [h] = lakemod.read(lake, "hands").to_pylist()
    assert (Path(h["ingest_file"]).name, h["recorded_score"]) == ("first.jsonl", None)
    assert first.exists()


def _colver_folder(tmp_path, names=("deals.jsonl", "deals.final.cfn", "deals.initial.cfn"), lines: int = 13) -> Path:
    """A folder with the first ``lines`` lines of each of these real colver files (13: game g0000)."""
    src = shared_path("data", "real", "colver")
    d = tmp_path / "colver"
    d.mkdir(parents=True)
    for n in names:
        (d / n).write_bytes(b"".join((src / n).read_bytes().splitlines(keepends=True)[:lines]))
    return d


def test_deleting_deals_jsonl_lets_its_cfn_copies_take_over(tmp_path):
    d = _colver_folder(tmp_path)
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.games, s.hands, sum(s.rejected.values())) == (1, 13, 0)     # g0000: 13 deals
    saved = (d / "deals.jsonl").read_bytes()
    (d / "deals.jsonl").unlink()
    s = ingest_paths([d], lake, prune=True)
    # the 13 played positions of deals.final.cfn take over (the opening positions stay poorer copies)
    assert (s.gone_hands, s.taken_over, sum(s.rejected.values())) == (13, 13, 0)
    hands = lakemod.read(lake, "hands").to_pylist()
    assert {(h["source_format"], h["completeness"], Path(h["ingest_file"]).name) for h in hands} == {
        ("colver-cfn", "full_play", "deals.final.cfn")}
    assert (len(hands), lakemod.read(lake, "games").num_rows) == (13, 13)
    # deals.jsonl back: its game replaces the CFN copies again
    (d / "deals.jsonl").write_bytes(saved)
    s = ingest_paths([d], lake)
    assert (s.games, s.deal_replaced) == (1, 13)
    assert {h["source_format"] for h in lakemod.read(lake, "hands").to_pylist()} == {"colver"}


# ----------------------------------------------------------------------------------------------------------
# (b) a file gone from a folder imported again: named; with --prune its hands and rejects leave; a file not
# given is never gone
# ----------------------------------------------------------------------------------------------------------

def test_rejects_of_a_deleted_file_leave_the_lake_with_it(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    write_jsonl(d / "good.jsonl", [_g1()])
    broken = _g2()
    plays = broken["hands"][0]["plays"]
    plays[1] = [plays[1][0], plays[0][1]]          # the second play repeats the first card: card_played_twice
    bad = write_jsonl(d / "bad.jsonl", [native_game("g3", [native_hand(DEAL_L, 1, taker=1)]), broken])
    empty = d / "empty.jsonl"
    empty.write_bytes(b"")                          # rejected as empty_file, never in the manifest
    lake = tmp_path / "lake"
    r = runner.invoke(app, ["ingest", str(d), "--lake", str(lake), "-q"])
    assert r.exit_code == 1 and "2 rejected (card_played_twice 1, empty_file 1)" in r.stdout
    bad.unlink()
    empty.unlink()
    # without --prune a gone file is only named: its hand and rejects stay (its source is gone, so removing
    # them could not be undone by importing again)
    r = runner.invoke(app, ["ingest", str(d), "--lake", str(lake)])
    assert r.exit_code == 0, r.output
    assert "2 files gone from their folders since imported (rows kept; --prune removes them)" in r.stdout
    assert f"note {bad.resolve()}: gone from its folder since it was imported; its rows stay in the lake " \
        "(ingest --prune removes them)" in r.stderr
    assert lakemod.read(lake, "rejects").num_rows == 2 and set(_hands(lake)) == {"test:g1", "test:g3"}
    r = runner.invoke(app, ["ingest", str(d), "--lake", str(lake), "--prune"])
    assert r.exit_code == 0, r.output
    assert "2 files gone from their folders since imported (1 hand, 2 rejects removed)" in r.stdout
    assert f"note {bad.resolve()}: gone from its folder since it was imported: its 1 hand and 1 reject leave the lake" \
        in r.stderr
    assert lakemod.read(lake, "rejects").num_rows == 0
    assert set(_hands(lake)) == {"test:g1"}
    r = runner.invoke(app, ["rejects", "--lake", str(lake)])
    assert "no rejects in the lake" in r.stdout


def test_a_file_not_given_on_the_command_line_is_not_gone(tmp_path):
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    a = write_jsonl(d / "a.jsonl", [_g1()])
    c = write_jsonl(d / "sub" / "c.jsonl", [_g2()])
    other = tmp_path / "other"
    other.mkdir()
    write_jsonl(other / "x.jsonl", [native_game("g3", [native_hand(DEAL_L, 1, taker=1)])])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    c.unlink()
    for given in ([a], [other]):               # a file of d, another folder: c was not given, so it is not gone
        s = ingest_paths(given, lake, prune=True)
        assert s.gone == [] and "test:g2" in _hands(lake)
    s = ingest_paths([d / "sub"], lake, prune=True)        # the folder that held it, given again: gone
    assert (s.gone, s.gone_hands) == ([str(c.resolve())], 1)
    assert set(_hands(lake)) == {"test:g1", "test:g3"}


def test_a_file_renamed_in_its_folder_takes_its_rows_over(tmp_path, reader):
    # the old name is gone from the folder, the new name holds the same games: they stay, under the new name
    d = tmp_path / "d"
    d.mkdir()
    a = write_jsonl(d / "a.jsonl", [_g1(), _g2()])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    z = a.rename(d / "z.jsonl")
    s = ingest_paths([d], lake, prune=True)
    assert (s.gone, s.gone_hands, s.taken_over, s.reread) == ([str(a.resolve())], 2, 2, [str(z.resolve())])
    assert {g: v[0] for g, v in _hands(lake).items()} == {"test:g1": "z.jsonl", "test:g2": "z.jsonl"}
    assert ingest_paths([d], lake).unchanged == 1


# ----------------------------------------------------------------------------------------------------------
# (c) colver: disagreeing copies are rejects naming file, line and field; an exact repeat is a notice
# ----------------------------------------------------------------------------------------------------------

def _tampered_cfn(d: Path, name: str = "deals.final.cfn") -> None:
    """Line 1 (g0000#1, ``110sEW``, FORMAT.md §4) bid 120 instead of 110: the same deal, another contract."""
    lines = (d / name).read_text().splitlines(keepends=True)
    assert lines[0].rstrip().endswith(" 110sEW")
    lines[0] = lines[0].replace(" 110sEW", " 120sEW")
    (d / name).write_text("".join(lines))


@pytest.mark.parametrize("order", ["folder", "deals.jsonl first"])
def test_conflicting_cfn_copy_is_rejected_whatever_the_order(tmp_path, order):
    # the folder reads deals.final.cfn before deals.jsonl (name order): its line 1 is imported, then displaced by
    # the whole game, and the file is read again to reject it; given deals.jsonl first, it is rejected at once
    d = _colver_folder(tmp_path, names=("deals.jsonl", "deals.final.cfn"))
    _tampered_cfn(d)
    lake = tmp_path / "lake"
    paths = [d] if order == "folder" else [d / "deals.jsonl", d / "deals.final.cfn"]
    s = ingest_paths(paths, lake)
    assert (s.games, s.hands, dict(s.rejected)) == (1, 13, {"conflicting_copy": 1})
    assert {h["source_format"] for h in lakemod.read(lake, "hands").to_pylist()} == {"colver"}
    [rej] = lakemod.read(lake, "rejects").to_pylist()
    assert (Path(rej["source_file"]).name, rej["source_line"], rej["hand_no"]) == ("deals.final.cfn", 1, 1)
    assert (f"this deal is already imported from {d / 'deals.jsonl'}:1 (game colver:g0000, hand 1) with other "
            "content: bid 120 vs 110 (this copy vs that one)") in rej["reason"]
    s = ingest_paths(paths, lake)                  # unchanged: nothing read, the reject still reported
    assert (s.unchanged, s.earlier_rejects) == (2, 1)


def test_cfn_copies_disagreeing_with_each_other_first_read_is_kept(tmp_path):
    d = _colver_folder(tmp_path, names=("deals.final.cfn",), lines=1)
    (d / "deals.final.cfn").rename(d / "a.cfn")
    _colver_folder(tmp_path / "b", names=("deals.final.cfn",), lines=1)
    (tmp_path / "b" / "colver" / "deals.final.cfn").rename(d / "b.cfn")
    _tampered_cfn(d, "b.cfn")
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.hands, dict(s.rejected)) == (1, {"conflicting_copy": 1})
    [rej] = lakemod.read(lake, "rejects").to_pylist()
    assert Path(rej["source_file"]).name == "b.cfn" and f"{d / 'a.cfn'}:1 (game colver:cfn-" in rej["reason"]
    assert "bid 120 vs 110" in rej["reason"]
    # a.cfn gone: b.cfn still holds the deal (set aside), so its copy takes over and its reject is cleared
    (d / "a.cfn").unlink()
    s = ingest_paths([d], lake, prune=True)
    assert (s.taken_over, s.rejects_cleared, lakemod.read(lake, "rejects").num_rows) == (1, 1, 0)
    [h] = lakemod.read(lake, "hands").to_pylist()
    assert (Path(h["ingest_file"]).name, h["bid"]) == ("b.cfn", 120)


def test_deal_copy_difference_names_the_first_field():
    # content(): (taker's team, strain, bid, capot bid, coinche, plays); cards are suit*8 + rank, suits C D H S,
    # ranks 7 8 9 T J Q K A (pipeline/cards.py): 2 = 9C, 3 = TC
    base = (1, "S", 110, False, 0, (1, 2, 3))
    assert deal_copies.difference(base, base) is None
    assert deal_copies.difference(base, None) is None          # a 'deal' level copy agrees with any
    assert deal_copies.difference((1, "S", 110, False, 0, (1, 3, 2)), base) == "play 2: TC vs 9C"
    assert deal_copies.difference((0, "S", 110, False, 0, (1, 2, 3)), base) == "taker's team 0 vs 1"
    assert deal_copies.difference((1, "S", 110, False, 1, (1, 2, 3)), base) == "coinche 1 vs 0"


def test_games_jsonl_repeated_line_is_a_notice_and_a_conflicting_one_a_reject(tmp_path):
    # games.jsonl line 1 is g0000 (final_scores [1411, 2205], game_seed 1000003), line 2 g0001; here line 3
    # repeats line 2 exactly and line 4 is g0000 again with another total and seed
    d = _colver_folder(tmp_path, names=("deals.jsonl",), lines=27)        # g0000 (13 deals) and g0001 (14)
    games = (shared_path("data", "real", "colver") / "games.jsonl").read_bytes().splitlines(keepends=True)[:2]
    first = orjson.loads(games[0])
    assert (first["game_id"], first["final_scores"], first["game_seed"]) == ("g0000", [1411, 2205], 1000003)
    changed = dict(first, final_scores=[1411, 2105], game_seed=5)
    (d / "games.jsonl").write_bytes(games[0] + games[1] + games[1] + orjson.dumps(changed) + b"\n")
    lake = tmp_path / "lake"
    r = runner.invoke(app, ["ingest", str(d), "--lake", str(lake)])
    assert r.exit_code == 1
    assert f"note {d / 'games.jsonl'}:3, game colver:g0001: repeats line 2 exactly (ignored)" in r.stderr
    assert "1 rejected (conflicting_duplicate 1)" in r.stdout and "; 1 notice" in r.stdout
    rows = json.loads(runner.invoke(app, ["rejects", "--lake", str(lake), "--format", "json"]).stdout)
    assert [(x["source_line"], x["reason_code"], x["game_id"]) for x in rows] == [
        (4, "conflicting_duplicate", "colver:g0000")]
    assert ("game g0000 is already on line 1 with other content: final_scores [1411, 2105] vs [1411, 2205]; "
            "game_seed 5 vs 1000003 (this line vs line 1)") in rows[0]["reason"]
    # the first line is the one deals.jsonl is compared with: both games import
    assert sorted(lakemod.read(lake, "games").column("game_id").to_pylist()) == ["colver:g0000", "colver:g0001"]


# ----------------------------------------------------------------------------------------------------------
# (d) the same-game check reads the rows of the game it checks, not the lake
# ----------------------------------------------------------------------------------------------------------

@pytest.fixture
def copies_made(monkeypatch) -> list:
    """Every LakeCopies the ingest creates (to read how many hand rows it read)."""
    made = []

    class Spy(game_copies.LakeCopies):
        def __init__(self, lake):
            super().__init__(lake)
            made.append(self)
    monkeypatch.setattr(game_copies, "LakeCopies", Spy)
    return made


def _poorer_copies(sim: Path, out: Path, which: list[int]) -> Path:
    """Games ``which`` of a simulate output without their recorded results: the same play, a poorer copy."""
    games = [orjson.loads(x) for x in sim.read_bytes().splitlines()]
    picked = []
    for i in which:
        g = dict(games[i], recorded_final=None, recorded_winner=None)
        g["hands"] = [dict(h, recorded=None) for h in g["hands"]]
        picked.append(g)
    return write_jsonl(out, picked)


def test_same_game_check_reads_only_that_games_rows(tmp_path, copies_made, reader):
    # simulate_to_file(belote-classic, 3 games, seed 7): 29 hands, 9 + 11 + 9 (rebelote simulate --games 3 --seed 7)
    sim = tmp_path / "sim.jsonl"
    assert simulate_to_file(rules.load("belote-classic"), 3, 7, sim) == (3, 29)
    lake = tmp_path / "lake"
    ingest_paths([sim], lake)
    s = ingest_paths([_poorer_copies(sim, tmp_path / "copy.jsonl", [1])], lake)
    assert (s.same_game, s.hands, sum(s.rejected.values())) == (1, 0, 0)
    assert copies_made[-1].rows_read == 11                      # game 1's 11 hands, of the 29 in the lake


def test_many_clashes_in_one_source_switch_to_one_streamed_pass(tmp_path, copies_made, monkeypatch):
    monkeypatch.setattr(game_copies, "TARGETED_LOOKUPS", 1)
    sim = tmp_path / "sim.jsonl"
    simulate_to_file(rules.load("belote-classic"), 3, 7, sim)
    lake = tmp_path / "lake"
    ingest_paths([sim], lake)
    s = ingest_paths([_poorer_copies(sim, tmp_path / "copy.jsonl", [0, 1, 2])], lake)
    assert (s.same_game, s.hands, sum(s.rejected.values())) == (3, 0, 0)
    # one filtered read (game 0: 9 hands), then one pass over the source's 29 hands answers the other two
    assert copies_made[-1].rows_read == 9 + 29
