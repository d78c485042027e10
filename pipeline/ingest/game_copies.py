"""The copy of a game already in the lake, looked up when another file gives the same game id with other content.

The ingest driver (:mod:`pipeline.ingest.run`) asks two things of the stored copy: is it the same play (the same
deals, contracts, plays and tricks: :func:`fingerprint`), and which of the two copies carries more of the
source's own results (:func:`richness`: recorded scores, totals, winner). :class:`LakeCopies` answers from the
lake and reads only the rows it needs: the hands and the game row of that one game id (a pyarrow dataset filter
on ``game_id`` inside the game's ``source`` partition). A file of many such games (OpenSpiel's 2,400 per-deal
state files repeat ``histories.jsonl``) would pay one filtered scan per game, so after
:data:`TARGETED_LOOKUPS` lookups in one source, one streamed pass over that source's hands computes every
game's fingerprint and richness at once. Either way memory holds one batch of hand rows, plus two integers
and a key per game of the source once the pass has run; never the hand lists of the lake (about 2.5 GB at
10^6 hands, which the previous whole-lake read held).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow.compute as pc

from pipeline import lake as lakemod

PLAY = ("dealer", "taker", "strain", "bid", "capot_bid", "coinche")
RECORDED = ("recorded_score", "recorded_margin", "recorded_card_points", "recorded_totals")
HAND_COLUMNS = ["game_id", "hand_no", "hand_key", "initial_hands", "plays", "tricks_taken", *PLAY, *RECORDED]
GAME_COLUMNS = ["game_id", "game_key", "recorded_final", "recorded_winner"]
TARGETED_LOOKUPS = 32
"""Filtered reads per source before the driver switches to one streamed pass over the source."""
BATCH = 65_536
_MASK = (1 << 64) - 1


def _hand_hash(h: dict[str, Any]) -> int:
    return hash((h["hand_no"], tuple(h.get("initial_hands") or ()), tuple(h.get("plays") or ()),
                 tuple(h.get("tricks_taken") or ()), *(h.get(k) for k in PLAY)))


def fingerprint(hands: Iterable[dict[str, Any]]) -> tuple[int, int]:
    """What makes two records the same play: each hand's number, deal, contract, plays and tricks taken, as
    (hand count, sum of the hands' hashes mod 2^64). A sum, so the hands of a game can be added up batch by batch
    in any order. In-process only (Python's ``hash`` of text changes between processes)."""
    n = total = 0
    for h in hands:
        n += 1
        total = (total + _hand_hash(h)) & _MASK
    return n, total


def hand_richness(h: dict[str, Any]) -> int:
    """How many of the source's results a hand records (recorded score, margin, card points, totals)."""
    return sum(h.get(k) is not None for k in RECORDED)


def game_richness(game: dict[str, Any]) -> int:
    """How many of the source's game results a game row records (final totals, winner)."""
    return (game.get("recorded_final") is not None) + (game.get("recorded_winner") is not None)


def richness(game: dict[str, Any], hands: Iterable[dict[str, Any]]) -> int:
    """How much of the source's own result a copy of a game carries (a higher number is a richer copy)."""
    return sum(hand_richness(h) for h in hands) + game_richness(game)


@dataclass
class Copy:
    """A stored copy of a game: its :func:`fingerprint`, :func:`richness`, game key and hand keys (None when
    it came from the streamed pass: :meth:`LakeCopies.hand_keys` reads them when needed)."""

    fingerprint: tuple[int, int]
    richness: int
    game_key: str | None
    hand_keys: set[str] | None


class LakeCopies:
    """Stored copies of games by game id, read from the lake as clashes need them and kept while valid.

    The caller keeps it right: :meth:`put` when a new copy replaces the stored one, :meth:`forget` when a game
    leaves the lake; and it writes buffered rows before asking about a game they hold.
    """

    def __init__(self, lake) -> None:
        self.lake = lake
        self.cache: dict[str, Copy] = {}
        self.lookups: Counter = Counter()      # filtered reads so far, per source
        self.streamed: set[str] = set()        # sources whose games were all read by one streamed pass
        self.rows_read = 0                     # hand rows read from the lake (for tests and measurements)

    def get(self, game_id: str, source: str) -> Copy | None:
        """The stored copy of ``game_id`` (of ``source``), or None when the lake has no hand of it."""
        copy = self.cache.get(game_id)
        if copy is not None:
            return copy
        if self.lookups[source] >= TARGETED_LOOKUPS and source not in self.streamed:
            self._stream(source)
            copy = self.cache.get(game_id)
            if copy is not None:
                return copy
        self.lookups[source] += 1
        copy = self._read_one(game_id, source)
        if copy is not None:
            self.cache[game_id] = copy
        return copy

    def hand_keys(self, game_id: str, source: str) -> set[str]:
        """The hand keys of the stored copy of ``game_id`` (read by a filtered scan when not known yet)."""
        copy = self.get(game_id, source)
        if copy is None:
            return set()
        if copy.hand_keys is None:
            t = lakemod.read(self.lake, "hands", columns=["hand_key"], filter=self._only(game_id, source))
            self.rows_read += t.num_rows
            copy.hand_keys = set(t.column("hand_key").to_pylist())
        return copy.hand_keys

    def put(self, game_id: str, copy: Copy) -> None:
        """The stored copy of ``game_id`` is now ``copy`` (a richer copy replaced it)."""
        self.cache[game_id] = copy

    def forget(self, game_ids: Iterable[str]) -> None:
        """These games left the lake (or are being replaced): read them again if asked."""
        for g in game_ids:
            self.cache.pop(g, None)

    @staticmethod
    def _only(game_id: str, source: str):
        return (pc.field("source") == source) & (pc.field("game_id") == game_id)

    def _read_one(self, game_id: str, source: str) -> Copy | None:
        hands = lakemod.read(self.lake, "hands", columns=HAND_COLUMNS, filter=self._only(game_id, source)).to_pylist()
        self.rows_read += len(hands)
        if not hands:
            return None
        games = lakemod.read(self.lake, "games", columns=GAME_COLUMNS, filter=self._only(game_id, source)).to_pylist()
        game = games[0] if games else {}
        return Copy(fingerprint(hands), richness(game, hands), game.get("game_key"), {h["hand_key"] for h in hands})

    def _stream(self, source: str) -> None:
        """One pass over the hands of ``source`` in batches: every game's fingerprint and richness (games already
        cached keep their entry: it may describe a copy that replaced the stored one in this run)."""
        self.streamed.add(source)
        only = pc.field("source") == source
        counts: dict[str, list[int]] = {}
        for batch in lakemod.iter_batches(self.lake, "hands", batch_size=BATCH, columns=HAND_COLUMNS, filter=only):
            self.rows_read += batch.num_rows
            for h in batch.to_pylist():
                acc = counts.get(h["game_id"])
                if acc is None:
                    acc = counts[h["game_id"]] = [0, 0, 0]
                acc[0] += 1
                acc[1] = (acc[1] + _hand_hash(h)) & _MASK
                acc[2] += hand_richness(h)
        games = lakemod.read(self.lake, "games", columns=GAME_COLUMNS, filter=only)
        for g in games.to_pylist():
            acc = counts.get(g["game_id"])
            if acc is not None and g["game_id"] not in self.cache:
                self.cache[g["game_id"]] = Copy((acc[0], acc[1]), acc[2] + game_richness(g), g["game_key"], None)
