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
    Failed (``fail_scores = "base"``: the defence ``fail_base`` (+ the bid) alone, the taker nothing, every
    belote and declaration lost, Cardman): the defence scores ``fail_base`` (``fail_base_defence_capot`` when it won every trick), or with
    ``fail_takes_played`` both teams' card points as played (2 players: 18 of 32 cards in play), + the
    bid (``fail_adds_bid``) + its declarations and, per ``fail_declarations``, the taker's; plus its
    belote and, when ``belote.on_failure = "to_defence"``, the taker's. A failed capot bid scores
    ``capot_bid_failed_flat`` when not 0. The taker keeps what the ruleset leaves it.

Doubled awards (``[double]``, multiplier ``coinche`` or ``surcoinche``); the side that wins the hand takes:
    "bid"   (colver, pagat): base + bid x mult + every declaration + belotes;
    "whole" (FFB-Co15 §10.1): (base + bid + every declaration [+ belotes if ``belote_multiplied``]) x mult;
    "flat"  (FFB-Ct16 p.7, kydos): ``flat_coinche`` / ``flat_surcoinche`` + bid x mult if
            ``bid_multiplied``; an unbid capot, when ``unbid_capot_flat`` is not 0, scores it x mult, each
            side keeping its own belote (kydos);
    "own"   (coinche-cli, BGA): made, the takers score (their own rounded points + bid) x mult + their belote
            (inside the product with ``belote_multiplied``) and the defence keeps its own rounded points and
            belote (scores nothing without ``own_defence_keeps``); a capot and a failure are scored as "whole".
    base is ``double.base`` (0 = the deal's card points, 162 or 252) or ``double.base_capot`` after a capot,
    and ``fail_base`` when the contract failed. Belotes go to the winner when ``belote_to_winner``, else
    each side keeps its own. The losing side scores nothing else.

Litige: the defence scores its own total now; the taker's total (cards + declarations + belote, x the
multiplier; never the bid, FFB-Co15 §10.1.3: "81 ou 91") is held (``held_points``) for the game-level pass.

Rounding (``[rounding] mode``) applies to each team's score and to the held points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.jit import njit, njit_inner
from pipeline.rules import Ruleset


@dataclass
class ContractResult:
    """made: bool (n,) (False also where litige); litige: bool (n,);
    contract_points: int32 (n, K) totals compared by the test (card points + what the made test counts);
    hand_score: int32 (n, K) game points; held: int32 (n,) game points held over (both None when only the
    outcome was asked for); decided: bool (n,), whether the outcome (made / failed / litige) would differ
    with no declaration points (belote kept), False on rows without declaration points."""

    made: np.ndarray
    litige: np.ndarray
    contract_points: np.ndarray
    hand_score: np.ndarray | None
    held: np.ndarray | None
    decided: np.ndarray | None = None


# integer codes of the string parameters, as the compiled kernels take them
ROUND_MODES = ("none", "nearest10_5up", "nearest10_6up", "tens_5up", "tens_6up")
_VS = {"none": 0, "gt": 1, "ge": 2}
_TIE = {"litige": 0, "made": 1, "failed": 2}
_FAIL_DECL = {"to_defence": 0, "keep": 1, "lost": 2}
_SCOPE = {"bid": 0, "whole": 1, "own": 2, "flat": 3, "all_to_more": 4}
FAILED, MADE, LITIGE = 0, 1, 2     # the outcome codes of :func:`outcome`


def _round_code(mode: str) -> int:
    """Index of ``mode`` in :data:`ROUND_MODES`; ValueError for another mode."""
    if mode not in ROUND_MODES:
        raise ValueError(f"unknown rounding mode {mode!r}")
    return ROUND_MODES.index(mode)


@njit_inner
def round1(x, code):
    """One value in game points, ``code`` from :data:`ROUND_MODES`: 0 "none"; 1 "nearest10_5up" (85 -> 90,
    FFB-Co15 §10.2); 2 "nearest10_6up" (85 -> 80, 86 -> 90, FFB-LOCAL); 3 "tens_5up" (points divided by 10
    and rounded to the nearest, a half up: 85 -> 9, seed 002); 4 "tens_6up" (a half down: 85 -> 8, 86 -> 9).
    Integer floor division."""
    if code == 1:
        return (x + 5) // 10 * 10
    if code == 2:
        return (x + 4) // 10 * 10
    if code == 3:
        return (x + 5) // 10
    if code == 4:
        return (x + 4) // 10
    return x


