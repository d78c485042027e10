"""Contract result: the made/failed test, awards, coinche multipliers, rounding and litige.

All inputs are per-hand numpy arrays (n rows, two teams, team 0 = seats 0 and 2). Inputs are card points;
the output ``hand_score`` is game points (equal to card points when ``rounding.mode`` is "none"). Every
choice is a ruleset parameter (rules.md R27-R34, §2):

Made test (``[contract]``)
    The taker's total is its card points (with last trick or capot bonus), plus its declarations
    (``made_counts_declarations``) and its belote (``made_counts_belote``); rounded first when
    ``made_test_rounded`` (kydos), never otherwise (FFB-webCt: "rounding never makes a contract").
    ``made_vs_bid = "ge"``: the total must reach the bid (and ``made_min_points``: pagat's 80 needs 82);
    a capot bid needs every trick. ``made_vs_defence``: "gt" strictly more than the defence's total,
    "ge", or "none". Equal totals under "gt" are settled by ``tie``: "litige", "made" or "failed".

Undoubled awards
    Made: each team scores its own total (cards + declarations + belote); the taker adds the bid when
    ``made_adds_bid``. An unbid capot scores ``unbid_capot_flat`` instead of its card points when that is
    not 0 (pagat: 250 + bid). A made capot bid scores ``capot_bid_made_flat`` when not 0 (500; x the
    multiplier when doubled), else its card points + ``capot_bid_value``.
    Failed: the defence scores ``fail_base`` (``fail_base_defence_capot`` when it won every trick) + the
    bid (``fail_adds_bid``) + its declarations and, per ``fail_declarations``, the taker's; plus its
    belote and, when ``belote.on_failure = "to_defence"``, the taker's. A failed capot bid scores
    ``capot_bid_failed_flat`` when not 0. The taker keeps what the ruleset leaves it.

Doubled awards (``[double]``, multiplier ``coinche`` or ``surcoinche``); the side that wins the hand takes:
    "bid"   (colver, pagat): base + bid x mult + every declaration + belotes;
    "whole" (FFB-Co15 §10.1): (base + bid + every declaration [+ belotes if ``belote_multiplied``]) x mult;
    "flat"  (FFB-Ct16 p.7, kydos): ``flat_coinche`` / ``flat_surcoinche`` + bid x mult if
            ``bid_multiplied``;
    "own"   (coinche-cli): made, the takers score (their own rounded points + bid) x mult + their belote and
            the defence keeps its own rounded points and belote; a capot and a failure are scored as "whole".
    base is ``double.base`` (0 = the deal's card points, 162 or 252) or ``double.base_capot`` after a capot,
    and ``fail_base`` when the contract failed. Belotes go to the winner when ``belote_to_winner``, else
    each side keeps its own. The losing side scores nothing else.

Litige: the defence scores its own total now; the taker's total (x the multiplier) is held
(``held_points``) for the game-level pass.

Rounding (``[rounding] mode``) applies to each team's score and to the held points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rules import Ruleset


@dataclass
class ContractResult:
    """made: bool (n,) (False also where litige); litige: bool (n,);
    contract_points: int32 (n, 2) totals compared by the test; hand_score: int32 (n, 2) game points;
    held: int32 (n,) game points held over (both None when only the outcome was asked for)."""

    made: np.ndarray
    litige: np.ndarray
    contract_points: np.ndarray
    hand_score: np.ndarray | None
    held: np.ndarray | None


def round_points(x: np.ndarray, mode: str) -> np.ndarray:
    """Round game points: "none"; "nearest10_5up" (85 -> 90, FFB-Co15 §10.2); "nearest10_6up"
    (85 -> 80, 86 -> 90, FFB-LOCAL); "nearest10_4down" = 5up. Raises ValueError for another mode."""
    x = np.asarray(x, dtype=np.int64)
    if mode == "none":
        return x
    if mode == "nearest10_5up":
        return (x + 5) // 10 * 10
    if mode == "nearest10_6up":
        return (x + 4) // 10 * 10
    raise ValueError(f"unknown rounding mode {mode!r}")


def _half_away(x: np.ndarray) -> np.ndarray:
    """x / 10 rounded to nearest, halves away from zero (x >= 0)."""
    return (np.asarray(x, dtype=np.int64) + 5) // 10


def _half_even(x: np.ndarray) -> np.ndarray:
    """x / 10 rounded to nearest, halves to even (.NET Math.Round, BG-NIK)."""
    x = np.asarray(x, dtype=np.int64)
    q, r = np.divmod(x, 10)
    return q + ((r > 5) | ((r == 5) & (q % 2 == 1)))


def bg_round(pts: np.ndarray, strain: np.ndarray, leader: np.ndarray | bool, nt_half_even: bool = False) -> np.ndarray:
    """Bulgarian contract-dependent rounding of one side's points to game points (tens), rules.md R34, D8:
    suit: units >= 7 up (the side with more points) or >= 6 up (the side with fewer); all-trump: >= 5 / >= 4;
    no-trump: nearest, halves away (totals there are even). ``leader`` says which side each row is."""
    pts = np.asarray(pts, dtype=np.int64)
    q, r = np.divmod(pts, 10)
    up_suit = np.where(leader, 7, 6)
    up_at = np.where(leader, 5, 4)
    up = np.where(strain == ALL_TRUMP, up_at, np.where(strain == NO_TRUMP, 5, up_suit))
    out = q + (r >= up)
    if nt_half_even:  # BG-NIK rounds no-trump with Math.Round (halves to even); NT totals are even anyway
        out = np.where(strain == NO_TRUMP, _half_even(pts), out)
    return out


def _bulgarian(P, T, O, made, litige, coinche, capot_team, strain, R) -> "ContractResult":
    """Bulgarian awards in game points (tens): ``rounding.mode`` "bg_2001" (Bridge Belot v2.06, oracles/README.md)
    or "bg_modern" (BG-NIK ScoreManager). P: (n, 2) totals; T/O: taker and defence team per row.

    * Made, undoubled: bg_2001 rounds the leader's total by the contract rule and gives the trailer the rest of
      the rounded grand total (at least 1 if it took points, taken from the leader); bg_modern rounds each side
      on its own (leader and trailer rules of :func:`bg_round`).
    * Inside (the taker has fewer points) or doubled: the side with more points takes the whole pot:
      bg_2001 round(total x level) with an odd result nudged to even (up in all-trump, down in a suit);
      bg_modern round(total, halves to even) x level. ``double.valat_cancels``: no multiplier after a valat.
    * Tie (hanging, BG-HIT): undoubled, the defence scores its half now and the taker's half hangs
      (bg_2001 both rounded as leader; bg_modern the hanging half rounded as the trailer); doubled, nothing is
      scored and the whole pot (x level) hangs.
    """
    n = len(T)
    rows = np.arange(n)
    modern = R["rounding.mode"] == "bg_modern"
    strain = np.asarray(strain, dtype=np.int64)
    mult = np.select([coinche == 1, coinche == 2], [int(R["double.coinche"]), int(R["double.surcoinche"])], 1)
    doubled = mult > 1
    if R["double.valat_cancels"]:  # the pot is still scored as a doubled one, at x1 (BG-NIK, rules_examples D14)
        mult = np.where(capot_team >= 0, 1, mult)
    pT, pO = _sides(P, T == 0)
    total = pT + pO
    W = np.where(P[:, 0] > P[:, 1], 0, 1)
    L = 1 - W
    pW, pL = _sides(P, W == 0)
    if modern:
        pot = _half_even(total) * mult
        lead = bg_round(pW, strain, True, True)
        trail = bg_round(pL, strain, False, True)
    else:
        pot = _half_away(total * mult)
        odd = doubled & (pot % 2 == 1)
        pot = pot + np.where(odd & (strain == ALL_TRUMP), 1, 0) - np.where(odd & (strain < 4), 1, 0)
        lead = bg_round(pW, strain, True)
        trail = _half_away(total) - lead
        fix = (trail <= 0) & (pL > 0)
        trail, lead = np.where(fix, 1, trail), np.where(fix, lead - 1, lead)
    score = np.zeros((n, 2), dtype=np.int64)
    one_side = (doubled | ~made) & ~litige
    score[rows, W] = np.where(one_side, pot, lead)
    score[rows, L] = np.where(one_side, 0, trail)
    # hanging
    half_def = bg_round(pO, strain, True, modern)
    half_hang = bg_round(pT, strain, not modern, modern)
    tie_score = np.zeros((n, 2), dtype=np.int64)
    tie_score[rows, O] = np.where(doubled, 0, half_def)
    score = np.where(litige[:, None], tie_score, score)
    held = np.where(litige, np.where(doubled, pot, half_hang), 0)
    return ContractResult(made, litige, P.astype(np.int32), score.astype(np.int32), held.astype(np.int32))


def _sides(a: np.ndarray, taker_is_0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The taker's and the defence's columns of a two-team table a (int (n, 2)), row by row: one select and
    integer arithmetic (the two columns are the taker's and the other), not a 2-D fancy index."""
    a0, a1 = a[:, 0], a[:, 1]
    aT = np.where(taker_is_0, a0, a1)
    return aT, a0 + a1 - aT


