"""Declarations (tierce, quarte, quinte, carré) and belote-rebelote.

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
    "sequences_only" (HackBulgaria exercise): sequences contested, every carré scores for its holder.
    An exact tie of the best keys scores for nobody (``tie = "none"``, FFB-Co15 §8.3).
Ranking key: value, then a carré above a sequence of equal value ("un carré de 100 bat un cent"), then run
length (``long_runs = "quinte"`` ranks any run of 5+ as a quinte, as Bridge Belot 2001 does), then the top
card (sequences by face rank; carrés by ``carre_order``: "face" A K Q J 10 9 or "trick" A 10 K Q J 9), then
(``trump_breaks_ties``) a sequence in trump above one outside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.cards import ALL_TRUMP, NO_TRUMP
from pipeline.rescore.tables import PLAIN_ORDER
from pipeline.rules import Ruleset, n_teams

KINDS = ("tierce", "quarte", "quinte", "carre", "belote")


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


def _seq_value(length: int, rules: Ruleset) -> int:
    if length >= 5:
        return int(rules["declarations.quinte"])
    return int({3: rules["declarations.tierce"], 4: rules["declarations.quarte"]}.get(length, 0))


def seq_key(value, length, top, trump, rules: Ruleset):
    """Ranking key of a sequence (works on ints or numpy arrays); 0 when value is 0."""
    cap = 5 if rules["declarations.long_runs"] == "quinte" else 8
    t = np.asarray(trump, dtype=np.int64) if rules["declarations.trump_breaks_ties"] else 0
    value = np.asarray(value, dtype=np.int64)
    return np.where(value > 0, value * 100000 + np.minimum(np.asarray(length, dtype=np.int64), cap) * 1000
                    + np.asarray(top, dtype=np.int64) * 10 + t, 0)


def carre_key(value, rank, rules: Ruleset):
    """Ranking key of a carré (ints or arrays); 0 when value is 0."""
    order = np.asarray(PLAIN_ORDER[rank] if rules["declarations.carre_order"] == "trick" else rank, dtype=np.int64)
    return np.where(np.asarray(value) > 0, np.asarray(value, dtype=np.int64) * 100000 + 14000 + order * 10, 0)


@dataclass(frozen=True)
class DeclarationTables:
    seq_points: np.ndarray   # int32 (256,): points of all sequences in a suit byte
    seq_key: np.ndarray      # int64 (256,): key of the best sequence in the byte, outside trump (0 = none)
    carre_points: np.ndarray  # int32 (2, 8): points of a carré by rank index; row 1 = in no-trump
    carre_key: np.ndarray     # int64 (2, 8)


def build_tables(rules: Ruleset) -> DeclarationTables:
    """Lookup tables for the ruleset's declaration values."""
    seq_points = np.zeros(256, dtype=np.int32)
    seq_keys = np.zeros(256, dtype=np.int64)
    for b in range(256):
        for length, top in _runs(b):
            v = _seq_value(length, rules)
            if v > 0:
                seq_points[b] += v
                seq_keys[b] = max(seq_keys[b], int(seq_key(v, length, top, 0, rules)))
                if length == 8 and rules["declarations.eight_run_extra_tierce"]:
                    seq_points[b] += int(rules["declarations.tierce"])
    tables = [rules.rank_table("declarations.carre"), rules.rank_table("declarations.carre_no_trump")]
    carre_points = np.array(tables, dtype=np.int32)
    keys = np.array([[int(carre_key(v, r, rules)) for r, v in enumerate(t)] for t in tables], dtype=np.int64)
    return DeclarationTables(seq_points, seq_keys, carre_points, keys)


@dataclass
class Declarations:
    """Per-hand results for n hands of P seats and K teams (:func:`pipeline.rules.n_teams`: team = seat % 2
    with 2 or 4 seats, team = seat with 3).

    seq_points, carre_points: int32 (n, P) points of each seat's sequences / carrés.
    seq_key, carre_key: int64 (n, P) key of each seat's best sequence / carré (0 = none).
    belote: int32 (n, K) belote points each team holds (announced mode; held belote is separate).
    team_points: int32 (n, K) declaration points each team scores after the contest (card points).
    """

    seq_points: np.ndarray
    seq_key: np.ndarray
    carre_points: np.ndarray
    carre_key: np.ndarray
    belote: np.ndarray
    team_points: np.ndarray


