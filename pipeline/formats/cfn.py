"""Parser of CFN, colver's own position notation (../shared/data/real/colver/FORMAT.md §4).

A CFN string is ``HANDS TRICKS CONTRACT`` separated by single spaces:

* HANDS: the dealer's letter (N E S W), ``:``, then the *current* hands of N, E, S, W separated by ``/``; each
  hand is four ``.``-separated groups spades.hearts.diamonds.clubs of rank letters (``A T K Q J 9 8 7``), or
  ``-`` when the hand is empty;
* TRICKS: ``-`` when no card was played, else the tricks separated by ``/``, each four 2-character cards
  (rank letter + lowercase suit ``s h d c``) in the order played, from the leader; the first leader is the
  dealer's left (dealer + 1), the next ones are the trick winners (colver's trick rule, FORMAT.md §6, which is
  the engine's own :func:`pipeline.trick_order.strength`);
* CONTRACT: ``<value><trump><team>[x|xx]`` (``110sEW``, ``90dEWxx``, ``250sEW`` = capot), ``0`` for a deal
  passed out, ``bid:…`` while the auction runs (``bid:0/p0/<first speaker>`` just after the deal).

Seats are colver's N=0 E=1 S=2 W=3 (next seat = +1), teams NS=0, EW=1; cards are converted to
:mod:`pipeline.cards` ids. :func:`parse` returns a :class:`Position` or raises
:class:`~pipeline.formats.records.RecordError` with a code and a message naming the bad part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pipeline.cards import RANKS, SUITS, card_str, make_card
from pipeline.formats.records import RecordError
from pipeline.trick_order import strength
from pipeline.words import count

SEAT_LETTERS = "NESW"
TEAMS = {"NS": 0, "EW": 1}
HAND_SUITS = "SHDC"            # order of the four groups of a CFN hand
CAPOT_VALUE = 250              # colver's value of a capot contract (FORMAT.md §3)
BIDS = range(80, 161, 10)      # colver's points bids (FORMAT.md §3)
_CONTRACT = re.compile(r"^(\d{1,3})([shdc])(NS|EW)(x{0,2})$")
_OPENING = re.compile(r"^bid:0/p0/([NESW])$")


@dataclass(frozen=True)
class Position:
    """A parsed CFN string.

    ``kind`` is 'played' (8 tricks and a contract), 'passed_out' (contract ``0``, no trick) or 'dealt' (the
    position before the first call, ``bid:0/p0/...``). ``initial_hands``: 4 card bitmasks (int, seats N E S W);
    ``plays`` / ``play_seats``: the 32 cards and their seats in order (empty unless played); ``strain``: the
    trump suit letter C D H S; ``bid``: points bid (None for a capot); ``taker_team``: 0 NS, 1 EW; ``coinche``:
    0, 1 (``x``) or 2 (``xx``)."""

    kind: str
    dealer: int
    initial_hands: list[int]
    plays: list[int]
    play_seats: list[int]
    strain: str | None = None
    bid: int | None = None
    capot: bool = False
    taker_team: int | None = None
    coinche: int = 0


def _card(tok: str, where: str) -> int:
    """A CFN card: rank letter + lowercase suit (``Ts``)."""
    if len(tok) != 2 or tok[0] not in RANKS or tok[1] not in "shdc":
        raise RecordError("unknown_card", f"{where}: {tok!r} is not a CFN card (rank 7 8 9 T J Q K A + suit s h d c)")
    return make_card(SUITS.index(tok[1].upper()), RANKS.index(tok[0]))


def _hand(text: str, seat: int) -> list[int]:
    """The cards of one CFN hand (``A9.QJ8.Q.K8`` or ``-``)."""
    if text == "-":
        return []
    groups = text.split(".")
    if len(groups) != 4:
        raise RecordError("bad_hand", f"hand of {SEAT_LETTERS[seat]} {text!r} has {len(groups)} suit groups, "
                          "expected 4 (spades.hearts.diamonds.clubs) or '-'")
    return [_card(r + s.lower(), f"hand of {SEAT_LETTERS[seat]}") for s, g in zip(HAND_SUITS, groups) for r in g]


def _contract(text: str) -> tuple[str, int | None, bool, int, int]:
    """(strain, bid or None for capot, capot, taker team, coinche level) of ``110sEW``-style contracts."""
    m = _CONTRACT.match(text)
    if m is None:
        raise RecordError("bad_contract", f"contract {text!r} is not <value><trump s/h/d/c><team NS/EW>[x|xx], "
                          "'0' or 'bid:...'")
    value = int(m.group(1))
    if value != CAPOT_VALUE and value not in BIDS:
        raise RecordError("bad_contract", f"contract value {value} is not 80..160 by 10 or {CAPOT_VALUE} (capot)")
    capot = value == CAPOT_VALUE
    return m.group(2).upper(), None if capot else value, capot, TEAMS[m.group(3)], len(m.group(4))


def _play(tricks: list[str], dealer: int, strain: str) -> tuple[list[int], list[int]]:
    """Cards and seats of the tricks, each trick led by the previous trick's winner."""
    plays: list[int] = []
    seats: list[int] = []
    leader = (dealer + 1) % 4
    trump = np.int8(SUITS.index(strain))
    for k, t in enumerate(tricks, start=1):
        if len(t) != 8:
            raise RecordError("bad_trick", f"trick {k} {t!r} has {len(t)} characters; a trick is 4 cards of 2")
        cards = [_card(t[i:i + 2], f"trick {k}") for i in range(0, 8, 2)]
        arr = np.array(cards, dtype=np.int8)
        winner = int(np.argmax(strength(arr, np.int8(cards[0] // 8), trump)))
        plays += cards
        seats += [(leader + i) % 4 for i in range(4)]
        leader = (leader + winner) % 4
    return plays, seats


def _check_cards(cards: list[int], what: str) -> None:
    seen = 0
    for c in cards:
        if seen >> c & 1:
            raise RecordError("card_twice", f"{card_str(c)} appears twice in the {what}")
        seen |= 1 << c
    if len(cards) != 32:
        raise RecordError("wrong_card_count", f"the {what} hold {len(cards)} cards, expected 32")


def parse(text: str) -> Position:
    """Parse one CFN string (no line end). Raises RecordError (codes bad_cfn, bad_dealer, bad_hand,
    unknown_card, bad_trick, bad_contract, card_twice, wrong_card_count, unfinished_deal) naming the bad part."""
    parts = text.split(" ")
    if len(parts) != 3:
        raise RecordError("bad_cfn", f"a CFN line is HANDS TRICKS CONTRACT separated by single spaces; got "
                          f"{count(len(parts), 'part')}")
    hands_text, tricks_text, contract = parts
    if len(hands_text) < 2 or hands_text[1] != ":" or hands_text[0] not in SEAT_LETTERS:
        raise RecordError("bad_dealer", f"HANDS {hands_text[:12]!r} must start with the dealer's letter N, E, S or W "
                          "and ':'")
    dealer = SEAT_LETTERS.index(hands_text[0])
    held = hands_text[2:].split("/")
    if len(held) != 4:
        raise RecordError("bad_hand", f"HANDS gives {len(held)} hands, expected 4 (N/E/S/W)")
    current = [_hand(h, s) for s, h in enumerate(held)]
    tricks = [] if tricks_text == "-" else tricks_text.split("/")
    if contract == "0" or _OPENING.match(contract):
        if tricks:
            raise RecordError("bad_cfn", f"contract {contract!r} (no contract yet or passed out) but "
                              f"{len(tricks)} trick(s) played")
        _check_cards([c for h in current for c in h], "four hands")
        for s, h in enumerate(current):
            if len(h) != 8:
                raise RecordError("wrong_card_count", f"{SEAT_LETTERS[s]} holds {len(h)} cards, expected 8")
        m = _OPENING.match(contract)
        if m and SEAT_LETTERS.index(m.group(1)) != (dealer + 1) % 4:
            raise RecordError("bad_contract", f"{contract!r}: the first speaker must be the dealer's left "
                              f"{SEAT_LETTERS[(dealer + 1) % 4]} (dealer {SEAT_LETTERS[dealer]})")
        masks = [sum(1 << c for c in h) for h in current]
        return Position("dealt" if m else "passed_out", dealer, masks, [], [])
    if contract.startswith("bid:"):
        raise RecordError("unfinished_deal", f"{contract!r}: the auction is still running, and CFN keeps no calls; "
                          "only the position before the first call (bid:0/p0/...) or a finished deal is imported")
    strain, bid, capot, team, coinche = _contract(contract)
    if len(tricks) != 8 or any(current):
        raise RecordError("unfinished_deal", f"{len(tricks)} of 8 tricks played and "
                          f"{sum(map(len, current))} cards still in hand: only a finished deal is imported")
    plays, seats = _play(tricks, dealer, strain)
    _check_cards(plays, "tricks")
    masks = [0, 0, 0, 0]
    for c, s in zip(plays, seats):
        masks[s] |= 1 << c
    return Position("played", dealer, masks, plays, seats, strain, bid, capot, team, coinche)