def against_defence(ok: np.ndarray, pT: np.ndarray, pO: np.ndarray, R: Ruleset,
                    no_tie: np.ndarray | bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The made test's comparison with the defence (``contract.made_vs_defence``: "gt", "ge" or "none") and
    what an equal total is (``contract.tie``: "litige", "made" or "failed"), after the ruleset's other
    conditions ``ok`` (bool (n,)). ``pT``/``pO``: the taker's and the defence's totals (3-player: the better
    opponent's, or both together). Rows in ``no_tie`` (a capot bid) are never a litige. Returns bool (n,)
    arrays (made, litige, failed), exclusive."""
    ok = ok.copy()
    tie = np.zeros(len(ok), dtype=bool)
    vs = R["contract.made_vs_defence"]
    if vs == "gt":
        tie = ok & (pT == pO) & ~np.asarray(no_tie, dtype=bool)
        ok &= pT > pO
    elif vs == "ge":
        ok &= pT >= pO
    if R["contract.tie"] == "made":
        ok |= tie
        tie = np.zeros(len(ok), dtype=bool)
    elif R["contract.tie"] == "failed":
        tie = np.zeros(len(ok), dtype=bool)
    return ok & ~tie, tie, ~ok & ~tie


def settle(card_points: np.ndarray, decl_points: np.ndarray, belote_points: np.ndarray, taker_team: np.ndarray,
           bid: np.ndarray, capot_bid: np.ndarray, coinche: np.ndarray, capot_team: np.ndarray,
           rules: Ruleset, strain: np.ndarray | None = None, outcome_only: bool = False) -> ContractResult:
    """Score contracts for n hands.

    Args:
        card_points: int (n, 2) card points with last trick / capot bonus (after any strain scaling).
        decl_points: int (n, 2) declaration points after the contest.
        belote_points: int (n, 2) belote-rebelote points each team holds (0, 20, or more in all-trump).
        taker_team: int (n,) 0 or 1 (rows with no contract must be masked out by the caller).
        bid: int (n,) bid value in points, 0 when the contract has none (classic take).
        capot_bid: bool (n,); coinche: int (n,) 0/1/2; capot_team: int (n,) -1 none.
        outcome_only: stop once made / litige are known (``hand_score`` and ``held`` are then None).
    """
    R = rules
    n = len(taker_team)
    T = taker_team.astype(np.int64)
    O = 1 - T
    C = card_points.astype(np.int64)
    D = decl_points.astype(np.int64)
    B = belote_points.astype(np.int64)
    mode = R["rounding.mode"]
    P = C + (D if R["contract.made_counts_declarations"] else 0) + (B if R["contract.made_counts_belote"] else 0)
    if R["contract.made_test_rounded"]:
        P = round_points(C, mode) + (D if R["contract.made_counts_declarations"] else 0) \
            + (B if R["contract.made_counts_belote"] else 0)
    t0 = T == 0
    pT, pO = _sides(P, t0)
    V = np.where(capot_bid, int(R["contract.capot_bid_value"]), bid).astype(np.int64)
    taker_capot = capot_team == T

    ok = np.where(capot_bid, taker_capot, True)
    if R["contract.made_vs_bid"] == "ge":
        ok &= np.where(capot_bid, True, pT >= np.maximum(V, int(R["contract.made_min_points"])))
    made, litige, failed = against_defence(ok, pT, pO, R, no_tie=capot_bid)
    if outcome_only:
        return ContractResult(made, litige, P.astype(np.int32), None, None)
    if mode.startswith("bg_"):
        return _bulgarian(P, T, O, made, litige, coinche, capot_team, strain, R)

    mult = np.select([coinche == 1, coinche == 2], [int(R["double.coinche"]), int(R["double.surcoinche"])], 1)
    doubled = mult > 1
    (cT, cO), (dT, dO), (bT, bO) = _sides(C, t0), _sides(D, t0), _sides(B, t0)
    zero = np.zeros(n, dtype=np.int64)

    # undoubled, made
    card_T = cT
    if R["contract.unbid_capot_flat"]:
        card_T = np.where(taker_capot & ~capot_bid, int(R["contract.unbid_capot_flat"]), card_T)
    made_T = card_T + dT + bT + (V if R["contract.made_adds_bid"] else 0)
    if R["contract.capot_bid_made_flat"]:
        made_T = np.where(capot_bid, int(R["contract.capot_bid_made_flat"]) + bT, made_T)
    made_O = cO + dO + bO
    # undoubled, failed
    fail_base = np.where(capot_team == O, int(R["contract.fail_base_defence_capot"]), int(R["contract.fail_base"]))
    fd = R["contract.fail_declarations"]
    to_def = R["belote.on_failure"] == "to_defence"
    fail_O = fail_base + (V if R["contract.fail_adds_bid"] else 0) + dO + (dT if fd == "to_defence" else 0) \
        + bO + (bT if to_def else 0)
    if R["contract.capot_bid_failed_flat"]:
        fail_O = np.where(capot_bid, int(R["contract.capot_bid_failed_flat"]) + bO + (bT if to_def else 0), fail_O)
    fail_T = (dT if fd == "keep" else 0) + (zero if to_def else bT)

    # doubled: the side winning the hand takes the award, the other keeps nothing but (maybe) its belote
    all_b = bool(R["double.belote_to_winner"])
    scope = R["double.scope"]
    deal_points = cT + cO
    made_base = deal_points if R["double.base"] == 0 else np.full(n, int(R["double.base"]))
    if R["double.base_capot"]:
        made_base = np.where(taker_capot, int(R["double.base_capot"]), made_base)
    decl_all = dT + dO
    win_belote = lambda own, other: own + other if all_b else own  # noqa: E731
    # a failed doubled contract: the taker's belote also goes to the defence when it is "prenable" (to_defence,
    # rules.md R25: FFB contrée 2015/2016), as when undoubled; only an "imprenable" one stays with its holders
    fail_belote = (lambda own, other: own + other) if (all_b or to_def) else win_belote  # noqa: E731
    if scope == "bid":
        dbl_made_T = made_base + V * mult + decl_all + win_belote(bT, bO)
        dbl_fail_O = fail_base + V * mult + decl_all + fail_belote(bO, bT)
    elif scope == "whole":
        inside = bool(R["double.belote_multiplied"])
        dbl_made_T = (made_base + V + decl_all + (win_belote(bT, bO) if inside else 0)) * mult \
            + (0 if inside else win_belote(bT, bO))
        dbl_fail_O = (fail_base + V + decl_all + (fail_belote(bO, bT) if inside else 0)) * mult \
            + (0 if inside else win_belote(bO, bT))
    elif scope == "own":
        # coinche-cli: the takers multiply their own rounded points + bid; the defence keeps its own points;
        # belotes stay with their holders, outside the multiplier (capot bids and unbid capots as "whole")
        whole_made = (made_base + V + decl_all) * mult + bT
        own_made = (round_points(cT + dT, mode) + V) * mult + bT
        dbl_made_T = np.where(capot_bid | taker_capot, whole_made, own_made)
        dbl_fail_O = (fail_base + V + decl_all) * mult + fail_belote(bO, bT)
    else:  # flat
        flat = np.where(coinche == 2, int(R["double.flat_surcoinche"]), int(R["double.flat_coinche"]))
        bid_part = V * mult if R["double.bid_multiplied"] else 0
        dbl_made_T = flat + bid_part + win_belote(bT, bO)
        dbl_fail_O = flat + bid_part + fail_belote(bO, bT)
    if R["contract.capot_bid_made_flat"]:   # a capot bid's flat award is multiplied (FFB-Ct16 p.7: 500/1000/2000)
        dbl_made_T = np.where(capot_bid, int(R["contract.capot_bid_made_flat"]) * mult + win_belote(bT, bO), dbl_made_T)
    if R["contract.capot_bid_failed_flat"]:
        dbl_fail_O = np.where(capot_bid, int(R["contract.capot_bid_failed_flat"]) * mult + fail_belote(bO, bT), dbl_fail_O)
    dbl_made_O = zero + (0 if all_b else bO)
    if scope == "own":
        dbl_made_O = np.where(capot_bid | taker_capot, dbl_made_O, round_points(cO + dO, mode) + bO)
    dbl_fail_T = zero + (0 if (all_b or to_def) else bT)

    # made and failed are exclusive (neither: litige, below)
    sT = np.where(made, np.where(doubled, dbl_made_T, made_T), np.where(failed, np.where(doubled, dbl_fail_T, fail_T), 0))
    sO = np.where(made, np.where(doubled, dbl_made_O, made_O), np.where(failed, np.where(doubled, dbl_fail_O, fail_O), 0))
    # litige: the defence scores its own total now; the taker's total is held
    sO = np.where(litige, made_O, sO)
    held_raw = np.where(litige, made_T * mult, 0)
    sT, sO = round_points(sT, mode), round_points(sO, mode)
    held = np.where(litige, round_points(held_raw, mode), 0)
    score = np.empty((n, 2), dtype=np.int32)
    score[:, 0] = np.where(t0, sT, sO)
    score[:, 1] = sT + sO - score[:, 0]
    return ContractResult(made, litige, P.astype(np.int32), score, held.astype(np.int32))
