"""Reader for colver's ``games.jsonl`` (../shared/data/real/colver/FORMAT.md §9, README "Files"): one line per
game with ``game_id``, ``game_seed``, ``kind``, ``bots`` (4 seats), ``first_dealer``, ``deals`` (how many),
``final_scores`` ([NS, EW]), ``winner`` ("NS"/"EW"), ``target`` and ``completed``.

Every one of those facts is also in each deal record of ``deals.jsonl`` beside it (``deals_in_game``,
``game_final_scores``, ``game_winner``, ``game_target``, ``bots``, ``dealer`` of deal 1), which is what becomes
the game rows. So this file adds no rows of its own: it is the source's second record of each game's result,
and it is **compared**. The ``colver`` reader loads it as a sidecar (:func:`load`) and rejects a game whose deals
disagree with it (:func:`disagreement`: final totals, winner, deal count, target, first dealer, players),
naming both files and lines. Read on its own, this reader checks each line (its fields and that the winner
is the side with the higher total at or past the target, FORMAT.md §8) and rejects the bad ones; good lines
give nothing to import (``SIDE_FILES``).

A game has one line. A later line for the same game never overrides the first one: the first good line is the
one compared with ``deals.jsonl``. A repeat that says exactly the same is a :class:`Notice` (nothing is lost or
contradicted); a repeat that says something else is rejected as ``conflicting_duplicate``, naming the first
line and every field that differs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pipeline.formats.records import GameRecord, Line, Notice, RecordError, Reject, first_objects, json_lines

NAME = "colver-games"
DESCRIPTION = "colver 0.11.1 games.jsonl (one game result per line; compared with the games of deals.jsonl beside it)"
SIDE_FILES = True
FILE_NAME = "games.jsonl"
_TEAMS = {"NS": 0, "EW": 1}


def sniff(name: str, head: str) -> bool:
    """True when one of the first lines is a colver game summary (game_seed, final_scores, first_dealer)."""
    return any(isinstance(o, dict) and {"game_id", "game_seed", "final_scores", "first_dealer"} <= o.keys()
               for o in first_objects(head))


@dataclass(frozen=True)
class GameResult:
    """One line of games.jsonl: ``final`` [NS, EW] totals (game points), ``winner`` team (0 NS, 1 EW),
    ``deals`` count, ``target`` (game points), ``first_dealer`` seat, ``players`` (4 names, as the colver reader
    names bots), ``line`` of the file."""

    game_id: str
    final: list[int]
    winner: int
    deals: int
    target: int
    first_dealer: int
    players: list[str]
    line: int


def player_name(bot: dict[str, Any]) -> str:
    """A seat's player: the bots that decided its calls and its cards, ``<bid bot>+<play bot>``."""
    def short(s: str) -> str:
        return s.replace('method="', "").replace('"', "")
    return f"{short(str(bot.get('bid')))}+{short(str(bot.get('play')))}"


