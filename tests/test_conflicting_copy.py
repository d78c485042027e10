"""A conflicting copy of a game id is a reject, an identical copy a counted duplicate (issue 18, finding 3).

The same game id with the same deals and plays but one player renamed was skipped as "already imported from
another file (same deals)", exit 0, nothing in rejects: the renamed record was lost without a word.
"""

from __future__ import annotations

import copy

import orjson
import pyarrow.parquet as pq
from deals import DEAL_A, DEAL_L, native_game, native_hand

from pipeline.ingest.run import ingest_paths


def _game(players=("Ana", "Ben", "Cat", "Dan")):
    return native_game("g1", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_L, 2, taker=1)], players=players)


def _rejects(lake):
    path = lake / "rejects"
    if not path.exists():
        return []
    return pq.read_table(path).to_pylist()


def test_a_renamed_player_in_another_file_is_a_duplicate_game_id_reject(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(orjson.dumps(_game()) + b"\n")
    b.write_bytes(orjson.dumps(_game(("Ana", "Ben", "Cat", "Eve"))) + b"\n")
    lake = tmp_path / "lake"
    first = ingest_paths([a], lake)
    assert (first.games, first.hands) == (1, 2)
    s = ingest_paths([b], lake)
    assert (s.games, sum(s.rejected.values())) == (0, 1)
    (r,) = _rejects(lake)
    assert r["reason_code"] == "duplicate_game_id"
    assert str(a) in r["reason"] and "line 1" in r["reason"]
    assert "players ['Ana', 'Ben', 'Cat', 'Dan'] -> ['Ana', 'Ben', 'Cat', 'Eve']" in r["reason"]


def test_a_renamed_player_in_the_same_file_is_a_reject_and_an_identical_copy_a_duplicate(tmp_path):
    f = tmp_path / "one.jsonl"
    f.write_bytes(b"\n".join([orjson.dumps(_game()), orjson.dumps(copy.deepcopy(_game())),
                              orjson.dumps(_game(("Ana", "Zoe", "Cat", "Dan")))]) + b"\n")
    lake = tmp_path / "lake"
    s = ingest_paths([f], lake)
    # line 1 imported, line 2 the same record (2 hands counted as duplicates), line 3 a conflicting copy
    assert (s.games, s.hands, s.duplicates, dict(s.rejected)) == (1, 2, 2, {"duplicate_game_id": 1})
    (r,) = _rejects(lake)
    assert (r["reason_code"], r["source_line"]) == ("duplicate_game_id", 3)
    assert "players ['Ana', 'Ben', 'Cat', 'Dan'] -> ['Ana', 'Zoe', 'Cat', 'Dan']" in r["reason"]
