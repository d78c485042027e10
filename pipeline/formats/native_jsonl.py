"""Reader for Rebelote's native JSON Lines format (one game per line; see :mod:`pipeline.formats.native`)."""

from __future__ import annotations

import re

from collections.abc import Iterator

from pipeline.formats import native
from pipeline.formats.records import (GameRecord, Line, Provenance, RecordError, Reject, bad_encoding, first_objects,
                                     json_lines, malformed)
from pipeline.formats.validate import check_hand

NAME = "rebelote"
DESCRIPTION = "Rebelote native JSON Lines: one game per line ({\"format\": \"rebelote\", ...})"


_FORMAT_KEY = re.compile(r'^\s*\{.*?"format"\s*:\s*"rebelote"')


def sniff(name: str, head: str) -> bool:
    """True when one of the first non-blank lines is a JSON object with ``"format": "rebelote"``, or when the
    first line, whole or not (longer than the head, cut short, or holding a NaN), is an object that says so:
    its bad lines are then rejected one by one instead of the file going unrecognised."""
    if any(isinstance(o, dict) and o.get("format") == "rebelote" for o in first_objects(head)):
        return True
    first = next((line for line in head.splitlines() if line.strip()), "")
    return bool(_FORMAT_KEY.match(first))


def first_version(head: str):
    """The ``version`` the first record of a file head gives (None when the head shows none): a file written in
    version 1 is read by the row path from its first line (its pairs never parse as columns)."""
    objs = first_objects(head, 1)
    return objs[0].get("version") if objs and isinstance(objs[0], dict) else None


# a JSON text value (escapes allowed) and a key's value that is text or a whole number
_TEXT = r'"((?:[^"\\]|\\.)*)"'
_GAME_ID = re.compile(r'"game_id"\s*:\s*' + _TEXT)
_SOURCE = re.compile(r'"source"\s*:\s*' + _TEXT)
_SOURCE_GAME_ID = re.compile(r'"source_game_id"\s*:\s*(?:' + _TEXT + r'|(-?\d+)\s*[,}])')


def game_id_in_prefix(text: str) -> str | None:
    """The game id a native line that does not parse (cut short, damaged further on) still shows: its
    ``game_id`` text, else ``<source>:<source_game_id>`` (the id :func:`pipeline.formats.native.game_to_rows` gives),
    read with a regular expression from the keys written before the damage. None when they are not there
    (or not readable as JSON texts). The game's keys come before its ``hands`` in every writer's order, and
    no hand holds a ``source``, ``source_game_id`` or ``game_id`` key, so the first match is the game's."""
    import orjson

    def value(m: re.Match) -> str:
        return orjson.loads(f'"{m.group(1)}"') if m.group(1) is not None else m.group(2)

    head = text.split('"hands"', 1)[0]
    try:
        m = _GAME_ID.search(head)
        if m:
            return value(m) or None
        src, sgid = _SOURCE.search(head), _SOURCE_GAME_ID.search(head)
        if src and sgid and value(sgid) != "":
            return f"{value(src)}:{value(sgid)}"
    except orjson.JSONDecodeError:
        pass
    return None


def not_utf8(lineno: int, offset: int, raw: bytes, path: str) -> Reject:
    """The reject for a native line whose bytes ``raw`` (the line as stored, with its line end if it has one) are
    not UTF-8, naming the game its start still shows (:func:`game_id_in_prefix`).

    A last line cut short inside a multi-byte character (no line end, the bytes stop in the middle of one) is a
    line cut short like any other: ``invalid_json``, with orjson's words for its whole characters and the reason
    the rest is missing. In JSON a non-ASCII character can only be inside a text, so such a line never parses.
    Any other undecodable byte is ``bad_encoding`` (the file is in another encoding), with the line's bytes read as
    Latin-1 (one character a byte) as its raw text."""
    import orjson
    where = Provenance(NAME, path, lineno, offset)
    try:
        raw.decode("utf-8")
        raise ValueError("not_utf8() called with a UTF-8 line")
    except UnicodeDecodeError as e:
        cut_short = e.reason == "unexpected end of data" and not raw.endswith(b"\n")
        whole = raw[:e.start].decode("utf-8")
        if lineno == 1:
            whole = whole.removeprefix("\ufeff")
    game_id = game_id_in_prefix(whole)
    if cut_short:
        try:
            orjson.loads(whole)
            words = "the line ends inside a multi-byte UTF-8 character"
        except orjson.JSONDecodeError as je:
            words = f"{je}; the line stops inside a multi-byte UTF-8 character (cut short)"
        return Reject(where, "invalid_json", f"invalid JSON: {words}", whole, game_id)
    rej = bad_encoding(where, bytes(raw))
    rej.game_id = game_id
    return rej


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per valid line, one Reject per bad line (with its line number). A line that is not
    JSON (``invalid_json``, e.g. cut short) is rejected with the game id its start still shows
    (:func:`game_id_in_prefix`). ``lines`` may give a line that is not UTF-8 as its bytes (instead of None):
    its reject then names its game too (:func:`not_utf8`)."""
    for lineno, offset, text in lines:
        if isinstance(text, (bytes, bytearray)):
            yield not_utf8(lineno, offset, text, path)
        else:
            yield from _read_one((lineno, offset, text), path)


def _read_one(line: Line, path: str) -> Iterator[GameRecord | Reject]:
    for item in json_lines(iter([line]), NAME, path):
        if isinstance(item, Reject):
            if item.code in ("invalid_json", "too_deep") and item.game_id is None:
                item.game_id = game_id_in_prefix(item.raw)
            yield item
            continue
        where, line, obj = item
        game_id = None
        try:
            if isinstance(obj, dict) and isinstance(obj.get("source"), str):
                game_id = str(obj.get("game_id") or f"{obj['source']}:{obj.get('source_game_id')}")
            game, hands = native.game_to_rows(obj, NAME, path, where.line, keyed=False)
            for h in hands:
                check_hand(h)
        except RecordError as e:
            yield Reject(where, e.code, str(e), line, game_id, e.hand_no)
            continue
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as e:
            code, words = malformed(e, obj)
            yield Reject(where, code, f"malformed record: {words} (docs/native-format.md lists the fields)", line,
                         game_id)
            continue
        yield GameRecord(game, hands, where)
