"""Reader for colver 0.11.1's ``deals.jsonl`` (../shared/data/real/colver/FORMAT.md §9).

One JSON object per deal, sorted by game then deal; consecutive deals with the same ``game_id`` form a
game. Seats: colver's 0-3 (N E S W) already run in playing order (next seat = +1), so they are kept;
teams [NS, EW] are our teams 0 and 1. Cards are read from the ``rank_suit`` notation (``TS``), the
auction from the action ids of FORMAT.md §3, and colver's own scores (``colver_result.rewards``) are
kept as the recorded score. Players are the bots that decided (``bots[seat].bid`` + ``.play``).
When ``games.jsonl`` lies beside the file, each game is compared with its line there (final totals, winner,
deal count, target, first dealer, players; :mod:`pipeline.formats.colver_games`): a game that disagrees is
rejected with both files' lines named.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.cards import CardError, mask_of, parse_card
from pipeline.formats import colver_games
from pipeline.formats.records import (first_missing, GameRecord, Line, Provenance, RecordError, Reject, finish_game, first_objects,
                                     json_lines, malformed, new_hand)
from pipeline.formats.validate import check_hand

NAME = "colver"
DESCRIPTION = "colver 0.11.1 deals.jsonl (belote contrée engine; one deal per line with auction, plays, scores)"
SOURCE = "colver"
_SUITS = "SHDC"


def sniff(name: str, head: str) -> bool:
    """True when one of the first non-blank lines is a colver deal record."""
    return any(isinstance(o, dict) and o.get("engine") == "colver" and "deal_no" in o for o in first_objects(head))


def _call(action: int, hn: int | None = None) -> str:
    if action == 0:
        return "pass"
    if 1 <= action <= 36:
        return f"{80 + 10 * ((action - 1) // 4)}{_SUITS[(action - 1) % 4]}"
    if 37 <= action <= 40:
        return f"capot{_SUITS[action - 37]}"
    if action == 41:
        return "coinche"
    if action == 42:
        return "surcoinche"
    raise RecordError("bad_auction", f"unknown colver action id {action} in the auction", hn)


def _int(v: Any, what: str, hn: int | None = None) -> int:
    """A whole number from the record, never a truncated float or a parsed string."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError("bad_value", f"{what} must be a whole number, got {v!r}", hn)
    return v


def _hand(d: dict[str, Any], line: int, path: str) -> dict[str, Any]:
    gid = str(d["game_id"])
    hn = _int(d["deal_no"], "deal_no")
    try:
        hands = [mask_of(parse_card(c) for c in seat) for seat in d["hands"]["rank_suit"]]
        plays = [parse_card(p[2]) for p in d.get("plays") or []]
    except CardError as e:
        raise RecordError("unknown_card", str(e), hn) from None
    seats = [_int(p[0], "play seat", hn) for p in d.get("plays") or []]
    c = d.get("contract")
    if c is None and plays:
        raise RecordError("no_contract", f"{len(plays)} cards were played but the deal has no contract", hn)
    if c is not None and not isinstance(c, dict):
        raise RecordError("bad_value", f"contract must be an object, got {c!r}", hn)
    res = d.get("colver_result") or {}
    if not isinstance(res, dict) or not isinstance(d.get("bots"), list) or len(d["bots"]) != 4:
        raise RecordError("bad_value", "colver_result must be an object and bots a list of 4", hn)
    belote = d.get("belote_events") or []
    if c is not None and c.get("trump") not in ("S", "H", "D", "C"):
        raise RecordError("bad_value", f"contract trump {c.get('trump')!r} is not S, H, D or C", hn)
    row = new_hand(
        game_id=f"{SOURCE}:{gid}", hand_no=hn, source=SOURCE, source_format=NAME, source_file=path,
        source_line=line, source_game_id=gid, source_hand_id=f"{gid}#{hn}", variant="coinche",
        ruleset_hint="colver", n_players=4, players=[colver_games.player_name(b) for b in d["bots"]], dealer=_int(d["dealer"], "dealer", hn),
        completeness="full_play", initial_hands=hands,
        auction=[{"seat": _int(a["seat"], "auction seat", hn), "call": _call(_int(a["action"], "action", hn), hn)}
                 for a in d.get("auction", [])],
        taker=None if c is None else _int(c["taker_seat"], "taker_seat", hn),
        strain=None if c is None else str(c["trump"]),
        bid=None if c is None or c.get("capot") else _int(c["value"], "contract value", hn),
        capot_bid=bool(c and c.get("capot")), coinche=0 if c is None else _int(c.get("coinche_level", 0), "coinche_level", hn),
        plays=plays if c is not None else None, play_seats=seats if c is not None else None,
        belote_seat=(_int(belote[0]["seat"], "belote seat", hn) if belote else -1) if c is not None else None,
        recorded_score=res.get("rewards"), recorded_card_points=res.get("card_points"),
        recorded_totals=d.get("game_scores_after"),
    )
    check_hand(row)
    return row


