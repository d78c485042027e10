"""Card play: legal cards, legality of recorded plays, trick winners and trick points.

Everything is vectorised over a batch of hands (numpy arrays, one row per hand); the only Python loop
is over the 32 plays of a hand. Play obligations come from the ruleset's ``[play]`` section
(rules.md R10-R16): follow suit; trump led -> overtrump if able; void with an opponent winning -> trump,
overtrump, and (if ``must_undertrump``) undertrump; partner exemption; all-trump heading.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import ALL_TRUMP, NO_TRUMP, SUIT_MASKS
from pipeline.rescore.tables import ABOVE_TRUMP, BIT, CARD_SUIT, Tables, strength
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
    reason = np.zeros(hand.shape, dtype=np.int8)

    # plain suit led and held (suit contracts and no-trump): follow suit
    c_follow = ~first & has_follow & ~led_is_trump & ~at
    legal = np.where(c_follow, follow, legal)
    reason = np.where(c_follow, FOLLOW_SUIT, reason)
    # trump led and held: overtrump if able
    c_tl = ~first & has_follow & led_is_trump
    need_up = c_tl & pr.overtrump_on_trump_lead & (higher_trumps != 0)
    legal = np.where(c_tl, np.where(need_up, higher_trumps, follow), legal)
    reason = np.where(c_tl, np.where(need_up, OVERTRUMP_ON_TRUMP_LEAD, FOLLOW_SUIT), reason)
    # all-trump, suit led and held: head if able
    c_at = ~first & has_follow & at
    need_head = c_at & pr.all_trump_must_head & (higher_led != 0)
    legal = np.where(c_at, np.where(need_head, higher_led, follow), legal)
    reason = np.where(c_at, np.where(need_head, MUST_HEAD, FOLLOW_SUIT), reason)
    # void in the suit led, holding trumps, in a suit contract
    c_void = ~first & ~has_follow & is_suit & (trumps != 0)
    exempt = partner_winning & pr.partner_exemption
    bound = c_void & ~exempt
    no_trump_yet = bound & ~win_is_trump
    legal = np.where(no_trump_yet & pr.must_trump, trumps, legal)
    reason = np.where(no_trump_yet & pr.must_trump, MUST_TRUMP, reason)
    over = bound & win_is_trump
    can_over = over & (higher_trumps != 0) & pr.must_overtrump
    legal = np.where(can_over, higher_trumps, legal)
    reason = np.where(can_over, MUST_OVERTRUMP, reason)
    under = over & (higher_trumps == 0) & pr.must_undertrump
    legal = np.where(under, trumps, legal)
    reason = np.where(under, MUST_UNDERTRUMP, reason)
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
    """
    n, total = plays.shape
    n_tricks = total // n_players
    rows = np.arange(n)
    remaining = hands.astype(np.uint32).copy()
    winners = np.zeros((n, n_tricks), dtype=np.int8)
    tpoints = np.zeros((n, n_tricks), dtype=np.int16)
    ill_trick = np.zeros(n, dtype=np.int8)
    ill_seat = np.full(n, -1, dtype=np.int8)
    ill_card = np.full(n, -1, dtype=np.int8)
    ill_rule = np.zeros(n, dtype=np.int8)
    leader = ((dealer.astype(np.int64) + 1) % n_players)
    strain64 = strain.astype(np.int64)
    pts_table = tables.points[np.clip(strain64, 0, 5)]  # (n, 32)
    led_suit = np.zeros(n, dtype=np.int8)
    win_card = np.zeros(n, dtype=np.int8)
    win_seat = np.zeros(n, dtype=np.int64)
    win_str = np.zeros(n, dtype=np.int16)
    trick_sum = np.zeros(n, dtype=np.int16)
    first_true = np.ones(n, dtype=bool)
    first_false = np.zeros(n, dtype=bool)
    for j in range(total):
        t, k = divmod(j, n_players)
        card = plays[:, j].astype(np.int64)
        seat = seats[:, j].astype(np.int64)
        hand = remaining[rows, seat]
        first = first_true if k == 0 else first_false
        if k == 0:
            led_suit = CARD_SUIT[card]
        partner = (win_seat % 2 == seat % 2) & (n_players == 4) & ~first
        legal, why = legal_cards(hand, first, led_suit, strain, win_card, partner, pr, with_reason=True)
        bit = BIT[card]
        in_hand = (hand & bit) != 0
        expected_seat = (leader + k) % n_players
        code = np.where(seat != expected_seat, OUT_OF_TURN,
                        np.where(~in_hand, NOT_IN_HAND, np.where((legal & bit) == 0, why, OK)))
        new = (code != OK) & (ill_rule == OK)
        ill_trick = np.where(new, t + 1, ill_trick)
        ill_seat = np.where(new, seat, ill_seat)
        ill_card = np.where(new, card, ill_card)
        ill_rule = np.where(new, code, ill_rule)
        remaining[rows, seat] = hand & ~bit
        s = strength(card.astype(np.int8), led_suit, strain)
        if k == 0:
            win_str, win_seat, win_card = s, seat, card.astype(np.int8)
            trick_sum = pts_table[rows, card].astype(np.int16)
        else:
            better = s > win_str
            win_str = np.where(better, s, win_str)
            win_seat = np.where(better, seat, win_seat)
            win_card = np.where(better, card, win_card).astype(np.int8)
            trick_sum = trick_sum + pts_table[rows, card]
        if k == n_players - 1:
            winners[:, t] = win_seat
            tpoints[:, t] = trick_sum
            leader = win_seat
    return PlayResult(winners, tpoints, ill_rule == OK, ill_trick.astype(np.int8), ill_seat, ill_card,
                      ill_rule.astype(np.int8))
