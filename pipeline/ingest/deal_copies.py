"""Single-deal copies: the same deal imported once, whichever file holds it and in whatever order files come.

Some formats hold one deal per record with no game around it (colver's CFN lines, whose ``deals.jsonl`` also
copies each CFN string into its deal records). Their readers set ``DEAL_COPIES = True`` and yield one-hand
games. The ingest driver (:mod:`pipeline.ingest.run`) matches such a hand with the hands of the same source
already imported by its **deal**: the seats, dealer and dealt hands (:func:`deal_id`, 32 shuffled cards: two
different deals never share it), provided what both copies know agrees (:func:`content`: the contract's team,
strain, value, capot and coinche level, and the plays; a copy at completeness ``deal`` knows none of them).
Of two matching copies the richer one (:func:`richness`) is kept: a single-deal copy that is no richer than
one already imported is skipped, and a poorer single-deal copy already in the lake is dropped when a richer
copy comes (a whole game of ``deals.jsonl`` replaces the CFN copies of its deals).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_LEVEL = {"deal": 0, "summary": 1, "tricks_taken": 2, "full_play": 3}
RECORDED = ("recorded_score", "recorded_margin", "recorded_card_points", "recorded_totals")
COLUMNS = ["game_id", "hand_key", "source_format", "source_file", "ingest_file", "n_players", "dealer",
           "initial_hands", "completeness", "auction", "taker", "taker_team", "strain", "bid", "capot_bid", "coinche",
           "plays", "belote_seat", *RECORDED]
"""The ``hands`` columns the index needs."""


def deal_id(h: dict[str, Any]) -> tuple | None:
    """What identifies a deal: (n_players, dealer, dealt hands); None when the hand has no dealt hands."""
    if not h.get("initial_hands"):
        return None
    return h["n_players"], h["dealer"], tuple(h["initial_hands"])


def content(h: dict[str, Any]) -> tuple | None:
    """What two copies of a deal must agree on: (taker's team, strain, bid, capot bid, coinche, plays); None
    for a ``deal`` level hand, which knows none of it and agrees with any copy."""
    if h.get("completeness") == "deal":
        return None
    taker = h.get("taker")
    team = h.get("taker_team") if taker is None else (taker if h["n_players"] == 3 else taker % 2)
    return team, h.get("strain"), h.get("bid"), bool(h.get("capot_bid")), h.get("coinche"), tuple(h.get("plays") or ())


def richness(h: dict[str, Any]) -> int:
    """How much a copy of a hand records: completeness level first, then the taker's seat, the auction, the
    belote seat and each recorded result (a higher number is a richer copy)."""
    return (100 * _LEVEL.get(h.get("completeness"), 0) + (h.get("taker") is not None) + bool(h.get("auction"))
            + (h.get("belote_seat") is not None) + sum(h.get(k) is not None for k in RECORDED))


@dataclass
class Copy:
    """One imported hand in the index: its game and keys, whether its game is a single-deal copy (the only
    kind ever dropped for a richer one), and where it was read (``files``: source_file, ingest_file)."""

    deal: tuple
    game_id: str
    game_key: str | None
    hand_key: str
    single: bool
    content: tuple | None
    richness: int
    files: tuple[str, str | None]


class DealIndex:
    """The hands of one source by :func:`deal_id` (built from the lake once, then kept up to date)."""

    def __init__(self) -> None:
        self.by_deal: dict[tuple, list[Copy]] = {}

    def add(self, hands: Iterable[dict[str, Any]], game_keys: dict[str, str | None], single_formats: set[str],
            n_hands: dict[str, int]) -> None:
        """Index ``hands`` (row dicts with :data:`COLUMNS`); ``game_keys`` and ``n_hands`` by game id."""
        for h in hands:
            d = deal_id(h)
            if d is None:
                continue
            single = h.get("source_format") in single_formats and n_hands.get(h["game_id"]) == 1
            self.by_deal.setdefault(d, []).append(Copy(
                d, h["game_id"], game_keys.get(h["game_id"]), h["hand_key"], single, content(h), richness(h),
                (h["source_file"], h.get("ingest_file"))))

    def matches(self, h: dict[str, Any]) -> list[Copy]:
        """The imported copies of ``h``'s deal that agree with it (other games than ``h``'s own)."""
        d = deal_id(h)
        if d is None:
            return []
        c = content(h)
        return [e for e in self.by_deal.get(d, ()) if e.game_id != h["game_id"]
                and (c is None or e.content is None or e.content == c)]

    def remove(self, gone: Copy) -> None:
        """Forget a copy dropped from the lake."""
        copies = self.by_deal.get(gone.deal, [])
        if gone in copies:
            copies.remove(gone)
