"""The copy of a game already in the lake, looked up when another file gives the same game id with other content,
or, for a reader whose game ids come from the file's path (a coinche-cli game folder's name), the same content
under another id.

The ingest driver (:mod:`pipeline.ingest.run`) asks two things of the stored copy: is it the same play (the same
deals, contracts, plays and tricks: :func:`fingerprint`), and which of the two copies carries more of the
source's own results (:func:`richness`: recorded scores, totals, winner). :class:`LakeCopies` answers from the
lake and reads only the rows it needs: the hands and the game row of that one game id, selected by DuckDB's
Parquet reader inside the game's ``source`` partition (it tests ``game_id`` first and decodes the other columns
only where it matches, where a pyarrow dataset filter decoded the whole row group of every list column:
docs/scale.md). A file of many such games (OpenSpiel's 2,400 per-deal state files repeat
``histories.jsonl``) would pay one scan per game, so after :data:`TARGETED_LOOKUPS` lookups in one source, one
streamed pass over that source's hands computes every game's fingerprint and richness at once. Either way
memory holds one batch of hand rows, plus two integers and a key per game of the source once the pass has run;
never the hand lists of the lake.

A game whose id comes from where its file lies (``GAME_ID_FROM_PATH`` readers: a coinche-cli game is named after
its folder) gets a new id when its folder is renamed or copied, and with it new hand keys. :func:`content` is what
such a copy still shares with the stored game: every field of every hand that a hand key covers except the game
id (deal, auction, contract, plays, tricks, declarations, recorded results, players) and the game's own results,
so two games with the same content are the same game read from two places. :meth:`LakeCopies.same_content`
looks it up: one streamed pass over the source's hands and games, the first time it is asked about that
source, keeps a content digest (three integers) per stored game, and the driver adds the games it imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from pipeline.storage import lake as lakemod
from pipeline.formats.content_keys import HAND_FIELDS

PLAY = ("dealer", "taker", "strain", "bid", "capot_bid", "coinche")
RECORDED = ("recorded_score", "recorded_margin", "recorded_card_points", "recorded_totals")
HAND_COLUMNS = ["game_id", "hand_no", "hand_key", "source_line", "initial_hands", "plays", "tricks_taken", *PLAY,
                *RECORDED]
IDENTITY = ("n_players", "players")
"""The game fields two copies of one play must share to be the same game: a renamed player is another record.
The target and variant may differ between two exports of one game (a state file that does not carry them)."""
GAME_COLUMNS = ["game_id", "game_key", "recorded_final", "recorded_winner", *IDENTITY]
TARGETED_LOOKUPS = 32
"""Filtered reads per source before the driver switches to one streamed pass over the source."""
BATCH = 8_192
_MASK = (1 << 64) - 1
CONTENT_HAND = tuple(k for k in HAND_FIELDS if k != "game_id")
"""The hand fields :func:`content` compares: those of the hand key (:mod:`pipeline.formats.content_keys`) but
the game id."""
CONTENT_GAME = ("variant", "n_players", "players", "target", "recorded_final", "recorded_winner")
"""The game fields :func:`content` compares (those of the game key but the id and the hands)."""


def _hand_hash(h: dict[str, Any]) -> int:
    return hash((h["hand_no"], tuple(h.get("initial_hands") or ()), tuple(h.get("plays") or ()),
                 tuple(h.get("tricks_taken") or ()), *(h.get(k) for k in PLAY)))


def identity(game: dict[str, Any]) -> tuple | None:
    """The :data:`IDENTITY` fields of a game row, comparable between a stored copy and a new record; None when the
    record names no players: a reader that knows only seats names them ``<word>#<seat>`` in seat order
    (OpenSpiel's state files: ``bot#0``..., its histories ``random#0``...), which identify nobody."""
    players = game.get("players") or []
    if players and all(isinstance(p, str) and p.endswith(f"#{i}") for i, p in enumerate(players)):
        return None
    return tuple(tuple(v) if isinstance(v, list) else v for v in (game.get(k) for k in IDENTITY))


def differences(old: tuple, new: tuple) -> str:
    """What differs between two :func:`identity` tuples, in words: "players ['A', 'B'] -> ['A', 'C']"."""
    return "; ".join(f"{k} {list(a) if isinstance(a, tuple) else a!r} -> {list(b) if isinstance(b, tuple) else b!r}"
                     for k, a, b in zip(IDENTITY, old, new) if a != b)


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


def _frozen(v: Any) -> Any:
    """A hashable form of a JSON-like value read from a reader or from Parquet alike: lists as tuples, objects as
    sorted (key, value) pairs without the null ones (a struct read back from Parquet has every key)."""
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items() if x is not None))
    return v


