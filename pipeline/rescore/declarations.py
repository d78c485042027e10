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
from pipeline.rescore.declaration_contest import (CONTESTS, TIES, Declarations, _dealers, _mark_scored, _settle,
                                                  settle_rows, team_points)
from pipeline.rescore.declaration_items import KINDS, Entries
from pipeline.rescore.declaration_values import _active, _seq_value, carre_key, seq_key, trump_bonus
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
    seq_key: np.ndarray      # int32 (256,) (int64 when a key needs it): key of the best sequence in the byte,
    #                          outside trump (0 = none)
    carre_points: np.ndarray  # int32 (2, 8): points of a carré by rank index; row 1 = in no-trump
    carre_key: np.ndarray     # int64 (2, 8)
    slot_length: np.ndarray   # int8 (256, 3): each scoring sequence of a suit byte, as its own slot (0 = none)
    slot_top: np.ndarray      # int8 (256, 3): top face rank index of that sequence
    slot_points: np.ndarray   # int32 (256, 3): its points
    carre_mask: np.ndarray    # int64 (2,): ranks (bit r) whose carré scores; [1] = in no-trump
    carre_sum: np.ndarray     # int64 (2, 256): points of the carrés of the ranks in a byte (bit r = rank r)
    carre_best: np.ndarray    # int64 (2, 256): key of the best of them (0 = none)
    seq_scores: np.ndarray    # bool (256,): some sequence of a suit byte scores (seq_points > 0)
    slot_count: np.ndarray    # int64 (256,): how many (the first slots; the others are 0)


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
                    if int(rules["declarations.tierce"]) > 0:     # a slot only for what scores
                        slots.append((3, top, int(rules["declarations.tierce"])))
        for j, (length, top, v) in enumerate(slots):   # at most 2 runs of 3+ in 8 ranks, + the extra tierce
            slot_length[b, j], slot_top[b, j], slot_points[b, j] = length, top, v
    tables = [rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")]
    carre_points = np.array(tables, dtype=np.int32)
    keys = np.array([[int(carre_key(v, r, rules)) for r, v in enumerate(t)] for t in tables], dtype=np.int64)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1          # (256, 8): rank r in byte b
    scoring = carre_points > 0
    carre_mask = (scoring * (1 << np.arange(8))).sum(axis=1).astype(np.int64)
    carre_sum = (bits[None] * (carre_points * scoring)[:, None, :]).sum(axis=2).astype(np.int64)
    carre_best = np.maximum((bits[None] * (keys * scoring)[:, None, :]).max(axis=2), 0).astype(np.int64)
    if seq_keys.max() < 2**31:     # half the memory traffic of held()'s look-ups (the keys are below 10^8)
        seq_keys = seq_keys.astype(np.int32)
    return DeclarationTables(seq_points, seq_keys, carre_points, keys, slot_length, slot_top, slot_points,
                             carre_mask, carre_sum, carre_best, seq_points > 0, (slot_points > 0).sum(axis=1))


@dataclass
class Held:
    """The declarations each seat of m hands of P seats holds: ``ranks`` (uint8 (m, P), bit r: a carré of rank r
    that scores); the suits holding a scoring sequence, as indices ``runs`` into (m, P, 4) (hand, seat, suit),
    with each one's byte of the cards sequences are read from (``run_bytes``); each seat's points of sequences
    and carrés (``sp``, ``cp``) and the key of its best one of each (``sk``, ``ck``, 0 = none), int64 (m, P)."""

    ranks: np.ndarray
    runs: np.ndarray
    run_bytes: np.ndarray
    sp: np.ndarray
    sk: np.ndarray
    cp: np.ndarray
    ck: np.ndarray


def held(hands: np.ndarray, strain: np.ndarray, dt: DeclarationTables, carre_cards_in_sequences: bool,
         trump_bonus: int) -> Held:
    """The declarations held in m hands (see module doc), numpy over all of them at once: the one implementation
    of held declarations (a compiled loop per hand before, which the first rescore after an install compiled).
    hands: uint32 (m, P) card masks, read as 4 suit bytes each; strain: int (m,) 0-5; trump_bonus: 1 when a
    sequence in trump breaks ties. Most seats hold no carré and most suits no sequence: past one look-up of
    every suit's byte, the work is on those that do."""
    h = np.ascontiguousarray(hands, dtype="<u4")
    m, P = h.shape
    b = h.view(np.uint8).reshape(m, P, 4)
    st = np.asarray(strain, dtype=np.int64)
    four = b[..., 0] & b[..., 1] & b[..., 2] & b[..., 3]      # bit r: all four cards of rank r held
    ranks = np.zeros((m, P), np.uint8)
    cp = np.zeros((m, P), np.int64)
    ck = np.zeros((m, P), np.int64)
    q = np.flatnonzero(four)                                  # the few seats holding a carré
    if len(q):
        nt = (st[q // P] == NO_TRUMP).astype(np.int64)
        r = four.ravel()[q] & dt.carre_mask[nt]
        ranks.ravel()[q] = r
        cp.ravel()[q] = dt.carre_sum[nt, r]
        ck.ravel()[q] = dt.carre_best[nt, r]
        if not carre_cards_in_sequences and r.any():         # Bulgarian rule: a carré's cards are not in runs
            h = h.copy()
            h.ravel()[q] &= ~(r.astype(np.uint32) * np.uint32(0x01010101))
            b = h.view(np.uint8).reshape(m, P, 4)
    runs = np.flatnonzero(np.take(dt.seq_scores, b))          # the suits holding a scoring sequence
    run_bytes = b.ravel()[runs]
    sp = np.zeros((m, P), np.int64)
    sk = np.zeros((m, P), np.int64)
    if len(runs):
        key = np.take(dt.seq_key, run_bytes).astype(np.int64)     # > 0 where the byte's points are (build_tables)
        if trump_bonus:            # a sequence in trump ranks above one of equal key outside
            key += trump_bonus * ((runs & 3) == st[(runs >> 2) // P])
        seat = runs >> 2
        start = np.flatnonzero(np.r_[True, seat[1:] != seat[:-1]])     # runs are sorted: one segment per seat
        sp.ravel()[seat[start]] = np.add.reduceat(np.take(dt.seq_points, run_bytes).astype(np.int64), start)
        sk.ravel()[seat[start]] = np.maximum.reduceat(key, start)
    return Held(ranks, runs, run_bytes, sp, sk, cp, ck)


def _bits(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(index into ``values``, bit) of each set bit of ``values`` below ``width``, by index then bit."""
    return np.nonzero((values[:, None] >> np.arange(width)) & 1)


def held_items(rows: np.ndarray, hd: Held, strain: np.ndarray, active: np.ndarray, seq_wins: np.ndarray,
               carre_wins: np.ndarray, dt: DeclarationTables, belote: tuple | None = None) -> Entries:
    """The declarations of ``hd`` one by one, hand ``rows[j]`` for its row j: per seat its carrés by rank, then
    its sequences by suit and slot, where declarations are ``active`` (bool (m,)), then (``belote``: (suits,
    lost, value): int (m, P) bit s for each belote seat p holds, int64 (m,) bit s for each that did not score,
    its points) its belotes by suit; ``scored``: ``carre_wins`` / ``seq_wins`` (bool (m, K)) of the seat's
    team."""
    m, P = hd.sp.shape
    K = seq_wins.shape[1]
    st = np.asarray(strain, dtype=np.int64)
    parts = []          # per kind: (hand, seat, order within the seat, rank, suit, length, kind, points, scored)
    q = np.flatnonzero(hd.ranks)
    q = q[active[q // P]]
    if len(q):
        i, r = _bits(hd.ranks.ravel()[q], 8)
        j, p = q[i] // P, q[i] % P
        parts.append((j, p, r, r, np.full(len(r), -1), np.full(len(r), 4), np.full(len(r), 3),
                      dt.carre_points[(st[j] == NO_TRUMP).astype(np.int64), r], carre_wins[j, p % K]))
    on = active[(hd.runs >> 2) // P]
    q, byte = hd.runs[on], hd.run_bytes[on]
    if len(q):
        count = dt.slot_count[byte]              # its sequences that score are its first slots (build_tables)
        i = np.repeat(np.arange(len(q)), count)
        slot = np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count)
        q, byte = q[i], byte[i]
        seat, s = q >> 2, q & 3
        j = seat // P
        p = seat - j * P
        length = dt.slot_length[byte, slot]
        parts.append((j, p, 8 + 3 * s + slot, dt.slot_top[byte, slot], s, length,
                      np.where(length >= 5, 2, length - 3), dt.slot_points[byte, slot], seq_wins[j, p % K]))
    if belote is not None:
        suits, lost, value = belote
        q = np.flatnonzero(suits)
        if len(q):
            i, s = _bits(suits.ravel()[q], 4)
            j, p = q[i] // P, q[i] % P
            parts.append((j, p, 20 + s, np.full(len(s), -1), s, np.full(len(s), 2), np.full(len(s), 4),
                          np.full(len(s), value), (lost[j] >> s) & 1 == 0))
    if not parts:
        return Entries.empty()
    keys = [(part[0] * P + part[1]) * 24 + part[2] for part in parts]     # the order listed: hand, seat, then kind
    places = np.empty(sum(len(k) for k in keys), np.int64)
    places[np.argsort(np.concatenate(keys), kind="stable")] = np.arange(len(places))
    e = Entries(np.empty(len(places), np.int64), *(np.empty(len(places), np.int8) for _ in range(5)),
                np.empty(len(places), np.int32), np.empty(len(places), bool))
    first = 0
    for j, p, _, rank, suit, length, kind, points, scored in parts:
        at = places[first:first + len(j)]
        first += len(j)
        e.row[at], e.seat[at], e.kind[at], e.rank[at], e.suit[at] = rows[j], p, kind, rank, suit
        e.length[at], e.points[at], e.scored[at] = length, points, scored
    return e


def detect(hands: np.ndarray, strain: np.ndarray, rules: Ruleset, dt: DeclarationTables,
           entries: bool = False, dealer: np.ndarray | None = None) -> Declarations:
    """Declarations held in ``hands`` (uint32 (n, P), P seats) with contract ``strain`` (int8 (n,)), settled
    between the teams of P seats (card points); with ``entries`` also listed one by one
    (``Declarations.entries``). ``dealer``: int (n,) each hand's dealer seat, which ``declarations.tie =
    "first_announcer"`` needs (the eldest hand, dealer + 1, announces first); raises ValueError when that
    ruleset gets None."""
    n, p = hands.shape
    active = _active(strain, rules)
    hd = held(hands, strain, dt, bool(rules["declarations.carre_cards_in_sequences"]), trump_bonus(rules))
    K = n_teams(p)
    won, seq_wins, carre_wins = settle_rows(hd.sp, hd.sk, hd.cp, hd.ck, active,
                                             CONTESTS.index(rules["declarations.contest"]), K,
                                             TIES.index(rules["declarations.tie"]), _dealers(dealer, n, rules))
    dec = Declarations(hd.sp.astype(np.int32), hd.sk, hd.cp.astype(np.int32), hd.ck, np.zeros((n, K), dtype=np.int32),
                       team_points(won, n, K), seq_wins, carre_wins)
    if entries:
        dec.entries = held_items(np.arange(n), hd, strain, active, seq_wins, carre_wins, dt)
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
_FAMILY = {"carre": 0, "tierce": 1, "quarte": 1, "quinte": 1, "belote": 2}


def announced_held(mask: np.ndarray, kind: np.ndarray, rank: np.ndarray, suit: np.ndarray, length: np.ndarray,
                   strain: np.ndarray, who: np.ndarray, carre_cards_in_sequences: bool) -> np.ndarray:
    """bool (m,): which announcements (``kind``: 'tierce' 'quarte' 'quinte' 'carre' 'belote'; ``rank`` the top
    card's or the carré's rank index, -1 unknown; ``suit`` -1 unknown; ``length`` the run's cards) count, given
    the cards ``mask`` (int64 (m,), -1: not known) their seat held and the hand's ``strain`` (int (m,)).
    ``who``: the announcer (hand and seat as one number).

    A seat's announcements count as a set of the cards it holds, each card in one declaration: a carré, then
    runs longest first (then highest), each taking cards no kept one of its family took, nor, without
    ``carre_cards_in_sequences``, a kept carré (seed 004; the held path reads runs from the cards no carré took);
    a repeated or overlapping announcement does not count twice. An unknown suit or rank takes the first place
    the free cards make. A belote is the king and queen of trump: of the contract's suit (a recorded other suit
    does not count), of any suit in all-trump (one per suit), never in no-trump. Where the cards are not known
    the announcements count as recorded."""
    m = len(mask)
    ok = mask == -1
    if ok.all():
        return ok
    fam = np.array([_FAMILY.get(k, 3) for k in kind], dtype=np.int64)
    order = np.lexsort((np.arange(m), -rank, -length, fam, who))
    taken: dict[tuple[int, int], int] = {}     # (announcer, family) -> cards its kept declarations hold
    for i in order.tolist():
        if ok[i] or fam[i] == 3:
            ok[i] |= fam[i] == 3 and mask[i] != -1     # another kind: nothing to check
            continue
        hand, w = int(mask[i]), int(who[i])
        free = hand & ~taken.get((w, fam[i]), 0)
        if fam[i] == 1 and not carre_cards_in_sequences:
            free &= ~taken.get((w, 0), 0)
        for cards in _placements(str(kind[i]), int(rank[i]), int(suit[i]), int(length[i]), int(strain[i])):
            if cards & free == cards:
                taken[w, fam[i]] = taken.get((w, fam[i]), 0) | cards
                ok[i] = True
                break
    return ok


def _placements(kind: str, rank: int, suit: int, length: int, strain: int) -> list[int]:
    """The card sets (bitmasks) an announcement can stand for: one when its suit and rank are known, else each
    suit and place it may be (a belote: the trump's king and queen, or each suit's in all-trump)."""
    suits = [suit] if suit >= 0 else list(range(4))
    if kind == "carre":
        return [0x01010101 << r for r in ([rank] if rank >= 0 else range(8))]
    if kind == "belote":
        if strain == NO_TRUMP or strain < 4 and suit not in (-1, strain):
            return []
        return [_KQ << (8 * s) for s in ([strain] if strain < 4 else suits)]
    run = (1 << min(length, 8)) - 1
    return [run << (top - length + 1) << (8 * s) for s in suits for top in ([rank] if rank >= 0 else range(8))
            if top - length + 1 >= 0]


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
