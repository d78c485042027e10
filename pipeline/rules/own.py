"""Each game under its own rules: which ruleset each game of a lake was played under, and the ``own`` ruleset.

A lake often mixes sources that play different rules (colver's contrée, OpenSpiel's classic belote, a club's
score sheets). Scoring everything under one ruleset judges each source by the others' rules, so the default
scoring is ``own``: every game under the ruleset it was played under, chosen per game, in this order:

1. the lake's own file ``_own_rules.toml`` (``rebelote rules sources --set``): ``[sources]`` maps a source to
   a ruleset, ``[rulesets]`` a ruleset named by records to the one to score them under, ``[variants]`` a variant
   to the ruleset for games that name none;
2. the ruleset the game's record names (``games.ruleset_hint``), when Rebelote ships it;
3. the default of the game's variant (``own_rules.toml`` beside this module, which says why each is chosen).

:func:`plan` reads the lake's games once and returns an :class:`OwnRules`: it has the ``name``, ``params``,
``chain`` and ``sources`` of a :class:`~pipeline.rules.Ruleset` (so the lake records what ``own`` was scored
with, and :mod:`pipeline.stats.scored_with` sees when a ruleset or the choice changed), the rulesets used
(``members``), and each game's choice. :mod:`pipeline.rescore.own` scores with it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pipeline.storage import lake as lakemod
from pipeline import engine_version
from pipeline.resources import resource_dir
from pipeline.rules import Ruleset, RulesetError, load, shipped_names

OWN = "own"
#: what ``--rules`` accepts for it
NAMES = (OWN, "auto")
#: the lake's own choices, at the lake root
OVERRIDE_FILE = "_own_rules.toml"
SECTIONS = ("sources", "rulesets", "variants")
MAX_OVERRIDE_BYTES = 1 << 16


@dataclass(frozen=True)
class Choice:
    """The ruleset chosen for the games of one (source, variant, recorded ruleset) and why."""

    source: str
    variant: str
    hint: str | None
    ruleset: str
    why: str
    games: int


@dataclass(frozen=True, eq=False)
class OwnRules:
    """The ``own`` ruleset of one lake: each game's ruleset (``game_ids`` -> ``game_rules``, string arrays of
    the lake's games) and the rulesets they name (``members``). ``params`` holds each member's parameters and
    the choice per (source, variant, recorded ruleset), so a change of either makes the stored scores stale."""

    name: str
    description: str
    params: dict[str, Any]
    members: dict[str, Ruleset]
    choices: list[Choice]
    game_ids: pa.Array
    game_rules: pa.Array
    game_hints: pa.Array
    sources: dict[str, str] = field(default_factory=dict)
    chain: tuple[str, ...] = (OWN,)
    by_variant: dict[str, Ruleset] = field(default_factory=dict)   # variant -> ruleset for hands of no known game
    by_combo: dict[tuple, str] = field(default_factory=dict)       # (source, variant, hint or '') -> member name

    def member(self, name: str) -> Ruleset:
        """The ruleset of that name among the members or the variants' defaults (KeyError otherwise)."""
        if name in self.members:
            return self.members[name]
        for r in self.by_variant.values():
            if r.name == name:
                return r
        raise KeyError(name)

    def game_ruleset(self, source: str, variant: str, hint: str | None) -> Ruleset:
        """The ruleset a game of that source, variant and recorded ruleset is scored under (by its variant's
        default when the plan saw no such game). Needs no game id, so it works on pseudonymized rows too."""
        name = self.by_combo.get((source, variant, hint or ""))
        if name is not None:
            return self.members[name]
        if variant in self.by_variant:
            return self.by_variant[variant]
        raise KeyError(f"no ruleset for the {variant!r} games of source {source!r}")

    def ruleset_of(self, hands: pa.Table | pa.RecordBatch) -> pa.Array:
        """The member name (string array, one per row) each row of ``hands`` (columns ``game_id`` and ``variant``)
        is scored under: its game's choice; a hand whose game the plan does not know (read after the plan was
        made) by its variant's default."""
        idx = pc.index_in(hands.column("game_id"), value_set=self.game_ids)
        out = pc.take(self.game_rules, idx)
        if out.null_count and "variant" in hands.column_names:
            keys = pa.array(list(self.by_variant), pa.string())
            vals = pa.array([r.name for r in self.by_variant.values()], pa.string())
            out = pc.coalesce(out, pc.take(vals, pc.index_in(hands.column("variant"), value_set=keys)))
        return out

    def foreign(self) -> tuple[pa.Array, list[str]]:
        """Game ids whose record names a ruleset other than the one chosen (an override, or a name Rebelote does
        not ship): their recorded scores are not compared. And those names that are not shipped, sorted."""
        other = pc.and_(pc.is_valid(self.game_hints),
                        pc.not_equal(pc.fill_null(self.game_hints, ""), self.game_rules))
        unknown = sorted(set(pc.unique(self.game_hints.filter(other)).to_pylist()) - set(shipped_names()))
        return self.game_ids.filter(other), unknown


