"""`rebelote analyse`: the double-dummy analysis of the lake's hands (issue 22), written to the ``dd_hands`` table.

For each hand of 2, 3 or 4 players with its deal, its whole play and a contract scored under the ruleset (and
every play legal), the solver (:mod:`pipeline.rescore.dd_solver`) gives, with every hand visible and best play
by all:

* the taker's side's card points in the contract's strain from the deal, and in every strain the ruleset plays
  (``dd_by_strain``, the par strain its best). The taker's side: his partnership with 4 players, himself with 2
  or 3 (with 3, against the two others as one side);
* whether the contract was makeable: with 2 or 4 players, those card points, scaled as the rescoring scales
  them, with the hand's declarations and belote as the rescoring scored them, through the ruleset's own made
  test (:func:`pipeline.rescore.contract.settle`); with 3 players, whose made test compares the taker with each
  opponent (not a sum of card points), by the search of :mod:`pipeline.rescore.dd_solo`, which scores each
  line of play as the rescoring does;
* for every card played, what it cost its player's side: the best value any legal card kept minus the value
  after the card played (:func:`pipeline.rescore.dd_solver.card_values`), 0 for an optimal card.

The hands are read from the lake with the ruleset's stored scores (a ruleset is scored first by the caller),
analysed in worker processes by batches, and the ruleset's partition of ``dd_hands`` is replaced in one
transaction. ``sample`` analyses that many hands chosen by their keys' hash (the same hands every time).
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipeline.storage import lake as lakemod

from pipeline.storage import lake_write

from pipeline.stats import report_rules

from pipeline.storage import schema

from pipeline.stats import reports as stats
from pipeline.cards import ALL_TRUMP, NO_TRUMP, STRAINS
from pipeline.rescore import dd_solo, dd_solver as dd
from pipeline.rescore.contract import settle
from pipeline.rescore.declaration_contest import on_capot
from pipeline.rules import n_teams

TABLE = "dd_hands"
#: hands a worker analyses at a time (a job: a few are in flight per worker)
BATCH = 64
#: the bid levels tried for ``makeable_bid`` (80 to 160), and the value that stands for a capot bid
LEVELS = list(range(80, 170, 10))
CAPOT_LEVEL = 250

#: the hands analysed, with what the made test needs from the ruleset's scores
HANDS_SQL = """
SELECT h.hand_key, h.game_id, h.hand_no, h.source, h.variant, h.ruleset_hint, h.n_players, h.dealer,
       h.initial_hands, h.plays,
       h.play_seats, h.taker, h.strain, h.bid, h.capot_bid, h.coinche, s.declarations, s.belote_points,
       s.contract_made, s.card_points
FROM hands AS h JOIN scores AS s ON s.hand_key = h.hand_key AND s.ruleset = $ruleset
WHERE h.n_players IN (2, 3, 4) AND h.completeness = 'full_play' AND h.taker IS NOT NULL AND h.strain IS NOT NULL
  AND s.status = 'scored' AND s.legal AND len(h.initial_hands) = h.n_players
  AND len(h.plays) = h.n_players * bit_count(h.initial_hands[1])
  AND list_sum(list_transform(h.initial_hands, lambda x: bit_count(x))) = len(h.plays)