@njit(cache=True, nogil=True)
def _round_array(x, code, out):
    for i in range(x.shape[0]):
        out[i] = round1(x[i], code)


def round_points(x: np.ndarray, mode: str) -> np.ndarray:
    """Round game points (int64 array of any shape): "none"; "nearest10_5up" (85 -> 90, FFB-Co15 §10.2);
    "nearest10_6up" (85 -> 80, 86 -> 90, FFB-LOCAL); "tens_5up" / "tens_6up" (divided by 10: 85 -> 9 / 8). Raises ValueError for another mode. The rule itself is
    :func:`round1`, which the compiled settlements use."""
    x = np.ascontiguousarray(x, dtype=np.int64)
    out = np.empty_like(x)
    _round_array(x.reshape(-1), _round_code(mode), out.reshape(-1))
    return out


@njit_inner
def outcome(ok, pT, pO, no_tie, vs, tie_rule):
    """The made test's comparison with the defence, after the ruleset's other conditions ``ok`` (bool).
    ``pT``/``pO``: the taker's and the defence's totals in card points (3-player: the better opponent's, or
    both together). ``vs`` (``contract.made_vs_defence``): 0 "none", 1 "gt", 2 "ge"; ``tie_rule``
    (``contract.tie``, what an equal total under "gt" is): 0 "litige", 1 "made", 2 "failed"; ``no_tie``
    (a capot bid) is never a litige. Returns :data:`FAILED`, :data:`MADE` or :data:`LITIGE`."""
    tie = False
    if vs == 1:
        tie = ok & (pT == pO) & (not no_tie)
        ok = ok & (pT > pO)
    elif vs == 2:
        ok = ok & (pT >= pO)
    if tie_rule == 1:
        ok = ok | tie
        tie = False
    elif tie_rule == 2:
        tie = False
    if tie:
        return LITIGE
    return MADE if ok else FAILED


@njit_inner
def _half_away(x):
    """x / 10 rounded to nearest, halves away from zero (x >= 0)."""
    return (x + 5) // 10


@njit_inner
def _half_even(x):
    """x / 10 rounded to nearest, halves to even (.NET Math.Round, BG-NIK)."""
    q, r = divmod(x, 10)
    return q + (1 if r > 5 or (r == 5 and q % 2 == 1) else 0)


@njit_inner
def bg_round1(pts, strain, leader, nt_half_even):
    """Bulgarian contract-dependent rounding of one side's points (int) to game points (tens), rules.md R34, D8:
    suit: units >= 7 up (the side with more points) or >= 6 up (the side with fewer); all-trump: >= 5 / >= 4;
    no-trump: nearest, halves away (totals there are even), or halves to even with ``nt_half_even`` (BG-NIK
    rounds no-trump with Math.Round). ``leader``: whether this is the side with more points."""
    if nt_half_even and strain == NO_TRUMP:
        return _half_even(pts)
    q, r = divmod(pts, 10)
    if strain == ALL_TRUMP:
        up = 5 if leader else 4
    elif strain == NO_TRUMP:
        up = 5
    else:
        up = 7 if leader else 6
    return q + (1 if r >= up else 0)


@njit(cache=True, nogil=True)
def _bg_round_array(pts, strain, leader, nt_half_even, out):
    for i in range(pts.shape[0]):
        out[i] = bg_round1(pts[i], strain[i], leader[i], nt_half_even)


def bg_round(pts: np.ndarray, strain: np.ndarray, leader: np.ndarray | bool, nt_half_even: bool = False) -> np.ndarray:
    """:func:`bg_round1` over arrays: points int (n,), strain index int (n,), ``leader`` bool (n,) or one bool
    (broadcast). Returns int64 (n,) game points (tens)."""
    pts, strain, leader = (np.array(a).reshape(-1) for a in np.broadcast_arrays(   # copies: writable, contiguous
        np.asarray(pts, dtype=np.int64), np.asarray(strain, dtype=np.int64), np.asarray(leader, dtype=np.bool_)))
    out = np.empty(pts.shape, dtype=np.int64)
    _bg_round_array(pts, strain, leader, bool(nt_half_even), out)
    return out


