"""Card play: legal cards, legality of recorded plays, trick winners and trick points.

The rules are compiled (numba, :mod:`pipeline.jit`): :func:`legal_one` decides the legal cards of one
position, and both the batch entry points run it, :func:`legal_cards` (a batch of positions, for the simulator
and the oracle tests) and :func:`play_hands` (a batch of recorded hands, one pass per hand: no Python object
per card or per hand). Play obligations come from the ruleset's ``[play]`` section
(rules.md R10-R16): follow suit; trump led -> overtrump if able; void with an opponent winning -> trump,
overtrump, and (if ``must_undertrump``) undertrump; partner exemption; all-trump heading.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.arith import mod
from pipeline.jit import njit, njit_inner, renamed
from pipeline.rescore.tables import ABOVE_TRUMP, Tables
from pipeline.trick_order import STRENGTH
from pipeline.rules import Ruleset, n_teams

# codes of the obligations a play can break (index into RULE_NAMES)
RULE_NAMES = ["", "not_in_hand", "out_of_turn", "follow_suit", "overtrump_on_trump_lead", "must_head",
              "must_trump", "must_overtrump", "must_undertrump"]
(OK, NOT_IN_HAND, OUT_OF_TURN, FOLLOW_SUIT, OVERTRUMP_ON_TRUMP_LEAD, MUST_HEAD,
 MUST_TRUMP, MUST_OVERTRUMP, MUST_UNDERTRUMP) = range(9)


@dataclass(frozen=True)
class PlayRules:
    """The ``[play]`` section as booleans."""

    overtrump_on_trump_lead: bool
    must_trump: bool
    must_overtrump: bool
    must_undertrump: bool
    partner_exemption: bool
    all_trump_must_head: bool
    partner_exemption_must_raise: bool
    partner_exemption_on_trump_lead: bool

    @classmethod
    def of(cls, rules: Ruleset) -> "PlayRules":
        return cls(**{k: bool(rules[f"play.{k}"]) for k in cls.__dataclass_fields__})


# PlayRules as the kernels take them: one uint8 per obligation, in this order
_FLAGS = ("overtrump_on_trump_lead", "must_trump", "must_overtrump", "must_undertrump", "partner_exemption",
          "all_trump_must_head", "partner_exemption_must_raise", "partner_exemption_on_trump_lead")
(F_OVERTRUMP_ON_TRUMP_LEAD, F_MUST_TRUMP, F_MUST_OVERTRUMP, F_MUST_UNDERTRUMP, F_PARTNER_EXEMPTION,
 F_ALL_TRUMP_MUST_HEAD, F_PARTNER_EXEMPTION_MUST_RAISE, F_PARTNER_EXEMPTION_ON_TRUMP_LEAD) = range(8)
_ABOVE_TRUMP = ABOVE_TRUMP.astype(np.int64)
_STRENGTH = STRENGTH.astype(np.int64)


def flags(pr: PlayRules) -> int:
    """The obligations of ``pr`` as the bit set the kernels read: bit F_<NAME> set when the obligation holds."""
    return sum(1 << f for f, k in enumerate(_FLAGS) if getattr(pr, k))


@njit(cache=True, nogil=True)
def legal_one(hand, first, led_suit, strain, win_card, partner_winning, fl, above_trump):
    """The legal cards of one position and the obligation that applies: the one implementation of the play
    rules (rules.md R10-R16), compiled; :func:`legal_cards` and :func:`play_hands` both run it.

    hand: int64 bitmask of the cards held; first: the player leads (any card); led_suit: 0-3; strain: 0-5;
    win_card: 0-31, the card winning the trick so far; partner_winning: the player's partner wins it so far;
    fl: int64 bit set of the obligations (:func:`flags`); above_trump: int64 (33,) (``tables.ABOVE_TRUMP``).
    Returns (int64 legal-card mask, int64 code: OK, FOLLOW_SUIT, MUST_*...).
    """
    if first:
        return hand, OK
    led = min(max(led_suit, 0), 3)
    follow = hand & (np.int64(0xFF) << (8 * led))
    is_suit = strain < 4
    win_idx = min(max(win_card, 0), 31)
    if follow != 0:
        if partner_winning and fl >> F_PARTNER_EXEMPTION_ON_TRUMP_LEAD & 1:
            return follow, FOLLOW_SUIT     # trump led, partner winning: any card of the suit (seed 002)
        if is_suit and led == strain:      # trump led and held: overtrump if able
            higher_trumps = follow & above_trump[win_idx if win_idx // 8 == strain else 32]
            if fl >> F_OVERTRUMP_ON_TRUMP_LEAD & 1 and higher_trumps != 0:
                return higher_trumps, OVERTRUMP_ON_TRUMP_LEAD
        elif strain == ALL_TRUMP:          # all-trump: the winning card is of the suit led; head it if able
            higher_led = follow & above_trump[win_idx]
            if fl >> F_ALL_TRUMP_MUST_HEAD & 1 and higher_led != 0:
                return higher_led, MUST_HEAD
        return follow, FOLLOW_SUIT         # follow suit
    if not is_suit:
        return hand, OK
    trumps = hand & (np.int64(0xFF) << (8 * strain))
    if trumps == 0:
        return hand, OK
    # void in the suit led, holding trumps, in a suit contract
    win_is_trump = win_idx // 8 == strain
    higher_trumps = trumps & above_trump[win_idx] if win_is_trump else trumps
    if partner_winning and fl >> F_PARTNER_EXEMPTION & 1:
        if fl >> F_PARTNER_EXEMPTION_MUST_RAISE & 1 and win_is_trump and higher_trumps != 0:
            # partner winning with a trump: any card, but a trump played must beat it when one can (libcoinche)
            return (hand & ~trumps) | higher_trumps, MUST_OVERTRUMP
        return hand, OK
    if not win_is_trump:
        if fl >> F_MUST_TRUMP & 1:
            return trumps, MUST_TRUMP
        return hand, OK
    if higher_trumps != 0:
        if fl >> F_MUST_OVERTRUMP & 1:
            return higher_trumps, MUST_OVERTRUMP
    elif fl >> F_MUST_UNDERTRUMP & 1:
        return trumps, MUST_UNDERTRUMP
    return hand, OK


#: legal_one as play_one calls it, compiled a second time without numba's wrappers (see pipeline.jit.njit_inner)
#: under its own name (numba's cache names an entry after the function)
_legal_inner = njit_inner(renamed(legal_one.py_func, "legal_one_inner"))


@njit(cache=True, nogil=True)
def _legal_many(hand, first, led_suit, strain, win_card, partner, fl, above_trump, out, why):
    for i in range(len(hand)):
        out[i], why[i] = legal_one(np.int64(hand[i]), first[i], np.int64(led_suit[i]), np.int64(strain[i]),
                                   np.int64(win_card[i]), partner[i], fl, above_trump)


def legal_cards(hand: np.ndarray, first: np.ndarray, led_suit: np.ndarray, strain: np.ndarray,
                win_card: np.ndarray, partner_winning: np.ndarray, pr: PlayRules,
                with_reason: bool = False):
    """Mask of the legal cards for the player to act, for a batch of positions (:func:`legal_one` on each).

    Args (arrays of one length n, or broadcastable to it):
        hand: uint32 bitmask of the cards the player holds.
        first: bool, True when the player leads the trick (then any card is legal).
        led_suit: int8 suit of the card led (ignored when ``first``).
        strain: int8 contract strain (0-3 suit, 4 no-trump, 5 all-trump).
        win_card: int8 card currently winning the trick (ignored when ``first``).
        partner_winning: bool, the player's partner is winning the trick so far.
        pr: play obligations.
        with_reason: also return, for each row, the code of the obligation that applies (MUST_* constants,
            FOLLOW_SUIT...) so a caller can name the rule a card outside the mask breaks.

    Returns: uint32 array of legal-card masks (and int8 reason codes when ``with_reason``).
    """
    hand, first, led_suit, strain, win_card, partner_winning = np.broadcast_arrays(
        np.asarray(hand, dtype=np.uint32), np.asarray(first, dtype=bool), np.asarray(led_suit, dtype=np.int64),
        np.asarray(strain, dtype=np.int64), np.asarray(win_card, dtype=np.int64),
        np.asarray(partner_winning, dtype=bool))
    shape = hand.shape
    args = [np.ascontiguousarray(a).reshape(-1) for a in (hand, first, led_suit, strain, win_card, partner_winning)]
    legal = np.empty(args[0].shape, dtype=np.uint32)
    why = np.empty(args[0].shape, dtype=np.int8)
    _legal_many(*args, flags(pr), _ABOVE_TRUMP, legal, why)
    if with_reason:
        return legal.reshape(shape), why.reshape(shape)
    return legal.reshape(shape)


@dataclass
class PlayResult:
    """Outcome of the play of a batch of n hands with n_tricks tricks.

    trick_winners: int8 (n, n_tricks) seat winning each trick.
    trick_points: int16 (n, n_tricks) card points in each trick (no last-trick bonus).
    legal: bool (n,) every play obeyed the obligations.
    illegal_trick: int8 (n,) 1-based trick of the first illegal play, 0 when legal.
    illegal_seat, illegal_card: int8 (n,) of the first illegal play, -1 when legal.
    illegal_rule: int8 (n,) index into RULE_NAMES.
    team_points: int64 (n, K) card points of the tricks each team won (team = seat % K,
        :func:`pipeline.rules.n_teams`), no last-trick bonus.
    took_trick: bool (n, K) the team won at least one trick.
    last_trick_team: int64 (n,) the team that won the last trick.
    illegal_count: int16 (n, K) plays that break a rule, per team of the seat that played them (every one, not
        only the first: ``play.revoke_count = "each"``).
    """

    trick_winners: np.ndarray
    trick_points: np.ndarray
    legal: np.ndarray
    illegal_trick: np.ndarray
    illegal_seat: np.ndarray
    illegal_card: np.ndarray
    illegal_rule: np.ndarray
    team_points: np.ndarray
    took_trick: np.ndarray
    last_trick_team: np.ndarray
    illegal_count: np.ndarray


def unpack(bad_teams: int, K: int) -> list[int]:
    """The per-team counts of :func:`play_one`'s packed value (8 bits a team)."""
    return [(int(bad_teams) >> (8 * t)) & 0xFF for t in range(K)]


