"""Edited files are replaced by the physical file read (``ingest_file``), not by the name their records carry.

Records that carry their own ``provenance.source_file`` (``rebelote export jsonl``, ``rebelote simulate``
output) keep that name as provenance in ``source_file``; the file ingest actually read is ``ingest_file``
(its resolved absolute path, the manifest's key). Counts come from the simulated files the tests write:
``simulate_to_file(belote-classic, 3 games, seed 7)`` gives 29 hands (9 + 11 + 9), seed 8 gives 32, the same
figures ``rebelote simulate --games 3 --seed 7|8`` prints. Each test runs on both native readers (row by row
and columnar), which must give the same lake.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline.storage import lake as lakemod
from pipeline import rules
from pipeline.report.export import export_jsonl
from pipeline.ingest import fast_native
from pipeline.maintenance.migrate import migrate
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.simulate.games import simulate_to_file

CLASSIC = "belote-classic"


@pytest.fixture(params=["rows", "columnar"])
def reader(request, monkeypatch):
    """Run the test with the row-by-row native reader, then with the columnar one."""
    monkeypatch.setenv(fast_native.ENV, request.param)
    monkeypatch.setenv(fast_native.DEBUG_ENV, "1")
    return request.param


def _simulated(path: Path, seed: int) -> Path:
    simulate_to_file(rules.load(CLASSIC), 3, seed, path)
    return path


def _games(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _edit_plays(path: Path, game: int, nth: int = 0) -> str:
    """Swap the cards of the first two plays of one seat in the ``nth`` played hand of game ``game`` (index in
    the file), in place; the deal is unchanged, so the record is still valid. Returns the game id."""
    games = _games(path)
    g = games[game]
    h = [h for h in g["hands"] if h["plays"]][nth]
    if g["version"] == 1:                # [seat, card] pairs
        seat = h["plays"][0][0]
        i, j = [k for k, (s, _) in enumerate(h["plays"]) if s == seat][:2]
        h["plays"][i][1], h["plays"][j][1] = h["plays"][j][1], h["plays"][i][1]
    else:                                # the cards, and their seats in play_seats
        seat = h["play_seats"][0]
        i, j = [k for k, s in enumerate(h["play_seats"]) if s == seat][:2]
        h["plays"][i], h["plays"][j] = h["plays"][j], h["plays"][i]
    write_jsonl(path, games)
    return g["game_id"]


def _keys(lake, game_id: str | None = None) -> set[str]:
    return {h["hand_key"] for h in lakemod.read(lake, "hands", columns=["hand_key", "game_id"]).to_pylist()
            if game_id is None or h["game_id"] == game_id}


def _scored(lake) -> set[str]:
    return set(lakemod.read(lake, "scores", columns=["hand_key"]).column("hand_key").to_pylist())


def _check_edit_replaced(lake, f: Path, edited: str, n_hands: int, n_games: int, recorded: str) -> None:
    """Re-ingest ``f`` (one hand of game ``edited`` changed since): that hand is replaced, counts unchanged, its
    old score left for the next rescore to find stale (ingest does not touch scores: layout version 4), which
    scores the new hand and drops the old score; provenance keeps the recorded name."""
    before, other = _keys(lake, edited), _keys(lake) - _keys(lake, edited)
    s = ingest_paths([f], lake)
    assert dict(s.rejected) == {}
    assert (s.games, s.hands, s.duplicates, s.replaced) == (1, 1, n_hands - 1, 1)
    after = _keys(lake, edited)
    assert len(before - after) == 1 and len(after - before) == 1       # the old hand key gone, the new one in
    assert _keys(lake) - after == other                                 # every other hand untouched
    hands = lakemod.read(lake, "hands").to_pylist()
    games = lakemod.read(lake, "games").to_pylist()
    assert (len(hands), len(games)) == (n_hands, n_games)
    assert {h["source_file"] for h in hands} == {g["source_file"] for g in games} == {recorded}
    assert {h["ingest_file"] for h in hands} == {g["ingest_file"] for g in games} == {str(f.resolve())}
    # the scores as the last rescore left them: the old hand's, none for the new one, which makes the game stale
    assert _scored(lake) == (_keys(lake) - (after - before)) | (before - after)
    from pipeline.rescore import stale
    assert stale.stale(lake, CLASSIC).game_ids.to_pylist() == [edited]
    rescore_lake(lake, rules.load(CLASSIC))
    assert _scored(lake) == _keys(lake) and len(_scored(lake)) == n_hands


def test_edited_simulate_output_replaces_its_hands(tmp_path, reader):
    lake = tmp_path / "lake"
    f = _simulated(tmp_path / "sim.jsonl", 7)
    s = ingest_paths([f], lake)
    assert (s.games, s.hands) == (3, 29)
    rescore_lake(lake, rules.load(CLASSIC))
    edited = _edit_plays(f, 0)
    assert edited == "simulate:belote-classic-7-000000-0db6f2e7"   # index, then the deals' digest
    _check_edit_replaced(lake, f, edited, 29, 3, "<simulate>")     # simulate's own provenance.source_file
    # the same edited file again changes nothing
    s = ingest_paths([f], lake, reread=True)
    assert (s.games, s.hands, s.duplicates, s.replaced, sum(s.rejected.values())) == (0, 0, 29, 0, 0)


def test_edited_export_replaces_its_hands_in_the_lake_it_was_imported_into(tmp_path, reader):
    first, second = tmp_path / "lake1", tmp_path / "lake2"
    src = _simulated(tmp_path / "sim.jsonl", 7)
    ingest_paths([src], first)
    exported = tmp_path / "export.jsonl"
    with exported.open("wb") as out:
        assert export_jsonl(first, out) == (3, 29)
    s = ingest_paths([exported], second)
    assert (s.games, s.hands) == (3, 29)
    rescore_lake(second, rules.load(CLASSIC))
    edited = _edit_plays(exported, 1)
    assert edited == "simulate:belote-classic-7-000001-36fb0f1e"
    # the export recorded the first lake's provenance ("<simulate>"); the physical file is the export
    _check_edit_replaced(second, exported, edited, 29, 3, "<simulate>")


def test_two_files_recording_the_same_source_file_never_replace_each_others_hands(tmp_path, reader):
    # two simulate outputs both record "<simulate>": editing one replaces only its own games
    lake = tmp_path / "lake"
    a, b = _simulated(tmp_path / "a.jsonl", 7), _simulated(tmp_path / "b.jsonl", 8)
    s = ingest_paths([a, b], lake)
    assert (s.games, s.hands) == (6, 61)
    b_keys = {h["hand_key"] for h in lakemod.read(lake, "hands").to_pylist() if h["ingest_file"] == str(b.resolve())}
    assert len(b_keys) == 32
    games = _games(a)
    edited = _edit_plays(a, 0)
    write_jsonl(a, _games(a)[:2])                  # ... and its third game deleted (9 hands)
    s = ingest_paths([a, b], lake)
    assert (s.unchanged, s.games, s.hands, s.replaced, sum(s.rejected.values())) == (1, 1, 1, 10, 0)
    assert b_keys <= _keys(lake) and len(_keys(lake)) == 61 - 9
    assert games[2]["game_id"] not in {g["game_id"] for g in lakemod.read(lake, "games").to_pylist()}
    # and editing b leaves a's rows alone
    a_keys = _keys(lake) - b_keys
    _edit_plays(b, 2)
    s = ingest_paths([a, b], lake)
    assert (s.unchanged, s.games, s.hands, s.replaced, sum(s.rejected.values())) == (1, 1, 1, 1, 0)
    assert a_keys <= _keys(lake) and len(_keys(lake)) == 52
    assert edited.startswith("simulate:belote-classic-7-000000-")


def test_a_file_whose_records_name_another_file_does_not_replace_that_files_hands(tmp_path, reader):
    # an export of another lake records the original file's path as its source_file: the old rule (match the
    # recorded name) made an edit of the original delete the export's games too
    lake = tmp_path / "lake"
    orig = write_jsonl(tmp_path / "orig.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0)]),
                                                  native_game("g2", [native_hand(DEAL_K, 1, taker=2)])])
    copy = native_game("g3", [native_hand(DEAL_L, 1, taker=1)])
    copy["provenance"] = {"source_format": "rebelote", "source_file": str(orig)}
    other = write_jsonl(tmp_path / "other.jsonl", [copy])
    s = ingest_paths([orig, other], lake)
    assert (s.games, s.hands) == (3, 3)
    assert {h["source_file"] for h in lakemod.read(lake, "hands").to_pylist()} == {str(orig)}
    write_jsonl(orig, [native_game("g1", [native_hand(DEAL_A, 1, taker=0)])])      # g2 deleted from orig
    s = ingest_paths([orig], lake)
    assert (s.replaced, sum(s.rejected.values())) == (1, 0)
    assert sorted(lakemod.read(lake, "games").column("game_id").to_pylist()) == ["test:g1", "test:g3"]


def test_a_moved_file_keeps_its_rows_attributed_to_the_path_first_read(tmp_path, reader):
    # the manifest keys files by resolved path: a moved file is a new file, its records are all duplicates,
    # and the rows keep the ingest_file of the path first read; an edit of the moved copy is therefore
    # another file's version of those games: rejected as duplicate_game_id (documented in docs/ingest.md)
    lake = tmp_path / "lake"
    f = _simulated(tmp_path / "sim.jsonl", 7)
    ingest_paths([f], lake)
    moved = f.rename(tmp_path / "moved.jsonl")
    s = ingest_paths([moved], lake)
    assert (s.unchanged, s.games, s.hands, s.duplicates, s.replaced) == (0, 0, 0, 29, 0)
    assert {h["ingest_file"] for h in lakemod.read(lake, "hands").to_pylist()} == {str(f.resolve())}
    assert sorted(orjson.loads(lakemod.read_bytes(lake, "_manifest.json"))) == sorted(
        [str(f.resolve()), str(moved.resolve())])
    gid = _edit_plays(moved, 0)
    s = ingest_paths([moved], lake)
    assert (s.games, s.hands, s.replaced, dict(s.rejected)) == (0, 0, 0, {"duplicate_game_id": 1})
    (rej,) = lakemod.read(lake, "rejects").to_pylist()
    assert rej["game_id"] == gid and f"file read: {f.resolve()}" in rej["reason"]


def _drop_ingest_file(lake: Path) -> None:
    """Rewrite the lake's hands and games files without ``ingest_file`` and remove the version record: a lake
    written before the column (layout version 1). Writers refuse it; ``migrate`` adds the column as nulls, which
    ingest then matches by the recorded ``source_file``, as it did before the column."""
    for table in ("hands", "games"):
        for p in (lake / table).rglob("*.parquet"):
            t = pq.read_table(p)
            pq.write_table(t.drop_columns(["ingest_file"]), p)
    (lake / lakemod.VERSION_FILE).unlink()
    assert lakemod.version(lake) == 1
    with pytest.raises(lakemod.LakeVersionError, match="run `rebelote migrate"):
        ingest_paths([], lake)
    s = migrate(lake)
    assert (s.before, s.after, s.rewritten["hands"] > 0, s.rewritten["games"] > 0) == (1, lakemod.LAKE_VERSION, True, True)


def test_a_lake_written_before_ingest_file_reads_and_is_replaced_by_the_recorded_name(tmp_path, reader):
    lake = tmp_path / "lake"
    sim = _simulated(tmp_path / "sim.jsonl", 7)
    plain = write_jsonl(tmp_path / "plain.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0),
                                                                      native_hand(DEAL_L, 2, taker=1)])])
    ingest_paths([sim, plain], lake)
    rescore_lake(lake, rules.load(CLASSIC))
    _drop_ingest_file(lake)
    hands = lakemod.read(lake, "hands").to_pylist()                 # the column reads as null
    assert len(hands) == 31 and {h["ingest_file"] for h in hands} == {None}
    # an unchanged file read again: duplicates, nothing replaced
    s = ingest_paths([sim], lake, reread=True)
    assert (s.hands, s.duplicates, s.replaced) == (0, 29, 0)
    # an edited simulate output: its game is matched by game id and recorded name ("<simulate>")
    edited = _edit_plays(sim, 0)
    old = _keys(lake, edited)
    s = ingest_paths([sim], lake)
    assert (s.games, s.hands, s.replaced, sum(s.rejected.values())) == (1, 1, 1, 0)
    assert len(_keys(lake, edited) - old) == 1 and len(_keys(lake)) == 31
    # a second edit of another hand of that game (its other hands still have no ingest_file) replaces it too
    assert _edit_plays(sim, 0, nth=1) == edited
    s = ingest_paths([sim], lake)
    assert (s.games, s.hands, s.replaced, sum(s.rejected.values())) == (1, 1, 1, 0)
    assert len(_keys(lake)) == 31
    # a plain file (its source_file is its path): a deleted hand is found by that name, as before
    write_jsonl(plain, [native_game("g1", [native_hand(DEAL_A, 1, taker=0)])])
    s = ingest_paths([plain], lake)
    assert (s.games, s.hands, s.replaced, sum(s.rejected.values())) == (1, 0, 1, 0)
    assert len(_keys(lake)) == 30
    rescore_lake(lake, rules.load(CLASSIC))
    assert len(_scored(lake)) == 30


def test_a_richer_copy_replaces_a_copy_written_before_ingest_file(tmp_path, reader):
    # drop_poorer_copies finds the old copy's rows by source_file when they have no ingest_file (absent column)
    lake = tmp_path / "lake"
    games = [native_game("g1", [native_hand(DEAL_A, 1, taker=0)]), native_game("g2", [native_hand(DEAL_K, 1, taker=2)])]
    first = write_jsonl(tmp_path / "first.jsonl", games)
    ingest_paths([first], lake)
    _drop_ingest_file(lake)
    games[1]["hands"][0]["recorded"] = {"score": [272, 0]}          # g2: same deal, plus the recorded score
    richer = write_jsonl(tmp_path / "richer.jsonl", games)
    s = ingest_paths([richer], lake)
    assert (s.games, s.hands, s.duplicates, s.replaced_by_richer, sum(s.rejected.values())) == (1, 1, 1, 1, 0)
    hands = sorted(lakemod.read(lake, "hands").to_pylist(), key=lambda h: h["game_id"])
    assert [(h["game_id"], h["source_file"], h["ingest_file"]) for h in hands] == [
        ("test:g1", str(first), None), ("test:g2", str(richer), str(richer.resolve()))]
