"""Reader for Board Game Arena (BGA) coinche replay logs (../shared/formats/bga.md; §n below are its sections).

**Files.** A file holds one table's log as one JSON document (one line, or spread over many lines), or several
tables as JSON Lines (one document per line). Both envelopes of bga.md §2.1 are read, and the game keeps which
one it came from only in the reader's view (the rows are the same, see below):

* ``{"status": 1, "data": {"logs": [packet, ...], "players": ...}}`` (archive ``logs.html``);
* ``{"data": {"valid": 1, "data": [packet, ...]}}`` (replay page ``g_gamelogs`` / in-game history).

BGA's error answer ``{"status": "0", "error": "..."}`` is rejected (``bga_error``) with its text. The table
options (§7) are not in the log: they are read, when the file carries them, from the table's ``tableinfos.html``
answer saved beside the log under a top-level ``"tableinfos"`` key (or from an ``"options"`` object at the top or
in ``data``), in tableinfos' shape ``{"<id>": {"value": ...}}`` or as plain ``{"<id>": value}``.

**Notifications** (§4) are taken in file order from every packet; public ones (``/table/t<id>``) carry the game,
private ones (``/player/p<id>``) add the ``newHand`` deals when present (§2.3, §6). Unknown types (framework
notifications, §4.9) are ignored; a notification repeated with the same ``uid`` on the same channel is read once.
Numbers given as strings are read with ``int()`` (§2.3).

**Hands** (§6): a hand opens at the reset ``updateBid`` (empty log, bid 0) and closes at ``scoreTable`` (played) or
``allPassNoBid`` (thrown in: kept, with no contract, no plays and no recorded score; its deal only from private
``newHand`` packets when all four are in the file). ``hand_no`` counts both kinds from 1.

**Seats** (§5): the seat cycle is not in the log; it is recovered from who follows whom in the tricks and in the
auctions (a majority over the whole table, so one bad trick cannot hide), and every trick and auction is then
checked against it. Seat 0 is the conventional dealer of the first hand (the player before the first speaker);
the dealer of every hand is the player before its first speaker. Teams are seat % 2 (partners face each other,
§5). Players are named by ``player_name`` (else the envelope's ``players``, else the id).

**Contract** from ``endBidding``; strains §3.1 (1 S, 2 H, 3 C, 4 D, 5 AT, 6 NT); a bid of 82 (BGA's lowest,
scored as 80, §3.4 and §8.5 step 7) is recorded as 80, a bid of 250 as a capot bid (``capot_bid``, no ``bid``).
The auction's calls use the same values (``80H``, ``capotS``); a double is ``coinche``, a redouble
``surcoinche``, and "X does not redouble" (§4.5) a ``pass``. **Belote** (§4.7) counts only when said: the seat of
the ``sayBelote`` "Belote" is ``belote_seat`` (-1 when nobody said it) and the only entry of ``announced``.

**Recorded scores** (§4.8): ``recorded_score`` per team from the four ``message.points``; ``recorded_totals``
from ``newScores``; ``recorded_card_points`` from ``lastScoreSummary`` minus the 20 of a said belote (card
points with the dix de der, a capot counted 250, after the no-trump / all-trump rescaling).

**Ruleset hint** (§7): option 101 = 1 (points + bid) -> ``bga-coinche``; option 101 = 2 (bid only) -> none (no
shipped ruleset scores it). Without options the score type is read off the recorded scores (a made, undoubled
contract gives the defence its own total under points + bid, its belote only under bid only) and defaults to
points + bid. ``games.target`` is option 100 (2000 / 1000); without it, 1000 when the game ended on the first hand
that took a total over 1000, 2000 when it ended over 2000 otherwise, else unknown. Options 102 (seating) and 103
(no-trump / all-trump allowed) change no score.

**Rejects** (one per game, naming the file, the line of the offending notification, the game and the hand):
``truncated_log`` (the JSON stops before its end, or the log stops inside a hand with no end of game),
``unknown_card``, ``card_played_twice``, ``seat_out_of_turn`` (auction or play), ``truncated_play`` (a played
hand with fewer than 32 cards), ``trick_winner_mismatch``, ``unfinished_hand``, ``no_contract``,
``deal_mismatch`` (a private deal that disagrees with the cards played), ``bad_seats``, ``bad_value``,
``bad_record``, ``invalid_json``, ``bga_error``, and those of :func:`~pipeline.formats.validate.check_hand`.
A table that ended during a hand (concession, §6) keeps that hand at ``summary`` completeness with a note in
``errors``; it is not scored.
"""

