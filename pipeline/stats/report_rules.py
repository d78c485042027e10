"""Which ruleset's scores a report reads, scoring first what is missing or stale instead of refusing.

Reports read stored scores. With no ``--rules`` a report uses each game's own ruleset (``own``,
:mod:`pipeline.rules.own`), except on a lake that holds the scores of exactly one other ruleset, fresh, and no
``own`` scores (a lake rescored under one ruleset only, the user's choice). When the ruleset asked for has no
scores yet, or its scores are stale (hands imported or replaced since its last rescore, a house file edited, a
shipped ruleset changed by an upgrade, an own-rules choice changed), it is rescored first: :func:`choose`
returns what to rescore and why, and the caller runs it (with its progress bar) and says so on one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline import names

from pipeline.facts import derived

from pipeline.storage import lake as lakemod

from pipeline.stats import scored_with
from pipeline.rules import Ruleset, RulesetError, load  # noqa: F401 - Ruleset in an annotation
from pipeline.rules import own


@dataclass
class Choice:
    """The ruleset a report reads (``name``); ``rescore``: the ruleset to rescore first (None when its scores are
    fresh) and ``why`` (the reason, for the note); ``stale``: scores that are stale but cannot be rescored here
    (a house ruleset known only by the lake's record of it), said in a warning."""

    name: str
    rescore: "Ruleset | own.OwnRules | None" = None
    why: str = ""
    stale: str = ""


def scored(lake) -> list[str]:
    """The rulesets with stored scores, sorted."""
    return sorted(p.split("=", 1)[1] for p in lakemod.partitions(lake, "scores") if p)


def staleness(lake, rules, present: list[str]) -> str:
    """Why the lake's scores under ``rules`` do not answer for it now ('' when they do)."""
    if rules.name not in present:
        return "no scores under it yet"
    if not derived.hands_unchanged(lake, rules.name):
        return "hands imported or replaced since its last rescore"
    changes = scored_with.changed_parameters(lake, rules)
    if changes:
        what = own.describe(changes) if isinstance(rules, own.OwnRules) else scored_with.describe(changes, 3)
        return f"the rules changed since its last rescore: {what}"
    return ""


def choose(lake, arg: str | None) -> Choice:
    """The ruleset a report over ``lake`` reads for ``--rules ARG`` (None: not given), and what to rescore first.

    Raises RulesetError for a ruleset that cannot be loaded (an unknown name with no scores, a bad file, a bad
    own-rules choice)."""
    present = scored(lake)
    if arg is None:
        others = [r for r in present if r != own.OWN]
        if own.OWN not in present and len(others) == 1 and derived.hands_unchanged(lake, others[0]):
            try:
                changed = scored_with.changed_parameters(lake, load(others[0]))
            except RulesetError:
                changed = []     # a house ruleset: its file is not known here
            if not changed:
                return Choice(others[0])
        arg = own.OWN
    if own.is_own(arg):
        rules = own.plan(lake)
    else:
        try:
            rules = load(arg)
        except RulesetError:
            if arg in present and names.is_plain(arg):    # a house ruleset known only by the lake's record of it
                stale = "" if derived.hands_unchanged(lake, arg) else (
                    f"the scores under {arg} predate the hands imported since; rescore with its file to update them")
                return Choice(arg, stale=stale)
            raise
    why = staleness(lake, rules, present)
    return Choice(rules.name, rules if why else None, why)



def load_rules(name: str, lake=None, house: bool = True):
    """A shipped ruleset or a .toml file; with ``lake``, ``own`` (or ``auto``: each game under its own ruleset,
    :func:`pipeline.rules.own.plan`), and with ``house`` also a house ruleset the lake was rescored with (its
    resolved parameters are kept in ``scores/ruleset=NAME/_ruleset.json``). Raises RulesetError (unknown name,
    bad file, bad own-rules choice) or OSError (the lake cannot be read)."""
    import orjson

    if own.is_own(name) and lake is not None:
        return own.plan(lake)
    try:
        return load(name)
    except RulesetError:
        if not (house and lake is not None and "/" not in name and not name.endswith(".toml")):
            raise
        try:
            data = lakemod.read_bytes(lake, f"scores/ruleset={name}/_ruleset.json")
        except (OSError, ValueError):
            data = None
        if not data:
            raise
        d = orjson.loads(data)
        return Ruleset(d["name"], f"as rescored in lake {lake}", d["params"], d.get("sources", {}),
                       tuple(d.get("chain", ())))


def game_rules(rules, hand: dict):
    """``rules``, or under ``own`` the ruleset the game of ``hand`` (a hands row: its source, variant and
    recorded ruleset) is scored under, so a game is explained as the reports count it. Raises RulesetError for a
    variant no ruleset is chosen for."""
    if not isinstance(rules, own.OwnRules):
        return rules
    try:
        return rules.game_ruleset(hand["source"], hand["variant"], hand.get("ruleset_hint"))
    except KeyError as e:        # a variant with no default ruleset: say which, as a ruleset error
        raise RulesetError(f"{e.args[0]}: name one with `rebelote rules sources --set SOURCE=RULESET`") from None
