"""The game pass run on the hand pass's batches: each game's result computed once its hands are scored.

Sorting a ruleset's scores by game after the hand pass (:mod:`pipeline.rescore.sorted_games`) costs a sort of
the whole lake, whose memory grows with it past DuckDB's limit (docs/bench-results.md). But ingest stores a
game's hands together, so a batch of the hand pass holds whole games except the last one, which may go on in
the next batch: that game's score rows are carried into the next batch, and every other game of the batch is
*closed* and goes through :func:`pipeline.rescore.game.game_pass` at once. A game met again after it was closed
(its hands in two files not read one after the other: a game completed by a later import) or unknown to the
``games`` table is *late*: its rows are left out here, and the caller scores it again from the written scores
with the sorted pass, in place of what was written for it (:attr:`BatchGames.late`).

Memory: the games' (target, recorded_final, game_key) and their ids' 128-bit digests (about 50 bytes a game:
the game keys held as 16 bytes) and a few flag bytes a game, plus one batch; no sort of the lake.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.formats.content_keys import key_bits, key_hex
from pipeline.storage import lake as lakemod
from pipeline.storage import schema
from pipeline.rescore.game import SUMMARY_SCORE
from pipeline.rescore.sorted_games import GAME_COLUMNS, extra_columns, results_of

_GAME_INFO = ("target", "recorded_final", "game_key")


def _key_bytes(keys: pa.Array | pa.ChunkedArray) -> pa.Array | None:
    """``keys`` (strings) as 16-byte binary when every non-null one is 32 lowercase hex digits (every content
    key: the first 128 bits of a SHA-256), else None: half the memory of the text, given back exactly by
    :func:`_key_text`."""
    a = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    n = len(a)
    if not n:
        return pa.array([], pa.binary(16))
    off = np.frombuffer(a.buffers()[1], np.int32, n + 1, 4 * a.offset)
    valid = pc.is_valid(a).to_numpy(zero_copy_only=False)
    lengths = np.diff(off)
    if not (lengths[valid] == 32).all() or lengths[~valid].any():
        return None
    size = int(off[-1] - off[0])
    text = np.frombuffer(a.buffers()[2], np.uint8, size, int(off[0])) if size else np.zeros(0, np.uint8)
    bits, odd = key_bits(text)
    if odd.any():
        return None
    out = np.zeros((n, 16), np.uint8)
    out[valid] = bits
    mask = pc.is_valid(a).buffers()[1] if a.null_count else None
    return pa.Array.from_buffers(pa.binary(16), n, [mask, pa.py_buffer(out)])


def _key_text(keys: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The 32-digit lowercase hex strings of :func:`_key_bytes`'s keys (nulls kept)."""
    a = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    n = len(a)
    raw = np.frombuffer(a.buffers()[1], np.uint8, 16 * n, 16 * a.offset).reshape(n, 16) if n else \
        np.zeros((0, 16), np.uint8)
    valid = pc.is_valid(a).to_numpy(zero_copy_only=False)
    text = key_hex(raw[valid])
    off = np.zeros(n + 1, np.int32)
    off[1:] = np.cumsum(valid.astype(np.int32) * 32)
    mask = None if a.null_count == 0 else pc.is_valid(a).buffers()[1]
    return pa.Array.from_buffers(pa.string(), n, [mask, pa.py_buffer(off), pa.py_buffer(text)])


