"""Valid samples of every reader's format for the fuzz tests (tests/test_fuzz.py, tests/test_hostile_fuzz.py):
hand-built native games (tests/deals.py), the fixtures under tests/fixtures and the first records of the real
files under ../shared/data/real (a reader whose sample needs ../shared has none when it is absent)."""

from __future__ import annotations

from pathlib import Path

import orjson

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand

HERE = Path(__file__).parent


def native_bytes(tmp: Path) -> bytes:
    games = [native_game("f1", [native_hand(DEAL_A, 1, taker=0), native_hand(DEAL_L, 2, taker=1)]),
             native_game("f2", [native_hand(DEAL_K, 1, taker=2, bid=90, coinche=1)], variant="coinche")]
    return write_jsonl(tmp / "seed.jsonl", games).read_bytes()


def samples(tmp: Path) -> dict[str, tuple[str, bytes]]:
    """reader name -> (file name, bytes) of a valid sample of that reader's format."""
    out = {"rebelote": ("games.jsonl", native_bytes(tmp))}
    fx = HERE / "fixtures"
    for name, path in [("bga", fx / "bga" / "logs" / "table_700000102.json"),
                       ("scoresheet-csv", fx / "scoresheets" / "club_sheet.csv"),
                       ("carg-json", fx / "scoresheets" / "carg_dump.json")]:
        if path.exists():
            out[name] = (path.name, path.read_bytes())
    colver = HERE.parents[1] / "shared" / "data" / "real" / "colver" / "deals.jsonl"
    if colver.exists():
        out["colver"] = ("deals.jsonl", b"".join(colver.open("rb").readlines()[:30]))
    # colver CFN: the quirk fixtures (a played deal, coinche, surcoinche, capot, passed out, opening position)
    cfn = HERE / "fixtures" / "colver_cfn"
    out["colver-cfn"] = ("deals.cfn", b"".join((cfn / n).read_bytes() for n in
                                                ("final.cfn", "coinched.cfn", "capot.cfn", "passed_out.cfn", "initial.cfn")))
    openspiel = HERE.parents[1] / "shared" / "data" / "real" / "openspiel" / "histories.jsonl"
    if openspiel.exists():
        out["openspiel-jsonl"] = ("histories.jsonl", b"".join(openspiel.open("rb").readlines()[:20]))
    state = openspiel.parent / "games" / "seed_00001.txt"
    if state.exists():
        out["openspiel-state"] = (state.name, state.read_bytes())
    golden = HERE.parents[1] / "shared" / "oracles" / "bridgebelot2001" / "golden_score.json"
    if golden.exists():   # the first 8 scoring vectors, in the file's own layout
        rounds = orjson.loads(golden.read_bytes())["scoring"][:8]
        out["bridgebelot2001"] = ("golden_score.json", orjson.dumps({"scoring": rounds}))
    return out


def beside(reader: str, tmp: Path) -> dict[str, bytes]:
    """Files a reader reads beside the one mutated (left intact): colver's deals.jsonl for games.jsonl (its
    first game, g0000: 13 deals), a coinche-cli game folder's other files for its entry stream."""
    real = HERE.parents[1] / "shared" / "data" / "real"
    if reader == "colver-games":
        deals = real / "colver" / "deals.jsonl"
        return {"deals.jsonl": b"".join(deals.open("rb").readlines()[:13])} if deals.exists() else {}
    if reader == "coinche-cli":
        game = real / "coinche-cli" / "games" / "scripted_4clients" / "B0001"
        return {f.name: f.read_bytes() for f in sorted(game.iterdir()) if f.name != "stream_N.jsonl"} \
            if game.exists() else {}
    return {}


def mutated_samples(tmp: Path) -> dict[str, tuple[str, bytes]]:
    """The samples of the readers fuzzed inside their folder: the file mutated and read (colver's games.jsonl is
    read as the sidecar of deals.jsonl, so the folder is given; coinche-cli reads its entry stream)."""
    real = HERE.parents[1] / "shared" / "data" / "real"
    out = {}
    games = real / "colver" / "games.jsonl"
    if games.exists():
        out["colver-games"] = ("games.jsonl", b"".join(games.open("rb").readlines()[:2]))
    stream = real / "coinche-cli" / "games" / "scripted_4clients" / "B0001" / "stream_N.jsonl"
    if stream.exists():
        out["coinche-cli"] = ("stream_N.jsonl", stream.read_bytes())
    return out
