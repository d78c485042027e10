"""The hand-level derived tables computed batch by batch inside the rescore's hand pass.

:func:`pipeline.facts.derived.materialize` computes each derived table after the rescore by reading the whole lake's
hands and scores back and joining them on ``hand_key``: a second read, a hash join of the whole lake (memory
growing with it), five times. Every hand-level table (``player_hands``, ``hand_facts``, ``pair_hands``,
``declaration_items``, and ``dealt_events``, which is not stored: the rescore skips it) is row-local, so here each batch of hands is derived as it is scored,
from the hands batch and its scores batch already in memory, and written beside the scores in the same pass; with
``game_sums``, the game-level tables' partial sums are collected too (:mod:`pipeline.facts.game_sums`).
The rows are those of each table's ``live`` SELECT: for a plain hand (each seat its own name, not
summary-level: nearly all) a function of :data:`_FAST` restates that SELECT column by column in Arrow and numpy
(several times cheaper than the SELECT: docs/bench-results.md); every other hand
goes through the SELECT itself, run by DuckDB over the batch. ``tests/test_batch_facts.py`` holds both equal
to the whole-lake SELECT. ``hand_facts`` keeps the hands' order (the ``compare`` report pairs rows by it).

Two things are not row-local, and are given to each batch instead:

* a summary-level hand's points read the running totals of the earlier hands of its game
  (:mod:`pipeline.facts.summary_points`), which another batch may hold: computed once over the lake's games that
  have a summary hand, by :meth:`BatchFacts.__init__` or given to it (the rescore's game pass needs them too);
* ``hand_facts.hand_seq``, the hand's position in the hand files read (file index << 32 | row in the file), is
  given by the caller (:func:`pipeline.storage.lake.iter_positioned`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.facts import derived

from pipeline.facts import hand_facts

from pipeline.facts import pair_facts

from pipeline.facts import player_facts

from pipeline.storage import schema
from pipeline.facts.game_sums import PARENTS, GameSums
from pipeline.facts.summary_points import summary_table

#: the derived tables computed here: those computed from hands and scores (the game-level ones, their children,
#: are added up from each batch's rows and given as the game pass closes each game: :mod:`pipeline.facts.game_sums`)
HAND_LEVEL = tuple(name for name, d in derived.DERIVED.items() if d.parent is None)
GAME_LEVEL = tuple(name for name, d in derived.DERIVED.items() if d.parent is not None)


class BatchFacts:
    """Derives the hand-level tables' rows of one batch of hands at a time under ruleset ``ruleset`` of lake
    ``lake``. One DuckDB connection (one thread: the hand pass already keeps the cores busy), closed by
    :meth:`close`. Raises duckdb.Error / OSError when the lake's hands cannot be read."""

    def __init__(self, lake, ruleset: str, game_sums: bool = False, summary: pa.Table | None | bool = False):
        """``summary``: the lake's summary hands' points, (hand_key, points) rows as
        :func:`pipeline.facts.summary_points.summary_table` gives them (None: the lake has none), when the caller
        has them already; by default (False) they are computed here."""
        from pipeline.storage.duck import PASS_LIMIT, duckdb_connection

        self.con = duckdb_connection(default_limit=PASS_LIMIT)
        self.sums = None
        try:
            self._prepare(lake, ruleset, summary)
            self.sums = GameSums(self.con, ruleset) if game_sums else None
        except BaseException:
            self.con.close()
            raise

    def _prepare(self, lake, ruleset: str, summary: pa.Table | None | bool) -> None:
        self.con.execute("SET threads = 1")
        self.ruleset = "SELECT '" + ruleset.replace("'", "''") + "' AS ruleset"
        self.ruleset_name = ruleset
        if summary is False:
            summary = summary_table(lake)
        rows = summary if summary is not None else pa.table({"hand_key": pa.array([], pa.string()),
                                                             "points": pa.array([], pa.list_(pa.int32()))})
        self.con.register("_summary_given", rows)
        self.con.execute("CREATE TEMP TABLE _summary AS SELECT hand_key, points FROM _summary_given")
        self.con.unregister("_summary_given")
        self.sql = {
            "player_hands": player_facts.live_hands_sql("_h", "_s", self.ruleset, summary="_summary"),
            "hand_facts": hand_facts.live_sql("_h", "_s", self.ruleset, hand_seq="h.hand_seq"),
            "pair_hands": pair_facts.live_hands_sql("_h", "_s", self.ruleset, summary="_summary"),
        }
        for name in HAND_LEVEL:
            self.sql.setdefault(name, derived.DERIVED[name].live("_h", "_s", self.ruleset))

    def rows(self, hands: pa.Table | pa.RecordBatch, scores: pa.Table,
             seq: np.ndarray | None = None) -> dict[str, pa.Table]:
        """Each hand-level table's rows for ``hands`` (rows of the ``hands`` table) and ``scores`` (their
        ``score_batch`` rows, same order); ``seq``: int64 (n,) the hands' ``hand_seq`` (None: null)."""
        return dict(self.iter_rows(hands, scores, seq))

    def iter_rows(self, hands: pa.Table | pa.RecordBatch, scores: pa.Table,
                  seq: np.ndarray | None = None, stored_only: bool = False) -> Iterator[tuple[str, pa.Table]]:
        """:meth:`rows` one table at a time, as (name, rows): a caller that writes each before taking the next
        holds one table's rows of the batch, not all five (their partial game sums are taken as each is made).
        With ``game_sums``, consume it to the end: the batch is closed in the sums (``GameSums.end``) after the
        last table only; one left open keeps the partial rows taken so far pending under the number the next batch
        then takes too, and lacks those of the tables not made. ``stored_only``: the rows of the tables not stored
        (:data:`pipeline.facts.derived.STORED`) are not yielded (the rescore's writing): those of ``player_hands``
        and ``pair_hands`` are made for the sums only (without the columns the sums do not read), those of
        ``dealt_events`` not at all; by default every table's rows are (the tests' reference)."""
        if isinstance(hands, pa.RecordBatch):
            hands = pa.Table.from_batches([hands])
        n = hands.num_rows
        hands = hands.append_column("hand_seq", pa.array(seq, pa.int64()) if seq is not None
                                    else pa.nulls(n, pa.int64()))
        plain = _plain_hands(hands)
        every = bool(plain.all())
        ph, ps = (hands, scores) if every else (hands.filter(plain), scores.filter(plain))
        rh, rs = (None, None) if every else (hands.filter(~plain), scores.filter(~plain))
        if self.sums is not None:
            self.sums.begin(ph, rh)
        for name in self.sql:
            fast = _FAST.get(name)
            # a table not stored is made for the game sums only (without the columns they do not read), if at all
            unstored = stored_only and name not in derived.STORED
            if unstored and (fast is None or self.sums is None or name not in PARENTS):
                continue
            if fast is None:
                yield name, self._sql(name, hands, scores)
                continue
            rows = laid = fast(ph, ps, self.ruleset_name, sums_only=True) if unstored else fast(ph, ps, self.ruleset_name)
            if rows is None:        # the function declines this batch: the SQL takes it
                rows = self._sql(name, ph, ps)
            rest = None if every else self._sql(name, rh, rs)
            if name in PARENTS and self.sums is not None:
                self.sums.add_parent(name, laid, None if laid is not None else rows, rest)
            if unstored:
                rows = laid = rest = None
                continue
            if not every:
                rows = pa.concat_tables([rows, rest])
                if name == "hand_facts":    # one row per hand, kept in the hands' order (its hand_seq order)
                    rows = rows.take(np.argsort(np.concatenate([np.nonzero(plain)[0], np.nonzero(~plain)[0]]),
                                                kind="stable"))
            yield name, rows
            rows = laid = rest = None       # written by now: not held while the next table is made
        if self.sums is not None:
            self.sums.end()

    def game_rows(self, closed: pa.Array, late: pa.Array, results: pa.Table, last: bool = False) -> dict[str, pa.Table]:
        """The game-level tables' rows (``player_games``, ``pair_games``) of the games ``closed`` by the game
        pass, whose ``game_scores`` rows are ``results``, and of those closed before and not given yet (every one
        when ``last``); partial rows of the games ``late`` are dropped
        (:meth:`pipeline.facts.game_sums.GameSums.close_games`). Needs ``game_sums``."""
        return self.sums.close_games(closed, late, results, last)

    def _sql(self, name: str, hands: pa.Table, scores: pa.Table) -> pa.Table:
        """``name``'s rows by its SQL (the reference), over ``hands`` and ``scores`` registered as ``_h``, ``_s``."""
        self.con.register("_h", hands)
        self.con.register("_s", scores)
        try:
            return schema.conform(name, self.con.sql(self.sql[name]).to_arrow_table().select(schema.schema(name).names))
        finally:
            self.con.unregister("_h")
            self.con.unregister("_s")

    def close(self) -> None:
        self.con.close()


