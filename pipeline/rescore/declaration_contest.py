"""The contest between teams over their declarations, and what a capot leaves of them.

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
The keys compared are :mod:`pipeline.rescore.declaration_values`'. Held and announced declarations go through
the same compiled contest; :func:`resolve_list` restates it per hand in Python, for explanations and tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import NO_TRUMP
from pipeline.rescore.arith import mod
from pipeline.rescore.declaration_items import KINDS, Entries
from pipeline.rescore.declaration_values import _active, _seq_value, carre_key, seq_key
from pipeline.jit import njit, njit_inner, renamed
from pipeline.rules import Ruleset, n_teams


CONTESTS = ("unified", "separate", "sequences_only", "all")
#: ``declarations.tie`` values, in the order the kernels number them
TIES = ("none", "first_announcer")


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
    entries: the declarations one by one (:class:`pipeline.rescore.declaration_items.Entries`), belotes excluded;
        None when not asked for.
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
    if (best <= 0) | ((n_top > 1) & (tie == 0)):
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


#: on_capot as the compiled declarations pass calls it, compiled a second time without numba's wrappers
#: (pipeline.jit.njit_inner) under its own name (numba's cache names an entry after the function)
on_capot_inner = njit_inner(renamed(on_capot.py_func, "on_capot_inner"))



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
