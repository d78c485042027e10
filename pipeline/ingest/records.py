"""What readers produce: hands and games as table rows, and rejected records with their provenance.

A reader never decides what an error does. It yields :class:`GameRecord` (a game and its hands, ready
for the lake) or :class:`Reject` (what could not be read, why, and where), and sometimes a :class:`Notice`
(something worth saying that is not an error). The ingest driver
(:mod:`pipeline.ingest.run`) alone applies the error policy (``--strict`` stops at the first reject).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

RAW_LIMIT = 1024


class RecordError(ValueError):
    """A record that cannot be imported. ``code`` is machine-readable, the message is for people and
    names the game and hand when they are known."""

    def __init__(self, code: str, message: str, hand_no: int | None = None):
        super().__init__(message)
        self.code = code
        self.hand_no = hand_no


@dataclass
class Provenance:
    """Where a record was read: file, 1-based line, byte offset (in the decompressed stream)."""

    source_format: str
    source_file: str
    line: int | None = None
    offset: int | None = None


@dataclass
class GameRecord:
    """A game and its hands as rows of the ``games`` and ``hands`` tables (dicts keyed by column)."""

    game: dict[str, Any]
    hands: list[dict[str, Any]]
    where: Provenance


@dataclass
class Reject:
    """A record that could not be imported: its reason and where it was."""

    where: Provenance
    code: str
    reason: str
    raw: str
    game_id: str | None = None
    hand_no: int | None = None

    def row(self) -> dict[str, Any]:
        raw = self.raw.encode("utf-8", "replace")[:RAW_LIMIT].decode("utf-8", "ignore")
        key = hashlib.sha256(json.dumps([self.where.source_file, self.where.line, self.where.offset,
                                         self.reason, raw]).encode()).hexdigest()[:32]
        # a hand number out of the column's range (the very reason of some rejects) stays in the message only
        hand_no = self.hand_no if isinstance(self.hand_no, int) and 0 <= self.hand_no < 2**31 else None
        return {"reject_key": key, "source_format": self.where.source_format, "source_file": self.where.source_file,
                "source_line": self.where.line, "byte_offset": self.where.offset, "game_id": self.game_id,
                "hand_no": hand_no, "reason_code": self.code, "reason": self.reason, "raw": raw}

    def message(self) -> str:
        """One line naming file, line, game and hand, and the reason."""
        loc = self.where.source_file
        if self.where.line is not None:
            loc += f":{self.where.line}"
        parts = [loc]
        if self.game_id:
            parts.append(f"game {self.game_id}")
        if self.hand_no is not None:
            parts.append(f"hand {self.hand_no}")
        return f"{', '.join(parts)}: {self.reason} [{self.code}]"


@dataclass
class Notice:
    """Something a reader noticed that is not an error and imports nothing (a line repeating an earlier one
    exactly): the driver counts it and shows it, naming the place."""

    where: Provenance
    text: str
    game_id: str | None = None

    def message(self) -> str:
        """One line naming file, line and game, and what was noticed."""
        loc = self.where.source_file + (f":{self.where.line}" if self.where.line is not None else "")
        return f"{loc}{f', game {self.game_id}' if self.game_id else ''}: {self.text}"


Line = tuple[int, int, "str | None"]
"""(1-based line number, byte offset, text) — text is None when the line is not valid UTF-8."""


def bad_encoding(where: Provenance, raw: bytes | None = None) -> Reject:
    """The reject for a line that is not valid UTF-8."""
    return Reject(where, "bad_encoding", "line is not valid UTF-8 text (is the file in another encoding?)",
                  "" if raw is None else raw.decode("latin-1"))


def json_lines(lines, reader: str, path: str):
    """The JSON Lines loop every line-per-record reader shares: yields (where, line, value) for each non-blank
    line that parses, and a Reject (bad encoding, invalid JSON) for each that does not."""
    import orjson
    for lineno, offset, line in lines:
        where = Provenance(reader, path, lineno, offset)
        if line is None:
            yield bad_encoding(where)
            continue
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            yield Reject(where, "invalid_json", f"invalid JSON: {e}", line)
            continue
        yield where, line, value


def first_objects(head: str, limit: int = 5) -> list:
    """The JSON values of the first ``limit`` non-blank lines of a file head that parse (for sniffing)."""
    import orjson
    out = []
    for line in head.splitlines()[: limit * 4]:
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            pass
        if len(out) >= limit:
            break
    return out


_KEY_FIELDS = ("game_id", "hand_no", "dealer", "n_players", "initial_hands", "turned_card", "auction", "taker",
               "strain", "bid", "capot_bid", "coinche", "plays", "play_seats", "tricks_taken", "last_trick_seat",
               "announced", "belote_seat", "recorded_score", "recorded_card_points", "recorded_totals", "completeness",
               "recorded_margin", "carried_in", "players")   # players: a renamed player is another hand


def hand_key(row: dict[str, Any]) -> str:
    """Content hash of a hand row (the fields in _KEY_FIELDS, canonical JSON), 32 hex chars."""
    fields = [row.get(k) for k in _KEY_FIELDS]
    if row.get("taker_team") is not None:   # only then: the keys of every hand with a taker seat stay as they were
        fields.append(["taker_team", row["taker_team"]])
    payload = json.dumps(fields, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def game_key(game: dict[str, Any], hand_keys: list[str]) -> str:
    """Content hash of a game row plus its hands' keys."""
    fields = [game.get(k) for k in ("game_id", "variant", "n_players", "players", "target", "recorded_final",
                                    "recorded_winner")]
    payload = json.dumps([fields, hand_keys], separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def first_missing(present: set[int], upto: int, k: int = 10) -> list[int]:
    """The first ``k`` numbers of 1..``upto`` not in ``present``, without building the range (a source may
    claim hand 99999999999: that must be a reject, not a memory error)."""
    out, i = [], 1
    while len(out) < k and i <= upto:
        if i not in present:
            out.append(i)
        i += 1
    return out


def new_hand(**kw: Any) -> dict[str, Any]:
    """A hand row with every optional column defaulted; ``hand_key`` computed last."""
    row: dict[str, Any] = {
        "source_line": None, "source_hand_id": None, "ruleset_hint": None, "turned_card": None, "auction": [],
        "taker": None, "taker_team": None, "strain": None, "bid": None, "capot_bid": False, "coinche": 0, "plays": None,
        "play_seats": None, "tricks_taken": None, "last_trick_seat": None, "announced": None,
        "belote_seat": None, "recorded_score": None, "recorded_card_points": None, "recorded_totals": None,
        "recorded_margin": None, "carried_in": None,
        "errors": [], "completeness": "full_play", "initial_hands": None,
    }
    row.update(kw)
    row["hand_key"] = hand_key(row)
    return row


def finish_game(game: dict[str, Any], hands: list[dict[str, Any]]) -> dict[str, Any]:
    """Complete a game row: defaults, hand count and content key."""
    g = {"ruleset_hint": None, "target": None, "recorded_final": None, "recorded_winner": None}
    g.update(game)
    g["n_hands"] = len(hands)
    g["game_key"] = game_key(g, [h["hand_key"] for h in hands])
    return g
