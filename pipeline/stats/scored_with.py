"""Which ruleset parameters a lake's scores were computed with, and whether a ruleset has changed since.

``rebelote rescore`` records the resolved parameters of the ruleset it scored with in
``scores/ruleset=NAME/_ruleset.json`` (:func:`pipeline.rescore.rescore_lake`). The reports read the stored
scores, so when the ruleset's file has been edited since (a house-rules TOML), or a new version of Rebelote
ships the ruleset with other values, the stored scores no longer follow the rules asked for: a report over
them would silently answer for the old rules. :func:`changed_parameters` finds those differences so the CLI
can refuse (a file the user edited) or warn (a shipped ruleset) and ask for ``rescore``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from pipeline import engine_version
from pipeline.storage import lake as lakemod
from pipeline.rules import Ruleset


def _flat(params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"game": {"target": 501}}`` -> ``{"game.target": 501}`` (tables of values, e.g. card points, stay whole
    at the depth a ruleset file sets them: ``cards.trump``)."""
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, dict) and not prefix:
            out.update(_flat(v, f"{k}."))
        else:
            out[prefix + k] = v
    return out


def _record_path(name: str) -> str:
    return f"scores/ruleset={name}/_ruleset.json"


def stored_parameters(lake, name: str) -> dict[str, Any] | None:
    """The resolved parameters (``{"section.key": value}``, JSON types) the lake's scores of ruleset ``name`` were
    computed with, or None when the lake has no record of them (never rescored under ``name``, or a lake
    rescored before the record existed)."""
    try:
        raw = lakemod.read_bytes(lake, _record_path(name))
    except (OSError, ValueError):
        return None
    if not raw:
        return None
    params = orjson.loads(raw).get("params")
    return _flat(params) if isinstance(params, dict) else None


def changed_parameters(lake, rules: Ruleset) -> list[tuple[str, Any, Any]]:
    """``(parameter, value scored with, value now)`` for every parameter of ``rules`` whose value differs from the
    one the lake's scores of ``rules.name`` were computed with (a parameter present on one side only counts,
    with None on the other), sorted by name; empty when they agree or the lake keeps no record. Scores an older
    scoring engine computed (:mod:`pipeline.engine_version`) add ``("scoring_engine", old, new)`` first."""
    stored = stored_parameters(lake, rules.name)
    if stored is None:
        return []
    # compare through the same JSON encoding the record was written with (tuples become lists, etc.)
    now = _flat(json.loads(json.dumps(rules.params, ensure_ascii=False, sort_keys=True)))
    engine = engine_version.recorded(orjson.loads(lakemod.read_bytes(lake, _record_path(rules.name))))
    return ([(engine_version.NAME, engine, engine_version.ENGINE)] if engine != engine_version.ENGINE else []) + [
        (k, stored.get(k), now.get(k)) for k in sorted(set(stored) | set(now)) if stored.get(k) != now.get(k)]


def describe(changes: list[tuple[str, Any, Any]], limit: int = 4) -> str:
    """``"game.target 501 -> 301, ..."`` for the first ``limit`` changes, and how many more."""
    text = ", ".join(f"{k} {json.dumps(a)} -> {json.dumps(b)}" for k, a, b in changes[:limit])
    return text + (f" and {len(changes) - limit} more" if len(changes) > limit else "")
