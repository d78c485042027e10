"""The abbreviations a ruleset cites (its ``description`` and ``[sources]``) and the list that explains them,
``docs/sources.md``.

A citation reads like ``FFB-B16 §10.1.1 (T): strictly more; rules.md R28`` or ``seed 000: 301, 501 or 1000``
or ``colver FORMAT.md §7``. :func:`cited_keys` picks out the parts a reader has to look up, each as written:

* source keys in capitals, as in the sources table of the rules matrix (``../shared/rules/rules.md`` §0):
  hyphenated ones (``FFB-B16``, ``BG-HIT``, ``WP-FR-Co``; a slash continues the same family,
  ``FFB-Co15/Ct15`` = ``FFB-Co15`` and ``FFB-Ct15``) and single words of three or more capitals
  (``ADPOKER3``, ``EXOTY``, ``BGA``), except the English and code words of :data:`NOT_SOURCES`;
* seed pages: ``seed 000``, ``seeds 000/003`` (= ``seed 000`` and ``seed 003``);
* documents and files: any name ending in ``.md``, ``.json``, ``.ts``, ``.java``, ``.cs`` or ``.rs``
  (``rules.md``, ``FORMAT.md``, ``golden_score.json``, ``../shared/oracles/README.md``), and
  ``rules_examples`` without its extension.

Section marks (``§10.1``), matrix rows (``R28``), example ids (``B10``), card values (``J20``) and the access
letters ``(T)`` ``(Q)`` ``(D)`` ``(S)`` are not keys: ``docs/sources.md`` explains them once.

:func:`listed_keys` reads the keys ``docs/sources.md`` lists: every ``backticked`` name in the first column of
its tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Where the cited abbreviations are explained, relative to the repository root.
SOURCES_DOC = "docs/sources.md"

#: Words in capitals that rulesets use and that are not sources: English words and a language name.
NOT_SOURCES = frozenset({"ALL", "AND", "PHP"})

_TOKEN = re.compile(r"[A-Za-z0-9_./#-]+")
_HYPHENATED = re.compile(r"[A-Z]{2,}[0-9]*(?:-[A-Za-z0-9]+)+")
_CAPITALS = re.compile(r"[A-Z]{3,}[0-9]*")
_FAMILY_MEMBER = re.compile(r"[A-Z][a-z]+[0-9]*")          # 'Ct15' in FFB-Co15/Ct15
_SEEDS = re.compile(r"\bseeds? ([0-9]{3}(?:/[0-9]{3})*)\b")
_FILE = re.compile(r"[\w./-]*\w\.(?:md|json|ts|java|cs|rs)")


def _source_keys(token: str) -> list[str]:
    """The capitalised source keys in one token (slash-separated parts, a family prefix carried over)."""
    keys: list[str] = []
    family = None
    for part in token.strip(".-/#").split("/"):
        if _HYPHENATED.fullmatch(part):
            keys.append(part)
            family = part.split("-")[0]
        elif family and _FAMILY_MEMBER.fullmatch(part):
            keys.append(f"{family}-{part}")
        elif _CAPITALS.fullmatch(part) and part not in NOT_SOURCES:
            keys.append(part)
            family = None
        else:
            family = None
    return keys


def cited_keys(text: str) -> set[str]:
    """The abbreviations, seed pages and documents a citation text refers to (see the module docstring),
    each as written. ``text`` is any ruleset ``description`` or ``[sources]`` value; an empty text gives an
    empty set."""
    keys: set[str] = set()
    for m in _SEEDS.finditer(text):
        keys.update(f"seed {n}" for n in m.group(1).split("/"))
    for m in _FILE.finditer(text):
        keys.add(m.group(0))
    if re.search(r"\brules_examples\b(?!\.md)", text):
        keys.add("rules_examples")
    for token in _TOKEN.findall(text):
        if not _FILE.fullmatch(token.rstrip(".")):
            keys.update(_source_keys(token))
    return keys


def ruleset_keys(description: str, sources: Iterable[str]) -> set[str]:
    """:func:`cited_keys` of a ruleset's description and of every value of its ``[sources]`` table."""
    keys = cited_keys(description)
    for text in sources:
        keys |= cited_keys(text)
    return keys


def listed_keys(markdown: str) -> set[str]:
    """The keys a ``docs/sources.md`` text lists: every name in backticks in the first cell of a table row
    (header and separator rows have none)."""
    keys: set[str] = set()
    for line in markdown.splitlines():
        if line.startswith("|"):
            first = line.split("|")[1]
            keys.update(re.findall(r"`([^`]+)`", first))
    return keys
