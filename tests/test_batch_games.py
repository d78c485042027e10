"""The game pass run beside the hand pass (pipeline/rescore/batch_games.py) gives the rows of the sorted pass.

The sorted pass (pipeline/rescore/sorted_games.py: the written scores sorted by game, then game_pass) is the
reference: it sees every game whole whatever the order of the hand files. The batch pass closes a game when the
next one starts and carries the last game of a batch into the next; a game met again after it was closed is
"late" and scored again by the sorted pass. Here one game's first hand is moved to the end of its file, so that
read 17 hands at a time (a batch ends inside most games of 10 to 20 hands) the game is closed and met again (late), and read whole it is the file's last game
(carried into the next file, non-contiguous inside one batch).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pipeline.facts import derived
from pipeline.rescore import batch_games, rescore_lake
from pipeline.rescore.sorted_games import game_results
from pipeline.rules import load
from pipeline.storage import lake as lakemod

from test_player_facts_paths import lake  # noqa: F401  (the fixture)


def _of(t: pa.Table, ruleset: str) -> pa.Table:
    t = t.filter(pc.equal(t.column("ruleset"), ruleset))
    keys = [k for k in ("game_id", "player", "player_a", "player_b") if k in t.column_names]
    return t.sort_by([(k, "ascending") for k in keys])


def _split_game(lake_dir: Path) -> str:
    """Move the first hand of a 4-player game of several hands, one not last in its file, to the file's end;
    returns the game's id."""
    for f in sorted((lake_dir / "hands").rglob("*.parquet")):
        t = pq.read_table(f)
        gid = t.column("game_id").to_pylist()
        order = list(dict.fromkeys(gid))
        for g in order[1:-1]:
            rows = [i for i, x in enumerate(gid) if x == g]
            if len(rows) >= 3 and t.column("n_players")[rows[0]].as_py() == 4:
                rest = [i for i in range(t.num_rows) if i != rows[0]]
                pq.write_table(t.take(pa.array(rest + [rows[0]])), f)
                return g
    raise AssertionError("no game to split")


@pytest.mark.parametrize("batch_size, late", [(17, True), (100_000, False)])
def test_batch_pass_gives_the_sorted_pass_rows(lake: Path, tmp_path: Path, monkeypatch, batch_size: int,  # noqa: F811
                                               late: bool):
    whole = tmp_path / "whole"
    shutil.copytree(lake, whole)
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    game = _split_game(copy)
    seen = []
    finish = batch_games.BatchGames.finish

    def spy(self):
        out = finish(self)
        seen.append(self.late.to_pylist())
        return out
    monkeypatch.setattr(batch_games.BatchGames, "finish", spy)
    for r in ("pagat-coinche", "belote-classic", "belote-3p"):
        rules = load(r)
        want = rescore_lake(whole, rules, batch_size=batch_size)
        got = rescore_lake(copy, rules, batch_size=batch_size)
        # the same games and recorded totals counted as on the lake whose games are whole in their files
        assert (got.games, got.games_recorded, got.games_matched, got.games_partial) == \
               (want.games, want.games_recorded, want.games_matched, want.games_partial), r
        assert _of(lakemod.read(copy, "game_scores"), r).num_rows == got.games
        _check_against_sorted_pass(copy, rules)
    moved = [game in ids for ids in seen]
    assert any(moved) == late, seen     # found late only when it was closed before its last hand came


def _check_against_sorted_pass(copy: Path, rules) -> None:
    """game_scores as the sorted pass gives them over the written scores, player_games / pair_games as the
    whole-lake SQL gives them."""
    r = rules.name
    written = _of(lakemod.read(copy, "game_scores"), r)
    with lakemod.lock(copy):
        sorted_rows = _of(pa.concat_tables(list(game_results(copy, rules))), r)
    assert written.num_rows == sorted_rows.num_rows > 0
    assert written.select(sorted_rows.column_names).equals(sorted_rows), r
    tables = {name: _of(lakemod.read(copy, name), r) for name in ("player_games", "pair_games")}
    with lakemod.lock(copy):
        derived.materialize(copy, r)
    for name, t in tables.items():
        again = _of(lakemod.read(copy, name), r)
        assert t.num_rows == again.num_rows and t.equals(again.select(t.column_names)), (r, name)


@pytest.mark.parametrize("batch_size", [17, 100_000])
def test_hands_without_any_games_row(lake: Path, tmp_path: Path, batch_size: int):  # noqa: F811
    """No games row at all (the hands of games the lake has no games row for are scored, their game_key
    null): every game is late, scored by the sorted pass; none has recorded totals to compare."""
    from pipeline.storage import lake_write

    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    ids = set(lakemod.read(copy, "games", columns=["game_id"]).column("game_id").to_pylist())
    with lakemod.lock(copy):
        lake_write.delete_rows(copy, "games", "game_id", ids)
    for r in ("pagat-coinche", "belote-classic"):
        rules = load(r)
        got = rescore_lake(copy, rules, batch_size=batch_size)
        assert got.games == len(set(lakemod.read(copy, "hands", columns=["game_id"]).column("game_id").to_pylist()))
        assert (got.games_recorded, got.games_matched) == (0, 0)
        _check_against_sorted_pass(copy, rules)


