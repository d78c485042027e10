"""Declarations (tierce, quarte, quinte, carré): those each seat holds or announced, settled between teams.

Where they come from (``declarations.count``):
    "held": detected in the initial hands. Sequences run in face order 7 8 9 10 J Q K A within a suit
    (rules.md R21), each maximal run of 3+ being one declaration; a suit's runs are read from a 256-entry
    lookup table indexed by the suit's byte of the hand bitmask. A carré is the four cards of a rank valued
    above 0 by ``declarations.carre`` (``carre_no_trump`` in no-trump). With
    ``carre_cards_in_sequences = false`` (Bulgarian rule) a carré's cards are removed before runs are read.
    "announced": taken from what the source recorded (``hands.announced``), belote included.
What they are worth and how they rank: :mod:`pipeline.rescore.declaration_values`; the contest between teams:
:mod:`pipeline.rescore.declaration_contest`; belote-rebelote held in the hands: :mod:`pipeline.rescore.belote`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.cards import NO_TRUMP
from pipeline.rescore.arith import mod
from pipeline.rescore.declaration_contest import (CONTESTS, TIES, Declarations, _dealers, _mark_scored, _settle,
                                                  _settle_row)
from pipeline.rescore.declaration_items import KINDS, Entries
from pipeline.rescore.declaration_values import _active, _seq_value, carre_key, seq_key
from pipeline.jit import njit, njit_inner
from pipeline.rules import Ruleset, n_teams


def _runs(byte: int) -> list[tuple[int, int]]:
    """Maximal runs (length, top rank index) of set bits in a suit byte."""
    out, r = [], 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            out.append((r - start, r - 1))
        else:
            r += 1
    return out


@dataclass(frozen=True)
class DeclarationTables:
    seq_points: np.ndarray   # int32 (256,): points of all sequences in a suit byte
    seq_key: np.ndarray      # int64 (256,): key of the best sequence in the byte, outside trump (0 = none)
    carre_points: np.ndarray  # int32 (2, 8): points of a carré by rank index; row 1 = in no-trump
    carre_key: np.ndarray     # int64 (2, 8)
    slot_length: np.ndarray   # int8 (256, 3): each scoring sequence of a suit byte, as its own slot (0 = none)
    slot_top: np.ndarray      # int8 (256, 3): top face rank index of that sequence
    slot_points: np.ndarray   # int32 (256, 3): its points


def build_tables(rules: Ruleset) -> DeclarationTables:
    """Lookup tables for the ruleset's declaration values."""
    seq_points = np.zeros(256, dtype=np.int32)
    seq_keys = np.zeros(256, dtype=np.int64)
    slot_length = np.zeros((256, 3), dtype=np.int8)
    slot_top = np.zeros((256, 3), dtype=np.int8)
    slot_points = np.zeros((256, 3), dtype=np.int32)
    for b in range(256):
        slots = []
        for length, top in _runs(b):
            v = _seq_value(length, rules)
            if v > 0:
                seq_points[b] += v
                seq_keys[b] = max(seq_keys[b], int(seq_key(v, length, top, 0, rules)))
                slots.append((length, top, v))
                if length == 8 and rules["declarations.eight_run_extra_tierce"]:
                    seq_points[b] += int(rules["declarations.tierce"])
                    slots.append((3, top, int(rules["declarations.tierce"])))
        for j, (length, top, v) in enumerate(slots):   # at most 2 runs of 3+ in 8 ranks, + the extra tierce
            slot_length[b, j], slot_top[b, j], slot_points[b, j] = length, top, v
    tables = [rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")]
    carre_points = np.array(tables, dtype=np.int32)
    keys = np.array([[int(carre_key(v, r, rules)) for r, v in enumerate(t)] for t in tables], dtype=np.int64)
    return DeclarationTables(seq_points, seq_keys, carre_points, keys, slot_length, slot_top, slot_points)


@njit_inner
def _carres(h, nt, carre_points):
    """Ranks (bit r = rank index r) of the carrés that hand ``h`` holds and that score (points > 0), in
    no-trump (``nt``) or not."""
    four = h & (h >> 8) & (h >> 16) & (h >> 24) & 0xFF     # bit r: all four cards of rank r held
    ranks = 0
    while four:
        r = 0
        while not (four >> r) & 1:
            r += 1
        four &= ~(1 << r)
        if carre_points[nt, r] > 0:
            ranks |= 1 << r
    return ranks


@njit_inner
def _seq_hand(h, ranks, carre_cards_in_sequences):
    """The cards of ``h`` that sequences are read from: without the carrés' cards under the Bulgarian rule."""
    if carre_cards_in_sequences:
        return h
    for r in range(8):
        if ranks >> r & 1:
            h &= ~(np.int64(0x01010101) << r)
    return h


@njit_inner
def held_one(hands, h0, P, strain, active, carre_points, carre_key, seq_points, seq_key, slot_points, trump_bonus,
             carre_cards_in_sequences, contest, K, sp, sk, cp, ck, src, team, seq_wins, carre_wins, dst, pts, key, tk,
             th, tie, first):
    """The declarations held in one hand, settled between its teams: the one implementation of held
    declarations (see module doc), compiled. hands: uint32 flat buffer holding the P initial hands from ``h0``
    on; strain: 0-5; active: declarations count in this hand (:func:`declaration_values._active`); the tables
    of :class:`DeclarationTables`; trump_bonus: 1 when a sequence in trump breaks ties. Writes row ``src`` of
    sp/cp (int64 (., P) points of each seat's sequences / carrés) and sk/ck (key of its best one), then the
    contest (:func:`declaration_contest._settle_row`; ``tie`` indexes :data:`TIES`, ``first`` is the seat that
    announces first, dealer + 1 mod P) into row ``dst`` of team (added to), seq_wins and carre_wins. Returns the
    items to list (0 when not ``active``)."""
    nt = 1 if strain == NO_TRUMP else 0
    c = 0
    for p in range(P):
        sp[src, p] = 0
        sk[src, p] = 0
        cp[src, p] = 0
        ck[src, p] = 0
        h = np.int64(hands[h0 + p])
        ranks = _carres(h, nt, carre_points)
        if ranks:
            for r in range(8):
                if ranks >> r & 1:
                    cp[src, p] += carre_points[nt, r]
                    ck[src, p] = max(ck[src, p], carre_key[nt, r])
                    c += 1
            h = _seq_hand(h, ranks, carre_cards_in_sequences)
        for s in range(4):
            byte = (h >> (8 * s)) & 0xFF
            if seq_points[byte] > 0:     # some run scores: count the items it lists
                sp[src, p] += seq_points[byte]
                k = seq_key[byte]
                if k > 0 and strain == s:
                    k += trump_bonus
                sk[src, p] = max(sk[src, p], k)
                for j in range(3):
                    if slot_points[byte, j] > 0:
                        c += 1
    if c:
        _settle_row(src, dst, sp, sk, cp, ck, active, contest, K, team, seq_wins, carre_wins, pts, key, tk, th, tie,
                    first)
    else:      # nothing that scores is held: what the contest would give, without running it
        for t in range(K):
            seq_wins[dst, t] = (contest == 3) & active     # all: nothing is contested
            carre_wins[dst, t] = ((contest == 2) | (contest == 3)) & active   # sequences_only: carrés are not contested
    return c if active else 0


@njit_inner
def seat_items(h, strain, carre_points, slot_length, slot_top, slot_points, carre_cards_in_sequences, seq_win,
               carre_win, row, p, o, e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored):
    """List the declarations of seat ``p``'s hand ``h`` (int64 card mask) in hand ``row`` one by one, from item
    ``o`` on: carrés by rank, then sequences by suit and slot; ``scored``: ``carre_win`` / ``seq_win`` of the
    seat's team. Returns the next free item."""
    nt = 1 if strain == NO_TRUMP else 0
    ranks = _carres(h, nt, carre_points)
    for r in range(8):
        if ranks >> r & 1:
            e_row[o], e_seat[o], e_kind[o], e_rank[o], e_suit[o], e_length[o] = row, p, 3, r, -1, 4
            e_points[o], e_scored[o] = carre_points[nt, r], carre_win
            o += 1
    h = _seq_hand(h, ranks, carre_cards_in_sequences)
    for s in range(4):
        byte = (h >> (8 * s)) & 0xFF
        for j in range(3):
            if slot_points[byte, j] > 0:
                length = slot_length[byte, j]
                e_row[o], e_seat[o], e_rank[o], e_suit[o], e_length[o] = row, p, slot_top[byte, j], s, length
                e_kind[o] = 2 if length >= 5 else length - 3    # tierce, quarte, quinte (KINDS)
                e_points[o], e_scored[o] = slot_points[byte, j], seq_win
                o += 1
    return o


@njit(cache=True, nogil=True)
def _detect_kernel(hands, strain, active, carre_points, carre_key, seq_points, seq_key, slot_points,
                   trump_bonus, carre_cards_in_sequences, contest, K, sp, sk, cp, ck, count, team, seq_wins,
                   carre_wins, tie, dealer):
    """:func:`held_one` for each hand of the flat buffer hands (n * P,): per-seat sp, sk, cp, ck (int64 (n, P)),
    count (int64 (n,)), and the contest into team, seq_wins, carre_wins; dealer: int (n,) dealer seats."""
    n, P = sp.shape
    pts = np.empty((1, P), dtype=np.int64)
    key = np.empty((1, P), dtype=np.int64)
    tk = np.empty(K, dtype=np.int64)
    th = np.empty(K, dtype=np.int64)
    for i in range(n):
        count[i] = held_one(hands, i * P, P, strain[i], active[i], carre_points, carre_key, seq_points, seq_key,
                            slot_points, trump_bonus, carre_cards_in_sequences, contest, K, sp, sk, cp, ck, i, team,
                            seq_wins, carre_wins, i, pts, key, tk, th, tie, mod(np.int64(dealer[i]) + 1, P))


@njit(cache=True, nogil=True)
def _held_entries_kernel(hands, strain, rows, offsets, carre_points, slot_length, slot_top, slot_points,
                         carre_cards_in_sequences, seq_wins, carre_wins, K,
                         e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored):
    """List the declarations of the hands ``rows`` one by one (:func:`seat_items` per seat), from
    ``offsets[q]`` on for ``rows[q]``."""
    P = hands.shape[1]
    for q in range(len(rows)):
        i = rows[q]
        o = offsets[q]
        for p in range(P):
            o = seat_items(np.int64(hands[i, p]), strain[i], carre_points, slot_length, slot_top, slot_points,
                           carre_cards_in_sequences, seq_wins[i, p % K], carre_wins[i, p % K], i, p, o,
                           e_row, e_seat, e_kind, e_rank, e_suit, e_length, e_points, e_scored)


def detect(hands: np.ndarray, strain: np.ndarray, rules: Ruleset, dt: DeclarationTables,
           entries: bool = False, dealer: np.ndarray | None = None) -> Declarations:
    """Declarations held in ``hands`` (uint32 (n, P), P seats) with contract ``strain`` (int8 (n,)), settled
    between the teams of P seats (card points); with ``entries`` also listed one by one
    (``Declarations.entries``). One compiled pass per hand (:func:`_detect_kernel`, the contest included).
    ``dealer``: int (n,) each hand's dealer seat, which ``declarations.tie = "first_announcer"`` needs (the
    eldest hand, dealer + 1, announces first); raises ValueError when that ruleset gets None."""
    n, p = hands.shape
    h = np.ascontiguousarray(hands, dtype=np.uint32)
    strain8 = np.ascontiguousarray(strain, dtype=np.int8)
    active = _active(strain, rules)
    sp, sk, cp, ck = (np.zeros((n, p), dtype=np.int64) for _ in range(4))
    count = np.zeros(n, dtype=np.int64)
    in_seq = bool(rules["declarations.carre_cards_in_sequences"])
    K = n_teams(p)
    team = np.zeros((n, K), dtype=np.int32)
    seq_wins = np.zeros((n, K), dtype=bool)
    carre_wins = np.zeros((n, K), dtype=bool)
    _detect_kernel(h.reshape(-1), strain8, active, dt.carre_points, dt.carre_key, dt.seq_points, dt.seq_key, dt.slot_points,
                   1 if rules["declarations.trump_breaks_ties"] else 0, in_seq,
                   CONTESTS.index(rules["declarations.contest"]), K, sp, sk, cp, ck, count, team, seq_wins, carre_wins,
                   TIES.index(rules["declarations.tie"]), _dealers(dealer, n, rules))
    dec = Declarations(sp.astype(np.int32), sk, cp.astype(np.int32), ck, np.zeros((n, K), dtype=np.int32), team,
                       seq_wins, carre_wins)
    if entries:
        rows = np.nonzero(count)[0]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(count[rows], out=offsets[1:])
        m = int(offsets[-1])
        e = Entries(np.empty(m, np.int64), np.empty(m, np.int8), np.empty(m, np.int8), np.empty(m, np.int8),
                    np.empty(m, np.int8), np.empty(m, np.int8), np.empty(m, np.int32), np.empty(m, bool))
        _held_entries_kernel(h, strain8, rows, offsets, dt.carre_points, dt.slot_length, dt.slot_top,
                             dt.slot_points, in_seq, dec.seq_wins, dec.carre_wins, n_teams(p),
                             e.row, e.seat, e.kind, e.rank, e.suit, e.length, e.points, e.scored)
        dec.entries = e
    return dec


def from_announced(announced: pa.Array | pa.ChunkedArray, strain: np.ndarray, rules: Ruleset,
                   n_players: int = 4, dealer: np.ndarray | None = None, held: np.ndarray | None = None) -> Declarations:
    """Declarations the source recorded (``hands.announced``, one list per hand), settled between the teams of
    ``n_players`` seats. ``dealer``: int (n,) each hand's dealer seat, needed by ``declarations.tie =
    "first_announcer"`` (ValueError without it): announcements are made in playing order from the eldest hand
    (dealer + 1), whatever order the record lists them in.

    Values come from the ruleset (a carré by its rank, a run by its length: tierce 3, quarte 4, quinte 5+);
    kind 'belote' adds ``belote.value`` to its team. A null list counts as nothing announced.

    ``held``: int64 (n, n_players), each seat's cards as a bitmask (``hands.initial_hands``; -1 where the record
    has no hands). A declaration is cards held (every seed text defines it so), so an announcement the seat's
    cards do not make (:func:`announced_held`) scores nothing and is not listed, and with
    ``declarations.carre_cards_in_sequences = false`` ("a card counts in one declaration only", seed 004) an
    announced sequence using a card of the same seat's announced carré scores nothing either, as the held
    path reads runs only from the cards no carré took.
    """
    if isinstance(announced, pa.ChunkedArray):
        announced = announced.combine_chunks()
    n = len(announced)
    K = n_teams(n_players)
    sp = np.zeros((n, n_players), dtype=np.int64)
    sk = np.zeros((n, n_players), dtype=np.int64)
    cp = np.zeros((n, n_players), dtype=np.int64)
    ck = np.zeros((n, n_players), dtype=np.int64)
    belote = np.zeros((n, K), dtype=np.int64)
    lengths = pc.fill_null(pc.list_value_length(announced), 0).to_numpy(zero_copy_only=False)
    parts: list[Entries] = []
    if lengths.sum():
        flat = pc.list_flatten(announced)
        row = np.repeat(np.arange(n), lengths)
        seat = flat.field("seat").to_numpy(zero_copy_only=False).astype(np.int64)
        kind = np.asarray(flat.field("kind").to_pylist(), dtype=object)
        rank = pc.fill_null(flat.field("rank"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
        suit = pc.fill_null(flat.field("suit"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
        default_len = np.select([kind == "tierce", kind == "quarte", kind == "quinte"], [3, 4, 5], 4)
        length = pc.fill_null(flat.field("length"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        length = np.where(length > 0, length, default_len)
        if held is not None:
            ok = announced_held(held[row, seat], kind, rank, suit, length, strain.astype(np.int64)[row],
                                row * n_players + seat, bool(rules["declarations.carre_cards_in_sequences"]))
            row, seat, kind, rank, suit, length = row[ok], seat[ok], kind[ok], rank[ok], suit[ok], length[ok]
        rank = np.maximum(rank, 0)
        is_seq = np.isin(kind, ["tierce", "quarte", "quinte"])
        is_carre = kind == "carre"
        seq_val = np.select([length >= 5, length == 4, length == 3],
                            [int(rules["declarations.quinte"]), int(rules["declarations.quarte"]),
                             int(rules["declarations.tierce"])], 0)
        nt = strain.astype(np.int64)[row] == NO_TRUMP
        carre_tab = np.array([rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")])
        carre_val = carre_tab[nt.astype(np.int64), rank]
        in_trump = (suit >= 0) & (suit == strain.astype(np.int64)[row])
        skey = seq_key(seq_val, length, rank, in_trump.astype(np.int64), rules)
        ckey = carre_key(carre_val, rank, rules)
        np.add.at(sp, (row[is_seq], seat[is_seq]), seq_val[is_seq])
        np.maximum.at(sk, (row[is_seq], seat[is_seq]), skey[is_seq])
        np.add.at(cp, (row[is_carre], seat[is_carre]), carre_val[is_carre])
        np.maximum.at(ck, (row[is_carre], seat[is_carre]), ckey[is_carre])
        is_bel = kind == "belote"
        if rules["belote.enabled"]:
            np.add.at(belote, (row[is_bel], seat[is_bel] % K), int(rules["belote.value"]))
        active = _active(strain, rules)[row]
        keep = (is_seq & (seq_val > 0) | is_carre & (carre_val > 0)) & active
        kind_i = np.where(is_carre, KINDS.index("carre"), np.where(length >= 5, 2, np.clip(length - 3, 0, 2)))
        parts.append(Entries(row[keep], seat[keep].astype(np.int8), kind_i[keep].astype(np.int8),
                             rank[keep].astype(np.int8), np.where(is_carre, -1, suit)[keep].astype(np.int8),
                             np.where(is_carre, 4, length)[keep].astype(np.int8),
                             np.where(is_carre, carre_val, seq_val)[keep].astype(np.int32),
                             np.zeros(int(keep.sum()), dtype=bool)))
        if rules["belote.enabled"] and is_bel.any():   # a recorded belote always scores (rules.md R25)
            nb = int(is_bel.sum())
            bel = Entries(row[is_bel], seat[is_bel].astype(np.int8), np.full(nb, KINDS.index("belote"), np.int8),
                          np.full(nb, -1, np.int8), suit[is_bel].astype(np.int8), np.full(nb, 2, np.int8),
                          np.full(nb, int(rules["belote.value"]), np.int32), np.ones(nb, dtype=bool))
        else:
            bel = Entries.empty()
    dec = _settle(sp, sk, cp, ck, belote.astype(np.int32), strain, rules, dealer)
    dec.entries = Entries.concat([_mark_scored(parts[0], dec), bel]) if parts else Entries.empty()
    return dec


_KQ = 0b0110_0000       # the queen and king of a suit in its byte (rank indices 5 and 6)


def announced_held(mask: np.ndarray, kind: np.ndarray, rank: np.ndarray, suit: np.ndarray, length: np.ndarray,
                   strain: np.ndarray, who: np.ndarray, carre_cards_in_sequences: bool) -> np.ndarray:
    """bool (m,): whether each announcement (``kind``: 'tierce' 'quarte' 'quinte' 'carre' 'belote'; ``rank``
    its top card's or carré's rank index, -1 unknown; ``suit`` -1 unknown; ``length`` its cards) is made by
    the cards ``mask`` (int64 (m,)) its seat held (-1: not known, the announcement holds). An unknown suit or rank holds if any suit or place does; a
    belote of no recorded suit is the trump's (any suit in all-trump). ``who``: the announcer (hand and
    seat as one number): without ``carre_cards_in_sequences`` a known sequence through a card of the same
    announcer's held carré does not hold. Other kinds hold (nothing to check)."""
    m = len(mask)
    ok = np.ones(m, dtype=bool)
    is_carre, is_bel = kind == "carre", kind == "belote"
    is_seq = np.isin(kind, ["tierce", "quarte", "quinte"])
    tops = np.arange(8)
    if is_carre.any():
        every = np.ones(m, dtype=np.int64) * 0xFF
        for s in range(4):
            every &= mask >> (8 * s) & 0xFF
        ok[is_carre] = np.where(rank >= 0, every >> np.maximum(rank, 0) & 1, every != 0)[is_carre].astype(bool)
    if is_seq.any():
        run = (np.int64(1) << np.minimum(length, 8)) - 1                  # the run's bits, its lowest card at 0
        fits = np.zeros(m, dtype=bool)
        for s in range(4):
            byte = mask >> (8 * s) & 0xFF
            for t in tops:
                low = t - length + 1
                here = (low >= 0) & (suit < 0) | (suit == s)
                here &= (rank < 0) | (rank == t)
                fits |= here & (low >= 0) & ((byte >> np.maximum(low, 0)) & run == run)
        ok[is_seq] = fits[is_seq]
    if is_bel.any():
        trump = np.where(suit >= 0, suit, np.where(strain < 4, strain, -1))
        has = np.zeros(m, dtype=bool)
        for s in range(4):
            has |= ((trump == s) | (trump < 0)) & ((mask >> (8 * s) & _KQ) == _KQ)
        ok[is_bel] = has[is_bel]
    ok |= mask == -1            # no hands in the record: nothing to check the announcement against
    if not carre_cards_in_sequences and is_carre.any() and is_seq.any():
        taken = np.zeros(m, dtype=np.int64)          # per announcer, the cards of its held carrés
        hc = np.nonzero(is_carre & ok & (rank >= 0))[0]
        _, first = np.unique(who, return_inverse=True)
        by_who = np.zeros(first.max() + 1, dtype=np.int64)
        np.bitwise_or.at(by_who, first[hc], np.int64(0x01010101) << rank[hc])
        taken = by_who[first]
        known = is_seq & ok & (suit >= 0) & (rank >= 0)
        cards = ((np.int64(1) << np.minimum(length, 8)) - 1) << np.maximum(rank - length + 1, 0) << (8 * np.maximum(suit, 0))
        ok[known & (cards & taken != 0)] = False
    return ok


def list_held(hand: int, strain: int, rules: Ruleset) -> list[tuple[str, int, int | None, int, int]]:
    """The declarations one hand (a card bitmask) holds, as (kind, top rank, suit or None, length, points),
    carrés first by rising rank, then sequences by suit C D H S and rising top. Same rules as :func:`detect`
    (for explanations and listings, not the hot path)."""
    nt = int(strain == NO_TRUMP)
    carre = [rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")][nt]
    out: list[tuple[str, int, int | None, int, int]] = []
    used = 0
    for r in range(8):
        if carre[r] > 0 and all(hand >> (s * 8 + r) & 1 for s in range(4)):
            out.append(("carre", r, None, 4, carre[r]))
            used |= 0x01010101 << r
    if not rules["declarations.carre_cards_in_sequences"]:
        hand &= ~used
    for s in range(4):
        for length, top in _runs(hand >> (8 * s) & 0xFF):
            v = _seq_value(length, rules)
            if v > 0:
                kind = "tierce" if length == 3 else "quarte" if length == 4 else "quinte"
                out.append((kind, top, s, length, v))
                if length == 8 and rules["declarations.eight_run_extra_tierce"]:
                    out.append(("tierce", top, s, 3, int(rules["declarations.tierce"])))
    return out