@njit_inner
def _bulgarian(i, t, P, res, mult, doubled, strain, modern, score, held):
    """Bulgarian awards of hand ``i`` in game points (tens), rounding.mode "bg_2001" (Bridge Belot v2.06,
    oracles/README.md) or "bg_modern" (``modern``, BG-NIK ScoreManager). P: int32 (n, 2) totals; t: the
    taker's team; res: the outcome code; mult: the multiplier (1 after a valat when ``double.valat_cancels``);
    doubled: whether a double was called. Writes score[i] and held[i].

    * Made, undoubled: bg_2001 rounds the leader's total by the contract rule and gives the trailer the rest of
      the rounded grand total (at least 1 if it took points, taken from the leader); bg_modern rounds each side
      on its own (leader and trailer rules of :func:`bg_round1`).
    * Inside (the taker has fewer points) or doubled: the side with more points takes the whole pot:
      bg_2001 round(total x level) with an odd result nudged to even (up in all-trump, down in a suit);
      bg_modern round(total, halves to even) x level. ``double.valat_cancels``: no multiplier after a valat.
    * Tie (hanging, BG-HIT): undoubled, the defence scores its half now and the taker's half hangs
      (bg_2001 both rounded as leader; bg_modern the hanging half rounded as the trailer); doubled, nothing is
      scored and the whole pot (x level) hangs.
    """
    o = 1 - t
    pT, pO = np.int64(P[i, t]), np.int64(P[i, o])
    total = pT + pO
    w = 0 if P[i, 0] > P[i, 1] else 1
    pW, pL = np.int64(P[i, w]), np.int64(P[i, 1 - w])
    yes, no = np.bool_(True), np.bool_(False)    # not literals: one compile of bg_round1, not one per constant
    if modern:
        pot = _half_even(total) * mult
        lead = bg_round1(pW, strain, yes, yes)
        trail = bg_round1(pL, strain, no, yes)
    else:
        pot = _half_away(total * mult)
        if doubled and pot % 2 == 1:
            if strain == ALL_TRUMP:
                pot += 1
            elif strain < 4:
                pot -= 1
        lead = bg_round1(pW, strain, yes, no)
        trail = _half_away(total) - lead
        if trail <= 0 and pL > 0:
            trail = 1
            lead -= 1
    if res == LITIGE:   # hanging
        score[i, t] = 0
        score[i, o] = 0 if doubled else bg_round1(pO, strain, yes, modern)
        held[i] = pot if doubled else bg_round1(pT, strain, not modern, modern)
    elif doubled or res != MADE:
        score[i, w] = pot
        score[i, 1 - w] = 0
    else:
        score[i, w] = lead
        score[i, 1 - w] = trail


def _made_params(R: Ruleset) -> np.ndarray:
    """The made test's parameters as int64 (9,) for the kernels: made_counts_declarations,
    made_counts_belote, made_test_rounded, made_vs_bid is "ge", made_min_points, made_vs_defence code,
    tie code, capot_bid_value, made_min_card_points."""
    return np.array([bool(R["contract.made_counts_declarations"]), bool(R["contract.made_counts_belote"]),
                     bool(R["contract.made_test_rounded"]), R["contract.made_vs_bid"] == "ge",
                     int(R["contract.made_min_points"]), _VS[R["contract.made_vs_defence"]],
                     _TIE[R["contract.tie"]], int(R["contract.capot_bid_value"]),
                     int(R["contract.made_min_card_points"])], dtype=np.int64)


def _award_params(R: Ruleset) -> np.ndarray:
    """The undoubled and doubled awards' parameters as int64 (26,) for :func:`_settle_kernel`, in its order."""
    return np.array([
        int(R["contract.unbid_capot_flat"]), bool(R["contract.made_adds_bid"]), int(R["contract.capot_bid_made_flat"]),
        int(R["contract.fail_base"]), int(R["contract.fail_base_defence_capot"]), bool(R["contract.fail_adds_bid"]),
        _FAIL_DECL[R["contract.fail_declarations"]], R["belote.on_failure"] == "to_defence",
        int(R["contract.capot_bid_failed_flat"]), int(R["double.coinche"]), int(R["double.surcoinche"]),
        bool(R["double.belote_to_winner"]), _SCOPE[R["double.scope"]], int(R["double.base"]),
        int(R["double.base_capot"]), bool(R["double.belote_multiplied"]), int(R["double.flat_coinche"]),
        int(R["double.flat_surcoinche"]), bool(R["double.bid_multiplied"]), bool(R["double.valat_cancels"]),
        bool(R["contract.fail_takes_played"]), bool(R["contract.capot_bid_counts_flat"]),
        int(R["contract.fail_base_capot_bid"]), R["contract.made_scores"] == "bid",
        R["contract.fail_scores"] == "base", bool(R["double.own_defence_keeps"])],
        dtype=np.int64)


