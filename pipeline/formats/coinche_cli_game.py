"""One coinche-cli game as rows (:mod:`pipeline.formats.coinche_cli` finds a game's folder and reads its message
streams): the deals replayed from the messages, the auction, the tricks and the recorded scores, each checked, and
the seat, card and message helpers both modules use."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.formats import coinche_cli_log as logfmt
from pipeline.formats.records import RecordError, new_hand
from pipeline.formats.validate import check_hand


NAME = "coinche-cli"
SOURCE = "coinche-cli"
RULESET = "coinche-cli"
ROTATION = "NWSE"                       # our seat i is the server's seat ROTATION[i]
SEAT = {s: i for i, s in enumerate(ROTATION)}
_SUIT = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}     # ♣ ♦ ♥ ♠
_SUIT_ID = {"\u2663": 0, "\u2666": 1, "\u2665": 2, "\u2660": 3}
_RANK_ID = {"7": 0, "8": 1, "9": 2, "10": 3, "V": 4, "D": 5, "R": 6, "A": 7}
_LEVEL = {1: 0, 2: 1, 4: 2}
_BOT_HAND = "Ma main de d\u00e9part \u00e9tait :"


class _Bad(RecordError):
    """A RecordError that knows its file and line."""

    def __init__(self, code: str, message: str, hand_no: int | None = None, path: str | None = None,
                 line: int | None = None, offset: int | None = None, raw: str = ""):
        super().__init__(code, message, hand_no)
        self.path, self.line, self.offset, self.raw = path, line, offset, raw


@dataclass
class _Msg:
    path: str
    line: int
    offset: int
    type: str
    p: dict
    raw: str

    def bad(self, code: str, message: str, hand_no: int | None = None) -> _Bad:
        return _Bad(code, message, hand_no, self.path, self.line, self.offset, self.raw)


def card(text: Any, m: _Msg, hand_no: int | None) -> int:
    """Card id of a coinche-cli card (rank ``7 8 9 10 V D R A`` + suit glyph); unknown -> RecordError."""
    if isinstance(text, str) and len(text) >= 2:
        r, s = _RANK_ID.get(text[:-1]), _SUIT_ID.get(text[-1])
        if r is not None and s is not None:
            return s * 8 + r
    raise m.bad("unknown_card", f"unknown card {text!r} (coinche-cli cards are 7 8 9 10 V D R A + one of "
                "\u2663\u2666\u2665\u2660)", hand_no)


def seat(value: Any, m: _Msg, hand_no: int | None, what: str = "seat") -> int:
    if isinstance(value, str) and value in SEAT:
        return SEAT[value]
    raise m.bad("bad_seat", f"{what} {value!r} is not one of N E S W", hand_no)


def _strain(glyph: Any, m: _Msg, hand_no: int) -> str:
    if isinstance(glyph, str) and glyph in _SUIT:
        return _SUIT[glyph]
    raise m.bad("bad_auction", f"trump {glyph!r} is not a suit glyph (coinche-cli has no no-trump or all-trump)",
                hand_no)


def _bid_call(points: Any, glyph: Any, m: _Msg, hand_no: int) -> str:
    strain = _strain(glyph, m, hand_no)
    if points == "capot":
        return f"capot{strain}"
    if isinstance(points, int) and not isinstance(points, bool) and 80 <= points <= 160 and points % 10 == 0:
        return f"{points}{strain}"
    raise m.bad("bad_auction", f"bid amount {points!r} is not 80..160 by tens or 'capot'", hand_no)


def _bid_rank(call: str) -> int:
    return 1000 if call.startswith("capot") else int(call[:-1])


@dataclass
class _Deal:
    no: int
    msg: _Msg
    dealer: int
    hands: dict[int, tuple[int, _Msg]] = field(default_factory=dict)
    calls: list[tuple[int, str, _Msg]] = field(default_factory=list)
    result: _Msg | None = None
    plays: list[tuple[int, int, _Msg]] = field(default_factory=list)
    belote: int | None = None
    tricks: list[_Msg] = field(default_factory=list)
    score: _Msg | None = None

    def add_hand(self, s: int, mask: int, m: _Msg) -> None:
        if s in self.hands and self.hands[s][0] != mask:
            raise m.bad("hand_mismatch", f"seat {ROTATION[s]}'s hand differs from the one read at "
                        f"{self.hands[s][1].path}:{self.hands[s][1].line}", self.no)
        self.hands.setdefault(s, (mask, m))


def _mask(cards: Any, m: _Msg, hand_no: int) -> int:
    if not isinstance(cards, list) or len(cards) != 8:
        raise m.bad("wrong_hand_size", f"a hand must list 8 cards, got {cards!r}", hand_no)
    mask = 0
    for c in cards:
        bit = 1 << card(c, m, hand_no)
        if mask & bit:
            raise m.bad("card_dealt_twice", f"card {c} appears twice in one hand", hand_no)
        mask |= bit
    return mask


def _replay(d: _Deal) -> tuple[tuple[int, str] | None, int]:
    """Replay the auction (FORMAT.md §1 'Bids'); return ((taker, call) or None, coinche level 1/2/4)."""
    calls = d.calls
    first = (d.dealer + 1) % 4
    best: tuple[int, str] | None = None
    level, passes = 1, 0
    for i, (s, call, m) in enumerate(calls):
        if s != (first + i) % 4:
            raise m.bad("bad_auction", f"call {i + 1} by {ROTATION[s]} out of turn "
                        f"({ROTATION[(first + i) % 4]} to speak)", d.no)
        if call == "pass":
            passes += 1
        elif call == "coinche":
            if best is None or best[0] % 2 == s % 2 or level != 1:
                raise m.bad("bad_auction", f"coinche by {ROTATION[s]} is not allowed here", d.no)
            level, passes = 2, 0
        elif call == "surcoinche":
            if best is None or best[0] % 2 != s % 2 or level != 2:
                raise m.bad("bad_auction", f"surcoinche by {ROTATION[s]} is not allowed here", d.no)
            level = 4
        else:
            if best is not None and (best[1].startswith("capot") or _bid_rank(call) <= _bid_rank(best[1])):
                raise m.bad("bad_auction", f"bid {call} does not beat {best[1]}", d.no)
            best, level, passes = (s, call), 1, 0      # a later bid voids a coinche (non-blocking tables)
        over = level == 4 or (best is None and passes == 4) or (best is not None and passes == 3)
        if over and i != len(calls) - 1:
            raise m.bad("bad_auction", f"the auction was over after call {i + 1}, yet {len(calls) - i - 1} more "
                        "follow", d.no)
        if not over and i == len(calls) - 1:
            raise m.bad("bad_auction", "the auction is not over after its last call", d.no)
    return best, level


def _team(x: Any, m: _Msg, no: int) -> dict:
    if not isinstance(x, dict):
        raise m.bad("bad_record", "round_score lacks team_NS / team_EW", no)
    return x


class _Game:
    """Everything read from one game folder."""

    def __init__(self, game_id: str, entry: str):
        self.game_id = game_id
        self.entry = entry
        self.table: str | None = None
        self.target: int | None = None
        self.own: int | None = None
        self.players: dict[str, dict] = {}
        self.deals: list[_Deal] = []
        self.over: _Msg | None = None
        self.last: _Msg | None = None

    # --- the entry stream: every broadcast
    def read_stream(self, msgs: list[_Msg], stream_seat: str | None) -> None:
        cur: _Deal | None = None
        for m in msgs:
            self.last = m
            t, p = m.type, m.p
            no = cur.no if cur else None
            if t == "joined":
                self.table = p.get("table_key")
                self.target = p.get("target_score") or (p.get("table_options") or {}).get("target_score")
                if p.get("seat") is not None:
                    self.own = seat(p.get("seat"), m, None)
                self._players(p.get("players"), m)
            elif t == "lobby_update":
                self._players(p.get("players"), m)
            elif t == "new_game":
                raise m.bad("unsupported", "a rematch (new_game) in the same stream is not supported", no)
            elif t == "deal":
                if self.over is not None:
                    raise m.bad("bad_record", "a deal after game_over", no)
                if cur is not None and cur.result is None:
                    raise m.bad("truncated_play", f"deal {cur.no} has no bidding_result", cur.no)
                if cur is not None and cur.result.p.get("outcome") == "contract" and cur.score is None:
                    raise m.bad("truncated_play", f"deal {cur.no} has no round_score ({len(cur.plays)} cards played)",
                                cur.no)
                n = p.get("round_number")
                if n != len(self.deals) + 1:
                    raise m.bad("missing_hand", f"round_number {n!r} where {len(self.deals) + 1} was expected "
                                "(a deal is missing or out of order)", n if isinstance(n, int) else None)
                cur = _Deal(n, m, seat(p.get("dealer_seat"), m, n, "dealer_seat"))
                if seat(p.get("first_bidder_seat"), m, n, "first_bidder_seat") != (cur.dealer + 1) % 4:
                    raise m.bad("bad_seat", "first_bidder_seat is not the player after the dealer", n)
                if self.deals and self.deals[-1].result is not None:
                    prev = self.deals[-1]
                    nxt = (prev.result.p.get("dealer_seat") if prev.result.p.get("outcome") == "redeal"
                           else prev.score.p.get("next_dealer_seat"))
                    if nxt != ROTATION[cur.dealer] or cur.dealer != (prev.dealer + 1) % 4:
                        raise m.bad("bad_seat", f"dealer {ROTATION[cur.dealer]} does not follow "
                                    f"{ROTATION[prev.dealer]} (the deal passes N -> W -> S -> E, throw-ins "
                                    "included)", n)
                own = self.own if self.own is not None else (SEAT[stream_seat] if stream_seat else None)
                if own is None:
                    raise m.bad("bad_record", "a private deal before joined: whose hand is it?", n)
                cur.add_hand(own, _mask(p.get("hand"), m, n), m)
                self.deals.append(cur)
            elif t in ("bid_update", "bidding_result", "card_played", "trick_result", "round_score", "game_over"):
                if t == "game_over":
                    if cur is None or cur.score is None:
                        raise m.bad("truncated_play", "game_over before the deal was scored", no)
                    self.over = m
                    continue
                if cur is None:
                    raise m.bad("bad_record", f"{t} before any deal", None)
                getattr(self, "_" + t)(cur, m)
            elif t == "chat":
                text = p.get("text")
                if p.get("system") and isinstance(text, str) and text.startswith(_BOT_HAND):
                    if cur is None:
                        raise m.bad("bad_record", "a bot's hand before any deal", None)
                    cards = text[len(_BOT_HAND):].split()
                    cur.add_hand(seat(p.get("seat"), m, cur.no), _mask(cards, m, cur.no), m)
            # bid_request, play_request, trick_cleared, connection_status, error, ...: nothing to import

    def _players(self, players: Any, m: _Msg) -> None:
        if not isinstance(players, list):
            return
        for pl in players:
            if isinstance(pl, dict) and pl.get("seat") in SEAT:
                self.players[pl["seat"]] = pl

    def _bid_update(self, d: _Deal, m: _Msg) -> None:
        if d.result is not None:
            raise m.bad("bad_auction", "bid_update after the bidding_result", d.no)
        s = seat(m.p.get("seat"), m, d.no)
        act = m.p.get("action")
        if act == "bid":
            call = _bid_call(m.p.get("points"), m.p.get("trump"), m, d.no)
        elif act in ("pass", "coinche"):
            call = act
        else:
            raise m.bad("bad_auction", f"unknown bid_update action {act!r}", d.no)
        d.calls.append((s, call, m))

    def _bidding_result(self, d: _Deal, m: _Msg) -> None:
        if d.result is not None:
            raise m.bad("bad_auction", "a second bidding_result for one deal", d.no)
        p = m.p
        last = d.calls[-1][0] if d.calls else d.dealer
        nxt = (last + 1) % 4
        outcome = p.get("outcome")
        if outcome == "redeal":
            d.calls.append((nxt, "pass", m))                               # the 4th pass is not reported
            best, _ = _replay(d)
            if best is not None:
                raise m.bad("auction_mismatch", "redeal although the auction has a bid", d.no)
            if p.get("dealer_seat") != ROTATION[(d.dealer + 1) % 4]:
                raise m.bad("bad_seat", "the redeal's new dealer is not the next seat", d.no)
        elif outcome == "contract":
            if p.get("final_bid_action") == "surcoinche":                 # only here, never as a bid_update
                d.calls.append((seat(p.get("final_bid_seat"), m, d.no, "final_bid_seat"), "surcoinche", m))
            elif p.get("final_bid_action") is None:
                d.calls.append((nxt, "pass", m))                           # the closing pass is not reported
            else:
                raise m.bad("bad_auction", f"unknown final_bid_action {p.get('final_bid_action')!r}", d.no)
            best, level = _replay(d)
            want = (seat(p.get("seat"), m, d.no), _bid_call(p.get("points"), p.get("trump"), m, d.no))
            if best != want or level != p.get("coinche_level"):
                raise m.bad("auction_mismatch", f"the calls give {best} x{level}, the bidding_result "
                            f"{want} x{p.get('coinche_level')!r}", d.no)
            if p.get("first_leader") != ROTATION[(d.dealer + 1) % 4]:
                raise m.bad("bad_seat", "first_leader is not the player after the dealer", d.no)
        else:
            raise m.bad("bad_auction", f"unknown bidding_result outcome {outcome!r}", d.no)
        d.result = m

    def _card_played(self, d: _Deal, m: _Msg) -> None:
        if d.result is None or d.result.p.get("outcome") != "contract":
            raise m.bad("bad_record", "a card played without a contract", d.no)
        if d.score is not None or len(d.plays) >= 32:
            raise m.bad("bad_record", "more than 32 cards played", d.no)
        s = seat(m.p.get("seat"), m, d.no)
        d.plays.append((s, card(m.p.get("card"), m, d.no), m))
        if m.p.get("belote_announcement") == "belote" and d.belote is None:
            d.belote = s

    def _trick_result(self, d: _Deal, m: _Msg) -> None:
        k = len(d.tricks) + 1
        trick = m.p.get("trick")
        if m.p.get("tricks_played") != k or len(d.plays) != 4 * k or not isinstance(trick, list) or len(trick) != 4:
            raise m.bad("trick_mismatch", f"trick_result {m.p.get('tricks_played')!r} after {len(d.plays)} cards", d.no)
        got = [(seat(x.get("seat"), m, d.no), card(x.get("card"), m, d.no)) for x in trick]
        if got != [(s, c) for s, c, _ in d.plays[-4:]]:
            raise m.bad("trick_mismatch", f"trick {k} differs from the cards played", d.no)
        seat(m.p.get("winner_seat"), m, d.no, "winner_seat")
        d.tricks.append(m)

    def _round_score(self, d: _Deal, m: _Msg) -> None:
        if len(d.plays) != 32 or len(d.tricks) != 8:
            raise m.bad("truncated_play", f"round_score after {len(d.plays)} cards and {len(d.tricks)} tricks", d.no)
        if d.score is not None:
            raise m.bad("bad_record", "a second round_score for one deal", d.no)
        for k in ("team_NS", "team_EW"):
            t = _team(m.p.get(k), m, d.no)
            if not all(isinstance(t.get(f), int) for f in ("card_points", "total")):
                raise m.bad("bad_record", f"round_score {k} lacks card_points / total", d.no)
        cum = m.p.get("cumulative")
        if not isinstance(cum, dict) or not all(isinstance(cum.get(k), int) for k in ("NS", "EW")):
            raise m.bad("bad_record", "round_score lacks cumulative NS / EW", d.no)
        d.score = m

    # --- the other streams: their private deals
    def read_sibling(self, msgs: list[_Msg], stream_seat: str) -> None:
        own = SEAT[stream_seat]
        for m in msgs:
            if m.type == "joined" and m.p.get("seat") is not None:
                own = seat(m.p.get("seat"), m, None)
            elif m.type == "deal":
                n = m.p.get("round_number")
                if not isinstance(n, int) or not 1 <= n <= len(self.deals):
                    raise m.bad("missing_hand", f"deal round_number {n!r} is not a deal of {self.entry}", None)
                d = self.deals[n - 1]
                if m.p.get("dealer_seat") != ROTATION[d.dealer]:
                    raise m.bad("bad_seat", f"dealer differs from {self.entry}", n)
                d.add_hand(own, _mask(m.p.get("hand"), m, n), m)

    # --- the rows
    def names(self) -> list[str]:
        out = []
        for s in ROTATION:
            pl = self.players.get(s) or {}
            name = str(pl.get("name") or f"?{s}")
            out.append(f"{name} (bot: {pl.get('bot_type')})" if pl.get("is_bot") else name)
        return out

    def rows(self, players: list[str]) -> list[dict[str, Any]]:
        rows = []
        for d in self.deals:
            missing = [ROTATION[s] for s in range(4) if s not in d.hands]
            if missing:
                raise d.msg.bad("missing_hand", f"no hand for seat(s) {' '.join(missing)}: neither a private deal in "
                                "the folder's streams nor a bot's 'Ma main de d\u00e9part' chat", d.no)
            r = d.result.p
            contract = r.get("outcome") == "contract"
            sc = d.score.p if d.score is not None else None
            pts = r.get("points")
            row = new_hand(
                game_id=self.game_id, hand_no=d.no, source=SOURCE, source_format=NAME, source_file=self.entry,
                source_line=d.msg.line, source_game_id=self.game_id.split(":", 1)[1],
                source_hand_id=f"{self.table}#R{d.no}", variant="coinche", ruleset_hint=RULESET, n_players=4,
                players=players, dealer=d.dealer, completeness="full_play",
                initial_hands=[d.hands[s][0] for s in range(4)],
                auction=[{"seat": s, "call": c} for s, c, _ in d.calls],
                taker=SEAT[r["seat"]] if contract else None,
                strain=_SUIT[r["trump"]] if contract else None,
                bid=pts if contract and pts != "capot" else None,
                capot_bid=contract and pts == "capot",
                coinche=_LEVEL[r["coinche_level"]] if contract else 0,
                plays=[c for _, c, _ in d.plays] if contract else None,
                play_seats=[s for s, _, _ in d.plays] if contract else None,
                belote_seat=(-1 if d.belote is None else d.belote) if contract else None,
                recorded_score=[sc["team_NS"]["total"], sc["team_EW"]["total"]] if sc else None,
                recorded_card_points=[sc["team_NS"]["card_points"], sc["team_EW"]["card_points"]] if sc else None,
                recorded_totals=[sc["cumulative"]["NS"], sc["cumulative"]["EW"]] if sc else None,
            )
            try:
                check_hand(row)
            except RecordError as e:
                raise d.msg.bad(e.code, str(e), d.no) from None
            rows.append(row)
        return rows

    # --- server.log against the stream
    def check_log(self, log: logfmt.Log, path: str, players: dict[str, str]) -> None:
        def bad(line: int, msg: str, no: int | None) -> _Bad:
            return _Bad("log_mismatch", f"server.log disagrees with {Path(self.entry).name}: {msg}", no, path, line)

        if log.table is not None and self.table is not None and log.table != self.table:
            raise _Bad("log_mismatch", f"server.log is for table {log.table!r}, the stream for {self.table!r}", None,
                       path)
        if len(log.deals) != len(self.deals):
            line = log.deals[-1].first_line if log.deals else None
            raise bad(line, f"{len(log.deals)} deals in the log, {len(self.deals)} in the stream", None)
        for ld, d in zip(log.deals, self.deals):
            n = d.no
            for line, lb in ld.labels:
                if players.get(lb.seat) is not None and players[lb.seat] != lb.name:
                    raise bad(line, f"seat {lb.seat} is {lb.name!r} in the log, {players[lb.seat]!r} in the stream", n)
            # every call but the closing one, which neither side reports (FORMAT.md §3 quirk 2)
            stream_calls = [(ROTATION[s], c) for s, c, m in d.calls if m.type == "bid_update"]
            for i, (line, (s, c)) in enumerate(ld.calls):
                if isinstance(c, tuple):
                    pts, glyph = c
                    c = f"{pts}{_SUIT[glyph]}" if glyph in _SUIT else f"{pts}{glyph}"
                if i >= len(stream_calls) or stream_calls[i] != (s, c):
                    raise bad(line, f"call {i + 1} is {s} {c}, the stream has "
                              f"{stream_calls[i] if i < len(stream_calls) else 'none'}", n)
            if len(ld.calls) != len(stream_calls):
                raise bad(ld.first_line, f"{len(ld.calls)} calls logged, {len(stream_calls)} in the stream", n)
            r = d.result.p
            if r.get("outcome") == "redeal":
                if ld.redeal is None or ld.redeal[1] != r.get("dealer_seat"):
                    raise bad(ld.first_line if ld.redeal is None else ld.redeal[0], "the redeal (REDONNE) differs", n)
                continue
            want = (r.get("points"), r.get("trump"), r.get("seat"), r.get("coinche_level"))
            if ld.contract is None or ld.contract[1] != want:
                raise bad(ld.first_line if ld.contract is None else ld.contract[0],
                          f"CONTRAT {ld.contract[1] if ld.contract else None} vs {want}", n)
            stream_plays = [(ROTATION[s], m.p.get("card"), m.p.get("belote_announcement")) for s, _, m in d.plays]
            logged = [v for _, v in ld.plays]
            if logged != stream_plays:
                i = next((i for i, (a, b) in enumerate(zip(logged, stream_plays)) if a != b), min(len(logged), 31))
                raise bad(ld.plays[min(i, len(ld.plays) - 1)][0] if ld.plays else ld.first_line,
                          f"card {i + 1} differs ({len(logged)} JOUE lines)", n)
            tricks = [(m.p.get("tricks_played"), m.p.get("winner_seat"), m.p.get("points_won"),
                       m.p.get("tricks_remaining")) for m in d.tricks]
            if [v for _, v in ld.tricks] != tricks:
                raise bad(ld.tricks[0][0] if ld.tricks else ld.first_line, "the PLI lines differ from trick_result", n)
            sc = d.score.p
            want = (sc["team_NS"]["total"], sc["team_EW"]["total"], sc["cumulative"]["NS"], sc["cumulative"]["EW"])
            if ld.score is None or ld.score[1] != want:
                raise bad(ld.first_line if ld.score is None else ld.score[0],
                          f"FIN DE MANCHE {ld.score[1] if ld.score else None} vs round_score {want}", n)
        fs = self.over.p.get("final_scores") or {}
        want = (self.over.p.get("winning_team"), fs.get("NS"), fs.get("EW"))
        if log.end is None or log.end[1] != want:
            raise bad(None if log.end is None else log.end[0],
                      f"FIN DE PARTIE {log.end[1] if log.end else None} vs game_over {want}", None)
