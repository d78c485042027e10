"""Reader for the carg score keeper's Firestore documents (../shared/formats/scoresheets.md §1-§5).

Carg (vareversat/carg) keeps belote, coinche and contrée score sheets in Cloud Firestore and has no export of
its own, so what arrives is a dump of its collections. The reader takes one JSON document per file, either
as ``node-firestore-import-export`` writes it (``{"__collections__": {"<collection>": {"<doc id>": {...}}}}``)
or without that wrapper (``{"<collection>": {"<doc id>": {...}}}``, as ``firestore-export-import``'s
``backup`` returns it). Collections are ``<base>-<env>``: games ``coinche-game``, ``contree-game``,
``belote-game`` pair with the score documents of ``coinche-score``, ``contree-score``, ``belote-score`` of
the same env (score.game = game id); ``team`` and ``player`` give names; anything else (tarot, users) is
ignored.

Carg records rounds per side (US / THEM), never per player: the taker, belote and last trick are sides, and
the dealer is only the app's prompt (``player_list[round % 4]``). So a game is seated at team level: seats
0 and 2 carry the US label, seats 1 and 3 the THEM label (label = the team's players' names joined with
``+``, else the team's name, else its id), the taker / belote / last-trick seat is 0 for US and 1 for THEM,
and the dealer seat alternates the sides as the prompt does (inferred). Every hand is at completeness
``summary``; the recorded ``taker_score``/``defender_score`` are kept as the hand's score (team 0 = US).
The app's own computation (§5) is redone only to flag corrupt rounds in the hand's ``errors``; it never
changes a recorded number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import orjson

from pipeline.formats.records import (GameRecord, Line, Provenance, RecordError, Reject, bad_encoding, finish_game,
                                     json_shape_reject, malformed, new_hand, parser_too_deep_reject)
from pipeline.formats.validate import check_hand

NAME = "carg-json"
DESCRIPTION = "carg score keeper Firestore dump (coinche/contrée/belote games and rounds per side; no cards)"

_GAME_COLL = re.compile(r"^(coinche|contree|belote)-(game|score)(?:-([A-Za-z0-9_]+))?$")
_PEOPLE_COLL = re.compile(r"^(team|player)(?:-([A-Za-z0-9_]+))?$")
_SNIFF = re.compile(r'"(?:coinche|contree|belote)-(?:game|score)(?:-[A-Za-z0-9_]+)?"\s*:\s*\{')
_VARIANT = {"coinche": "coinche", "contree": "coinche", "belote": "belote"}
_SIDE = {"US": 0, "THEM": 1}
# HEAD names; the French ones are what older app versions serialised (CardColor { COEUR, CARREAU, TREFLE, PIC })
_STRAIN = {"HEART": "H", "DIAMOND": "D", "CLUB": "C", "SPADE": "S", "ALL_TRUMP": "AT", "NO_TRUMP": "NT",
           "COEUR": "H", "CARREAU": "D", "TREFLE": "C", "PIC": "S"}
_LEVEL = {"NORMAL": 0, "COINCHE": 1, "CONTRE": 1, "SURCOINCHE": 2, "SURCONTRE": 2}
_KINDS = ("NORMAL", "CAPOT", "GENERALE", "FAILED_GENERALE")
_SPECIAL = ("misere", "fausseDonne", "foulPlay")
_INDEX_KEY = re.compile(r'"index"\s*:')


def sniff(name: str, head: str) -> bool:
    """True when the head names a carg game or score collection as a JSON key."""
    return bool(_SNIFF.search(head))


def _r10(x: int) -> int:
    """Dart's round(x / 10) * 10: nearest multiple of 10, halves away from zero."""
    s = -1 if x < 0 else 1
    return s * ((abs(x) + 5) // 10 * 10)


def _int(v: Any, what: str, hn: int | None) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError("bad_value", f"{what} must be a whole number, got {v!r}", hn)
    return v


def _side(v: Any, what: str, hn: int | None) -> int:
    if not isinstance(v, str) or v not in _SIDE:
        raise RecordError("bad_value", f"{what} must be US or THEM, got {v!r}", hn)
    return _SIDE[v]


def expected_scores(r: dict[str, Any], variant: str, sum_mode: bool) -> tuple[int, int, bool]:
    """(taker score, defender score, made) as the app computes a round (scoresheets.md §5)."""
    T, D = r["taker"], r["defender"]
    tp = {"US": r["us_trick_score"], "THEM": r["them_trick_score"]}

    def ddd(x: str) -> int:
        return 10 if r["dix_de_der"] == x else 0

    def bel(x: str) -> int:
        return 20 if r.get("belote_rebelote") == x else 0

    def total(x: str) -> int:
        return tp[x] + ddd(x) + bel(x)
    if variant == "belote":
        if total(T) > total(D):
            return _r10(bel(T) + ddd(T) + tp[T]), _r10(bel(D) + ddd(D) + tp[D]), True
        return _r10(bel(T)), _r10(bel(D) + 162), False
    kind = r.get("contract_type") or "NORMAL"
    contract = r["contract"]
    m = {0: 1, 1: 2, 2: 4}[_LEVEL[r.get("contract_name") or "NORMAL"]]

    def k(x: int) -> int:
        return {"NORMAL": x, "CAPOT": 250}.get(kind, 500)
    made = kind != "FAILED_GENERALE" and total(T) >= contract and total(T) > total(D)
    if made:
        x = bel(T) + contract + (tp[T] + ddd(T) if sum_mode else 0)
        return _r10(k(x) * m), _r10(bel(D) + tp[D] + ddd(D) if sum_mode else bel(D)), True
    d = (bel(D) + 162 + k(contract) + tp[D]) * m if sum_mode else (bel(D) + contract) * m
    return _r10(bel(T)), _r10(d), False


def manual_made(r: dict[str, Any], variant: str) -> bool:
    """Made or failed as the app decides a manual-mode round (scoresheets.md §5): from the typed taker score
    alone, taker_score > 81 in classic belote, taker_score >= contract in coinche/contrée (never for a
    FAILED_GENERALE, as in the computed rule)."""
    if variant == "belote":
        return r["taker_score"] > 81
    return (r.get("contract_type") or "NORMAL") != "FAILED_GENERALE" and r["taker_score"] >= r["contract"]


def played_at(game: dict[str, Any]) -> datetime | None:
    """``games.played_at`` from the game document's ``starting_date`` (``yyyy-MM-ddTHH:mm:ss``, the phone's local
    time with no zone): taken as UTC as written, as the native format reads a time without an offset. None when
    the field is absent or null. Raises RecordError(bad_value) when it is not such a date-time."""
    v = game.get("starting_date")
    if v is None:
        return None
    try:
        t = datetime.fromisoformat(v) if isinstance(v, str) else None
    except ValueError:
        t = None
    if t is None:
        raise RecordError("bad_value", f"starting_date {v!r} is not a date-time (yyyy-MM-ddTHH:mm:ss)")
    return (t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t).astimezone(timezone.utc)


def _hand(r: Any, i: int, variant: str, sum_mode: bool) -> dict[str, Any]:
    """The hand columns a round gives (no ids, seats or totals yet). Raises RecordError."""
    hn = i + 1
    if not isinstance(r, dict):
        raise RecordError("bad_record", f"round {i} must be an object, got {r!r}", hn)
    idx = _int(r.get("index"), "index", hn)
    if idx != i:
        raise RecordError("missing_hand", f"round at position {i} has index {idx}: rounds must be indexed "
                                          "0, 1, 2... in order", hn)
    special = r.get("belote_special_round") or None
    if special is not None and (not isinstance(special, str) or special not in _SPECIAL):
        raise RecordError("bad_value", f"belote_special_round {special!r} is not one of {', '.join(_SPECIAL)}", hn)
    ts, ds = _int(r.get("taker_score"), "taker_score", hn), _int(r.get("defender_score"), "defender_score", hn)
    if special is not None:      # a hand not played (misère, misdeal, foul play): only its score counts; the
        # other fields are form defaults (taker US unless the form was touched)
        taker = _SIDE.get(r.get("taker"), 0) if isinstance(r.get("taker"), str) else 0
        return {"recorded_score": [ts, ds] if taker == 0 else [ds, ts], "errors": [], "source_hand_id": None,
                "taker": None, "strain": None, "bid": None, "capot_bid": False, "coinche": 0}
    taker = _side(r.get("taker"), "taker", hn)
    if "defender" in r and _side(r.get("defender"), "defender", hn) == taker:
        raise RecordError("bad_value", f"taker and defender are both {r['taker']}", hn)
    out: dict[str, Any] = {"recorded_score": [ts, ds] if taker == 0 else [ds, ts], "errors": [],
                           "source_hand_id": None}
    color = r.get("card_color")
    if not isinstance(color, str) or color not in _STRAIN:
        raise RecordError("bad_value", f"card_color {color!r} is not one of {', '.join(list(_STRAIN)[:6])}", hn)
    strain = _STRAIN[color]
    bid, capot, level = None, False, 0
    kind = "NORMAL"
    if variant != "belote":
        kind = r.get("contract_type") or "NORMAL"
        if not isinstance(kind, str) or kind not in _KINDS:
            raise RecordError("bad_value", f"contract_type {kind!r} is not one of {', '.join(_KINDS)}", hn)
        name = r.get("contract_name") or "NORMAL"
        if not isinstance(name, str) or name not in _LEVEL:
            raise RecordError("bad_value", f"contract_name {name!r} is not one of {', '.join(_LEVEL)}", hn)
        level = _LEVEL[name]
        contract = _int(r.get("contract"), "contract", hn)
        if kind == "NORMAL":
            bid = contract
        else:
            capot = True
    manual = r.get("is_manual_mode") is True
    out.update(taker=taker, strain=strain, bid=bid, capot_bid=capot, coinche=level)
    if manual:       # the users typed the scores: trick points, last trick and belote are form defaults
        made = manual_made({**r, "taker_score": ts, "contract_type": kind}, variant)
        if isinstance(r.get("contract_fulfilled"), bool) and r["contract_fulfilled"] != made:
            rule = "taker score > 81" if variant == "belote" else f"taker score >= contract {r.get('contract')}"
            out["errors"] = [f"contract_fulfilled is {str(r['contract_fulfilled']).lower()} but carg's own rule for "
                             f"a manual round ({rule}; taker score {ts}) says {'made' if made else 'failed'}"]
        return out
    tricks = [_int(r.get("us_trick_score"), "us_trick_score", hn), _int(r.get("them_trick_score"), "them_trick_score", hn)]
    last = _side(r.get("dix_de_der"), "dix_de_der", hn)
    if "belote_rebelote" in r:
        b = r.get("belote_rebelote")
        out["belote_seat"] = -1 if b in (None, "") else _side(b, "belote_rebelote", hn)
    out["last_trick_seat"] = last
    if strain not in ("AT", "NT"):   # AT/NT points are entered on the same 152 slider: scale unknown
        out["recorded_card_points"] = [tricks[0] + (10 if last == 0 else 0), tricks[1] + (10 if last == 1 else 0)]
    notes = []
    if sum(tricks) != 152:
        notes.append(f"trick points {tricks[0]} + {tricks[1]} do not sum to 152")
    et, ed, made = expected_scores({**r, "contract_type": kind}, variant, sum_mode)
    if (et, ed) != (ts, ds):
        notes.append(f"recorded taker/defender score {ts}/{ds} differs from carg's own rule ({et}/{ed}); "
                     "the recorded score is kept")
    if isinstance(r.get("contract_fulfilled"), bool) and r["contract_fulfilled"] != made:
        notes.append(f"contract_fulfilled is {str(r['contract_fulfilled']).lower()} but carg's own rule says "
                     f"{'made' if made else 'failed'}")
    out["errors"] = notes
    return out


class _Text:
    """The file's text with line lookups for provenance (the first match of a document key)."""

    def __init__(self, text: str, offsets: dict[int, int]):
        self.text = text
        self.offsets = offsets
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, pos: int) -> int:
        import bisect
        return bisect.bisect_right(self.starts, pos)

    def key(self, doc_id: str, start: int = 0) -> int:
        """Character position of ``"doc_id": {`` (0 when not found)."""
        m = re.compile(re.escape(orjson.dumps(doc_id).decode()) + r"\s*:\s*\{").search(self.text, start)
        return m.start() if m else 0

    def next_round(self, start: int) -> int:
        """Position of the next ``"index":`` key from ``start`` (a round's first key as carg writes it)."""
        m = _INDEX_KEY.search(self.text, start)
        return m.start() if m else start

    def where(self, pos: int) -> Provenance:
        line = self.line_of(pos)
        return Provenance(NAME, "", line, self.offsets.get(line))


