"""Text from the input shown on a terminal (light: the CLI imports it at start)."""

from __future__ import annotations

import re

# control characters (C0, DEL, C1) and the bidirectional overrides and isolates, which reorder what follows them
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` as it may be shown on a terminal: every control character and bidi override written as its
    Python escape (``\\x1b``, ``\\u202e``). A game id, a name or a file name comes from the input: raw, an
    ESC sequence in it would reach the terminal (retitle the window, clear the screen, rewrite the clipboard),
    an override would show a line other than it is. Tabs and line ends stay."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
