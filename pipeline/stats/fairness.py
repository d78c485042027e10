"""Shuffle fairness: exact probabilities of hand patterns and observed-vs-expected counts in the lake.

When the shuffle is fair, each 8-card hand of a 4-player deal is a uniformly random 8-subset of the
32 cards, whatever the seat. :func:`exact_probabilities` gives the exact probability (a
:class:`fractions.Fraction`) of a set of events for one such hand; :func:`fairness_report` counts the
same events over the lake's ``hands`` table and tests each count against its expectation.

Derivation (also in docs/fairness.md). Write N = S*R cards (S suits of R ranks), hand size H, and
T = C(N, H) equally likely hands.

* Carré of one rank r (all S cards of rank r held): the S cards are forced, the other H-S come from the
  N-S remaining cards: C(N-S, H-S) / T.
* Any carré among k eligible ranks (belote: J 9 A 10 K Q, so k = 6): inclusion-exclusion over the set of
  ranks whose carré is held, sum_{j>=1} (-1)^(j+1) C(k, j) C(N-jS, H-jS) / T.
* Runs and voids: a hand is the union of its S per-suit parts, each one of the 2^R subsets of a suit's
  ranks. Let a_k = number of subsets of one suit with k cards *and a given property*; the number of
  hands whose every suit has the property is the coefficient of x^H in (sum_k a_k x^k)^S (the suits are
  independent choices whose sizes add up to H). With the property "longest run of consecutive ranks < L"
  this counts hands with no run of L or more, so P(run >= L) = 1 - [x^H](A_L(x))^S / T. With the property
  "non-empty", P(at least one void) = 1 - [x^H](B(x))^S / T. The a_k are counted by enumerating the 2^R
  (256) subsets; the polynomial product is exact integer convolution.
* Exactly k cards of one given suit (hypergeometric): C(R, k) C(N-R, H-k) / T.
* Both of two given cards (the J and the 9 of one given suit): C(N-2, H-2) / T.

Event names: ``carre_<rank>`` (ranks J 9 A 10 K Q, named as the declaration kinds name them), ``carre_any``, ``run_3`` ``run_4`` ``run_5``
(a tierce, quarte, quinte or better in one suit), ``void``, ``trump_len_<k>`` (k = 0..8) and ``trump_J9``.
In :func:`exact_probabilities` "trump" means any one suit fixed in advance; in :func:`fairness_report`
it is the contract's trump suit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import arrow_rows
from pipeline.cards import rank_index

#: Ranks whose carré is a belote declaration (rank letters of pipeline.cards), in scoring order.
CARRE_RANKS = ("J", "9", "A", "10", "K", "Q")
RUN_LENGTHS = (3, 4, 5)
#: Largest number of trials for which the binomial test is computed from the exact distribution.
EXACT_MAX_N = 100_000
#: Columns of ``hands`` the report reads.
HANDS_COLUMNS = ("source", "players", "n_players", "initial_hands", "strain")
REPORT_COLUMNS = ("group", "event", "depends_on_trump", "hands", "observed", "expected", "ratio", "p_value", "method")
#: Why the trump events are reported apart, in the words of every place that shows them (``stats fairness``,
#: the HTML report, the dashboard database): the trump is chosen after seeing the cards.
TRUMP_CAVEAT = ("trump_* events use the contract's trump, which the taker chose after seeing cards, so they measure "
                "the bidding as much as the shuffle: they are not expected to follow the uniform-deal probabilities. "
                "The carré, run and void events test the deal itself.")


def depends_on_trump(event: str) -> bool:
    """Whether a fairness event (a key of :func:`exact_probabilities`) depends on the contract's trump suit:
    ``trump_len_<k>`` and ``trump_J9`` do (the strain is chosen by a player who has seen cards, so their
    counts are not expected to match the probabilities of a uniform deal); carrés, runs and voids do not."""
    return event.startswith("trump_")


# ---------------------------------------------------------------------------------------------
# Exact probabilities
# ---------------------------------------------------------------------------------------------

def _longest_run(bits: int) -> int:
    best = cur = 0
    while bits:
        if bits & 1:
            cur += 1
            best = max(best, cur)
        else:
            cur = 0
        bits >>= 1
    return best


def _suit_poly(ranks: int, keep) -> list[int]:
    """Coefficients a_k (k = 0..ranks): number of subsets of one suit's ranks with k cards and keep(subset)."""
    poly = [0] * (ranks + 1)
    for sub in range(1 << ranks):
        if keep(sub):
            poly[bin(sub).count("1")] += 1
    return poly


