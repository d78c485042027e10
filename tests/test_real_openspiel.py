"""Real records: OpenSpiel python_belote (../shared/data/real/openspiel), both formats, end to end.

Oracle: the engine's own returns (team 0 score minus team 1) under the matching ruleset (`openspiel` when the
game string has use_belote_rebelote=False, `openspiel-belote` when True), FORMAT.md §5-6.
"""

from collections import Counter

import pyarrow.compute as pc
import pytest

from conftest import shared_path
from pipeline import rules
from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    folder = shared_path("data", "real", "openspiel")
    lake = tmp_path_factory.mktemp("openspiel") / "lake"
    s = ingest_paths([folder / "histories.jsonl"], lake)
    return folder, lake, s


def test_counts(lake):
    _, path, s = lake
    # data/real/README.md: 2,400 deals; 3 of them were redealt once (passed-out hand then a played hand)
    assert (s.games, s.hands, sum(s.rejected.values())) == (2400, 2403, 0)
    hands = lakemod.read(path, "hands")
    assert pc.sum(pc.is_null(hands.column("taker"))).as_py() == 3
    assert Counter(hands.column("ruleset_hint").to_pylist()) == Counter({"openspiel": 1201, "openspiel-belote": 1202})


def test_returns_reproduced_under_each_games_own_ruleset(lake):
    _, path, _ = lake
    for name in ("openspiel", "openspiel-belote"):
        s = rescore_lake(path, rules.load(name))
        assert s.illegal == 0
    hands = lakemod.read(path, "hands", columns=["hand_key", "ruleset_hint", "recorded_margin"]).to_pylist()
    scores = {(r["ruleset"], r["hand_key"]): r for r in lakemod.read(path, "scores").to_pylist()}
    checked = 0
    for h in hands:
        if h["recorded_margin"] is None:
            continue
        r = scores[(h["ruleset_hint"], h["hand_key"])]
        assert r["hand_score"][0] - r["hand_score"][1] == h["recorded_margin"], h
        checked += 1
    assert checked == 2400


def _state_files_decode_to_the_same_deals(lake, tmp_path, every: int) -> None:
    """The serialize_game_and_state files hold the same 2,400 deals as histories.jsonl: imported after it, each is
    the same game (same deals, contracts and plays), skipped as a duplicate, never imported twice, no reject; and
    in the other order (the state files first: no results) histories.jsonl, which carries every deal's result,
    replaces them, so the lake ends as if the histories had been read first. ``every``: one state file in
    ``every`` (sorted by name) is read."""
    import shutil

    folder, path, _ = lake
    files = sorted((folder / "games").iterdir())[::every]
    games = tmp_path / "games"
    games.mkdir()
    for f in files:
        shutil.copy(f, games / f.name)
    s = ingest_paths([games], path)
    assert (s.games, s.hands, s.same_game, dict(s.rejected)) == (0, 0, len(files), {})
    other = tmp_path / "state-lake"
    ingest_paths([games], other)
    key = lambda h: (h["game_id"], h["hand_no"])  # noqa: E731
    cols = ["game_id", "hand_no", "dealer", "initial_hands", "turned_card", "auction", "taker", "strain", "plays",
            "play_seats"]
    b = sorted(lakemod.read(other, "hands", columns=cols).to_pylist(), key=key)
    ids = {h["game_id"] for h in b}
    a = sorted((h for h in lakemod.read(path, "hands", columns=cols).to_pylist() if h["game_id"] in ids), key=key)
    assert len(ids) == len(files) and a == b
    s = ingest_paths([folder / "histories.jsonl"], other)
    assert (s.games, s.replaced_by_richer, dict(s.rejected)) == (2400, len(files), {})
    cols = ["hand_key", "recorded_margin", "source_file"]
    assert sorted(lakemod.read(other, "hands", columns=cols).to_pylist(), key=lambda h: h["hand_key"]) == \
        sorted(lakemod.read(path, "hands", columns=cols).to_pylist(), key=lambda h: h["hand_key"])
    assert lakemod.read(other, "games").num_rows == lakemod.read(path, "games").num_rows


def test_state_files_decode_to_the_same_deals(lake, tmp_path):
    # one state file in 20 (120 of the 2,400; every one: the slow test below)
    _state_files_decode_to_the_same_deals(lake, tmp_path, 20)


@pytest.mark.slow
def test_every_state_file_decodes_to_the_same_deal(lake, tmp_path):
    _state_files_decode_to_the_same_deals(lake, tmp_path, 1)
