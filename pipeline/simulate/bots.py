"""The simulated players of :mod:`pipeline.simulate.games`: how a bot values a hand, bids in each auction style
(prise, bids, Bulgarian strains) and chooses its cards, for a batch of hands at once.

Random bots call and play legal cards at random (the probabilities below); heuristic bots (``HEURISTIC``
in :mod:`pipeline.simulate.games`) value their hand by simple point counts against the thresholds below and
play a simple strategy. Vectorised over the hands of a batch: numpy arrays, no Python object per card.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import ALL_TRUMP, STRAINS, SUIT_MASKS, popcount32
from pipeline.rescore.play import PlayRules, legal_cards
from pipeline.rescore.tables import ABOVE_PLAIN, ABOVE_TRUMP, BIT
from pipeline.trick_order import CARD_SUIT, strength

# random bots' probabilities
P_TAKE = 0.20         # prise: take in round 1 / name a suit in round 2; strain: name a higher contract
P_BID = 0.10          # bid: raise to the next level
P_CAPOT = 0.002       # bid: jump to capot
P_COINCHE = 0.03      # coinche / double an opponent's contract
P_SURCOINCHE = 0.10   # surcoinche / redouble when coinched

# heuristic thresholds
TAKE_VALUE = 11       # prise, suit value (6 cards with the turned one)
BID_VALUE = 12        # bid: any strain (8 cards)
BID_STEP = 3
CAPOT_VALUE = 36      # bid: suit capot
CAPOT_VALUE_NT_AT = 28  # bid: no-trump / all-trump capot (with the 4 aces / 4 jacks)
STRAIN_VALUE = 10     # strain: suit contract (5 cards)
STRAIN_VALUE_NT = 11  # strain: no-trump contract (5 cards)
STRAIN_VALUE_AT = 12  # strain: all-trump contract (5 cards)
OVER_PARTNER = 4      # strain: value above the threshold needed to overcall the partner's contract
REDOUBLE = 6          # strain: value above the threshold needed to redouble

# auction call codes
NONE, PASS, TAKE, COINCHE, SURCOINCHE = -1, 0, 1, 2, 3
STRAIN_CALL = 4          # 4 + strain (0..5): classic second-round suit, Bulgarian contract
BID_CALL = 10            # 10 + level * 6 + strain; level 0..8 = 80..160, 9 = capot
N_STRAINS = len(STRAINS)
CAPOT_LEVEL = 9


def _call_names() -> list[str]:
    names = ["pass", "take", "coinche", "surcoinche"] + list(STRAINS)
    for level in range(CAPOT_LEVEL + 1):
        for s in STRAINS:
            names.append(f"capot{s}" if level == CAPOT_LEVEL else f"{80 + 10 * level}{s}")
    return names


CALL_NAMES = _call_names()
_AR32 = np.arange(32, dtype=np.uint32)
CARDS = np.arange(32, dtype=np.int8)
_STRAIN_IDS = np.arange(N_STRAINS)


def _bit(h: np.ndarray, card: int) -> np.ndarray:
    return ((h >> np.uint32(card)) & np.uint32(1)).astype(np.int32)


def _features(h: np.ndarray) -> dict[str, list[np.ndarray]]:
    """Per suit (lists of 4 int32 arrays shaped like ``h``): card count and the 9, 10, J, K, A held."""
    return {"n": [popcount32(h & SUIT_MASKS[s]) for s in range(4)],
            **{k: [_bit(h, 8 * s + r) for s in range(4)] for k, r in (("9", 2), ("T", 3), ("J", 4), ("K", 6), ("A", 7))}}


def evaluate(h: np.ndarray, f: dict[str, list[np.ndarray]] | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Heuristic value of each suit as trump for hands ``h`` (uint32, shape (n,)); ``f``: its :func:`_features`.

    Returns (value, trump count, holds J, holds 9), each int32 of shape (n, 4)."""
    f = _features(h) if f is None else f
    aces = f["A"]
    tens = [f["T"][o] & aces[o] for o in range(4)]
    void = [(f["n"][o] == 0).astype(np.int32) for o in range(4)]
    value, count, jack, nine = (np.zeros((len(h), 4), dtype=np.int32) for _ in range(4))
    for s in range(4):
        nt, j, nn, a, t = f["n"][s], f["J"][s], f["9"][s], f["A"][s], f["T"][s]
        others = nt - j - nn - a - t
        out = [o for o in range(4) if o != s]
        v = 6 * j + 4 * nn + 3 * a + 2 * t + 2 * others
        v += sum(4 * aces[o] + 2 * tens[o] for o in out)
        v += np.where(nt >= 3, sum(void[o] for o in out), 0)
        value[:, s], count[:, s], jack[:, s], nine[:, s] = v, nt, j, nn
    return value, count, jack, nine