def _poly_mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _coef_power(poly: list[int], power: int, degree: int) -> int:
    """[x^degree] poly(x)^power, by exact integer convolution."""
    acc = [1]
    for _ in range(power):
        acc = _poly_mul(acc, poly)
    return acc[degree] if degree < len(acc) else 0


def _comb(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def deck_probabilities(suits: int = 4, ranks: int = 8, hand: int = 8,
                       carre_ranks: dict[str, int] | None = None,
                       run_lengths: Sequence[int] = RUN_LENGTHS) -> dict[str, Fraction]:
    """Exact event probabilities for one hand of ``hand`` cards drawn uniformly from a deck of
    ``suits`` x ``ranks`` cards (see the module docstring for the derivation).

    ``carre_ranks`` maps an event suffix to a rank index (default: the belote carrés J 9 A 10 K Q of the
    8-rank deck); ``carre_any`` is the union over those ranks. ``trump_J9`` is any two given cards of
    one suit (the probability does not depend on which). ``trump_len_k`` is given for k = 0..min(ranks, hand).
    """
    if carre_ranks is None:
        carre_ranks = {name: rank_index(name) for name in CARRE_RANKS}
    n = suits * ranks
    total = _comb(n, hand)
    out: dict[str, Fraction] = {}
    one_carre = Fraction(_comb(n - suits, hand - suits), total)
    for name in carre_ranks:
        out[f"carre_{name}"] = one_carre
    k = len(carre_ranks)
    out["carre_any"] = Fraction(sum((-1) ** (j + 1) * _comb(k, j) * _comb(n - j * suits, hand - j * suits)
                                    for j in range(1, k + 1)), total)
    for length in run_lengths:
        no_run = _suit_poly(ranks, lambda sub, L=length: _longest_run(sub) < L)
        out[f"run_{length}"] = 1 - Fraction(_coef_power(no_run, suits, hand), total)
    non_empty = _suit_poly(ranks, lambda sub: sub != 0)
    out["void"] = 1 - Fraction(_coef_power(non_empty, suits, hand), total)
    for c in range(min(ranks, hand) + 1):
        out[f"trump_len_{c}"] = Fraction(_comb(ranks, c) * _comb(n - ranks, hand - c), total)
    out["trump_J9"] = Fraction(_comb(n - 2, hand - 2), total)
    return out


def exact_probabilities() -> dict[str, Fraction]:
    """Exact probability of each event for one 8-card hand drawn uniformly from the 32-card deck.

    Keys: ``carre_J`` ``carre_9`` ``carre_A`` ``carre_10`` ``carre_K`` ``carre_Q`` (the four cards of that
    rank), ``carre_any`` (any of those six carrés; inclusion-exclusion), ``run_3`` ``run_4`` ``run_5``
    (3, 4, 5 or more consecutive ranks 7 8 9 10 J Q K A in one suit), ``void`` (no card of at least one
    suit), ``trump_len_0`` .. ``trump_len_8`` (exactly k cards of one given suit: hypergeometric
    C(8,k) C(24,8-k) / C(32,8)) and ``trump_J9`` (the J and the 9 of one given suit: C(30,6) / C(32,8)).

    Carrés are counted directly (C(28,4) / C(32,8) for one rank); runs and voids by the generating
    function [x^8] A(x)^4 / C(32,8), where A(x) = sum_k a_k x^k counts the 256 subsets of one suit by
    size among those with no run of the length (resp. non-empty). No simulation anywhere.
    """
    return deck_probabilities()


# ---------------------------------------------------------------------------------------------
# Events on observed hands
# ---------------------------------------------------------------------------------------------

def _suit_tables(ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Lookup tables over the 2^ranks subsets of one suit: the longest run of consecutive ranks, and the
    number of cards (both uint8)."""
    longest = np.zeros(1 << ranks, np.uint8)
    for sub in range(1 << ranks):
        longest[sub] = _longest_run(sub)
    count = np.array([bin(sub).count("1") for sub in range(1 << ranks)], np.uint8)
    return longest, count


def hand_events(masks: np.ndarray, trump: np.ndarray | None = None, *, suits: int = 4, ranks: int = 8,
                carre_ranks: dict[str, int] | None = None, pair: tuple[int, int] = (4, 2),
                run_lengths: Sequence[int] = RUN_LENGTHS) -> dict[str, np.ndarray]:
    """Evaluate the events of :func:`deck_probabilities` on hands given as bitmasks (card = suit*ranks + rank).

    ``trump`` is the trump suit index of each hand, or -1 when the hand has none (the trump events are
    then False *and* the hand is not a trial for them: see :func:`fairness_report`). Returns one boolean
    array per event, same length as ``masks``.

    Works suit by suit: each suit's part of a hand is a ``ranks``-bit number, and lookup tables over the
    2^ranks of them give its longest run and its length, so the cost is a few passes over the hands
    whatever the number of events.
    """
    if carre_ranks is None:
        carre_ranks = {name: rank_index(name) for name in CARRE_RANKS}
    m = np.asarray(masks, dtype=np.uint64)
    small = np.uint8 if ranks <= 8 else np.uint16
    full = np.uint64((1 << ranks) - 1)
    # one contiguous array per suit (elementwise operations on them beat reductions along a short axis)
    per_suit = [((m >> np.uint64(s * ranks)) & full).astype(small) for s in range(suits)]
    longest_t, count_t = _suit_tables(ranks)
    out: dict[str, np.ndarray] = {}
    every = np.full(len(m), (1 << ranks) - 1, small)          # ranks held in every suit: the carrés
    longest = np.zeros(len(m), np.uint8)
    void = np.zeros(len(m), bool)
    for x in per_suit:
        every &= x
        np.maximum(longest, longest_t[x], out=longest)
        void |= x == 0
    any_carre = np.zeros(len(m), bool)
    for name, r in carre_ranks.items():
        out[f"carre_{name}"] = ((every >> small(r)) & small(1)) == 1
        any_carre |= out[f"carre_{name}"]
    out["carre_any"] = any_carre
    for length in run_lengths:
        out[f"run_{length}"] = longest >= length
    out["void"] = void
    if trump is None:
        trump = np.full(len(m), -1)
    trump = np.asarray(trump, dtype=np.int64)
    has = trump >= 0
    tbits = np.zeros(len(m), small)
    for s_i, x in enumerate(per_suit):
        np.copyto(tbits, x, where=trump == s_i)
    tlen = count_t[tbits]
    for c in range(ranks + 1):
        out[f"trump_len_{c}"] = has & (tlen == c)
    pm = small((1 << pair[0]) | (1 << pair[1]))
    out["trump_J9"] = has & ((tbits & pm) == pm)
    return out


# ---------------------------------------------------------------------------------------------
# Binomial test
# ---------------------------------------------------------------------------------------------

def binomial_test(k: int, n: int, p: float, exact_max_n: int = EXACT_MAX_N) -> tuple[float, str]:
    """Two-sided binomial test of ``k`` successes in ``n`` trials with success probability ``p``.

    For n <= ``exact_max_n``: exact test on the binomial distribution (the p-value sums the probability
    of every outcome no more likely than k, with scipy's relative tolerance 1e-7); the pmf is evaluated in
    log space from a table of log-factorials. For larger n: normal approximation with continuity
    correction. Returns (p_value, method) with method 'exact' or 'normal'.
    """
    if n == 0:
        return 1.0, "exact"
    if p <= 0.0 or p >= 1.0:
        return (1.0 if k == (0 if p <= 0.0 else n) else 0.0), "exact"
    if n > exact_max_n:
        mean, sd = n * p, math.sqrt(n * p * (1 - p))
        z = max(abs(k - mean) - 0.5, 0.0) / sd
        return min(1.0, math.erfc(z / math.sqrt(2))), "normal"
    i = np.arange(n + 1)
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])
    logpmf = logfact[n] - logfact[i] - logfact[n - i] + i * math.log(p) + (n - i) * math.log1p(-p)
    top = logpmf.max()
    pmf = np.exp(logpmf - top)
    d = pmf[k]
    pv = pmf[pmf <= d * (1 + 1e-7)].sum() * math.exp(top)
    return float(min(1.0, pv)), "exact"


# ---------------------------------------------------------------------------------------------
# Report over the lake
# ---------------------------------------------------------------------------------------------

_SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}
_FULL_DECK = (1 << 32) - 1


def _deals(hands: pa.Table, with_players: bool = True) -> tuple[np.ndarray, np.ndarray, pa.Array, pa.Array | None]:
    """(masks (d, 4) uint32, trump (d,) int64 suit index or -1, source (d,) string array, players (4d,) string
    array seat by seat, or None without ``with_players``) of the valid 4-player deals: initial_hands present,
    four 8-card hands partitioning the 32-card deck; a deal whose players list is not 4 long has null players."""
    four_hands = pc.fill_null(pc.and_(pc.equal(hands["n_players"], 4),
                                      pc.equal(pc.list_value_length(hands["initial_hands"]), 4)), False)
    # filtering copies every list: only when some deal is left out (a lake of 4-player deals keeps them all)
    t = hands if pc.all(four_hands).as_py() else hands.filter(four_hands)
    if t.num_rows == 0:
        return (np.zeros((0, 4), np.uint32), np.zeros(0, np.int64), pa.array([], pa.string()),
                pa.array([], pa.string()) if with_players else None)
    masks = pc.list_flatten(t["initial_hands"]).to_numpy(zero_copy_only=False).astype(np.uint32).reshape(-1, 4)
    m64 = masks.astype(np.uint64)
    ok = (np.bitwise_count(masks) == 8).all(axis=1)
    ok &= (m64[:, 0] | m64[:, 1] | m64[:, 2] | m64[:, 3]) == _FULL_DECK
    suit = pc.index_in(t["strain"], value_set=pa.array(list(_SUIT_INDEX), pa.string()))
    trump = pc.fill_null(suit, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    source = t["source"].combine_chunks()
    players = None
    if with_players:
        players = t["players"].combine_chunks()
        four = pc.fill_null(pc.equal(pc.list_value_length(players), 4), False)
        if not pc.all(four).as_py():      # a players list of another length: four null names instead
            nulls = pa.array([[None] * 4], players.type)
            players = pc.if_else(four, players, pa.repeat(nulls[0], t.num_rows))
        players = pc.list_flatten(players)
    if ok.all():
        return masks, trump, source, players
    return (masks[ok], trump[ok], source.filter(pa.array(ok)),
            None if players is None else players.filter(pa.array(np.repeat(ok, 4))))


def fairness_report(lake: Path, by: str = "source", exact_max_n: int = EXACT_MAX_N,
                    filters=None) -> pa.Table:
    """Observed vs expected counts of the :func:`exact_probabilities` events in the lake's 4-player hands.

    Every seat's initial hand of every 4-player deal with ``initial_hands`` (four 8-card hands that
    partition the deck; other deals are skipped) is one trial of each event. For the ``trump_*`` events
    the trump suit is the contract strain when it is a suit (C D H S); hands whose strain is NT, AT or null
    are not trials for them. ``by`` is 'source' (group = the hand's source), 'player' (group = the
    player at that seat) or 'all' (one group, '(all)').

    ``filters`` (a :class:`pipeline.stats.reports.Filters`) restricts the hands to some sources / variants /
    players / games played between ``since`` and ``until``, keeps only the groups with at least ``min_hands``
    seat hands dealt (the ``hands`` of its non-trump events: every seat hand is a trial of those; a kept
    group's trump rows count only the seat hands with a suit contract, so they can show fewer), and can
    pseudonymize the player names (groups of ``by='player'``); with ``players`` and ``by='player'`` only those
    players' groups are kept. Without filters the lake is read directly, and a
    missing lake gives an empty report.

    The events are counted from the deals themselves, batch by batch: each seat hand's events as one small
    integer (:func:`seat_states`), counted by one bincount per batch. They are not stored: a stored copy per
    ruleset cost the rescore more than it saved this report (docs/bench-results.md, "dealt_events no longer
    written").

    Columns: group, event, depends_on_trump (bool, :func:`depends_on_trump`: true for the trump_* events), hands
    (trials), observed, expected (= hands * exact probability), ratio (observed / expected), p_value (two-sided
    binomial test, :func:`binomial_test`) and method ('exact' when hands <= ``exact_max_n``, 'normal' = normal
    approximation with continuity correction above).

    Caveats. The four seats of one deal are not independent (they partition the deck), so the binomial
    test, which treats every seat hand as an independent trial, is only approximate (the expected counts
    are still exact: expectation is additive whatever the dependence). The trump events are conditional
    on a strain the players chose after seeing (part of) their cards, and deals passed out before the
    deal was completed have no ``initial_hands``: both are selection effects, so the trump events (and,
    more weakly, the others) can deviate even under a perfectly fair shuffle. A small p-value is a prompt
    to look, not proof of a biased shuffle; with ~22 events per group, expect some small p-values by chance.
    """
    _check(by)
    from pipeline.stats import reports as stats
    if filters is None:
        from pipeline.storage import lake as lakemod
        batches = lakemod.iter_batches(lake, "hands", columns=_columns((by,)))
        return _report_rows(*_streamed_counts(batches, (by,))[by], exact_max_n)
    con = stats.connect(lake, filters)
    try:
        return fairness_on(con, by, filters, exact_max_n)
    finally:
        con.close()


def fairness_on(con, by: str = "source", filters=None, exact_max_n: int = EXACT_MAX_N) -> pa.Table:
    """:func:`fairness_report` over the ``hands`` view of an open :func:`pipeline.stats.reports.connect` connection
    (made with ``filters``, which already holds the filtered, possibly pseudonymized hands). With
    ``filters.players`` and ``by='player'``, only those players' groups are kept."""
    return fairness_many(con, (by,), filters, exact_max_n)[by]


def fairness_many(con, bys: Sequence[str], filters=None, exact_max_n: int = EXACT_MAX_N) -> dict[str, pa.Table]:
    """:func:`fairness_on` for each grouping of ``bys`` ('source', 'player', 'all'), the deals read once."""
    from pipeline.stats import reports as stats
    from pipeline.storage.duck import arrow_reader
    for by in bys:
        _check(by)
    counts = _streamed_counts(arrow_reader(con, f"SELECT {', '.join(_columns(bys))} FROM hands", None, BATCH_ROWS),
                              bys)
    keep = stats.filter_player_names(con, filters) if filters is not None and "player" in bys else None
    min_hands = filters.min_hands if filters is not None else None
    # the groups kept, chosen before the rows are made (filtering the table would import pandas: arrow_rows)
    return {by: _report_rows(*counts[by], exact_max_n,
                             lambda name, dealt, by=by: ((not keep or by != "player" or name in keep)
                                                         and (not min_hands or dealt >= min_hands)))
            for by in bys}


def fairness_table(hands: pa.Table, by: str = "source", exact_max_n: int = EXACT_MAX_N) -> pa.Table:
    """:func:`fairness_report` over a ``hands`` table (columns source, players, n_players, initial_hands,
    strain, as in the lake) instead of a lake. Same columns and errors."""
    _check(by)
    return _report_rows(*_deal_counts(hands, by), exact_max_n)


def _check(by: str) -> None:
    """Raise ValueError unless ``by`` is a grouping of the report."""
    if by not in ("source", "player", "all"):
        raise ValueError(f"by must be 'source', 'player' or 'all', not {by!r}")


def _columns(bys: Sequence[str]) -> list[str]:
    """The ``hands`` columns the groupings ``bys`` read (``players`` only for 'player')."""
    return [c for c in HANDS_COLUMNS if c != "players" or "player" in bys]


BATCH_ROWS = 262_144
"""Hands counted at a time when the deals are read from the lake (memory: one batch, not the lake)."""


def _streamed_counts(batches, bys: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray, np.ndarray, dict]]:
    """Grouping of ``bys`` -> :func:`_deal_counts` of a stream of record batches (an iterator or a
    ``pyarrow.RecordBatchReader``), read once, summed group by group: the counts are sums over seat hands, so
    the batches' sizes do not change them."""
    total: dict | None = None
    for b in batches:
        part = _deal_counts_many(pa.Table.from_batches([b]), bys)
        total = part if total is None else {by: _add_counts(total[by], part[by]) for by in bys}
    if total is None:
        from pipeline.storage import schema
        total = _deal_counts_many(schema.empty("hands").select(list(HANDS_COLUMNS)), bys)
    return total


def _add_counts(a: tuple, b: tuple) -> tuple[list[str], np.ndarray, np.ndarray, dict]:
    """The counts of :func:`_deal_counts` for two sets of hands together (groups matched by name)."""
    names = sorted(set(a[0]) | set(b[0]))
    at = {n: i for i, n in enumerate(names)}

    def spread(part_names: list[str], values: np.ndarray) -> np.ndarray:
        out = np.zeros(len(names), np.int64)
        out[[at[n] for n in part_names]] = values
        return out

    def both(i: int) -> np.ndarray:
        return spread(a[0], a[i]) + spread(b[0], b[i])
    observed = {e: spread(a[0], a[3][e]) + spread(b[0], b[3][e]) for e in a[3]}
    return names, both(1), both(2), observed


def _deal_counts(hands: pa.Table, by: str) -> tuple[list[str], np.ndarray, np.ndarray, dict]:
    """The counts of :func:`_report_rows` evaluated on the deals of a ``hands`` table (the events of
    :func:`hand_events`, counted through :func:`seat_states`)."""
    return _deal_counts_many(hands, (by,))[by]


def _deal_counts_many(hands: pa.Table, bys: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray, np.ndarray, dict]]:
    """:func:`_deal_counts` for each grouping of ``bys``, the deals' states computed once."""
    masks, trump, source, players = _deals(hands, with_players="player" in bys)
    flat = masks.reshape(-1)
    states = seat_states(flat, np.repeat(trump, 4))
    out = {}
    for by in bys:
        if by == "player":
            groups, per = players, 1
        elif by == "source":
            groups, per = source, 4          # one code per deal, repeated for its four seats
        else:
            groups, per = pa.array(["(all)"] * min(len(flat), 1), pa.string()), 0
        # one integer code per group (a null name is the group '')
        encoded = pc.dictionary_encode(pc.fill_null(groups.cast(pa.string()), "")) if len(flat) else None
        names = encoded.dictionary.to_pylist() if encoded is not None else []
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64) if encoded is not None else None
        codes = (np.zeros(len(flat), np.int64) if per == 0 or codes is None
                 else np.repeat(codes, per) if per > 1 else codes)
        out[by] = (names, *state_counts(states, codes, len(names)))
    return out


# A seat hand's "state": every event of exact_probabilities() it shows, in one small integer, so that the hands are
# counted by one bincount over (group, state) instead of one pass per event. Bits 0-5: the carrés of CARRE_RANKS;
# bits 6-7: the longest run, 0 (under 3) .. 3 (5 or more); bit 8: a void; bit 9: the J and 9 of trump; then
# STATE_BITS * trump length (0..8), or 9 when the hand has no trump suit (no trial of the trump events).
STATE_BITS = 1 << 10
N_STATES = 10 * STATE_BITS
_NO_TRUMP = 9


@functools.lru_cache(maxsize=1)
def _state_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables over one suit's 256 subsets: the carré bits of the ranks it holds (as bits 0-5 of a state,
    read from the ranks held in every suit), its run level (bits 6-7) and its number of cards."""
    longest, count = _suit_tables(8)
    subsets = np.arange(256)
    carre = np.zeros(256, np.uint16)
    for i, r in enumerate(CARRE_RANKS):
        carre |= (((subsets >> rank_index(r)) & 1) << i).astype(np.uint16)
    run = np.clip(longest.astype(np.int64) - 2, 0, 3).astype(np.uint16)
    return carre, run, count


def seat_states(masks: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """The state (see :data:`N_STATES`) of each seat hand: ``masks`` uint32 [n] card bitmasks (card = suit*8 +
    rank), ``trump`` int [n] the trump suit index or -1. Returns uint16 [n]."""
    carre_t, run_t, count_t = _state_tables()
    m = np.asarray(masks, dtype=np.uint32)
    per_suit = [((m >> np.uint32(8 * s)) & np.uint32(255)).astype(np.uint8) for s in range(4)]
    every = per_suit[0] & per_suit[1] & per_suit[2] & per_suit[3]
    run = np.maximum(np.maximum(run_t[per_suit[0]], run_t[per_suit[1]]), np.maximum(run_t[per_suit[2]], run_t[per_suit[3]]))
    void = (per_suit[0] == 0) | (per_suit[1] == 0) | (per_suit[2] == 0) | (per_suit[3] == 0)
    trump = np.asarray(trump, dtype=np.int64)
    tbits = np.zeros(len(m), np.uint8)
    for s, x in enumerate(per_suit):
        np.copyto(tbits, x, where=trump == s)
    pm = (1 << rank_index("J")) | (1 << rank_index("9"))
    has = trump >= 0
    j9 = has & ((tbits & pm) == pm)
    tlen = np.where(has, count_t[tbits], _NO_TRUMP).astype(np.uint16)
    return (carre_t[every] | (run << 6) | (void.astype(np.uint16) << 8) | (j9.astype(np.uint16) << 9)
            | (tlen * STATE_BITS)).astype(np.uint16)


@functools.lru_cache(maxsize=1)
def _event_of_state() -> dict[str, np.ndarray]:
    """Event name -> bool [N_STATES]: the states showing it."""
    st = np.arange(N_STATES)
    low, tlen = st % STATE_BITS, st // STATE_BITS
    out = {f"carre_{r}": (low >> i) & 1 == 1 for i, r in enumerate(CARRE_RANKS)}
    out["carre_any"] = low & ((1 << len(CARRE_RANKS)) - 1) != 0
    for k, length in enumerate(RUN_LENGTHS):
        out[f"run_{length}"] = (low >> 6) & 3 >= k + 1
    out["void"] = (low >> 8) & 1 == 1
    for c in range(9):
        out[f"trump_len_{c}"] = tlen == c
    out["trump_J9"] = (low >> 9) & 1 == 1
    return out


MAX_STATE_BINS = 1 << 23
"""At most this many (group, state) bins (groups x N_STATES), and at most twice the seat hands counted: past
either, each event is counted by its own bincount over the groups instead: the bins' cost grows with their number,
not with the hands' (docs/bench-results.md, "dealt_events no longer written")."""