SIDECARS = (colver_games.FILE_NAME,)
"""Files beside a deals.jsonl that its reading depends on (the ingest manifest records their content)."""


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per game (consecutive deals sharing game_id); a bad deal rejects its game."""
    current: str | None = None
    rows: list[dict[str, Any]] = []
    meta: dict[str, Any] = {}
    first: Provenance | None = None
    failed: Reject | None = None
    finished: set[str] = set()
    sidecar, results = colver_games.load(path)

    def flush() -> Iterator[GameRecord | Reject]:
        if current is None:
            return
        if failed is not None:
            yield failed
            return
        numbers = [r["hand_no"] for r in rows]
        expected = meta.get("deals_in_game")
        if numbers != list(range(1, len(rows) + 1)) or (isinstance(expected, int) and expected != len(rows)):
            missing = first_missing(set(numbers), max(numbers + [expected if isinstance(expected, int) else 0]))
            yield Reject(first, "missing_hand", f"game has deals {numbers[0]}..{numbers[-1]} ({len(rows)} deals) but "
                         f"deals_in_game says {expected}; missing or out of order: {missing[:10]}{' ...' if len(missing) > 10 else ''} (the whole game is "
                         "rejected)", "", f"{SOURCE}:{current}", missing[0] if missing else None)
            return
        game = finish_game({
            "game_id": f"{SOURCE}:{current}", "source": SOURCE, "source_format": NAME, "source_file": path,
            "source_game_id": current, "variant": "coinche", "ruleset_hint": "colver", "n_players": 4,
            "players": rows[0]["players"], "target": meta.get("game_target"),
            "recorded_final": meta.get("game_final_scores"),
            "recorded_winner": {"NS": 0, "EW": 1}.get(meta.get("game_winner")),
        }, rows)
        summary = results.get(current)
        diff = summary and colver_games.disagreement(summary, game, rows)
        if diff:
            yield Reject(first, "recorded_mismatch", f"game {current} disagrees with {sidecar}:{summary.line}: {diff} "
                         "(the whole game is rejected)", "", f"{SOURCE}:{current}")
            return
        yield GameRecord(game, rows, first)

    for item in json_lines(lines, NAME, path):
        if isinstance(item, Reject):
            yield item
            continue
        where, line, d = item
        lineno = where.line
        if not isinstance(d, dict) or not isinstance(d.get("game_id"), str):
            # no game to attach it to: its own reject; the game it belonged to then misses a deal and is
            # rejected too by the deal count
            yield Reject(where, "bad_record", "a colver deal must be a JSON object with a game_id", line)
            continue
        gid = d["game_id"]
        if gid != current:
            yield from flush()
            if gid in finished:
                failed_dup = Reject(where, "bad_record", f"deals of game {gid} are not contiguous in the file (the "
                                    "game already ended above); this part is not imported", line, f"{SOURCE}:{gid}")
                current, rows, meta, first, failed = gid, [], {}, where, failed_dup
                continue
            current, rows, meta, first, failed = gid, [], {}, where, None
            finished.add(gid)
        if failed is not None:
            continue
        try:
            rows.append(_hand(d, lineno, path))
            meta = d
        except RecordError as e:
            failed = Reject(where, e.code, f"{e} (the whole game is rejected)", line, f"{SOURCE}:{gid}", e.hand_no)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            code, words = malformed(e, d)
            hn = d.get("deal_no")
            failed = Reject(where, code, f"malformed colver deal: {words} (the whole game is rejected)", line,
                            f"{SOURCE}:{gid}", hn if isinstance(hn, int) else None)
    yield from flush()
