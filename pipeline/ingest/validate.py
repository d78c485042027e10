"""Checks every reader applies to a hand before it reaches the lake (the rules-independent ones).

Legality of plays depends on the ruleset and is the rescoring's job; here we check what makes a record
unusable under any rules: hand sizes, a card dealt twice, a card played twice or by a seat that did not
hold it, seats out of range, a contract without a taker. Each failure raises
:class:`~pipeline.ingest.records.RecordError` with a code and a message that names the cards.
"""

from __future__ import annotations

from typing import Any

from pipeline.cards import card_str
from pipeline.ingest.records import RecordError


def check_hand(row: dict[str, Any], cards_per_seat: int = 8) -> None:
    """Validate a hand row (dict with the ``hands`` columns). Raises RecordError."""
    n = row["n_players"]
    hn = row.get("hand_no")
    init = row.get("initial_hands")
    if row.get("dealer") is None or not 0 <= row["dealer"] < n:
        raise RecordError("bad_seat", f"dealer seat {row.get('dealer')!r} is not in 0..{n - 1}", hn)
    if row.get("taker") is not None and not 0 <= row["taker"] < n:
        raise RecordError("bad_seat", f"taker seat {row['taker']!r} is not in 0..{n - 1}", hn)
    if init is not None:
        if len(init) != n:
            raise RecordError("wrong_hand_count", f"{len(init)} initial hands for {n} players", hn)
        seen = 0
        for seat, mask in enumerate(init):
            size = bin(mask).count("1")
            if size != cards_per_seat:
                raise RecordError("wrong_hand_size", f"seat {seat} was dealt {size} cards, expected {cards_per_seat}", hn)
            dup = seen & mask
            if dup:
                c = (dup & -dup).bit_length() - 1
                raise RecordError("card_dealt_twice", f"card {card_str(c)} is dealt to two seats", hn)
            seen |= mask
    plays, seats = row.get("plays"), row.get("play_seats")
    if plays is not None:
        if seats is None or len(seats) != len(plays):
            raise RecordError("bad_play_record", "plays and play_seats differ in length", hn)
        if row.get("taker") is None:
            raise RecordError("no_contract", "cards were played but the hand has no taker", hn)
        played = 0
        remaining = list(init) if init is not None else None
        for i, (c, s) in enumerate(zip(plays, seats)):
            if not 0 <= s < n:
                raise RecordError("bad_seat", f"play {i + 1}: seat {s!r} is not in 0..{n - 1}", hn)
            bit = 1 << c
            if played & bit:
                raise RecordError("card_played_twice", f"play {i + 1} (trick {i // n + 1}): {card_str(c)} was already played", hn)
            played |= bit
            if remaining is not None:
                if not remaining[s] & bit:
                    raise RecordError("card_not_held", f"play {i + 1} (trick {i // n + 1}): seat {s} plays {card_str(c)}, which it does not hold", hn)
                remaining[s] &= ~bit
        if row.get("completeness") == "full_play" and len(plays) != n * cards_per_seat:
            raise RecordError("truncated_play", f"{len(plays)} cards played, expected {n * cards_per_seat}", hn)
