"""Regression harness for ``score_batch``: every output column, under every ruleset, compared exactly.

    python benchmarks/score_regression.py save DIR        # build the pool (once), score it, save every column
    python benchmarks/score_regression.py compare BASE NEW # score BASE's pool again into NEW, compare with BASE

The pool is a fixed set of hands (``DIR/pool.parquet``, built on the first ``save`` and reused afterwards,
so that a change in the engine cannot change the input: the simulator itself calls the engine):

* simulated games of 4-player rulesets of every auction style (belote-classic, pagat-coinche, bulgarian,
  bulgarian-2001, colver, ffb-coinche-2015), 2 players (belote-2p), 3 players (belote-3p and a 24-card
  3-player house rule);
* corrupted copies of some of those hands (1-3 corruptions each, fresh hand_key): illegal plays (two cards of
  one seat swapped between tricks, a card taken from another seat, a play by the wrong seat, a truncated play
  record, a null card), tricks_taken and summary and deal completeness, passed-out hands, coinche /
  surcoinche, capot bids, a taker's team without the seat, announced declarations (the held ones, partial,
  junk, empty), recorded scores and margins (matching, wrong, wrong length), forced strains (incl. null),
  missing or short initial hands, bids, dealers, carried-in points, hands dealt as long runs (many declarations
  per hand).

Every ruleset of ``rebelote rules list`` plus a few house rulesets (``HOUSE``, for the parameter values no
shipped ruleset uses) scores the whole pool (hands of another player count get their reason); the output is
saved as ``DIR/scores-<ruleset>.parquet``. Each run also checks batch-split invariance: the pool cut at
random points (its first rows into batches of 1 to 9 rows) and scored slice by slice must give the same table. ``compare`` exits 1 and names the ruleset,
column and first rows of any difference (nulls included), 0 when every column is identical.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # this checkout's pipeline, not an installed one

from pipeline import rules as rules_mod  # noqa: E402

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.cards import STRAINS  # noqa: E402
from pipeline.rescore import score_batch  # noqa: E402
from pipeline.rescore.declarations import list_held  # noqa: E402
from pipeline.simulate.games import simulate  # noqa: E402

# house rulesets: parameter values no shipped ruleset sets (file name -> TOML text)
HOUSE = {
    "house-3p-24": 'extends = "belote-3p"\n[deal]\ntricks = 8\ndeck = 24\n'
                   '[declarations]\non_capot = "to_capot_team"\ncount = "announced_else_held"\n'
                   '[contract]\nsolo_made = "combined"\nsolo_fail = "own"\n',
    "house-3p-lost": 'extends = "belote-3p"\n[declarations]\non_capot = "lost"\ncontest = "separate"\n'
                     '[rounding]\nmode = "nearest10_6up"\n',
    "house-4p": 'extends = "ffb-coinche-2015"\n[declarations]\non_capot = "lost"\ncontest = "sequences_only"\n'
                '[rounding]\nmode = "nearest10_6up"\n[play]\nrevoke_penalty = 10\n'
                '[contract]\nmade_test_rounded = true\n',
    "house-4p-capot": 'extends = "belote-classic"\n[declarations]\non_capot = "to_capot_team"\n'
                      'count = "announced"\n',
    "house-2p": 'extends = "belote-2p"\n[declarations]\ncontest = "separate"\n'
                'carre_cards_in_sequences = false\n',
}

# simulated sources of the pool: (ruleset, games, seed)
SOURCES = [("belote-classic", 500, 11), ("pagat-coinche", 500, 12), ("bulgarian", 450, 13),
           ("bulgarian-2001", 300, 14), ("colver", 250, 15), ("ffb-coinche-2015", 300, 16),
           ("belote-2p", 250, 17), ("belote-3p", 300, 18), ("house-3p-24", 300, 19)]
CORRUPT_SHARE = 0.5      # corrupted copies made, as a share of the simulated hands
SPLITS = 5               # random cut points of the batch-split check
SMALL = 1500             # rows of the batch-split check scored in batches of 1 to 9 rows


def house_dir(root: Path) -> Path:
    """Write the house rulesets into ``root/house`` and return that folder."""
    d = root / "house"
    d.mkdir(parents=True, exist_ok=True)
    for name, text in HOUSE.items():
        (d / f"{name}.toml").write_text(f'name = "{name}"\ndescription = "regression harness house rule"\n{text}')
    return d


def load_rules(name: str, hd: Path):
    return rules_mod.load(hd / f"{name}.toml" if name in HOUSE else name)


def all_rulesets() -> list[str]:
    """Every shipped ruleset name (as `rebelote rules list`) then the house ones."""
    return rules_mod.shipped_names() + list(HOUSE)


def _corrupt(row: dict, rng: np.random.Generator, R_hint) -> dict:
    """One corruption of a hand row (a dict of the hands table), chosen at random."""
    n = row["n_players"]
    kinds = ["swap_same_seat", "swap_any", "seat", "truncate", "null_card", "tricks_taken", "summary", "deal",
             "passed", "coinche", "capot_bid", "team_only", "announced", "recorded", "margin", "strain",
             "no_hands", "bid", "dealer", "carried_in", "runs"]
    kind = kinds[rng.integers(len(kinds))]
    plays, seats = row["plays"], row["play_seats"]
    if kind == "swap_same_seat" and plays:
        s = seats[rng.integers(len(seats))]
        pos = [j for j, x in enumerate(seats) if x == s]
        if len(pos) >= 2:      # an earlier corruption may have left the seat one play
            a, b = rng.choice(pos, 2, replace=False)
            plays[a], plays[b] = plays[b], plays[a]
    elif kind == "swap_any" and plays:
        a, b = rng.choice(len(plays), 2, replace=False)
        plays[a], plays[b] = plays[b], plays[a]
    elif kind == "seat" and plays:
        j = rng.integers(len(seats))
        seats[j] = int((seats[j] + 1 + rng.integers(n - 1)) % n) if rng.random() < 0.9 else 7
    elif kind == "truncate" and plays:
        k = int(rng.integers(1, 4))
        row["plays"], row["play_seats"] = plays[:-k], seats[:-k]
    elif kind == "null_card" and plays:
        plays[rng.integers(len(plays))] = None
    elif kind == "tricks_taken" and row["initial_hands"]:
        cards = [c for c in range(32) if any(h >> c & 1 for h in row["initial_hands"])]
        mode = rng.integers(4)
        if mode == 0:          # one seat takes everything
            owner = np.full(len(cards), rng.integers(n))
        elif mode == 1:        # one seat takes nothing
            out = rng.integers(n)
            owner = np.array([(out + 1 + rng.integers(n - 1)) % n for _ in cards])
        else:
            owner = rng.integers(n, size=len(cards))
        taken = [0] * n
        for c, o in zip(cards, owner):
            taken[o] |= 1 << c
        row["completeness"] = "tricks_taken"
        row["tricks_taken"] = taken if rng.random() < 0.9 else taken[:-1]
        row["last_trick_seat"] = int(owner[-1]) if rng.random() < 0.9 else None
        row["plays"] = row["play_seats"] = None
        if rng.random() < 0.3:
            row["initial_hands"] = None
    elif kind == "summary":
        row["completeness"] = "summary"
        row["initial_hands"] = row["plays"] = row["play_seats"] = None
    elif kind == "deal":
        row["completeness"] = "deal"
        row["taker"] = row["strain"] = row["bid"] = row["taker_team"] = None
        row["plays"] = row["play_seats"] = None
    elif kind == "passed":
        row["taker"] = row["strain"] = row["bid"] = row["taker_team"] = None
        row["capot_bid"], row["coinche"] = False, 0
    elif kind == "coinche":
        row["coinche"] = int(rng.integers(1, 3))
    elif kind == "capot_bid":
        row["capot_bid"], row["bid"] = True, None
    elif kind == "team_only" and row["taker"] is not None:
        row["taker_team"], row["taker"] = row["taker"] % 2, None
    elif kind == "announced" and row["initial_hands"] and row["strain"] is not None:
        strain = STRAINS.index(row["strain"])
        ann = []
        for seat, h in enumerate(row["initial_hands"]):
            for kind_, rank, suit, length, _ in list_held(h, strain, R_hint):
                ann.append({"seat": seat, "kind": kind_, "rank": rank, "suit": suit,
                            "length": length if rng.random() < 0.8 else None})
            for suit in range(4):
                if h >> (8 * suit + 5) & 1 and h >> (8 * suit + 6) & 1 and (suit == strain or strain == 5):
                    ann.append({"seat": seat, "kind": "belote", "rank": None, "suit": suit, "length": 2})
        mode = rng.integers(4)
        if mode == 1:
            ann = [a for a in ann if rng.random() < 0.5]
        elif mode == 2:
            ann.append({"seat": int(rng.integers(n)), "kind": ["tierce", "quarte", "quinte", "carre", "belote"][
                rng.integers(5)], "rank": int(rng.integers(8)), "suit": int(rng.integers(4)),
                "length": [None, 3, 4, 6, 8][rng.integers(5)]})
        elif mode == 3:
            ann = []
        row["announced"] = ann
    elif kind == "recorded":
        K = 3 if n == 3 else 2
        mode = rng.integers(3)
        if mode == 0 and row["recorded_score"]:
            row["recorded_score"] = [x + int(rng.integers(-1, 2)) * 10 for x in row["recorded_score"]]
        elif mode == 1:
            row["recorded_score"] = [int(x) for x in rng.integers(0, 300, K + int(rng.integers(-1, 2)))]
        else:
            row["recorded_score"] = None
    elif kind == "margin":
        row["recorded_score"] = None
        row["recorded_margin"] = int(rng.integers(-300, 300))
    elif kind == "strain":
        row["strain"] = STRAINS[rng.integers(6)] if rng.random() < 0.85 else None
    elif kind == "no_hands":
        if rng.random() < 0.5:
            row["initial_hands"] = None
        elif row["initial_hands"]:
            row["initial_hands"] = row["initial_hands"][:-1]
    elif kind == "bid":
        row["bid"] = None if rng.random() < 0.3 else int(rng.integers(8, 17)) * 10
    elif kind == "dealer":
        row["dealer"] = int(rng.integers(n))
    elif kind == "carried_in":
        row["carried_in"] = int(rng.integers(0, 200))
    elif kind == "runs" and row["initial_hands"]:
        # the pack dealt in order from a random card: long runs, carrés after a rotation by 8, many declarations
        # per hand (the plays no longer match: the hand is also illegal)
        per = bin(row["initial_hands"][0]).count("1") or 8
        start = int(rng.integers(32))
        step = 8 if rng.random() < 0.5 else 1
        order = [(start + k * step + k * step // 32) % 32 for k in range(32)]
        row["initial_hands"] = [sum(1 << c for c in order[p * per:(p + 1) * per]) for p in range(n)]
    return row


def build_pool(hd: Path, seed: int = 2024) -> pa.Table:
    """The fixed pool of hands (see module doc), as a hands table."""
    hs = schema.schema("hands")
    rows: list[dict] = []
    for name, games, s in SOURCES:
        R = load_rules(name, hd)
        for g in simulate(R, games, s):
            g["source"] = name
            _, hr = native.game_to_rows(g, "rebelote", f"<sim {name}>", None)
            rows.extend(hr)
    rng = np.random.default_rng(seed)
    n_sim = len(rows)
    R_hint = rules_mod.load("ffb-coinche-2015")
    picks = rng.choice(n_sim, int(n_sim * CORRUPT_SHARE), replace=False)
    extra = []
    for q, i in enumerate(picks):
        row = {k: (list(v) if isinstance(v, list) else v) for k, v in rows[i].items()}
        for _ in range(int(rng.integers(1, 4))):
            row = _corrupt(row, rng, R_hint)
        row["hand_key"] = f"{row['hand_key']}~c{q}"
        extra.append(row)
    rows.extend(extra)
    order = rng.permutation(len(rows))        # mix families and corruptions in every batch
    return pa.Table.from_pylist([rows[i] for i in order], schema=hs)


def split_score(pool: pa.Table, R, rng: np.random.Generator) -> pa.Table:
    """score_batch over ``pool`` cut at SPLITS random points, and its first SMALL rows in batches of 1 to 9 rows
    (small batches fill the declaration items' first room differently), the slices' results concatenated."""
    cuts = np.sort(rng.choice(np.arange(SMALL + 1, pool.num_rows), SPLITS, replace=False))
    small = np.cumsum(rng.integers(1, 10, SMALL))
    small = small[small < SMALL].tolist()
    bounds = [0, *small, SMALL, *cuts.tolist(), pool.num_rows]
    return pa.concat_tables([score_batch(pool.slice(a, b - a), R) for a, b in zip(bounds, bounds[1:])])


def diff(a: pa.Table, b: pa.Table, what: str, limit: int = 5) -> list[str]:
    """Every column of a and b that differs (values or nulls), with its first differing rows."""
    out = []
    if a.schema != b.schema:
        out.append(f"{what}: schemas differ:\n{a.schema}\n---\n{b.schema}")
        return out
    if a.num_rows != b.num_rows:
        return [f"{what}: {a.num_rows} rows vs {b.num_rows}"]
    for name in a.column_names:
        ca, cb = a.column(name), b.column(name)
        if ca.equals(cb):
            continue
        la, lb = ca.to_pylist(), cb.to_pylist()
        bad = [i for i in range(len(la)) if la[i] != lb[i]]
        if not bad:
            continue      # equal as Python values (e.g. chunking); equals() is stricter on layout
        ex = "; ".join(f"row {i} ({a.column('hand_key')[i]}): {la[i]!r} != {lb[i]!r}" for i in bad[:limit])
        out.append(f"{what}: column {name}: {len(bad)} rows differ: {ex}")
    return out


def run(pool: pa.Table, hd: Path, out: Path | None, only: list[str] | None = None) -> tuple[dict[str, pa.Table], list[str]]:
    """Score the pool under every ruleset; save each table into ``out`` (when given); returns (tables, problems)."""
    rng = np.random.default_rng(7)
    tables, problems = {}, []
    for name in only or all_rulesets():
        R = load_rules(name, hd)
        t0 = time.process_time()
        whole = score_batch(pool, R)
        dt = time.process_time() - t0
        problems += diff(whole, split_score(pool, R, rng), f"{name} batch split")
        tables[name] = whole
        if out is not None:
            pq.write_table(whole, out / f"scores-{name}.parquet")
        st = whole.column("status").value_counts().to_pylist()
        print(f"{name:22s} {pool.num_rows} rows {dt:.2f} CPU-s  "
              + ", ".join(f"{d['values']} {d['counts']}" for d in st), flush=True)
    return tables, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save", help="score the pool and save every ruleset's output into DIR")
    s.add_argument("dir", type=Path)
    c = sub.add_parser("compare", help="score BASE's pool again (saved into NEW) and compare with BASE")
    c.add_argument("base", type=Path)
    c.add_argument("new", type=Path)
    for p in (s, c):
        p.add_argument("--rules", action="append", help="only these rulesets (default: all)")
    a = ap.parse_args(argv)
    base = a.dir if a.cmd == "save" else a.base
    base.mkdir(parents=True, exist_ok=True)
    hd = house_dir(base)
    pool_path = base / "pool.parquet"
    if pool_path.exists():
        pool = pq.read_table(pool_path)
    else:
        t0 = time.perf_counter()
        pool = build_pool(hd)
        pq.write_table(pool, pool_path)
        print(f"pool: {pool.num_rows} hands built in {time.perf_counter() - t0:.1f} s -> {pool_path}")
    if a.cmd == "save":
        _, problems = run(pool, hd, base, a.rules)
    else:
        a.new.mkdir(parents=True, exist_ok=True)
        tables, problems = run(pool, hd, a.new, a.rules)
        for name, t in tables.items():
            ref = base / f"scores-{name}.parquet"
            if not ref.exists():
                problems.append(f"{name}: no baseline {ref}")
                continue
            problems += diff(pq.read_table(ref), t, name)
        if not problems:
            print(f"identical: {len(tables)} rulesets x {pool.num_rows} hands, every column")
    for p in problems:
        print("DIFF", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
