"""``--on-error lenient``: keep a hand that fails a check, at the completeness level its data still supports.

Under the default policy (``skip``) a hand that fails :func:`pipeline.formats.validate.check_hand` sends its
whole game to ``rejects``. Under ``lenient`` the driver opens :func:`collecting`, and ``check_hand`` hands
the failure to :func:`repair`, which keeps the hand when that is honest and says so in the hand's ``errors``:

* **truncated last trick** (``truncated_play`` with only cards of the last trick missing): every seat that
  has not played holds exactly one card, so the missing cards are forced. They are appended in turn order
  after the last recorded card, or, when the whole last trick is missing, from the winner of the trick before
  (card strength of :func:`pipeline.trick_order.strength`: the same in every shipped ruleset). The hand
  stays ``full_play``.
* **unusable play record** (``truncated_play`` otherwise, ``card_played_twice``, ``card_not_held``,
  ``bad_play_record``, a play by a seat out of range): the plays are dropped; the deal, contract and recorded
  score stay; completeness becomes ``summary``.
* **unusable deal** (``wrong_hand_count``, ``wrong_hand_size``, ``card_dealt_twice``): the initial hands, the
  plays and the tricks taken are dropped; completeness becomes ``summary``.

Anything else (no taker with plays, values out of range, ...) cannot be kept honestly and still rejects
the game. Keys (``hand_key``, ``game_key``) are those of the rows as kept (:mod:`pipeline.formats.content_keys`,
like every row's): a record kept the same way gives the same keys, so a re-import finds the same rows.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from pipeline.cards import STRAINS
from pipeline.formats.records import RecordError

PLAY_CODES = {"truncated_play", "card_played_twice", "card_not_held", "bad_play_record"}
DEAL_CODES = {"wrong_hand_count", "wrong_hand_size", "card_dealt_twice"}


@dataclass(frozen=True)
class Repair:
    """One kept hand: where it is, the check it failed and what was done."""

    source_file: str | None
    source_line: int | None
    game_id: str | None
    hand_no: int | None
    code: str
    reason: str
    action: str

    def message(self) -> str:
        where = f"{self.source_file}:{self.source_line}" if self.source_line else str(self.source_file)
        return f"{where}, game {self.game_id}, hand {self.hand_no}: {self.reason} [{self.code}] -> {self.action}"


_REPAIRS: contextvars.ContextVar[list[Repair] | None] = contextvars.ContextVar("rebelote_lenient", default=None)
_FILE: contextvars.ContextVar[str | None] = contextvars.ContextVar("rebelote_lenient_file", default=None)


def reading(path: str | None) -> None:
    """The file the driver is reading now: repairs name it (a record's own provenance may name another)."""
    _FILE.set(path)


@contextmanager
def collecting() -> Iterator[list[Repair]]:
    """Within this block, :func:`pipeline.formats.validate.check_hand` keeps repairable hands; the list it
    yields receives one :class:`Repair` per hand kept."""
    found: list[Repair] = []
    token = _REPAIRS.set(found)
    try:
        yield found
    finally:
        _REPAIRS.reset(token)


def active() -> bool:
    return _REPAIRS.get() is not None


def repair(row: dict[str, Any], err: RecordError, cards_per_seat: int | None) -> bool:
    """Change ``row`` in place so that it no longer fails ``err`` and note it; False when the failure cannot be
    repaired honestly (then nothing is changed)."""
    found = _REPAIRS.get()
    if found is None:
        return False
    code = err.code
    if code == "truncated_play" and _complete_last_trick(row, cards_per_seat):
        action = "last trick completed with the cards left in hand (forced); kept as full_play"
    elif code in PLAY_CODES or (code == "bad_seat" and str(err).startswith("play ")):
        row["plays"] = row["play_seats"] = None
        row["completeness"] = "summary"
        action = "plays dropped; kept at summary level (deal, contract and recorded score)"
    elif code in DEAL_CODES:
        for k in ("initial_hands", "plays", "play_seats", "tricks_taken", "last_trick_seat"):
            row[k] = None
        row["completeness"] = "summary"
        action = "deal and plays dropped; kept at summary level (contract and recorded score)"
    else:
        return False
    row["errors"] = list(row.get("errors") or []) + [f"{code}: {err} ({action}; --on-error lenient)"]
    current = _FILE.get() or row.get("source_file")
    line = row.get("source_line") if row.get("source_file") == current else None
    found.append(Repair(current, line, row.get("game_id"), row.get("hand_no"), code, str(err), action))
    return True


def _complete_last_trick(row: dict[str, Any], cards_per_seat: int | None) -> bool:
    n, init = row["n_players"], row.get("initial_hands")
    plays, seats = list(row.get("plays") or []), list(row.get("play_seats") or [])
    if cards_per_seat is None and init:          # as check_hand: 8 with 4 players, else the deal's own size
        cards_per_seat = 8 if n == 4 else bin(init[0]).count("1")
    if not init or not cards_per_seat or row.get("strain") not in STRAINS:
        return False
    total = n * cards_per_seat
    if not total - n <= len(plays) < total:      # only cards of the last trick may be missing
        return False
    left = list(init)
    for c, s in zip(plays, seats):
        left[s] &= ~(1 << c)
    in_trick = len(plays) - (total - n)
    if in_trick:
        seat = (seats[-1] + 1) % n
    else:                                         # the winner of the previous trick leads
        from pipeline.trick_order import strength
        cards = np.array(plays[-n:], dtype=np.int8)
        st = strength(cards, np.int8(cards[0] // 8), np.int8(STRAINS.index(row["strain"])))
        seat = seats[-n:][int(np.argmax(st))]
    played_now = set(seats[total - n:])
    for _ in range(n - in_trick):
        if seat in played_now or bin(left[seat]).count("1") != 1:
            return False
        card = left[seat].bit_length() - 1
        plays.append(card)
        seats.append(seat)
        played_now.add(seat)
        seat = (seat + 1) % n
    row["plays"], row["play_seats"] = plays, seats
    return True
