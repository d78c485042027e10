"""Rulesets as data: loading, inheritance (``extends``) and validation.

A ruleset is one TOML file. ``rulesets/base.toml`` declares every parameter the engine knows, with its
default and its source; every other ruleset ``extends`` a parent and overrides what differs. The
``[sources]`` table cites where each value comes from (keys of ``../shared/rules/rules.md`` §0).

:func:`load` accepts a shipped name (``belote-classic``) or a path to a user's file; it raises
:class:`RulesetError` for an unknown key, a value of the wrong type or outside its allowed set, a
missing parameter, an unknown parent or a cycle in ``extends``.
"""

from __future__ import annotations

import difflib
import functools
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import names
from pipeline.resources import resource_dir

RANK_KEYS = ["7", "8", "9", "10", "J", "Q", "K", "A"]

# Parameters whose value must be one of a fixed set (only what the engine implements).
CHOICES: dict[str, tuple] = {
    "deal.n_players": (2, 3, 4),
    "deal.tricks": (8, 9, 10),
    "deal.deck": (32, 24),
    "auction.style": ("prise", "bid", "strain"),
    "declarations.tie": ("none", "first_announcer"),
    "declarations.on_capot": ("keep", "to_capot_team", "lost"),
    "cards.capot_bonus_to": ("any", "takers"),
    "cards.capot_by": ("tricks", "points"),
    "declarations.carre_order": ("face", "trick"),
    "declarations.ranking": ("full", "value"),
    "declarations.count": ("held", "announced", "announced_else_held"),
    "declarations.contest": ("unified", "separate", "sequences_only", "all"),
    "belote.count": ("held", "announced", "announced_else_held"),
    "contract.made_scores": ("points", "bid"),
    "contract.fail_scores": ("points", "base"),
    "declarations.long_runs": ("by_length", "quinte"),
    "belote.on_failure": ("keep", "to_defence"),
    "contract.made_vs_defence": ("gt", "ge", "none"),
    "contract.made_vs_bid": ("ge", "none"),
    "contract.tie": ("litige", "made", "failed"),
    "contract.fail_declarations": ("to_defence", "keep", "lost"),
    "contract.solo_made": ("each", "combined"),
    "contract.solo_fail": ("share", "own"),
    "double.scope": ("bid", "whole", "flat", "own", "all_to_more"),
    "belote.all_trump": ("per_suit", "per_suit_led", "none"),
    "rounding.mode": ("none", "nearest10_5up", "nearest10_6up", "tens_5up", "tens_6up", "bg_2001", "bg_modern"),
    "game.litige_to": ("next_hand_winner", "next_made_contract", "higher_hand_score"),
    "game.end_tie": ("play_on", "latest_deal_winner", "first_team"),
    "game.exit_needs": ("none", "winner_points", "loser_cards"),
    "game.belote_alone_when": ("failed_or_capot", "capot"),
    "play.revoke_count": ("first", "each"),
    "play.revoke_on": ("any", "follow_suit"),
}
#: the kinds of penalty a record may list (hands.penalties), each a parameter of the ruleset's [penalties]
PENALTY_KINDS = ("misdeal", "exposed_card", "bottom_card_not_turned", "out_of_turn", "wrong_card", "heaped_trick",
                 "combination_not_shown")
# Lower bounds of whole-number parameters (default 0: no negative points).
MINIMUM: dict[str, int] = {"game.target": 1, "double.coinche": 1, "double.surcoinche": 1, "belote.value": 0}
# Upper bounds: the kernels hold card points in int16 (32 cards x 1000 < 32767) and scores in int32 (10000 points
# x 100 x a few terms < 2**31), so a house file's 9223372036854775807 cannot wrap a score silently; the bound of a
# parameter not named here is POINTS_MAX.
POINTS_MAX = 10_000
MAXIMUM: dict[str, int] = {"game.target": 100_000, "double.coinche": 100, "double.surcoinche": 100,
                           "cards.trump": 1000, "cards.plain": 1000, "cards.no_trump": 1000, "cards.all_trump": 1000,
                           "cards.no_trump_scale": 1000, "cards.all_trump_scale": 1000}
HAND_MAX = 32_767
"""The engine keeps a hand's card, declaration, belote and contract points per team in int16: the largest hand
a ruleset's values can score (:func:`_largest_hand`) must fit."""
_META_KEYS = {"name", "extends", "description", "sources"}


