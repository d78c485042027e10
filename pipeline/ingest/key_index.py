"""The ingest's memory of what the lake holds: keys as 16-byte digests in sorted NumPy arrays.

``ingest`` deduplicates every hand, game and reject against the lake and against what the run read before
(:class:`pipeline.ingest.writer.Writer`). It used to hold those keys in Python sets and the game ids in a dict:
about 171 bytes per hand (a 32-character ``str`` is 81 bytes before its set slot; a game's id, key and tuple
~450 bytes), 2 GB at 10^7 hands. Here a key costs 16 bytes and a game's entry 40:

* :class:`KeySet`, a set of strings. A key of 32 lowercase hex digits (every ``hand_key``, ``game_key`` and
  ``reject_key``: the first 128 bits of a SHA-256) is stored as those 128 bits; any other string (a game id)
  as its 128-bit BLAKE2b digest. Two different strings share a digest with probability ~n²/2^129 (10^-20 at
  10^9 keys): the same odds the keys themselves already take.
* :class:`GameIndex`, game id -> (game key, recorded source file, file read), the game key as 128 bits and the
  two file names as indexes into the run's list of names (a few per file).

Both keep their entries in sorted runs (:mod:`pipeline.ingest.sorted_runs`: a log-structured merge of runs,
a bit filter that answers most lookups of new keys, runs past half a million entries spilled to unlinked
memory-mapped files). The runs are ordered by the first 64 bits only; the rare keys sharing them (expected
0.03 pairs at 10^9 keys) are told apart by a scan of their equal range. Single additions (the row-path
readers, one game at a time) go to a small Python set or dict first, folded into a run every :data:`FOLD`
entries.

Memory (measured by ``tests/test_key_index.py`` with tracemalloc): 16 bytes per key once folded, plus the
filter (1-2 bytes per key), until the runs spill; from then on a bounded amount (see
:mod:`pipeline.ingest.sorted_runs`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.storage import lake as lakemod
from pipeline.formats.content_keys import key_bits
from pipeline.ingest.sorted_runs import Runs as _Runs

FOLD = 4096
"""Entries added one at a time that are held in a Python set (or dict) before they become a sorted run."""



def _text_digest(key: str) -> tuple[int, int]:
    d = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(d[:8], "big"), int.from_bytes(d[8:], "big")


_HEX32 = re.compile(r"[0-9a-f]{32}")


def _is_hex32(key: str) -> bool:
    return _HEX32.fullmatch(key) is not None


def digest_one(key: str, hex_keys: bool = True) -> tuple[int, int]:
    """The 128-bit digest of ``key`` as (high, low) 64-bit halves: its own bits when ``hex_keys`` and it is 32
    lowercase hex digits, else its BLAKE2b-128 digest."""
    if hex_keys and _is_hex32(key):
        return int(key[:16], 16), int(key[16:], 16)
    return _text_digest(key)


def _texts(keys: Any) -> tuple[list[str] | None, np.ndarray | None, int]:
    """(the keys as Python strings or None, their UTF-8 bytes as one uint8 array when every key is 32 bytes
    long, count). Accepts a list of str, a pyarrow string array or chunked array (no nulls)."""
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks != 1 else keys.chunk(0)
    if isinstance(keys, pa.Array):
        n = len(keys)
        if keys.null_count:
            raise ValueError("a key is null")
        if keys.type == pa.large_string():
            keys = keys.cast(pa.string())
        offsets = np.frombuffer(keys.buffers()[1], np.int32, n + 1, keys.offset * 4)
        data = keys.buffers()[2]
        if n and offsets[-1] - offsets[0] == 32 * n and (np.diff(offsets) == 32).all():
            return None, np.frombuffer(data, np.uint8, 32 * n, int(offsets[0])), n
        return keys.to_pylist(), None, n
    keys = keys if isinstance(keys, list) else list(keys)
    n = len(keys)
    if n and all(len(k) == 32 for k in keys):
        raw = "".join(keys).encode("utf-8", "surrogatepass")
        if len(raw) == 32 * n:
            return keys, np.frombuffer(raw, np.uint8), n
    return keys, None, n


def digests(keys: Any, hex_keys: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Digests of many keys (see :func:`digest_one`), vectorised for keys of 32 hex digits.

    Args:
        keys: list of str, or a pyarrow string (or chunked) array without nulls; length n.
        hex_keys: read keys of 32 lowercase hex digits as their bits (False: hash every key, as for game ids).
    Returns:
        (high, low): two uint64 [n] arrays.
    Raises:
        ValueError: a key of an Arrow array is null.
    """
    hi, lo, _ = _digests(keys, hex_keys)
    return hi, lo