@njit_inner
def settle_one(i, C, D, B, t, bid, cb, coinche, capot_team, strain, mp, ap, rcode, bg, awards, made, litige, decided,
               P, score, held):
    """Settle hand ``i`` of two teams: the one implementation of the made test, whether the declarations decide
    it, and (``awards``) the hand score and held points in game points, compiled. C/D/B: int64 (., 2) card,
    declaration, belote points (row i); t: the taker's team; bid: its value (0 when none); cb: a capot bid;
    coinche: 0/1/2; capot_team: -1 none; strain: 0-5; mp, ap, rcode, bg: as :func:`_settle_kernel`. Writes row
    i of made/litige/decided (bool), P (the totals compared, card points: int32 (., 2) from :func:`settle`,
    int16 in :func:`pipeline.rescore.contract_pass.contract_pass`), score (int32 (., 2), game points) and held
    (int32, game points); decided is only written where a team has declaration points."""
    m_decl, m_bel, m_round, vs_bid, min_pts, vs, tie_rule, capot_value, min_cards = \
        mp[0], mp[1], mp[2], mp[3], mp[4], mp[5], mp[6], mp[7], mp[8]
    o = 1 - t
    V = capot_value if cb else bid
    taker_capot = capot_team == t
    # the parameters that are on or off are 0 or 1: a flag times a term adds it or not (not a branch each, which
    # numba compiles at several times the cost of the arithmetic); rounding code 0 leaves a value as it is
    base_T = round1(C[i, t], rcode * m_round) + B[i, t] * m_bel
    base_O = round1(C[i, o], rcode * m_round) + B[i, o] * m_bel
    pT = base_T + D[i, t] * m_decl
    pO = base_O + D[i, o] * m_decl
    P[i, t] = pT
    P[i, o] = pO
    # contract.made_min_card_points: the taker's card points alone must reach it (seed 004: at least 82 card
    # points), whatever the declarations and belote add to the total tested against the bid
    cards_ok = taker_capot if cb else C[i, t] >= min_cards
    # made_vs_bid = "ge" (not a capot bid): the total must reach the bid; made_min_points: it must reach that too,
    # with or without made_vs_bid (as solo.solo_one; Cardman's points count: a total of 0 fails)
    no_floor = cb
    floor = max(V * vs_bid, min_pts)
    res = outcome(cards_ok & (no_floor | (pT >= floor)), pT, pO, cb, vs, tie_rule)
    made[i] = res == MADE
    litige[i] = res == LITIGE
    if (D[i, 0] != 0) | (D[i, 1] != 0):   # the same test without the declarations (belote kept)
        decided[i] = outcome(cards_ok & (no_floor | (base_T >= floor)), base_T, base_O, cb, vs, tie_rule) != res
    if not awards:
        return
    cT, cO, dT, dO, bT, bO = C[i, t], C[i, o], D[i, t], D[i, o], B[i, t], B[i, o]
    mult = ap[9] if coinche == 1 else (ap[10] if coinche == 2 else 1)
    doubled = mult > 1
    if bg is not None:   # None (no Bulgarian awards): numba drops the branch and does not compile _bulgarian
        if ap[19] and capot_team >= 0:   # still scored as a doubled pot, at x1 (BG-NIK, rules_examples D14)
            mult = 1
        _bulgarian(i, t, P, res, mult, doubled, strain, bg == 2, score, held)
        return
    # undoubled, made; contract.capot_bid_counts_flat: a capot bid's cards also count unbid_capot_flat (seed 004:
    # "a team that takes every trick counts 250 for its cards", bid or not)
    card_T = ap[0] if (ap[0] != 0) & taker_capot & ((ap[21] != 0) | (not cb)) else cT
    made_T = card_T + dT + bT + V * ap[1]
    if (ap[2] != 0) & cb:
        made_T = ap[2] + bT
    made_O = cO + dO + bO
    if ap[23]:   # contract.made_scores = "bid" ("points annoncés"): the bid alone, each side keeping its belote
        made_T = V + bT
        made_O = bO
    # undoubled, failed
    # contract.fail_takes_played: what was played (2 players: 18 of the 32 cards), else the deck's 162/252;
    # contract.fail_base_capot_bid: the base of a failed capot bid (seed 004: 250, "500 made or failed")
    fail_base = cT + cO if ap[20] else (ap[4] if capot_team == o else ap[3])
    if cb & (ap[22] != 0) & (ap[20] == 0):
        fail_base = ap[22]
    fd, to_def = ap[6], ap[7]
    fail_O = fail_base + V * ap[5] + dO + dT * (fd == 0) + bO + bT * to_def
    if (ap[8] != 0) & cb:
        fail_O = ap[8] + bO + bT * to_def
    fail_T = dT * (fd == 1) + bT * (1 - to_def)
    if ap[24]:   # contract.fail_scores = "base" (Cardman): the defence the base (+ bid) alone, every belote and
        # declaration of the hand lost, the takers nothing (a doubled failure still follows double.scope)
        fail_O = ap[8] if (ap[8] != 0) & cb else fail_base + V * ap[5]
        fail_T = 0
    # doubled: the side winning the hand takes the award, the other keeps nothing but (maybe) its belote
    all_b = ap[11]
    scope = ap[12]
    made_base = cT + cO if ap[13] == 0 else ap[13]
    if (ap[14] != 0) & taker_capot:
        made_base = ap[14]
    decl_all = dT + dO
    win_T = bT + bO * all_b
    # a failed doubled contract: the taker's belote also goes to the defence when it is "prenable"
    # (belote.on_failure = to_defence, rules.md R25: FFB contrée 2015/2016), as when undoubled
    win_O = bO + bT * (all_b | to_def)
    if scope == 0:      # bid
        dbl_made_T = made_base + V * mult + decl_all + win_T
        dbl_fail_O = fail_base + V * mult + decl_all + win_O
    elif scope == 1:    # whole
        if ap[15]:
            dbl_made_T = (made_base + V + decl_all + win_T) * mult
            dbl_fail_O = (fail_base + V + decl_all + win_O) * mult
        else:
            dbl_made_T = (made_base + V + decl_all) * mult + win_T
            dbl_fail_O = (fail_base + V + decl_all) * mult + win_O
    elif scope == 2:    # own; double.belote_multiplied: the belote inside the multiplied sum (BGA)
        inside = ap[15]
        if cb | taker_capot:
            dbl_made_T = (made_base + V + decl_all + bT * inside) * mult + bT * (1 - inside)
        else:
            dbl_made_T = (round1(cT + dT, rcode) + V + bT * inside) * mult + bT * (1 - inside)
        dbl_fail_O = (fail_base + V + decl_all + win_O * inside) * mult + win_O * (1 - inside)
    elif scope == 3:    # flat
        flat = ap[17] if coinche == 2 else ap[16]
        bid_part = V * mult * ap[18]
        dbl_made_T = flat + bid_part + win_T
        dbl_fail_O = flat + bid_part + win_O
        if (ap[0] != 0) & taker_capot & (not cb):   # an unbid capot: unbid_capot_flat x mult, each side keeping
            dbl_made_T = ap[0] * mult + bT          # its own belote (kydos donneScoring.ts: capot before contre)
    else:               # all_to_more: both sides committed, the side with more points takes the whole deal,
        # belotes included, x mult (seed 002: a double makes the hand's final score double)
        dbl_made_T = (cT + cO + decl_all + bT + bO) * mult
        dbl_fail_O = dbl_made_T
    if (ap[2] != 0) & cb:   # a capot bid's flat award is multiplied (FFB-Ct16 p.7: 500/1000/2000)
        dbl_made_T = ap[2] * mult + win_T
    if (ap[8] != 0) & cb:
        dbl_fail_O = ap[8] * mult + win_O
    dbl_made_O = bO * ((all_b == 0) & (scope != 4))
    if (scope == 3) & (ap[0] != 0) & taker_capot & (not cb):
        dbl_made_O = bO
    if (scope == 2) & (not (cb | taker_capot)):
        dbl_made_O = round1(cO + dO, rcode) + bO
    if (scope == 2) & (ap[25] == 0):    # double.own_defence_keeps false: the defence nothing, its belote lost (BGA)
        dbl_made_O = 0
    dbl_fail_T = bT * ((all_b == 0) & (to_def == 0) & (scope != 4))
    if (scope == 4) & (P[i, t] == P[i, o]):   # equal totals: neither side has fewer, each keeps its own x mult
        dbl_made_T = (cT + dT + bT) * mult
        dbl_made_O = (cO + dO + bO) * mult
    if doubled:
        made_T, made_O, fail_T, fail_O = dbl_made_T, dbl_made_O, dbl_fail_T, dbl_fail_O
    sT = sO = 0
    h = 0
    if res == MADE:
        sT, sO = made_T, made_O
    elif res == FAILED:
        sT, sO = fail_T, fail_O
    else:   # litige: the defence scores its own total now; the taker's total is held
        # (cards + declarations + belote: FFB-Co15 §10.1.3 holds "les points du preneur (81 ou 91)", never the bid,
        # which only a made contract adds; x the multiplier, as the hanging pot of BG-HIT)
        sO = cO + dO + bO
        h = round1((cT + dT + bT) * mult, rcode)
    score[i, t] = round1(sT, rcode)
    score[i, o] = round1(sO, rcode)
    held[i] = h