def _content_hash(h: dict[str, Any]) -> int:
    return hash(tuple(_frozen(h.get(k)) for k in CONTENT_HAND))


def _game_hash(game: dict[str, Any]) -> int:
    return hash(tuple(_frozen(game.get(k)) for k in CONTENT_GAME))


def content(game: dict[str, Any], hands: Iterable[dict[str, Any]]) -> tuple[int, int, int]:
    """What a game is, whatever its id: (hand count, sum of the hands' :data:`CONTENT_HAND` hashes mod 2^64, hash
    of the game's :data:`CONTENT_GAME`). In-process only, like :func:`fingerprint`."""
    n = total = 0
    for h in hands:
        n += 1
        total = (total + _content_hash(h)) & _MASK
    return n, total, _game_hash(game)


@dataclass(frozen=True)
class Stored:
    """A game of the lake in the content index: its id and key, and where it was read (the recorded
    ``source_file``; ``ingest_file``, the physical file, None when not known)."""

    game_id: str
    game_key: str | None
    source_file: str | None
    ingest_file: str | None


@dataclass
class Copy:
    """A stored copy of a game: its :func:`fingerprint`, :func:`richness`, game key and hand keys (None when
    it came from the streamed pass: :meth:`LakeCopies.hand_keys` reads them when needed), its :func:`identity`
    and the first source line of its hands (None when unknown)."""

    fingerprint: tuple[int, int]
    richness: int
    game_key: str | None
    hand_keys: set[str] | None
    identity: tuple | None = None
    first_line: int | None = None


