"""Decoding OpenSpiel ``python_belote`` action histories into hand rows (../shared/data/real/openspiel/FORMAT.md).

Shared by the two OpenSpiel readers (histories JSON Lines and ``serialize_game_and_state`` files). Nothing
is ever unpickled: only the ``[Game]`` string and the action history are read.

OpenSpiel's card ids are ours (suit*8 + rank, suits C D H S, ranks 7..A), its players 0-3 play in
increasing order and its teams are {0, 2} and {1, 3}, so cards and seats carry over unchanged.
Action ids: 0-31 a card (dealt, or played); 32 pass; 33 take the turned suit; 34-37 choose suit id-34.
A record is one deal; its redeals (eight passes) become passed-out hands of the same game.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.cards import mask_of
from pipeline.formats.records import RecordError, finish_game, new_hand

SOURCE = "openspiel"
_GAME = re.compile(r"^python_belote\((.*)\)$")


def parse_game_string(text: str) -> tuple[int, bool]:
    """(first dealer, use_belote_rebelote) from ``python_belote(dealer=1,use_belote_rebelote=False)``."""
    m = _GAME.match(text.strip())
    if not m:
        raise RecordError("bad_record", f"not a python_belote game string: {text[:80]!r}")
    params = dict(p.split("=", 1) for p in m.group(1).split(",") if "=" in p)
    try:
        dealer = int(params.get("dealer", "0"))
    except ValueError:
        raise RecordError("bad_record", f"bad dealer in game string {text!r}") from None
    belote = params.get("use_belote_rebelote", "False") == "True"
    if not 0 <= dealer < 4:
        raise RecordError("bad_record", f"dealer {dealer} is not in 0..3")
    return dealer, belote


class _Stream:
    def __init__(self, actions: list[int], players: list[int] | None):
        self.a, self.p, self.i = actions, players, 0

    def take(self, chance: bool | None = None) -> tuple[int, int | None]:
        if self.i >= len(self.a):
            raise RecordError("truncated_play", f"history ends after {len(self.a)} actions, in the middle of a deal")
        act = self.a[self.i]
        who = self.p[self.i] if self.p is not None else None
        if chance is not None and who is not None and (who == -1) != chance:
            raise RecordError("bad_record", f"action {self.i + 1}: expected a {'chance' if chance else 'player'} action, "
                              f"got player {who}")
        if not isinstance(act, int) or not 0 <= act <= 37:
            raise RecordError("bad_record", f"action {self.i + 1}: {act!r} is not an action id 0..37")
        self.i += 1
        return act, who


def decode(game_string: str, actions: list[int], players: list[int] | None, game_id: str, path: str,
           line: int | None, bots: str, returns: list[float] | None, fmt: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Rows (game, hands) of one OpenSpiel record. Raises RecordError naming the action that does not fit."""
    dealer, belote = parse_game_string(game_string)
    hint = "openspiel-belote" if belote else "openspiel"
    st = _Stream(actions, players)
    names = [f"{bots}#{s}" for s in range(4)]
    common = {"game_id": f"{SOURCE}:{game_id}", "source": SOURCE, "source_format": fmt, "source_file": path,
              "source_game_id": game_id, "variant": "belote", "ruleset_hint": hint, "n_players": 4, "players": names}
    hands: list[dict[str, Any]] = []
    hand_no = 0
    while True:
        hand_no += 1
        order = [(dealer + k) % 4 for k in (1, 2, 3, 4)]
        held: list[list[int]] = [[], [], [], []]
        dealt: set[int] = set()

        def deal(seat: int) -> None:
            card, _ = st.take(chance=True)
            if card > 31 or card in dealt:
                raise RecordError("card_dealt_twice" if card in dealt else "bad_record",
                                  f"hand {hand_no}: chance action {st.i} deals {card}", hand_no)
            dealt.add(card)
            held[seat].append(card)

        for packet in (3, 2):
            for seat in order:
                for _ in range(packet):
                    deal(seat)
        turned, _ = st.take(chance=True)
        if turned > 31 or turned in dealt:
            raise RecordError("bad_record", f"hand {hand_no}: bad turned card {turned}", hand_no)
        auction, taker, strain = [], None, None
        for seat in order:                                    # round 1: take or pass
            act, who = st.take(chance=False)
            if who is not None and who != seat:
                raise RecordError("seat_out_of_turn", f"hand {hand_no}: seat {who} bids in seat {seat}'s turn", hand_no)
            if act not in (32, 33):
                raise RecordError("bad_auction", f"hand {hand_no}: action {act} in the first bidding round", hand_no)
            auction.append({"seat": seat, "call": "take" if act == 33 else "pass"})
            if act == 33:
                taker, strain = seat, turned // 8
                break
        if taker is None:                                     # round 2: another suit or pass
            for seat in order:
                act, who = st.take(chance=False)
                if who is not None and who != seat:
                    raise RecordError("seat_out_of_turn", f"hand {hand_no}: seat {who} bids in seat {seat}'s turn", hand_no)
                if act != 32 and not 34 <= act <= 37:
                    raise RecordError("bad_auction", f"hand {hand_no}: action {act} in the second bidding round", hand_no)
                auction.append({"seat": seat, "call": "pass" if act == 32 else "CDHS"[act - 34]})
                if act != 32:
                    taker, strain = seat, act - 34
                    break
        if taker is None:                                     # eight passes: a redeal by the next dealer
            hands.append(new_hand(**common, hand_no=hand_no, source_line=line, dealer=dealer,
                                  source_hand_id=f"{game_id}#{hand_no}", turned_card=turned, auction=auction,
                                  belote_seat=None))
            dealer = (dealer + 1) % 4
            continue
        if auction[-1]["call"] == "take":
            held[taker].append(turned)
            dealt.add(turned)
            schedule = order + order + [s for s in order if s != taker]
        else:                                                 # the turned card goes back into the stock
            schedule = order * 3
        for seat in schedule:
            deal(seat)
        plays, seats = [], []
        for _ in range(32):
            card, who = st.take(chance=False)
            if card > 31:
                raise RecordError("bad_record", f"hand {hand_no}: action {card} where a card is played", hand_no)
            plays.append(card)
            seats.append(who if who is not None else -1)
        if players is None:
            raise RecordError("bad_record", "the history gives no players, so the seat of each play is unknown", hand_no)
        margin = None if returns is None else int(round(returns[0]))
        hands.append(new_hand(**common, hand_no=hand_no, source_line=line, dealer=dealer,
                              source_hand_id=f"{game_id}#{hand_no}", initial_hands=[mask_of(h) for h in held],
                              turned_card=turned, auction=auction, taker=taker, strain="CDHS"[strain],
                              plays=plays, play_seats=seats, recorded_margin=margin))
        break
    if st.i != len(actions):
        raise RecordError("bad_record", f"{len(actions) - st.i} actions after the end of the deal", hand_no)
    winner = None if returns is None or returns[0] == 0 else (0 if returns[0] > 0 else 1)
    game = finish_game({k: v for k, v in common.items()} | {"target": None, "recorded_final": None,
                                                              "recorded_winner": winner}, hands)
    return game, hands
