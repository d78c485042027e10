"""Card play: legal cards, legality of recorded plays, trick winners and trick points.

Everything is vectorised over a batch of hands (numpy arrays, one row per hand); the only Python loop
is over the 32 plays of a hand. Play obligations come from the ruleset's ``[play]`` section
(rules.md R10-R16): follow suit; trump led -> overtrump if able; void with an opponent winning -> trump,
overtrump, and (if ``must_undertrump``) undertrump; partner exemption; all-trump heading.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP, SUIT_MASKS, popcount32
from pipeline.rescore.tables import ABOVE_TRUMP, BIT, CARD_SUIT, STRENGTH, Tables
from pipeline.rules import Ruleset

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

    @classmethod
    def of(cls, rules: Ruleset) -> "PlayRules":
        return cls(**{k: bool(rules[f"play.{k}"]) for k in cls.__dataclass_fields__})


def legal_cards(hand: np.ndarray, first: np.ndarray, led_suit: np.ndarray, strain: np.ndarray,
                win_card: np.ndarray, partner_winning: np.ndarray, pr: PlayRules,
                with_reason: bool = False):
    """Mask of the legal cards for the player to act, for a batch of positions.

    Args (all arrays of one length n):
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
    hand = hand.astype(np.uint32)
    led_suit = np.clip(led_suit.astype(np.int64), 0, 3)
    suit_mask = SUIT_MASKS[led_suit]
    follow = hand & suit_mask
    has_follow = follow != 0
    is_suit = strain < 4
    trump_suit = np.clip(strain.astype(np.int64), 0, 3)
    trumps = np.where(is_suit, hand & SUIT_MASKS[trump_suit], np.uint32(0)).astype(np.uint32)
    win_idx = np.where(first, 32, win_card.astype(np.int64))
    win_is_trump = is_suit & (CARD_SUIT[np.clip(win_idx, 0, 31)] == trump_suit) & ~first
    best_trump = np.where(win_is_trump, win_idx, 32)
    higher_trumps = trumps & ABOVE_TRUMP[best_trump]
    led_is_trump = is_suit & (led_suit == trump_suit)
    at = strain == ALL_TRUMP
    # all-trump: the winning card is always of the suit led; heading means beating it
    higher_led = follow & ABOVE_TRUMP[np.where(at & ~first, win_idx, 32)]

    legal = hand.copy()
    if with_reason:
        reason = np.zeros(hand.shape, dtype=np.int8)

    # plain suit led and held (suit contracts and no-trump): follow suit
    c_follow = ~first & has_follow & ~led_is_trump & ~at
    legal = np.where(c_follow, follow, legal)
    if with_reason:
        reason = np.where(c_follow, FOLLOW_SUIT, reason)
    # trump led and held: overtrump if able
    c_tl = ~first & has_follow & led_is_trump
    need_up = c_tl & pr.overtrump_on_trump_lead & (higher_trumps != 0)
    legal = np.where(c_tl, np.where(need_up, higher_trumps, follow), legal)
    if with_reason:
        reason = np.where(c_tl, np.where(need_up, OVERTRUMP_ON_TRUMP_LEAD, FOLLOW_SUIT), reason)
    # all-trump, suit led and held: head if able
    c_at = ~first & has_follow & at
    need_head = c_at & pr.all_trump_must_head & (higher_led != 0)
    legal = np.where(c_at, np.where(need_head, higher_led, follow), legal)
    if with_reason:
        reason = np.where(c_at, np.where(need_head, MUST_HEAD, FOLLOW_SUIT), reason)
    # void in the suit led, holding trumps, in a suit contract
    c_void = ~first & ~has_follow & is_suit & (trumps != 0)
    exempt = partner_winning & pr.partner_exemption
    bound = c_void & ~exempt
    if pr.partner_exemption_must_raise:
        # partner winning with a trump: any card, but a trump played must beat it when one can (libcoinche)
        raise_ = c_void & exempt & win_is_trump & (higher_trumps != 0)
        legal_r = (hand & ~trumps) | higher_trumps
    else:
        raise_ = np.zeros(hand.shape, dtype=bool)
        legal_r = hand
    no_trump_yet = bound & ~win_is_trump
    legal = np.where(no_trump_yet & pr.must_trump, trumps, legal)
    if with_reason:
        reason = np.where(no_trump_yet & pr.must_trump, MUST_TRUMP, reason)
    over = bound & win_is_trump
    can_over = over & (higher_trumps != 0) & pr.must_overtrump
    legal = np.where(can_over, higher_trumps, legal)
    if with_reason:
        reason = np.where(can_over, MUST_OVERTRUMP, reason)
    under = over & (higher_trumps == 0) & pr.must_undertrump
    legal = np.where(under, trumps, legal)
    if with_reason:
        reason = np.where(under, MUST_UNDERTRUMP, reason)
    legal = np.where(raise_, legal_r, legal)
    if with_reason:
        reason = np.where(raise_, MUST_OVERTRUMP, reason)
    legal = legal.astype(np.uint32)
    if with_reason:
        return legal, reason.astype(np.int8)
    return legal


