"""One hand of a Board Game Arena table as a hands row (:mod:`pipeline.formats.bga` reads the table's
notifications and splits them into hands): its deal, auction, contract, tricks, belote and recorded scores, each
checked against the seat cycle (bga.md §3-§8), and the notification, card and number helpers both modules use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.cards import card_str, make_card, mask_of
from pipeline.formats.records import RecordError, new_hand


NAME = "bga"          # the reader's name and source (pipeline.formats.bga re-exports them)
SOURCE = "bga"
_SUIT = {1: 3, 2: 2, 3: 0, 4: 1}                    # BGA color (§3.1) -> our suit (C D H S = 0..3)
_STRAIN = {1: "S", 2: "H", 3: "C", 4: "D", 5: "AT", 6: "NT"}
_SUIT_OF_STRAIN = {"C": 0, "D": 1, "H": 2, "S": 3}
CAPOT_BID = 250
LOWEST_BID = 82                                      # scored as 80


# strength of a rank index (7 8 9 10 J Q K A) in the trump order J 9 A 10 K Q 8 7 and the plain order A 10 K Q J 9 8 7
_TRUMP_ORDER = [0, 1, 6, 4, 7, 2, 3, 5]
_PLAIN_ORDER = [0, 1, 2, 6, 3, 4, 5, 7]


class _Bad(RecordError):
    """A RecordError that knows the notification it is about (for the reject's line and raw text)."""

    def __init__(self, code: str, message: str, hand_no: int | None = None, at: "_N | None" = None):
        super().__init__(code, message, hand_no)
        self.at = at


def _int(v: Any, what: str, hn: int | None = None, at: "_N | None" = None) -> int:
    """A whole number from a BGA value (JSON number or numeric string, §2.3)."""
    if isinstance(v, bool):
        raise _Bad("bad_value", f"{what} must be a whole number, got {v!r}", hn, at)
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"\s*-?\d+\s*", v):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise _Bad("bad_value", f"{what} must be a whole number, got {v!r}", hn, at)


def _card(color: Any, value: Any, hn: int | None, at: "_N | None", what: str = "card") -> int:
    """Our card id from BGA's suit (``color`` / ``type``, 1-4) and rank (``value`` / ``type_arg``, 7-14)."""
    try:
        c, v = _int(color, "suit"), _int(value, "rank")
    except RecordError:
        c = v = None
    if c not in _SUIT or v is None or not 7 <= v <= 14:
        raise _Bad("unknown_card", f"{what}: suit {color!r} and value {value!r} are not a card (suits 1-4, "
                   "values 7-14, bga.md §3)", hn, at)
    return make_card(_SUIT[c], v - 7)


def _strength(card: int, led: int, strain: str) -> int:
    """Rank of ``card`` in a trick led in suit ``led`` under ``strain`` (bga.md §8.2); -1 cannot win."""
    suit, rank = divmod(card, 8)
    if strain == "AT":
        return _TRUMP_ORDER[rank] if suit == led else -1
    if strain == "NT":
        return _PLAIN_ORDER[rank] if suit == led else -1
    if suit == _SUIT_OF_STRAIN[strain]:
        return 100 + _TRUMP_ORDER[rank]
    return _PLAIN_ORDER[rank] if suit == led else -1


def _trick_winner(cards: list[int], strain: str) -> int:
    """Index (0-3) of the card that wins a trick."""
    led = cards[0] // 8
    return max(range(len(cards)), key=lambda i: _strength(cards[i], led, strain))


@dataclass
class _N:
    """One notification with where it came from."""

    type: str
    args: dict[str, Any]
    log: str
    uid: str | None
    private: int | None        # player id of a private channel, None for public
    raw: Any


@dataclass
class _Hand:
    no: int
    start: _N | None = None
    first_hint: int | None = None           # firstPlayerChange before it
    deal: dict[int, tuple[list[int], _N]] = field(default_factory=dict)   # private newHand by player
    auction: list[tuple[str, int, Any, _N]] = field(default_factory=list)  # (kind, player, value, notif)
    redouble_phase: bool = False
    contract: _N | None = None
    passed_out: bool = False
    closed: bool = False
    plays: list[_N] = field(default_factory=list)
    trick_wins: list[_N] = field(default_factory=list)
    belote: list[_N] = field(default_factory=list)
    summary: _N | None = None
    points: dict[int, tuple[int, _N]] = field(default_factory=dict)
    new_scores: _N | None = None
    score_table: _N | None = None

    def started(self) -> bool:
        return bool(self.auction or self.plays or self.contract or self.passed_out)


