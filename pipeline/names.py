"""The one check of every name that becomes a path inside the lake.

A ruleset name (``scores/ruleset=<name>/``), a source (``hands/source=<name>/``), a table (``<table>/``) and the
files the lake writes are folder or file names. A name such as ``../../victim``, ``/etc``, ``a/b`` or one holding
a NUL byte would make a lake command write, rename or delete outside the lake folder; so every such name passes
:func:`check` first, and :func:`pipeline.storage.lake.Location.path` refuses any path part that would leave the root.
"""

from __future__ import annotations

import re

PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")
"""A plain name: a letter or digit, then up to 99 letters, digits, '.', '_', '+' or '-' (``fullmatch``: a
trailing newline, which ``$`` would let through, is refused too)."""
RULE = "a letter or digit, then up to 99 letters, digits, '.', '_', '+' or '-', without '..'"
""":data:`PATTERN` in words, for messages."""


class BadName(ValueError):
    """A name that cannot name a lake folder or file; the message says which name, of what, and why."""


def is_plain(value: object) -> bool:
    """Whether ``value`` is text matching :data:`PATTERN` with no ``..`` in it."""
    return isinstance(value, str) and PATTERN.fullmatch(value) is not None and ".." not in value


def check(kind: str, value: object) -> str:
    """``value`` when it is a plain name (:func:`is_plain`); else BadName naming ``kind`` (``ruleset name``,
    ``source``...) and the value."""
    if not is_plain(value):
        raise BadName(f"{kind} {value!r} is not a plain name ({RULE}): it names a folder of the lake")
    return value  # type: ignore[return-value]


def check_part(part: str) -> str:
    """A path below the lake root (``scores/ruleset=x/_ruleset.json``): each '/'-separated piece non-empty, not
    '.' or '..', no NUL or backslash, not absolute. BadName otherwise (defence in depth behind :func:`check`:
    no caller's mistake can make a lake command touch a path outside the lake)."""
    if not isinstance(part, str) or part.startswith("/") or "\0" in part or "\\" in part:
        raise BadName(f"lake path {part!r} is not a relative path inside the lake")
    for piece in part.split("/"):
        if piece in ("", ".", ".."):
            raise BadName(f"lake path {part!r} is not a relative path inside the lake")
    return part
