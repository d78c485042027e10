"""Simulated belote games: complete, legal, reproducible games in Rebelote's native format.

:func:`simulate` plays ``games`` games under a ruleset with simple bots and yields one native game
object (:func:`pipeline.formats.native.game_to_json`) per game; :func:`write_jsonl` writes such objects as
JSON Lines and :func:`simulate_to_file` does both. Output depends only on ``(rules, games, seed)``:
every random draw comes from one ``numpy.random.default_rng(seed)`` in a fixed order, so the same
arguments give byte-identical files.

Table and deal
    ``deal.n_players`` seats in playing order, teams ``seat % 2``: 4 seats with 8 tricks of 32 cards, or 2
    seats (each its own team) or 3 (each for himself) with a prise auction and 8, 9 or 10 tricks of a 32- or
    24-card pack: every shape the ruleset loader accepts, but 2 seats with a bid or strain auction, which
    raises ValueError at once, with a sentence (:func:`shape_error`). The first dealer is drawn,
    then with 4 and 3 seats the deal moves one seat on each hand (2 seats: see below); seat ``dealer + 1``
    speaks first and leads the first trick.

    * ``auction.style = "prise"`` (classic belote, variant ``"belote"``): 3 then 2 cards each, the
      21st card turned up. Round 1: each seat from ``dealer + 1`` may ``take`` (the turned suit is
      trump); round 2: each may name another suit (call ``C``/``D``/``H``/``S``). The taker gets the
      turned card and 2 more, the others 3 more. Both rounds passed: the hand is passed out and
      recorded with no taker, no ``initial_hands`` (the deal was never completed) and no plays.
      Suit contracts only (a prise ruleset must allow the four suits; no-trump / all-trump are never named).
    * ``auction.style = "bid"`` (coinche, variant ``"coinche"``): 3-2-3, 8 cards each. Bids strictly
      increase from 80 to 160 by tens, or capot, in any strain of ``auction.strains`` (calls ``110S``,
      ``capotH``, ``90NT``, ``capotAT``); the defending side may ``coinche`` (which freezes the bidding),
      the taking side may then ``surcoinche`` (which ends the auction); three passes after a bid or
      coinche end it, four passes at the start pass the hand out (recorded with the complete hands and
      no plays).
    * ``auction.style = "strain"`` (Bulgarian, variant ``"bulgarian"``, rules.md R3-R4, R32-R33): 3 then 2
      cards each, the auction, then 3 more each (8). Each call names a contract of ``auction.strains``
      strictly above the current one, clubs < diamonds < hearts < spades < no-trump < all-trump (calls
      ``C`` ... ``NT``, ``AT``), or passes, or doubles (``coinche``: the side not holding the contract) or
      redoubles (``surcoinche``: the holding side, once doubled); each at most once per contract. A new contract cancels any double.
      Three passes after any call end the auction; four passes at the start pass the hand out (recorded
      with no ``initial_hands``: the deal was never completed). The contract has no bid value; its
      ``coinche`` is the double level standing at the end (0, 1, 2).
    * 2 and 3 players with 8 tricks (variants ``"belote-2p"`` / ``"belote-3p"``; seed 000 / 003 with 32
      cards, 16 / 8 of them out of play; EXOTY, FUNBELOTE with 24): the 4-player prise deal over 2 or 3 seats:
      3 + 2 cards each, the next card turned, the prise auction, the taker gets the turned card and 2 more,
      the others 3 (:func:`pipeline.simulate.deal.deal_prise_small`). No exchange of the trump 7.
    * 2 players (``deal.n_players = 2``, ``deal.tricks = 9``, variant ``"belote-2p"``; seed 001, rules.md R3):
      3 + 3 cards each from ``dealer + 1``, the 13th card turned. Round 1: each may ``take`` the turned suit;
      round 2: each may name another suit; both rounds passed: passed out (no ``initial_hands``, no plays).
      After a contract 3 more cards each (9): the turned card goes to nobody, 14 cards stay out of play.
      With the turned suit trump, the holder of its 7 may exchange the 7 for the turned card (heuristic bot:
      when that raises its value in the suit or its card points, i.e. unless an 8 is turned; random bot:
      one time in two); ``initial_hands`` are the 9-card hands after any exchange. The player who scored
      more in a hand deals the next one; after a passed-out hand (or equal scores) the other player deals.

      With ``deal.tricks = 10`` (2 or 3 players; rules.md R3's Bulgarian 2-player deal, 6 then 4) the same
      with 4 more cards each after the auction.

    * 3 players (``deal.n_players = 3``, variant ``"belote-3p"``; rules.md R3): with ``deal.tricks = 9``
      (ADPOKER3) 3 + 3 cards each, the 19th card turned, the prise auction over 3 seats, then 3 more each (9):
      the turned card goes to nobody and, as with 2 players, the holder of the trump 7 may exchange it for the
      turned card; 5 cards stay out of play. With ``deal.tricks = 8`` and ``deal.deck = 24`` (EXOTY,
      FUNBELOTE; 9 to ace) 3 + 2 cards each, the 16th card turned, the taker gets it and 2 more, the others 3.
      Passed out: no ``initial_hands``, no plays. No seat has a partner: a bot always plays against the one
      winning the trick.

    Announcements: under a ruleset that counts declarations or belote only when the record shows them
    announced (``declarations.count`` / ``belote.count`` = ``"announced"``: coinche-1000), every player
    announces what he holds: each hand is first scored counting what is held, and every item held (each
    declaration, won or lost in the contest, and each belote) is written as the hand's ``announced`` list
    (``{seat, kind, rank, suit, length}``, the native format's); the recorded scores are then those of the
    ruleset itself, reading that list. Other rulesets' records carry no ``announced`` (``"announced_else_held"``
    then reads them as held).

    A game runs hands until the game ends under the ruleset (:func:`pipeline.rescore.game.game_pass`
    is run on the game's accumulated scores after every hand: a total at or above ``game.target``
    with unequal totals; litige points go to the winner of the next decided hand), at most
    :data:`MAX_HANDS` hands (a game cut there has no recorded winner).

Players (:data:`PLAYERS`): a fixed pool of 8 bots; each game draws 4 (or 2, or 3) distinct ones with the rng.

    =========  =========
    name       kind
    =========  =========
    Alice      random
    Bruno      heuristic
    Chloé      random
    Driss      heuristic
    Emma       random
    Farid      heuristic
    Gisèle     random
    Hugo       heuristic
    =========  =========

    * ``random``: plays a uniformly random legal card; takes / names a suit / bids the next level
      rarely and at random, in a random allowed strain (bid capot very rarely); in the strain auction
      names a random higher contract now and then; coinches / doubles and surcoinches / redoubles rarely.
    * ``heuristic``: values each suit as trump (J 6, 9 4, A 3, 10 2, other trumps 2 each, outside aces 4,
      outside tens guarded by their ace 2, voids 1 each with 3+ trumps); no-trump per suit (ace 5, ten beside
      its ace 3, king beside A-10 1, each card past the third of an ace-headed suit 1, guarded ten without the
      ace 1, a suit stopped by neither -1); all-trump per suit (jack 5, nine beside its jack 3, ace beside J-9
      1, each card past the third of a jack-headed suit 1, guarded nine without the jack 1). Prise: takes /
      names the best suit holding its J or 9, 2+ trumps and a value of 11+ (the turned card counted in; with 2
      players, who never get it, the 6 cards alone). Bid: a suit with its J or 9, 3+ trumps and a value of
      12+, no-trump with 2+ aces and 12+, all-trump with 2+ jacks and 12+; bids the best of them, 80 plus 10
      per 3 points above 12 (up to 160); capot with J, 9, 5+ trumps and 36+ (4 aces / 4 jacks and 28+ in
      no-trump / all-trump); outbids its partner only by 20 or more; coinches an opponent's contract holding
      3+ of its trumps with the J or 9 (no-trump: 2 aces and 3 stopped suits; all-trump: 2 jacks and 3 jacks
      or J-9 pairs; on 120+ also 2 trumps and 2 outside aces / 2 aces / 2 jacks); surcoinches when its own
      value in the contract strain is 30 over the bid. Strain (5 cards): a suit with its J or 9, 2+ trumps and
      10+, no-trump with 2+ aces and 11+, all-trump with 2+ jacks and 12+; names the best-valued one it may
      (over its partner's contract only with 4 more); doubles holding the contract suit's J and another trump
      (no-trump: 2 aces; all-trump: 2 jacks); redoubles with 6 over its threshold.
      Play (comparisons by :func:`pipeline.trick_order.strength`: no trump in no-trump, trump order
      in every suit in all-trump; a *master* is a card whose stronger cards of its suit are all played
      or in the player's own hand; with 2 players the out-of-play cards both have seen, the turned card or
      the 7 given for it and the bottom card, count as played): leads a non-trump master (highest points
      first: aces, or jacks in all-trump), else (taking side) its best trump, else its cheapest card; when
      an opponent is winning, wins as cheaply as it can, else discards its lowest-point card (trumps and
      masters kept); when its partner is winning (last to play, or partner holding a trump or a master) feeds
      its highest-point card that is neither a trump nor a master.

Vectorisation: all active games of a batch of :data:`CHUNK` games play their current hand together.
The deal, the auctions (a loop over turns) and the card play (a loop over the 32 (or 18) plays, each step
one :func:`pipeline.rescore.play.legal_cards` call and numpy choices for every hand) are numpy over
hands; Python loops per hand only to build the output rows. Hands are scored with
:func:`pipeline.rescore.engine.score_batch`; the recorded fields of each hand (``recorded.score``,
``card_points``, ``totals`` after the hand) and of the game (``recorded_final``, ``recorded_winner``)
are the simulator's own scoring under the ruleset.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import rules as rules_mod
from pipeline.cards import STRAINS
from pipeline.formats import native
from pipeline.formats.records import finish_game, new_hand
from pipeline.rescore.engine import score_batch
from pipeline.rescore.game import game_pass
from pipeline.rescore.play import PlayRules
from pipeline.rescore.tables import BIT, build
from pipeline.rules import Ruleset
from pipeline.simulate import bots
from pipeline.simulate.deal import deal_positions, deal_prise_small
from pipeline.storage import schema

PLAYERS: tuple[str, ...] = ("Alice", "Bruno", "Chloé", "Driss", "Emma", "Farid", "Gisèle", "Hugo")
"""The bot pool, by index."""
HEURISTIC = np.array([False, True, False, True, False, True, False, True])
"""True for the heuristic bots of :data:`PLAYERS`, False for the random ones."""

SOURCE = "simulate"
SOURCE_FORMAT = "rebelote"
SOURCE_FILE = "<simulate>"
MAX_HANDS = 200
CHUNK = 2048
"""Games simulated together (a fixed constant: changing it changes the output for a seed). The games of a chunk
draw from the rng together, so game ``i`` also depends on how many games its chunk holds (on ``games`` when
``games - i < CHUNK``): hence the content digest in its id (:func:`simulate`)."""
DIGEST_CHARS = 8
"""Hex digits of the content digest ending a simulated game's ``source_game_id`` (:func:`simulate`)."""
VARIANTS = {"prise": "belote", "bid": "coinche", "strain": "bulgarian"}
"""``auction.style`` -> the ``variant`` written (hands.variant) with 4 players."""
VARIANT_2P = "belote-2p"
"""The ``variant`` written for 2-player (prise) rulesets."""
VARIANT_3P = "belote-3p"
"""The ``variant`` written for 3-player (prise) rulesets."""

