"""Checks every reader applies to a hand before it reaches the lake (the rules-independent ones).

Legality of plays depends on the ruleset and is the rescoring's job; here we check what makes a record
unusable under any rules: hand sizes, a card dealt twice, a card played twice or by a seat that did not
hold it, seats out of range, a contract without a taker. Each failure raises
:class:`~pipeline.formats.records.RecordError` with a code and a message that names the cards.
"""

from __future__ import annotations

from typing import Any

from pipeline import names

from pipeline.storage import schema
from pipeline.cards import card_str
from pipeline.formats import lenient
from pipeline.formats.records import GameRecord, RecordError, Reject


COMPLETENESS = ("full_play", "tricks_taken", "summary", "deal")
VARIANTS = ("belote", "coinche", "bulgarian", "belote-2p", "belote-3p")
STRAIN_NAMES = ("C", "D", "H", "S", "NT", "AT")
THREE_PLAYER_SIZES = (8, 9, 10)
"""Cards each seat plays in the 3-player deals (rules.md R3): 8 (the 24-card pack of EXOTY / FUNBELOTE, or 32
cards with 8 out of play, seed 000), ADPOKER3's 9, HOPPARE's 10. Which pack a game plays is the ruleset's
(``deal.deck``): the engine marks a hand dealing a 7 or an 8 under a 24-card ruleset unscorable."""


def _seat_ok(v: Any, n: int, allow_none: bool = True, allow_minus_one: bool = False) -> bool:
    if v is None:
        return allow_none
    if not isinstance(v, int) or isinstance(v, bool):
        return False
    return 0 <= v < n or (allow_minus_one and v == -1)


# Points carried into a hand (litige, Bulgarian hanging points) are a few hundred at most; the bound catches a
# corrupt value long before game totals could leave int32 (a carry of 2**31-1 crashed the game pass).
MAX_CARRIED_IN = 100_000
MAX_TRICKS = 10     # the most tricks a hand has (deal.tricks): a claim's trick count is at most this


def check_penalties_and_claim(row: dict[str, Any], n: int, hn: int | None) -> None:
    """``penalties`` (each {seat, kind}: a seat of the game, a kind of :data:`pipeline.rules.PENALTY_KINDS`) and
    ``claim`` ({seat, trick}: a seat of the game, 1 to :data:`MAX_TRICKS` tricks completed). Raises RecordError
    ``bad_penalty`` / ``bad_claim``."""
    from pipeline.rules import PENALTY_KINDS
    pens = row.get("penalties")
    if pens is not None and not isinstance(pens, list):
        raise RecordError("bad_penalty", f"penalties must be a list of {{seat, kind}}, got {pens!r}", hn)
    for p in pens or []:
        kind = p.get("kind") if isinstance(p, dict) else None
        if kind not in PENALTY_KINDS:
            raise RecordError("bad_penalty", f"penalty {p!r}: the kind must be one of {', '.join(PENALTY_KINDS)}", hn)
        if not _seat_ok(p.get("seat"), n, allow_none=False):
            raise RecordError("bad_penalty", f"penalty {p!r}: the seat must be one of the game's seats 0..{n - 1}", hn)
    claim = row.get("claim")
    if claim is None:
        return
    if not isinstance(claim, dict) or not _seat_ok(claim.get("seat"), n, allow_none=False):
        raise RecordError("bad_claim", f"claim {claim!r}: the seat must be one of the game's seats 0..{n - 1}", hn)
    trick = claim.get("trick")
    if not isinstance(trick, int) or isinstance(trick, bool) or not 1 <= trick <= MAX_TRICKS:
        raise RecordError("bad_claim", f"claim {claim!r}: trick (the tricks completed when the seat declared out) "
                          f"must be a whole number from 1 to {MAX_TRICKS}", hn)


def check_hand(row: dict[str, Any], cards_per_seat: int | None = None) -> None:
    """Validate a hand row (dict with the ``hands`` columns). Raises RecordError.

    Under ``--on-error lenient`` (:func:`pipeline.formats.lenient.collecting`) a repairable failure is repaired
    in the row instead (completeness lowered, ``errors`` extended) and the row checked again."""
    for _ in range(3):                 # a repair may uncover the next failure (a bad deal hides bad plays)
        try:
            return _check_hand(row, cards_per_seat)
        except RecordError as e:
            if not lenient.repair(row, e, cards_per_seat):
                raise
    _check_hand(row, cards_per_seat)