class RulesetError(ValueError):
    """A ruleset file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Ruleset:
    """A resolved ruleset: every parameter present, inheritance applied.

    ``params`` maps section -> key -> value; ``sources`` maps 'section.key' -> citation;
    ``chain`` lists the files from the most derived to base.
    """

    name: str
    description: str
    params: dict[str, dict[str, Any]]
    sources: dict[str, str] = field(default_factory=dict)
    chain: tuple[str, ...] = ()

    @property
    def n_teams(self) -> int:
        """Sides that score: 2 with 2 or 4 players (team = seat % 2), 3 with 3 players (each plays for himself,
        team = seat). Per-team lists of the ``scores`` and ``game_scores`` tables have this length."""
        return n_teams(int(self.params["deal"]["n_players"]))

    def __getitem__(self, dotted: str) -> Any:
        section, _, key = dotted.partition(".")
        return self.params[section][key]

    def rank_table(self, dotted: str) -> list[int]:
        """A per-rank table (``cards.trump``, ``declarations.carre``...) as 8 ints in rank order 7..A."""
        t = self[dotted]
        return [int(t[k]) for k in RANK_KEYS]

    def flat(self) -> dict[str, Any]:
        """Every parameter as 'section.key' -> value."""
        return {f"{s}.{k}": v for s, kv in self.params.items() for k, v in kv.items()}


def n_teams(n_players: int) -> int:
    """Scoring sides for ``n_players`` seats: 2 for 2 or 4 players (team = seat % 2), 3 for 3 players (team =
    seat: each plays for himself, the taker against the two others)."""
    return 3 if n_players == 3 else 2


def shipped_names() -> list[str]:
    """Names of the rulesets shipped with Rebelote."""
    return sorted(p.stem for p in resource_dir("rulesets").glob("*.toml"))


MAX_FILE_BYTES = 1 << 20
"""Largest ruleset file read (the largest shipped one is under 20 kB): a bigger one is refused unread."""
MAX_EXTENDS = 64
"""Longest chain of ``extends`` (shipped rulesets: 3)."""


def _read(path: Path) -> dict:
    """The TOML table of a ruleset file; RulesetError (naming the file) for anything but a regular file of at most
    :data:`MAX_FILE_BYTES` bytes of valid UTF-8 TOML. A FIFO would block the open for ever, /dev/zero never end;
    arrays nested some thousand levels deep exhaust tomllib's recursion."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise RulesetError(f"{path}: not a regular file (a folder, pipe or device): a ruleset is a .toml file")
        if st.st_size > MAX_FILE_BYTES:
            raise RulesetError(f"{path}: {st.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} a ruleset file may "
                               "hold (the shipped ones hold under 20 kB)")
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise RulesetError(f"{path}: more than the {MAX_FILE_BYTES:,} bytes a ruleset file may hold")
        return tomllib.loads(data.decode("utf-8"))
    except RecursionError:
        raise RulesetError(f"{path}: not valid TOML: its values nest too deep") from None
    except tomllib.TOMLDecodeError as e:
        raise RulesetError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise RulesetError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at position {e.start}); "
                           "save the file as UTF-8") from None
    except OSError as e:
        raise RulesetError(f"{path}: cannot read: {e}") from None


def _locate(ref: str, relative_to: Path | None) -> Path:
    p = Path(ref)
    if p.suffix == ".toml":
        if not p.is_absolute() and relative_to is not None and not p.exists():
            p = relative_to.parent / p
        if not p.exists():
            raise RulesetError(f"ruleset file {ref!r} not found")
        return p
    shipped = resource_dir("rulesets") / f"{ref}.toml"
    if shipped.exists():
        return shipped
    import difflib
    if p.suffix or len(p.parts) > 1:     # a path (chez-nous.tml, rules/house): no shipped name looks like that
        found = "" if not p.exists() else " (a ruleset file is a .toml file)"
        raise RulesetError(f"ruleset {ref!r} is no shipped ruleset, and no ruleset file: "
                           f"{'the file is not .toml' + found if p.exists() else 'file not found'}"
                           + ("; did you mean " + str(p.with_suffix(".toml")) + "?"
                              if p.with_suffix(".toml").exists() else ""))
    close = difflib.get_close_matches(str(ref), shipped_names(), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise RulesetError(f"unknown ruleset {ref!r}; {hint}shipped rulesets: {', '.join(shipped_names())}")


def _check_value(dotted: str, value: Any, default: Any, path: Path) -> None:
    if isinstance(default, dict):
        if not isinstance(value, dict):
            raise RulesetError(f"{path}: {dotted} must be a table of rank -> points")
        bad = set(value) - set(default)
        if bad:
            raise RulesetError(f"{path}: {dotted} has unknown rank(s) {sorted(bad)}; ranks are {RANK_KEYS}")
        high = MAXIMUM.get(dotted, POINTS_MAX)
        for k, v in value.items():
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= high:
                raise RulesetError(f"{path}: {dotted}.{k} must be a whole number >= 0 and <= {high}, got {v!r}")
        return
    if dotted == "auction.strains":
        if not (isinstance(value, list) and value and all(v in ("C", "D", "H", "S", "NT", "AT") for v in value)):
            raise RulesetError(f"{path}: auction.strains must list contracts among C D H S NT AT, got {value!r}")
        return
    if isinstance(default, list):
        high = MAXIMUM.get(dotted, POINTS_MAX)
        if not (isinstance(value, list) and len(value) == len(default)
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= high for v in value)):
            raise RulesetError(f"{path}: {dotted} must be a list of {len(default)} whole numbers > 0 and <= {high}, "
                               f"got {value!r}")
        return
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesetError(f"{path}: {dotted} must be true or false, got {value!r}")
    elif isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool):
            raise RulesetError(f"{path}: {dotted} must be a whole number, got {value!r}")
    elif isinstance(default, str) and not isinstance(value, str):
        raise RulesetError(f"{path}: {dotted} must be text, got {value!r}")
    if isinstance(value, int) and not isinstance(value, bool):
        low, high = MINIMUM.get(dotted, 0), MAXIMUM.get(dotted, POINTS_MAX)
        if value < low:
            raise RulesetError(f"{path}: {dotted} must be at least {low}, got {value}")
        if value > high:
            raise RulesetError(f"{path}: {dotted} must be at most {high}, got {value}")
    allowed = CHOICES.get(dotted)
    if allowed is not None and value not in allowed:
        raise RulesetError(f"{path}: {dotted} = {value!r} is not supported; allowed: {', '.join(map(repr, allowed))}")