# inlined by numba into its callers rather than called (pipeline.jit.njit_inner): the hottest per-hand function,
# whose call made score_batch measurably slower, for little compile time saved
@njit(cache=True, nogil=True, inline="always")
def play_one(plays, p0, seats, s0, hands, h0, P, n_tricks, dealer, st, points, strength, fl, above_trump, K, i,
             winners, trick_points, team_points, took):
    """Replay one hand: the one implementation of the trick play (winners, points, legality), compiled.

    plays, seats: int8 flat buffers holding the hand's P * n_tricks cards / seats from ``p0`` / ``s0`` on;
    hands: uint32 flat buffer holding its P initial hands from ``h0`` on; dealer: its dealer seat ((dealer + 1)
    leads); st: its strain (0-5); points: int64 (6 * 32,) card points; strength: int64 (768,) trick strengths
    (``trick_order.STRENGTH``); fl: :func:`flags`; above_trump: ``ABOVE_TRUMP``; K: teams (team = seat % K).
    Writes row ``i`` of winners (int8 (., n_tricks)), of trick_points (int16 (., n_tricks), skipped when it
    has no rows) and of team_points (int (., K), card points, no last-trick bonus) and took (bool (., K)).
    Returns (team of the last trick, index of the first play that breaks a rule or -1, its code: OK..., the plays
    that break a rule per team of the seat that played them: team t's count in bits 8t..8t+7 (:func:`unpack`),
    the plays that break the duty to follow suit alone (code FOLLOW_SUIT: a card of another suit from a seat
    holding the suit led, ``play.revoke_on = "follow_suit"``) packed the same way, the seat of the first of
    those or -1).
    Every play is checked, also those after an illegal one (an out-of-turn play: the next plays are expected
    from the seat after the one that played). A play by the wrong seat, or of a card its seat does not hold, is
    flagged and the hand played on."""
    st = min(max(np.int64(st), 0), 5)
    suit_contract = st < 4
    played = np.int64(0)                 # every card played so far in the hand, by any seat
    leader = mod(np.int64(dealer) + 1, P)
    first_bad = -1
    first_code = OK
    bad_teams = np.int64(0)              # plays that break a rule, per team of the seat that played: 8 bits a team
    revokes = np.int64(0)                # ... of them, those that break the duty to follow suit (FOLLOW_SUIT)
    first_revoke = -1                    # the seat of the first of those
    last_team = 0
    for t in range(K):
        team_points[i, t] = 0
        took[i, t] = False
    for t in range(n_tricks):
        base = t * P
        expected = mod(leader, P)          # a recorded seat out of range still counts modulo P
        # the lead: any card the seat holds
        c = np.int64(plays[np.uint64(p0 + base)])     # offsets and positions: never negative
        s = np.int64(seats[np.uint64(s0 + base)])
        bit = np.int64(1) << c
        code = OK
        if s != expected:
            code = OUT_OF_TURN
            expected = mod(s, P)           # the plays after it are checked from the seat that played
        elif np.int64(hands[np.uint64(h0 + s)]) & ~played & bit == 0:
            code = NOT_IN_HAND
        if code != OK:
            if first_bad < 0:
                first_bad, first_code = base, code
            bad_teams += np.int64(1) << (8 * mod(s, K))
        led = c >> 3
        row = st * 128 + led * 32
        # a plain suit led (not trump, not all-trump): following it is always legal
        plain_led = (st == NO_TRUMP) | (suit_contract & (led != st))
        best_key = strength[row + c] << 2  # strength first, then position (k < 4): unique in the trick
        win_card = c
        win_seat = s
        played |= bit
        pts = points[st * 32 + c]
        expected += 1
        if expected == P:
            expected = 0
        for k in range(1, P):
            j = base + k
            c = np.int64(plays[np.uint64(p0 + j)])
            s = np.int64(seats[np.uint64(s0 + j)])
            bit = np.int64(1) << c
            # every play is checked, also after an illegal one (play.revoke_count = "each" counts them all)
            code = OK
            if s != expected:
                code = OUT_OF_TURN
                expected = mod(s, P)       # the plays after it are checked from the seat that played
            else:
                # a seat's hand before a play: its initial hand minus every card played so far (cards of
                # other seats were never in it)
                held = np.int64(hands[np.uint64(h0 + s)]) & ~played    # s is the expected seat: 0 <= s < P
                if held & bit == 0:
                    code = NOT_IN_HAND
                elif not (plain_led and c >> 3 == led):
                    partner = (P == 4) & ((win_seat & 1) == (s & 1))
                    legal, why = _legal_inner(held, False, led, st, win_card, partner, fl, above_trump)
                    if legal & bit == 0:
                        # heading the lead (trump led, all-trump) is asked only of a player holding the suit
                        # led: a card of another suit breaks the first duty, to follow suit (R10)
                        heading = (why == OVERTRUMP_ON_TRUMP_LEAD) | (why == MUST_HEAD)
                        code = FOLLOW_SUIT if heading & (c >> 3 != led) else why
            if code != OK:
                if first_bad < 0:
                    first_bad = j
                    first_code = code
                bad_teams += np.int64(1) << (8 * mod(s, K))
                if code == FOLLOW_SUIT:
                    revokes += np.int64(1) << (8 * mod(s, K))
                    if first_revoke < 0:
                        first_revoke = mod(s, P)
            key = (strength[row + c] << 2) + k
            if key > best_key:
                best_key = key
                win_card = c
                win_seat = s
            played |= bit
            pts += points[st * 32 + c]
            expected += 1
            if expected == P:
                expected = 0
        winners[i, t] = win_seat
        if trick_points.shape[0]:
            trick_points[i, t] = pts
        leader = win_seat
        team = mod(win_seat, K)
        team_points[i, team] += pts
        took[i, team] = True
        last_team = team
    return last_team, first_bad, first_code, bad_teams, revokes, first_revoke


