"""Rescoring: recompute every hand of the lake under a ruleset.

* :func:`pipeline.rescore.engine.score_batch` — the pure, row-local function hands batch -> scores batch;
* :func:`pipeline.rescore.game.game_pass` — the per-game pass (totals, litige, winner);
* :func:`rescore_lake` — streams the lake's hands through both and writes ``scores`` and
  ``game_scores`` partitions for the ruleset.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from pipeline import lake as lakemod
from pipeline.rescore.engine import score_batch
from pipeline.rescore.game import game_pass
from pipeline.rules import Ruleset

__all__ = ["score_batch", "game_pass", "rescore_lake", "RescoreSummary"]


@dataclass
class RescoreSummary:
    """Counts of one rescoring run; ``str()`` is the one-line summary."""

    ruleset: str
    hands: int = 0
    games: int = 0
    status: Counter = field(default_factory=Counter)
    illegal: int = 0
    recorded: int = 0
    matches: int = 0
    games_recorded: int = 0
    games_matched: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        st = ", ".join(f"{v} {k}" for k, v in sorted(self.status.items()))
        rec = f", recorded score matched {self.matches}/{self.recorded}" if self.recorded else ""
        if self.games_recorded:
            rec += f", recorded game totals matched {self.games_matched}/{self.games_recorded}"
        return (f"rescore [{self.ruleset}]: {self.hands} hands ({st}), {self.games} games, {self.illegal} with an "
                f"illegal play{rec}, {self.seconds:.2f} s, {rate:,.0f} hands/s")


def rescore_lake(lake: Path, rules: Ruleset, batch_size: int = 262_144) -> RescoreSummary:
    """Rescore every hand in ``lake`` under ``rules``; replace ``scores/ruleset=<name>`` and
    ``game_scores/ruleset=<name>``. Memory is bounded by ``batch_size`` for the hand pass; the game
    pass keeps one small row per hand (a few columns)."""
    with lakemod.lock(lake):
        return _rescore(lake, rules, batch_size)


def _rescore(lake: Path, rules: Ruleset, batch_size: int) -> RescoreSummary:
    t0 = time.perf_counter()
    summary = RescoreSummary(rules.name)
    slim: list[pa.Table] = []

    def batches():
        for b in lakemod.iter_batches(lake, "hands", batch_size=batch_size):
            s = score_batch(b, rules)
            summary.hands += s.num_rows
            summary.status.update(s.column("status").to_pylist())
            summary.illegal += int(pc.sum(pc.invert(pc.fill_null(s.column("legal"), True))).as_py() or 0)
            mr = s.column("matches_recorded")
            summary.recorded += s.num_rows - mr.null_count
            summary.matches += int(pc.sum(pc.fill_null(mr, False)).as_py() or 0)
            slim.append(s.select(["game_id", "hand_no", "source", "status", "hand_score", "held_points", "litige",
                                  "taker_team", "contract_made", "capot_team", "carried_in"]))
            yield s

    lakemod.replace_partition(lake, "scores", rules.name, batches())
    if slim:
        targets = None
        if rules["game.target_from_record"]:
            games = lakemod.read(lake, "games", columns=["game_id", "target"]).to_pylist()
            targets = {g["game_id"]: g["target"] for g in games if g["target"]}
        g = game_pass(pa.concat_tables(slim), rules, targets)
        summary.games = g.num_rows
        final = {r["game_id"]: r["recorded_final"] for r in
                 lakemod.read(lake, "games", columns=["game_id", "recorded_final"]).to_pylist() if r["recorded_final"]}
        for gid, totals in zip(g.column("game_id").to_pylist(), g.column("totals").to_pylist()):
            if gid in final:
                summary.games_recorded += 1
                summary.games_matched += totals == final[gid]
        lakemod.replace_partition(lake, "game_scores", rules.name, [g])
    # which parameters these scores were computed with (pyarrow and DuckDB skip files starting with "_")
    part = lakemod.table_dir(lake, "scores") / f"ruleset={rules.name}"
    if part.is_dir():
        (part / "_ruleset.json").write_text(json.dumps(
            {"name": rules.name, "chain": list(rules.chain), "params": rules.params, "sources": rules.sources},
            indent=1, ensure_ascii=False, sort_keys=True))
    summary.seconds = time.perf_counter() - t0
    return summary