@functools.cache
def _base() -> dict:
    return _read(resource_dir("rulesets") / "base.toml")


def _did_you_mean(word: str, known) -> str:
    """' (did you mean 'x'?)' for the closest of ``known`` to a misspelt ``word``, else ''."""
    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_meta(data: dict, path: Path) -> None:
    """The top-level keys that are not parameters: ``name``, ``extends``, ``description`` are texts and
    ``sources`` a table of texts whose keys are real parameters ('section.key'); RulesetError naming the file
    and the key otherwise (a misspelt key with the closest real parameter)."""
    for key in ("name", "extends", "description"):
        if key in data and not isinstance(data[key], str):
            what = " (one shipped ruleset's name or a .toml file)" if key == "extends" else ""
            raise RulesetError(f"{path}: {key} must be text{what}, got {data[key]!r}")
    src = data.get("sources", {})
    if not isinstance(src, dict):
        raise RulesetError(f"{path}: sources must be a table of 'section.key' = \"citation\", got {src!r}")
    base = _base()
    known = [f"{s}.{k}" for s, body in base.items() if s not in _META_KEYS and isinstance(body, dict) for k in body]
    for k, v in src.items():
        if not isinstance(v, str):
            raise RulesetError(f"{path}: sources.{k} must be text (a citation), got {v!r}")
        if k not in known:
            raise RulesetError(f"{path}: sources.{k} cites an unknown parameter{_did_you_mean(k, known)}")


def _resolve(path: Path, seen: tuple[Path, ...]) -> tuple[dict, dict, tuple[str, ...]]:
    if path.resolve() in seen:
        raise RulesetError(f"{path}: 'extends' forms a cycle: {' -> '.join(str(s) for s in seen + (path,))}")
    if len(seen) >= MAX_EXTENDS:     # each level is a recursion: a chain of thousands would exhaust the stack
        raise RulesetError(f"{seen[0]}: a chain of more than {MAX_EXTENDS} 'extends' (at {path})")
    data = _read(path)
    _check_meta(data, path)
    base = _base()
    for section, body in data.items():
        if section in _META_KEYS:
            continue
        if section in base and isinstance(base[section], dict) and not isinstance(body, dict):
            raise RulesetError(f"{path}: {section} must be a section: write [{section}] and its parameters below it, "
                               f"got {section} = {body!r}")
        if section not in base or section in _META_KEYS or not isinstance(body, dict):
            sections = [s for s in base if s not in _META_KEYS]
            raise RulesetError(f"{path}: unknown section [{section}]{_did_you_mean(section, sections + sorted(_META_KEYS))}; "
                               f"sections are {', '.join(sections)}")
        for key, value in body.items():
            if key not in base[section]:
                raise RulesetError(f"{path}: unknown parameter {section}.{key}"
                                   f"{_did_you_mean(key, base[section])}")
            _check_value(f"{section}.{key}", value, base[section][key], path)
    parent = data.get("extends")
    if parent is None:
        params: dict[str, dict] = {}
        sources: dict[str, str] = {}
        chain: tuple[str, ...] = ()
    else:
        try:
            parent_path = _locate(parent, path)
        except RulesetError as e:
            raise RulesetError(f"{path}: extends: {e}") from None
        params, sources, chain = _resolve(parent_path, seen + (path.resolve(),))
        params = {s: dict(kv) for s, kv in params.items()}
    for section, body in data.items():
        if section in _META_KEYS:
            continue
        for key, value in body.items():
            cur = params.setdefault(section, {})
            if isinstance(value, dict) and isinstance(cur.get(key), dict):
                cur[key] = {**cur[key], **value}
            else:
                cur[key] = value
    name = str(data.get("name", path.stem))
    own = {str(k): str(v) for k, v in data.get("sources", {}).items()}
    # a value set here without a citation of its own must not keep the parent's citation
    for section, body in data.items():
        if section in _META_KEYS:
            continue
        for key in body:
            dotted = f"{section}.{key}"
            if dotted not in own:
                sources[dotted] = f"set by {name} (no source given)"
    sources = {**sources, **own}
    return params, sources, (name,) + chain


