"""Reader for club score sheets in CSV (layout in docs/scoresheet-csv.md): one row per hand, no cards.

A sheet is what an organiser fills in a spreadsheet: game id, hand number, the four players (or the two team
names), dealer, taker, contract, each team's score and optionally the running totals. Columns are found by
name in the header row (comma, semicolon or tab separated); rows sharing a game id form one game, whatever
their order in the file, and must be numbered 1..n. Every hand lands at completeness ``summary``: the
recorded scores are kept, rescoring has nothing to replay. The game's ``date`` becomes ``games.played_at``; its
final totals and target give ``games.recorded_winner``.

Checks beyond reading each cell: the ``made`` cell against the hand's scores (:func:`_check_made`) and the
running totals against the scores (:func:`_check_totals`). The sheet contradicting itself is a reject naming
both fields and their values: which of them is wrong cannot be known, and nothing is corrected.

Errors: a row that cannot be read is a Reject with its line and the reason, and its game is not imported
(the unit imported or rejected is a whole game, as for every reader); the other games import. Unknown
columns are reported once (a Reject on the header line) and ignored.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterator

from pipeline.formats.records import GameRecord, Line, Provenance, RecordError, Reject, bad_encoding
from pipeline.formats.scoresheet_hands import GAME_COLS, NAME, PLAYER_COLS, TEAM_COLS, _Game, _Row, _build, _int

DESCRIPTION = "club score sheet CSV (one row per hand: players, dealer, contract, team scores; no cards)"

REQUIRED = ("game_id", "hand_no", "variant", "dealer", "taker", "score_a", "score_b")
HAND_COLS = ("dealer", "taker", "strain", "bid", "coinche", "made", "score_a", "score_b", "total_a", "total_b",
             "penalties", "claim_by", "claim_trick")
KNOWN = ("game_id", "hand_no") + GAME_COLS + HAND_COLS + ("notes",)
_SNIFF = {"game_id", "hand_no", "score_a", "score_b"}


def _norm_header(cell: str) -> str:
    """A header cell as a column name: case and blanks ignored ("Score A" is score_a, "Player 1" is player1)."""
    name = re.sub(r"[\s-]+", "_", cell.strip().lstrip("\ufeff").lower())
    return re.sub(r"^player_(\d)$", r"player\1", name)


def _header_cells(line: str) -> tuple[str, list[str]]:
    """(delimiter, normalised header cells) of a header line: the delimiter among , ; TAB that yields the
    most known column names."""
    best = (",", [])
    score = -1
    for delim in (",", ";", "\t"):
        try:
            cells = [_norm_header(c) for c in next(csv.reader([line], delimiter=delim))]
        except (csv.Error, StopIteration):
            continue
        n = sum(c in KNOWN for c in cells)
        if n > score:
            best, score = (delim, cells), n
    return best


def sniff(name: str, head: str) -> bool:
    """True when the first non-blank line is a header naming game_id, hand_no, score_a and score_b."""
    for line in head.splitlines():
        if line.strip():
            return _SNIFF <= set(_header_cells(line)[1])
    return False


def _physical(lines: Iterator[Line], where: list, pending: list[Reject], path: str) -> Iterator[str]:
    """The text of each line for the csv module; records each line's position (the first line of a row is
    its position) and turns undecodable lines into rejects (an empty line takes their place)."""
    for lineno, offset, text in lines:
        where.append((lineno, offset, text or ""))
        if text is None:
            pending.append(bad_encoding(Provenance(NAME, path, lineno, offset)))
            yield "\n"
            continue
        yield text


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per game id of the sheet (in order of first appearance), or the rejects of its bad
    rows; rejects of the file itself (header, undecodable lines, rows without a game id) come first."""
    where: list[tuple[int, int, str]] = []
    pending: list[Reject] = []
    games: dict[str, _Game] = {}
    src = _physical(lines, where, pending, path)
    header: list[str] | None = None
    cols: dict[str, int] = {}
    reader = None

    def at(pos: tuple[int, int, str]) -> Provenance:
        return Provenance(NAME, path, pos[0], pos[1])

    while True:
        where.clear()
        if reader is None:          # the header: the first non-blank line
            line = next(src, None)
            yield from pending
            pending.clear()
            if line is None:
                return
            if not line.strip():
                continue
            pos = where[0]
            delim, header = _header_cells(line)
            # counted once (header.count per cell took minutes on a header of 100,000 cells)
            dup = sorted(c for c, n in Counter(header).items() if c and n > 1)
            if dup:
                yield Reject(at(pos), "bad_header", f"column {dup[0]} appears twice in the header; the file is not "
                             "imported", line)
                return
            missing = [c for c in REQUIRED if c not in header]
            if not all(c in header for c in PLAYER_COLS) and not all(c in header for c in TEAM_COLS):
                missing.append("player1..player4 (or team_a and team_b)")
            if missing:
                yield Reject(at(pos), "bad_header", f"missing column(s): {', '.join(missing)}; the file is not "
                             "imported (see docs/scoresheet-csv.md)", line)
                return
            unknown = [c for c in header if c and c not in KNOWN]
            if unknown:
                more = f" and {len(unknown) - 20:,} more" if len(unknown) > 20 else ""   # a reason, not a dump
                yield Reject(at(pos), "unknown_column", f"unknown column(s) {', '.join(unknown[:20])}{more} ignored "
                             f"(known columns: {', '.join(KNOWN)})", line)
            cols = {c: i for i, c in enumerate(header) if c in KNOWN}
            reader = csv.reader(src, delimiter=delim)
            continue
        try:
            cells = next(reader, None)
        except csv.Error as e:
            pos = where[0] if where else (None, None, "")
            yield from pending
            pending.clear()
            yield Reject(Provenance(NAME, path, pos[0], pos[1]), "bad_csv", f"unreadable CSV from here on: {e}; "
                         "rows after this point are not imported", "".join(w[2] for w in where))
            break
        yield from pending
        pending.clear()
        if cells is None:
            break
        if not any(c.strip() for c in cells):
            continue
        pos = where[0]
        raw = "".join(w[2] for w in where)
        values = {c: (cells[i] if i < len(cells) else "") for c, i in cols.items()}
        gid = values["game_id"].strip()
        if not gid:
            yield Reject(at(pos), "bad_row", "game_id is empty", raw)
            continue
        game = games.setdefault(gid, _Game(gid))
        assert header is not None
        if len(where) > 1 and any(sub.count(delim) >= len(header) - 1
                                  for cell in cells for sub in cell.split("\n")[1:]):
            game.failed.append(Reject(at(pos), "bad_row", f"a quote opened on line {pos[0]} is not closed: lines "
                                      f"{pos[0]}..{where[-1][0]} were read as one row (the whole game is rejected)",
                                      raw))
            continue
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            game.failed.append(Reject(at(pos), "bad_row", f"row has {len(cells)} cells but the header has "
                                      f"{len(header)} columns (a comma inside a name needs quotes) (the whole game is "
                                      "rejected)", raw))
            continue
        try:
            hn = _int(values["hand_no"], "hand_no")
            if hn < 1:
                raise RecordError("bad_value", f'hand_no "{values["hand_no"]}" must be 1 or more')
        except RecordError as e:
            game.failed.append(Reject(at(pos), e.code, f"{e} (the whole game is rejected)", raw))
            continue
        game.rows.append(_Row(pos[0], pos[1], raw, values, hn))

    for game in games.values():
        out = _build(game, path)
        if isinstance(out, GameRecord):
            yield out
        else:
            yield from out
