"""Sorted runs of 128-bit digests with payload columns: the storage under :mod:`pipeline.ingest.key_index`.

A run is a dict of equal-length NumPy arrays: ``hi`` and ``lo`` (uint64, the digest's two halves), sorted by
``hi``, and any payload columns. A batch of new entries becomes a run; a run is merged into the one before it
once that one is no more than twice its size (a log-structured merge tree): O(log n) runs, each entry merged
O(log n) times. A lookup is one ``searchsorted`` per run.

Memory stays bounded whatever the number of keys (issue #6: "peak memory bounded by the batch size, not the
input size"):

* **Spilling.** A run of :data:`SPILL_ROWS` entries or more is written to a file in the temporary folder
  (``$TMPDIR``) and memory-mapped read-only; the file is unlinked at once, so nothing is left behind even if
  the process is killed (the mapping keeps the data until it is dropped). Runs are merged into such files
  in chunks of :data:`CHUNK` entries, never whole. The runs held in memory add up to fewer than
  2 × :data:`SPILL_ROWS` entries.
* **Released pages.** The pages a lookup reads from a spilled run are dropped from the process after each
  batch (``madvise(MADV_DONTNEED)``); they stay in the system's page cache, so the next lookup finds them
  there without reading the disk. The process's resident memory then holds the pages of one batch's lookups,
  not the whole index.
* **The filter.** One bit per slot (the slot: the top bits of ``hi``), 8-16 bits per key, capped at
  :data:`MAX_FILTER_BITS` (32 MB). Most keys an ingest looks up are new, and a new key passes the filter with
  probability 6-12% (the share of bits set), so most lookups never reach the runs. Past ~3 × 10^7 keys the
  cap lets more through (a third at 10^8): slower, still bounded.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import warnings

import numpy as np

BITS_PER_KEY = 8
"""The filter keeps at least this many bits per key (at most twice as many), up to its cap."""
MAX_FILTER_BITS = 1 << 28
"""The filter's cap: 2^28 bits, 32 MB."""
SPILL_ENV = "REBELOTE_KEY_SPILL_ROWS"
"""Environment variable: runs of at least this many entries are spilled (default 524,288; lower it to trade
speed for memory)."""


def _spill_rows() -> int:
    env = os.environ.get(SPILL_ENV, "").strip()
    if not env:
        return 1 << 19
    try:
        return max(1, int(env))
    except ValueError:     # read at import: a warning, not a traceback before the command starts
        warnings.warn(f"{SPILL_ENV}={env!r}: expected a whole number of entries; using 524288", stacklevel=2)
        return 1 << 19


SPILL_ROWS = _spill_rows()
"""Runs of this many entries or more live in memory-mapped files (default 2^19: a hand key set holds at most
2 x 8 MB of entries in memory); ``$REBELOTE_KEY_SPILL_ROWS`` sets it."""
CHUNK = 1 << 18
"""Entries merged, filtered or marked at a time when a run is spilled."""


def _spilled(run: dict[str, np.ndarray]) -> bool:
    return isinstance(run["hi"], np.memmap)