def _whole(v: Any, what: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError("bad_value", f"{what} must be a whole number, got {v!r}")
    return v


def parse(d: Any, line: int) -> GameResult:
    """Check one decoded line and return its GameResult. Raises RecordError naming the bad field."""
    if not isinstance(d, dict) or not isinstance(d.get("game_id"), str):
        raise RecordError("bad_record", "a games.jsonl line must be a JSON object with a game_id")
    final = d.get("final_scores")
    if not isinstance(final, list) or len(final) != 2:
        raise RecordError("bad_value", f"final_scores must be [NS, EW], got {final!r}")
    final = [_whole(x, "final_scores") for x in final]
    if d.get("winner") not in _TEAMS:
        raise RecordError("bad_value", f"winner must be NS or EW, got {d.get('winner')!r}")
    bots = d.get("bots")
    if not isinstance(bots, list) or len(bots) != 4 or not all(isinstance(b, dict) for b in bots):
        raise RecordError("bad_value", "bots must be a list of 4 objects")
    g = GameResult(d["game_id"], final, _TEAMS[d["winner"]], _whole(d.get("deals"), "deals"),
                   _whole(d.get("target"), "target"), _whole(d.get("first_dealer"), "first_dealer"),
                   [player_name(b) for b in bots], line)
    if g.deals < 1 or not 0 <= g.first_dealer < 4 or g.target <= 0:
        raise RecordError("bad_value", f"deals {g.deals}, first_dealer {g.first_dealer} or target {g.target} out of "
                          "range (deals >= 1, first dealer 0-3, target > 0)")
    if d.get("completed") is True and not (max(final) >= g.target and final[g.winner] == max(final)):
        raise RecordError("bad_value", f"winner {d['winner']} with final scores {final} and target {g.target}: the "
                          "winner must have the higher total, at or past the target (FORMAT.md §8)")
    return g


def load(deals_path: str) -> tuple[str | None, dict[str, GameResult]]:
    """The ``games.jsonl`` beside ``deals_path`` (its path, and its first good line of each game by game id);
    (None, {}) when there is none. Bad lines and repeats are left out here: reading the file itself rejects or
    notes them."""
    p = Path(deals_path).parent / FILE_NAME
    if not p.is_file():
        return None, {}
    out: dict[str, GameResult] = {}
    with p.open("rb") as f:
        for i, raw in enumerate(f, start=1):
            try:
                g = parse(orjson.loads(raw), i)
            except (orjson.JSONDecodeError, RecordError):
                continue
            out.setdefault(g.game_id, g)
    return str(p), out


def repeat_difference(first: dict[str, Any], again: dict[str, Any]) -> str | None:
    """The fields in which a repeated line (``again``) says something else than the first line of its game, as
    ``field <again> vs <first>`` joined by ``; `` (None when they say the same)."""
    diff = [f"{k} {again.get(k)!r} vs {first.get(k)!r}" for k in sorted(first.keys() | again.keys())
            if first.get(k) != again.get(k)]
    return "; ".join(diff) or None


def disagreement(g: GameResult, game: dict[str, Any], hands: list[dict[str, Any]]) -> str | None:
    """What the game rows built from deals.jsonl say that games.jsonl does not (None when they agree)."""
    mine = {"final scores": game.get("recorded_final"), "winner": game.get("recorded_winner"), "deals": len(hands),
            "target": game.get("target"), "first dealer": hands[0]["dealer"], "players": game.get("players")}
    theirs = {"final scores": g.final, "winner": g.winner, "deals": g.deals, "target": g.target,
              "first dealer": g.first_dealer, "players": g.players}
    diff = [f"{k} {mine[k]!r} vs {theirs[k]!r}" for k in mine if mine[k] != theirs[k]]
    return "; ".join(diff) or None


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject | Notice]:
    """Check every line; yield a Reject per bad line or conflicting repeat, a Notice per exact repeat (nothing
    for good lines: see the module docstring)."""
    first: dict[str, tuple[int, dict[str, Any]]] = {}     # game id -> (line, decoded object) of its first good line
    for item in json_lines(lines, NAME, path):
        if isinstance(item, Reject):
            yield item
            continue
        where, line, d = item
        gid = d.get("game_id") if isinstance(d, dict) and isinstance(d.get("game_id"), str) else None
        try:
            parse(d, where.line)
        except RecordError as e:
            yield Reject(where, e.code, f"{e} (games.jsonl line not usable)", line, gid and f"colver:{gid}")
            continue
        if gid not in first:
            first[gid] = (where.line, d)
            continue
        at, earlier = first[gid]
        diff = repeat_difference(earlier, d)
        if diff is None:
            yield Notice(where, f"repeats line {at} exactly (ignored)", f"colver:{gid}")
        else:
            yield Reject(where, "conflicting_duplicate", f"game {gid} is already on line {at} with other content: "
                         f"{diff} (this line vs line {at}); line {at} is the one compared with deals.jsonl",
                         line, f"colver:{gid}")