def _first_player(h: _Hand) -> int | None:
    for kind, p, _, _ in h.auction:
        if kind in ("bid", "pass"):
            return p
    if h.plays:
        return _int(h.plays[0].args.get("player_id"), "player_id", h.no, h.plays[0])
    return h.first_hint


def _hand_row(h: _Hand, seat: dict[int, int], nxt: dict[int, int], players: list[str], table_id: str, gid: str,
              path: str, line: int | None, last: bool, ended: bool) -> dict[str, Any]:
    hn = h.no
    first = _first_player(h)
    if first is None:
        raise _Bad("truncated_log", f"the log stops at the start of hand {hn}, before anyone speaks", hn, h.start)
    if h.first_hint is not None and h.first_hint != first and h.first_hint in seat:
        n = next((x[3] for x in h.auction), h.start)
        raise _Bad("seat_out_of_turn", f"hand {hn}: player {first} speaks first but firstPlayerChange named "
                   f"{h.first_hint}", hn, n)
    errors: list[str] = []

    def seat_of(p: int, n: _N) -> int:
        if p not in seat:
            raise _Bad("bad_seats", f"hand {hn}: player {p} is not one of the table's four players", hn, n)
        return seat[p]

    # ---- auction (§4.2-4.6, §8.4): bids and passes in seat order until a double
    calls: list[dict[str, Any]] = []
    expected = first
    doubled = False
    for kind, p, val, n in h.auction:
        s = seat_of(p, n)
        if kind in ("bid", "pass") and not doubled:
            if p != expected:
                raise _Bad("seat_out_of_turn", f"hand {hn}: auction call {len(calls) + 1} ({kind}) by seat {s} "
                           f"({players[s]}) out of turn: seat {seat[expected]} ({players[seat[expected]]}) was to "
                           "speak", hn, n)
            expected = nxt[p]
        if kind == "bid":
            value, color = val
            strain = _STRAIN.get(color)
            if strain is None:
                raise _Bad("bad_value", f"hand {hn}: bid in strain {color!r} (1-6, bga.md §3.1)", hn, n)
            calls.append({"seat": s, "call": _call(value, strain)})
        elif kind in ("pass", "no_redouble"):
            calls.append({"seat": s, "call": "pass"})
        else:
            doubled = True
            calls.append({"seat": s, "call": kind})

    common = dict(game_id=gid, hand_no=hn, source=SOURCE, source_format=NAME, source_file=path,
                  source_line=line, source_game_id=table_id, source_hand_id=f"{table_id}#{hn}",
                  variant="coinche", n_players=4, players=players, dealer=(seat[first] - 1) % 4, auction=calls)

    if h.passed_out:
        if h.plays or h.contract is not None:
            raise _Bad("bad_record", f"hand {hn} is thrown in (allPassNoBid) but has a contract or cards", hn,
                       h.plays[0] if h.plays else h.contract)
        if any(c["call"] != "pass" for c in calls):
            errors.append("allPassNoBid after a call other than pass")
        init = None
        if len(h.deal) == 4 and all(p in seat for p in h.deal):
            init = [0] * 4
            for p, (cards, _) in h.deal.items():
                init[seat[p]] = mask_of(cards)
        row = new_hand(**common, completeness="full_play", initial_hands=init, errors=errors)
        row["_summary"] = None
        return row

    if not h.closed:
        n_cards = len(h.plays)
        at = (h.plays or [None])[-1] or (h.auction[-1][3] if h.auction else h.start)
        if not (last and ended):
            raise _Bad("truncated_log", f"the log stops inside hand {hn} ({n_cards} of 32 cards played) with no end "
                       "of game: the file is truncated", hn, at)
    if h.contract is None:
        if h.closed or h.plays:
            raise _Bad("no_contract", f"hand {hn} has {'cards played' if h.plays else 'a score'} but no endBidding "
                       "contract", hn, h.plays[0] if h.plays else h.score_table)
        # the table ended during the auction
        row = new_hand(**common, completeness="summary", errors=[
            "the table ended during the auction of this hand (concession or timeout, bga.md §6); not scored"])
        row["_summary"] = None
        return row

    c = h.contract
    ca = c.args
    taker_p = _int(ca.get("bidPlayer", ca.get("player_id")), "endBidding bidPlayer", hn, c)
    taker = seat_of(taker_p, c)
    value = _int(ca.get("bid", ca.get("bid_value")), "endBidding bid", hn, c)
    color = _int(ca.get("trumpColor", ca.get("color_symbol")), "endBidding trumpColor", hn, c)
    strain = _STRAIN.get(color)
    if strain is None:
        raise _Bad("bad_value", f"hand {hn}: contract strain {color!r} is not 1-6 (bga.md §3.1)", hn, c)
    coinche = _int(ca.get("countered", 0), "endBidding countered", hn, c)
    if coinche not in (0, 1, 2):
        raise _Bad("bad_value", f"hand {hn}: countered {coinche!r} is not 0, 1 or 2", hn, c)
    bids = [x for x in calls if x["call"] not in ("pass", "coinche", "surcoinche")]
    if not bids or bids[-1] != {"seat": taker, "call": _call(value, strain)}:
        errors.append(f"endBidding names {_call(value, strain)} by seat {taker}, the last bid was "
                      f"{bids[-1] if bids else None}")
    said = {x["call"] for x in calls}
    level = 2 if "surcoinche" in said else 1 if "coinche" in said else 0
    if level != coinche:
        errors.append(f"endBidding says countered = {coinche}, the auction has level {level}")

    # ---- play (§4.7, §8.2-8.3)
    plays: list[int] = []
    seats: list[int] = []
    played: set[int] = set()
    wins = {}
    for n in h.trick_wins:
        wins[_int(n.args.get("trick_count"), "trickWin trick_count", hn, n)] = n
    leader = first
    trick: list[int] = []
    trick_players: list[int] = []
    for i, n in enumerate(h.plays):
        a = n.args
        p = _int(a.get("player_id"), "playCard player_id", hn, n)
        s = seat_of(p, n)
        t = i // 4
        card = _card(a.get("color"), a.get("value"), hn, n, f"hand {hn}, play {i + 1} (trick {t + 1})")
        if card in played:
            raise _Bad("card_played_twice", f"hand {hn}: play {i + 1} (trick {t + 1}): {card_str(card)} was already "
                       "played", hn, n)
        expected = leader if i % 4 == 0 else nxt[trick_players[-1]]
        if p != expected:
            raise _Bad("seat_out_of_turn", f"hand {hn}: play {i + 1} (trick {t + 1}): seat {s} ({players[s]}) plays "
                       f"{card_str(card)} out of turn: seat {seat[expected]} ({players[seat[expected]]}) was to play",
                       hn, n)
        if "trick_count" in a and _int(a["trick_count"], "trick_count", hn, n) != t:
            errors.append(f"play {i + 1}: trick_count {a['trick_count']} for trick {t + 1} (0-based {t})")
        played.add(card)
        plays.append(card)
        seats.append(s)
        trick.append(card)
        trick_players.append(p)
        if len(trick) == 4:
            w = trick_players[_trick_winner(trick, strain)]
            tw = wins.get(t)
            if tw is not None and _int(tw.args.get("player_id"), "trickWin player_id", hn, tw) != w:
                wp = _int(tw.args.get("player_id"), "trickWin player_id", hn, tw)
                raise _Bad("trick_winner_mismatch", f"hand {hn}, trick {t + 1} ({' '.join(map(card_str, trick))}, "
                           f"{strain} contract): the log says seat {seat.get(wp)} won it, the cards say seat "
                           f"{seat[w]}", hn, tw)
            leader, trick, trick_players = w, [], []
    if not h.closed:          # the table ended during the play (concession, §6): kept, not scored
        row = new_hand(**common, completeness="summary", taker=taker, strain=strain,
                       bid=None if value == CAPOT_BID else (80 if value == LOWEST_BID else value),
                       capot_bid=value == CAPOT_BID, coinche=coinche, plays=plays, play_seats=seats,
                       errors=errors + [f"the table ended during this hand after {len(plays)} of 32 cards (concession "
                                        "or timeout, bga.md §6); not scored"])
        row["_summary"] = None
        return row
    if len(plays) != 32:
        raise _Bad("truncated_play", f"hand {hn}: {len(plays)} cards played, expected 32; the deal cannot be rebuilt "
                   "from the cards played (bga.md §6)", hn, h.score_table)
    init = [0] * 4
    for card, s in zip(plays, seats):
        init[s] |= 1 << card
    for p, (cards, n) in h.deal.items():
        if p in seat and mask_of(cards) != init[seat[p]]:
            raise _Bad("deal_mismatch", f"hand {hn}: the private newHand of seat {seat[p]} "
                       f"({' '.join(map(card_str, sorted(cards)))}) is not the cards that seat played", hn, n)

    # ---- belote (§4.7): counted only when "Belote" was said
    belote_seat = -1
    for n in h.belote:
        p = _int(n.args.get("player_id"), "sayBelote player_id", hn, n)
        text = str(n.args.get("belote_text", ""))
        if text.lower() == "belote" and belote_seat < 0:
            belote_seat = seat_of(p, n)
            if strain not in _SUIT_OF_STRAIN:
                errors.append(f"belote said in a {strain} contract")
            else:
                tr = _SUIT_OF_STRAIN[strain]
                need = (1 << make_card(tr, 5)) | (1 << make_card(tr, 6))
                if init[belote_seat] & need != need:
                    errors.append(f"seat {belote_seat} said belote without the trump king and queen")
        elif text.lower() == "rebelote" and (belote_seat < 0 or seat_of(p, n) != belote_seat):
            errors.append("rebelote said without a belote by the same player")
    announced = [] if belote_seat < 0 else [{"seat": belote_seat, "kind": "belote", "rank": 6,
                                             "suit": _SUIT_OF_STRAIN.get(strain), "length": 2}]

    # ---- recorded scores (§4.8)
    team_pts: list[int | None] = [None, None]
    for p, (pts, n) in h.points.items():
        if p not in seat:
            continue
        tm = seat[p] % 2
        if team_pts[tm] is not None and team_pts[tm] != pts:
            errors.append(f"partners scored {team_pts[tm]} and {pts} in the message lines")
        team_pts[tm] = pts if team_pts[tm] is None else team_pts[tm]
    recorded = team_pts if None not in team_pts else None
    totals = None
    if h.new_scores is not None:
        ns = h.new_scores.args.get("newScores")
        if isinstance(ns, dict):
            tt: list[int | None] = [None, None]
            for k, v in ns.items():
                p = _int(k, "newScores player", hn, h.new_scores)
                if p in seat:
                    tt[seat[p] % 2] = _int(v, "newScores score", hn, h.new_scores)
            totals = tt if None not in tt else None
    T = taker % 2
    card_points = None
    summary = None
    if h.summary is not None:
        bt = _int(h.summary.args.get("bidTeamPoints"), "bidTeamPoints", hn, h.summary)
        dt = _int(h.summary.args.get("defenseTeamPoints"), "defenseTeamPoints", hn, h.summary)
        cp = [0, 0]
        cp[T], cp[1 - T] = bt, dt
        if belote_seat >= 0:
            cp[belote_seat % 2] -= 20
        card_points = cp
        made = h.score_table.args.get("bidSuccessful") if h.score_table is not None else None
        summary = {"def_total": dt, "made": bool(made)}
    row = new_hand(**common, completeness="full_play", initial_hands=init, taker=taker, strain=strain,
                   bid=None if value == CAPOT_BID else (80 if value == LOWEST_BID else value),
                   capot_bid=value == CAPOT_BID, coinche=coinche, plays=plays, play_seats=seats,
                   announced=announced, belote_seat=belote_seat, recorded_score=recorded,
                   recorded_card_points=card_points, recorded_totals=totals, errors=errors)
    row["_summary"] = summary
    return row


def _call(value: int, strain: str) -> str:
    if value == CAPOT_BID:
        return f"capot{strain}"
    return f"{80 if value == LOWEST_BID else value}{strain}"