def state_counts(states: np.ndarray, codes: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(hands, hands with a trump suit, observed per event) per group, from the seat hands' ``states`` (uint16
    [n], :func:`seat_states`) and group ``codes`` (int [n], 0 .. groups-1); each int64 [groups]."""
    by_state = _event_of_state()
    events = list(exact_probabilities())
    trial = np.arange(N_STATES) // STATE_BITS != _NO_TRUMP
    if groups * N_STATES <= min(MAX_STATE_BINS, 2 * len(states)):
        bins = np.bincount(codes * N_STATES + states, minlength=groups * N_STATES).reshape(groups, N_STATES)
        observed = {e: bins[:, by_state[e]].sum(axis=1) for e in events}
        return bins.sum(axis=1), bins[:, trial].sum(axis=1), observed
    observed = {e: np.bincount(codes[by_state[e][states]], minlength=groups) for e in events}
    return (np.bincount(codes, minlength=groups), np.bincount(codes[trial[states]], minlength=groups), observed)


def _report_rows(names: list[str], n_all, n_trump, observed: dict, exact_max_n: int = EXACT_MAX_N,
                 keep=None) -> pa.Table:
    """The report's rows from the counts per group: ``names`` (group i's name), ``n_all[i]`` seat hands,
    ``n_trump[i]`` of them with a suit contract, ``observed[event][i]`` showing each event. Groups sorted by name;
    with ``keep(name, n_all)``, only the groups it is true for."""
    probs = exact_probabilities()
    events = list(probs)
    rows = {c: [] for c in REPORT_COLUMNS}
    for gi in sorted(range(len(names)), key=lambda i: names[i]):
        g = names[gi]
        if keep is not None and not keep(g, int(n_all[gi])):
            continue
        for name in events:
            n = int((n_trump if name.startswith("trump_") else n_all)[gi])
            k = int(observed[name][gi])
            p = probs[name]
            expected = n * float(p)
            pv, method = binomial_test(k, n, float(p), exact_max_n)
            rows["group"].append(g)
            rows["event"].append(name)
            rows["depends_on_trump"].append(depends_on_trump(name))
            rows["hands"].append(n)
            rows["observed"].append(k)
            rows["expected"].append(expected)
            rows["ratio"].append(k / expected if expected > 0 else None)
            rows["p_value"].append(pv)
            rows["method"].append(method)
    schema = pa.schema([("group", pa.string()), ("event", pa.string()), ("depends_on_trump", pa.bool_()),
                        ("hands", pa.int64()),
                        ("observed", pa.int64()), ("expected", pa.float64()), ("ratio", pa.float64()),
                        ("p_value", pa.float64()), ("method", pa.string())])
    return arrow_rows.table(rows, schema)
