"""Rebelote's native record format: JSON Lines, one game per line (documented in docs/native-format.md,
JSON Schema in ``schemas/native.schema.json``).

This module converts between the native JSON objects and rows of the ``games``/``hands`` tables, in
both directions and losslessly: ``game_to_rows(game_to_json(g, hs)) == (g, hs)``. Cards are written as
two-letter strings (``7C``, ``TD``, ``JH``, ``AS``; see :mod:`pipeline.cards`) and read in any notation
:func:`pipeline.cards.parse_card` accepts.
"""

from __future__ import annotations

from datetime import datetime, timezone

from typing import Any

from pipeline.cards import RANKS, SUITS, CardError, card_str, cards_of, mask_of, parse_card
import pyarrow as pa

from pipeline.formats.content_keys import key_rows
from pipeline.formats.records import RecordError, finish_game, new_hand

FORMAT_NAME = "rebelote"
FORMAT_VERSION = 2
"""The version writers write. Version 2 gives every field one JSON type, so that Arrow's, polars' and DuckDB's
JSON readers read a file directly: an auction call is ``{"seat", "call"}``, the plays are a list of cards with
the seats that played them in ``play_seats``, and a null is the same as a field left out. Version 1 (``[seat,
"card"]`` pairs; a null read differently from an absent field in places) is still read."""
VERSIONS = (1, 2)


def _without_nulls(d: Any) -> Any:
    """A version-2 object with its null-valued keys left out (null and absent are the same there)."""
    return {k: v for k, v in d.items() if v is not None} if isinstance(d, dict) else d


def _cards(tokens: Any, what: str, hand_no: int | None) -> list[int]:
    if not isinstance(tokens, list):
        raise RecordError("bad_field", f"{what} must be a list of cards", hand_no)
    try:
        return [parse_card(t) for t in tokens]
    except CardError as e:
        raise RecordError("unknown_card", f"{what}: {e}", hand_no) from None


def _mask_list(groups: Any, what: str, hand_no: int | None) -> list[int] | None:
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise RecordError("bad_field", f"{what} must be a list (one list of cards per seat)", hand_no)
    return [mask_of(_cards(g, f"{what}[{i}]", hand_no)) for i, g in enumerate(groups)]


def _int(v: Any, what: str, hand_no: int | None, nullable: bool = True) -> int | None:
    if v is None and nullable:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError("bad_field", f"{what} must be a whole number, got {v!r}", hand_no)
    return v


