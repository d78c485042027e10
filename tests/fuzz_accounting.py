"""The accounting fuzz of tests/test_hostile_fuzz.py, run as ``python tests/fuzz_accounting.py FORMAT EXAMPLES``
in a process of its own under a memory limit (RLIMIT_AS; the caller adds the time limit).

Random damage to a valid sample of the format (tests/fuzz_samples.py) is ingested, then every input record must
be in the lake or in the rejects, and nothing else may appear (issue 18). A record is what the format has one of
per game or hand and can be told apart without the reader:

* a line, for the line-per-record formats (native: a game a line; colver deals, CFN positions, OpenSpiel
  histories, score-sheet rows: a hand a line). A line is accounted for by a hand read from it, a reject of that
  line, a reject of the game the line belongs to (colver and score sheets reject a whole game at one of its
  lines: the game id is read from the line itself), a reject of the whole file, or a counted duplicate;
* a game, for the documents holding several (bridgebelot2001 scoring vectors, carg game documents): the damage is
  done to the parsed document, a leaf replaced by a hostile value, so the games of the damaged input are known;
* the file, for one game a file (BGA table, OpenSpiel state, a coinche-cli folder's entry stream; colver's
  games.jsonl, read beside intact deals, accounted by the lines of the deals).

Nothing else: every hand is of a game of the lake, every game and reject comes from the file, a hand's or a
reject's line is a line of the input, and the summary's counts are the lake's rows.
"""

from __future__ import annotations

import copy
import json
import re
import resource
import sys
import tempfile
from pathlib import Path

MEMORY = 3000 << 20
LINE_UNITS = {"rebelote", "colver", "colver-cfn", "openspiel-jsonl", "scoresheet-csv"}
DOC_UNITS = {"bridgebelot2001", "carg-json"}
BESIDE = {"colver-games", "coinche-cli"}
_COLVER_GAME = re.compile(rb'"game_id"\s*:\s*"([^"\\]*)"')
HOSTILE_LEAVES = [None, -1, 0, 2 ** 63, 10 ** 30, 1e308, "", "x" * 300, "../../etc", [], {}, [[[[[]]]]], True,
                  "\u0000", "\ud7ff\ufeff",
                  float("nan"), float("inf")]


def mutate_bytes(data: bytes, ops) -> bytes:
    """Byte damage: cut, insert, flip, copy a stretch, a duplicated "players" key."""
    for op, at, blob in ops:
        i = at % (len(data) + 1)
        if op == "cut":
            data = data[:i]
        elif op == "insert":
            data = data[:i] + blob + data[i:]
        elif op == "flip" and data:
            data = data[:i] + bytes([(data[i % len(data)] + 1) % 256]) + data[i + 1:]
        elif op == "dup":
            data = data[:i] + data[i:i + 200] + data[i:]
        elif op == "key":
            data = data.replace(b'"players":', b'"players":[],"players":', 1)
    return data


