"""Reader for OpenSpiel ``python_belote`` histories JSON Lines (``histories.jsonl``, FORMAT.md §8): one deal
per line with the game string, the action history, the acting players and the returns."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.formats.openspiel_decode import decode
from pipeline.formats.records import GameRecord, Line, RecordError, Reject, first_objects, json_lines, malformed
from pipeline.formats.validate import check_hand

NAME = "openspiel-jsonl"
DESCRIPTION = "OpenSpiel python_belote histories.jsonl (one deal per line: game string, action ids, players, returns)"


def sniff(name: str, head: str) -> bool:
    """True when one of the first non-blank lines is an OpenSpiel python_belote history."""
    return any(isinstance(o, dict) and str(o.get("game", "")).startswith("python_belote(") and "history" in o
               for o in first_objects(head))


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    for item in json_lines(lines, NAME, path):
        if isinstance(item, Reject):
            yield item
            continue
        where, line, d = item
        lineno = where.line
        game_id = None
        try:
            if not isinstance(d, dict):
                raise RecordError("bad_record", "an OpenSpiel history line must be a JSON object")
            for k in ("game", "history"):
                if k not in d:
                    raise RecordError("missing_field", f"missing field {k!r}")
            game_id = f"seed-{d.get('seed', lineno)}"
            players = d.get("players")
            if players is not None and len(players) != len(d["history"]):
                raise RecordError("bad_record", "players and history differ in length")
            game, hands = decode(str(d["game"]), list(d["history"]), players, game_id, path, lineno,
                                 str(d.get("bots", "bot")), d.get("returns"), NAME)
            for h in hands:
                check_hand(h)
        except RecordError as e:
            yield Reject(where, e.code, str(e), line, None if game_id is None else f"openspiel:{game_id}", e.hand_no)
            continue
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
            code, words = malformed(e, d)
            yield Reject(where, code, f"malformed OpenSpiel history: {words}", line,
                         None if game_id is None else f"openspiel:{game_id}")
            continue
        yield GameRecord(game, hands, where)