def game_to_rows(obj: dict[str, Any], source_format: str, source_file: str, line: int | None,
                 keyed: bool = True) -> tuple[dict, list[dict]]:
    """Rows (game, hands) of one native game object. Raises RecordError naming the field and hand.

    ``keyed``: compute the rows' ``hand_key`` and ``game_key`` (:mod:`pipeline.formats.content_keys`), left None
    when a value does not fit its column. The ingest reader passes False: the driver keys its records in batches.

    Provenance: when the object carries ``provenance`` (as exports do), it is kept, so that a lake
    exported and re-imported is identical; otherwise the file and line being read are recorded.
    """
    if not isinstance(obj, dict):
        raise RecordError("bad_record", "a native record must be a JSON object (one game per line)")
    if obj.get("format") != FORMAT_NAME:
        raise RecordError("bad_record", f"'format' must be {FORMAT_NAME!r}, got {obj.get('format')!r}")
    if "version" not in obj:
        raise RecordError("missing_field", f"missing field 'version' (the native format's version, {FORMAT_VERSION})")
    version = obj.get("version")
    if type(version) is not int or version not in VERSIONS:     # not True, not 2.0
        raise RecordError("bad_record", f"unsupported native format version {version!r}")
    if version == 2:
        obj = _without_nulls(obj)
    for k in ("source", "source_game_id", "variant", "n_players", "players", "hands"):
        if k not in obj:
            raise RecordError("missing_field", f"missing field {k!r}")
    prov = obj.get("provenance")
    exported = prov is not None            # version 2: an exported game says every hand's source line
    prov = {} if prov is None else prov
    if not isinstance(prov, dict):
        raise RecordError("bad_field", "provenance must be an object")
    if version == 2:
        prov = _without_nulls(prov)
    if not isinstance(obj["source"], str):
        raise RecordError("bad_field", f"source must be text, got {obj['source']!r}")
    source = obj["source"]
    sgid = obj["source_game_id"]
    if not isinstance(sgid, (str, int)) or isinstance(sgid, bool) or str(sgid) == "":
        raise RecordError("bad_field", f"source_game_id must be the source's own non-empty game id (text), got "
                          f"{sgid!r}")
    game_id = str(obj.get("game_id") or f"{source}:{sgid}")
    n = _int(obj["n_players"], "n_players", None, nullable=False)
    if n not in (2, 3, 4):
        raise RecordError("bad_field", f"n_players must be 2, 3 or 4, got {n}")
    players = obj["players"]
    if not isinstance(players, list) or len(players) != n or not all(isinstance(p, str) and p for p in players):
        raise RecordError("bad_field", f"players must list {n} names (non-empty text)")
    fmt = prov.get("source_format", source_format)
    sfile = prov.get("source_file", source_file)
    common = {"game_id": game_id, "source": source, "source_format": fmt, "source_file": sfile,
              "source_game_id": str(obj["source_game_id"]), "variant": str(obj["variant"]),
              "ruleset_hint": obj.get("ruleset_hint"), "n_players": n, "players": list(players)}
    if not isinstance(obj["hands"], list):
        raise RecordError("bad_field", "hands must be a list")
    hands = []
    for i, h in enumerate(obj["hands"]):
        if not isinstance(h, dict):
            raise RecordError("bad_field", f"hands[{i}] must be an object")
        if version == 2:
            h = {k: _without_nulls(v) for k, v in h.items() if v is not None}
        hn = _int(h.get("hand_no", i + 1), "hand_no", i + 1, nullable=False)
        contract = h.get("contract")
        if contract is not None and not isinstance(contract, dict):
            raise RecordError("bad_field", f"contract must be an object or null, got {contract!r}", hn)
        plays = h.get("plays")
        if plays == [] and not contract:
            plays = None           # a passed-out hand: no card played, whether "plays" is [] or left out
        hprov = {} if h.get("provenance") is None else h["provenance"]
        rec_obj = h.get("recorded")
        if not isinstance(hprov, dict) or (rec_obj is not None and not isinstance(rec_obj, dict)):
            raise RecordError("bad_field", "provenance and recorded must be objects", hn)
        if version == 1:
            auction, play_seats, play_cards = _v1_auction_and_plays(h, plays, hn)
        else:
            auction, play_seats, play_cards = _v2_auction_and_plays(h, plays, hn)
        rec = h.get("recorded") or {}
        announced = h.get("announced")
        if announced is not None:
            if not isinstance(announced, list):
                raise RecordError("bad_field", "announced must be a list", hn)
            announced = [_announcement(a, hn) for a in announced]
        c = contract or {}
        turned = h.get("turned_card")
        row = new_hand(
            **common, hand_no=hn, source_line=hprov.get("source_line", prov.get(
                "source_line", None if version == 2 and exported else line)),
            source_hand_id=h.get("source_hand_id"), dealer=_int(h.get("dealer"), "dealer", hn, False),
            completeness=str(h.get("completeness", "full_play")),
            initial_hands=_mask_list(h.get("hands"), "hands", hn),
            turned_card=None if turned is None else _cards([turned], "turned_card", hn)[0],
            auction=auction,
            taker=_int(c.get("taker"), "contract.taker", hn) if contract else None,
            taker_team=_int(c.get("taker_team"), "contract.taker_team", hn) if contract else None,
            strain=c.get("strain") if contract else None,
            bid=_int(c.get("bid"), "contract.bid", hn) if contract else None,
            capot_bid=c.get("capot_bid", False), coinche=_int(c.get("coinche", 0), "contract.coinche", hn, False),
            plays=play_cards, play_seats=play_seats,
            tricks_taken=_mask_list(h.get("tricks_taken"), "tricks_taken", hn),
            last_trick_seat=_int(h.get("last_trick_seat"), "last_trick_seat", hn),
            announced=announced, belote_seat=_int(h.get("belote_seat"), "belote_seat", hn),
            recorded_score=rec.get("score"), recorded_card_points=rec.get("card_points"),
            recorded_totals=rec.get("totals"), recorded_margin=rec.get("margin"), errors=h.get("errors", []),
            carried_in=_int(h.get("carried_in"), "carried_in", hn),
            penalties=_penalties(h.get("penalties"), hn), claim=_claim(h.get("claim"), hn),
        )
        hands.append(row)
    game = finish_game({k: v for k, v in common.items()} | {
        "target": obj.get("target"), "recorded_final": obj.get("recorded_final"),
        "recorded_winner": obj.get("recorded_winner"), "played_at": parse_time(obj.get("played_at"))}, hands)
    if keyed:
        try:
            key_rows([(game, hands)])
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            pass
    return game, hands