def _largest_hand(params: dict) -> int:
    """A bound on the points of one hand for one team under ``params`` (every parameter already within its own
    range): every card of the pack in the richest strain (scaled) plus the larger last-trick bonus; eight
    declarations at the largest declaration value; four belotes; the largest flat award or base and the capot bid;
    all times the larger multiplier. Generous: the shipped rulesets score at most a few thousand points."""
    c, d, dbl = params["cards"], params["declarations"], params["double"]
    total = {t: sum(c[t].values()) for t in ("trump", "plain", "no_trump", "all_trump")}
    cards = max(total["trump"] + 3 * total["plain"], 4 * total["no_trump"] * c["no_trump_scale"][0] / c["no_trump_scale"][1],
                4 * total["all_trump"] * c["all_trump_scale"][0] / c["all_trump_scale"][1])
    cards += max(c["last_trick"], c["capot_last_trick"]) + c["capot_bonus"] + c["capot_split_each"]
    decl = 8 * max([d["tierce"], d["quarte"], d["quinte"], *d["carre"].values(), *d["carre_no_trump"].values()])
    flat = max(v for k, v in {**params["contract"], **dbl}.items()
               if isinstance(v, int) and not isinstance(v, bool) and k not in ("coinche", "surcoinche"))
    bid = params["contract"]["capot_bid_value"]
    return int((cards + decl + 4 * params["belote"]["value"] + flat + bid + params["play"]["revoke_penalty"])
               * max(dbl["coinche"], dbl["surcoinche"]))


def load(ref: str | Path) -> Ruleset:
    """Load and resolve a ruleset by shipped name or by path to a ``.toml`` file.

    Raises :class:`RulesetError` (unknown ruleset/key, bad value, missing parameter, cycle).
    """
    path = _locate(str(ref), None)
    params, sources, chain = _resolve(path, ())
    base = _base()
    for section, body in base.items():
        if section in _META_KEYS:
            continue
        for key, default in body.items():
            if key not in params.get(section, {}):
                raise RulesetError(f"{path}: missing parameter {section}.{key} (add it, or 'extends' a ruleset that has it)")
            if isinstance(default, dict) and set(params[section][key]) != set(default):
                raise RulesetError(f"{path}: {section}.{key} must give every rank {RANK_KEYS}")
    deal = params["deal"]
    if deal["n_players"] * deal["tricks"] > deal["deck"]:
        raise RulesetError(f"{path}: deal: {deal['n_players']} players x {deal['tricks']} tricks need "
                           f"{deal['n_players'] * deal['tricks']} cards, more than the {deal['deck']}-card pack")
    if deal["n_players"] == 3 and params["auction"]["style"] != "prise":
        raise RulesetError(f"{path}: auction.style = {params['auction']['style']!r} is not supported with 3 players "
                           "(3-player belote is played with the prise: no bids, no coinche)")
    largest = _largest_hand(params)
    if largest > HAND_MAX:
        raise RulesetError(f"{path}: these values can score a hand {largest} points (cards, declarations, belote and "
                           f"the contract's flat values, times double.surcoinche), more than the engine's "
                           f"{HAND_MAX}; lower the largest of them")
    data = _read(path)
    name = str(data.get("name", path.stem))
    try:     # the name is a lake folder (scores/ruleset=<name>/): '../../victim' would be one outside the lake
        names.check("ruleset name", name)
    except names.BadName as e:
        where = "its name" if "name" in data else "the file's name, its default name (give it name = \"...\")"
        raise RulesetError(f"{path}: {e} ({where})") from None
    shipped_dir = resource_dir("rulesets").resolve()
    if path.resolve().parent != shipped_dir and name in shipped_names():
        raise RulesetError(f"{path}: name {name!r} is a shipped ruleset; give your rules another name "
                           "(their scores would replace the shipped ruleset's in the lake)")
    return Ruleset(name=name, description=str(data.get("description", "")),
                   params=params, sources=sources, chain=chain)
