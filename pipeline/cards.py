"""The 32-card deck as small integers, and the card notations real sources use.

Encoding (used everywhere in Rebelote, documented once here):

    card = suit * 8 + rank            (int8, 0..31)
    suit: 0 = clubs C ♣, 1 = diamonds D ♦, 2 = hearts H ♥, 3 = spades S ♠
    rank: 0 = 7, 1 = 8, 2 = 9, 3 = 10, 4 = J, 5 = Q, 6 = K, 7 = A   (face order)

So 0 = 7♣, 11 = 10♦, 20 = J♥, 31 = A♠. Rank indices follow face order, which is
also the order of sequences for declarations (7 8 9 10 J Q K A); card *strength*
differs between trump and plain suits and lives in :mod:`pipeline.rescore.tables`.

A hand is a ``uint32`` bitmask: bit ``card`` is set when the card is held. The
suit ``s`` occupies bits ``8*s .. 8*s+7``.

Strings are for people: :func:`card_str` writes ``7C``, ``TD``, ``JH``, ``AS``
(rank letter then suit letter, ``T`` for ten). :func:`parse_card` reads every
notation found in the sources we import:

* ranks ``7 8 9 10 T X J V Q D K R A 1`` (French ``V`` valet, ``D`` dame,
  ``R`` roi, ``1`` as) and the 7-14 numbering (11 = J, 12 = Q, 13 = K, 14 = A);
* suits as letters ``C D H S`` (also ``T`` trèfle, ``K`` carreau, ``P`` pique
  are *not* accepted: they collide with ranks), English and French words,
  and the symbols ``♣ ♦ ♥ ♠`` (also the white variants ``♧ ♢ ♡ ♤``);
* rank first or suit first (``AS``, ``SA``, ``A♠``, ``♠A``, ``10 of hearts``,
  ``roi de cœur``, ``as de pique``).

Anything else raises :class:`CardError`, whose message quotes the bad token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

N_CARDS = 32
SUITS = "CDHS"
RANKS = ["7", "8", "9", "T", "J", "Q", "K", "A"]
SUIT_SYMBOLS = "♣♦♥♠"
STRAINS = ["C", "D", "H", "S", "NT", "AT"]
"""Contract strains. Index 0-3 are the suits (same index as the card suit), 4 no-trump, 5 all-trump."""
NO_TRUMP = 4
ALL_TRUMP = 5

SUIT_MASKS = np.array([0xFF << (8 * s) for s in range(4)], dtype=np.uint32)


class CardError(ValueError):
    """A card token that no supported notation reads. The message quotes the token."""


_RANK_TOKENS = {
    "7": 0, "8": 1, "9": 2, "10": 3, "T": 3, "X": 3, "J": 4, "V": 4, "Q": 5, "D": 5,
    "K": 6, "R": 6, "A": 7, "1": 7, "11": 4, "12": 5, "13": 6, "14": 7,
    # words
    "SEVEN": 0, "EIGHT": 1, "NINE": 2, "TEN": 3, "JACK": 4, "KNAVE": 4, "QUEEN": 5,
    "KING": 6, "ACE": 7, "SEPT": 0, "HUIT": 1, "NEUF": 2, "DIX": 3, "VALET": 4,
    "DAME": 5, "ROI": 6, "AS": 7,
}
_SUIT_TOKENS = {
    "C": 0, "D": 1, "H": 2, "S": 3,
    "♣": 0, "♦": 1, "♥": 2, "♠": 3, "♧": 0, "♢": 1, "♡": 2, "♤": 3,
    "CLUB": 0, "CLUBS": 0, "DIAMOND": 1, "DIAMONDS": 1, "HEART": 2, "HEARTS": 2,
    "SPADE": 3, "SPADES": 3,
    "TREFLE": 0, "TRÈFLE": 0, "TREFLES": 0, "TRÈFLES": 0, "CARREAU": 1, "CARREAUX": 1,
    "COEUR": 2, "CŒUR": 2, "COEURS": 2, "CŒURS": 2, "PIQUE": 3, "PIQUES": 3,
}
_WORDS = re.compile(r"^\s*(\S+)\s+(?:OF|DE|D')\s*(\S+)\s*$")
_SYMBOL_SPLIT = re.compile(r"^([♣♦♥♠♧♢♡♤])(.+)$|^(.+?)([♣♦♥♠♧♢♡♤])$")


def make_card(suit: int, rank: int) -> int:
    """Card id for ``suit`` (0-3) and ``rank`` (0-7)."""
    return suit * 8 + rank


_CARD_STR = [RANKS[c % 8] + SUITS[c // 8] for c in range(N_CARDS)]


def card_str(card: int) -> str:
    """Two-letter text of a card id, e.g. ``31 -> 'AS'``, ``11 -> 'TD'``. Raises CardError outside 0..31."""
    if not 0 <= card < N_CARDS:
        raise CardError(f"card id {card!r} is outside 0..31")
    return _CARD_STR[card]


def _lookup(rank_tok: str, suit_tok: str) -> int | None:
    r = _RANK_TOKENS.get(rank_tok)
    s = _SUIT_TOKENS.get(suit_tok)
    if r is None or s is None:
        return None
    return make_card(s, r)


_MEMO: dict[str, int] = {}


def parse_card(token: str) -> int:
    """Read one card in any supported notation (see module docstring).

    Returns the card id (0..31). Raises :class:`CardError` quoting ``token``
    when no notation reads it, or when it reads two different ways. Tokens already read are memoised.
    """
    hit = _MEMO.get(token) if isinstance(token, str) else None
    if hit is not None:
        return hit
    card = _parse_card(token)
    if len(_MEMO) < 4096:
        _MEMO[token] = card
    return card


def _parse_card(token: str) -> int:
    if not isinstance(token, str):
        raise CardError(f"card {token!r} is not text")
    t = token.strip().upper()
    found: set[int] = set()
    m = _WORDS.match(t)
    if m:
        c = _lookup(m.group(1), m.group(2))
        if c is not None:
            found.add(c)
    else:
        m = _SYMBOL_SPLIT.match(t)
        if m:
            if m.group(1):
                c = _lookup(m.group(2).strip(), m.group(1))
            else:
                c = _lookup(m.group(3).strip(), m.group(4))
            if c is not None:
                found.add(c)
        else:
            compact = t.replace(" ", "")
            # try every split point, rank first and suit first
            for i in range(1, len(compact)):
                a, b = compact[:i], compact[i:]
                for c in (_lookup(a, b), _lookup(b, a)):
                    if c is not None:
                        found.add(c)
    if len(found) == 1:
        return found.pop()
    if not found:
        raise CardError(f"unknown card {token!r}")
    raise CardError(f"ambiguous card {token!r}: reads as {', '.join(card_str(c) for c in sorted(found))}")


def parse_cards(tokens: Iterable[str] | str) -> list[int]:
    """Read several cards: an iterable of tokens, or one string separated by spaces or commas."""
    if isinstance(tokens, str):
        tokens = [t for t in re.split(r"[\s,;]+", tokens) if t]
    return [parse_card(t) for t in tokens]


def parse_strain(token: str) -> int:
    """Read a contract strain: a suit (any card-suit notation), ``NT``/``SA``/no-trump, ``AT``/``TA``/all-trump.

    Returns 0-3 for suits, 4 (:data:`NO_TRUMP`), 5 (:data:`ALL_TRUMP`). Raises :class:`CardError`.
    """
    t = str(token).strip().upper().replace("-", "").replace("_", "").replace(" ", "")
    if t in ("NT", "SA", "NOTRUMP", "NOTRUMPS", "SANSATOUT"):
        return NO_TRUMP
    if t in ("AT", "TA", "ALLTRUMP", "ALLTRUMPS", "TOUTATOUT"):
        return ALL_TRUMP
    s = _SUIT_TOKENS.get(t)
    if s is None:
        raise CardError(f"unknown strain {token!r}")
    return s


def strain_str(strain: int) -> str:
    """Canonical text of a strain index: ``C D H S NT AT``."""
    return STRAINS[strain]


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask (int, fits uint32) of a collection of card ids."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Card ids set in a bitmask, ascending."""
    mask, out = int(mask), []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount32(x: np.ndarray) -> np.ndarray:
    """Vectorised popcount of a uint32 array (SWAR), returned as int32."""
    x = x.astype(np.uint32, copy=True)
    x = x - ((x >> np.uint32(1)) & np.uint32(0x55555555))
    x = (x & np.uint32(0x33333333)) + ((x >> np.uint32(2)) & np.uint32(0x33333333))
    x = (x + (x >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    return ((x * np.uint32(0x01010101)) >> np.uint32(24)).astype(np.int32)


def rank_index(name: str) -> int:
    """Index in :data:`RANKS` (0..7) of a rank as the reports name it: "7" "8" "9" "10" "J" "Q" "K" "A" ("10" is
    the card code's "T", which is accepted too). Raises ValueError for any other name."""
    return RANKS.index("T" if name == "10" else name)
