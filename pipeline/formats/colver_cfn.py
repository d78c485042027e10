"""Reader for colver's own notation, CFN, one position per line (``deals.final.cfn``, ``deals.initial.cfn``;
the notation is parsed by :mod:`pipeline.formats.cfn`, FORMAT.md §4).

What a line becomes:

* **Game grouping.** CFN has no game boundaries and no players, so every line is a game of one hand: game id
  ``colver:cfn-<digest>``, the first 16 hex digits of the SHA-256 of the line (its parts joined by single
  spaces), so the id names the position, not where it was read: a line moved up or down by an edit, or the same
  file in two runs' folders, keeps its id, and two different positions never share one. ``source_game_id``
  keeps where it was read (``<folder>/<file>#<line>``). Hand 1, players the seat letters ``N E S W`` (as the
  Bridge Belot reader does), no target.
* **A finished deal** (``D:-/-/-/- <8 tricks> 110sEW``) is a ``full_play`` hand: the 32 cards in order, each
  trick's seats from the leader (dealer + 1, then the trick winners under the engine's trick rule), the dealt
  hands rebuilt from who played what, the contract's strain, value (capot: ``capot_bid``), coinche level.
  CFN names the taker's **team** but not the seat (the taker is the seat of the last bid, and CFN keeps no
  auction), so ``taker`` stays null and ``taker_team`` holds the team; the rescoring needs no more under
  rulesets without declarations (colver has none: the belote comes from the hands held). No score is
  recorded: CFN keeps none.
* **A passed-out deal** (contract ``0``, all 32 cards still in hand) is a hand with no contract and no play.
* **The position just after the deal** (``bid:0/p0/<first speaker>``, no trick) holds the deal but no auction,
  contract or play: it is kept at completeness ``deal`` (the cards dealt only; the rescoring leaves it
  unscorable), not rejected: it is real data, and the same deal played out in another file replaces it.
* Anything else (a position in the middle of the auction or the play, a malformed line) is a reject naming
  file, line and reason.

The same deals are usually imported from ``deals.jsonl`` too (which copies both CFN strings into each record):
the ingest driver recognises a hand already imported from another file by its deal and keeps the richest copy
(:mod:`pipeline.ingest.run`, ``DEAL_COPIES``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import PurePath

from pipeline.formats import cfn
from pipeline.formats.records import GameRecord, Line, Provenance, RecordError, Reject, bad_encoding, finish_game, new_hand
from pipeline.formats.validate import check_hand

NAME = "colver-cfn"
DESCRIPTION = ("colver CFN positions, one per line (deals.final.cfn / deals.initial.cfn: dealer, 32 cards trick by "
               "trick, contract); each line a one-hand game")
SOURCE = "colver"
DEAL_COPIES = True
"""Its games are single deals that other files (deals.jsonl) may hold too: the driver matches them by deal."""
PLAYERS = list(cfn.SEAT_LETTERS)
_LINE = re.compile(r"^[NESW]:[-.AKQJT98/7]+ (-|[2-9TJQKAshdc/]+) (0|bid:\S+|\d+[shdc](NS|EW)x{0,2})$")


def sniff(name: str, head: str) -> bool:
    """True when the first non-blank lines (up to 5) are CFN positions, or, failing that, the name ends in
    ``.cfn`` (its bad lines are then rejects with their reasons)."""
    lines = [ln.rstrip("\r") for ln in head.splitlines() if ln.strip()][:5]
    return bool(lines) and all(_LINE.match(ln) for ln in lines) or name.lower().endswith(".cfn")


def _game_ref(path: str, line: int) -> str:
    p = PurePath(path)
    return f"{p.parent.name}/{p.name}#{line}" if p.parent.name else f"{p.name}#{line}"


def game_id(text: str) -> str:
    """The game id of the CFN line ``text``: ``colver:cfn-`` and 16 hex digits of the SHA-256 of its
    whitespace-separated parts joined by single spaces."""
    return f"{SOURCE}:cfn-{hashlib.sha256(' '.join(text.split()).encode()).hexdigest()[:16]}"


def hand_row(pos: cfn.Position, path: str, line: int, gid: str) -> dict:
    """The ``hands`` row of a parsed position read at ``path``:``line``, in game ``gid`` (checked by
    :func:`check_hand`). Raises RecordError."""
    ref = _game_ref(path, line)
    played = pos.kind == "played"
    row = new_hand(
        game_id=gid, hand_no=1, source=SOURCE, source_format=NAME, source_file=path, source_line=line,
        source_game_id=ref, source_hand_id=ref, variant="coinche", ruleset_hint="colver", n_players=4,
        players=PLAYERS, dealer=pos.dealer, completeness="deal" if pos.kind == "dealt" else "full_play",
        initial_hands=pos.initial_hands, taker_team=pos.taker_team, strain=pos.strain, bid=pos.bid,
        capot_bid=pos.capot, coinche=pos.coinche, plays=pos.plays if played else None,
        play_seats=pos.play_seats if played else None)
    check_hand(row)
    return row


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield a one-hand GameRecord per CFN line, or a Reject naming the line and the reason."""
    for lineno, offset, text in lines:
        where = Provenance(NAME, path, lineno, offset)
        if text is None:
            yield bad_encoding(where)
            continue
        line = text.rstrip("\r\n")
        if not line.strip():
            continue
        gid = game_id(line)
        try:
            row = hand_row(cfn.parse(" ".join(line.split())), path, lineno, gid)
        except RecordError as e:
            yield Reject(where, e.code, f"{e} (CFN line not imported)", line, gid, 1)
            continue
        game = finish_game({
            "game_id": gid, "source": SOURCE, "source_format": NAME, "source_file": path,
            "source_game_id": row["source_game_id"], "variant": "coinche", "ruleset_hint": "colver", "n_players": 4,
            "players": PLAYERS}, [row])
        yield GameRecord(game, [row], where)
