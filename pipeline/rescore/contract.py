"""Contract result: the made/failed test, awards, coinche multipliers, rounding and litige.

All inputs are per-hand numpy arrays (n rows, two teams, team 0 = seats 0 and 2). Units: inputs are
card points; the output ``hand_score`` is game points (equal to card points when ``rounding.mode`` is
"none"). Every choice is a ruleset parameter (rules.md R28-R34):

* totals compared: cards (with last trick or capot) + declarations (``made_counts_declarations``)
  + own belote (``made_counts_belote``);
* made when ``made_vs_bid`` ("ge": total >= bid; a capot bid needs every trick) and ``made_vs_defence``
  ("gt" strictly more than the defence, "ge", "none") hold; equal totals under "gt" are settled by
  ``contract.tie`` ("litige", "made", "failed");
* undoubled, made: each team scores its own total, the taker adding the bid if ``made_adds_bid``;
  failed: the defence scores ``fail_base`` (``fail_base_defence_capot`` if it won every trick), plus the
  bid if ``fail_adds_bid``, plus its declarations and the taker's (``fail_declarations``), plus its belote
  and the taker's when ``belote.on_failure`` is "to_defence"; the taker keeps what the ruleset leaves it;
* doubled (``double.scope = "bid"``): the winning side scores the deal's card points (made) or
  ``fail_base`` (failed) plus bid x multiplier, plus all declarations, plus both belotes when
  ``double.belote_to_winner``; the losing side scores 0;
* litige: the defence scores its own total now; the taker's total is held (``held_points``) for the
  game-level pass to award;
* rounding applies to each team's score (and to the held points), never to the made test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.rules import Ruleset


@dataclass
class ContractResult:
    """made: bool (n,) (False also where litige or passed out; see ``litige``/``active``);
    litige: bool (n,); contract_points: int32 (n, 2) totals compared by the test;
    hand_score: int32 (n, 2) game points; held: int32 (n,) game points held over."""

    made: np.ndarray
    litige: np.ndarray
    contract_points: np.ndarray
    hand_score: np.ndarray
    held: np.ndarray


def round_points(x: np.ndarray, mode: str) -> np.ndarray:
    """Round game points to the ruleset's mode: "none", "nearest10_5up" (85 -> 90), "nearest10_6up" (85 -> 80, 86 -> 90)."""
    x = np.asarray(x, dtype=np.int64)
    if mode == "none":
        return x
    if mode == "nearest10_5up":
        return (x + 5) // 10 * 10
    if mode == "nearest10_6up":
        return (x + 4) // 10 * 10
    raise ValueError(f"unknown rounding mode {mode!r}")


def _pair(a: np.ndarray, team: np.ndarray) -> np.ndarray:
    """Select a[:, team] row by row."""
    return a[np.arange(len(team)), team]


def settle(card_points: np.ndarray, decl_points: np.ndarray, belote_team: np.ndarray, taker_team: np.ndarray,
           bid: np.ndarray, capot_bid: np.ndarray, coinche: np.ndarray, capot_team: np.ndarray,
           rules: Ruleset) -> ContractResult:
    """Score contracts for n hands.

    Args:
        card_points: int (n, 2) card points with last trick / capot bonus.
        decl_points: int (n, 2) declaration points after the contest.
        belote_team: int (n,) team holding belote, -1 none.
        taker_team: int (n,) 0 or 1 (rows with no contract must be masked out by the caller).
        bid: int (n,) bid value in points, 0 when the contract has none (classic take).
        capot_bid: bool (n,); coinche: int (n,) 0/1/2; capot_team: int (n,) -1 none.
    """
    n = len(taker_team)
    rows = np.arange(n)
    T = taker_team.astype(np.int64)
    O = 1 - T
    C = card_points.astype(np.int64)
    D = decl_points.astype(np.int64)
    B = np.zeros((n, 2), dtype=np.int64)
    B[rows, np.clip(belote_team, 0, 1)] = np.where(belote_team >= 0, int(rules["belote.value"]), 0)
    P = C + (D if rules["contract.made_counts_declarations"] else 0) + (B if rules["contract.made_counts_belote"] else 0)
    pT, pO = _pair(P, T), _pair(P, O)
    V = np.where(capot_bid, int(rules["contract.capot_bid_value"]), bid).astype(np.int64)

    ok = np.ones(n, dtype=bool)
    if rules["contract.made_vs_bid"] == "ge":
        ok &= np.where(capot_bid, capot_team == T, pT >= V)
    else:
        ok &= np.where(capot_bid, capot_team == T, True)
    tie = np.zeros(n, dtype=bool)
    vs = rules["contract.made_vs_defence"]
    if vs == "gt":
        tie = ok & (pT == pO) & ~capot_bid
        ok &= pT > pO
    elif vs == "ge":
        ok &= pT >= pO
    tie_rule = rules["contract.tie"]
    if tie_rule == "made":
        ok |= tie
        tie = np.zeros(n, dtype=bool)
    elif tie_rule == "failed":
        tie = np.zeros(n, dtype=bool)
    litige = tie
    made = ok & ~litige
    failed = ~ok & ~litige

    mult = np.select([coinche == 1, coinche == 2], [int(rules["double.coinche"]), int(rules["double.surcoinche"])], 1)
    doubled = mult > 1
    cT, cO, dT, dO, bT, bO = _pair(C, T), _pair(C, O), _pair(D, T), _pair(D, O), _pair(B, T), _pair(B, O)

    # undoubled
    made_T = cT + dT + bT + np.where(rules["contract.made_adds_bid"], V, 0)
    made_O = cO + dO + bO
    fail_base = np.where(capot_team == O, int(rules["contract.fail_base_defence_capot"]), int(rules["contract.fail_base"]))
    fd = rules["contract.fail_declarations"]
    to_def = rules["belote.on_failure"] == "to_defence"
    fail_O = fail_base + np.where(rules["contract.fail_adds_bid"], V, 0) + dO + (dT if fd == "to_defence" else 0) \
        + bO + (bT if to_def else 0)
    fail_T = (dT if fd == "keep" else 0) + (0 if to_def else bT)
    # doubled: winner takes base + bid x mult + declarations (+ belotes)
    all_b = rules["double.belote_to_winner"]
    dbl_made_T = cT + cO + V * mult + dT + dO + (bT + bO if all_b else bT)
    dbl_made_O = np.zeros(n, dtype=np.int64) + (0 if all_b else bO)
    dbl_fail_O = fail_base + V * mult + dT + dO + (bT + bO if all_b else bO)
    dbl_fail_T = np.zeros(n, dtype=np.int64) + (0 if all_b else bT)

    sT = np.select([made & ~doubled, made & doubled, failed & ~doubled, failed & doubled],
                   [made_T, dbl_made_T, fail_T, dbl_fail_T], 0)
    sO = np.select([made & ~doubled, made & doubled, failed & ~doubled, failed & doubled],
                   [made_O, dbl_made_O, fail_O, dbl_fail_O], 0)
    # litige: the defence scores its own total now; the taker's total is held
    sO = np.where(litige, made_O, sO)
    held_raw = np.where(litige, made_T * mult, 0)
    mode = rules["rounding.mode"]
    sT, sO = round_points(sT, mode), round_points(sO, mode)
    held = np.where(litige, round_points(held_raw, mode), 0)
    score = np.zeros((n, 2), dtype=np.int64)
    score[rows, T] = sT
    score[rows, O] = sO
    return ContractResult(made, litige, P.astype(np.int32), score.astype(np.int32), held.astype(np.int32))
