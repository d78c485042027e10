"""A game whose id comes from where its file lies (a coinche-cli game is named after its folder) is the same game
when its folder is renamed or copied: issue #4.1, from a fresh-user trial where a renamed copy of A0002 was imported
a second time as coinche-cli:A0002r. The driver recognises it by content (pipeline.ingest.game_copies.content),
skips it as a duplicate naming the stored game and its file, and, with --prune once the old folder is gone, lets it
take the rows over as a renamed native file does (holdings by deal, pipeline.ingest.takeover).

The games are real coinche-cli folders of tests/fixtures/coinche_cli (see its README): A0070 has 2 deals, A0010 has
1 deal; each folder holds server.log and stream_E.jsonl (the entry stream).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa

from pipeline.storage import lake as lakemod

from pipeline.storage import schema
from pipeline.ingest import game_copies, input_files, run
from pipeline.formats import coinche_cli
from pipeline.ingest.run import ingest_paths

FIX = Path(__file__).parent / "fixtures" / "coinche_cli"
A0070 = FIX / "round_number_shifted" / "A0070"      # 2 deals
A0010 = FIX / "short_game" / "A0010"                # 1 deal


def _tree(root: Path, **folders: Path) -> Path:
    """``root`` holding a copy of each game folder under the given name."""
    root.mkdir(parents=True)
    for name, src in folders.items():
        shutil.copytree(src, root / name)
    return root


def _ingest(paths, lake: Path, prune: bool = False):
    notes: list[str] = []
    s = ingest_paths(paths, lake, on_notice=notes.append, prune=prune)
    return s, notes


def _hands_by_game(lake: Path) -> dict[str, tuple[int, set[str]]]:
    """game id -> (hands in the lake, the files they were read from)."""
    out: dict[str, tuple[int, set[str]]] = {}
    for h in lakemod.read(lake, "hands", columns=["game_id", "ingest_file"]).to_pylist():
        n, files = out.get(h["game_id"], (0, set()))
        out[h["game_id"]] = (n + 1, files | {h["ingest_file"]})
    return out


def test_a_renamed_copy_of_an_imported_folder_is_a_duplicate_naming_the_stored_game(tmp_path):
    orig = _tree(tmp_path / "orig", A0070=A0070, A0010=A0010)
    lake = tmp_path / "lake"
    s, _ = _ingest([orig], lake)
    assert (s.games, s.hands) == (2, 3)
    # the trial: the whole tree copied elsewhere, one game folder renamed
    copy = _tree(tmp_path / "copy", A0070r=A0070, A0010=A0010)
    s, notes = _ingest([copy], lake)
    # A0070r: its 2 hands are the same content under another id; A0010: the same id, the same hand key (1 hand)
    assert (s.games, s.hands, s.duplicates, s.same_content, sum(s.rejected.values())) == (0, 0, 3, 1, 0)
    entry, stored = copy / "A0070r" / "stream_E.jsonl", (orig / "A0070" / "stream_E.jsonl").resolve()
    assert notes == [f"{entry}:1, game coinche-cli:A0070r: the same game as coinche-cli:A0070, already imported "
                     f"from {stored} (same deals, auctions, plays, players and results; a renamed or copied game "
                     "folder?): not imported twice (2 hands skipped as duplicates)"]
    assert "; 1 game already imported under another id (the same content: a renamed or copied game folder)" in str(s)
    assert _hands_by_game(lake) == {"coinche-cli:A0070": (2, {str(stored)}),
                                    "coinche-cli:A0010": (1, {str((orig / "A0010" / "stream_E.jsonl").resolve())})}
    # the copy is recorded as held, by deal (so that it can take the hands over one day)
    held = [h for h in lakemod.read(lake, "holdings").to_pylist() if h["game_id"] == "coinche-cli:A0070r"]
    assert len(held) == 2 and {h["copy"] for h in held} == {"poorer"} and all(h["deal"] for h in held)


def test_a_renamed_folder_imported_again_with_prune_takes_the_rows_over(tmp_path):
    root = _tree(tmp_path / "games", A0070=A0070, A0010=A0010)
    lake = tmp_path / "lake"
    _ingest([root], lake)
    (root / "A0070").rename(root / "A0070r")
    # without --prune: a duplicate, and the old folder's files are only named; the rows stay
    s, _ = _ingest([root], lake)
    assert (s.games, s.hands, s.same_content, len(s.gone), s.gone_kept) == (0, 0, 1, 2, True)
    assert set(_hands_by_game(lake)) == {"coinche-cli:A0070", "coinche-cli:A0010"}
    # with --prune: the old folder's rows leave, the renamed folder takes them over under its own id and path
    s, notes = _ingest([root], lake, prune=True)
    assert (s.games, s.hands, s.taken_over, s.gone_hands, sum(s.rejected.values())) == (1, 2, 2, 2, 0)
    entry = str((root / "A0070r" / "stream_E.jsonl").resolve())
    assert s.reread == [entry]
    assert f"{entry}: read again, to take over 2 hands that the file which brought them no longer holds" in notes
    assert _hands_by_game(lake) == {"coinche-cli:A0070r": (2, {entry}), "coinche-cli:A0010": (
        1, {str((root / "A0010" / "stream_E.jsonl").resolve())})}
    assert sorted(lakemod.read(lake, "games", columns=["game_id"]).column("game_id").to_pylist()) == [
        "coinche-cli:A0010", "coinche-cli:A0070r"]


def test_a_renamed_folder_pruned_in_the_same_run_takes_the_rows_over(tmp_path):
    root = _tree(tmp_path / "games", A0070=A0070)
    lake = tmp_path / "lake"
    _ingest([root], lake)
    (root / "A0070").rename(root / "renamed")
    s, _ = _ingest([root], lake, prune=True)
    # read first as a duplicate of the stored A0070, then read again once A0070's rows left: 2 hands taken over
    assert (s.same_content, s.gone_hands, s.taken_over, s.games, s.hands) == (1, 2, 2, 1, 2)
    assert _hands_by_game(lake) == {"coinche-cli:renamed": (2, {str((root / "renamed" / "stream_E.jsonl").resolve())})}


def test_a_copied_folder_in_the_same_run_is_imported_once_and_takes_over_when_the_original_goes(tmp_path):
    root = _tree(tmp_path / "games", A0070=A0070, A0070_copy=A0070)
    lake = tmp_path / "lake"
    s, notes = _ingest([root], lake)
    # A0070 is read first (name order); its copy, read next in the same run, is the same content
    assert (s.games, s.hands, s.duplicates, s.same_content) == (1, 2, 2, 1)
    assert len(notes) == 1 and "game coinche-cli:A0070_copy: the same game as coinche-cli:A0070" in notes[0]
    shutil.rmtree(root / "A0070")
    s, _ = _ingest([root], lake, prune=True)
    assert (s.taken_over, s.games) == (2, 1)
    assert set(_hands_by_game(lake)) == {"coinche-cli:A0070_copy"}


def _read_game(folder: Path):
    """The one game a coinche-cli folder gives (its entry stream read by the reader)."""
    entry = next(folder.glob("stream_*.jsonl"))
    with input_files.open_stream(entry) as fh:
        (rec,) = list(coinche_cli.read(input_files.numbered_lines(fh), str(entry)))
    return rec


def test_content_ignores_the_id_and_the_file_and_nothing_else(tmp_path):
    rec = _read_game(A0070)
    digest = game_copies.content(rec.game, rec.hands)
    # the same game read back from Parquet (structs with every key, lists, int8...) has the same content
    hands = pa.Table.from_pylist(rec.hands, schema=schema.schema("hands")).to_pylist()
    game = pa.Table.from_pylist([rec.game], schema=schema.schema("games")).to_pylist()[0]
    assert game_copies.content(game, hands) == digest
    # another id, file and source ids (a renamed folder): the same content
    moved = [h | {"game_id": "coinche-cli:X", "source_file": "/elsewhere", "source_game_id": "X",
                  "source_hand_id": "X#R1", "hand_key": "k"} for h in hands]
    assert game_copies.content(game | {"game_id": "coinche-cli:X", "game_key": "k"}, moved) == digest
    # any field of a hand key changed, or the game's result: another game
    for field, value in [("players", ["a", "b", "c", "d"]), ("recorded_score", [0, 0]), ("bid", 160),
                         ("plays", list(reversed(hands[0]["plays"]))), ("hand_no", 9)]:
        changed = [hands[0] | {field: value}] + hands[1:]
        assert game_copies.content(game, changed) != digest, field
    assert game_copies.content(game | {"recorded_final": [0, 0]}, hands) != digest
    assert game_copies.content(game, hands[:1]) != digest