# ---------------------------------------------------------------------------------------------- scoring

def _list_column(values: np.ndarray, valid: np.ndarray, typ: pa.DataType) -> pa.Array:
    n, w = values.shape
    offsets = pa.array(np.arange(0, n * w + 1, w, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, pa.array(values.reshape(-1), type=typ), mask=pa.array(~valid))


def _score_table(game_ids: list[str], hand_no: np.ndarray, dealer: np.ndarray, init: np.ndarray,
                 has_init: np.ndarray, taker: np.ndarray, strain: np.ndarray, bid: np.ndarray,
                 capot: np.ndarray, coin: np.ndarray, plays: np.ndarray, seats: np.ndarray,
                 n_players: int = 4) -> pa.Table:
    """The columns of the ``hands`` table that :func:`score_batch` reads, straight from arrays."""
    n = len(game_ids)
    played = taker >= 0
    return pa.table({
        "hand_key": pa.array([""] * n, type=pa.string()),
        "game_id": pa.array(game_ids, type=pa.string()),
        "hand_no": pa.array(hand_no.astype(np.int32)),
        "source": pa.array([SOURCE] * n, type=pa.string()),
        "n_players": pa.array(np.full(n, n_players, dtype=np.int8)),
        "dealer": pa.array(dealer.astype(np.int8)),
        "completeness": pa.array(["full_play"] * n, type=pa.string()),
        "initial_hands": _list_column(init.astype(np.uint32), has_init, pa.uint32()),
        "taker": pa.array(taker.astype(np.int8), mask=~played),
        "strain": pa.array(np.array(STRAINS, dtype=object)[np.clip(strain, 0, bots.N_STRAINS - 1)], type=pa.string(),
                           mask=~played),
        "bid": pa.array(bid.astype(np.int16), mask=~played | (bid < 0)),
        "capot_bid": pa.array(capot.astype(bool)),
        "coinche": pa.array(coin.astype(np.int8)),
        "plays": _list_column(plays, played, pa.int8()),
        "play_seats": _list_column(seats, played, pa.int8()),
        "recorded_score": pa.nulls(n, type=pa.list_(pa.int32())),
    })


# ---------------------------------------------------------------------------------------------- games

def _next_dealer_2p(dealer: np.ndarray, taker: np.ndarray, hand_score: list) -> np.ndarray:
    """Two players (seed 001): the player who scored more in the hand deals the next one; after a passed-out
    hand (or equal scores) the other player deals."""
    sc = np.array([s if s is not None else [0, 0] for s in hand_score], dtype=np.int64).reshape(-1, 2)
    higher = np.where(sc[:, 0] > sc[:, 1], 0, 1)
    return np.where((taker >= 0) & (sc[:, 0] != sc[:, 1]), higher, (dealer + 1) % 2)


def _simulate_chunk(rng: np.random.Generator, rules: Ruleset, first: int, count: int, seed: int,
                    prep: dict[str, Any]) -> list[dict]:
    style = prep["style"]
    NP, NT = prep["n_players"], prep["tricks"]
    players = rng.permuted(np.tile(np.arange(len(PLAYERS)), (count, 1)), axis=1)[:, :NP]
    heur_all = HEURISTIC[players]
    dealer_all = rng.integers(0, NP, count).astype(np.int64)
    hand_no_all = np.zeros(count, dtype=np.int64)
    active = np.ones(count, dtype=bool)
    # the games' keys while they are played (score_batch / game_pass group hands by them); the id written is only
    # known when the game ends, from its deals (see simulate())
    prefixes = [f"{rules.name}-{seed}-{first + i:06d}" for i in range(count)]  # unique across rulesets
    gids = [f"{SOURCE}:{s}" for s in prefixes]
    commons = [{"game_id": gids[i], "source": SOURCE, "source_format": SOURCE_FORMAT, "source_file": SOURCE_FILE,
                "source_game_id": prefixes[i], "variant": prep["variant"], "ruleset_hint": rules.name, "n_players": NP,
                "players": [PLAYERS[p] for p in players[i].tolist()]} for i in range(count)]
    deals = [hashlib.sha256() for _ in range(count)]     # each game's dealt cards, hand after hand
    rows_of: list[list[dict]] = [[] for _ in range(count)]
    results: list[dict | None] = [None] * count
    acc: pa.Table | None = None

    while active.any():
        A = np.nonzero(active)[0]
        n = len(A)
        rows = np.arange(n)
        dealer = dealer_all[A]
        heur = heur_all[A]
        hand_no = hand_no_all[A] + 1
        deck = rng.permuted(np.tile(prep["pack"], (n, 1)), axis=1)
        turned = None
        bid = np.full(n, -1, dtype=np.int64)
        capot = np.zeros(n, dtype=bool)
        coin = np.zeros(n, dtype=np.int64)
        full = np.zeros((n, NP), dtype=np.uint32)
        known = None
        if NP in (2, 3):
            full, turned, calls, taker, strain, has_init, known = deal_prise_small(rng, deck, dealer, heur,
                                                                                    prep["points"], NP, NT)
        elif style == "prise":
            five = np.zeros((n, 4), dtype=np.uint32)
            for seat, a, b in deal_positions(dealer, [3, 2]):
                five[rows, seat] |= bots.masks(deck[:, a:b])
            turned = deck[:, 20].astype(np.int64)
            calls, taker, strain = bots.auction_prise(rng, five, turned, dealer, heur)
            # the rest of the deal: turned card + 2 to the taker, 3 to the others, from dealer + 1
            full[:] = five
            took = taker >= 0
            full[rows[took], taker[took]] |= BIT[turned[took]]
            rest = deck[:, 21:].astype(np.int64)
            ptr = np.zeros(n, dtype=np.int64)
            for k in range(4):
                seat = (dealer + 1 + k) % 4
                size = np.where(seat == taker, 2, 3)
                for i in range(3):
                    card = rest[rows, np.clip(ptr + i, 0, 10)]
                    full[rows, seat] |= np.where(i < size, BIT[card], np.uint32(0))
                ptr += size
            has_init = took
        elif style == "strain":
            # 3 + 2 cards each, the auction, then 3 more each from dealer + 1 (never dealt when passed out)
            five = np.zeros((n, 4), dtype=np.uint32)
            for i, (seat, a, b) in enumerate(deal_positions(dealer, [3, 2, 3])):
                if i < 8:
                    five[rows, seat] |= bots.masks(deck[:, a:b])
                full[rows, seat] |= bots.masks(deck[:, a:b])
            calls, taker, strain, coin = bots.auction_strain(rng, five, dealer, heur, prep["strains"])
            has_init = taker >= 0
        else:
            for seat, a, b in deal_positions(dealer, [3, 2, 3]):
                full[rows, seat] |= bots.masks(deck[:, a:b])
            calls, taker, strain, level, coin = bots.auction_bid(rng, full, dealer, heur, prep["strains"])
            capot = level == bots.CAPOT_LEVEL
            bid = np.where((level >= 0) & ~capot, 80 + 10 * level, -1)
            has_init = np.ones(n, dtype=bool)
        played = taker >= 0
        plays = np.zeros((n, NP * NT), dtype=np.int8)
        seats = np.zeros((n, NP * NT), dtype=np.int8)
        if played.any():
            p_plays, p_seats = bots.play_cards(rng, full[played], dealer[played], strain[played], taker[played],
                                     heur[played], prep["points"], prep["play_rules"], NP, NT,
                                     None if known is None else known[played])
            plays[played], seats[played] = p_plays, p_seats

        round_gids = [gids[i] for i in A.tolist()]
        table = _score_table(round_gids, hand_no, dealer, full, has_init, taker, strain, bid, capot, coin,
                             plays, seats, NP)
        announced = None
        if prep["held"] is not None:   # the players announce what they hold
            announced = _announced_column(score_batch(table, prep["held"]).column("declarations"))
            table = table.append_column("announced", announced)
        sc = score_batch(table, rules)
        status = sc.column("status").to_pylist()
        legal = sc.column("legal").to_pylist()
        if any(s not in ("scored", "passed_out") for s in status) or any(v is False for v in legal):
            raise RuntimeError("simulate: the engine rejected a simulated hand (simulator bug)")  # pragma: no cover
        acc = sc if acc is None else pa.concat_tables([acc, sc])
        gp = game_pass(acc, rules)
        gp_at = {g: i for i, g in enumerate(gp.column("game_id").to_pylist())}
        gp_totals = gp.column("totals").to_pylist()
        gp_final = gp.column("totals_at_end").to_pylist()
        gp_winner = gp.column("winner").to_pylist()

        # output rows (the only per-hand Python loop)
        hs = sc.column("hand_score").to_pylist()
        cps = sc.column("card_points").to_pylist()
        L_dealer, L_taker, L_strain = dealer.tolist(), taker.tolist(), strain.tolist()
        L_bid, L_capot, L_coin, L_hand_no = bid.tolist(), capot.tolist(), coin.tolist(), hand_no.tolist()
        L_full, L_has = full.tolist(), has_init.tolist()
        L_plays, L_seats = plays.tolist(), seats.tolist()
        L_calls = calls.tolist()
        L_turned = None if turned is None else turned.tolist()
        L_ann = [None] * n if announced is None else announced.to_pylist()
        dealt = np.where(has_init[:, None], full, np.uint32(0)).astype("<u4").tobytes()   # (n, NP) masks
        width = 4 * NP
        finished = []
        for r, gi in enumerate(A.tolist()):
            d = L_dealer[r]
            auction = [{"seat": (d + 1 + t) % NP, "call": bots.CALL_NAMES[c]} for t, c in enumerate(L_calls[r]) if c >= 0]
            tk = L_taker[r]
            gpi = gp_at[gids[gi]]
            row = new_hand(
                **commons[gi], hand_no=L_hand_no[r], dealer=d, completeness="full_play",
                initial_hands=L_full[r] if L_has[r] else None,
                turned_card=None if L_turned is None else L_turned[r],
                auction=auction,
                taker=tk if tk >= 0 else None,
                strain=STRAINS[L_strain[r]] if tk >= 0 else None,
                bid=L_bid[r] if tk >= 0 and L_bid[r] >= 0 else None,
                capot_bid=bool(L_capot[r]) if tk >= 0 else False,
                coinche=L_coin[r] if tk >= 0 else 0,
                plays=L_plays[r] if tk >= 0 else None,
                play_seats=L_seats[r] if tk >= 0 else None,
                announced=L_ann[r],
                recorded_score=hs[r], recorded_card_points=cps[r], recorded_totals=gp_totals[gpi],
            )
            rows_of[gi].append(row)
            deals[gi].update(dealt[r * width:(r + 1) * width])
            ended = gp_winner[gpi] is not None
            if ended or L_hand_no[r] >= MAX_HANDS:
                sgid = f"{prefixes[gi]}-{deals[gi].hexdigest()[:DIGEST_CHARS]}"
                # (the hand rows keep the key they were played under: game_to_json writes the game's id only)
                game = finish_game(commons[gi] | {
                    "game_id": f"{SOURCE}:{sgid}", "source_game_id": sgid,
                    "target": prep["target"],
                    "recorded_final": gp_final[gpi] if ended else gp_totals[gpi],
                    "recorded_winner": gp_winner[gpi]}, rows_of[gi])
                results[gi] = native.game_to_json(game, rows_of[gi])
                rows_of[gi] = []
                finished.append(gi)
        hand_no_all[A] = hand_no
        dealer_all[A] = _next_dealer_2p(dealer, taker, hs) if NP == 2 else (dealer + 1) % NP
        if finished:
            active[finished] = False
            keep = [gids[i] for i in np.nonzero(active)[0].tolist()]
            acc = acc.filter(pc.is_in(acc.column("game_id"), value_set=pa.array(keep, type=pa.string())))
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


def shape_error(rules: Ruleset) -> str | None:
    """Why ``rules`` cannot be simulated (a sentence naming the ruleset and what it sets), or None when it can.

    Every deal shape the ruleset loader accepts is simulated: 4 players with 8 tricks of 32 cards, any auction
    style; 2 or 3 players with a prise auction and 8 tricks (the turned card to the taker), or 9 or 10 (the
    turned card to nobody), of a 32- or 24-card pack. Refused: 2 players with a bid or strain auction (no
    source describes one; the loader refuses it with 3 players), an auction whose strains leave the bots no
    contract (a prise ruleset must allow the four suits)."""
    style = rules["auction.style"]
    if style not in VARIANTS:  # pragma: no cover - the ruleset loader already refuses others
        return f"ruleset {rules.name}: auction style {style!r} cannot be simulated"
    strains = np.isin(np.array(STRAINS), list(rules["auction.strains"]))
    if (not strains[:4].all()) if style == "prise" else (not strains.any()):
        return (f"ruleset {rules.name}: auction style {style!r} with strains {rules['auction.strains']} cannot be "
                "simulated (a prise auction needs the four suits: the turned card may be of any suit)")
    n_players, tricks, deck = int(rules["deal.n_players"]), int(rules["deal.tricks"]), int(rules["deal.deck"])
    if n_players == 4:
        ok = (tricks, deck) == (8, 32)
    else:
        ok = style == "prise" and tricks in (8, 9, 10) and deck in (24, 32) and \
            n_players * tricks + (tricks != 8) <= deck      # 9 / 10 tricks: the turned card is dealt to nobody
    if not ok:
        return (f"ruleset {rules.name}: {n_players} players, {tricks} tricks, a {deck}-card pack, auction style "
                f"{style!r} cannot be simulated (4 players: 8 tricks of 32 cards; 2 or 3 players: a prise auction, "
                "8 tricks, or 9 or 10 with the turned card left over)")
    return None


def _announcing(rules: Ruleset) -> Ruleset | None:
    """When ``rules`` counts declarations or belote only as the record shows them announced
    (``declarations.count`` / ``belote.count`` = ``"announced"``), the same ruleset counting what is held: the
    simulator scores each hand under it first and writes every item held (each declaration, won or lost, and
    each belote) as the hand's ``announced`` list, so that the players announce what they hold. None otherwise
    (``"announced_else_held"`` reads a record without announcements as held, which is what was dealt)."""
    if not any(rules[f"{k}.count"] == "announced" and rules[f"{k}.enabled"] for k in ("declarations", "belote")):
        return None
    params = {sec: dict(body) for sec, body in rules.params.items()}
    params["declarations"]["count"] = "held"
    params["belote"]["count"] = "held"
    return dataclasses.replace(rules, params=params)


_ANNOUNCED_TYPE = schema.schema("hands").field("announced").type


def _announced_column(declarations: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``hands.announced`` from the ``scores.declarations`` items of the same hands (their seat, kind, rank,
    suit, length; a rank or suit of -1, as a carré's suit or a belote's rank, becomes null). A hand with no
    items gets an empty list, a hand not scored null."""
    if isinstance(declarations, pa.ChunkedArray):
        declarations = declarations.combine_chunks()
    flat = declarations.flatten()
    def opt(name):
        v = flat.field(name)
        return pc.if_else(pc.less(v, 0), pa.scalar(None, v.type), v)
    items = pa.StructArray.from_arrays([flat.field("seat"), flat.field("kind"), opt("rank"), opt("suit"),
                                        flat.field("length")], fields=list(_ANNOUNCED_TYPE.value_type))
    offsets = pc.subtract(declarations.offsets, declarations.offsets[0])
    return pa.ListArray.from_arrays(offsets, items, type=_ANNOUNCED_TYPE, mask=declarations.is_null())


def simulate(rules: Ruleset | str, games: int, seed: int) -> Iterator[dict]:
    """Yield ``games`` native game objects (``pipeline.formats.native.game_to_json``) simulated under ``rules``.

    Games come in order, i = 0..games-1; the output depends only on the arguments. ``rules`` may be a
    :class:`Ruleset` or a ruleset name/path. Raises ValueError at once (before the first game) for a negative
    ``games`` or a ruleset :func:`shape_error` refuses.

    Ids: ``source_game_id`` is ``f"{rules.name}-{seed}-{i:06d}-{d}"`` and ``game_id`` ``f"simulate:{source_game_id}"``,
    where ``d`` is the first :data:`DIGEST_CHARS` (8) hex digits of the SHA-256 of the game's dealt cards: for each
    hand in order, its ``n_players`` initial hands as little-endian uint32 card masks (bit ``8 * suit + rank``), or
    as many zero masks when the hand has no ``initial_hands`` (passed out before the deal was completed). Game
    ``i`` is not the same game for every ``games`` (the games of a :data:`CHUNK` draw from the rng together), so
    the index alone would name different games in two runs: with the digest, the same game always gets the same
    id (a copy imported twice is a duplicate) and two different games different ids (one lake can hold
    ``simulate`` runs of any sizes).
    """
    if isinstance(rules, (str, Path)):
        rules = rules_mod.load(rules)
    if int(games) < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    why = shape_error(rules)
    if why:
        raise ValueError(why)
    style = rules["auction.style"]
    strains = np.isin(np.array(STRAINS), list(rules["auction.strains"]))
    if style == "prise":
        strains[4:] = False
    n_players, tricks, deck = int(rules["deal.n_players"]), int(rules["deal.tricks"]), int(rules["deal.deck"])
    prep = {
        "style": style,
        "n_players": n_players,
        "tricks": tricks,
        "strains": strains,
        "variant": {2: VARIANT_2P, 3: VARIANT_3P}.get(n_players, VARIANTS[style]),
        "pack": bots.CARDS if deck == 32 else bots.CARDS[bots.CARDS % 8 >= 2],   # 24 cards: 9 to ace
        "points": build(rules).points,
        "play_rules": PlayRules.of(rules),
        "target": int(rules["game.target"]),
        "held": _announcing(rules),
    }
    return _games(rules, int(games), seed, prep)


def _games(rules: Ruleset, games: int, seed: int, prep: dict[str, Any]) -> Iterator[dict]:
    rng = np.random.default_rng(seed)
    for first in range(0, games, CHUNK):
        count = min(CHUNK, games - first)
        yield from _simulate_chunk(rng, rules, first, count, seed, prep)


def write_jsonl(objs: Iterable[dict], path: str | Path) -> int:
    """Write objects as JSON Lines (orjson, one object per line; gzip when ``path`` ends in ``.gz``).

    Returns the number of lines written."""
    path = Path(path)
    n = 0
    with path.open("wb") as raw:
        # mtime=0 and no file name in the gzip header, so that equal content gives equal bytes
        f = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if path.suffix == ".gz" else raw
        try:
            for obj in objs:
                f.write(orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE))
                n += 1
        finally:
            if f is not raw:
                f.close()
    return n


def simulate_to_file(rules: Ruleset | str, games: int, seed: int, path: str | Path,
                     progress=None) -> tuple[int, int]:
    """Simulate and write to ``path`` as native JSON Lines. Returns (games, hands) written. ``progress``: called
    as ``progress("games", done, games)`` after each game written."""
    counts = [0, 0]
    objs = simulate(rules, games, seed)     # raises before the file is opened

    def counted() -> Iterator[dict]:
        for obj in objs:
            counts[0] += 1
            counts[1] += len(obj["hands"])
            if progress is not None:
                progress("games", counts[0], games)
            yield obj

    write_jsonl(counted(), path)
    return counts[0], counts[1]