def _v1_auction_and_plays(h: dict, plays: Any, hn: int) -> tuple[list, list | None, list | None]:
    """Version 1: ``auction`` and ``plays`` as ``[seat, call]`` and ``[seat, card]`` pairs."""
    try:
        auction = [{"seat": _int(s, "auction seat", hn, False), "call": str(c)} for s, c in h.get("auction", [])]
    except (TypeError, ValueError):
        raise RecordError("bad_field", "auction must be a list of [seat, call] pairs", hn) from None
    if plays is None:
        return auction, None, None
    try:
        play_seats = [_int(p[0], "play seat", hn, False) for p in plays]
        play_cards = _cards([p[1] for p in plays], "plays", hn)
    except (TypeError, IndexError, KeyError):
        raise RecordError("bad_field", "plays must be a list of [seat, card] pairs", hn) from None
    return auction, play_seats, play_cards


def _v2_auction_and_plays(h: dict, plays: Any, hn: int) -> tuple[list, list | None, list | None]:
    """Version 2: ``auction`` as ``{"seat", "call"}`` objects; ``plays`` a list of cards, ``play_seats`` the seat
    that played each (the same length)."""
    calls = h.get("auction", [])
    if not isinstance(calls, list) or not all(isinstance(a, dict) and set(a) <= {"seat", "call"} for a in calls):
        raise RecordError("bad_field", "auction must be a list of {\"seat\", \"call\"} objects", hn)
    auction = []
    for a in calls:
        if not isinstance(a.get("call"), str):
            raise RecordError("bad_field", f"auction call {a!r} must give its call as text", hn)
        auction.append({"seat": _int(a.get("seat"), "auction seat", hn, False), "call": a["call"]})
    seats = h.get("play_seats")
    if plays is None:
        if seats:
            raise RecordError("bad_field", "play_seats given without plays", hn)
        return auction, None, None
    if not isinstance(seats, list) or not isinstance(plays, list) or len(seats) != len(plays):
        raise RecordError("bad_field", "plays (the cards in order) and play_seats (the seat that played each) must be "
                          "two lists of the same length", hn)
    return auction, [_int(s, "play seat", hn, False) for s in seats], _cards(plays, "plays", hn)


