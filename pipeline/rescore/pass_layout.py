"""What the compiled passes share (:mod:`pipeline.rescore.hand_pass`): the ruleset as numbers, the input
columns, the output buffers and what their rows mean, the working arrays.

The kernels take no Python objects: a ruleset reaches them as int64 parameters at fixed indices (``P_*``,
:func:`params`), and they write a few arrays whose rows are numbered here (``F_*``, ``S_*``, ``T_*``). One module
holds the numbering so that every pass, and the engine that reads their outputs, agree on it.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from pipeline.cards import STRAINS
from pipeline.rescore.contract import _FAIL_DECL
from pipeline.rescore.declaration_contest import CONTESTS, TIES
from pipeline.rescore.declaration_values import trump_bonus
from pipeline.rescore.declaration_items import Entries
from pipeline.rules import Ruleset


# the ruleset parameters as the passes read them (index into the vector of :func:`params`)
(P_PLAYERS, P_TRICKS, P_TEAMS, P_COUNT, P_DECL_ON, P_BELOTE_ON, P_DECK24, P_NEEDS_BID, P_LAST_TRICK,
 P_CAPOT_LAST_TRICK, P_CAPOT_SPLIT, P_CAPOT_BONUS, P_NT_A, P_NT_B, P_AT_A, P_AT_B, P_DECL_NT, P_DECL_AT, P_CONTEST,
 P_TRUMP_BONUS, P_CARRE_IN_SEQ, P_BELOTE_AT, P_BELOTE_LED, P_BELOTE_VALUE, P_ON_CAPOT, P_RCODE, P_BG,
 P_SOLO_COMBINED, P_FAIL_DECL, P_TO_DEFENCE, P_SOLO_SHARE, P_PENALTY, P_FLAGS, P_STRAIN_MASK, P_PRISE,
 P_TIE, P_BELOTE_COUNT) = range(37)
# appended after the others (the vector's order is the one above, then these)
P_REVOKE_EACH, P_CAPOT_BONUS_TAKERS, P_REVOKE_FOLLOW, P_SCALE_LAST, P_CAPOT_BY_POINTS = 37, 38, 39, 40, 41
N_PARAMS = 42   # the vector's length
COUNT_HELD, COUNT_ANNOUNCED, COUNT_ELSE_HELD = 0, 1, 2
_COUNT = {"held": COUNT_HELD, "announced": COUNT_ANNOUNCED, "announced_else_held": COUNT_ELSE_HELD}
_ON_CAPOT = {"keep": 0, "to_capot_team": 1, "lost": 2}

# reason codes (0: none); engine.reason_texts gives their texts for a ruleset
(R_PLAYERS, R_DEAL, R_SUMMARY, R_PLAYS, R_HANDS, R_TRICKS_TAKEN, R_NEEDS_HANDS, R_STRAIN, R_3P, R_DECK24,
 R_BID, R_STRAIN_OFF, R_PRISE) = range(1, 14)

# completeness codes, in the order of COMPLETENESS; any other text is COMP_OTHER
COMPLETENESS = ("full_play", "tricks_taken", "summary", "deal")
COMP_FULL, COMP_TT, COMP_SUMMARY, COMP_DEAL, COMP_OTHER = range(5)

# rows of the flags output (uint8 (N_FLAGS, n), 0/1): validity of output columns, boolean values, and what the
# first pass tells the others (F_FULL: a full play record; F_HANDS: the initial hands are all there)
(F_REASON, F_PLAYED, F_LEGAL, F_ILLEGAL, F_HAS_TAKER, F_OK, F_CAPOT, F_FROM_ANN, F_DECIDED_V, F_DECIDED, F_BELOTE,
 F_MADE_V, F_MADE, F_LITIGE, F_SCORE_V, F_MATCH_V, F_MATCH, F_FULL, F_HANDS, F_BELOTE_ANN, F_CLAIM) = range(21)
N_FLAGS = 21     # F_BELOTE_ANN: the belote comes from the record (belote.count); F_CLAIM: the hand's claim was counted

# rows of the int8 output (int8 (N_SMALL, n))
(S_REASON, S_STATUS, S_ILL_TRICK, S_ILL_SEAT, S_ILL_CARD, S_ILL_RULE, S_TAKER_TEAM, S_LAST_TEAM, S_CAPOT_TEAM,
 S_BELOTE_TEAM, S_STRAIN, S_ILL_COUNT) = range(12)
N_SMALL = 12

# the per-team int16 outputs (int16 (N_TEAM16, n, K))
# T_ILLEGAL: the plays the revoke award counts, per team of the seat that played them: every play that breaks a rule,
# or with play.revoke_on = "follow_suit" those that break the duty to follow suit (with play.revoke_count =
# "first" only the first of those: 1 for its team);
# T_CLAIM: each team's points at a recorded claim (card points of the tricks it won up to the claim's trick, then
# its declarations and belote when T_COUNTING: it had won a trick holding a card worth points by then)
T_CARD, T_DECL, T_BELOTE, T_CONTRACT, T_ILLEGAL, T_CLAIM, T_COUNTING = range(7)
N_TEAM16 = 7


def params(R: Ruleset, flags: int) -> np.ndarray:
    """The ruleset's parameters as the passes read them: int64 (N_PARAMS,), indices ``P_*``. ``flags``: the play
    obligations (:func:`pipeline.rescore.play.flags`). ``P_RCODE`` is -1 when the rounding mode has no code
    (the caller raises the settlement's ValueError only if a hand gets that far)."""
    from pipeline.rescore.contract import _round_code
    mode = R["rounding.mode"]
    K = R.n_teams
    bg = 2 if mode == "bg_modern" else (1 if mode.startswith("bg_") else 0)
    try:
        if K == 2:
            rcode = _round_code(mode) if R["contract.made_test_rounded"] or not bg else 0
        else:
            rcode = _round_code(mode)
    except ValueError:
        rcode = -1
    nt_a, nt_b = R["cards.no_trump_scale"]
    at_a, at_b = R["cards.all_trump_scale"]
    v = [int(R["deal.n_players"]), int(R["deal.tricks"]), K, _COUNT[R["declarations.count"]],
         bool(R["declarations.enabled"]), bool(R["belote.enabled"]), int(R["deal.deck"]) == 24,
         R["contract.made_vs_bid"] == "ge" or bool(R["contract.made_adds_bid"]) or bool(R["contract.fail_adds_bid"]),
         int(R["cards.last_trick"]), int(R["cards.capot_last_trick"]),
         int(R["cards.capot_split_each"]) if K > 2 else 0, int(R["cards.capot_bonus"]), int(nt_a), int(nt_b),
         int(at_a), int(at_b), bool(R["declarations.in_no_trump"]), bool(R["declarations.in_all_trump"]),
         CONTESTS.index(R["declarations.contest"]), trump_bonus(R),
         bool(R["declarations.carre_cards_in_sequences"]), R["belote.all_trump"] != "none",
         R["belote.all_trump"] == "per_suit_led", int(R["belote.value"]), _ON_CAPOT[R["declarations.on_capot"]],
         rcode, bg, R["contract.solo_made"] != "each", _FAIL_DECL[R["contract.fail_declarations"]],
         R["belote.on_failure"] == "to_defence", R["contract.solo_fail"] == "share", int(R["play.revoke_penalty"]),
         flags,
         # the strains the ruleset plays (bit STRAINS.index(s)) and whether its auction is a prise (no coinche,
         # no capot bid): a contract outside them has no score under it (auction.strains / auction.style)
         sum(1 << STRAINS.index(s) for s in R["auction.strains"]), R["auction.style"] == "prise",
         TIES.index(R["declarations.tie"]), _COUNT[R["belote.count"]]]
    v += [R["play.revoke_count"] == "each"]          # P_REVOKE_EACH
    v += [R["cards.capot_bonus_to"] == "takers"]     # P_CAPOT_BONUS_TAKERS
    v += [R["play.revoke_on"] == "follow_suit"]      # P_REVOKE_FOLLOW
    v += [bool(R["cards.scale_last_trick"])]         # P_SCALE_LAST
    v += [R["cards.capot_by"] == "points"]           # P_CAPOT_BY_POINTS
    return np.array(v, dtype=np.int64)


class Tables(NamedTuple):
    """A ruleset's tables as the passes read them."""

    points: np.ndarray        # int64 (6 * 32,) card points of card c in strain s at s * 32 + c
    strength: np.ndarray      # int64 (768,) trick strengths (trick_order.STRENGTH)
    above_trump: np.ndarray   # int64 (33,) (tables.ABOVE_TRUMP)
    decl: object              # declarations.DeclarationTables
    made: np.ndarray          # int64 (9,) contract._made_params
    award: np.ndarray         # int64 (26,) contract._award_params


# the input columns as the passes read them (:class:`Inputs`): rows of its per-hand values (int32 (N_VALS, n);
# V_COMP / V_STRAIN: the completeness / strain text's index in COMPLETENESS / cards.STRAINS, COMP_OTHER / -1 for
# another text or none; V_CLAIM: hands.claim.trick, -1 when none), of its validity flags (uint8 (N_VALID, n): 1
# when the column is not null in that row; B_CBID: the value of capot_bid) and of its list offsets (int32
# (N_OFFS, n + 1): row i's items of a list column are its values from offs[O_*, i] to offs[O_*, i + 1])
(V_N_PL, V_TAKER, V_TTEAM, V_COMP, V_STRAIN, V_LTS, V_DEALER, V_COINCHE, V_BID, V_MARGIN, V_CLAIM) = range(11)
N_VALS = 11
(B_TAKER, B_TTEAM, B_PLAYS, B_HANDS, B_TT, B_LTS, B_ANN, B_CBID, B_BID, B_REC, B_MARGIN) = range(11)
N_VALID = 11
O_PLAYS, O_SEATS, O_HANDS, O_TT, O_REC = range(5)
N_OFFS = 5


class Inputs(NamedTuple):
    """The hands columns as the passes read them (engine builds it): the per-hand values, validity and list
    offsets as three matrices (rows ``V_*``, ``B_*``, ``O_*``), and the list columns' values. A few 2-D arrays
    rather than one array per column: numba compiles, for a kernel called from Python, code that unboxes each
    argument, and the passes' compile grew with their number of arguments."""

    vals: np.ndarray      # int32 (N_VALS, n)
    valid: np.ndarray     # uint8 (N_VALID, n)
    offs: np.ndarray      # int32 (N_OFFS, n + 1)
    plays: np.ndarray     # int8: hands.plays
    seats: np.ndarray     # int8: hands.play_seats
    hands: np.ndarray     # uint32: hands.initial_hands
    tt: np.ndarray        # uint32: hands.tricks_taken
    rec: np.ndarray       # int32: hands.recorded_score


class Outputs:
    """The buffers the passes write for n hands of K teams and ``tricks`` tricks.

    flags: uint8 (N_FLAGS, n) 0/1 (rows ``F_*``); small: int8 (N_SMALL, n) (rows ``S_*``); team16: int16
    (N_TEAM16, n, K) card, declaration, belote and contract points (card points); score: int32 (n, K) hand
    score (game points); held: int32 (n,); winners: int8 (n, tricks); item_offsets: int32 (n + 1,) each hand's
    first declaration item; items: the declaration items (row int64, seat, kind, rank, suit, length int8 (5, .),
    points int32, scored bool), as :meth:`entries` gives them.
    """

    def __init__(self, n: int, K: int, tricks: int):
        self.flags = np.zeros((N_FLAGS, n), dtype=np.uint8)
        self.small = np.zeros((N_SMALL, n), dtype=np.int8)
        self.team16 = np.zeros((N_TEAM16, n, K), dtype=np.int16)
        self.score = np.zeros((n, K), dtype=np.int32)
        self.held = np.zeros(n, dtype=np.int32)
        self.winners = np.zeros((n, tricks), dtype=np.int8)
        self.item_offsets = np.zeros(n + 1, dtype=np.int32)
        self.set_entries(Entries.empty())

    def set_entries(self, e: Entries) -> None:
        """The declaration items are ``e``'s."""
        self.items = (e.row, np.stack([e.seat, e.kind, e.rank, e.suit, e.length]), e.points, e.scored)

    def entries(self, count: int) -> Entries:
        """The first ``count`` declaration items."""
        row, small, points, scored = self.items
        return Entries(row[:count], *small[:, :count], points[:count], scored[:count])


class Scratch(NamedTuple):
    """Working arrays of the passes for n hands (P seats, K teams, T tricks); their content between calls is of
    no meaning (a pass sets each row's before reading it). Arrays of one type are stacked (a pass takes the
    stack, and the per-hand functions its rows): fewer arguments for numba to compile code for."""

    cdb: np.ndarray      # int64 (3, n, K): card points, declaration points after the contest and
    #                      declarations.on_capot, belote points held
    took: np.ndarray     # bool (n, K) the team took a trick
    outcome: np.ndarray  # bool (3, n): made, litige, decided
    no_tp: np.ndarray    # int16 (0, T): trick points not asked for


_LOCAL = threading.local()


def scratch(n: int, K: int, P: int, T: int) -> Scratch:
    """:class:`Scratch` for n hands, kept per thread and reused while the shape stays (no page faults per
    batch; one per thread, so that threads never share it)."""
    key = (n, K, P, T)
    s = getattr(_LOCAL, "scratch", None)
    if s is None or _LOCAL.key != key:
        s = Scratch(np.zeros((3, n, K), np.int64), np.zeros((n, K), np.bool_), np.zeros((3, n), np.bool_),
                    np.zeros((0, T), np.int16))
        _LOCAL.scratch, _LOCAL.key = s, key
    return s


def input_matrices(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (values, validity, offsets) matrices of :class:`Inputs` for n hands, kept per thread and reused while n
    stays, as :func:`scratch` (their content is of no meaning until the engine fills them)."""
    m = getattr(_LOCAL, "inputs", None)
    if m is None or m[0].shape[1] != n:
        m = _LOCAL.inputs = (np.empty((N_VALS, n), np.int32), np.empty((N_VALID, n), np.uint8),
                             np.empty((N_OFFS, n + 1), np.int32))
    return m