def _digest(con, ids: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """The MD5 digest of each id as its two 64-bit halves (uint64 (n,) each), by DuckDB on connection ``con``:
    two ids share it with probability ~n^2 / 2^129 (10^-26 at 10^6 games), the odds the content keys themselves
    take."""
    con.register("_ids", pa.table({"id": ids}))
    try:
        r = con.sql("SELECT md5_number_upper(id) AS hi, md5_number_lower(id) AS lo FROM _ids").fetchnumpy()
    finally:
        con.unregister("_ids")
    return np.asarray(r["hi"], np.uint64), np.asarray(r["lo"], np.uint64)


class GameIndex:
    """The ``games`` table's (target, recorded_final, game_key) by game id, one row per id (of an id with several
    rows, each column's first non-null value, as the sorted pass's ``any_value``), ordered by the ids' 128-bit
    digests (:func:`_digest`, on DuckDB connection ``con``): 16 bytes a game for the id, built batch by batch;
    :meth:`find` looks ids up."""

    def __init__(self, lake, con):
        cols = ["game_id", *_GAME_INFO]
        hi, lo, info = [], [], []
        self.con = con
        self.binary_keys = True     # game_key held as 16 bytes (:func:`_key_bytes`), until a key is not hex
        if lakemod.has_table(lake, "games"):
            for b in lakemod.iter_batches(lake, "games", batch_size=1 << 18, columns=cols):
                h, lw = _digest(con, b.column(0))
                hi.append(h)
                lo.append(lw)
                info.append(self._compact(pa.Table.from_batches([b]).drop_columns(["game_id"]), info))
        hi = np.concatenate(hi) if hi else np.zeros(0, np.uint64)
        lo = np.concatenate(lo) if lo else np.zeros(0, np.uint64)
        order = np.lexsort((lo, hi))        # stable: the first row of an id first
        hi, lo = hi[order], lo[order]
        first = np.r_[True, (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])] if len(hi) else np.zeros(0, bool)
        self.hi, self.lo = hi[first], lo[first]
        if not info:
            info, self.binary_keys = [schema.empty("games").select(list(_GAME_INFO))], False
        info = pa.concat_tables(info)
        info = info.take(pa.array(order)).combine_chunks()
        starts = np.flatnonzero(first)
        if len(starts) < len(order):     # an id with several rows: each column's first non-null value
            group = np.cumsum(first) - 1
            cols = []
            for c in _GAME_INFO:
                rows = starts.copy()
                valid = np.flatnonzero(pc.is_valid(info.column(c)).to_numpy(zero_copy_only=False))
                g, at = np.unique(group[valid], return_index=True)
                rows[g] = valid[at]
                cols.append(info.column(c).take(pa.array(rows)))
            self.info = pa.table(cols, schema=info.schema)
        else:
            self.info = info
        self.n = len(self.hi)

    def _compact(self, t: pa.Table, before: list[pa.Table]) -> pa.Table:
        """``t`` (rows of :data:`_GAME_INFO`) with its game keys as bytes while every key so far was hex; at the
        first that is not, the tables ``before`` go back to text (in place) and so does every later one."""
        i = t.column_names.index("game_key")
        field = t.schema.field(i)
        if self.binary_keys:
            keys = _key_bytes(t.column(i))
            if keys is not None:
                return t.set_column(i, field.with_type(keys.type), keys)
            self.binary_keys = False
            before[:] = [p.set_column(i, field, _key_text(p.column(i))) for p in before]
        return t

    def keys(self, rows: pa.Array) -> pa.Array:
        """The ``game_key`` (strings) of the :attr:`info` rows ``rows``."""
        keys = self.info.column("game_key").take(rows)
        return _key_text(keys) if self.binary_keys else keys.combine_chunks()

    def find(self, ids: pa.Array) -> np.ndarray:
        """int64 (len(ids),): each id's row in :attr:`info`, -1 where the table has no such game."""
        out = np.full(len(ids), -1, np.int64)
        if not self.n or not len(ids):
            return out
        qh, ql = _digest(self.con, ids)
        left, right = np.searchsorted(self.hi, qh, "left"), np.searchsorted(self.hi, qh, "right")
        one = np.flatnonzero(right - left == 1)
        ok = self.lo[left[one]] == ql[one]
        out[one[ok]] = left[one][ok]
        for j in np.flatnonzero(right - left > 1):      # ids sharing the first 64 bits: compare the rest
            r = np.arange(left[j], right[j])
            m = r[self.lo[r] == ql[j]]
            out[j] = m[0] if len(m) else -1
        return out


