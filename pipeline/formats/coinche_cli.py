"""Reader for sephizack/coinche-cli 0.1.0 game folders (../shared/data/real/coinche-cli/FORMAT.md).

A game is a **folder**, not a file: one JSON-Lines wire stream per human seat (``stream_<SEAT>.jsonl``, every
byte the server sent to that socket) and the server's French text log (``server.log``). The ingest driver
hands readers one file at a time, so:

* **the entry point is the first seat's stream** of the folder, in N E S W order (``stream_N.jsonl`` when
  present). Its ``read`` opens the sibling files of the same folder by path: the other streams (their private
  ``deal`` give the other seats' hands in a 4-client game) and ``server.log`` (cross-checked deal by deal:
  calls, contract, cards, trick winners, deal scores, running and final totals, player names). Rejects found in
  a sibling name that sibling's path and line;
* every **other file of a game folder** is still recognised so that an ingest of the folder reports no noise,
  and its ``read`` yields nothing, because it is read (or deliberately ignored) through the entry stream:
  the other ``stream_<SEAT>.jsonl`` and ``server.log`` (read by the entry); ``server_stdout.txt`` (three
  startup lines, no game content); and the capture's sidecars described in the data's README,
  ``driver_sent_<SEAT>.jsonl`` (what the scripted client sent; every call and card in it comes back in the
  server's broadcasts) and ``meta.json`` (commands, seeds, PIDs). A ``server.log`` with no stream beside it
  yields one reject (``log_only``): the log has no hands (FORMAT.md §3 item 3);
* a stream with another name (a single copied file) is read alone, as its own game (id: the file's stem).

So give ``rebelote ingest`` the folder (or the entry stream): a non-entry file given alone yields nothing.
The game id is ``coinche-cli:<folder name>`` (the data's ``index.csv`` ``game_id``, e.g. ``A0001``), each hand's
``source_hand_id`` ``<table key>#R<round>``; players are named as in the lobby, bots with the log's
`` (bot: <type>)`` suffix. Since the id comes from the path (``GAME_ID_FROM_PATH``), a renamed or copied folder
gives the same game under another id: the ingest driver recognises it by content and skips it as a duplicate.

Seats: the server plays N -> W -> S -> E, so N W S E are our seats 0 1 2 3 (next seat = +1) and the teams NS,
EW are our teams 0 and 1. Cards: rank ``7 8 9 10 V D R A`` then a suit glyph ``♣ ♦ ♥ ♠`` (FORMAT.md §1).

One hand per ``deal`` message (``hand_no`` = the server's ``round_number``, thrown-in deals included):

* initial hands from the private ``deal`` of every stream of the folder, and for bot seats from the system
  chat ``Ma main de départ était : ...`` the server sends after every deal (FORMAT.md §2.2);
* the auction from ``bid_update``, plus the **closing call the server never reports** (FORMAT.md §2.2, §3
  quirk 2): the pass that ends the auction, the 4th pass of a thrown-in deal, or the surcoinche that only
  ``bidding_result.final_bid_action`` names. The auction is then replayed (turn order, rising bids, a coinche
  voided by a later bid when ``coinche_blocks_bidding`` is false, three passes) and must give the
  ``bidding_result`` contract and coinche level;
* the contract from ``bidding_result`` (coinche level 1/2/4 -> 0/1/2), the cards from ``card_played`` (each
  ``trick_result`` must repeat the last four), belote from ``belote_announcement``, and the server's own
  ``round_score`` (``total`` per team, raw ``card_points``, ``cumulative``) as the recorded score.

Any inconsistency rejects the whole game, with the file, line, game and hand (the driver's policy does the
rest). A stream that ends before ``game_over`` is rejected as truncated.
"""

from __future__ import annotations

from datetime import datetime, timezone

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from pipeline.formats import coinche_cli_log as logfmt
from pipeline.formats.coinche_cli_game import NAME, ROTATION, RULESET, SOURCE, _Bad, _Game, _Msg
from pipeline.formats.records import GameRecord, Line, Provenance, Reject, finish_game, json_shape_reject, malformed, \
    parser_too_deep_reject

DESCRIPTION = ("sephizack/coinche-cli 0.1.0 game folder: stream_<SEAT>.jsonl wire streams (entry: the first seat's) "
               "+ server.log cross-check")

_ENTRY_ORDER = "NESW"                   # which stream of a folder is the entry point
STREAM_NAME = re.compile(r"^stream_([NESW])\.jsonl(?:\.gz)?$")
_SENT_NAME = re.compile(r"^driver_sent_([NESW])\.jsonl(?:\.gz)?$")
SERVER_TYPES = {"joined", "lobby_update", "connection_status", "deal", "bid_update", "bid_request", "bidding_result",
                "play_request", "card_played", "trick_result", "trick_cleared", "round_score", "chat", "game_over",
                "error", "spectating", "resync", "new_game", "left", "table_listing", "turn_timeout",
                "bot_type_changed", "spectator_count"}