ORDER BY {order}
{limit}
"""


@dataclass
class AnalyseSummary:
    """What :func:`analyse_lake` did: ruleset, hands analysed (of those ``eligible``), hands scored that could not
    be analysed (no deal, no full play, no contract, an illegal play...), plays analysed, CPU seconds of the
    solver (all workers) and, apart, of its loading (``cpu_warm_up``: each process compiles the solver's kernels,
    or loads them from numba's cache, before its first hand; a first run after an install compiles them, which
    would otherwise read as a slow solver), wall seconds, contracts makeable and made among the hands analysed."""

    ruleset: str
    hands: int = 0
    eligible: int = 0
    skipped: int = 0
    plays: int = 0
    cpu_seconds: float = 0.0
    cpu_warm_up: float = 0.0
    seconds: float = 0.0
    makeable: int = 0
    made: int = 0
    by_source: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {**vars(self), "summary": str(self)}

    def __str__(self) -> str:
        rate = self.hands / self.cpu_seconds if self.cpu_seconds else 0.0
        sampled = f" (a sample of the {self.eligible:,} analysable)" if self.hands < self.eligible else ""
        return (f"analyse [{self.ruleset}]: {self.hands:,} hands{sampled} ({self.plays:,} plays) analysed "
                f"double-dummy, {self.skipped:,} not analysable (no deal, whole legal play "
                f"or contract); contract makeable {self.makeable:,}/{self.hands:,}, made {self.made:,}/{self.hands:,}; "
                f"{self.seconds:.2f} s, {self.cpu_seconds:.2f} CPU s of solving ({rate:,.1f} hands per CPU-second; "
                f"loading the solver {self.cpu_warm_up:.2f} CPU s more)")


def analyse_rows(rows: list[dict], rules) -> tuple[pa.Table, float]:
    """The ``dd_hands`` rows of ``rows`` (dicts of :data:`HANDS_SQL`) under ``rules`` (a ruleset, or ``own``),
    and the CPU seconds spent."""
    t0 = time.process_time()
    specs: dict[str, dd.Spec] = {}
    solo_specs: dict[str, dd_solo.SoloSpec] = {}
    tt, solo_tt = dd.new_table(), None
    cols: dict[str, list] = {f.name: [] for f in schema.schema(TABLE)}
    for r in rows:
        rs = report_rules.game_rules(rules, r)
        spec = specs.get(rs.name) or specs.setdefault(rs.name, dd.Spec(rs))
        strain = STRAINS.index(r["strain"])
        P = r["n_players"]
        taker_team = r["taker"] % n_teams(P)     # teams are seats with 2 or 3 players
        side = np.array([0 if s % n_teams(P) == taker_team else 1 for s in range(P)], np.int64)
        hands = [int(h) for h in r["initial_hands"]]
        leader = (r["dealer"] + 1) % P
        played = [STRAINS.index(s) for s in rs["auction.strains"]]
        by_strain = [dd.solve(spec, hands, st, leader, side=side, tt=tt) if st in played or st == strain else None
                     for st in range(6)]
        dd_points = by_strain[strain]
        cost, took_pts = _play_costs(spec, hands, strain, leader, side, r["plays"], r["play_seats"], tt)
        in_play = [_in_play(spec, hands, st) for st in range(6)]
        if P == 3:
            solo = solo_specs.get(rs.name) or solo_specs.setdefault(rs.name, dd_solo.SoloSpec(rs))
            solo_tt = solo_tt or dd_solo.new_table()
            answer = dd_solo.outcome(solo, hands, strain, r["taker"], leader, declared(r, 3), r["belote_points"][:3],
                                     tt=solo_tt)
            made_any, litige, levels = answer == "made", answer == "litige", []
        else:
            # can the taker's side take every trick? (the value above may prefer card points to a capot scored
            # mostly as a bonus, and a capot bid needs every trick)
            capot = dd.solve(capot_spec(spec), hands, strain, leader, side=side, tt=tt) >= CAPOT_PROBE
            res, levels = _made_tests(r, rs, spec, strain, taker_team, dd_points, capot, in_play[strain])
            made_any = bool(res.made[0]) or bool(capot and res.made[1])
            litige = not made_any and (bool(res.litige[0]) or bool(capot and res.litige[1]))
        cols["makeable_bid"].append(max(levels) if levels else None)
        cols["ruleset"].append(rules.name)
        for c in ("hand_key", "game_id", "hand_no", "source"):
            cols[c].append(r[c])
        cols["taker_team"].append(taker_team)
        cols["strain"].append(r["strain"])
        cols["taker_points"].append(took_pts)
        cols["dd_points"].append(dd_points)
        cols["dd_by_strain"].append(by_strain)
        total = [in_play[st] + int(spec.last) for st in range(6)]
        worth = [_scaled([v, total[st] - v], st, rs)[0] if v is not None else -1 for st, v in enumerate(by_strain)]
        best = max(range(6), key=lambda st: (worth[st], -st))      # par: scaled points, the first of equals
        cols["par_strain"].append(STRAINS[best])
        cols["makeable"].append(None if litige else made_any)
        cols["made"].append(r["contract_made"])
        cols["play_cost"].append(cost)
        cols["play_seats"].append(list(r["play_seats"]))
    table = pa.table(cols, schema=schema.schema(TABLE))
    return table, time.process_time() - t0


#: a capot's last trick worth more than every card: a value at least this says the side can take every trick
CAPOT_PROBE = 1000


def capot_spec(spec: "dd.Spec") -> "dd.Spec":
    """``spec`` with the capot's last trick worth :data:`CAPOT_PROBE`: solved with it, a side's value reaches the
    probe exactly when it can take every trick against best defence."""
    import copy
    probe = copy.copy(spec)
    probe.capot_last = np.int64(CAPOT_PROBE)
    return probe


def declared(r: dict, teams: int) -> list[int]:
    """Each team's declaration points after the contest and before ``declarations.on_capot`` (which takes them
    from a team that took no trick, so depends on the line of play): the points of the hand's scored
    ``declarations`` items, belote aside (``r``: a row of :data:`HANDS_SQL`)."""
    out = [0] * teams
    for item in r["declarations"] or []:
        if item["scored"] and item["kind"] != "belote":
            out[item["seat"] % teams] += item["points"]
    return out


def _in_play(spec, hands: list[int], strain: int) -> int:
    """The card points of the cards dealt (with 2 or 3 players some of the 32 stay out of play) in ``strain``."""
    dealt = 0
    for h in hands:
        dealt |= h
    return int(sum(int(spec.points[strain][c]) for c in range(32) if dealt >> c & 1))


def _made_tests(r: dict, rs, spec, strain: int, taker_team: int, dd_points: int, capot: bool, cards: int):
    """The ruleset's made test (:func:`pipeline.rescore.contract.settle`) on the best-play outcomes of hand ``r``:
    row 0 the best-play card points without a capot, row 1 a capot by the taker's side (when it can take every
    trick), then, for a bidding auction, each level of :data:`LEVELS` and a capot bid on both outcomes;
    ``cards``: the card points of the cards in play. Two teams (4 players, or 2). Returns (the result, the
    levels made: a bid, or :data:`CAPOT_LEVEL`)."""
    capot_total = cards + int(spec.capot_last)
    if spec.capot_last > spec.last and dd_points == capot_total:      # the value is itself the capot
        plain = [capot_total, 0]
        plain_capot = True
    else:
        plain = [dd_points, cards + int(spec.last) - dd_points]
        plain_capot = False
    outcomes = []
    for pair, is_capot in ((plain, plain_capot), ([capot_total, 0], True)):
        card = _scaled(pair, strain, rs)
        if is_capot:
            card[0] += int(rs["cards.capot_bonus"])
        by_team = [card[0], card[1]] if taker_team == 0 else [card[1], card[0]]
        outcomes.append((by_team, taker_team if is_capot else -1))
    bid_style = r["bid"] is not None or bool(r["capot_bid"])
    levels = [(r["bid"] or 0, bool(r["capot_bid"]))]
    rows = [(o, levels[0]) for o in outcomes]
    tried = (LEVELS + [0]) if bid_style else []
    for b in tried:
        for o in outcomes:
            rows.append((o, (b, b == 0)))
    n = len(rows)
    # the declarations each outcome leaves: a capot takes the capoted team's (declarations.on_capot)
    decl = np.array([declared(r, 2)] * n, np.int64)
    took = np.ones((n, 2), np.bool_)
    mode = dd_solo.ON_CAPOT.index(rs["declarations.on_capot"])
    for i, (o, _) in enumerate(rows):
        if o[1] >= 0:
            took[i, 1 - o[1]] = False
            on_capot(decl, i, 2, o[1], took, mode)
    res = settle(np.array([o[0] for o, _ in rows]), decl,
                 np.array([r["belote_points"][:2]] * n), np.array([taker_team] * n),
                 np.array([lv[0] for _, lv in rows]), np.array([lv[1] for _, lv in rows]),
                 np.array([r["coinche"] or 0] * n), np.array([o[1] for o, _ in rows]), rs,
                 np.array([strain] * n), outcome_only=True)
    made = []
    for i in range(2, n, 2):
        b = tried[(i - 2) // 2]
        if res.made[i] or (capot and res.made[i + 1]):
            made.append(CAPOT_LEVEL if b == 0 else b)
    return res, made


def _scaled(pair: list[int], strain: int, rules) -> list[int]:
    """Card points scaled as the rescoring scales a no-trump or all-trump hand (cards.*_scale: x a / b, rounded
    half up: pipeline/rescore/card_points.py)."""
    key = "cards.no_trump_scale" if strain == NO_TRUMP else "cards.all_trump_scale" if strain == ALL_TRUMP else None
    if key is None:
        return list(pair)
    a, b = rules[key]
    return [(x * a * 2 + b) // (2 * b) for x in pair]


def _play_costs(spec, hands: list[int], strain: int, leader: int, side: np.ndarray, plays, seats, tt):
    """Per play, what it cost its player's side (card points), and the taker's side's card points in the play
    recorded. The positions of one hand share the transposition table (cleared once, for this strain)."""
    dd.clear(tt)
    P = len(hands)
    tricks = len(plays) // P
    held = list(hands)
    trick: list[int] = []
    took = 0
    side0 = 0
    cost = []
    for j, (c, s) in enumerate(zip(plays, seats)):
        values = dd.card_values(spec, held, strain, leader, trick, side=side, took=took, tt=tt,
                                tricks_left=tricks - j // P)
        mine = values[c]
        if side[s] == 0:
            cost.append(max(values.values()) - mine)
        else:
            cost.append(mine - min(values.values()))
        held[s] &= ~(1 << c)
        trick.append(c)
        if len(trick) == P:
            row = strain * 128 + (trick[0] // 8) * 32
            w = max(range(P), key=lambda k: int(dd._STRENGTH[row + trick[k]]))
            winner = (leader + w) % P
            ws = int(side[winner])
            now = took | 1 << ws
            pts = int(sum(spec.points[strain][x] for x in trick))
            if j == len(plays) - 1:
                pts += int(spec.capot_last if now == 1 << ws else spec.last)
            if ws == 0:
                side0 += pts
            took, leader, trick = now, winner, []
    return cost, side0


_LOADED: dict[tuple[str, str], object] = {}


_WARM: set[int] = set()
"""Player counts the solver of this process has solved a hand of: their kernels compiled or loaded."""


def _work(args):
    """A worker's batch: (its ``dd_hands`` rows under the ruleset, CPU seconds solving them, CPU seconds of warm-up).
    The ruleset is loaded once per worker process (``own`` reads the lake's games). The first hand of each player
    count the process meets is solved once more beforehand, as the warm-up: that call compiles the
    kernels it needs (or loads them from the cache), so the solving time is the solver's own."""
    rows, rules_name, lake = args
    rules = _LOADED.get((rules_name, lake))
    if rules is None:
        rules = _LOADED[(rules_name, lake)] = report_rules.load_rules(rules_name, lake)
    warm = 0.0
    for r in rows:
        if r["n_players"] not in _WARM:
            _WARM.add(r["n_players"])
            warm += analyse_rows([r], rules)[1]
    return (*analyse_rows(rows, rules), warm)


ENGINES = ("local", "ray")


def _local(workers: int):
    """A runner over worker processes (``workers`` > 1) or this process: ``run(jobs)`` yields each job's result
    in order, at most ``2 * workers`` jobs in flight (so that memory holds a few batches, not the lake)."""
    def run(jobs):
        if workers <= 1:
            yield from map(_work, jobs)
            return
        import os

        from pipeline.ingest.native_pool import die_with_parent

        # the workers end with this process, even killed (kill -9): no solver left running on its own
        with ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            yield from _in_order((pool.submit(_work, j) for j in jobs), 2 * workers, lambda f: f.result())
    return run


def _ray(workers: int):
    """The runner of ``--engine ray``: each batch a Ray task (:func:`_work`, on the cluster ``$RAY_ADDRESS`` names
    or a local runtime), results in order, at most ``2 *`` the cluster's CPUs in flight. Raises
    :class:`pipeline.rescore.ray_engine.EngineUnavailable` when Ray is not installed."""
    from pipeline.rescore.ray_engine import ensure_ray

    ray = ensure_ray()
    task = ray.remote(_work)
    window = 2 * max(int(ray.cluster_resources().get("CPU", workers)), 1)

    def run(jobs):
        yield from _in_order((task.remote(j) for j in jobs), window, ray.get)
    return run


def _in_order(started, window: int, result):
    """The results of ``started`` (an iterator that starts each job as it is advanced), in order, with at most
    ``window`` jobs started and not yet collected."""
    from collections import deque

    pending: deque = deque()
    for job in started:
        pending.append(job)
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def analyse_lake(lake: Path | str, ruleset: str, sample: int | None = None, workers: int = 1,
                 progress=None, engine: str = "local") -> AnalyseSummary:
    """Analyse the hands of ``lake`` scored under ``ruleset`` (a name whose scores the lake holds; ``own``:
    each game under its own rules) and replace the ruleset's partition of ``dd_hands``. ``sample``: that many
    hands at most (chosen by hash of their keys); ``workers``: processes (``engine="local"``); ``engine="ray"``:
    the batches as Ray tasks; ``progress(done, total)`` after each batch.

    The hands' deals and plays are read first as Arrow columns (about 200 bytes a hand), then solved
    :data:`BATCH` at a time, a few batches ahead at most (a batch becomes Python objects only as it is handed
    out); the rows, a few hundred bytes a hand, are written at the end under the lake's lock (so a long
    analysis does not hold the lock). Raises :class:`pipeline.stats.reports.StatsError` when the ruleset is not scored,
    RulesetError when it cannot be loaded, ValueError for an unknown engine,
    :class:`pipeline.rescore.ray_engine.EngineUnavailable` when Ray is asked for and not installed."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    t0 = time.perf_counter()
    summary = AnalyseSummary(ruleset)
    con = stats.connect(lake)
    try:
        ruleset = stats.resolve_ruleset(con, ruleset)
        summary.ruleset = ruleset
        order = "hash(h.hand_key), h.hand_key" if sample else "h.source, h.game_id, h.hand_no"
        limit = f"LIMIT {int(sample)}" if sample else ""
        hands = con.sql(HANDS_SQL.format(order=order, limit=limit), params={"ruleset": ruleset}).to_arrow_table()
        total = con.sql("SELECT count(*) FROM scores WHERE ruleset = $r", params={"r": ruleset}).fetchall()[0][0]
        eligible = con.sql(f"SELECT count(*) FROM ({HANDS_SQL.format(order='1', limit='')})",
                           params={"ruleset": ruleset}).fetchall()[0][0]
    finally:
        con.close()     # before any worker process is forked
    # a ruleset that cannot be loaded fails before any solving; this process's batches use it
    _LOADED[(ruleset, str(lake))] = report_rules.load_rules(ruleset, lake)
    run = _ray(workers) if engine == "ray" else _local(workers)
    # each batch made Python objects only as it is handed to a worker (a few in flight)
    jobs = ((hands.slice(i, BATCH).to_pylist(), ruleset, str(lake)) for i in range(0, hands.num_rows, BATCH))
    parts = []
    for table, cpu, warm in run(jobs):
        parts.append(table)
        summary.cpu_seconds += cpu
        summary.cpu_warm_up += warm
        summary.hands += table.num_rows
        if progress:
            progress(summary.hands, hands.num_rows)
    out = pa.concat_tables(parts) if parts else schema.empty(TABLE)
    with lakemod.lock(lake):
        lake_write.replace_partition(lake, TABLE, ruleset, [out])
    summary.skipped = total - eligible
    summary.eligible = eligible
    summary.plays = sum(len(x) for x in out.column("play_cost").to_pylist())
    summary.makeable = sum(1 for x in out.column("makeable").to_pylist() if x)
    summary.made = sum(1 for x in out.column("made").to_pylist() if x)
    summary.seconds = time.perf_counter() - t0
    return summary