def _columns(run: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The run's columns, without a spilled run's fence (held in memory, see FENCE)."""
    return {k: v for k, v in run.items() if k != "fence"}


class _RunFiles:
    """A run written column by column, chunk after chunk, to fresh temporary files, then mapped read-only.
    Written with ``write`` rather than through a writable mapping, whose dirty pages would count in the
    process's memory until the end."""

    def __init__(self, dtypes: dict[str, np.dtype]):
        self.files = {}
        self.paths = {}
        for k in dtypes:
            fd, self.paths[k] = tempfile.mkstemp(prefix="rebelote-keys-", suffix=".bin")
            self.files[k] = os.fdopen(fd, "wb")
        self.dtypes = dtypes
        self.n = 0
        self.fence: list[np.ndarray] = []

    def write(self, cols: dict[str, np.ndarray]) -> None:
        for k, f in self.files.items():
            np.ascontiguousarray(cols[k], self.dtypes[k]).tofile(f)
        self.fence.append(np.array(cols["hi"][(-self.n) % FENCE::FENCE], np.uint64))   # the entries at k * FENCE
        self.n += len(cols["hi"])

    def close(self) -> dict[str, np.ndarray]:
        """The run, each column a read-only memory map of a file already unlinked (an empty run: empty arrays)."""
        out = {}
        for k, f in self.files.items():
            f.close()
            path = self.paths[k]
            # payload columns writable (Runs.set_payload changes an entry in place), the sorted digests not
            mode = "r" if k in ("hi", "lo") else "r+"
            out[k] = np.memmap(path, dtype=self.dtypes[k], mode=mode, shape=(self.n,)) if self.n else \
                np.empty(0, self.dtypes[k])
            with contextlib.suppress(OSError):   # Windows keeps an open file: the temporary folder's cleaning takes it
                os.unlink(path)
        out["fence"] = np.concatenate([np.empty(0, np.uint64), *self.fence])
        return out


def _release(arr: np.ndarray) -> None:
    """Drop the resident pages of a memory-mapped array from the process (they stay in the page cache)."""
    m = getattr(arr, "_mmap", None)
    if m is not None:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            m.madvise(mmap.MADV_DONTNEED)


class Runs:
    """Sorted runs of (hi, lo) digests, each with the same payload columns; a digest is in at most one run.
    See the module doc for the layout, the filter and the spilling."""

    def __init__(self):
        self.runs: list[dict[str, np.ndarray]] = []
        self.count = 0
        self._bits: np.ndarray | None = None   # uint8, the filter
        self._shift = np.uint64(64)
        self._lookups = 0                      # single lookups since the last release

    def __len__(self) -> int:
        return self.count

    def nbytes(self) -> int:
        """Bytes of the runs held in memory (the filter and the spilled runs are not counted)."""
        return sum(a.nbytes for r in self.runs if not _spilled(r) for a in r.values())

    def spilled_bytes(self) -> int:
        """Bytes of the runs in memory-mapped files (their fences, 1/512 of their ``hi`` columns, are in memory)."""
        return sum(a.nbytes for r in self.runs if _spilled(r) for a in _columns(r).values())

    def release(self) -> None:
        """Drop the pages of the spilled runs that lookups made resident (see the module doc)."""
        for r in self.runs:
            _release_run(r)

    # -- adding

    def add(self, cols: dict[str, np.ndarray]) -> None:
        """Add entries none of which is present (``cols``: "hi", "lo" and every payload column, same length)."""
        n = len(cols["hi"])
        if not n:
            return
        order = np.argsort(cols["hi"], kind="stable")
        run = {k: np.asarray(v)[order] for k, v in cols.items()}
        self.runs.append(self._spill(run) if n >= SPILL_ROWS else run)
        self.count += n
        while len(self.runs) > 1 and len(self.runs[-2]["hi"]) <= 2 * len(self.runs[-1]["hi"]):
            b, a = self.runs.pop(), self.runs.pop()
            self.runs.append(_merge(a, b))
        if self._bits is None or (self.count * BITS_PER_KEY > 8 * len(self._bits)
                                  and 8 * len(self._bits) < MAX_FILTER_BITS):
            nbits = 1 << max(16, min(int(self.count * BITS_PER_KEY - 1).bit_length(),
                                     MAX_FILTER_BITS.bit_length() - 1))
            self._bits = np.zeros(nbits // 8, np.uint8)
            self._shift = np.uint64(64 - (nbits.bit_length() - 1))
            for r in self.runs:
                self._mark(r["hi"])
                _release_run(r)
        else:
            self._mark(cols["hi"])

    @staticmethod
    def _spill(run: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        files = _RunFiles({k: v.dtype for k, v in run.items()})
        files.write(run)
        return files.close()

    def _mark(self, hi: np.ndarray) -> None:
        for s in range(0, len(hi), CHUNK):
            slot = np.asarray(hi[s:s + CHUNK]) >> self._shift
            np.bitwise_or.at(self._bits, (slot >> np.uint64(3)).astype(np.intp),
                             np.left_shift(1, slot & np.uint64(7)).astype(np.uint8))
            _release(hi)

    def _may_hold(self, hi: np.ndarray) -> np.ndarray:
        slot = hi >> self._shift
        return ((self._bits[(slot >> np.uint64(3)).astype(np.intp)] >> (slot & np.uint64(7)).astype(np.uint8)) & 1
                ).astype(bool)

    # -- looking up

    def find(self, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(run index or -1, position in that run) of each digest (uint64 [n] each)."""
        n = len(hi)
        run = np.full(n, -1, np.int64)
        pos = np.zeros(n, np.int64)
        if not self.runs or not n:
            return run, pos
        ask = np.flatnonzero(self._may_hold(hi))
        if len(ask) < n:
            r, p = self.find_all(hi[ask], lo[ask])
            run[ask], pos[ask] = r, p
            return run, pos
        return self.find_all(hi, lo)

    def find_one(self, hi: int, lo: int) -> tuple[int, int]:
        """:meth:`find` of one digest given as two Python ints (0 <= each < 2^64): (run index or -1, position).

        The row-path readers look keys up one at a time (every hand of every game); :meth:`find` on arrays of
        one costs mostly NumPy call overhead, which made reading an imported file again on the row path
        twice as slow as with the ``set`` this replaced. Here: the filter bit with ints, then one
        ``searchsorted`` per run (a spilled run's inside its fenced block)."""
        if not self.runs:
            return -1, 0
        slot = hi >> int(self._shift)
        if not (int(self._bits[slot >> 3]) >> (slot & 7)) & 1:
            return -1, 0
        h = np.uint64(hi)
        found = (-1, 0)
        spilled = False
        for r, cols in enumerate(self.runs):
            H = np.asarray(cols["hi"])
            n = len(H)
            if _spilled(cols):
                spilled = True
                b = max(int(np.searchsorted(cols["fence"], h, "left")) - 1, 0) * FENCE
                j = b + int(np.searchsorted(H[b:min(b + FENCE + 1, n)], h, "left"))
            else:
                j = int(np.searchsorted(H, h, "left"))
            L = cols["lo"]
            while j < n and int(H[j]) == hi:
                if int(L[j]) == lo:
                    found = (r, j)
                    break
                j += 1
            if found[0] >= 0:
                break
        self._lookups += 1
        if spilled and self._lookups >= CHUNK:
            self._lookups = 0
            self.release()
        return found

    def find_all(self, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`find` without the filter. The spilled runs' pages it reads are released afterwards."""
        n = len(hi)
        run = np.full(n, -1, np.int64)
        pos = np.zeros(n, np.int64)
        if not n:
            return run, pos
        order = np.argsort(hi)              # sorted queries: each search starts where the last ended
        hi, lo = hi[order], lo[order]
        # the largest run first (it holds most keys); a key is in one run, so a found query is not searched
        # again (a lake read again finds every key: each is searched ~2 times instead of once per run)
        for r in sorted(range(len(self.runs)), key=lambda r: -len(self.runs[r]["hi"])):
            cols = self.runs[r]
            if not len(hi):
                break
            if _spilled(cols):
                found = np.zeros(len(hi), bool)
                for s in range(0, len(hi), FENCED_QUERIES):
                    e = min(s + FENCED_QUERIES, len(hi))
                    left, hit, same_hi = _search_fenced(cols, hi[s:e], lo[s:e])
                    self._note(r, cols, hi[s:e], lo[s:e], order[s:e], left, hit, same_hi, run, pos)
                    found[s:e] = run[order[s:e]] >= 0
                    _release_run(cols)
            else:
                H, L = cols["hi"], cols["lo"]
                left = np.searchsorted(H, hi, "left")
                at = np.minimum(left, len(H) - 1)
                same_hi = (left < len(H)) & (H[at] == hi)
                hit = same_hi & (L[at] == lo)
                self._note(r, cols, hi, lo, order, left, hit, same_hi, run, pos)
                found = run[order] >= 0
            if found.any():
                hi, lo, order = hi[~found], lo[~found], order[~found]
        # one key at a time (the row path): released every CHUNK lookups instead of a system call each
        self._lookups += n
        if (n > 1 or self._lookups >= CHUNK) and any(_spilled(c) for c in self.runs):
            self._lookups = 0
            self.release()
        return run, pos

    @staticmethod
    def _note(r: int, cols: dict[str, np.ndarray], hi: np.ndarray, lo: np.ndarray, order: np.ndarray,
              left: np.ndarray, hit: np.ndarray, same_hi: np.ndarray, run: np.ndarray, pos: np.ndarray) -> None:
        """Record the hits of run ``r`` for the queries ``hi[:len(left)]`` (``order``: their places in the
        caller's arrays); a query whose first 64 bits are shared with another key is found by a scan."""
        H, L = cols["hi"], cols["lo"]
        run[order[:len(hit)][hit]] = r
        pos[order[:len(hit)][hit]] = left[hit]
        for i in np.flatnonzero(same_hi & ~hit).tolist():
            j = int(left[i])
            while j < len(H) and H[j] == hi[i]:
                if L[j] == lo[i]:
                    run[order[i]], pos[order[i]] = r, j
                    break
                j += 1

    def set_payload(self, r: int, p: int, values: dict[str, int]) -> None:
        """Overwrite payload columns (not "hi"/"lo") of the entry at run ``r``, position ``p``, in place: a
        spilled run's payload files are mapped writable for this (a few dirty pages), so changing one entry
        does not rewrite the run as :meth:`remove` and :meth:`add` would (that made setting every game of a
        re-read file quadratic)."""
        cols = self.runs[r]
        for k, v in values.items():
            if k in ("hi", "lo", "fence"):
                raise ValueError(f"set_payload: {k!r} is a sort column, not payload")
            cols[k][p] = v

    # -- removing

    def remove(self, run: np.ndarray, pos: np.ndarray) -> None:
        """Remove the entries at (run, pos) (as :meth:`find` gives them; -1 runs are ignored). A spilled run
        is rewritten chunk by chunk into a new file."""
        for r in np.unique(run[run >= 0]).tolist():
            cols = _columns(self.runs[r])
            gone = np.unique(pos[run == r])
            self.count -= len(gone)
            if not _spilled(cols):
                keep = np.ones(len(cols["hi"]), bool)
                keep[gone] = False
                self.runs[r] = {k: v[keep] for k, v in cols.items()}
                continue
            n = len(cols["hi"])
            files = _RunFiles({k: v.dtype for k, v in cols.items()})
            for s in range(0, n, CHUNK):
                e = min(s + CHUNK, n)
                keep = np.ones(e - s, bool)
                keep[gone[(gone >= s) & (gone < e)] - s] = False
                files.write({k: np.asarray(v[s:e])[keep] for k, v in cols.items()})
                _release_run(cols)
            self.runs[r] = files.close()
        self.runs = [c for c in self.runs if len(c["hi"])]


FENCE = 512
"""A spilled run keeps every FENCE-th ``hi`` in memory (1/64 of the run's ``hi`` column): a lookup then reads
one 4 KB page of the file instead of a binary search's path through it."""
FENCED_QUERIES = 256
"""Lookups in a spilled run go this many at a time, their pages released after each group (the kernel maps up
to 16 cached pages around each page read: 256 lookups make at most ~32 MB resident)."""


def _search_fenced(cols: dict[str, np.ndarray], hi: np.ndarray, lo: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first position with ``hi`` >= each query, hit, same first 64 bits) in a spilled run, for sorted
    queries: the fence names the block of FENCE entries where the query would start; the search reads that
    block and the entry after it (a key equal to the next block's first ``hi`` starts there)."""
    # plain ndarray views of the maps: indexing a np.memmap costs a Python call per index operation
    H, L, fence = np.asarray(cols["hi"]), np.asarray(cols["lo"]), cols["fence"]
    n = len(H)
    block = np.maximum(np.searchsorted(fence, hi, "left") - 1, 0)
    # bisection inside [block start, block end + 1), all queries at once: ~10 reads each, one or two pages
    left = block * FENCE
    right = np.minimum(left + FENCE + 1, n)
    for _ in range((FENCE + 1).bit_length()):
        mid = (left + right) // 2
        below = (left < right) & (H[np.minimum(mid, n - 1)] < hi)
        right = np.where(below, right, np.minimum(mid, right))
        left = np.where(below, mid + 1, left)
    at = np.minimum(left, n - 1)
    same_hi = (left < n) & (H[at] == hi)
    hit = same_hi.copy()
    if same_hi.any():
        hit[same_hi] = L[at[same_hi]] == lo[same_hi]
    return left, hit, same_hi


def _merge(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One sorted run of two (NumPy's stable sort of two sorted runs is a linear merge); into a spilled file,
    chunk by chunk, once the result reaches :data:`SPILL_ROWS` entries."""
    a, b = _columns(a), _columns(b)
    la, lb = len(a["hi"]), len(b["hi"])
    if la + lb < SPILL_ROWS:
        merged = {k: np.concatenate([a[k], b[k]]) for k in a}
        order = np.argsort(merged["hi"], kind="stable")
        return {k: v[order] for k, v in merged.items()}
    files = _RunFiles({k: v.dtype for k, v in a.items()})
    i = j = 0
    while i < la or j < lb:
        # every entry of either run up to a pivot, the last hi of the next chunk of the run that reaches it
        # first: what is left of both runs is then above it (or equal: ties may come in any order)
        pivots = [x["hi"][min(k + CHUNK, n) - 1] for x, k, n in ((a, i, la), (b, j, lb)) if k < n]
        pivot = min(pivots)
        i2 = max(i, int(np.searchsorted(a["hi"], pivot, "right")))
        j2 = max(j, int(np.searchsorted(b["hi"], pivot, "right")))
        order = np.argsort(np.concatenate([a["hi"][i:i2], b["hi"][j:j2]]), kind="stable")
        files.write({k: np.concatenate([a[k][i:i2], b[k][j:j2]])[order] for k in a})
        i, j = i2, j2
        _release_run(a)
        _release_run(b)
    return files.close()


def _release_run(run: dict[str, np.ndarray]) -> None:
    """Release a spilled run's pages read so far."""
    if _spilled(run):
        for v in run.values():
            _release(v)