@dataclass
class PlayResult:
    """Outcome of the play of a batch of n hands with n_tricks tricks.

    trick_winners: int8 (n, n_tricks) seat winning each trick.
    trick_points: int16 (n, n_tricks) card points in each trick (no last-trick bonus).
    legal: bool (n,) every play obeyed the obligations.
    illegal_trick: int8 (n,) 1-based trick of the first illegal play, 0 when legal.
    illegal_seat, illegal_card: int8 (n,) of the first illegal play, -1 when legal.
    illegal_rule: int8 (n,) index into RULE_NAMES.
    """

    trick_winners: np.ndarray
    trick_points: np.ndarray
    legal: np.ndarray
    illegal_trick: np.ndarray
    illegal_seat: np.ndarray
    illegal_card: np.ndarray
    illegal_rule: np.ndarray


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
    ``not_in_hand``) and the hand is still played out as recorded.

    Every play is checked at once, as (n, plays) arrays: the hand each seat held before a play comes from
    a running OR of the cards it played earlier, the card winning the trick so far from a running max
    of trick strength within the trick. Only the trick leaders (winner of the previous trick) need a
    loop over tricks, for the out-of-turn check.
    """
    n, total = plays.shape
    P = n_players
    n_tricks = total // P
    cards = plays.astype(np.int64)
    seat = seats.astype(np.int64)
    bits = BIT[cards]
    # a seat's hand before a play = its initial hand minus every card played so far (cards of other seats
    # were never in it, so one running OR over all plays serves every seat)
    cum = np.bitwise_or.accumulate(bits, axis=1)
    played_before = np.concatenate([np.zeros((n, 1), dtype=np.uint32), cum[:, :-1]], axis=1)
    hands_flat = hands.astype(np.uint32).reshape(-1)
    seat_c = np.clip(seat, 0, P - 1)

    def held_at(flat_idx: np.ndarray) -> np.ndarray:
        """The hand of the seat playing at flat positions ``flat_idx`` (of (n, total)), just before the play."""
        return hands_flat[flat_idx // total * P + seat_c.reshape(-1)[flat_idx]] & ~played_before.reshape(-1)[flat_idx]

    # trick structure: (n, tricks, P)
    c3 = cards.reshape(n, n_tricks, P)
    s3 = seat.reshape(n, n_tricks, P)
    led3 = np.broadcast_to(CARD_SUIT[c3[:, :, :1]], c3.shape)
    strain64 = np.clip(strain.astype(np.int64), 0, 5)
    strain3 = np.broadcast_to(strain64.reshape(n, 1, 1), c3.shape)
    st = STRENGTH[strain3 * 128 + led3 * 32 + c3].astype(np.int32)
    key = st * P + np.arange(P, dtype=np.int32)       # unique per trick: strength first, then position
    run = np.maximum.accumulate(key, axis=2)
    winner_pos = run[:, :, -1] % P
    winners = np.take_along_axis(s3, winner_pos[:, :, None], axis=2)[:, :, 0]
    tpoints = tables.points_flat[strain64[:, None] * 32 + cards].reshape(n, n_tricks, P).sum(axis=2).astype(np.int16)

    # Only some plays can break an obligation: a card off the suit led (void or revoke), or any card when
    # trumps are led or in all-trump (overtrump / heading duties). Following a plain suit is always legal.
    pos = np.arange(P)
    exposed = (pos > 0) & ((CARD_SUIT[c3] != led3) | (strain3 == ALL_TRUMP) | ((strain3 < 4) & (led3 == strain3)))
    idx = np.flatnonzero(exposed)
    code_legal = np.zeros(n * total, dtype=np.int8)
    if len(idx):
        # the card winning the trick before this play: best of the earlier positions of the same trick
        k = idx % P
        prev_pos = run.reshape(-1)[idx - 1] % P
        base = idx - k
        win_card = cards.reshape(-1)[base + prev_pos]
        win_seat = seat.reshape(-1)[base + prev_pos]
        partner = ((win_seat % 2) == (seat.reshape(-1)[idx] % 2)) & (P == 4)
        args = (held_at(idx), np.zeros(len(idx), dtype=bool), led3.reshape(-1)[idx], strain3.reshape(-1)[idx],
                win_card.astype(np.int8), partner)
        legal = legal_cards(*args, pr)
        bad = np.flatnonzero((legal & bits.reshape(-1)[idx]) == 0)
        if len(bad):   # name the broken obligation only where there is one (rare)
            _, why = legal_cards(*(a[bad] for a in args), pr, with_reason=True)
            code_legal[idx[bad]] = why
    code_legal = code_legal.reshape(n, total)

    leaders = np.empty((n, n_tricks), dtype=np.int64)
    leaders[:, 0] = (dealer.astype(np.int64) + 1) % P
    leaders[:, 1:] = winners[:, :-1]
    expected = ((leaders.astype(np.int8)[:, :, None] + np.arange(P, dtype=np.int8)) % P).reshape(n, total)
    # every card played by the seat that held it, each once: checked per hand; per play only where it fails
    own = np.zeros((n, P), dtype=np.uint32)
    for s in range(P):
        own[:, s] = np.bitwise_or.reduce(np.where(seat == s, bits, np.uint32(0)), axis=1)
    # every seat played exactly its hand, each card once (with 2 players some cards stay out of play)
    clean = (own == hands.astype(np.uint32)).all(axis=1) & (popcount32(cum[:, -1]) == total)
    not_in_hand = np.zeros((n, total), dtype=bool)
    dirty = np.flatnonzero(~clean)
    if len(dirty):
        flat_idx = (dirty[:, None] * total + np.arange(total)).reshape(-1)
        not_in_hand[dirty] = ((held_at(flat_idx) & bits.reshape(-1)[flat_idx]) == 0).reshape(len(dirty), total)
    code = np.where(seats != expected, OUT_OF_TURN, np.where(not_in_hand, NOT_IN_HAND, code_legal)).astype(np.int8)
    bad = code != OK
    any_bad = bad.any(axis=1)
    j = np.argmax(bad, axis=1)
    rows = np.arange(n)
    return PlayResult(
        trick_winners=winners.astype(np.int8), trick_points=tpoints, legal=~any_bad,
        illegal_trick=np.where(any_bad, j // P + 1, 0).astype(np.int8),
        illegal_seat=np.where(any_bad, seat[rows, j], -1).astype(np.int8),
        illegal_card=np.where(any_bad, cards[rows, j], -1).astype(np.int8),
        illegal_rule=np.where(any_bad, code[rows, j], OK).astype(np.int8))
