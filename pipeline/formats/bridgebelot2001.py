"""Reader for the Bridge Belot v2.06 (2001) scoring vectors (``golden_score.json``, ../shared/oracles/README.md):
one JSON document whose ``scoring`` list holds independent rounds at "tricks taken" level.

Each round becomes a game of one hand: completeness ``tricks_taken`` (the cards each seat won, the seat that
won the last trick, no play order), the contract (Clubs..AllTrumps, declarer, level 1/2/4 = coinche 0/1/2),
the declarations as announced (seven slots per seat: carré, carré, tierce, tierce, quarte, quarte, quinte,
each the top rank or 0), the points hanging in from earlier ties (``carried_in``) and the program's board as
the recorded running totals. Encodings: seats 1-4 are our seats 0-3 (1+3 and 2+4 partners); suits 0 C, 1 D,
2 S, 3 H; ranks 7..14 (11 J, 12 Q, 13 K, 14 A).
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson

from pipeline.formats.records import (GameRecord, Line, Provenance, RecordError, Reject, bad_encoding, finish_game,
                                     json_shape_reject, malformed, parser_too_deep_reject, new_hand)
from pipeline.formats.validate import check_hand

NAME = "bridgebelot2001"
DESCRIPTION = "Bridge Belot v2.06 (2001) golden_score.json scoring vectors (tricks-taken rounds, one game each)"
SOURCE = "bridgebelot2001"
_SUIT = {0: 0, 1: 1, 2: 3, 3: 2}          # file suit code -> our suit (C D H S)
_STRAIN = {"Clubs": "C", "Diamonds": "D", "Hearts": "H", "Spades": "S", "NoTrumps": "NT", "AllTrumps": "AT"}
_SLOTS = ["carre", "carre", "tierce", "tierce", "quarte", "quarte", "quinte"]
_LEVEL = {1: 0, 2: 1, 4: 2}


def sniff(name: str, head: str) -> bool:
    h = head.lstrip()
    return h.startswith("{") and '"scoring"' in h[:200] and '"lastTrick"' in h and '"taken"' in h


def _card(c) -> int:
    suit, rank = c
    if suit not in _SUIT or not isinstance(rank, int) or not 7 <= rank <= 14:
        raise RecordError("unknown_card", f"card {c!r} is not [suit 0-3, rank 7-14]")
    return _SUIT[suit] * 8 + rank - 7


def _round(i: int, r: dict, path: str) -> tuple[dict, list[dict]]:
    gid = f"round-{i:04d}"
    if r.get("contract") not in _STRAIN or r.get("level") not in _LEVEL:
        raise RecordError("bad_value", f"contract {r.get('contract')!r} / level {r.get('level')!r} not understood", 1)
    taken = [0, 0, 0, 0]
    for seat, cards in r["taken"].items():
        for c in cards:
            taken[int(seat) - 1] |= 1 << _card(c)
    announced = []
    for seat, slots in r["decl"].items():
        for kind, top in zip(_SLOTS, slots):
            if top:
                announced.append({"seat": int(seat) - 1, "kind": kind, "rank": top - 7, "suit": None,
                                  "length": {"tierce": 3, "quarte": 4, "quinte": 5, "carre": 4}[kind]})
    common = {"game_id": f"{SOURCE}:{gid}", "source": SOURCE, "source_format": NAME, "source_file": path,
              "source_game_id": gid, "variant": "bulgarian", "ruleset_hint": "bulgarian-2001", "n_players": 4,
              "players": ["S", "E", "N", "W"]}
    hand = new_hand(**common, hand_no=1, source_hand_id=str(i), dealer=0, completeness="tricks_taken",
                    taker=r["declarer"] - 1, strain=_STRAIN[r["contract"]], coinche=_LEVEL[r["level"]],
                    tricks_taken=taken, last_trick_seat=r["lastTrick"] - 1, announced=announced,
                    carried_in=r["hanging"] or None, recorded_totals=list(r["board"]))
    check_hand(hand)
    game = finish_game(common | {"target": None, "recorded_final": list(r["board"])}, [hand])
    return game, [hand]


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    text = []
    for lineno, offset, line in lines:
        if line is None:
            yield bad_encoding(Provenance(NAME, path, lineno, offset))
            return
        text.append(line)
    where = Provenance(NAME, path, 1, 0)
    try:
        doc = orjson.loads("".join(text))
    except orjson.JSONDecodeError as e:
        yield parser_too_deep_reject(where, e, "".join(text)) or Reject(where, "invalid_json", f"not a golden_score.json document: invalid JSON: {e}", "".join(text)[:1024])
        return
    bad = json_shape_reject(where, "".join(text), doc)
    if bad is not None:
        yield bad
        return
    rounds = doc.get("scoring") if isinstance(doc, dict) else None
    if not isinstance(rounds, list):
        yield Reject(where, "missing_field", "not a golden_score.json document: it must be an object whose 'scoring' "
                     "field lists the rounds", "".join(text)[:1024])
        return
    for i, r in enumerate(rounds):
        rw = Provenance(NAME, path, None, None)
        try:
            game, hands = _round(i, r, path)
        except RecordError as e:
            yield Reject(rw, e.code, f"round {i}: {e}", orjson.dumps(r).decode(), f"{SOURCE}:round-{i:04d}", e.hand_no)
            continue
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            code, words = malformed(e, r)
            yield Reject(rw, code, f"round {i}: malformed: {words}", orjson.dumps(r).decode(),
                         f"{SOURCE}:round-{i:04d}")
            continue
        yield GameRecord(game, hands, rw)