@njit(cache=True, nogil=True)
def _settle_kernel(C, D, B, T, bid, capot_bid, coinche, capot_team, strain, mp, ap, rcode, bg, awards,
                   made, litige, decided, P, score, held):
    """Two teams, :func:`settle_one` for each hand: the made test (params ``mp``, :func:`_made_params`), whether
    it is decided by the declarations, and (``awards``) the hand score and held points in game points (params
    ``ap``, :func:`_award_params`; rounding ``rcode``, :data:`ROUND_MODES`, or ``bg`` 1 "bg_2001", 2
    "bg_modern": the Bulgarian awards, :func:`_bulgarian`; None for neither: then it is not compiled).
    strain: int64 (n,). C/D/B: int64 (n, 2) card, declaration, belote points; T, bid, coinche, capot_team: int64
    (n,); capot_bid: bool (n,). Outputs made/litige/decided bool (n,), P int32 (n, 2), score int32 (n, 2), held
    int32 (n,)."""
    for i in range(T.shape[0]):
        settle_one(i, C, D, B, T[i], bid[i], capot_bid[i], coinche[i], capot_team[i], strain[i], mp, ap, rcode, bg,
                   awards, made, litige, decided, P, score, held)


def settle(card_points: np.ndarray, decl_points: np.ndarray, belote_points: np.ndarray, taker_team: np.ndarray,
           bid: np.ndarray, capot_bid: np.ndarray, coinche: np.ndarray, capot_team: np.ndarray,
           rules: Ruleset, strain: np.ndarray | None = None, outcome_only: bool = False) -> ContractResult:
    """Score contracts for n hands (one compiled pass per hand, :func:`_settle_kernel`; Bulgarian awards in
    :func:`_bulgarian`).

    Args:
        card_points: int (n, 2) card points with last trick / capot bonus (after any strain scaling).
        decl_points: int (n, 2) declaration points after the contest.
        belote_points: int (n, 2) belote-rebelote points each team holds (0, 20, or more in all-trump).
        taker_team: int (n,) 0 or 1 (rows with no contract must be masked out by the caller).
        bid: int (n,) bid value in points, 0 when the contract has none (classic take).
        capot_bid: bool (n,); coinche: int (n,) 0/1/2; capot_team: int (n,) -1 none.
        strain: int (n,) strain index (needed by Bulgarian rounding only).
        outcome_only: stop once made / litige are known (``hand_score`` and ``held`` are then None).
    Returns:
        :class:`ContractResult`; ``decided`` tells the rows whose outcome the declarations decide.
    """
    R = rules
    mode = R["rounding.mode"]
    bg = 2 if mode == "bg_modern" else (1 if mode.startswith("bg_") else 0)
    rcode = _round_code(mode) if R["contract.made_test_rounded"] or not (bg or outcome_only) else 0
    n = len(taker_team)
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    C, D, B = (i64(a).reshape(n, 2) for a in (card_points, decl_points, belote_points))
    made, litige, decided = np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    P = np.zeros((n, 2), np.int32)
    score = np.zeros((0 if outcome_only else n, 2), np.int32)
    held = np.zeros(0 if outcome_only else n, np.int32)
    if bg and not outcome_only and strain is None:
        raise ValueError("Bulgarian rounding needs the strain of each hand")
    _settle_kernel(C, D, B, i64(taker_team), i64(bid), np.ascontiguousarray(capot_bid, dtype=np.bool_), i64(coinche),
                   i64(capot_team), i64(strain if strain is not None else np.zeros(n)), _made_params(R),
                   _award_params(R), rcode, bg or None, not outcome_only, made, litige, decided, P, score, held)
    if outcome_only:
        return ContractResult(made, litige, P, None, None, decided)
    return ContractResult(made, litige, P, score, held, decided)