def _docs(coll: Any) -> dict[str, dict]:
    if not isinstance(coll, dict):
        return {}
    return {str(k): {kk: vv for kk, vv in v.items() if kk != "__collections__"}
            for k, v in coll.items() if isinstance(v, dict)}


def _labels(players: dict[str, Any], teams: dict[str, dict], people: dict[str, dict]) -> tuple[list[str], int]:
    """(side labels [US, THEM], first-dealer offset): 0 when player_list[0] is on US or unknown, else 1."""
    plist = players.get("player_list")
    order = [p for p in plist if isinstance(p, str)] if isinstance(plist, list) else []

    def name(pid: str) -> str:
        u = (people.get(pid) or {}).get("user_name")
        return u.strip() if isinstance(u, str) and u.strip() else pid

    labels, members = [], []
    for key in ("us", "them"):
        tid = players.get(key)
        if not isinstance(tid, str) or not tid.strip():
            raise RecordError("no_players", f"game has no {key} team id")
        team = teams.get(tid) or {}
        listed = team.get("players")
        mem = [p for p in listed if isinstance(p, str) and p.strip()] if isinstance(listed, list) else []
        mem.sort(key=lambda p: order.index(p) if p in order else len(order))
        members.append(mem)
        if mem:
            labels.append("+".join(name(p) for p in mem))
        elif isinstance(team.get("name"), str) and team["name"].strip():
            labels.append(team["name"].strip())
        else:
            labels.append(tid)
    if labels[0] == labels[1]:
        raise RecordError("bad_value", f"both sides are labelled {labels[0]!r}")
    first = order[0] if order else None
    return labels, 1 if first is not None and first in members[1] else 0