def _active(strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    s = strain.astype(np.int64)
    on = np.full(len(s), bool(rules["declarations.enabled"]))
    on &= (s != NO_TRUMP) | bool(rules["declarations.in_no_trump"])
    on &= (s != ALL_TRUMP) | bool(rules["declarations.in_all_trump"])
    return on


def _by_team(a: np.ndarray, K: int, how) -> np.ndarray:
    """Reduce per-seat columns (n, P) to per-team columns (n, K) (team = seat % K) with ``how`` (np.max, np.sum)."""
    return np.stack([how(a[:, t::K], axis=1) for t in range(K)], axis=1)


def _contest(points: np.ndarray, key: np.ndarray, K: int = 2) -> np.ndarray:
    """Team points (n, K) of one contest: the team with the strictly best key scores all its points; an equal
    best key in two teams scores for nobody (``declarations.tie = "none"``)."""
    if K == 2:
        team_key = np.stack([key[:, 0::2].max(axis=1), key[:, 1::2].max(axis=1)], axis=1)
        team_held = np.stack([points[:, 0::2].sum(axis=1), points[:, 1::2].sum(axis=1)], axis=1)
        w0 = team_key[:, 0] > team_key[:, 1]
        w1 = team_key[:, 1] > team_key[:, 0]
        return np.stack([np.where(w0, team_held[:, 0], 0), np.where(w1, team_held[:, 1], 0)], axis=1).astype(np.int32)
    team_key = _by_team(key, K, np.max)
    team_held = _by_team(points, K, np.sum)
    best = team_key.max(axis=1, keepdims=True)
    top = (team_key == best) & (best > 0)
    win = top & (top.sum(axis=1, keepdims=True) == 1)
    return np.where(win, team_held, 0).astype(np.int32)


def _settle(sp, sk, cp, ck, belote, strain, rules: Ruleset) -> Declarations:
    on = _active(strain, rules)[:, None]
    sp, sk, cp, ck = (np.where(on, a, 0) for a in (sp, sk, cp, ck))
    K = belote.shape[1]
    if rules["declarations.contest"] == "separate":
        team = _contest(sp, sk, K) + _contest(cp, ck, K)
    elif rules["declarations.contest"] == "sequences_only":   # carrés always score for their holders
        team = _contest(sp, sk, K) + _by_team(cp, K, np.sum).astype(np.int32)
    else:
        team = _contest(sp + cp, np.maximum(sk, ck), K)
    return Declarations(sp.astype(np.int32), sk, cp.astype(np.int32), ck, belote, team)


def detect(hands: np.ndarray, strain: np.ndarray, rules: Ruleset, dt: DeclarationTables) -> Declarations:
    """Declarations held in ``hands`` (uint32 (n, P), P seats), settled between the teams of P seats."""
    n, p = hands.shape
    h = hands.astype(np.uint32)
    strain64 = strain.astype(np.int64)
    nt = (strain64 == NO_TRUMP).astype(np.int64)[:, None]
    cp = np.zeros((n, p), dtype=np.int32)
    ck = np.zeros((n, p), dtype=np.int64)
    in_carre = np.zeros((n, p), dtype=np.uint32)
    for r in range(8):
        if dt.carre_points[:, r].max() <= 0:
            continue
        has = ((h >> np.uint32(r)) & (h >> np.uint32(r + 8)) & (h >> np.uint32(r + 16)) & (h >> np.uint32(r + 24))
               & np.uint32(1)).astype(bool)
        value = dt.carre_points[nt, r]
        has &= value > 0
        cp += np.where(has, value, 0)
        ck = np.maximum(ck, np.where(has, dt.carre_key[nt, r], 0))
        in_carre |= np.where(has, np.uint32(0x01010101 << r), np.uint32(0))
    if not rules["declarations.carre_cards_in_sequences"]:
        h = h & ~in_carre
    sp = np.zeros((n, p), dtype=np.int32)
    sk = np.zeros((n, p), dtype=np.int64)
    trump_bonus = 1 if rules["declarations.trump_breaks_ties"] else 0
    for s in range(4):
        byte = ((h >> np.uint32(8 * s)) & np.uint32(0xFF)).astype(np.int64)
        sp += dt.seq_points[byte]
        k = dt.seq_key[byte]
        k = np.where((k > 0) & (strain64[:, None] == s), k + trump_bonus, k)
        sk = np.maximum(sk, k)
    return _settle(sp, sk, cp, ck, np.zeros((n, n_teams(p)), dtype=np.int32), strain, rules)


def from_announced(announced: pa.Array | pa.ChunkedArray, strain: np.ndarray, rules: Ruleset,
                   n_players: int = 4) -> Declarations:
    """Declarations the source recorded (``hands.announced``, one list per hand), settled between the teams of
    ``n_players`` seats.

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
    return _settle(sp, sk, cp, ck, belote.astype(np.int32), strain, rules)


def transfer_on_capot(team_points: np.ndarray, capot_team: np.ndarray, rules: Ruleset,
                      took_trick: np.ndarray | None = None) -> np.ndarray:
    """``declarations.on_capot``: "keep" (each team keeps what it won in the contest); "to_capot_team"
    (FFB-Co15: the capoted team's declarations go to the team that took every trick); "lost" (pagat reading:
    a team that took no trick scores none). int32 (n, K) in, out. With 3 players ``took_trick`` (bool (n, K))
    says who took a trick: a player who took none loses his declarations ("lost"), or gives them to the one
    who took every trick ("to_capot_team"; when another player also took tricks they are lost)."""
    mode = rules["declarations.on_capot"]
    if mode == "keep":
        return team_points
    if team_points.shape[1] != 2:
        capoted = ~took_trick
        out = np.where(capoted, 0, team_points)
        if mode == "to_capot_team":
            given = np.where(capoted, team_points, 0).sum(axis=1)
            sweeper = capot_team >= 0
            out[np.nonzero(sweeper)[0], capot_team[sweeper]] += given[sweeper]
        return out.astype(np.int32)
    out = team_points.copy()
    for t in (0, 1):
        capoted = capot_team == 1 - t
        if mode == "to_capot_team":
            out[:, 1 - t] += np.where(capoted, out[:, t], 0)
        out[:, t] = np.where(capoted, 0, out[:, t])
    return out


def belote_seat(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Seat holding king and queen of trump (belote-rebelote) in suit contracts, -1 when none; int8 (n,)."""
    n, p = hands.shape
    out = np.full(n, -1, dtype=np.int8)
    if not rules["belote.enabled"]:
        return out
    s = np.clip(strain.astype(np.int64), 0, 3)
    kq = (np.uint32(1) << (8 * s + 6).astype(np.uint32)) | (np.uint32(1) << (8 * s + 5).astype(np.uint32))
    for seat in range(p):
        has = (hands[:, seat].astype(np.uint32) & kq) == kq
        out = np.where(has & (strain < 4) & (out < 0), seat, out).astype(np.int8)
    return out


def belote_points(hands: np.ndarray, strain: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Belote-rebelote points held by each team, int32 (n, K) for hands (n, P) (rules.md R25).

    Suit contracts: king and queen of trump in one hand. All-trump (``belote.all_trump = "per_suit"``):
    each suit's king and queen in one hand, up to four. None in no-trump. The cards are always played in
    a complete hand, so holding them is scoring them.
    """
    n, p = hands.shape
    K = n_teams(p)
    out = np.zeros((n, K), dtype=np.int32)
    if not rules["belote.enabled"]:
        return out
    value = int(rules["belote.value"])
    h = hands.astype(np.uint32)
    strain64 = strain.astype(np.int64)
    for suit in range(4):
        kq = np.uint32((1 << (8 * suit + 6)) | (1 << (8 * suit + 5)))
        counts = (strain64 == suit) | ((strain64 == ALL_TRUMP) & (rules["belote.all_trump"] == "per_suit"))
        for seat in range(p):
            has = ((h[:, seat] & kq) == kq) & counts
            out[:, seat % K] += np.where(has, value, 0)
    return out


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


def belote_announceable(strain: int, hand: int, trick: list[int], card: int, rules: Ruleset) -> bool:
    """Whether playing ``card`` (a K or Q) from ``hand`` (bitmask, before the play) onto ``trick`` (cards so far)
    announces belote-rebelote (rules.md R25; BG-HIT: on playing the first of the pair when leading or
    following). Suit contracts: king or queen of trump with its partner card still held. All-trump:
    any suit, and with ``belote.all_trump = "per_suit_led"`` only when leading or following that suit.
    Never in no-trump."""
    rank, suit = card % 8, card // 8
    if rank not in (5, 6) or strain == NO_TRUMP or not rules["belote.enabled"]:
        return False
    if strain == ALL_TRUMP:
        mode = rules["belote.all_trump"]
        if mode == "none" or (mode == "per_suit_led" and trick and trick[0] // 8 != suit):
            return False
    elif suit != strain:
        return False
    partner = suit * 8 + (11 - rank)
    return bool(hand >> partner & 1)


def resolve_list(entries: list[tuple[int, str, int, int | None, int]], strain: int, rules: Ruleset,
                 n_players: int = 4) -> list[bool]:
    """Which of a hand's declarations score, entry by entry: (seat, kind, top rank, suit or None, length) ->
    scored flags, by the same keys and contest (``declarations.contest``) as the vectorised path, between the
    teams of ``n_players`` seats. Belotes always score. For explanations and tests."""
    K = n_teams(n_players)
    keys, groups = [], []
    for seat, kind, rank, suit, length in entries:
        if kind == "belote":
            keys.append(0)
            groups.append(None)
            continue
        if kind == "carre":
            value = rules.rank_table("declarations.carre_no_trump" if strain == NO_TRUMP else "declarations.carre")[rank]
            keys.append(int(carre_key(value, rank, rules)))
            groups.append("carre")
        else:
            value = _seq_value(length, rules)
            keys.append(int(seq_key(value, length, rank, int(suit is not None and suit == strain), rules)))
            groups.append("seq")
    if rules["declarations.contest"] == "unified":
        groups = ["all" if g else None for g in groups]
    flags = []
    for (seat, *_), key, group in zip(entries, keys, groups):
        if group is None or (group == "carre" and rules["declarations.contest"] == "sequences_only"):
            flags.append(True)
            continue
        best = [max([k for (s, *_), k, g in zip(entries, keys, groups) if g == group and s % K == t] or [0])
                for t in range(K)]
        flags.append(all(best[seat % K] > b for t, b in enumerate(best) if t != seat % K))
    return flags