def leaves(doc, path=()):
    """Every (path, value) of a parsed JSON document, containers included."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, path + (i,))


def mutate_doc(doc, ops):
    """Structural damage: the value at a path (picked by ``at``) replaced by a hostile one, or removed."""
    for op, at, blob in ops:
        places = [p for p, _ in leaves(doc) if p]
        if not places:
            break
        path = places[at % len(places)]
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        if op == "cut":
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(HOSTILE_LEAVES[(at // 7 + len(blob)) % len(HOSTILE_LEAVES)])
    return doc


def doc_games(fmt: str, doc) -> set[str]:
    """The game ids of a (damaged) document, read as the format's documentation says: bridgebelot2001 numbers the
    scoring vectors (``round-0000``...), carg keys each game document by its id under a game collection, and its
    score documents name their game (a score whose game is gone is a record of that game too)."""
    if fmt == "bridgebelot2001":
        rounds = doc.get("scoring") if isinstance(doc, dict) else None
        return {f"bridgebelot2001:round-{i:04d}" for i in range(len(rounds))} if isinstance(rounds, list) else set()
    colls = doc.get("__collections__") if isinstance(doc, dict) else None
    out = set()
    for name, games in (colls or {}).items() if isinstance(colls, dict) else ():
        m = re.match(r"^(coinche|contree|belote)-(game|score)(?:-[A-Za-z0-9_]+)?$", name)
        if m and isinstance(games, dict):
            out |= {f"carg-{m.group(1)}:{gid}" for gid in games} if m.group(2) == "game" else \
                {f"carg-{m.group(1)}:{d['game']}" for d in games.values() if isinstance(d, dict)
                 and isinstance(d.get("game"), str)}
    return out


def _line_game(fmt: str, line: bytes) -> str | None:
    """The game a line belongs to, read from the line itself (colver's game_id, a score sheet's first column)."""
    if fmt == "colver":
        m = _COLVER_GAME.search(line)
        return m and m.group(1).decode("utf-8", "replace")
    if fmt == "scoresheet-csv":
        return line.split(b",", 1)[0].decode("utf-8", "replace").strip()
    return None


def _table(lakemod, lake: Path, name: str, cols: list[str]) -> list[dict]:
    return lakemod.read(lake, name, cols).to_pylist() if lakemod.has_table(lakemod.locate(lake), name) else []


def account(fmt, lakemod, s, lake: Path, f: Path, data: bytes, games_in: set[str] | None, where: Path) -> None:
    games = _table(lakemod, lake, "games", ["game_id", "source_file"])
    hands = _table(lakemod, lake, "hands", ["game_id", "hand_no", "source_line"])
    rej = _table(lakemod, lake, "rejects", ["source_file", "source_line", "game_id", "hand_no", "reason_code"])
    assert "reader_error" not in s.rejected, s.rejected
    # nothing else: the summary counts the lake's rows, every row comes from the input
    assert (len(games), len(hands)) == (s.games, s.hands), (s, len(games), len(hands))
    assert all(r["source_file"].startswith(str(where)) for r in rej + games), (rej, games)
    gids = {g["game_id"] for g in games}
    assert len(gids) == len(games) and {h["game_id"] for h in hands} <= gids
    rej_games = {r["game_id"] for r in rej if r["game_id"] is not None}
    # a reject of the whole file: no game, and no line, a score sheet's header (line 1) or any line of a document
    # (one JSON value: invalid JSON loses every game of it)
    whole_file = any(r["game_id"] is None and r["source_file"] == str(f)
                     and (r["source_line"] in (None, 1 if fmt == "scoresheet-csv" else None) or fmt in DOC_UNITS)
                     for r in rej)
    if fmt in LINE_UNITS:
        lines = data.split(b"\n")
        units = {i: x for i, x in enumerate(lines, 1) if x.strip() and not (fmt == "scoresheet-csv" and i == 1)}
        hand_lines = [h["source_line"] for h in hands]
        rej_lines = [r["source_line"] for r in rej if r["source_line"] is not None and r["source_file"] == str(f)]
        assert set(hand_lines) <= set(units) and set(rej_lines) <= set(units) | {1}, (hand_lines, rej_lines)
        if fmt != "rebelote":   # a hand a line: no line gives two hands, none is both imported and rejected
            assert len(set(hand_lines)) == len(hand_lines)
        assert not set(hand_lines) & set(rej_lines), (hand_lines, rej_lines)
        lost = [i for i, x in units.items() if i not in hand_lines and i not in rej_lines and not whole_file
                and not any(g == lg or g.endswith(":" + lg) for lg in [_line_game(fmt, x)] if lg for g in rej_games)]
        # a line not accounted for otherwise repeats one imported: the summary counts it as a duplicate
        assert len(lost) <= s.duplicates + s.same_game + s.same_deal, (s, lost)
        if fmt == "rebelote":   # one line, one game: exact
            assert s.games + len(rej_lines) + s.duplicates == len(units), (s, rej_lines, sorted(units))
    elif fmt in DOC_UNITS:
        assert gids <= games_in, (gids, games_in)
        assert rej_games <= games_in or whole_file, (rej_games, games_in)
        lost = games_in - gids - rej_games
        assert not lost or whole_file or len(lost) <= s.duplicates + s.same_game, (s, lost)
    else:   # one game a file (or a folder's)
        assert len(gids) <= 1 and (gids or rej or s.duplicates), (s, gids, rej)


def main(fmt: str, examples: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    import orjson
    from hypothesis import HealthCheck, given, settings, strategies as st

    import fuzz_samples
    from pipeline.storage import lake as lakemod
    from pipeline.ingest.run import ingest_paths
    from pipeline.limits import Limits

    mutation = st.tuples(st.sampled_from(["cut", "insert", "flip", "dup", "key"]), st.integers(0, 10 ** 6),
                         st.binary(min_size=0, max_size=40))
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        samples = {**fuzz_samples.samples(tmp), **fuzz_samples.mutated_samples(tmp)}
        beside = fuzz_samples.beside(fmt, tmp)
    if fmt not in samples or (fmt in BESIDE and not beside):
        print("skip: no sample (../shared absent)")
        return
    name, seed = samples[fmt]

    # the default suite's short run is derandomized (the same inputs every run: a failure there is reproducible,
    # never a flake); the slow run draws new inputs each time, to find new failures
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              derandomize=examples < 100)
    @given(st.lists(mutation, max_size=4))
    def check(ops):
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d) / "in"
            folder.mkdir()
            games_in = None
            if fmt in DOC_UNITS:
                doc = mutate_doc(orjson.loads(seed), ops)
                games_in = doc_games(fmt, doc)
                data = json.dumps(doc, ensure_ascii=False).encode()   # orjson refuses 10 ** 30 and NaN
            else:
                data = mutate_bytes(seed, ops)
            for other, raw in beside.items():
                (folder / other).write_bytes(raw)
            f = folder / name
            f.write_bytes(data)
            lake = Path(d) / "lake"
            bounds = Limits(max_line_bytes=1 << 20, max_bytes=1 << 24)
            if fmt in BESIDE:   # read as its folder: the entry file brings the others
                s = ingest_paths([folder], lake, bounds=bounds)
                if fmt == "colver-games":   # accounted by the deals read beside it
                    account("colver", lakemod, s, lake, folder / "deals.jsonl", beside["deals.jsonl"], None, folder)
                    return
            else:
                s = ingest_paths([f], lake, fmt=fmt, bounds=bounds)
            account(fmt, lakemod, s, lake, f, data, games_in, folder)

    check()
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