# --------------------------------------------------------------------------------------------------- detection

def _first_json(head: str) -> dict | None:
    for line in head.splitlines():
        if line.strip():
            try:
                d = orjson.loads(line)
            except orjson.JSONDecodeError:
                return None
            return d if isinstance(d, dict) else None
    return None


def _is_stream(name: str, head: str) -> bool:
    """A wire stream: the file's name says so (``stream_<SEAT>.jsonl``: claimed whatever its content, so that a
    damaged entry stream is read and rejected with its reason instead of leaving its game folder unread), or its
    first line is a server message carrying ``server_version``."""
    if STREAM_NAME.match(name):
        return True
    d = _first_json(head)
    if d is None or set(d) != {"type", "payload"} or d.get("type") not in SERVER_TYPES:
        return False
    return '"server_version"' in head.split("\n", 1)[0]


def _kind(name: str, head: str) -> str | None:
    """What file of a coinche-cli game folder this is: 'stream', 'log', 'sent', 'stdout', 'meta' or None."""
    if _is_stream(name, head):
        return "stream"
    if logfmt.is_log_head(head):
        return "log"
    d = _first_json(head)
    if (_SENT_NAME.match(name) and d is not None and d.get("type") == "join"
            and isinstance(d.get("payload"), dict) and "table_key" in d["payload"] and "player_name" in d["payload"]):
        return "sent"
    if name == "server_stdout.txt" and head.startswith("Coinche server listening on "):
        return "stdout"
    if name == "meta.json" and all(k in head for k in ('"table_key"', '"coinche_blocks_bidding"', '"server_cmd"')):
        return "meta"
    return None


def sniff(name: str, head: str) -> bool:
    """True for every file of a coinche-cli game folder (see the module docstring: only the entry stream
    yields records, the other files are read through it or carry nothing to import)."""
    return _kind(name, head) is not None


def _streams(folder: Path) -> dict[str, Path]:
    out = {}
    for seat in _ENTRY_ORDER:
        for suffix in ("", ".gz"):
            p = folder / f"stream_{seat}.jsonl{suffix}"
            if p.is_file():
                out[seat] = p
                break
    return out


# --------------------------------------------------------------------------------------------------- parsing


