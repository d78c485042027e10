"""Declarations (tierce, quarte, quinte, carré); belote-rebelote is :mod:`pipeline.rescore.belote`'s.

Where they come from (``declarations.count``):
    "held": detected in the initial hands. Sequences run in face order 7 8 9 10 J Q K A within a suit
    (rules.md R21), each maximal run of 3+ being one declaration; a suit's runs are read from a 256-entry
    lookup table indexed by the suit's byte of the hand bitmask. A carré is the four cards of a rank valued
    above 0 by ``declarations.carre`` (``carre_no_trump`` in no-trump). With
    ``carre_cards_in_sequences = false`` (Bulgarian rule) a carré's cards are removed before runs are read.
    "announced": taken from what the source recorded (``hands.announced``), belote included.

Contest between teams (rules.md R23), ``declarations.contest``:
    "unified": only the team holding the single best declaration scores, all of its declarations;
    "separate" (Bulgarian, BG-HIT/BG-NIK): sequences and carrés are two contests, each won separately;
    "sequences_only" (HackBulgaria exercise): sequences contested, every carré scores for its holder;
    "all" (seed 002 read literally: declarations are added to the final score, no comparison named): no
    contest, every team scores all its declarations.
    An exact tie of the best keys (``declarations.tie``) scores for nobody ("none", FFB-Co15 §8.3), or for the
    team whose tied best declaration belongs to the seat that announces first ("first_announcer", PAGAT-B,
    ACANOMAS): declarations are announced in playing order during the first trick, from the eldest hand on the
    dealer's left (seat dealer + 1, who leads it), so the first seat from dealer + 1 holding the best key wins.
Values, the contracts declarations count in and the ranking key: :mod:`pipeline.rescore.declaration_values`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.cards import NO_TRUMP
from pipeline.rescore.arith import mod
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


@dataclass
class Declarations:
    """Per-hand results for n hands of P seats and K teams (:func:`pipeline.rules.n_teams`: team = seat % 2
    with 2 or 4 seats, team = seat with 3).

    seq_points, carre_points: int32 (n, P) points of each seat's sequences / carrés.
    seq_key, carre_key: int64 (n, P) key of each seat's best sequence / carré (0 = none).
    belote: int32 (n, K) belote points each team holds (announced mode; held belote is separate).
    team_points: int32 (n, K) declaration points each team scores after the contest (card points).
    seq_wins, carre_wins: bool (n, K) whether each team's sequences / carrés score after the contest
        (in the "unified" contest both say whether the team won it).
    entries: the declarations one by one (:class:`Entries`), belotes excluded; None when not asked for.
    """

    seq_points: np.ndarray
    seq_key: np.ndarray
    carre_points: np.ndarray
    carre_key: np.ndarray
    belote: np.ndarray
    team_points: np.ndarray
    seq_wins: np.ndarray
    carre_wins: np.ndarray
    entries: "Entries | None" = None


CONTESTS = ("unified", "separate", "sequences_only", "all")
#: ``declarations.tie`` values, in the order the kernels number them
TIES = ("none", "first_announcer")


@njit_inner
def _contest_row(points, key, src, K, team, wins, dst, team_key, team_held, tie, first):
    """One contest in one hand: the team with the strictly best key scores all its points. An equal best key
    in two teams (``declarations.tie``, ``tie`` indexes :data:`TIES`) scores for nobody ("none"), or for the
    team of the seat that announces first among those holding it ("first_announcer": seats announce in
    playing order from ``first``, the eldest hand, dealer + 1). points, key: int64 (., P) per seat
    (team = seat % K), row ``src``; adds the points won to ``team[dst]`` (int32 (., K)), sets ``wins[dst]``
    (bool (., K)). team_key, team_held: int64 (K,) scratch. (Rows are indexed, not sliced: a slice per hand
    costs more than the contest.)"""
    P = points.shape[1]
    for t in range(K):
        team_key[t] = 0
        team_held[t] = 0
    for p in range(P):
        t = mod(p, K)
        team_key[t] = max(team_key[t], key[src, p])
        team_held[t] += points[src, p]
    best = team_key[0]
    for t in range(1, K):
        best = max(best, team_key[t])
    n_top = 0
    winner = -1
    for t in range(K):
        if team_key[t] == best:
            n_top += 1
            winner = t
    if best <= 0 or (n_top > 1 and tie == 0):
        winner = -1
    elif n_top > 1:               # first_announcer: the first seat in playing order holding the best key
        for j in range(P):
            p = mod(first + j, P)
            if key[src, p] == best:
                winner = mod(p, K)
                break
    for t in range(K):
        w = t == winner
        wins[dst, t] = w
        if w:
            team[dst, t] += team_held[t]


@njit_inner
def _settle_row(src, dst, sp, sk, cp, ck, active, contest, K, team, seq_wins, carre_wins, pts, key, tk, th, tie,
                first):
    """The contest between teams (see module doc) of one hand; ``contest`` indexes :data:`CONTESTS`, ``tie``
    :data:`TIES`; ``first``: the seat that announces first (the eldest hand, dealer + 1 mod P).
    sp, sk, cp, ck: int64 (., P) per-seat points and best keys, row ``src``, set to 0 here when declarations
    are not ``active`` (bool). Writes row ``dst`` of team (int (., K) points won, added to), seq_wins and
    carre_wins (bool (., K)). pts, key: int64 (1, P) and tk, th: int64 (K,) scratch."""
    P = sp.shape[1]
    if not active:
        for p in range(P):
            sp[src, p] = 0
            sk[src, p] = 0
            cp[src, p] = 0
            ck[src, p] = 0
    if contest == 3:              # all: no contest, every team scores its own
        for p in range(P):
            team[dst, mod(p, K)] += sp[src, p] + cp[src, p]
        for t in range(K):
            seq_wins[dst, t] = active
            carre_wins[dst, t] = active
        return
    if contest == 0:              # unified: one contest over every declaration
        for p in range(P):
            pts[0, p] = sp[src, p] + cp[src, p]
            key[0, p] = max(sk[src, p], ck[src, p])
        _contest_row(pts, key, 0, K, team, seq_wins, dst, tk, th, tie, first)
        for t in range(K):
            carre_wins[dst, t] = seq_wins[dst, t]
    else:
        _contest_row(sp, sk, src, K, team, seq_wins, dst, tk, th, tie, first)
        if contest == 1:          # separate: sequences and carrés each contested
            _contest_row(cp, ck, src, K, team, carre_wins, dst, tk, th, tie, first)
        else:                     # sequences_only: every carré scores for its holder
            for p in range(P):
                team[dst, mod(p, K)] += cp[src, p]
            for t in range(K):
                carre_wins[dst, t] = active


@njit(cache=True, nogil=True)
def _settle_kernel(sp, sk, cp, ck, active, contest, K, team, seq_wins, carre_wins, tie, dealer):
    """:func:`_settle_row` for every hand; dealer: int (n,) each hand's dealer seat (the eldest hand, dealer + 1,
    announces first)."""
    P = sp.shape[1]
    pts = np.empty((1, P), dtype=np.int64)
    key = np.empty((1, P), dtype=np.int64)
    tk = np.empty(K, dtype=np.int64)
    th = np.empty(K, dtype=np.int64)
    for i in range(sp.shape[0]):
        _settle_row(i, i, sp, sk, cp, ck, active[i], contest, K, team, seq_wins, carre_wins, pts, key, tk, th, tie,
                    mod(np.int64(dealer[i]) + 1, P))


def _dealers(dealer, n: int, rules: Ruleset) -> np.ndarray:
    """The dealer seats as int64 (n,) for the contest; zeros when ``dealer`` is None, which only a ruleset with
    ``declarations.tie = "none"`` allows (the dealer then changes nothing). Raises ValueError otherwise, or when
    ``dealer`` does not hold n seats."""
    if dealer is None:
        if rules["declarations.tie"] != "none":
            raise ValueError(f"ruleset {rules.name}: declarations.tie = {rules['declarations.tie']!r} needs each "
                             "hand's dealer (the eldest hand, on the dealer's left, announces first)")
        return np.zeros(n, dtype=np.int64)
    d = np.asarray(dealer, dtype=np.int64).reshape(-1)
    if len(d) != n:
        raise ValueError(f"dealer: {len(d)} seats for {n} hands")
    return d


def _settle(sp, sk, cp, ck, belote, strain, rules: Ruleset, dealer=None) -> Declarations:
    """Settle per-seat declarations (int (n, P) each; int64 ones are zeroed in place where inactive) between
    teams, with ``belote`` (int32 (n, K)) passed through; ``dealer``: int (n,) dealer seats (see
    :func:`_dealers`)."""
    on = _active(strain, rules)
    sp, sk, cp, ck = (np.ascontiguousarray(a, dtype=np.int64) for a in (sp, sk, cp, ck))
    n, K = belote.shape
    team = np.zeros((n, K), dtype=np.int32)
    seq_wins = np.zeros((n, K), dtype=bool)
    carre_wins = np.zeros((n, K), dtype=bool)
    _settle_kernel(sp, sk, cp, ck, on, CONTESTS.index(rules["declarations.contest"]), K, team, seq_wins, carre_wins,
                   TIES.index(rules["declarations.tie"]), _dealers(dealer, n, rules))
    return Declarations(sp.astype(np.int32), sk, cp.astype(np.int32), ck, belote, team, seq_wins, carre_wins)


def _mark_scored(e: Entries, dec: Declarations) -> Entries:
    team = e.seat.astype(np.int64) % dec.seq_wins.shape[1]
    wins = np.where(e.kind == KINDS.index("carre"), dec.carre_wins[e.row, team], dec.seq_wins[e.row, team])
    e.scored = wins.astype(bool)
    return e


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
    on; strain: 0-5; active: declarations count in this hand (:func:`_active`); the tables of
    :class:`DeclarationTables`; trump_bonus: 1 when a sequence in trump breaks ties. Writes row ``src`` of
    sp/cp (int64 (., P) points of each seat's sequences / carrés) and sk/ck (key of its best one), then the
    contest (:func:`_settle_row`; ``tie`` indexes :data:`TIES`, ``first`` is the seat that announces first,
    dealer + 1 mod P) into row ``dst`` of team (added to), seq_wins and carre_wins. Returns the items to list
    (0 when not ``active``)."""
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
            seq_wins[dst, t] = contest == 3 and active     # all: nothing is contested
            carre_wins[dst, t] = (contest == 2 or contest == 3) and active   # sequences_only: carrés are not contested
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
                   n_players: int = 4, dealer: np.ndarray | None = None) -> Declarations:
    """Declarations the source recorded (``hands.announced``, one list per hand), settled between the teams of
    ``n_players`` seats. ``dealer``: int (n,) each hand's dealer seat, needed by ``declarations.tie =
    "first_announcer"`` (ValueError without it): announcements are made in playing order from the eldest hand
    (dealer + 1), whatever order the record lists them in.

    Values come from the ruleset (a carré by its rank, a run by its length: tierce 3, quarte 4, quinte 5+);
    kind 'belote' adds ``belote.value`` to its team. A null list counts as nothing announced.
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
        rank = pc.fill_null(flat.field("rank"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        suit = pc.fill_null(flat.field("suit"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
        default_len = np.select([kind == "tierce", kind == "quarte", kind == "quinte"], [3, 4, 5], 4)
        length = pc.fill_null(flat.field("length"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        length = np.where(length > 0, length, default_len)
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


@njit(cache=True, nogil=True)
def on_capot(D, i, K, capot_team, took, mode):
    """``declarations.on_capot`` in hand i, after the contest; ``mode``: 0 "keep" (each team keeps what it won),
    1 "to_capot_team" (FFB-Co15: the capoted team's declarations go to the team that took every trick), 2 "lost"
    (pagat reading: a team that took no trick scores none). D: int64 (., K) declaration points (card points),
    changed in place; capot_team: the team that took every trick, -1 when none; took: bool (., K) whether each
    team took a trick. With 3 players a player who took no trick loses his declarations ("lost"), or gives them
    to the one who took every trick ("to_capot_team"; when another player also took tricks they are lost)."""
    if mode == 0:
        return
    if K == 2:
        if capot_team >= 0:
            if mode == 1:
                D[i, capot_team] += D[i, 1 - capot_team]
            D[i, 1 - capot_team] = 0
        return
    given = np.int64(0)
    for t in range(K):
        if not took[i, t]:
            given += D[i, t]
            D[i, t] = 0
    if mode == 1 and capot_team >= 0:
        D[i, capot_team] += given


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


def _entry_keys(entries, strain: int, rules: Ruleset) -> tuple[list[int], list[str | None]]:
    """Each entry's ranking key and contest group ("all" in the unified contest, else "seq" / "carre"; None
    for a belote, which is never contested)."""
    keys, groups = [], []
    for seat, kind, rank, suit, length in entries:
        if kind == "belote":
            keys.append(0)
            groups.append(None)
            continue
        if kind == "carre":
            table = "declarations.carre_no_trump" if strain == NO_TRUMP else "declarations.carre"
            value = rules.rank_table(table)[rank]
            keys.append(int(carre_key(value, rank, rules)))
            groups.append("carre")
        else:
            value = _seq_value(length, rules)
            keys.append(int(seq_key(value, length, rank, int(suit is not None and suit == strain), rules)))
            groups.append("seq")
    if rules["declarations.contest"] == "unified":
        groups = ["all" if g else None for g in groups]
    return keys, groups


def contest_outcomes(entries: list[tuple[int, str, int, int | None, int]], strain: int, rules: Ruleset,
                     n_players: int = 4, dealer: int | None = None) -> dict[str, tuple[int | None, int | None]]:
    """The contest of a hand's declarations (entries as :func:`resolve_list`), per contest group ("all" in the
    unified contest, else "seq" and "carre"; a ``sequences_only`` contest's carrés included, though they are
    not contested): (winning team or None, the seat whose announcing first broke an equal best, or None when
    no tie was broken). Raises ValueError when ``declarations.tie = "first_announcer"`` gets no ``dealer``."""
    K = n_teams(n_players)
    first = int(_dealers(None if dealer is None else [dealer], 1, rules)[0] + 1) % n_players
    keys, groups = _entry_keys(entries, strain, rules)
    out: dict[str, tuple[int | None, int | None]] = {}
    for group in sorted(set(g for g in groups if g)):
        best = [max([k for (s, *_), k, g in zip(entries, keys, groups) if g == group and s % K == t] or [0])
                for t in range(K)]
        top = max(best)
        tied = [t for t in range(K) if best[t] == top]
        if top <= 0 or (len(tied) > 1 and rules["declarations.tie"] == "none"):
            out[group] = (None, None)
        elif len(tied) == 1:
            out[group] = (tied[0], None)
        else:             # first_announcer: seats announce in playing order from the eldest hand (dealer + 1)
            holders = {s for (s, *_), k, g in zip(entries, keys, groups) if g == group and k == top}
            seat = next(s for s in ((first + j) % n_players for j in range(n_players)) if s in holders)
            out[group] = (seat % K, seat)
    return out


def resolve_list(entries: list[tuple[int, str, int, int | None, int]], strain: int, rules: Ruleset,
                 n_players: int = 4, dealer: int | None = None) -> list[bool]:
    """Which of a hand's declarations score, entry by entry: (seat, kind, top rank, suit or None, length) ->
    scored flags, by the same keys, contest (``declarations.contest``) and tie rule (``declarations.tie``) as the
    vectorised path, between the teams of ``n_players`` seats. Belotes always score. ``dealer``: the hand's
    dealer seat; ``declarations.tie = "first_announcer"`` gives an equal best to the team of the seat that
    announces first, in playing order from the eldest hand (dealer + 1), and raises ValueError without it. For
    explanations and tests."""
    K = n_teams(n_players)
    _, groups = _entry_keys(entries, strain, rules)
    winners = contest_outcomes(entries, strain, rules, n_players, dealer)
    flags = []
    for (seat, *_), group in zip(entries, groups):
        if group is None or rules["declarations.contest"] == "all" or (
                group == "carre" and rules["declarations.contest"] == "sequences_only"):
            flags.append(True)
        else:
            flags.append(winners[group][0] == seat % K)
    return flags