from __future__ import annotations

from datetime import datetime, timezone

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from pipeline.formats.bga_hand import NAME, SOURCE, _Bad, _Hand, _N, _card, _first_player, _hand_row, _int
from pipeline.formats.records import GameRecord, Line, Provenance, RecordError, Reject, bad_encoding, finish_game, \
    json_shape_reject, malformed, parser_too_deep_reject
from pipeline.formats.validate import check_hand

DESCRIPTION = ("Board Game Arena coinche replay log (logs.html data.logs or replay data.data JSON, "
               "one table per file or per line)")
HINT = "bga-coinche"

TARGETS = {1: 2000, 2: 1000}                         # option 100
RAW_TAIL = 512                                       # characters of a truncated file kept in its reject
_TABLE_RE = re.compile(r"/table/t(\d+)")
_HAND_END_RE = re.compile(r'"type"\s*:\s*"(?:scoreTable|allPassNoBid)"')


def sniff(name: str, head: str) -> bool:
    """A BGA packet stream (``/table/t`` channels with ``packet_id``) of the coinche game (its auction types)."""
    return ('"/table/t' in head and '"packet_id"' in head
            and ('"updateBidPass"' in head or '"endBidding"' in head or '"allPassNoBid"' in head))


# ------------------------------------------------------------------------------------------------ helpers


# ------------------------------------------------------------------------------------------------ read

def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield one GameRecord per table, or one Reject for a table (or a line) that cannot be imported."""
    buf: list[tuple[int, int, str]] = []
    bad_lines: list[Reject] = []
    for lineno, offset, text in lines:
        if text is None:
            bad_lines.append(bad_encoding(Provenance(NAME, path, lineno, offset)))
            buf.append((lineno, offset, ""))
            continue
        buf.append((lineno, offset, text))
    first = next((b for b in buf if b[2].strip()), None)
    if first is None:
        yield from bad_lines
        return
    try:
        single = orjson.loads(first[2])
    except orjson.JSONDecodeError:
        single = None
    if isinstance(single, dict):
        # JSON Lines: one table per line
        bad_at = {r.where.line: r for r in bad_lines}
        for lineno, offset, text in buf:
            where = Provenance(NAME, path, lineno, offset)
            if lineno in bad_at:
                yield bad_at[lineno]
                continue
            if not text.strip():
                continue
            yield from _document(text, where, path)
        return
    if bad_lines:
        yield bad_lines[0]
        return
    where = Provenance(NAME, path, first[0], first[1])
    yield from _document("".join(b[2] for b in buf if b[0] >= first[0]), where, path)


def _document(text: str, where: Provenance, path: str) -> Iterator[GameRecord | Reject]:
    """One table's JSON text starting at ``where``."""
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        m = _TABLE_RE.search(text)
        gid = f"{SOURCE}:{m.group(1)}" if m else None
        deep = parser_too_deep_reject(where, e, text, gid)
        if deep is not None:
            yield deep
            return
        try:                      # a line's own newline hides the end of data: ask again without it
            orjson.loads(text.rstrip())
            cut = False
        except orjson.JSONDecodeError as e2:
            cut = "unexpected end of data" in str(e2)
        if cut:
            hand = len(_HAND_END_RE.findall(text)) + 1
            yield Reject(where, "truncated_log", f"the JSON stops before its end (at character {e.pos}): the file "
                         f"is truncated; the table is not imported (it stops in hand {hand} or later)",
                         text[-RAW_TAIL:], gid, hand)
        else:
            yield Reject(where, "invalid_json", f"invalid JSON: {e}", text, gid)
        return
    m = _TABLE_RE.search(text)
    bad = json_shape_reject(where, text, doc, f"{SOURCE}:{m.group(1)}" if m else None)
    if bad is not None:
        yield bad
        return
    try:
        yield _table(doc, text, where, path)
    except _Bad as e:
        line = where.line
        raw = ""
        if e.at is not None:
            line = _locate(text, e.at, where.line)
            raw = orjson.dumps(e.at.raw).decode()
        m = _TABLE_RE.search(text)
        gid = getattr(e, "game_id", None) or (f"{SOURCE}:{m.group(1)}" if m else None)
        yield Reject(Provenance(NAME, path, line, where.offset), e.code, f"{e} (the whole table is rejected)",
                     raw, gid, e.hand_no)
    except RecordError as e:
        yield Reject(where, e.code, f"{e} (the whole table is rejected)", "", getattr(e, "game_id", None), e.hand_no)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        m = _TABLE_RE.search(text)
        code, words = malformed(e, doc)
        yield Reject(where, code, f"malformed BGA log: {words} (the whole table is rejected)",
                     text[:RAW_TAIL], f"{SOURCE}:{m.group(1)}" if m else None)


