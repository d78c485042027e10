"""What readers produce: hands and games as table rows, and rejected records with their provenance.

A reader never decides what an error does. It yields :class:`GameRecord` (a game and its hands, ready
for the lake) or :class:`Reject` (what could not be read, why, and where), and sometimes a :class:`Notice`
(something worth saying that is not an error). The ingest driver
(:mod:`pipeline.ingest.run`) alone applies the error policy (``--strict`` stops at the first reject).
"""

from __future__ import annotations

import hashlib
import json
import re
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


_JSON_KIND = {"NoneType": "null", "str": "text", "int": "a number", "float": "a number", "bool": "true/false",
              "list": "a list", "tuple": "a list", "dict": "an object"}
_PY_TYPE = re.compile(r"'(\w+)' object")


def malformed(e: Exception, record: Any = None) -> tuple[str, str]:
    """(reason code, reason in words) for a Python error a reader met on a malformed record, so that no reject
    shows a bare ``KeyError 'deal_no'``: a missing key names the missing field (``missing_field``), or, when the
    key is a value of ``record`` (a lookup of a value the reader does not know), the value and where it is
    (``bad_value``); a wrong type says which JSON kind was found where the format wants another (``bad_record``);
    a short list says so. ``record``: the parsed record (JSON values) the error came from, when the reader has it.
    Never raises."""
    if isinstance(e, KeyError) and e.args:
        key = e.args[0]
        path = _value_path(record, key) if record is not None and not _has_key(record, key) else None
        if path is not None:
            return "bad_value", f"unknown value {key!r} in field {path}"
        if not isinstance(key, str):
            return "bad_value", f"unknown value {key!r}"
        return "missing_field", f"missing field {key!r}"
    if isinstance(e, IndexError):
        return "bad_record", "a list in the record is shorter than the format requires"
    text = str(e)
    if isinstance(e, (TypeError, AttributeError)):
        m = _PY_TYPE.search(text) or re.search(r"(?:of type|not) '(\w+)'", text)
        pytype = m.group(1) if m else ("str" if "string indices" in text else "list" if "list indices" in text
                                       else None)
        found = _JSON_KIND.get(pytype, "a value")
        # the field, when exactly one field of the record holds that kind of value
        paths = _paths_of_kind(record, pytype) if record is not None and pytype in _JSON_KIND else []
        field = f"field '{paths[0]}'" if len(paths) == 1 else "a field"
        expected = ("a number" if "argument must be" in text          # int(None), float([])
                    else "a list" if "has no len()" in text or "not iterable" in text
                    else "an object" if "has no attribute" in text or "list indices" in text
                    else "an object or a list" if "not subscriptable" in text or "string indices" in text
                    else None)
        if expected is not None:
            return "bad_record", f"{field} holds {found} where the format expects {expected}"
        kinds = re.findall(r"'(\w+)'", text)
        words = sorted({_JSON_KIND[k] for k in kinds if k in _JSON_KIND})
        return "bad_record", ("a field holds a value of the wrong type"
                              + (f" ({' and '.join(words)} mixed where one kind is expected)" if len(words) > 1 else ""))
    m = re.search(r"invalid literal for int\(\) with base \d+: (.*)$", text)
    if m:
        return "bad_value", f"{m.group(1)} is not a whole number"
    if "values to unpack" in text:
        return "bad_record", "a list in the record has another length than the format requires"
    if isinstance(e, ValueError):
        return "bad_value", f"a value cannot be read: {text}" if text else "a value cannot be read"
    return "bad_record", "the record cannot be read"


def _paths_of_kind(value: Any, pytype: str, path: str = "", depth: int = 0) -> list[str]:
    """Where values of Python type ``pytype`` ('NoneType', 'str', ...) sit in ``value`` (at most 2 listed)."""
    out: list[str] = []
    if depth > 50:
        return out
    if path and type(value).__name__ == pytype:
        out.append(path)
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return out
    for p, v in items:
        if len(out) >= 2:
            break
        out.extend(_paths_of_kind(v, pytype, p, depth + 1))
    return out[:2]


def _has_key(value: Any, key: Any, depth: int = 0) -> bool:
    """Whether ``key`` is a key of some object nested in ``value``."""
    if depth > 50:
        return False
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key, depth + 1) for v in value)
    return False


def _value_path(value: Any, key: Any, path: str = "", depth: int = 0) -> str | None:
    """Where ``key`` is a (non-key) value nested in ``value``: ``'contract'``, ``'scoring[3].level'``; None when
    it is nowhere (``True`` is not taken for ``1``)."""
    if depth > 50:
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _value_path(v, key, f"{path}.{k}" if path else str(k), depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _value_path(v, key, f"{path}[{i}]", depth + 1)
            if found is not None:
                return found
        return None
    if type(value) is type(key) and value == key and path:
        return f"'{path}'"
    return None


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
            yield parser_too_deep_reject(where, e, line) or Reject(where, "invalid_json", f"invalid JSON: {e}", line)
            continue
        bad = json_shape_reject(where, line, value)
        if bad is not None:
            yield bad
            continue
        yield where, line, value


def json_shape_reject(where: Provenance, text: str, value, game_id: str | None = None) -> "Reject | None":
    """The reject of a parsed JSON record nested deeper than the ingest's ``--max-depth`` or holding a key twice
    in one object (:func:`pipeline.limits.json_shape`), else None."""
    from pipeline import limits
    bad = limits.json_shape(text, value, limits.active().max_depth)
    if bad is None:
        return None
    if game_id is None and isinstance(value, dict) and isinstance(value.get("game_id"), str):
        game_id = value["game_id"]
    return Reject(where, bad.code, bad.reason, text[:1 << 20], game_id)


def parser_too_deep_reject(where: Provenance, error: Exception, text: str, game_id: str | None = None) -> "Reject | None":
    """The ``too_deep`` reject of a text orjson refused for nesting past its own limit
    (:func:`pipeline.limits.parser_too_deep`), else None (the reader's invalid-JSON reject then applies)."""
    from pipeline import limits
    bad = limits.parser_too_deep(error)
    return None if bad is None else Reject(where, bad.code, bad.reason, text[:1 << 20], game_id)


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
    """A hand row with every optional column defaulted. Its ``hand_key`` is None until the ingest driver keys it
    from the typed columns (:mod:`pipeline.formats.content_keys`)."""
    row: dict[str, Any] = {
        "source_line": None, "source_hand_id": None, "ruleset_hint": None, "turned_card": None, "auction": [],
        "taker": None, "taker_team": None, "strain": None, "bid": None, "capot_bid": False, "coinche": 0, "plays": None,
        "play_seats": None, "tricks_taken": None, "last_trick_seat": None, "announced": None,
        "belote_seat": None, "recorded_score": None, "recorded_card_points": None, "recorded_totals": None,
        "recorded_margin": None, "carried_in": None, "penalties": None, "claim": None,
        "errors": [], "completeness": "full_play", "initial_hands": None,
    }
    row.update(kw)
    row["hand_key"] = None
    return row


def finish_game(game: dict[str, Any], hands: list[dict[str, Any]]) -> dict[str, Any]:
    """Complete a game row: defaults and hand count (its ``game_key`` is set with its hands' keys, see
    :func:`new_hand`)."""
    g = {"ruleset_hint": None, "target": None, "recorded_final": None, "recorded_winner": None}
    g.update(game)
    g["n_hands"] = len(hands)
    g["game_key"] = None
    return g