class BatchGames:
    """Takes each batch's ``scores`` rows in lake order (:meth:`add`) and gives the ``game_scores`` rows of the
    games it closes; :meth:`finish` closes the last, :meth:`close` its DuckDB connection. ``rules``: a ruleset or ``own`` rules. ``summary``: a table
    (hand_key, points) of the summary-level hands' points (:mod:`pipeline.facts.summary_points`), or None when the
    lake has none. Games found late are listed in :attr:`late` (their rows given here are to be replaced), those
    found by the last :meth:`add` in :attr:`found_late`."""

    def __init__(self, lake, rules, summary: pa.Table | None = None):
        from pipeline.storage.duck import duckdb_connection

        self.rules = rules
        self.con = duckdb_connection(default_limit="64MB")
        self.con.execute("SET threads = 1")
        self.index = GameIndex(lake, self.con)
        self.summary = summary if summary is not None and summary.num_rows else None
        self.columns = ["hand_key", *GAME_COLUMNS, *extra_columns(rules)]
        self.closed = np.zeros(self.index.n, bool)     # per game of the index: its result was given
        self.late_rows = np.zeros(self.index.n, bool)  # per game of the index: late
        self.late_ids: set[str] = set()               # the ids of the games found late
        self.found_late = pa.array([], pa.string())   # those found late in the last batch (:meth:`add`)
        self.codes = np.zeros(self.index.n, np.int8)  # per game of the index: what the caller noted (:meth:`note`)
        self.carry: pa.Table | None = None
        self.given = np.zeros(0, np.int64)              # the index rows of the games last given (:meth:`note`)

    @property
    def late(self) -> pa.Array:
        """The ids of the games found late (string array, sorted)."""
        return pa.array(sorted(self.late_ids), pa.string())

    def note(self, codes: np.ndarray) -> None:
        """Keep ``codes`` (int8, one per row of the ``game_scores`` rows last given) for :meth:`tally`."""
        self.codes[self.given] = codes

    def tally(self) -> np.ndarray:
        """int64 (4,): how many games closed here and not found late have each code of :meth:`note` (0-3)."""
        return np.bincount(self.codes[self.closed & ~self.late_rows], minlength=4)

    def add(self, scores: pa.Table) -> tuple[pa.Table, pa.ChunkedArray, pa.Array]:
        """One batch of ``scores`` rows (every column :data:`GAME_COLUMNS` names): the ``game_scores`` rows of the
        games it closes (sorted by game), their ``recorded_final`` values, and the ids of the games closed."""
        t = scores.select(self.columns)
        if self.carry is not None:
            t = pa.concat_tables([self.carry, t]).combine_chunks()
        self.carry = None
        self.found_late = pa.array([], pa.string())
        if not t.num_rows:
            return self._results(t)
        codes = pc.dictionary_encode(t.column("game_id").combine_chunks())
        ids, row_game = codes.dictionary, codes.indices.to_numpy(zero_copy_only=False)
        at = self.index.find(ids)
        found = at >= 0
        late = ~found
        late[found] = self.closed[at[found]] | self.late_rows[at[found]]
        if late.any():
            self.found_late = ids.filter(pa.array(late))
            self.late_ids.update(self.found_late.to_pylist())
            self.late_rows[at[found & late]] = True
        open_game = np.zeros(len(ids), bool)
        open_game[row_game[-1]] = not late[row_game[-1]]
        if open_game.any():
            self.carry = t.filter(pa.array(open_game[row_game]))
        closing = ~late & ~open_game
        self.closed[at[closing]] = True
        return self._results(t.filter(pa.array(closing[row_game])), at, row_game, closing)

    def finish(self) -> tuple[pa.Table, pa.ChunkedArray, pa.Array]:
        """The results of the game carried from the last batch (none: empty)."""
        t, self.carry = self.carry, None
        self.found_late = pa.array([], pa.string())
        if t is None or not t.num_rows:
            return self._results(pa.table({c: pa.array([], schema.schema("scores").field(c).type)
                                           for c in self.columns}))
        at = self.index.find(pa.array([t.column("game_id")[0].as_py()], pa.string()))
        self.closed[at] = True
        return self._results(t, at, np.zeros(t.num_rows, np.int64), np.ones(1, bool))

    def close(self) -> None:
        self.con.close()

    def _results(self, t: pa.Table, at: np.ndarray | None = None, row_game: np.ndarray | None = None,
                 closing: np.ndarray | None = None) -> tuple[pa.Table, pa.ChunkedArray, pa.Array]:
        self.given = np.zeros(0, np.int64)
        if not t.num_rows:
            g = schema.empty("game_scores")
            return g, pa.chunked_array([], pa.list_(pa.int32())), pa.array([], pa.string())
        rows = at[row_game[closing[row_game]]]       # each row's game in the index
        take = pa.array(rows)
        for c in _GAME_INFO:
            t = t.append_column(c, self.index.keys(take) if c == "game_key" else self.index.info.column(c).take(take))
        if self.summary is not None:
            pos = pc.index_in(t.column("hand_key"), value_set=self.summary.column("hand_key"))
            t = t.append_column(SUMMARY_SCORE, self.summary.column("points").take(pos))
        g, final = results_of(t, self.rules)
        first = pc.index_in(g.column("game_id"), value_set=t.column("game_id")).to_numpy(zero_copy_only=False)
        self.given = rows[first]        # the index rows of the games given, in their order
        return g, final, g.column("game_id")