def _locate(text: str, n: _N, start_line: int | None) -> int | None:
    """The line of a notification inside a multi-line document (by its uid), else the document's line."""
    if start_line is None or not n.uid or "\n" not in text:
        return start_line
    pos = text.find(f'"{n.uid}"')
    return start_line if pos < 0 else start_line + text.count("\n", 0, pos)


def _options(doc: dict, data: dict) -> dict[int, int] | None:
    """Table options {id: value} from a saved tableinfos answer or an options object, None when absent."""
    cands = []
    ti = doc.get("tableinfos")
    if isinstance(ti, dict):
        inner = ti.get("data")
        cands += [ti.get("options"), inner.get("options") if isinstance(inner, dict) else None]
    cands += [doc.get("options"), data.get("options")]
    for opts in cands:
        if isinstance(opts, dict) and opts:
            out = {}
            for k, v in opts.items():
                val = v.get("value") if isinstance(v, dict) else v
                try:
                    out[int(k)] = _int(val, f"option {k}")
                except (ValueError, RecordError):
                    continue
            return out
    return None


def _notifications(packets: list) -> tuple[list[_N], str | None]:
    out: list[_N] = []
    seen: set[tuple[Any, str]] = set()
    table_id = None
    for i, p in enumerate(packets):
        if not isinstance(p, dict) or not isinstance(p.get("data"), list):
            raise _Bad("bad_record", f"packet {i + 1} is not an object with a 'data' list (bga.md §2.2)")
        channel = str(p.get("channel") or "")
        if table_id is None:
            if p.get("table_id") not in (None, ""):
                table_id = str(p["table_id"])
            else:
                m = _TABLE_RE.match(channel)
                table_id = m.group(1) if m else None
        private = None
        if channel.startswith("/player/p"):
            try:
                private = int(channel[len("/player/p"):])
            except ValueError:
                private = -1
        for d in p["data"]:
            if not isinstance(d, dict) or not isinstance(d.get("type"), str):
                raise _Bad("bad_record", f"packet {i + 1} holds a notification without a type: {d!r}"[:300])
            args = d.get("args")
            if args is None or args == []:
                args = {}
            if not isinstance(args, dict):
                raise _Bad("bad_record", f"packet {i + 1}: notification {d['type']} has args {args!r}"[:300])
            uid = d.get("uid")
            if uid is not None:
                key = (channel, str(uid))
                if key in seen:
                    continue
                seen.add(key)
            out.append(_N(d["type"], args, str(d.get("log") or ""), None if uid is None else str(uid), private, d))
    return out, table_id


