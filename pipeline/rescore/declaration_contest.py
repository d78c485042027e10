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
the same contest, numpy over all hands at once (:func:`settle_rows`); :func:`resolve_list` restates it per hand in Python, for explanations and tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.cards import NO_TRUMP
from pipeline.rescore.declaration_items import KINDS, Entries
from pipeline.rescore.declaration_values import _active, _seq_value, carre_key, seq_key
from pipeline.jit import njit
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


def team_sums(points: np.ndarray, K: int) -> np.ndarray:
    """int64 (m, K): each team's sum of its seats' ``points`` (int (m, P); team = seat % K)."""
    cols = [points[:, t].astype(np.int64) for t in range(K)]
    for p in range(K, points.shape[1]):
        cols[p % K] += points[:, p]
    return np.stack(cols, axis=1)


def contest_rows(points: list[np.ndarray], key: np.ndarray, K: int, tie: int, dealer: np.ndarray):
    """One contest in each of m hands: the team with the strictly best key scores all its points. An equal best
    key in two teams (``declarations.tie``, ``tie`` indexes :data:`TIES`) scores for nobody ("none"), or for the
    team of the seat that announces first among those holding it ("first_announcer": seats announce in playing
    order from the eldest hand, dealer + 1; ``dealer``: int (m,)). points (summed), key: int (m, P) per seat
    (team = seat % K). Returns (int64 (m,) the winning team, -1 for none; the points won as (hands, teams,
    points), int64 arrays). Column by column (2 or 3 teams of 1 or 2 seats), and past the best key only in the
    hands where some team holds one."""
    m, P = key.shape
    team_key = [np.maximum(key[:, t], 0) for t in range(K)]
    for p in range(K, P):
        np.maximum(team_key[p % K], key[:, p], out=team_key[p % K])
    best = team_key[0].copy()
    for t in range(1, K):
        np.maximum(best, team_key[t], out=best)
    live = np.flatnonzero(best > 0)
    best = best[live]
    n_top = np.zeros(len(live), np.int64)
    winner = np.full(len(live), -1, np.int64)
    for t in range(K):
        top = team_key[t][live] == best
        n_top += top
        winner[top] = t                                    # the last team holding the best key
    if tie == 0:
        winner[n_top > 1] = -1
    tied = np.flatnonzero((winner >= 0) & (n_top > 1))     # first_announcer: the first seat holding the best key
    if len(tied):
        rows = live[tied]
        w, found = winner[tied], np.zeros(len(tied), bool)
        first = np.asarray(dealer, dtype=np.int64)[rows] + 1
        for j in range(P):
            p = np.mod(first + j, P)
            hit = ~found & (key[rows, p] == best[tied])
            w[hit] = p[hit] % K
            found |= hit
        winner[tied] = w
    won = winner >= 0
    rows, team = live[won], winner[won]
    pts = np.zeros(len(rows), np.int64)
    at = rows * P + team
    for a in points:
        for j in range(P // K):            # the team's seats: team, team + K...
            pts += np.take(a, at + j * K)
    out = np.full(m, -1, np.int64)
    out[rows] = team
    return out, (rows, team, pts)


def _all_teams(points: np.ndarray, K: int) -> tuple:
    """Every team's sum of its seats' ``points`` (int (m, P)) as (hands, teams, points)."""
    m = len(points)
    return np.repeat(np.arange(m), K), np.tile(np.arange(K), m), team_sums(points, K).ravel()


def settle_rows(sp, sk, cp, ck, active, contest: int, K: int, tie: int, dealer: np.ndarray):
    """The contest between teams (see module doc) of m hands; ``contest`` indexes :data:`CONTESTS`, ``tie``
    :data:`TIES`; ``dealer``: int (m,) each hand's dealer (the eldest hand, dealer + 1, announces first).
    sp, sk, cp, ck: int64 (m, P) per-seat points and best keys, set to 0 here where declarations are not
    ``active`` (bool (m,)). Returns (the points the teams score as (hands, teams, points), int64 arrays, a hand
    and team possibly twice; seq_wins, carre_wins: bool (m, K) whether each team's sequences / carrés score)."""
    off = np.flatnonzero(~active)
    for a in (sp, sk, cp, ck):
        a[off] = 0
    teams = np.arange(K)
    if contest == 3:              # all: no contest, every team scores its own
        on = np.repeat(active[:, None], K, axis=1)
        return _all_teams(sp + cp, K), on, on.copy()
    if contest == 0:              # unified: one contest over every declaration
        winner, won = contest_rows([sp, cp], np.maximum(sk, ck), K, tie, dealer)
        wins = teams == winner[:, None]
        return won, wins, wins.copy()
    winner, won = contest_rows([sp], sk, K, tie, dealer)
    if contest == 1:              # separate: sequences and carrés each contested
        carre_winner, carre_won = contest_rows([cp], ck, K, tie, dealer)
        won = tuple(np.concatenate([a, b]) for a, b in zip(won, carre_won))
        return won, teams == winner[:, None], teams == carre_winner[:, None]
    carres = _all_teams(cp, K)     # sequences_only: every carré scores for its holder
    return (tuple(np.concatenate([a, b]) for a, b in zip(won, carres)), teams == winner[:, None],
            np.repeat(active[:, None], K, axis=1))


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
    won, seq_wins, carre_wins = settle_rows(sp, sk, cp, ck, on, CONTESTS.index(rules["declarations.contest"]), K,
                                            TIES.index(rules["declarations.tie"]), _dealers(dealer, n, rules))
    return Declarations(sp.astype(np.int32), sk, cp.astype(np.int32), ck, belote, team_points(won, n, K),
                        seq_wins, carre_wins)


def team_points(won: tuple, n: int, K: int) -> np.ndarray:
    """int32 (n, K): the points of :func:`settle_rows` (hands, teams, points) added up per hand and team."""
    team = np.zeros((n, K), np.int64)
    np.add.at(team, won[:2], won[2])
    return team.astype(np.int32)


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


def on_capot_rows(D: np.ndarray, ok: np.ndarray, K: int, capot_team: np.ndarray, took: np.ndarray,
                  mode: int) -> None:
    """:func:`on_capot` in the hands where ``ok`` (bool (n,)) at once (numpy): ``capot_team`` (int (n,), -1 when
    none) and ``took`` (bool (n, K)); D: int64 (n, K), changed in place."""
    if mode == 0:
        return
    rows = np.flatnonzero(ok)
    capt = np.asarray(capot_team, dtype=np.int64)[rows]
    if K == 2:
        r, c = rows[capt >= 0], capt[capt >= 0]
        if mode == 1:
            D[r, c] += D[r, 1 - c]
        D[r, 1 - c] = 0
        return
    d = D[rows]
    lost = ~took[rows]
    given = (d * lost).sum(axis=1)
    d[lost] = 0
    if mode == 1:
        sel = capt >= 0
        d[np.flatnonzero(sel), capt[sel]] += given[sel]
    D[rows] = d


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