def is_own(name: str | None) -> bool:
    """Whether ``--rules NAME`` asks for each game's own ruleset."""
    return name in NAMES


def defaults() -> dict[str, str]:
    """variant -> the shipped ruleset its games are scored under when they name none (``own_rules.toml``)."""
    with open(resource_dir("rulesets").parent / "own_rules.toml", "rb") as f:
        return dict(tomllib.load(f)["variants"])


def overrides(lake) -> dict[str, dict[str, str]]:
    """The lake's ``_own_rules.toml`` as {section: {key: ruleset}} (every section present, empty when the lake
    has no file). Raises RulesetError naming the file for a table or value that is not one of :data:`SECTIONS`
    of strings."""
    raw = lakemod.read_bytes(lake, OVERRIDE_FILE)
    out: dict[str, dict[str, str]] = {s: {} for s in SECTIONS}
    if not raw:
        return out
    where = f"{lakemod.locate(lake).uri}/{OVERRIDE_FILE}"
    if len(raw) > MAX_OVERRIDE_BYTES:
        raise RulesetError(f"{where}: {len(raw)} bytes, more than the {MAX_OVERRIDE_BYTES} an own-rules file may have")
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RulesetError(f"{where}: not a TOML file ({e})") from None
    for section, table in doc.items():
        if section not in SECTIONS or not isinstance(table, dict):
            raise RulesetError(f"{where}: [{section}] is not one of the tables {', '.join(SECTIONS)}")
        for key, value in table.items():
            if not isinstance(value, str):
                raise RulesetError(f"{where}: [{section}] {key} = {value!r} must be a ruleset name or .toml path")
            out[section][key] = value
    return out


def write_overrides(lake, doc: dict[str, dict[str, str]]) -> None:
    """Write ``doc`` ({section: {key: ruleset}}) as the lake's ``_own_rules.toml`` (every string quoted as a TOML
    basic string: JSON's escapes are TOML's)."""
    lines = ["# Which ruleset each game of this lake is scored under by default (rebelote rules sources).",
             "# [sources] source = ruleset; [rulesets] ruleset the records name = ruleset to use;",
             "# [variants] variant = ruleset for games that name none. Edit by hand or with --set / --unset."]
    for section in SECTIONS:
        if doc.get(section):
            lines += ["", f"[{section}]"]
            lines += [f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(v, ensure_ascii=False)}"
                      for k, v in sorted(doc[section].items())]
    lakemod.write_bytes(lake, OVERRIDE_FILE, ("\n".join(lines) + "\n").encode())


def _choose(source: str, variant: str, hint: str | None, over: dict, by_variant: dict, shipped: set) -> tuple[str, str]:
    """(ruleset reference for :func:`pipeline.rules.load`, why) for one (source, variant, recorded ruleset)."""
    if source in over["sources"]:
        return over["sources"][source], f"{OVERRIDE_FILE} [sources] {source}"
    note = ""
    if hint:
        if hint in over["rulesets"]:
            return over["rulesets"][hint], f"the records name {hint}; {OVERRIDE_FILE} [rulesets] {hint}"
        if hint in shipped:
            return hint, "named by the records"
        note = f"the records name {hint}, which Rebelote does not ship; "
    if variant in over["variants"]:
        return over["variants"][variant], f"{note}{OVERRIDE_FILE} [variants] {variant}"
    if variant in by_variant:
        return by_variant[variant], f"{note}the default for {variant} games"
    raise RulesetError(f"no ruleset for the {variant!r} games of source {source!r}: name one in the lake's "
                       f"{OVERRIDE_FILE} (rebelote rules sources --set {source}=RULESET)")