# -- the common hands, derived with Arrow and numpy ------------------------------------------------------------
# A hand is plain when each of its n_players seats holds its own name (no name missing or on two seats) and it is
# not summary-level (whose points come from the game's running totals): nearly every hand. Every other hand goes
# through the SQL, whose first derivation these functions restate column by column (same names, same nulls).


def _np(col, fill) -> np.ndarray:
    return pc.fill_null(col, fill).to_numpy(zero_copy_only=False)


def _valid(col) -> np.ndarray:
    return pc.is_valid(col).to_numpy(zero_copy_only=False)


def _lists(col) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(start, length) int64 (n,) of each list of ``col`` (length 0 where null) and the lists' values."""
    a = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    off = a.offsets.to_numpy().astype(np.int64)
    length = np.where(_valid(a), off[1:] - off[:-1], 0)
    return off[:-1], length, a.values


def _at(col, idx: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``col[rows][idx]`` per output row (``col`` a list column of integers, ``rows`` int64 the input row of each
    output row, default every row; ``idx`` 0-based, may be out of range): (int64 values, 0 where missing; bool
    valid), missing as DuckDB's ``list[i]`` is (null list, out of range, null element)."""
    start, length, values = _lists(col)
    if rows is not None:
        start, length = start[rows], length[rows]
    ok = (idx >= 0) & (idx < length)
    if len(values) == 0:
        return np.zeros(len(idx), np.int64), np.zeros(len(idx), bool)
    pos = np.where(ok, start + idx, 0)
    vals, valid = _np(values, 0).astype(np.int64), _valid(values)
    return np.where(ok, vals[pos], 0), ok & valid[pos]


def _plain_hands(hands: pa.Table) -> np.ndarray:
    """bool (n,): each hand is plain (module text above)."""
    n_players = _np(hands.column("n_players"), 0).astype(np.int64)
    start, length, names = _lists(hands.column("players"))
    plain = ((length == n_players) & (n_players > 0) & (n_players <= 4)
             & ~_np(pc.equal(hands.column("completeness"), "summary"), False))
    for i in range(4):
        for j in range(i + 1, 4):
            both = plain & (n_players > j)
            if not both.any():
                continue
            a = names.take(pa.array(np.where(both, start + i, 0)))
            b = names.take(pa.array(np.where(both, start + j, 0)))
            clash = _np(pc.equal(a, b), True) | ~_valid(a) | ~_valid(b)
            plain &= ~(both & clash)
    for i in range(4):      # one seat: a missing name also fails
        has = plain & (n_players > i)
        if has.any():
            a = names.take(pa.array(np.where(has, start + i, 0)))
            plain &= ~(has & ~_valid(a))
    return plain


def _team(seat: np.ndarray, n_players: np.ndarray) -> np.ndarray:
    """``CASE WHEN n_players = 3 THEN seat ELSE seat % 2 END`` (SQL's remainder takes the dividend's sign)."""
    return np.where(n_players == 3, seat, np.fmod(seat, 2))


def _player_hands(h: pa.Table, s: pa.Table, ruleset: str, sums_only: bool = False) -> pa.Table:
    """``player_hands`` rows of plain hands: one per seat, seats in order within a hand. ``sums_only``: without
    the columns the game sums do not read (``ruleset``, ``hand_key``, ``players``: a copy of every string a
    seat), not conformed to the schema (:mod:`pipeline.facts.game_sums` reads columns by name)."""
    n = h.num_rows
    n_players = _np(h.column("n_players"), 0).astype(np.int64)
    hand = np.repeat(np.arange(n), n_players)
    first = np.repeat(np.cumsum(n_players) - n_players, n_players)
    seat = np.arange(len(hand)) - first
    take = pa.array(hand)
    npl = n_players[hand]
    team = _team(seat, npl)
    taker, has_taker = _np(h.column("taker"), 0).astype(np.int64)[hand], _valid(h.column("taker"))[hand]
    is_taker = has_taker & (seat == taker)
    taker_team = _team(taker, npl)
    cm, cm_valid = _np(s.column("contract_made"), False)[hand], _valid(s.column("contract_made"))[hand]
    scored = _np(pc.equal(s.column("status"), "scored"), False)[hand]
    litige = _np(s.column("litige"), False)[hand]
    strain = h.column("strain")
    kind = pc.if_else(pc.equal(strain, "NT"), "nt", pc.if_else(pc.equal(strain, "AT"), "at", "suit"))
    kind = pc.fill_null(kind, "suit").take(take)
    score, score_valid = _at(s.column("hand_score"), team, hand)
    belote, belote_valid = _at(s.column("belote_points"), team, hand)

    def eq(col, on) -> np.ndarray:    # coalesce(on = col, false)
        return _valid(col)[hand] & (_np(col, 0).astype(np.int64)[hand] == on)

    legal_false = _valid(s.column("legal"))[hand] & ~_np(s.column("legal"), True)[hand]
    # coinche calls and declarations (belote aside) per (hand, seat)
    auction = h.column("auction").combine_chunks()
    coinches = _per_seat(auction, lambda calls: pc.equal(pc.struct_field(calls, "call"), "coinche"), n)
    declared = _per_seat(s.column("declarations").combine_chunks(),
                         lambda items: pc.not_equal(pc.struct_field(items, "kind"), "belote"), n)
    start, _, _ = _lists(h.column("players"))
    capot_valid = _valid(s.column("capot_team"))[hand]
    capot = _np(s.column("capot_team"), 0).astype(np.int64)[hand]
    cols = {
        "game_id": h.column("game_id").take(take),
        "source": h.column("source").take(take),
        "player": h.column("players").combine_chunks().values.take(pa.array(start[hand] + seat)),
        "team_mask": pa.array((1 << team).astype(np.int8)),
        "is_taker": pa.array(is_taker),
        "is_defender": pa.array(has_taker & (team != taker_team)),
        "made": pa.array(is_taker & cm_valid & cm),
        "decided": pa.array(is_taker & scored & ~litige),
        "taker_litige": pa.array(is_taker & litige),
        "failed": pa.array(~cm, mask=~cm_valid),
        "scored": pa.array(scored),
        "strain_kind": kind,
        "summary": pa.array(np.zeros(len(hand), bool)),
        "own_score": pa.array(score.astype(np.int32), mask=~score_valid),
        "team_belote": pa.array(belote_valid & (belote > 0)),
        "illegal": pa.array(legal_false & eq(s.column("illegal_seat"), seat)),
        "coinches": pa.array(coinches[hand, seat].astype(np.int16), mask=~_valid(auction)[hand]),
        "capot_made": pa.array(capot_valid & (team == capot)),
        "capot_suffered": pa.array(capot_valid & (team != capot)),
        "declared": pa.array(declared[hand, seat].astype(np.int16)),
        "matches_recorded": s.column("matches_recorded").take(take),
    }
    if sums_only:
        return pa.table(cols)
    cols.update({"ruleset": pa.repeat(pa.scalar(ruleset), len(hand)), "hand_key": h.column("hand_key").take(take),
                 "players": h.column("players").take(take)})
    return schema.conform("player_hands", pa.table(cols))


def _per_seat(lists: pa.Array, which, n: int) -> np.ndarray:
    """int64 (n, 4): per hand and seat, how many items of ``lists`` (a list-of-structs column with a ``seat``)
    ``which(items)`` (a boolean Arrow array) selects; an item whose seat is null or not 0-3 counts nowhere."""
    out = np.zeros((n, 4), np.int64)
    items = pc.list_flatten(lists)
    if len(items):
        parent = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
        seat = pc.struct_field(items, "seat")
        at = _np(seat, 0).astype(np.int64)
        hit = _np(which(items), False) & _valid(seat) & (at >= 0) & (at < 4)
        np.add.at(out, (parent[hit], at[hit]), 1)
    return out


def _hand_facts(h: pa.Table, s: pa.Table, ruleset: str) -> pa.Table:
    """``hand_facts`` rows of plain hands (one per hand)."""
    n = h.num_rows
    tt, tt_valid = _np(s.column("taker_team"), 0).astype(np.int64), _valid(s.column("taker_team"))
    cp = s.column("contract_points")
    _, cp_len, _ = _lists(cp)
    taker_cp, taker_ok = _at(cp, np.where(tt_valid, tt, -1))
    defence_cp, defence_ok = _at(cp, np.where(tt_valid & (cp_len == 2), 1 - tt, -1))
    dp = s.column("declaration_points")
    _, dp_len, _ = _lists(dp)
    d0, d0_ok = _at(dp, np.zeros(n, np.int64))
    d1, d1_ok = _at(dp, np.ones(n, np.int64))
    dt, _ = _at(dp, np.where(tt_valid, tt, -1))
    two = dp_len == 2
    bp = s.column("belote_points")
    belote_teams = sum((_at(bp, np.full(n, t))[0] > 0).astype(np.int64) << t for t in range(3))
    cols = {name: h.column(name) for name in ("hand_key", "game_id", "hand_no", "source", "n_players", "taker",
                                              "strain", "bid", "capot_bid", "coinche")}
    cols.update({
        "ruleset": pa.repeat(pa.scalar(ruleset), n),
        "records_announced": pc.is_valid(h.column("announced")),
        **{name: s.column(name) for name in ("status", "contract_made", "litige", "legal", "taker_team",
                                             "capot_team", "belote_team")},
        "belote_teams": pa.array(belote_teams.astype(np.int8), mask=~_valid(bp)),
        "taker_contract_points": pa.array(taker_cp.astype(np.int16), mask=~taker_ok),
        "defence_contract_points": pa.array(defence_cp.astype(np.int16), mask=~defence_ok),
        "decl_points": pa.array(_list_sums(dp).astype(np.int16)),
        "decl_points_team0": pa.array(np.where(two & d0_ok, d0, 0).astype(np.int16)),
        "decl_points_team1": pa.array(np.where(two & d1_ok, d1, 0).astype(np.int16)),
        "decl_points_taker": pa.array(dt.astype(np.int16)),
        **{name: s.column(name) for name in ("declarations_decided", "declarations_from", "hand_score")},
        "hand_seq": h.column("hand_seq"),
        "players": h.column("players"),
    })
    return schema.conform("hand_facts", pa.table(cols).select(schema.schema("hand_facts").names))


def _list_sums(col) -> np.ndarray:
    """int64 (n,): the sum of each list of integers (0 for a null or empty list; null items count 0)."""
    start, length, values = _lists(col)
    v = np.concatenate([[0], np.cumsum(_np(values, 0).astype(np.int64))]) if len(values) else np.zeros(1, np.int64)
    return v[np.minimum(start + length, len(v) - 1)] - v[np.minimum(start, len(v) - 1)]


def _pair_hands(h: pa.Table, s: pa.Table, ruleset: str, sums_only: bool = False) -> pa.Table:
    """``pair_hands`` rows of plain 4-player hands: team 0's row, then team 1's (the two pairs of a plain hand
    differ: its four names are distinct). ``sums_only``: as :func:`_player_hands`."""
    four = _np(pc.equal(h.column("n_players"), 4), False)
    if not four.all():
        h, s = h.filter(four), s.filter(four)
    n = h.num_rows
    start, _, names = _lists(h.column("players"))
    seat_name = [names.take(pa.array(start + i)) for i in range(4)]

    def pair(a, b):   # list_sort: the two names in order
        first = _np(pc.less_equal(a, b), True)
        return pc.if_else(pa.array(first), a, b), pc.if_else(pa.array(first), b, a)

    pairs = [pair(seat_name[0], seat_name[2]), pair(seat_name[1], seat_name[3])]
    team = np.repeat(np.arange(2), n)
    hand = np.tile(np.arange(n), 2)
    take = pa.array(hand)
    taker, has_taker = _np(h.column("taker"), 0).astype(np.int64), _valid(h.column("taker"))
    side = np.where(has_taker, np.fmod(taker, 2), _np(h.column("taker_team"), 0).astype(np.int64))
    side_ok = has_taker | _valid(h.column("taker_team"))
    took = (side_ok & (side == np.arange(2)[:, None])).reshape(-1)
    cm, cm_valid = _np(s.column("contract_made"), False)[hand], _valid(s.column("contract_made"))[hand]
    scored = _np(pc.equal(s.column("status"), "scored"), False)[hand]
    litige = _np(s.column("litige"), False)[hand]
    score, score_valid = _at(s.column("hand_score"), team, hand)
    cols = {
        "game_id": h.column("game_id").take(take),
        "source": h.column("source").take(take),
        "player_a": pa.concat_arrays([pairs[0][0], pairs[1][0]]),
        "player_b": pa.concat_arrays([pairs[0][1], pairs[1][1]]),
        "team_mask": pa.array((1 << team).astype(np.int8)),
        "took": pa.array(took),
        "made": pa.array(took & cm_valid & cm),
        "decided": pa.array(took & scored & ~litige),
        "taker_litige": pa.array(took & litige),
        "summary": pa.array(np.zeros(2 * n, bool)),
        "own_score": pa.array(score.astype(np.int32), mask=~score_valid),
    }
    if sums_only:
        return pa.table(cols)
    cols.update({"ruleset": pa.repeat(pa.scalar(ruleset), 2 * n), "hand_key": h.column("hand_key").take(take),
                 "players": h.column("players").take(take)})
    return schema.conform("pair_hands", pa.table(cols))


_RANK_NAMES = np.array(["7", "8", "9", "10", "J", "Q", "K", "A"])


def _declaration_items(h: pa.Table, s: pa.Table, ruleset: str) -> pa.Table | None:
    """``declaration_items`` rows of plain hands: the items of each scored hand's ``scores.declarations``
    (announced false), then of its ``hands.announced`` (announced true). None when an item's seat or rank is
    out of its range (or null), where DuckDB's list indexing would answer otherwise than plainly: the SQL then
    takes the batch."""
    scored = _np(pc.equal(s.column("status"), "scored"), False)
    p_start, p_len, names = _lists(h.column("players"))
    parts = []
    for announced, col in ((False, s.column("declarations")), (True, h.column("announced"))):
        lists = (col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col).filter(pa.array(scored))
        rows = np.nonzero(scored)[0]
        items = pc.list_flatten(lists)
        if len(items) == 0:
            continue
        parent = rows[pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)]
        seat = pc.struct_field(items, "seat")
        seat_v, seat_ok = _np(seat, -1).astype(np.int64), _valid(seat)
        kind = pc.struct_field(items, "kind")
        rank = pc.struct_field(items, "rank")
        rank_v, rank_ok = _np(rank, -1).astype(np.int64), _valid(rank)
        is_carre = _np(pc.equal(kind, "carre"), False)
        seat_in = seat_ok & (seat_v >= 0) & (seat_v < p_len[parent])
        rank_in = ~is_carre | (rank_ok & (rank_v >= 0) & (rank_v < 8))
        if not (seat_in & rank_in).all():
            return None
        player = names.take(pa.array(p_start[parent] + seat_v))
        carre = pc.binary_join_element_wise("carre_", pa.array(_RANK_NAMES[np.clip(rank_v, 0, 7)]), "")
        listed = pc.is_in(kind, value_set=pa.array(["tierce", "quarte", "quinte", "belote"]))
        other = kind if not announced else pa.nulls(len(items), pa.string())
        kind_out = pc.if_else(pa.array(is_carre), carre, pc.if_else(pc.fill_null(listed, False), kind, other))
        # an item is the first of its kind in its list (by anyone / by its name): compare with every earlier item
        k_code = _np(pc.dictionary_encode(kind_out).indices, -1).astype(np.int64)
        p_code = _np(pc.dictionary_encode(player).indices, -1).astype(np.int64)
        first_hand = np.ones(len(items), bool)
        first_player = np.ones(len(items), bool)
        same_list = np.ones(len(items), bool)
        for d in range(1, len(items)):
            same_list[d:] &= parent[d:] == parent[:-d]
            same_list[:d] = False
            if not same_list.any():
                break
            same_kind = np.zeros(len(items), bool)
            same_kind[d:] = same_list[d:] & (k_code[d:] == k_code[:-d]) & (k_code[:-d] >= 0)
            first_hand &= ~same_kind
            same_player = np.zeros(len(items), bool)
            same_player[d:] = p_code[d:] == p_code[:-d]
            first_player &= ~(same_kind & same_player)
        keep = pa.array(k_code >= 0)
        take = pa.array(parent)
        t = pa.table({
            "ruleset": pa.repeat(pa.scalar(ruleset), len(items)),
            "hand_key": h.column("hand_key").take(take),
            "source": h.column("source").take(take),
            "player": player,
            "announced": pa.repeat(pa.scalar(announced), len(items)),
            "kind": kind_out,
            "points": pc.struct_field(items, "points") if not announced else pa.nulls(len(items), pa.int16()),
            "scored": pc.struct_field(items, "scored") if not announced else pa.nulls(len(items), pa.bool_()),
            "first_for_player": pa.array(first_player),
            "first_in_hand": pa.array(first_hand),
            "declarations_from": s.column("declarations_from").take(take),
            "records_announced": pc.is_valid(h.column("announced")).take(take),
            "players": h.column("players").take(take),
        })
        parts.append(t.filter(keep))
    if not parts:
        return schema.empty("declaration_items")
    return schema.conform("declaration_items", pa.concat_tables([schema.conform("declaration_items", p) for p in parts]))


_FAST = {"player_hands": _player_hands, "hand_facts": _hand_facts, "pair_hands": _pair_hands,
         "declaration_items": _declaration_items}