def _split(notes: list[_N]) -> tuple[list[_Hand], bool, dict[int, str]]:
    """Group notifications into hands. Returns (hands, game ended, names by player id)."""
    hands: list[_Hand] = []
    cur: _Hand | None = None
    pending_deal: dict[int, tuple[list[int], _N]] = {}
    pending_first: int | None = None
    ended = False
    names: dict[int, str] = {}

    def open_hand(n: _N) -> _Hand:
        nonlocal cur, pending_deal, pending_first
        if cur is not None and not cur.closed and cur.started():
            raise _Bad("unfinished_hand", f"hand {cur.no} has no end (no scoreTable or allPassNoBid) before the next "
                       "hand starts", cur.no, n)
        if cur is not None and not cur.closed:       # a hand opened twice (a repeated reset): keep the first
            return cur
        cur = _Hand(len(hands) + 1, n, pending_first, pending_deal)
        hands.append(cur)
        pending_deal, pending_first = {}, None
        return cur

    def current(n: _N) -> _Hand:
        return cur if cur is not None and not cur.closed else open_hand(n)

    for n in notes:
        a, t = n.args, n.type
        if "player_id" in a and isinstance(a.get("player_name"), str) and a["player_name"]:
            try:
                names.setdefault(_int(a["player_id"], "player_id"), a["player_name"])
            except RecordError:
                pass
        if n.private is not None:
            if t == "newHand":
                cards = a.get("cards")
                rows = list(cards.values()) if isinstance(cards, dict) else cards
                if not isinstance(rows, list):
                    raise _Bad("bad_record", f"newHand cards must be a list or an object, got {cards!r}"[:300], None, n)
                got: list[int] = []
                for r in rows:
                    if not isinstance(r, dict):
                        raise _Bad("bad_record", f"newHand card {r!r} is not a Deck row"[:300], None, n)
                    got.append(_card(r.get("type"), r.get("type_arg"), None, n, "private newHand card"))
                target = cur if cur is not None and not cur.closed and not cur.started() else None
                (target.deal if target is not None else pending_deal)[n.private] = (got, n)
            continue
        pid = None
        if "player_id" in a and t not in ("gameStateChange",):
            pid = _int(a["player_id"], f"{t} player_id", cur.no if cur else None, n)
        if pid is None and t in ("updateBidPass", "updateBidCoinche", "updateBidSurCoinche", "playCard", "sayBelote",
                                 "trickWin") or (t == "updateBid" and n.log and pid is None):
            raise _Bad("bad_record", f"a {t} notification without player_id", cur.no if cur else None, n)
        if t == "updateBid":
            bid = _int(a.get("bid", a.get("bid_value", 0)), "bid", cur.no if cur else None, n)
            if not n.log and bid == 0:
                open_hand(n)
            elif n.log:
                h = current(n)
                h.auction.append(("bid", pid, (bid, _int(a.get("trumpColor", a.get("color_symbol")), "trumpColor",
                                                         h.no, n)), n))
        elif t == "updateBidPass":
            h = current(n)
            h.auction.append(("pass", pid, None, n))
        elif t == "updateBidCoinche":
            h = current(n)
            h.auction.append(("coinche", pid, None, n))
        elif t == "updateBidSurCoinche":
            h = current(n)
            h.auction.append(("surcoinche", pid, None, n))
        elif t == "message":
            if cur is None:
                continue
            if "points" in a:
                cur.points[pid] = (_int(a["points"], "message points", cur.no, n), n)
            elif pid is not None and cur.redouble_phase and not cur.closed:
                cur.auction.append(("no_redouble", pid, None, n))
            elif pid is None and not cur.closed and cur.auction:
                cur.redouble_phase = True
        elif t == "allPassNoBid":
            h = current(n)
            h.passed_out = True
            h.closed = True
        elif t == "endBidding":
            current(n).contract = n
        elif t == "sayBelote":
            current(n).belote.append(n)
        elif t == "playCard":
            current(n).plays.append(n)
        elif t == "trickWin":
            current(n).trick_wins.append(n)
        elif t == "lastScoreSummary":
            current(n).summary = n
        elif t == "newScores":
            if cur is not None:
                cur.new_scores = n
        elif t == "scoreTable":
            h = current(n)
            h.score_table = n
            h.closed = True
        elif t == "firstPlayerChange":
            pending_first = pid
        elif t == "gameStateChange":
            try:
                if _int(a.get("id"), "state id") == 99:
                    ended = True
            except RecordError:
                pass
    return hands, ended, names