def plan(lake) -> OwnRules:
    """Each game's own ruleset in ``lake`` (see the module docstring). Raises RulesetError when a chosen ruleset
    cannot be loaded (the message names the choice), or the lake's own-rules file is malformed."""
    over = overrides(lake)
    by_variant = {**defaults(), **over["variants"]}
    shipped = set(shipped_names())
    loc = lakemod.locate(lake)
    if lakemod.has_table(loc, "games"):
        games = lakemod.read(loc, "games", columns=["game_id", "source", "variant", "ruleset_hint"])
    else:
        games = pa.table({c: pa.array([], pa.string()) for c in ("game_id", "source", "variant", "ruleset_hint")})
    keys = pc.binary_join_element_wise(games.column("source"), games.column("variant"),
                                       pc.fill_null(games.column("ruleset_hint"), ""), "\x1f")
    combos = games.group_by(["source", "variant", "ruleset_hint"], use_threads=False).aggregate([("game_id", "count")])
    members: dict[str, Ruleset] = {}
    loaded: dict[str, Ruleset] = {}
    choices, names_of, chosen = [], {}, {}
    for row in sorted(combos.to_pylist(), key=lambda r: (r["source"], r["variant"], r["ruleset_hint"] or "")):
        ref, why = _choose(row["source"], row["variant"], row["ruleset_hint"], over, by_variant, shipped)
        if ref not in loaded:
            try:
                loaded[ref] = load(ref)
            except RulesetError as e:
                raise RulesetError(f"{why}: {e}") from None
        r = loaded[ref]
        members[r.name] = r
        names_of["\x1f".join((row["source"], row["variant"], row["ruleset_hint"] or ""))] = r.name
        chosen[(row["source"], row["variant"], row["ruleset_hint"] or "")] = r.name
        choices.append(Choice(row["source"], row["variant"], row["ruleset_hint"], r.name, why, row["game_id_count"]))
    fallback = {}
    for variant, ref in by_variant.items():     # hands of games the plan has not seen: by variant
        if ref not in loaded:
            try:
                loaded[ref] = load(ref)
            except RulesetError as e:
                raise RulesetError(f"the ruleset for {variant} games: {e}") from None
        fallback[variant] = loaded[ref]
    rules = pc.take(pa.array(list(names_of.values()), pa.string()),
                    pc.index_in(keys, value_set=pa.array(list(names_of), pa.string())))
    params: dict[str, Any] = {"choice": {k.replace("\x1f", "/"): v for k, v in sorted(names_of.items())}}
    params.update({n: json.loads(json.dumps(members[n].flat(), ensure_ascii=False)) for n in sorted(members)})
    desc = "each game under its own ruleset: " + (", ".join(
        f"{c.source} {c.variant} -> {c.ruleset}" for c in choices) or "no games yet")
    return OwnRules(OWN, desc, params, members, choices, games.column("game_id").combine_chunks(),
                    rules.combine_chunks() if isinstance(rules, pa.ChunkedArray) else rules,
                    games.column("ruleset_hint").combine_chunks(), by_variant=fallback,
                    by_combo=chosen)


def describe(changes: list[tuple[str, Any, Any]]) -> str:
    """How ``own`` changed since its scores were computed, from :func:`pipeline.stats.scored_with.changed_parameters`
    rows: the scoring engine's version when it changed (:mod:`pipeline.engine_version`), the choices that changed
    (``source/variant/named``: before -> now), the rulesets used or no longer used, and the first parameters that
    changed in a ruleset still used."""
    engine = [(a, b) for k, a, b in changes if k == engine_version.NAME]
    choice = [(k.removeprefix("choice."), a, b) for k, a, b in changes if k.startswith("choice.")]
    rest = [(k, a, b) for k, a, b in changes if not k.startswith("choice.") and k != engine_version.NAME]
    new = sorted({k.split(".")[0] for k, a, b in rest if a is None})
    gone = sorted({k.split(".")[0] for k, a, b in rest if b is None})
    edited = [(k, a, b) for k, a, b in rest if a is not None and b is not None]
    parts = [f"scoring engine {a} -> {b}" for a, b in engine]
    if choice:
        shown = ", ".join(f"{k} {a or 'none'} -> {b or 'none'}" for k, a, b in choice[:2])
        parts.append(f"{len(choice)} choice{'s' if len(choice) > 1 else ''} changed ({shown}"
                     f"{' ...' if len(choice) > 2 else ''})")
    if new:
        parts.append("now also scored under " + ", ".join(new))
    if gone:
        parts.append("no longer scored under " + ", ".join(gone))
    if edited:
        parts.append("parameters changed: " + ", ".join(f"{k} {json.dumps(a)} -> {json.dumps(b)}" for k, a, b in edited[:3])
                     + (f" and {len(edited) - 3} more" if len(edited) > 3 else ""))
    return "; ".join(parts)
