"""Reader for Rebelote's native JSON Lines format (one game per line; see :mod:`pipeline.native`)."""

from __future__ import annotations

import re

from collections.abc import Iterator

from pipeline import native
from pipeline.ingest.records import GameRecord, Line, RecordError, Reject, first_objects, json_lines, malformed
from pipeline.ingest.validate import check_hand

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


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per valid line, one Reject per bad line (with its line number)."""
    for item in json_lines(lines, NAME, path):
        if isinstance(item, Reject):
            yield item
            continue
        where, line, obj = item
        game_id = None
        try:
            if isinstance(obj, dict) and isinstance(obj.get("source"), str):
                game_id = str(obj.get("game_id") or f"{obj['source']}:{obj.get('source_game_id')}")
            game, hands = native.game_to_rows(obj, NAME, path, where.line)
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