def _check_hand(row: dict[str, Any], cards_per_seat: int | None = None) -> None:
    """The checks of :func:`check_hand`, raising at the first failure.

    ``cards_per_seat`` defaults to 8 with 4 players; with 2 or 3 players the deal shapes vary by variant
    (rules.md R3), so every seat must simply hold the same number of cards: with 3 players 9 (32-card pack, 5
    cards out of play), 10 (the taker's 2-card talon) or 8 (from the 24-card pack, 9 to ace, or from 32 with 8 out of play)."""
    n = row["n_players"]
    if cards_per_seat is None and n == 4:
        cards_per_seat = 8
    if cards_per_seat is None and row.get("initial_hands"):
        cards_per_seat = bin(row["initial_hands"][0]).count("1")
    hn = row.get("hand_no")
    if not isinstance(hn, int) or isinstance(hn, bool) or hn < 1:
        raise RecordError("bad_value", f"hand number {hn!r} must be a whole number from 1", None)
    if row.get("completeness") not in COMPLETENESS:
        raise RecordError("bad_value", f"completeness {row.get('completeness')!r} is not one of {', '.join(COMPLETENESS)}", hn)
    # game-level fields (the same in every hand row of a game): their reject names the game, not a hand
    if row.get("variant") not in VARIANTS:
        raise RecordError("bad_value", f"variant {row.get('variant')!r} is not one of {', '.join(VARIANTS)}", None)
    players = row.get("players")
    if not isinstance(players, list) or len(players) != n or not all(isinstance(p, str) and p for p in players):
        raise RecordError("bad_value", f"players must be {n} non-empty names, got {players!r}", None)
    taker = row.get("taker")
    if taker is not None or row.get("taker_team") is not None:
        if row.get("strain") not in STRAIN_NAMES:
            raise RecordError("bad_value", f"contract strain {row.get('strain')!r} is not one of {' '.join(STRAIN_NAMES)}", hn)
        if not isinstance(row.get("capot_bid"), bool):
            raise RecordError("bad_value", f"capot_bid must be true or false, got {row.get('capot_bid')!r}", hn)
        bid = row.get("bid")
        if bid is not None and (not isinstance(bid, int) or isinstance(bid, bool) or not 0 < bid <= 1000):
            raise RecordError("bad_value", f"bid {bid!r} must be a whole number of points from 1 to 1000", hn)
    team = row.get("taker_team")
    if team is not None:
        if taker is not None:
            raise RecordError("bad_value", f"the contract gives both a taker seat ({taker!r}) and a taker team "
                              f"({team!r}): give the team only when the seat is unknown", hn)
        if n == 3:
            raise RecordError("bad_value", "a 3-player contract has no taker team (each player is his own team): "
                              "give the taker's seat", hn)
        if team not in (0, 1) or isinstance(team, bool):
            raise RecordError("bad_value", f"taker team {team!r} must be 0 or 1", hn)
    if row.get("completeness") == "deal" and (taker is not None or team is not None or row.get("plays") is not None
                                              or row.get("auction") or row.get("recorded_score") is not None
                                              or row.get("initial_hands") is None):
        raise RecordError("bad_value", "a 'deal' level hand holds the dealt hands only (no auction, contract, play "
                          "or score)", hn)
    carried = row.get("carried_in")
    if carried is not None and (not isinstance(carried, int) or isinstance(carried, bool)
                                or not 0 <= carried <= MAX_CARRIED_IN):
        raise RecordError("bad_value", f"carried_in {carried!r} must be a whole number of game points from 0 to "
                          f"{MAX_CARRIED_IN} (points held over from earlier hands: litige or hanging points)", hn)
    if row.get("coinche") not in (0, 1, 2) or isinstance(row.get("coinche"), bool):
        raise RecordError("bad_value", f"coinche level {row.get('coinche')!r} must be 0, 1 or 2", hn)
    for a in row.get("auction") or []:
        if not _seat_ok(a.get("seat"), n, allow_none=False):
            raise RecordError("bad_seat", f"auction call {a!r} has no seat in 0..{n - 1}", hn)
    for a in row.get("announced") or []:
        if not _seat_ok(a.get("seat"), n, allow_none=False):
            raise RecordError("bad_seat", f"announcement {a!r} has no seat in 0..{n - 1}", hn)
    if not _seat_ok(row.get("belote_seat"), n, allow_minus_one=True):
        raise RecordError("bad_seat", f"belote seat {row.get('belote_seat')!r} is not in 0..{n - 1} (or -1)", hn)
    if not _seat_ok(row.get("last_trick_seat"), n):
        raise RecordError("bad_seat", f"last trick seat {row.get('last_trick_seat')!r} is not in 0..{n - 1}", hn)
    check_penalties_and_claim(row, n, hn)
    rec = row.get("recorded_score")
    if rec is not None and (not isinstance(rec, list) or len(rec) != (2 if n != 3 else 3)):
        raise RecordError("bad_value", f"recorded score {rec!r} must give one number per team", hn)
    errors = row.get("errors")
    if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
        raise RecordError("bad_value", f"errors must be a list of texts, got {errors!r}", hn)
    if row.get("completeness") == "full_play" and (taker is not None or team is not None):
        if row.get("plays") is None or row.get("initial_hands") is None:
            raise RecordError("truncated_play", "a full_play hand with a contract must give the hands and the plays", hn)
    init = row.get("initial_hands")
    if row.get("dealer") is None or not 0 <= row["dealer"] < n:
        raise RecordError("bad_seat", f"dealer seat {row.get('dealer')!r} is not in 0..{n - 1}", hn)
    if row.get("taker") is not None and not 0 <= row["taker"] < n:
        raise RecordError("bad_seat", f"taker seat {row['taker']!r} is not in 0..{n - 1}", hn)
    if init is not None:
        if len(init) != n:
            raise RecordError("wrong_hand_count", f"{len(init)} initial hands for {n} players", hn)
        if n == 3 and cards_per_seat not in THREE_PLAYER_SIZES:
            raise RecordError("wrong_hand_size", f"3-player hands of {cards_per_seat} cards; the 3-player deals give "
                              f"{', '.join(map(str, THREE_PLAYER_SIZES))} cards each (rules.md R3)", hn)
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
        if row.get("taker") is None and team is None:
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
        if row.get("completeness") == "full_play" and cards_per_seat and len(plays) != n * cards_per_seat:
            raise RecordError("truncated_play", f"{len(plays)} cards played, expected {n * cards_per_seat}", hn)