@njit(cache=True, nogil=True, _nrt=False)
def _play_kernel(plays, seats, hands, dealer, strain, points, strength, fl, above_trump, n_players, n_teams,
                 winners, trick_points, team_points, took, last_team, ill_trick, ill_seat, ill_card, ill_rule,
                 ill_count):
    """:func:`play_one` for each hand of the flat buffers plays, seats (n * total,) and hands (n * P,); writes
    winners, trick_points (n, tricks), team_points, took (n, K), the team of the last trick and, per hand,
    the 1-based trick, seat, card and code of the first play that breaks a rule (0, -1, -1, OK when none) and the
    plays that break a rule per team (ill_count, (n, K))."""
    n = dealer.shape[0]
    P = n_players
    n_tricks = winners.shape[1]
    total = P * n_tricks
    for i in range(n):
        last_team[i], first_bad, first_code, bad_teams, _, _ = play_one(
            plays, i * total, seats, i * total, hands, i * P, P, n_tricks, dealer[i], strain[i], points, strength,
            fl, above_trump, n_teams, i, winners, trick_points, team_points, took)
        if first_bad >= 0:
            ill_trick[i] = first_bad // P + 1
            ill_seat[i] = seats[i * total + first_bad]
            ill_card[i] = plays[i * total + first_bad]
        else:
            ill_trick[i] = 0
            ill_seat[i] = -1
            ill_card[i] = -1
        ill_rule[i] = first_code
        for t in range(n_teams):
            ill_count[i, t] = (bad_teams >> (8 * t)) & 0xFF