@pytest.mark.parametrize("batch_size", [17, 100_000])
def test_a_duplicate_games_row_with_nulls_first(lake: Path, tmp_path: Path, batch_size: int):  # noqa: F811
    """A game with two games rows, the first (in file order) without target and recorded totals: the sorted
    pass's any_value takes each column's first non-null value, so the game's recorded totals are compared as
    on the lake without the duplicate."""
    whole = tmp_path / "whole"
    shutil.copytree(lake, whole)
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    for f in sorted((copy / "games").rglob("*.parquet")):
        t = pq.read_table(f, partitioning=None)
        for c in ("target", "recorded_final"):
            t = t.set_column(t.column_names.index(c), t.schema.field(c), pa.nulls(t.num_rows, t.schema.field(c).type))
        pq.write_table(t, f.parent / ("part-0-" + f.name[len("part-"):]))   # sorted before the original
    for r in ("pagat-coinche", "belote-classic"):
        rules = load(r)
        want = rescore_lake(whole, rules, batch_size=batch_size)
        got = rescore_lake(copy, rules, batch_size=batch_size)
        assert want.games_recorded > 0
        assert (got.games, got.games_recorded, got.games_matched, got.games_partial) == \
               (want.games, want.games_recorded, want.games_matched, want.games_partial), r
        _check_against_sorted_pass(copy, rules)


def test_game_keys_held_as_bytes_give_back_the_text():
    """The index holds 32-digit lowercase hex game keys as 16 bytes (batch_games._key_bytes) and gives back the
    very text (_key_text), nulls and slices included; any other key (upper case, other length, not hex) keeps
    the text."""
    import hashlib

    keys = [hashlib.sha256(str(i).encode()).hexdigest()[:32] for i in range(50)]
    keys[3] = keys[49] = None
    a = pa.array(keys, pa.string())
    for part in (a, a.slice(2, 30), a.slice(0, 0), pa.chunked_array([a.slice(0, 7), a.slice(7)])):
        b = batch_games._key_bytes(part)
        assert b.type == pa.binary(16) and len(b) == len(part)
        assert batch_games._key_text(b).to_pylist() == part.to_pylist()
        assert batch_games._key_text(b.slice(1)).to_pylist() == part.to_pylist()[1:]
    for other in (keys[0].upper(), keys[0][:31], "g" * 32, keys[0] + "0"):
        assert batch_games._key_bytes(pa.array([keys[0], other])) is None


def test_games_with_keys_that_are_not_hex(lake: Path, tmp_path: Path):  # noqa: F811
    """Games whose game_key is not a content key (here a file of games, read after the others, whose keys were
    rewritten as text): the index turns every key back to text, and game_scores carries each game's key as the
    sorted pass gives it."""
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    files = sorted((copy / "games").rglob("*.parquet"))
    t = pq.read_table(files[-1], partitioning=None)
    half = t.num_rows // 2
    assert half > 0
    moved = t.slice(half)
    moved = moved.set_column(moved.column_names.index("game_key"), "game_key",
                             pc.binary_join_element_wise("key-", moved.column("game_key"), ""))
    pq.write_table(t.slice(0, half), files[-1])
    pq.write_table(moved, files[-1].parent / ("zz-" + files[-1].name))     # read after every other file
    rules = load("belote-classic")
    rescore_lake(copy, rules, batch_size=7)
    written = _of(lakemod.read(copy, "game_scores"), rules.name).select(["game_id", "game_key"]).to_pylist()
    assert {r["game_key"] for r in written if r["game_id"] in set(moved.column("game_id").to_pylist())} == \
           set(moved.column("game_key").to_pylist())
    _check_against_sorted_pass(copy, rules)


def test_game_codes_by_their_definition():
    """rescore.game_codes (vectorised) against its definition game by game: 0 no recorded totals (null or empty)
    or a foreign game, 1 some hands unscorable, 2 totals differ (length or an item, nulls equal to nulls), 3 equal;
    on a slice of the tables, as a batch's closed games may come."""
    from pipeline.rescore import game_codes

    rows = [  # (game_id, totals, recorded_final, unscorable_hands, code)
        ("a", [162, 0], [162, 0], 0, 3), ("b", [162, 0], [160, 2], 0, 2), ("c", [162, 0], None, 0, 0),
        ("d", [162, 0], [], 0, 0), ("e", [162, 0], [162, 0], 2, 1), ("f", [162, 0], [162, 0], 0, 0),
        ("g", [81, 81, 0], [81, 81], 0, 2), ("h", None, [1, 2], 0, 2), ("i", [None, 5], [None, 5], None, 3),
        ("j", [None, 5], [0, 5], 0, 2), ("k", [1, 2], [1, 2], 0, 3)]
    g = pa.table({"game_id": [r[0] for r in rows], "totals": pa.array([r[1] for r in rows], pa.list_(pa.int32())),
                  "unscorable_hands": pa.array([r[3] for r in rows], pa.int32())})
    final = pa.array([r[2] for r in rows], pa.list_(pa.int32()))
    foreign = pa.array(["f"])
    assert game_codes(g, final, foreign).tolist() == [r[4] for r in rows]
    assert game_codes(g.slice(3), pa.chunked_array([final.slice(3, 4), final.slice(7)]), foreign).tolist() == \
        [r[4] for r in rows[3:]]
    assert game_codes(g, final, pa.array([], pa.string())).tolist()[5] == 3
    assert game_codes(g.slice(0, 0), final.slice(0, 0), foreign).tolist() == []