def check_game(rec: GameRecord) -> Reject | None:
    """Checks shared by every reader, on the finished rows: a safe source name (it becomes a folder),
    values that fit the schema, hand numbers 1..n without repeats, at least one hand."""
    gid = rec.game.get("game_id")

    def rej(code: str, reason: str, hand_no=None) -> Reject:
        return Reject(rec.where, code, reason, "", gid, hand_no)
    source = rec.game.get("source")
    if not names.is_plain(source):
        return rej("bad_source", f"source {source!r} is not a plain name ({names.RULE}; it names a lake "
                                 "folder)")
    if not rec.hands:
        return rej("no_hands", "the game has no hands")
    err = schema.check_row("games", rec.game, ("game_key",))
    if err:
        return rej("bad_value", err)
    target, winner, n = rec.game.get("target"), rec.game.get("recorded_winner"), rec.game.get("n_players")
    if target is not None and target <= 0:
        return rej("bad_value", f"game target {target} must be a positive number of game points")
    if winner is not None and not 0 <= winner < (3 if n == 3 else 2):
        return rej("bad_value", f"recorded winner {winner} is not a team of this {n}-player game "
                                f"(0..{2 if n == 3 else 1})")
    numbers = [h.get("hand_no") for h in rec.hands]
    if None in numbers:     # else two such hands would read as "hand number None appears twice"
        return rej("missing_field", f"the game's hand {numbers.index(None) + 1} (in record order) has no hand "
                                    "number")
    if len(set(numbers)) != len(numbers):
        dup = next(x for x in numbers if numbers.count(x) > 1)
        return rej("duplicate_hand_no", f"hand number {dup} appears twice", dup)
    for h in rec.hands:
        err = schema.check_row("hands", h, ("hand_key",))
        if err:
            return rej("bad_value", err, h.get("hand_no"))
    return None
