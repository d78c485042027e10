"""The simulator's deals: where each seat's packets lie in the shuffled pack, and the 2- and 3-player prise deal
with its auction (:func:`deal_prise_small`), vectorised over the deals of a chunk (:mod:`pipeline.simulate.games`)."""

from __future__ import annotations

import numpy as np

from pipeline.rescore.tables import BIT
from pipeline.simulate import bots


def deal_positions(dealer: np.ndarray, packets: list[int], n_seats: int = 4) -> list[tuple[np.ndarray, int, int]]:
    """(seat, start, stop) deck slices for dealing ``packets`` (cards per seat per round) from dealer+1."""
    out, pos = [], 0
    for size in packets:
        for k in range(n_seats):
            out.append(((dealer + 1 + k) % n_seats, pos, pos + size))
            pos += size
    return out


def deal_prise_small(rng: np.random.Generator, deck: np.ndarray, dealer: np.ndarray, heur: np.ndarray,
                      points: np.ndarray, n_seats: int, tricks: int) -> tuple[np.ndarray, ...]:
    """Two- or three-player prise deal and auction for n deals; ``deck`` (n, 32 or 24) is the shuffled pack.

    * 8 tricks (the turned card to the taker, as with four: seed 000 / 003 with 32 cards, EXOTY and FUNBELOTE
      with 24): 3 + 2 cards each from dealer + 1 (deck[0:5 * n_seats]), the next card turned; the auction
      (:func:`pipeline.simulate.bots.auction_prise`, the heuristic counting the turned card in); the taker gets the turned card and 2
      more, the others 3, from dealer + 1: 8 each. The cards of the pack nobody got (32 cards: 16 with 2 seats,
      8 with 3; none with 3 seats of a 24-card pack) are out of play, and the bots play as if they knew them
      (``known``: a simplification of the heuristic, which never changes what is legal).
    * 9 or 10 tricks (the turned card to nobody: seed 001, rules.md R3, ADPOKER3, EXOTY; 10 cards each: the
      Bulgarian 2-player deal of rules.md R3, and the 3-player 10-card shape): 3 + 3 cards each from dealer + 1
      (deck[0:6 * n_seats]), the next card turned; the auction (nobody gets the turned card); after a contract
      ``tricks - 6`` more each at once from dealer + 1: 9 (10) cards each. With the turned suit trump, the
      holder of its 7 (when dealt) may exchange the 7 for the turned card: a heuristic bot does when the turned
      card raises its hand's value in that suit (:func:`pipeline.simulate.bots.evaluate`) or its card points (i.e. unless an 8 is
      turned), a random bot with probability 1/2 (one rng draw per deal, always made). ``known``: the turned
      card or the 7 given for it; with 2 seats also the bottom card of the pack (deck[-1]), shown to both.

    Returns full hands (n, n_seats) after any exchange, turned card, calls, taker, strain, has_init (a contract
    was made: the deal completed) and ``known``, the out-of-play cards the bots count as gone (uint32 (n,))."""
    n = len(dealer)
    rows = np.arange(n)
    first = np.zeros((n, n_seats), dtype=np.uint32)
    packets = [3, 2] if tricks == 8 else [3, 3]
    for seat, a, b in deal_positions(dealer, packets, n_seats):
        first[rows, seat] |= bots.masks(deck[:, a:b])
    pos = n_seats * sum(packets)
    turned = deck[:, pos].astype(np.int64)
    calls, taker, strain = bots.auction_prise(rng, first, turned, dealer, heur, n_seats=n_seats,
                                          taker_gets_turned=tricks == 8)
    took = taker >= 0
    full = first.copy()
    if tricks == 8:
        full[rows[took], taker[took]] |= BIT[turned[took]]
        rest = deck[:, pos + 1:].astype(np.int64)
        ptr = np.zeros(n, dtype=np.int64)
        for k in range(n_seats):
            seat = (dealer + 1 + k) % n_seats
            size = np.where(seat == taker, 2, 3)
            for i in range(3):
                card = rest[rows, np.clip(ptr + i, 0, rest.shape[1] - 1)]
                full[rows, seat] |= np.where(took & (i < size), BIT[card], np.uint32(0))
            ptr += size
        pack = bots.masks(deck[:1])[0]
        known = np.where(took, pack & ~np.bitwise_or.reduce(full, axis=1), np.uint32(0))
        return full, turned, calls, taker, strain, took, known.astype(np.uint32)
    for seat, a, b in deal_positions(dealer, [tricks - 6], n_seats):
        full[rows, seat] |= np.where(took, bots.masks(deck[:, pos + 1 + a:pos + 1 + b]), np.uint32(0))
    # the trump 7 exchange
    tsuit = turned // 8
    seven = 8 * tsuit                                                       # rank 0: the 7
    has7 = (full & BIT[seven][:, None]) != 0                                # (n, n_seats)
    holder = np.argmax(has7, axis=1)
    u = rng.random(n)
    hand = full[rows, holder]
    swapped = (hand & ~BIT[seven]) | BIT[turned]
    gain = (bots.evaluate(swapped)[0][rows, tsuit] - bots.evaluate(hand)[0][rows, tsuit]) * 64 \
        + points[tsuit, turned] - points[tsuit, seven]
    swap = took & (strain == tsuit) & has7.any(axis=1) & np.where(heur[rows, holder], gain > 0, u < 0.5)
    full[rows[swap], holder[swap]] = swapped[swap]
    known = np.where(swap, BIT[seven], BIT[turned])
    if n_seats == 2:
        known = known | BIT[deck[:, -1].astype(np.int64)]
    return full, turned, calls, taker, strain, took, known.astype(np.uint32)
