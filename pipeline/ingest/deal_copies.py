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

Two copies of a deal that disagree (:func:`difference`: another contract or other plays) are not both kept: a
single-deal copy that disagrees with a copy already imported is rejected as ``conflicting_copy``, naming the
other copy's file, line and the first field that differs. A whole game is the source's own record of its deals,
so it is kept whatever the order, and a disagreeing single-deal copy already in the lake is dropped (its file is
read again, which rejects it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_LEVEL = {"deal": 0, "summary": 1, "tricks_taken": 2, "full_play": 3}
RECORDED = ("recorded_score", "recorded_margin", "recorded_card_points", "recorded_totals")
COLUMNS = ["game_id", "hand_no", "hand_key", "source_format", "source_file", "ingest_file", "source_line",
           "n_players", "dealer",
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


_FIELDS = ("taker's team", "strain", "bid", "capot bid", "coinche", "plays")


def difference(mine: tuple | None, theirs: tuple | None) -> str | None:
    """The first field of :func:`content` in which two copies of a deal differ, in words (``'strain H vs S'``,
    ``'play 5: 9H vs JH'``); None when they agree (a ``deal`` level copy agrees with any)."""
    from pipeline.cards import card_str

    if mine is None or theirs is None or mine == theirs:
        return None
    for name, a, b in zip(_FIELDS, mine, theirs):
        if a == b:
            continue
        if name != "plays":
            return f"{name} {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b), start=1):
            if x != y:
                return f"play {i}: {card_str(x)} vs {card_str(y)}"
        return f"plays: {len(a)} cards vs {len(b)}"
    return None


def richness(h: dict[str, Any]) -> int:
    """How much a copy of a hand records: completeness level first, then the taker's seat, the auction, the
    belote seat and each recorded result (a higher number is a richer copy)."""
    return (100 * _LEVEL.get(h.get("completeness"), 0) + (h.get("taker") is not None) + bool(h.get("auction"))
            + (h.get("belote_seat") is not None) + sum(h.get(k) is not None for k in RECORDED))


@dataclass
class Copy:
    """One imported hand in the index: its game and keys, whether its game is a single-deal copy (the only
    kind ever dropped for a richer one), and where it was read (``files``: source_file, ingest_file; ``line``:
    source_line, ``hand_no`` in its game)."""

    deal: tuple
    game_id: str
    game_key: str | None
    hand_key: str
    single: bool
    content: tuple | None
    richness: int
    files: tuple[str, str | None]
    line: int | None = None
    hand_no: int | None = None

    def where(self) -> str:
        """``file:line (game G, hand N)``, for messages."""
        line = f":{self.line}" if self.line is not None else ""
        return f"{self.files[0]}{line} (game {self.game_id}, hand {self.hand_no})"


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
                (h["source_file"], h.get("ingest_file")), h.get("source_line"), h.get("hand_no")))

    def matches(self, h: dict[str, Any]) -> list[Copy]:
        """The imported copies of ``h``'s deal that agree with it (other games than ``h``'s own)."""
        d = deal_id(h)
        if d is None:
            return []
        c = content(h)
        return [e for e in self.by_deal.get(d, ()) if e.game_id != h["game_id"]
                and (c is None or e.content is None or e.content == c)]

    def conflicts(self, h: dict[str, Any]) -> list[Copy]:
        """The imported copies of ``h``'s deal that disagree with it (:func:`difference`), other games than its own."""
        d = deal_id(h)
        if d is None:
            return []
        c = content(h)
        return [e for e in self.by_deal.get(d, ()) if e.game_id != h["game_id"] and difference(c, e.content)]

    def drop_games(self, game_ids: set[str]) -> None:
        """Forget every copy of these games (they left the lake)."""
        for d, copies in list(self.by_deal.items()):
            kept = [e for e in copies if e.game_id not in game_ids]
            if len(kept) != len(copies):
                self.by_deal[d] = kept

    def remove(self, gone: Copy) -> None:
        """Forget a copy dropped from the lake."""
        copies = self.by_deal.get(gone.deal, [])
        if gone in copies:
            copies.remove(gone)