def _game(base: str, gid: str, game: dict, score: dict, teams: dict, people: dict, path: str,
          text: _Text, spos: int) -> GameRecord:
    variant = _VARIANT[base]
    source = f"carg-{base}"
    players = game.get("players")
    if not isinstance(players, dict):
        raise RecordError("no_players", "game document has no players object")
    labels, r0 = _labels(players, teams, people)
    settings = game.get("settings") if isinstance(game.get("settings"), dict) else {}
    sum_mode = settings.get("sum_trick_points_and_contract", True) is not False
    target = None if settings.get("is_infinite") is True else settings.get("max_point")
    if target is not None:
        target = _int(target, "settings.max_point", None)
    rounds = score.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError("bad_record", "score document has no rounds list")
    if not rounds:
        raise RecordError("no_hands", "the game has no rounds (nothing to import)")
    hands, totals = [], [0, 0]
    pos = spos
    for i, r in enumerate(rounds):
        pos = text.next_round(pos + (1 if i else 0))
        try:
            h = _hand(r, i, variant, sum_mode)
        except RecordError as e:
            e.line = text.line_of(pos)  # type: ignore[attr-defined]
            raise
        totals = [totals[0] + h["recorded_score"][0], totals[1] + h["recorded_score"][1]]
        h.update(source_hand_id=f"{gid}#{i}")
        row = new_hand(
            game_id=f"{source}:{gid}", hand_no=i + 1, source=source, source_format=NAME, source_file=path,
            source_line=text.line_of(pos), source_game_id=gid, variant=variant, ruleset_hint=None, n_players=4,
            players=[labels[0], labels[1], labels[0], labels[1]], dealer=(i + r0) % 4, completeness="summary",
            recorded_totals=list(totals), **h)
        check_hand(row)
        hands.append(row)
    us_t, them_t = score.get("us_total_points"), score.get("them_total_points")
    if us_t is not None or them_t is not None:
        stored = [_int(us_t, "us_total_points", None), _int(them_t, "them_total_points", None)]
        if stored != totals:
            raise RecordError("totals_mismatch", f"score document totals {stored[0]}-{stored[1]} (US-THEM) differ "
                                                 f"from the sum of its rounds {totals[0]}-{totals[1]}")
    started = played_at(game)
    ended = game.get("is_ended") is True
    winners = game.get("winners")
    g = finish_game({
        "game_id": f"{source}:{gid}", "source": source, "source_format": NAME, "source_file": path,
        "source_game_id": gid, "variant": variant, "ruleset_hint": None, "n_players": 4,
        "players": [labels[0], labels[1], labels[0], labels[1]], "target": target,
        "recorded_final": list(totals) if ended else None,
        "recorded_winner": ({players.get("us"): 0, players.get("them"): 1}.get(winners)
                            if ended and isinstance(winners, str) else None),
        "played_at": started,
    }, hands)
    return GameRecord(g, hands, Provenance(NAME, path, text.line_of(spos), text.offsets.get(text.line_of(spos))))


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per carg game with its score document; a Reject per game that cannot be read."""
    parts: list[str] = []
    offsets: dict[int, int] = {}
    for lineno, offset, line in lines:
        if line is None:
            rej = bad_encoding(Provenance(NAME, path, lineno, offset))
            rej.reason += "; the dump is one JSON document, so nothing in the file is imported"
            yield rej
            return
        offsets[lineno] = offset
        parts.append(line)
    text = _Text("".join(parts), offsets)
    try:
        doc = orjson.loads(text.text)
    except orjson.JSONDecodeError as e:
        line = getattr(e, "lineno", None)
        where = Provenance(NAME, path, line, offsets.get(line) if line else None)
        yield parser_too_deep_reject(where, e, text.text[:1024]) or Reject(where, "invalid_json", f"invalid JSON: {e}",
                                                                           text.text[:1024])
        return
    bad = json_shape_reject(Provenance(NAME, path, 1, 0), text.text, doc)
    if bad is not None:          # a key twice (the dump is one document: nothing in it is imported)
        bad.raw = text.text[:1024]
        yield bad
        return
    root = doc.get("__collections__") if isinstance(doc, dict) and isinstance(doc.get("__collections__"), dict) else doc
    if not isinstance(root, dict):
        yield Reject(Provenance(NAME, path, 1, 0), "bad_record", "a carg dump must be a JSON object of collections",
                     text.text[:1024])
        return
    games: dict[tuple[str, str], dict[str, dict]] = {}
    scores: dict[tuple[str, str], dict[str, dict]] = {}
    teams: dict[str, dict] = {}
    people: dict[str, dict] = {}
    keys: list[tuple[str, str]] = []     # (base, env) in order of first appearance
    for cname, coll in root.items():
        m = _GAME_COLL.match(str(cname))
        if m:
            key = (m.group(1), m.group(3) or "")
            if key not in keys:
                keys.append(key)
            (games if m.group(2) == "game" else scores).setdefault(key, {}).update(_docs(coll))
            continue
        m = _PEOPLE_COLL.match(str(cname))
        if m:
            (teams if m.group(1) == "team" else people).update(_docs(coll))

    def where(pos: int) -> Provenance:
        p = text.where(pos)
        p.source_file = path
        return p

    for key in keys:
        base, env = key
        by_game: dict[str, list[tuple[str, dict]]] = {}
        for sid, s in scores.get(key, {}).items():
            # a score naming no game (field missing or not text) names no game id in its reject either
            by_game.setdefault(s.get("game") if isinstance(s.get("game"), str) else None, []).append((sid, s))
        source = f"carg-{base}"
        for gid, game in games.get(key, {}).items():
            gpos = text.key(gid)
            found = by_game.pop(gid, [])
            if len(found) != 1:
                reason = (f"no {base}-score document has game {gid!r}" if not found else
                          f"{len(found)} score documents have game {gid!r} ({', '.join(s for s, _ in found)})")
                yield Reject(where(gpos), "no_score" if not found else "bad_record", reason, "", f"{source}:{gid}")
                continue
            sid, score = found[0]
            spos = text.key(sid)
            try:
                yield _game(base, gid, game, score, teams, people, path, text, spos)
            except RecordError as e:
                line = getattr(e, "line", None)
                p = where(spos) if line is None else Provenance(NAME, path, line, offsets.get(line))
                raw = orjson.dumps(rounds[e.hand_no - 1] if e.hand_no and isinstance(rounds := score.get("rounds"),
                                   list) and len(rounds) >= e.hand_no else score).decode()
                yield Reject(p, e.code, f"{e} (the whole game is rejected)", raw, f"{source}:{gid}", e.hand_no)
            except (TypeError, ValueError, AttributeError, KeyError, IndexError) as e:
                code, words = malformed(e, {"game": game, "score": score})
                yield Reject(where(spos), code, f"malformed carg game: {words} (the whole game is rejected)", "",
                             f"{source}:{gid}")
        for gid, found in by_game.items():
            for sid, _ in found:
                if gid is None:
                    yield Reject(where(text.key(sid)), "missing_field", f"score document {sid} has no 'game' text "
                                 "field naming its game", "")
                    continue
                yield Reject(where(text.key(sid)), "no_game", f"score document {sid} refers to game {gid!r}, which is "
                             f"not in the {base}-game collection of the dump", "", f"{source}:{gid}")