def _cycle(hands: list[_Hand]) -> dict[int, int]:
    """Next player of each player, by majority over consecutive plays in tricks and calls in auctions."""
    votes: dict[int, Counter] = {}
    players: set[int] = set()

    def vote(a: int, b: int) -> None:
        votes.setdefault(a, Counter())[b] += 1

    for h in hands:
        seq = []
        for kind, p, _, _ in h.auction:
            players.add(p)
            if kind in ("coinche", "surcoinche", "no_redouble"):
                break
            seq.append(p)
        for a, b in zip(seq, seq[1:]):
            vote(a, b)
        ps = [_int(n.args.get("player_id"), "player_id", h.no, n) for n in h.plays]
        players.update(ps)
        for i in range(0, len(ps), 4):
            t = ps[i:i + 4]
            for a, b in zip(t, t[1:]):
                vote(a, b)
    if len(players) != 4:
        raise _Bad("bad_seats", f"the log names {len(players)} players in auctions and plays, not 4: "
                   f"{sorted(players)}")
    nxt = {p: votes[p].most_common(1)[0][0] for p in players if p in votes}
    p, seen = next(iter(sorted(players))), []
    while p in nxt and p not in seen:
        seen.append(p)
        p = nxt[p]
    if len(seen) != 4 or p != seen[0]:
        raise _Bad("bad_seats", "cannot recover the seat order from the tricks and auctions (bga.md §5): "
                   f"next-player votes {({k: dict(v) for k, v in votes.items()})}")
    return nxt


def _table(doc: Any, text: str, where: Provenance, path: str) -> GameRecord:
    if not isinstance(doc, dict):
        raise _Bad("bad_record", "a BGA log must be a JSON object (bga.md §2.1)")
    if str(doc.get("status")) == "0" and "error" in doc:
        raise _Bad("bga_error", f"BGA answered with an error instead of a log: {str(doc.get('error'))[:200]!r}")
    data = doc.get("data")
    if not isinstance(data, dict):
        raise _Bad("bad_record", "no 'data' object: not a BGA log envelope (bga.md §2.1)")
    if isinstance(data.get("logs"), list):
        packets = data["logs"]
    elif isinstance(data.get("data"), list):
        packets = data["data"]
    else:
        raise _Bad("bad_record", "the 'data' object has neither a 'logs' nor a 'data' list of packets (bga.md §2.1)")
    notes, table_id = _notifications(packets)
    started = _started(packets)
    if table_id is None:
        raise _Bad("bad_record", "no table id in the packets (table_id or a /table/t<id> channel)")
    gid = f"{SOURCE}:{table_id}"
    try:
        return _build(doc, data, notes, table_id, gid, path, where, text, started)
    except RecordError as e:
        e.game_id = gid  # type: ignore[attr-defined]
        raise


def _envelope_names(data: dict) -> dict[int, str]:
    players = data.get("players")
    rows = list(players.values()) if isinstance(players, dict) else players if isinstance(players, list) else []
    out = {}
    for r in rows:
        if isinstance(r, dict) and r.get("name"):
            try:
                out[_int(r.get("id"), "player id")] = str(r["name"])
            except RecordError:
                continue
    return out


def _started(packets: list) -> datetime | None:
    """The game's start: the earliest packet ``time`` (unix seconds, bga.md §2.2), None when no packet has one."""
    times = []
    for p in packets:
        t = p.get("time") if isinstance(p, dict) else None
        if isinstance(t, (int, str)) and str(t).isdigit():
            times.append(int(t))
    return datetime.fromtimestamp(min(times), tz=timezone.utc) if times else None


