"""Nothing lost: which files are gone, and which files must be read again so that a hand stays in the lake as
long as an imported file holds it.

A hand is stored once, in the row of the file that brought it first. When that file no longer holds it (the
file was edited, or is gone from a folder imported again with `--prune`), its row leaves the lake; every other file whose
holdings (:mod:`pipeline.ingest.holdings`) include a copy of it (same hand key, same game id, or for a
single-deal copy or a copy of the game under another id, such as a renamed coinche-cli folder, the same deal) is
then read again by the ingest driver (:mod:`pipeline.ingest.run`), and its
copy takes over, with its own provenance. A file is gone when it was imported from inside a folder given to
this run, is no longer there, and the run's walk of that folder did not meet it: a file not given on the
command line (directly or inside a folder) is never taken for gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import lake as lakemod
from pipeline.ingest import holdings


@dataclass(frozen=True, slots=True)
class Orphan:
    """A hand removed from the lake because the file that brought it no longer holds it: its key, game id and
    deal digest (:func:`pipeline.ingest.holdings.deal_digest`, None without dealt hands), the file that removed
    it (``remover``, physical name) and the driver's read counter at that point (``seq``)."""

    hand_key: str
    game_id: str
    deal: str | None
    remover: str
    seq: int


def gone_files(paths: Iterable[Path], walked: set[str], known: Iterable[str]) -> list[str]:
    """The files of ``known`` (physical names: the manifest's keys and the files rejects were read from) that
    lie inside one of the folders of ``paths``, were not met by this run's walk (``walked``) and do not exist.
    Sorted."""
    roots = [str(Path(p).resolve()) for p in paths if Path(p).is_dir()]
    if not roots:
        return []
    out = []
    for f in set(known):
        if f in walked or not any(f.startswith(r.rstrip("/") + "/") for r in roots):
            continue
        if not Path(f).exists():
            out.append(f)
    return sorted(out)


def files_to_read(lake, orphans: list[Orphan], in_lake: set[str], last_read: dict[str, int]) -> dict[str, int]:
    """The files to read again so that ``orphans`` are taken over, each with how many of them it holds.

    A file qualifies for an orphan when its holdings share the orphan's hand key, game id or deal, it is not the
    file that removed it, and it was not read in this run after the removal (``last_read``: physical name ->
    read counter; such a read already saw the lake without it). Orphans back in the lake (``in_lake``: hand keys)
    need nothing. One filtered read of the ``holdings`` table."""
    orphans = [o for o in orphans if o.hand_key not in in_lake]
    if not orphans:
        return {}
    by = {"hand_key": {}, "game_id": {}, "deal": {}}
    for o in orphans:
        by["hand_key"].setdefault(o.hand_key, []).append(o)
        by["game_id"].setdefault(o.game_id, []).append(o)
        if o.deal is not None:
            by["deal"].setdefault(o.deal, []).append(o)
    if not lakemod.has_table(lake, holdings.TABLE):
        return {}
    cond = None
    for col, vals in by.items():
        if vals:
            c = pc.field(col).isin(pa.array(sorted(vals), pa.string()))
            cond = c if cond is None else cond | c
    rows = lakemod.read(lake, holdings.TABLE, columns=["ingest_file", "hand_key", "game_id", "deal"], filter=cond)
    found: dict[str, set[str]] = {}
    for r in rows.to_pylist():
        f = r["ingest_file"]
        for col in by:
            for o in by[col].get(r[col], ()) if r[col] is not None else ():
                if f != o.remover and last_read.get(f, -1) < o.seq:
                    found.setdefault(f, set()).add(o.hand_key)
    return {f: len(keys) for f, keys in sorted(found.items())}