class LakeCopies:
    """Stored copies of games by game id, read from the lake as clashes need them and kept while valid.

    The caller keeps it right: :meth:`put` when a new copy replaces the stored one, :meth:`forget` when a game
    leaves the lake; and it writes buffered rows before asking about a game they hold.
    """

    def __init__(self, lake) -> None:
        self.lake = lakemod.locate(lake)
        self.con = None                        # a DuckDB connection, opened at the first lookup
        self.cache: dict[str, Copy] = {}
        self.lookups: Counter = Counter()      # filtered reads so far, per source
        self.streamed: set[str] = set()        # sources whose games were all read by one streamed pass
        self.rows_read = 0                     # hand rows read from the lake (for tests and measurements)
        self.contents: dict[str, dict[tuple, list[Stored]]] = {}   # source -> content() -> games of the lake

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
            t = self._select("hands", ["hand_key"], source, game_id)
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

    def same_content(self, source: str, digest: tuple[int, int, int]) -> list[Stored]:
        """The games of ``source`` whose :func:`content` is ``digest``: those in the lake when the source was first
        asked about (one streamed pass), and those added since with :meth:`add_content`. The caller checks that
        each is still in the lake, unchanged (games leave, and are edited, without this index knowing)."""
        index = self.contents.get(source)
        if index is None:
            index = self.contents[source] = self._stream_contents(source)
        return index.get(digest, [])

    def add_content(self, source: str, digest: tuple[int, int, int], game: Stored) -> None:
        """A game of ``source`` written to the lake in this run (kept only once the source's index is loaded: the
        first :meth:`same_content` reads every game written before it)."""
        index = self.contents.get(source)
        if index is not None:
            index.setdefault(digest, []).append(game)

    def _stream_contents(self, source: str) -> dict[tuple, list[Stored]]:
        """content() -> games, for every game of ``source`` in the lake: one pass over its hands in batches."""
        sums: dict[str, list[int]] = {}
        for batch in self._batches("hands", ["game_id", *CONTENT_HAND], source):
            self.rows_read += batch.num_rows
            for h in batch.to_pylist():
                acc = sums.get(h["game_id"])
                if acc is None:
                    acc = sums[h["game_id"]] = [0, 0]
                acc[0] += 1
                acc[1] = (acc[1] + _content_hash(h)) & _MASK
        index: dict[tuple, list[Stored]] = {}
        columns = ["game_id", "game_key", *CONTENT_GAME, "source_file", "ingest_file"]
        for batch in self._batches("games", columns, source):
            for g in batch.to_pylist():
                acc = sums.get(g["game_id"])
                if acc is not None:
                    index.setdefault((acc[0], acc[1], _game_hash(g)), []).append(
                        Stored(g["game_id"], g["game_key"], g.get("source_file"), g.get("ingest_file")))
        return index

    def close(self) -> None:
        """Close the DuckDB connection (if one was opened)."""
        if self.con is not None:
            self.con.close()
            self.con = None

    def _batches(self, table: str, columns: list[str], source: str, game_id: str | None = None):
        """The rows of ``table`` in partition ``source`` (and of ``game_id`` when given), as Arrow batches of at
        most :data:`BATCH` rows, streamed by DuckDB."""
        from pipeline.storage.duck import arrow_reader, duckdb_connection, table_source

        if not lakemod.has_table(self.lake, table):
            return iter(())
        if self.con is None:
            self.con = duckdb_connection()
        where, params = "source = $source", {"source": source}
        if game_id is not None:
            where, params = where + " AND game_id = $gid", {**params, "gid": game_id}
        sql = (f"SELECT {', '.join(columns)} FROM {table_source(self.con, self.lake, table)} WHERE {where}")
        return iter(arrow_reader(self.con, sql, params, BATCH))

    def _select(self, table: str, columns: list[str], source: str, game_id: str) -> pa.Table:
        batches = list(self._batches(table, columns, source, game_id))
        return pa.Table.from_batches(batches) if batches else pa.table({c: [] for c in columns})

    def _read_one(self, game_id: str, source: str) -> Copy | None:
        hands = self._select("hands", HAND_COLUMNS, source, game_id).to_pylist()
        self.rows_read += len(hands)
        if not hands:
            return None
        games = self._select("games", GAME_COLUMNS, source, game_id).to_pylist()
        game = games[0] if games else {}
        lines = [h["source_line"] for h in hands if h.get("source_line") is not None]
        return Copy(fingerprint(hands), richness(game, hands), game.get("game_key"), {h["hand_key"] for h in hands},
                    identity(game) if game else None, min(lines) if lines else None)

    def _stream(self, source: str) -> None:
        """One pass over the hands of ``source`` in batches: every game's fingerprint and richness (games already
        cached keep their entry: it may describe a copy that replaced the stored one in this run)."""
        self.streamed.add(source)
        counts: dict[str, list[int]] = {}
        for batch in self._batches("hands", HAND_COLUMNS, source):
            self.rows_read += batch.num_rows
            for h in batch.to_pylist():
                acc = counts.get(h["game_id"])
                if acc is None:
                    acc = counts[h["game_id"]] = [0, 0, 0, None]
                acc[0] += 1
                acc[1] = (acc[1] + _hand_hash(h)) & _MASK
                acc[2] += hand_richness(h)
                line = h.get("source_line")
                if line is not None and (acc[3] is None or line < acc[3]):
                    acc[3] = line
        for batch in self._batches("games", GAME_COLUMNS, source):
            for g in batch.to_pylist():
                acc = counts.get(g["game_id"])
                if acc is not None and g["game_id"] not in self.cache:
                    self.cache[g["game_id"]] = Copy((acc[0], acc[1]), acc[2] + game_richness(g), g["game_key"], None,
                                                    identity(g), acc[3])