def _build(doc: dict, data: dict, notes: list[_N], table_id: str, gid: str, path: str,
           where: Provenance, text: str, started: datetime | None = None) -> GameRecord:
    hands, ended, names = _split(notes)
    if not hands:
        raise _Bad("no_hands", "the log holds no hand (no auction, no card)")
    nxt = _cycle(hands)
    prev = {b: a for a, b in nxt.items()}
    env = _envelope_names(data)
    first1 = _first_player(hands[0])
    if first1 is None:
        raise _Bad("truncated_log", "the log stops before anyone speaks in hand 1", 1, hands[0].start)
    if first1 not in prev:
        raise _Bad("bad_seats", f"player {first1}, first to speak in hand 1, is not one of the four players", 1,
                   hands[0].start)
    order = [prev[first1]]
    for _ in range(3):
        order.append(nxt[order[-1]])
    seat = {p: i for i, p in enumerate(order)}
    players = [names.get(p) or env.get(p) or str(p) for p in order]

    rows: list[dict[str, Any]] = []
    for k, h in enumerate(hands):
        last = k == len(hands) - 1
        start = h.start or (h.auction[0][3] if h.auction else h.plays[0] if h.plays else None)
        line = where.line if start is None else _locate(text, start, where.line)
        row = _hand_row(h, seat, nxt, players, table_id, gid, path, line, last, ended)
        rows.append(row)

    opts = _options(doc, data)
    score_type = (opts or {}).get(101) or _infer_score_type(rows) or 1
    hint = HINT if score_type == 1 else None
    target = TARGETS.get((opts or {}).get(100)) if opts and 100 in opts else _infer_target(rows, ended)
    for r in rows:
        r["ruleset_hint"] = hint        # not part of hand_key (pipeline.formats.content_keys.HAND_FIELDS)
        r.pop("_summary", None)
        try:
            check_hand(r)
        except RecordError as e:
            h = hands[r["hand_no"] - 1]
            raise _Bad(e.code, str(e), e.hand_no, h.start or (h.auction[0][3] if h.auction else None)) from None
    final = next((r["recorded_totals"] for r in reversed(rows) if r.get("recorded_totals")), None)
    winner = None
    if ended and final and final[0] != final[1] and rows[-1]["completeness"] == "full_play":
        winner = 0 if final[0] > final[1] else 1
    game = finish_game({
        "game_id": gid, "source": SOURCE, "source_format": NAME, "source_file": path, "source_game_id": table_id,
        "variant": "coinche", "ruleset_hint": hint, "n_players": 4, "players": players, "target": target,
        "recorded_final": final, "recorded_winner": winner, "played_at": started,
    }, rows)
    return GameRecord(game, rows, where)


def _infer_score_type(rows: list[dict]) -> int | None:
    """1 (points + bid) or 2 (bid only) from made, undoubled hands (bga.md §8.5 steps 9-10); None: no evidence."""
    votes = Counter()
    for r in rows:
        s, sm = r.get("recorded_score"), r.get("_summary")
        if r.get("taker") is None or not s or not sm or r["coinche"] or not sm["made"]:
            continue
        d = 1 - r["taker"] % 2
        if s[d] == sm["def_total"]:
            votes[1] += 1
        elif s[d] == (20 if r.get("belote_seat", -1) >= 0 and r["belote_seat"] % 2 == d else 0):
            votes[2] += 1
    return votes.most_common(1)[0][0] if votes else None


def _infer_target(rows: list[dict], ended: bool) -> int | None:
    """Option 100 read off where the game ended (strictly over the target, bga.md §7)."""
    totals = [r["recorded_totals"] for r in rows if r.get("recorded_totals")]
    if not ended or not totals or rows[-1].get("completeness") != "full_play":
        return None
    over = [i for i, t in enumerate(totals) if max(t) > 1000]
    if over and over[0] == len(totals) - 1:
        return 1000
    if max(totals[-1]) > 2000:
        return 2000
    return None