def play_hands(plays: np.ndarray, seats: np.ndarray, hands: np.ndarray, dealer: np.ndarray,
               strain: np.ndarray, tables: Tables, pr: PlayRules, n_players: int = 4) -> PlayResult:
    """Replay recorded plays: check each against the obligations, find trick winners and trick points.

    Args:
        plays: int8 (n, n_players * n_tricks) cards in play order.
        seats: int8 (same shape) seat of each play, as recorded.
        hands: uint32 (n, n_players) initial hands.
        dealer: int8 (n,) dealer seat; (dealer + 1) leads the first trick.
        strain: int8 (n,) contract strain.
    A play by the wrong seat, or of a card its seat does not hold, is flagged (``out_of_turn``,
    ``not_in_hand``) and the hand is still played out as recorded; the first flagged play is reported.

    One compiled pass per hand (:func:`_play_kernel`): the winning card so far of each trick, each seat's
    hand before its play (its initial hand minus the cards played), :func:`legal_one` for each play that
    does not just follow a plain suit. Trick points are card points (``tables.points``), no last-trick bonus.
    """
    n, total = plays.shape
    P = n_players
    n_tricks = total // P
    winners = np.zeros((n, n_tricks), dtype=np.int8)
    tpoints = np.zeros((n, n_tricks), dtype=np.int16)
    K = n_teams(P)
    team_points = np.zeros((n, K), dtype=np.int64)
    took = np.zeros((n, K), dtype=bool)
    last_team = np.zeros(n, dtype=np.int64)
    ill = [np.empty(n, dtype=np.int8) for _ in range(4)]     # trick, seat, card, rule
    ill_count = np.zeros((n, K), dtype=np.int16)
    _play_kernel(np.ascontiguousarray(plays, dtype=np.int8).reshape(-1), np.ascontiguousarray(seats, dtype=np.int8).reshape(-1),
                 np.ascontiguousarray(hands, dtype=np.uint32).reshape(-1), np.ascontiguousarray(dealer, dtype=np.int8),
                 np.ascontiguousarray(strain, dtype=np.int8), tables.points_flat.astype(np.int64), _STRENGTH,
                 flags(pr), _ABOVE_TRUMP, P, K, winners, tpoints, team_points, took, last_team, *ill, ill_count)
    return PlayResult(trick_winners=winners, trick_points=tpoints, legal=ill[3] == OK, illegal_trick=ill[0],
                      illegal_seat=ill[1], illegal_card=ill[2], illegal_rule=ill[3], team_points=team_points,
                      took_trick=took, last_trick_team=last_team, illegal_count=ill_count)