def parse_time(value: Any) -> datetime | None:
    """``played_at``: an ISO 8601 date or time (``2026-03-01``, ``2026-03-01T20:15:00+01:00``); a time without
    an offset is taken as UTC. Returns an aware UTC datetime, None for None. Raises RecordError otherwise."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        t = None
    if t is None:
        raise RecordError("bad_field", f"played_at: {value!r} is not an ISO 8601 date or time")
    try:
        return (t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t).astimezone(timezone.utc)
    except OverflowError:       # 0001-01-01T00:30+01:00 is before year 1 in UTC
        raise RecordError("bad_field", f"played_at: {value!r} is outside the years 1 to 9999 in UTC") from None


def format_time(t: datetime) -> str:
    """The native text of a ``played_at`` value: ISO 8601 in UTC with a Z, to the second (or microsecond)."""
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _penalties(v: Any, hn: int | None) -> list[dict[str, Any]] | None:
    """``penalties``: a list of {seat, kind} (``[]`` reads as null: none recorded). The kind and the seat's range
    are checked with the hand (:func:`pipeline.formats.validate.check_penalties_and_claim`: ``bad_penalty``)."""
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(p, dict) for p in v):
        raise RecordError("bad_field", f"penalties must be a list of {{seat, kind}} objects, got {v!r}", hn)
    out = []
    for p in v:
        if set(p) - {"seat", "kind"}:
            raise RecordError("bad_field", f"penalty {p!r}: only 'seat' and 'kind' are allowed", hn)
        kind = p.get("kind")
        if not isinstance(kind, str):
            raise RecordError("bad_penalty", f"penalty {p!r}: the kind must be a text (misdeal, out_of_turn, ...)", hn)
        out.append({"seat": _int(p.get("seat"), "penalty seat", hn, False), "kind": kind})
    return out or None


def _claim(v: Any, hn: int | None) -> dict[str, Any] | None:
    """``claim``: {seat, trick} (a seat declaring out after ``trick`` tricks), or null; ranges checked with the
    hand (``bad_claim``)."""
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) - {"seat", "trick"}:
        raise RecordError("bad_field", f"claim must be an object {{seat, trick}}, got {v!r}", hn)
    return {"seat": _int(v.get("seat"), "claim seat", hn, False), "trick": _int(v.get("trick"), "claim trick", hn, False)}


_KINDS = {"tierce": 3, "quarte": 4, "quinte": 5, "carre": 4, "belote": 2}


def _announcement(a: Any, hn: int | None) -> dict[str, Any]:
    """One announced declaration: {seat, kind, rank, suit, length} from the native object, which gives either
    the cards (``cards``) or ``rank`` (top card's rank), optional ``suit`` and ``length``."""
    if not isinstance(a, dict) or a.get("kind") not in _KINDS:
        raise RecordError("bad_field", f"announced entries need a kind among {', '.join(_KINDS)}, got {a!r}", hn)
    kind = a["kind"]
    seat = _int(a.get("seat"), "announced seat", hn, False)
    if a.get("cards"):
        cards = _cards(a["cards"], "announced cards", hn)
        suits = {c // 8 for c in cards}
        top = max(cards, key=lambda c: c % 8)
        return {"seat": seat, "kind": kind, "rank": top % 8,
                "suit": suits.pop() if len(suits) == 1 else None, "length": len(cards)}
    rank = a.get("rank")
    if kind != "belote" and rank is None:
        raise RecordError("bad_field", f"announced {kind} needs 'cards' or 'rank'", hn)
    try:
        r = None if rank is None else _RANK_INDEX[str(rank).upper()]
        # one suit letter: str.index would also find "HS" or "" inside "CDHS"
        su = None if a.get("suit") is None else {s: i for i, s in enumerate(SUITS)}[str(a["suit"]).upper()]
    except (KeyError, ValueError):
        raise RecordError("bad_field", f"announced {kind}: bad rank {rank!r} or suit {a.get('suit')!r}", hn) from None
    length = _int(a.get("length"), "announced length", hn)
    return {"seat": seat, "kind": kind, "rank": r, "suit": su, "length": length if length is not None else _KINDS[kind]}


_RANK_INDEX = {r: i for i, r in enumerate(RANKS)} | {"10": 3}


def _strs(mask: int | None) -> list[str] | None:
    return None if mask is None else [card_str(c) for c in cards_of(mask)]


def game_to_json(game: dict[str, Any], hands: list[dict[str, Any]]) -> dict[str, Any]:
    """The native object of a game row and its hand rows (sorted by hand_no by the caller)."""
    out: dict[str, Any] = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "game_id": game["game_id"], "source": game["source"],
        "source_game_id": game["source_game_id"], "variant": game["variant"], "n_players": game["n_players"],
        "players": list(game["players"]), "target": game.get("target"), "ruleset_hint": game.get("ruleset_hint"),
        "recorded_final": game.get("recorded_final"), "recorded_winner": game.get("recorded_winner"),
        **({"played_at": format_time(game["played_at"])} if game.get("played_at") is not None else {}),
        "provenance": {"source_format": game["source_format"], "source_file": game["source_file"]},
        "hands": [],
    }
    for h in hands:
        contract = None
        if h.get("taker") is not None or h.get("taker_team") is not None:
            contract = {"taker": h.get("taker"), "strain": h["strain"], "bid": h.get("bid"),
                        "capot_bid": bool(h.get("capot_bid")), "coinche": h.get("coinche", 0)}
            if h.get("taker") is None:   # a source naming the taker's team only (colver CFN)
                contract["taker_team"] = h["taker_team"]
        plays = None if h.get("plays") is None else [card_str(c) for c in h["plays"]]
        announced = h.get("announced")
        if announced is not None:
            announced = [{"seat": a["seat"], "kind": a["kind"],
                          "rank": None if a["rank"] is None else RANKS[a["rank"]],
                          "suit": None if a["suit"] is None else SUITS[a["suit"]], "length": a["length"]}
                         for a in announced]
        rec = None
        if any(h.get(k) is not None for k in ("recorded_score", "recorded_card_points", "recorded_totals",
                                               "recorded_margin")):
            rec = {"score": h.get("recorded_score"), "card_points": h.get("recorded_card_points"),
                   "totals": h.get("recorded_totals")}
            if h.get("recorded_margin") is not None:
                rec["margin"] = h["recorded_margin"]
        out["hands"].append({
            "hand_no": h["hand_no"], "source_hand_id": h.get("source_hand_id"), "dealer": h["dealer"],
            "completeness": h["completeness"],
            "hands": None if h.get("initial_hands") is None else [_strs(m) for m in h["initial_hands"]],
            "turned_card": None if h.get("turned_card") is None else card_str(h["turned_card"]),
            "auction": [{"seat": a["seat"], "call": a["call"]} for a in (h.get("auction") or [])],
            "contract": contract, "plays": plays,
            "play_seats": None if plays is None else list(h["play_seats"]),
            "tricks_taken": None if h.get("tricks_taken") is None else [_strs(m) for m in h["tricks_taken"]],
            "last_trick_seat": h.get("last_trick_seat"), "announced": announced,
            "belote_seat": h.get("belote_seat"), "recorded": rec, "errors": list(h.get("errors") or []),
            "carried_in": h.get("carried_in"),
            **({"penalties": [{"seat": p["seat"], "kind": p["kind"]} for p in h["penalties"]]}
               if h.get("penalties") else {}),
            **({"claim": {"seat": h["claim"]["seat"], "trick": h["claim"]["trick"]}}
               if h.get("claim") is not None else {}),
            "provenance": {"source_line": h.get("source_line")},
        })
    return out