def _digests(keys: Any, hex_keys: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`digests`, and bool [n]: the keys that were hashed (not read as hex digits)."""
    strings, raw, n = _texts(keys)
    hi = np.empty(n, np.uint64)
    lo = np.empty(n, np.uint64)
    if not n:
        return hi, lo, np.zeros(0, bool)
    odd = np.ones(n, bool)
    if hex_keys and raw is None:
        # keys of other lengths among them: each read as digest_one reads it (a key's digest must not depend
        # on the batch it comes in)
        odd = np.fromiter((not _is_hex32(k) for k in strings), bool, n)
        hex_rows = np.flatnonzero(~odd)
        if len(hex_rows):
            h, l, _ = _digests([strings[i] for i in hex_rows.tolist()], True)
            hi[hex_rows], lo[hex_rows] = h, l
    elif hex_keys:
        b, odd = key_bits(raw)
        halves = np.ascontiguousarray(b).view(">u8")
        hi[:] = halves[:, 0]
        lo[:] = halves[:, 1]
    if odd.any():
        if strings is None:
            strings = [bytes(raw[32 * i:32 * i + 32]).decode("utf-8", "surrogatepass") for i in range(n)]
        rows = np.flatnonzero(odd)
        blake = hashlib.blake2b
        d = np.frombuffer(b"".join([blake(strings[i].encode("utf-8", "surrogatepass"), digest_size=16).digest()
                                    for i in rows.tolist()]), ">u8").reshape(-1, 2)
        hi[rows], lo[rows] = d[:, 0], d[:, 1]
    return hi, lo, odd


class KeySet:
    """A set of strings held as 128-bit digests (see the module doc): ``in``, ``add``, ``update``, ``discard``,
    ``-=`` as a ``set[str]`` has them, and :meth:`add_new` / :meth:`contains_many` for whole batches.

    Args:
        keys: the initial keys (list of str or pyarrow string arrays, see :func:`digests`).
        hex_keys: False to hash every key (for strings that are not SHA-256 prefixes, such as game ids).
    """

    def __init__(self, keys: Any = (), hex_keys: bool = True):
        self.hex_keys = hex_keys
        self._runs = _Runs()
        self._recent: set[str] = set()
        if len(keys):
            self.extend(keys)

    def extend(self, keys: Any) -> None:
        """Add many keys (duplicates and keys already present are allowed)."""
        self.add_new(keys)

    def __len__(self) -> int:
        return len(self._runs) + len(self._recent)

    def nbytes(self) -> int:
        """Bytes held by the sorted runs (the recent set's strings are not counted)."""
        return self._runs.nbytes()

    def __contains__(self, key: str) -> bool:
        if key in self._recent:
            return True
        if not self._runs.runs:
            return False
        return self._runs.find_one(*digest_one(key, self.hex_keys))[0] >= 0

    def add(self, key: str) -> None:
        if key not in self:
            self._recent.add(key)
            if len(self._recent) >= FOLD:
                self._fold()

    def update(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        if len(keys) > 64:
            self.extend(keys)
        else:
            for k in keys:
                self.add(k)

    def discard(self, key: str) -> None:
        self.difference_update([key])

    def difference_update(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        if not keys:
            return
        self._recent.difference_update(keys)
        if self._runs.runs:
            self._runs.remove(*self._runs.find(*digests(keys, self.hex_keys)))

    def __isub__(self, keys: Iterable[str]) -> KeySet:
        self.difference_update(keys)
        return self

    def contains_many(self, keys: Any) -> np.ndarray:
        """bool [n]: whether each key is in the set."""
        self._fold()
        return self._known(*digests(keys, self.hex_keys))

    def isdisjoint(self, keys: Any) -> bool:
        return not self.contains_many(keys).any()

    def add_new(self, keys: Any, groups: Sequence[int] | None = None) -> np.ndarray:
        """Per key, whether it is new; the new ones are added. ``groups``: offsets into ``keys`` (None: one
        group per key). Each group is looked up whole before its new keys are added, as
        ``writer.Writer.add_game`` does for a game's hands: a key repeated inside one group is new in each
        place, a key repeated in a later group is not.

        Returns:
            bool [n].
        """
        self._fold()             # keys added one at a time join the runs: one lookup path for the batch
        hi, lo = digests(keys, self.hex_keys)
        n = len(hi)
        new = ~self._known(hi, lo)
        unique = self._unique(hi, lo)
        if not unique.all():
            # a key repeated in the batch: new only in the first group that has it (digests are unique per key)
            group = np.arange(n) if groups is None else np.repeat(np.arange(len(groups) - 1), np.diff(groups))
            first_group: dict[tuple[int, int], int] = {}
            for i in np.flatnonzero(~unique).tolist():
                d = (int(hi[i]), int(lo[i]))
                if d not in first_group:
                    j = int(np.flatnonzero((hi == hi[i]) & (lo == lo[i]))[0])
                    first_group[d] = int(group[j])
                if group[i] != first_group[d]:
                    new[i] = False
        self._add_digests(hi, lo, new & unique)
        return new

    # -- internals

    @staticmethod
    def _unique(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        """bool [n]: the first occurrence of each digest. One sort by the first 64 bits; only the keys that share
        them (repeated keys, or a 2^-64 coincidence) are compared in full."""
        out = np.ones(len(hi), bool)
        if len(hi) < 2:
            return out
        order = np.argsort(hi, kind="stable")
        sh = hi[order]
        tie = np.flatnonzero(sh[1:] == sh[:-1])
        if len(tie):
            seen: set[tuple[int, int]] = set()
            for i in sorted(set(order[tie].tolist()) | set(order[tie + 1].tolist())):
                d = (int(hi[i]), int(lo[i]))
                out[i] = d not in seen
                seen.add(d)
        return out

    def _known(self, hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        return self._runs.find(hi, lo)[0] >= 0

    def _add_digests(self, hi: np.ndarray, lo: np.ndarray, which: np.ndarray) -> None:
        """Add the digests where ``which``: unique, and absent from the runs (the recent set is folded)."""
        self._runs.add({"hi": hi[which], "lo": lo[which]})

    def _fold(self) -> None:
        """The keys added one at a time (none of them in the runs) become a run."""
        if self._recent:
            keys = list(self._recent)
            self._recent = set()
            self._runs.add(dict(zip(("hi", "lo"), digests(keys, self.hex_keys))))


class GameIndex:
    """Game id -> (game key, recorded source file, file read) for every game the lake holds or the run added,
    as a ``dict`` has them (``get``, ``in``, ``[]=``, ``pop``, ``del``) plus :meth:`isdisjoint` and
    :meth:`update_new` for batches. 40 bytes a game once folded: the game id's BLAKE2b-128 digest, the game
    key's 128 bits, the two file names as int32 indexes into a list of names. A game key that is not 32 hex
    digits, or is null, stays in a small dict (none such is written today; older lakes may hold one).
    A game id is in one place only: the sorted runs, the recent dict, or that small dict."""

    def __init__(self):
        self._runs = _Runs()
        self._recent: dict[str, tuple] = {}    # entries set one at a time, folded every FOLD
        self._odd: dict[str, tuple] = {}       # entries whose game key is not 32 hex digits
        self._names: list[str | None] = [None]
        self._name_ix: dict[str | None, int] = {None: 0}

    @classmethod
    def from_arrow(cls, game_ids: Any, game_keys: Any, source_files: Any, ingest_files: Any) -> GameIndex:
        """From the lake's ``games`` columns (pyarrow arrays or lists of the same length; game ids unique)."""
        index = cls()
        cols = [c.to_pylist() if hasattr(c, "to_pylist") else list(c)
                for c in (game_ids, game_keys, source_files, ingest_files)]
        index.update_new(*cols)
        return index

    def __len__(self) -> int:
        return len(self._runs) + len(self._recent) + len(self._odd)

    def nbytes(self) -> int:
        """Bytes held by the sorted runs (the dicts' entries are not counted)."""
        return self._runs.nbytes()

    def _name(self, name: str | None) -> int:
        i = self._name_ix.get(name)
        if i is None:
            i = self._name_ix[name] = len(self._names)
            self._names.append(name)
        return i

    def _locate(self, gid: str) -> tuple[int, int]:
        if not self._runs.runs:
            return -1, 0
        return self._runs.find_one(*_text_digest(gid))

    def get(self, gid: str, default: Any = None) -> Any:
        value = self._recent.get(gid) or self._odd.get(gid)
        if value is not None:
            return value
        r, p = self._locate(gid)
        return default if r < 0 else self._entry(r, p)

    def _entry(self, r: int, p: int) -> tuple:
        """The (game key, source_file, ingest_file) of the entry at run ``r``, position ``p``."""
        c = self._runs.runs[r]
        return (f"{int(c['khi'][p]):016x}{int(c['klo'][p]):016x}", self._names[int(c["sf"][p])],
                self._names[int(c["pf"][p])])

    def get_many(self, gids: list[str]) -> list[tuple | None]:
        """:meth:`get` of each of ``gids``, looked up together (None where absent)."""
        out: list[tuple | None] = [self._recent.get(g) or self._odd.get(g) for g in gids]
        if not self._runs.runs:
            return out
        ask = [i for i, v in enumerate(out) if v is None]
        if not ask:
            return out
        hi, lo = digests([gids[i] for i in ask], hex_keys=False)
        run, pos = self._runs.find(hi, lo)
        for i, r, p in zip(ask, run.tolist(), pos.tolist()):
            if r >= 0:
                out[i] = self._entry(r, p)
        return out

    def __contains__(self, gid: str) -> bool:
        return gid in self._recent or gid in self._odd or self._locate(gid)[0] >= 0

    def __setitem__(self, gid: str, value: tuple) -> None:
        foldable = value[0] is not None and _is_hex32(value[0])
        if foldable and gid not in self._recent and gid not in self._odd:
            r, p = self._locate(gid)
            if r >= 0:     # held in a run: changed in place (removing it would rewrite the run, O(games))
                khi, klo = digest_one(value[0])
                self._runs.set_payload(r, p, {"khi": khi, "klo": klo, "sf": self._name(value[1]),
                                              "pf": self._name(value[2])})
                return
        self.pop(gid)
        if foldable:
            self._recent[gid] = value
            if len(self._recent) >= FOLD:
                self._fold()
        else:
            self._odd[gid] = value

    def pop(self, gid: str, default: Any = None) -> Any:
        for d in (self._recent, self._odd):
            if gid in d:
                return d.pop(gid)
        r, p = self._locate(gid)
        if r < 0:
            return default
        value = self._entry(r, p)
        self._runs.remove(np.array([r]), np.array([p]))
        return value

    def discard_many(self, gids: Iterable[str]) -> None:
        """Remove each of ``gids`` that is a key (the others are ignored), the runs' entries in one pass (a
        ``del`` per game rewrites a run per game)."""
        gids = [g for g in gids if self._recent.pop(g, None) is None and self._odd.pop(g, None) is None]
        if gids and self._runs.runs:
            self._runs.remove(*self._runs.find(*digests(gids, hex_keys=False)))

    def __delitem__(self, gid: str) -> None:
        if gid not in self:
            raise KeyError(gid)
        self.pop(gid)

    def isdisjoint(self, gids: Any) -> bool:
        """Whether none of ``gids`` (list of str) is a key."""
        gids = list(gids)
        if any(g in self._recent or g in self._odd for g in gids):
            return False
        if not self._runs.runs or not gids:
            return True
        hi, lo = digests(gids, hex_keys=False)
        return not (self._runs.find(hi, lo)[0] >= 0).any()

    def contains_many(self, gids: list[str]) -> np.ndarray:
        """bool [n]: whether each of ``gids`` is a key."""
        out = np.fromiter((g in self._recent or g in self._odd for g in gids), bool, len(gids))
        if self._runs.runs and not out.all():
            ask = np.flatnonzero(~out)
            hi, lo = digests([gids[i] for i in ask.tolist()], hex_keys=False)
            out[ask] = self._runs.find(hi, lo)[0] >= 0
        return out

    def update(self, gids: list[str], game_keys: list[str | None], source_files: list[str | None],
               ingest_file: str | None) -> None:
        """Set each of ``gids`` (a later repeat of an id wins, as ``dict.update`` does)."""
        last = {g: i for i, g in enumerate(gids)}
        if len(last) < len(gids):
            keep = sorted(last.values())
            gids, game_keys, source_files = ([x[i] for i in keep] for x in (gids, game_keys, source_files))
        known = self.contains_many(gids)
        for i in np.flatnonzero(known).tolist():
            self[gids[i]] = (game_keys[i], source_files[i], ingest_file)
        if known.any():
            new = np.flatnonzero(~known).tolist()
            gids, game_keys, source_files = ([x[i] for i in new] for x in (gids, game_keys, source_files))
        self.update_new(gids, game_keys, source_files, ingest_file)

    def update_new(self, gids: list[str], game_keys: list[str | None], source_files: list[str | None],
                   ingest_files: str | None | list[str | None]) -> None:
        """Add games none of which is a key yet, their ids all different (``ingest_files``: one name for
        all, or one per game)."""
        n = len(gids)
        if not n:
            return
        if not isinstance(ingest_files, list):
            ingest_files = [ingest_files] * n
        khi, klo, odd = _digests([k if k is not None else "" for k in game_keys] if None in game_keys
                                 else game_keys)
        if odd.any():
            for i in np.flatnonzero(odd).tolist():
                self._odd[gids[i]] = (game_keys[i], source_files[i], ingest_files[i])
            take = np.flatnonzero(~odd).tolist()
            gids, source_files, ingest_files = ([x[i] for i in take] for x in (gids, source_files, ingest_files))
            khi, klo = khi[~odd], klo[~odd]
        if not gids:
            return
        hi, lo = digests(gids, hex_keys=False)
        names = {f: self._name(f) for f in set(source_files) | set(ingest_files)}
        sf = np.fromiter((names[f] for f in source_files), np.int32, len(gids))
        pf = np.fromiter((names[f] for f in ingest_files), np.int32, len(gids))
        self._runs.add({"hi": hi, "lo": lo, "khi": khi, "klo": klo, "sf": sf, "pf": pf})

    def _fold(self) -> None:
        recent, self._recent = self._recent, {}
        gids = list(recent)
        self.update_new(gids, [recent[g][0] for g in gids], [recent[g][1] for g in gids],
                        [recent[g][2] for g in gids])


def existing_keys(lake, table: str) -> KeySet:
    """Every key of an append-only table already in the lake (16 bytes per row), read batch by batch."""
    keys = KeySet()
    for b in lakemod.iter_batches(lake, table, columns=[lakemod.KEYS[table]]):
        keys.extend(b.column(0))
    return keys
