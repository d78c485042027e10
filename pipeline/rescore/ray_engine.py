"""``rebelote rescore --engine ray``: :func:`pipeline.rescore.engine.score_batch`, unchanged, over Ray Data.

The lake's ``hands`` are read with ``ray.data.read_parquet`` (hive partitions: ``source`` comes back as a
column), each block goes through ``map_batches(score_any, batch_format="pyarrow")`` (``score_batch``, or each game under its own ruleset) on the Ray workers,
and the scored batches stream back to this process, which writes the ``scores`` partition exactly as the
local engine does (then the game pass runs as usual). Order is preserved, so the files are identical to
the local engine's.

Ray is an optional extra: ``pip install -e '.[ray]'`` in the checkout. ``ray.init()`` joins the cluster named by
``$RAY_ADDRESS`` when it is set, otherwise it starts a local runtime (``$REBELOTE_RAY_CPUS`` CPUs, default
all). On a cluster of many machines, see docs/scale.md (workers write their own files there).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pyarrow as pa

from pipeline.storage import lake as lakemod
from pipeline.rescore.own import score_any
from pipeline.rules import Ruleset
from pipeline.rules.own import OwnRules


class EngineUnavailable(RuntimeError):
    """The requested engine's optional dependency is not installed; the message names the extra."""


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        raise EngineUnavailable(f"--engine ray needs Ray Data, which is not installed ({e}); install the extra: "
                                "pip install -e '.[ray]' in the rebelote checkout (or: pip install 'ray[data]' "
                                "aiohttp)") from e
    return ray


def ensure_ray():
    """Import Ray and start (or join, with ``$RAY_ADDRESS``) a runtime if none is running; returns the module.
    Raises :class:`EngineUnavailable` when Ray Data is not installed."""
    ray = _ray()
    if not ray.is_initialized():
        cpus = os.environ.get("REBELOTE_RAY_CPUS")
        kwargs = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
        if os.environ.get("RAY_ADDRESS"):
            ray.init(**kwargs)
        else:
            ray.init(num_cpus=int(cpus) if cpus else None, **kwargs)
    return ray


def score_batches_ray(lake, rules: "Ruleset | OwnRules", batch_size: int = 262_144) -> Iterator[pa.Table]:
    """``scores`` tables for every hand of the lake, computed on Ray Data, streamed in input order.

    Raises :class:`EngineUnavailable` when Ray Data is not installed."""
    ray = ensure_ray()
    loc = lakemod.locate(lake)
    files = [f.path for f in lakemod.list_files(loc, "hands")]
    if not files:
        return iter(())
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    ds = ray.data.read_parquet(files, filesystem=loc.fs,
                               partitioning=ray.data.datasource.Partitioning("hive", base_dir=loc.path("hands")))
    scored = ds.map_batches(score_any, fn_kwargs={"rules": rules}, batch_format="pyarrow", batch_size=batch_size)
    return (pa.Table.from_batches([b]) if isinstance(b, pa.RecordBatch) else b
            for b in scored.iter_batches(batch_format="pyarrow", batch_size=None))