def _open_lines(path: Path) -> Iterator[Line]:
    with path.open("rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as fh:
        offset = 0
        for i, raw in enumerate(fh, start=1):
            try:
                text: str | None = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            yield i, offset, text
            offset += len(raw)


def _messages(lines: Iterator[Line], path: str) -> list[_Msg]:
    out = []
    for lineno, offset, text in lines:
        if text is None:
            raise _Bad("bad_encoding", "line is not valid UTF-8 text", None, path, lineno, offset)
        if not text.strip():
            continue
        try:
            d = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            deep = parser_too_deep_reject(Provenance(NAME, path, lineno, offset), e, text)
            if deep is not None:
                raise _Bad(deep.code, deep.reason, None, path, lineno, offset, text) from None
            raise _Bad("invalid_json", f"invalid JSON (truncated line?): {e}", None, path, lineno, offset,
                       text) from None
        shape = json_shape_reject(Provenance(NAME, path, lineno, offset), text, d)
        if shape is not None:
            raise _Bad(shape.code, shape.reason, None, path, lineno, offset, text)
        if not (isinstance(d, dict) and isinstance(d.get("type"), str) and isinstance(d.get("payload"), dict)):
            raise _Bad("bad_record", 'a wire message must be {"type": <text>, "payload": {...}}', None, path, lineno,
                       offset, text)
        out.append(_Msg(path, lineno, offset, d["type"], d["payload"], text))
    return out


# --------------------------------------------------------------------------------------------------- reading

def _reject(e: _Bad, entry: str, game_id: str | None) -> Reject:
    return Reject(Provenance(NAME, e.path or entry, e.line, e.offset), e.code,
                  f"{e} (the whole game is rejected)", e.raw, game_id, e.hand_no)


# the folder's non-entry files yield nothing by design (module docstring): the driver must not flag them
SIDE_FILES = True
GAME_ID_FROM_PATH = True
"""A game's id is its folder's name (or a lone stream's file name): a renamed or copied folder gives the same game
under another id, which the ingest driver recognises by content (:meth:`pipeline.ingest.copy_checks.CopyChecks.same_content`)."""


def read(lines: Iterator[Line], path: str) -> Iterator[GameRecord | Reject]:
    """Yield the folder's game when ``path`` is its entry stream, nothing for the folder's other files, one
    reject for a server.log without streams (see the module docstring)."""
    p = Path(path)
    head = ""
    lines = iter(lines)
    first = next(lines, None)
    if first is not None and first[2] is not None:
        head = first[2]
    m = STREAM_NAME.match(p.name)
    if m:
        streams = _streams(p.parent)
        entry_seat = next(iter(streams), m.group(1))
        if entry_seat != m.group(1):
            return            # read by the folder's first stream, stream_<entry_seat>.jsonl
        game_id, seat_letter = f"{SOURCE}:{p.parent.name}", m.group(1)
        siblings = {s: q for s, q in streams.items() if s != seat_letter}
        log_path = p.parent / "server.log"
    elif _is_stream(p.name, head):
        game_id, seat_letter, siblings, log_path = f"{SOURCE}:{p.stem}", None, {}, None
    else:
        if logfmt.LINE.match(head):
            if not _streams(p.parent):
                yield Reject(Provenance(NAME, path, 1, 0), "log_only",
                             "a coinche-cli server.log without stream_<SEAT>.jsonl beside it: the log has no hands "
                             "(FORMAT.md \u00a73), so no deal can be rebuilt", head, f"{SOURCE}:{p.parent.name}")
            return
        return                # driver_sent_*, server_stdout.txt, meta.json: nothing to import (docstring)
    chained = _chain(first, lines)
    try:
        g = _Game(game_id, path)
        msgs = _messages(chained, path)
        if not msgs:
            raise _Bad("empty_file", "the stream holds no message", None, path)
        if msgs[0].type != "joined":
            raise msgs[0].bad("missing_header", f"the stream starts with {msgs[0].type!r}, not joined (table key, "
                              "seat, target): is its beginning cut off?", None)
        g.read_stream(msgs, seat_letter)
        if g.over is None:
            last = g.last
            raise _Bad("truncated_stream", f"the stream ends without game_over (after {len(g.deals)} deals)",
                       g.deals[-1].no if g.deals else None, path, last.line, last.offset, last.raw)
        for s, q in siblings.items():
            g.read_sibling(_messages(_open_lines(q), str(q)), s)
        players = g.names()
        rows = g.rows(players)
        started = None
        if log_path is not None and log_path.is_file():
            log_lines = []
            for lineno, offset, text in _open_lines(log_path):
                if text is None:
                    raise _Bad("bad_encoding", "line is not valid UTF-8 text", None, str(log_path), lineno, offset)
                log_lines.append((lineno, text))
            try:
                log = logfmt.parse(log_lines, g.table)
            except logfmt.LogError as e:
                raise _Bad("log_mismatch", f"server.log: {e}", e.deal, str(log_path), e.line, None, e.raw) from None
            g.check_log(log, str(log_path), {s: str((g.players.get(s) or {}).get("name")) for s in ROTATION})
            if log.started:   # FORMAT.md §3: local time without zone; the capture machine's clock was UTC
                started = datetime.strptime(log.started, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    except _Bad as e:
        yield _reject(e, path, game_id)
        return
    except OSError as e:
        yield Reject(Provenance(NAME, path), "unreadable_sibling", f"cannot read a file of the game folder: {e}", "",
                     game_id)
        return
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        where = g.last
        code, words = malformed(e, {"type": where.type, "payload": where.p} if where else None)
        yield Reject(Provenance(NAME, where.path if where else path, where.line if where else None,
                                where.offset if where else None), code,
                     f"malformed coinche-cli message: {words} (the whole game is rejected)",
                     where.raw if where else "", game_id, g.deals[-1].no if g.deals else None)
        return
    fs = g.over.p.get("final_scores") or {}
    game = finish_game({
        "game_id": game_id, "source": SOURCE, "source_format": NAME, "source_file": path,
        "source_game_id": game_id.split(":", 1)[1], "variant": "coinche", "ruleset_hint": RULESET, "n_players": 4,
        "players": players, "target": g.target if isinstance(g.target, int) else None,
        "recorded_final": ([fs["NS"], fs["EW"]] if isinstance(fs.get("NS"), int) and isinstance(fs.get("EW"), int)
                           else None),
        "recorded_winner": {"NS": 0, "EW": 1}.get(g.over.p.get("winning_team")),
        "played_at": started,
    }, rows)
    yield GameRecord(game, rows, Provenance(NAME, path, msgs[0].line, msgs[0].offset))


def _chain(first: Line | None, rest: Iterator[Line]) -> Iterator[Line]:
    if first is not None:
        yield first
    yield from rest