def _evaluate_nt(f: dict[str, list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """No-trump value: per suit, ace 5, ten beside its ace 3, king beside A-10 1, each card past the third of
    an ace-headed suit 1, a guarded ten without the ace 1, a suit stopped by neither -1.

    Returns (value, aces, stoppers), int32."""
    v = aces = stops = 0
    for s in range(4):
        n, a, t, k = f["n"][s], f["A"][s], f["T"][s], f["K"][s]
        tg = t & (n >= 2)
        stop = a | tg
        v = v + 5 * a + 3 * (a & t) + (a & t & k) + a * np.maximum(n - 3, 0) + (tg & (1 - a)) - (1 - stop)
        aces, stops = aces + a, stops + stop
    return v, aces, stops


def _evaluate_at(f: dict[str, list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All-trump value: per suit, jack 5, nine beside its jack 3, ace beside J-9 1, each card past the third
    of a jack-headed suit 1, a guarded nine without the jack 1.

    Returns (value, jacks, jack-nine pairs), int32."""
    v = jacks = pairs = 0
    for s in range(4):
        n, j, nn, a = f["n"][s], f["J"][s], f["9"][s], f["A"][s]
        v = v + 5 * j + 3 * (j & nn) + (j & nn & a) + j * np.maximum(n - 3, 0) + (nn & (1 - j) & (n >= 2))
        jacks, pairs = jacks + j, pairs + (j & nn)
    return v, jacks, pairs


def _strain_eval(h: np.ndarray) -> dict[str, np.ndarray]:
    """Every strain evaluated for hands ``h`` (uint32, shape (n,)); arrays of shape (n, 6), strain last.

    value: the heuristic value; count: trumps held (suits), aces (NT), jacks (AT); honour: the suit's J or 9,
    2+ aces (NT), 2+ jacks (AT); top: J and 9 (suits), the 4 aces / jacks; defend: strong in defence
    against the strain (3+ trumps with the J or 9; 2+ aces with 3 stoppers; 2 jacks and 3 J/J-9 honours);
    defend_hi: against a high contract (2 trumps and 2 outside aces; 2 aces; 2 jacks)."""
    f = _features(h)
    sv, cnt, jack, nine = evaluate(h, f)
    ntv, aces, stops = _evaluate_nt(f)
    atv, jacks, pairs = _evaluate_at(f)
    hon = (jack | nine) == 1
    ace_sum = sum(f["A"])
    out_aces = ace_sum[:, None] - np.stack(f["A"], axis=1)
    defend = np.concatenate([(cnt >= 3) & hon, ((aces >= 2) & (stops >= 3))[:, None],
                             ((jacks >= 2) & (jacks + pairs >= 3))[:, None]], axis=1)
    defend_hi = defend | np.concatenate([(cnt >= 2) & (out_aces >= 2), (aces >= 2)[:, None], (jacks >= 2)[:, None]], axis=1)
    return {
        "value": np.concatenate([sv, ntv[:, None], atv[:, None]], axis=1),
        "count": np.concatenate([cnt, aces[:, None], jacks[:, None]], axis=1),
        "honour": np.concatenate([hon, (aces >= 2)[:, None], (jacks >= 2)[:, None]], axis=1),
        "top": np.concatenate([(jack & nine) == 1, (aces == 4)[:, None], (jacks == 4)[:, None]], axis=1),
        "defend": defend,
        "defend_hi": defend_hi,
        # 5-card (strain style) defence: the J with another trump or the J-9; 2 aces; 2 jacks
        "defend5": np.concatenate([(jack == 1) & (cnt >= 2), (aces >= 2)[:, None], (jacks >= 2)[:, None]], axis=1),
    }


def _seat_eval(hands: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`_strain_eval` of the 4 seats of hands (n, 4): arrays (n, seat, strain)."""
    n = len(hands)
    return {k: v.reshape(n, 4, N_STRAINS) for k, v in _strain_eval(np.ascontiguousarray(hands).reshape(-1)).items()}


def _pick(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random True column of each row of ``mask`` (n, k) (one rng draw per row; 0 when none)."""
    cum = np.cumsum(mask, axis=1)
    r = (rng.random(len(mask)) * cum[:, -1]).astype(np.int64)
    return np.argmax(cum > r[:, None], axis=1)


def masks(cards: np.ndarray) -> np.ndarray:
    """OR of the card bits along the last axis (uint32)."""
    return np.bitwise_or.reduce(BIT[cards.astype(np.int64)], axis=-1).astype(np.uint32)


# ---------------------------------------------------------------------------------------------- auctions

def auction_prise(rng: np.random.Generator, five: np.ndarray, turned: np.ndarray, dealer: np.ndarray,
                   heur: np.ndarray, n_seats: int = 4, taker_gets_turned: bool | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Classic take-or-pass auction for n deals of ``n_seats`` seats (hands ``five`` (n, n_seats)): a round of
    take / pass, then a round naming another suit. Returns calls (n, 2 * n_seats) codes, taker (n,), strain (n,)
    (-1 = none). When the taker gets the turned card (default: with 4 seats; 2 seats: nobody does) the
    heuristic counts it in."""
    n = len(turned)
    rows = np.arange(n)
    calls = np.full((n, 2 * n_seats), NONE, dtype=np.int16)
    taker = np.full(n, -1, dtype=np.int64)
    strain = np.full(n, -1, dtype=np.int64)
    tsuit = (turned // 8).astype(np.int64)
    if taker_gets_turned is None:
        taker_gets_turned = n_seats == 4
    tbit = BIT[turned.astype(np.int64)] if taker_gets_turned else np.zeros(n, dtype=np.uint32)
    suits = np.arange(4)
    for t in range(2 * n_seats):
        seat = (dealer + 1 + t) % n_seats
        open_ = taker < 0
        value, count, jack, nine = evaluate(five[rows, seat] | tbit)
        ok = ((jack | nine) == 1) & (count >= 2) & (value >= TAKE_VALUE)
        u = rng.random(n)
        other = (tsuit + 1 + rng.integers(0, 3, n)) % 4
        hz = heur[rows, seat]
        if t < n_seats:
            call = np.where(hz, ok[rows, tsuit], u < P_TAKE)
            suit = tsuit
            code = TAKE
        else:
            ok &= suits[None, :] != tsuit[:, None]
            best = np.argmax(np.where(ok, value, -1), axis=1)
            call = np.where(hz, ok.any(axis=1), u < P_TAKE)
            suit = np.where(hz, best, other)
            code = STRAIN_CALL + suit
        call &= open_
        calls[:, t] = np.where(open_, np.where(call, code, PASS), NONE)
        taker = np.where(call, seat, taker)
        strain = np.where(call, suit, strain)
    return calls, taker, strain


def auction_bid(rng: np.random.Generator, hands: np.ndarray, dealer: np.ndarray, heur: np.ndarray,
                 allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Coinche bidding for n deals of 8-card hands (n, 4); ``allowed`` (6,) bool: the strains that may be bid.

    Returns calls (n, turns) codes, taker, strain, level (-1 none, 0..8 = 80..160, 9 capot), coinche."""
    n = len(dealer)
    rows = np.arange(n)
    ev = _seat_eval(hands)                                    # (n, seat, strain)
    value = np.where(allowed, ev["value"], -999)
    suit_ok = ev["count"] >= np.array([3, 3, 3, 3, 0, 0])    # suits: 3+ trumps
    ok = allowed & ev["honour"] & suit_ok & (value >= BID_VALUE)
    lvl = np.where(ok, np.minimum((value - BID_VALUE) // BID_STEP, 8), -1)
    capot_ok = np.where(_STRAIN_IDS < 4, (ev["count"] >= 5) & (value >= CAPOT_VALUE), value >= CAPOT_VALUE_NT_AT)
    lvl = np.where(allowed & ev["top"] & capot_ok, CAPOT_LEVEL, lvl)
    best_strain = np.argmax(lvl * 1024 + value, axis=2)       # (n, seat)
    best_lvl = np.take_along_axis(lvl, best_strain[:, :, None], axis=2)[:, :, 0]
    allowed_ids = np.nonzero(allowed)[0]

    level = np.full(n, -1, dtype=np.int64)
    strain = np.full(n, -1, dtype=np.int64)
    bidder = np.full(n, -1, dtype=np.int64)
    coin = np.zeros(n, dtype=np.int64)
    passes = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    calls = []
    t = 0
    while not done.all():
        seat = (dealer + 1 + t) % 4
        act = ~done
        u = rng.random(n)
        rstrain = allowed_ids[rng.integers(0, len(allowed_ids), n)]
        has_bid = bidder >= 0
        same = has_bid & (bidder % 2 == seat % 2)
        opp = has_bid & ~same
        can_bid = (coin == 0) & (level < CAPOT_LEVEL)
        can_coinche = opp & (coin == 0)
        can_sur = same & (coin == 1)
        bs = np.clip(strain, 0, N_STRAINS - 1)
        # heuristic
        my_lvl, my_strain = best_lvl[rows, seat], best_strain[rows, seat]
        h_bid = can_bid & (my_lvl > level) & (~same | (my_lvl >= level + 2))
        h_coin = can_coinche & np.where(level >= 4, ev["defend_hi"][rows, seat, bs], ev["defend"][rows, seat, bs])
        h_sur = can_sur & (lvl[rows, seat, bs] >= level + 3)
        h_code = np.select([h_bid, h_coin, h_sur], [BID_CALL + my_lvl * N_STRAINS + my_strain, COINCHE, SURCOINCHE],
                           PASS)
        # random
        r_lvl = np.where(u < P_CAPOT, CAPOT_LEVEL, level + 1)
        r_bid = can_bid & (u < P_BID)
        r_coin = can_coinche & (u > 1 - P_COINCHE)
        r_sur = can_sur & (u < P_SURCOINCHE)
        r_code = np.select([r_bid, r_coin, r_sur], [BID_CALL + r_lvl * N_STRAINS + rstrain, COINCHE, SURCOINCHE],
                           PASS)
        code = np.where(act, np.where(heur[rows, seat], h_code, r_code), NONE)
        is_bid = code >= BID_CALL
        is_pass = code == PASS
        is_coin = code == COINCHE
        is_sur = code == SURCOINCHE
        level = np.where(is_bid, (code - BID_CALL) // N_STRAINS, level)
        strain = np.where(is_bid, (code - BID_CALL) % N_STRAINS, strain)
        bidder = np.where(is_bid, seat, bidder)
        passes = np.where(is_bid | is_coin, 0, passes + is_pass)
        coin = np.where(is_coin, 1, np.where(is_sur, 2, coin))
        done |= is_sur | (is_pass & (bidder >= 0) & (passes >= 3)) | (is_pass & (bidder < 0) & (passes >= 4))
        calls.append(code.astype(np.int16))
        t += 1
    return np.stack(calls, axis=1), bidder, strain, level, coin


def auction_strain(rng: np.random.Generator, five: np.ndarray, dealer: np.ndarray, heur: np.ndarray,
                    allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bulgarian bidding for n deals of 5-card hands (n, 4); ``allowed`` (6,) bool: the contracts that may be bid.

    Each call names a contract above the current one (C < D < H < S < NT < AT), passes, doubles (the side
    not holding the contract, once) or redoubles (the holding side, once doubled). A new contract cancels
    any double. Three passes after any call end the auction; four passes at the start pass the hand out.
    Returns calls (n, turns) codes, taker (-1 none), strain, double level (0, 1, 2)."""
    n = len(dealer)
    rows = np.arange(n)
    ev = _seat_eval(five)
    value = ev["value"]
    thr = np.array([STRAIN_VALUE] * 4 + [STRAIN_VALUE_NT, STRAIN_VALUE_AT])  # (6,)
    suit_ok = ev["count"] >= np.array([2, 2, 2, 2, 0, 0])
    ok = allowed & ev["honour"] & suit_ok & (value >= thr)                 # (n, seat, strain)
    strong = ok & (value >= thr + OVER_PARTNER)

    contract = np.full(n, -1, dtype=np.int64)
    holder = np.full(n, -1, dtype=np.int64)
    dbl = np.zeros(n, dtype=np.int64)
    passes = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    calls = []
    t = 0
    while not done.all():
        seat = (dealer + 1 + t) % 4
        act = ~done
        u = rng.random(n)
        has = holder >= 0
        same = has & (holder % 2 == seat % 2)
        opp = has & ~same
        above = allowed[None, :] & (_STRAIN_IDS[None, :] > contract[:, None])    # (n, 6)
        cs = np.clip(contract, 0, N_STRAINS - 1)
        # heuristic: the best-valued contract it may call (over its partner only when clearly stronger)
        cand = above & np.where(same[:, None], strong[rows, seat], ok[rows, seat])
        h_strain = np.argmax(np.where(cand, value[rows, seat] * 8 + _STRAIN_IDS, -(1 << 20)), axis=1)
        h_bid = cand.any(axis=1)
        h_dbl = opp & (dbl == 0) & ev["defend5"][rows, seat, cs]
        h_rdbl = same & (dbl == 1) & (value[rows, seat, cs] >= thr[cs] + REDOUBLE) & ok[rows, seat, cs]
        h_code = np.select([h_bid, h_dbl, h_rdbl], [STRAIN_CALL + h_strain, COINCHE, SURCOINCHE], PASS)
        # random: a random higher contract, rarely a double / redouble
        r_strain = _pick(rng, above)
        r_bid = above.any(axis=1) & (u < P_TAKE)
        r_dbl = opp & (dbl == 0) & (u > 1 - P_COINCHE)
        r_rdbl = same & (dbl == 1) & (u >= P_TAKE) & (u < P_TAKE + P_SURCOINCHE)
        r_code = np.select([r_bid, r_dbl, r_rdbl], [STRAIN_CALL + r_strain, COINCHE, SURCOINCHE], PASS)
        code = np.where(act, np.where(heur[rows, seat], h_code, r_code), NONE)
        is_bid = code >= STRAIN_CALL
        is_pass = code == PASS
        is_dbl = code == COINCHE
        is_rdbl = code == SURCOINCHE
        contract = np.where(is_bid, code - STRAIN_CALL, contract)
        holder = np.where(is_bid, seat, holder)
        dbl = np.where(is_bid, 0, np.where(is_dbl, 1, np.where(is_rdbl, 2, dbl)))
        passes = np.where(is_pass, passes + 1, 0)
        done |= is_pass & (((holder >= 0) & (passes >= 3)) | (passes >= 4))
        calls.append(code.astype(np.int16))
        t += 1
    return np.stack(calls, axis=1), holder, contract, dbl


# ---------------------------------------------------------------------------------------------- play

def play_cards(rng: np.random.Generator, hands: np.ndarray, dealer: np.ndarray, strain: np.ndarray,
          taker: np.ndarray, heur: np.ndarray, points: np.ndarray, pr: PlayRules, n_seats: int = 4,
          n_tricks: int = 8, known: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play out m hands of ``n_seats`` seats (``hands`` (m, n_seats)) and ``n_tricks`` tricks together.
    Returns plays and play seats, int8 (m, n_seats * n_tricks). ``known`` (m,) uint32: cards out of play that
    every player has seen (2 players: the turned card or the exchanged 7, the bottom card), counted as gone.

    Card comparisons use :func:`pipeline.trick_order.strength` (no trump in no-trump; every suit in trump
    order in all-trump). A card is a *master* when every stronger card of its suit has been played or is in
    the player's own hand."""
    m = len(dealer)
    rows = np.arange(m)
    n_plays = n_seats * n_tricks
    last = n_seats - 1
    remaining = hands.astype(np.uint32).copy()
    plays = np.zeros((m, n_plays), dtype=np.int8)
    seats = np.zeros((m, n_plays), dtype=np.int8)
    leader = (dealer.astype(np.int64) + 1) % n_seats
    strain8 = strain.astype(np.int8)
    led_suit = np.zeros(m, dtype=np.int8)
    win_card = np.zeros(m, dtype=np.int8)
    win_seat = np.zeros(m, dtype=np.int64)
    win_str = np.zeros(m, dtype=np.int16)
    gone = np.zeros(m, dtype=np.uint32) if known is None else known.astype(np.uint32)  # cards played so far
    first_true, first_false = np.ones(m, dtype=bool), np.zeros(m, dtype=bool)
    grid = np.broadcast_to(CARDS, (m, 32))
    P = points[strain.astype(np.int64)].astype(np.int32)                    # (m, 32) card points
    trump = CARD_SUIT[None, :] == strain8[:, None]                           # (m, 32); none in NT / AT
    trump_order = trump | (strain8 == ALL_TRUMP)[:, None]
    above = np.where(trump_order, ABOVE_TRUMP[None, :32], ABOVE_PLAIN[None, :32]).astype(np.uint32)  # (m, 32)
    lead_str = strength(grid, np.broadcast_to(CARD_SUIT, (m, 32)), strain8[:, None]).astype(np.int32)
    n_sides = 3 if n_seats == 3 else 2                                       # 3 seats: each plays for himself
    taker_team = taker.astype(np.int64) % n_sides
    for j in range(n_plays):
        k = j % n_seats
        seat = (leader + k) % n_seats
        hand = remaining[rows, seat]
        first = first_true if k == 0 else first_false
        partner = (win_seat % 2 == seat % 2) & ~first & (n_seats == 4)
        legal = legal_cards(hand, first, led_suit, strain8, win_card, partner, pr)
        bits = ((legal[:, None] >> _AR32) & np.uint32(1)).astype(bool)
        # random bot: a uniformly random set bit
        cum = np.cumsum(bits, axis=1)
        r = (rng.random(m) * cum[:, -1]).astype(np.int64)
        rand_card = np.argmax(cum > r[:, None], axis=1)
        # heuristic bot
        unseen = ~(gone | hand)
        master = (above & unseen[:, None]) == 0                              # (m, 32)
        keep = trump | master
        if k == 0:
            own = (seat % n_sides == taker_team)[:, None]
            key = np.where(master & ~trump, 20000 + P,
                           np.where(trump & own, 10000 + lead_str, -((P + 20 * keep) * 64 + lead_str)))
        else:
            S = strength(grid, led_suit[:, None], strain8[:, None]).astype(np.int32)
            low = -(P + 8 * keep) * 64 - S                                   # cheap first, trumps / masters kept
            beats = S > win_str[:, None]
            wc = win_card.astype(np.int64)
            strong = np.full(m, k == last) | (CARD_SUIT[wc] == strain8) | ((above[rows, wc] & unseen) == 0)
            feed = np.where(keep, -5000 - S, P * 64 - S)
            key = np.where(partner[:, None], np.where(strong[:, None], feed, low),
                           np.where(beats, 5000 - S, low))
        heur_card = np.argmax(np.where(bits, key, -(1 << 30)), axis=1)
        card = np.where(heur[rows, seat], heur_card, rand_card).astype(np.int64)
        remaining[rows, seat] = hand & ~BIT[card]
        gone |= BIT[card]
        if k == 0:
            led_suit = CARD_SUIT[card]
        s = strength(card.astype(np.int8), led_suit, strain8)
        if k == 0:
            win_str, win_seat, win_card = s, seat, card.astype(np.int8)
        else:
            better = s > win_str
            win_str = np.where(better, s, win_str)
            win_seat = np.where(better, seat, win_seat)
            win_card = np.where(better, card, win_card).astype(np.int8)
        plays[:, j] = card
        seats[:, j] = seat
        if k == last:
            leader = win_seat
    if remaining.any():  # pragma: no cover - a simulator bug
        raise RuntimeError(f"simulate: cards left in hand after {n_plays} plays")
    return plays, seats
