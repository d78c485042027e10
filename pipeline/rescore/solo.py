"""Contract result when every player plays for himself: 3-player belote, the taker against the two others.

Inputs are per-hand numpy arrays with one column per player (team = seat, ``Ruleset.n_teams`` = 3); card
points in, game points out (equal when ``rounding.mode`` is "none"). The parameters are those of the
4-player settlement (:mod:`pipeline.rescore.contract`) plus two for three players (rules.md R28, R30 and the
``contract.solo_*`` comments of ``rulesets/base.toml``):

Made test
    Each player's total is his card points (with last trick or capot bonus) plus his declarations
    (``made_counts_declarations``) and belote (``made_counts_belote``). ``solo_made = "each"``: the taker's
    total is compared with the better opponent's (FUNBELOTE: "must win more points than either of his two
    opponents"); "combined": with the two opponents' totals added. ``made_vs_defence`` ("gt", "ge", "none")
    and ``tie`` ("litige", "made", "failed") then apply as with two teams.

Awards
    Made: every player scores his own total. Failed: the taker keeps what ``fail_declarations = "keep"`` and
    ``belote.on_failure = "keep"`` leave him; with ``solo_fail = "share"`` what he loses (his card points, and
    his declarations / belote when they go to the defence) is halved between the two opponents, an odd point
    going to the opponent seated next after the taker, on top of each one's own total; with "own" each
    opponent scores only his own total. Litige: the opponents score their own totals now, the taker's total
    is held for the game pass. Rounding (``rounding.mode``) applies to each player's score and to the held
    points. There are no bids or doubles in 3-player belote (the ruleset loader requires the prise auction).
"""

from __future__ import annotations

import numpy as np

from pipeline.rescore.contract import ContractResult, against_defence, round_points
from pipeline.rules import Ruleset


def settle_solo(card_points: np.ndarray, decl_points: np.ndarray, belote_points: np.ndarray,
                taker: np.ndarray, rules: Ruleset, outcome_only: bool = False) -> ContractResult:
    """Score n contracts of players who each play for himself.

    Args:
        card_points: int (n, K) card points per player, last trick / capot bonuses included.
        decl_points: int (n, K) declaration points per player after the contest.
        belote_points: int (n, K) belote-rebelote points each player holds.
        taker: int (n,) the taker's seat (= his column).
        rules: the ruleset (``[contract]``, ``belote.on_failure``, ``rounding.mode``).
        outcome_only: stop once made / litige are known (``hand_score`` and ``held`` are then None).
    Returns:
        :class:`~pipeline.rescore.contract.ContractResult` with (n, K) ``contract_points`` and ``hand_score``.
    Raises:
        ValueError: for a rounding mode other than "none" and the nearest-ten ones.
    """
    R = rules
    n, K = card_points.shape
    rows = np.arange(n)
    T = taker.astype(np.int64)
    C = card_points.astype(np.int64)
    D = decl_points.astype(np.int64)
    B = belote_points.astype(np.int64)
    P = C + (D if R["contract.made_counts_declarations"] else 0) + (B if R["contract.made_counts_belote"] else 0)
    opponent = np.ones((n, K), dtype=bool)
    opponent[rows, T] = False
    pT = P[rows, T]
    if R["contract.solo_made"] == "each":
        pO = np.where(opponent, P, np.iinfo(np.int64).min).max(axis=1)
    else:
        pO = np.where(opponent, P, 0).sum(axis=1)
    ok = np.ones(n, dtype=bool)
    if R["contract.made_min_points"]:
        ok &= pT >= int(R["contract.made_min_points"])
    made, litige, failed = against_defence(ok, pT, pO, R)
    if outcome_only:
        return ContractResult(made, litige, P.astype(np.int32), None, None)

    own = C + D + B
    fd = R["contract.fail_declarations"]
    to_def = R["belote.on_failure"] == "to_defence"
    cT, dT, bT = C[rows, T], D[rows, T], B[rows, T]
    given = cT + (dT if fd == "to_defence" else 0) + (bT if to_def else 0)
    kept = (dT if fd == "keep" else 0) + (0 if to_def else bT)
    fail = np.where(opponent, own, 0)
    fail[rows, T] = kept
    if R["contract.solo_fail"] == "share":
        nxt = (T + 1) % K
        fail += np.where(opponent, (given // 2)[:, None], 0)
        fail[rows, nxt] += given % 2
    score = np.where(made[:, None], own, np.where(failed[:, None], fail, 0))
    # litige: the opponents score their own totals now, the taker's is held
    score = np.where(litige[:, None] & opponent, own, score)
    mode = R["rounding.mode"]
    score = round_points(score, mode)
    held = np.where(litige, round_points(own[rows, T], mode), 0)
    return ContractResult(made, litige, P.astype(np.int32), score.astype(np.int32), held.astype(np.int32))
