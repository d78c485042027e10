"""Readers of source formats, one module each, all with the same small interface:

* ``NAME``: the format's name (``--format NAME``), ``DESCRIPTION``: one line for ``rebelote formats``;
* ``sniff(name, head) -> bool``: does this file look like the format (content first: ``head`` is the
  first 64 KiB of decoded text; ``name`` the file name);
* ``read(lines, path) -> Iterator[GameRecord | Reject | Notice]``: parse an iterator of
  ``(line number, byte offset, text)``; never raise for bad input, yield a Reject instead (a Notice says
  something that is not an error, such as a line repeating an earlier one).

The registry below lists them in detection order.
"""

from __future__ import annotations

from types import ModuleType

from pipeline.formats import (bga, bridgebelot2001, carg_json, coinche_cli, colver, colver_cfn, colver_games,
                              native_jsonl, openspiel_jsonl, openspiel_state, scoresheet_csv)

READERS: list[ModuleType] = [native_jsonl, colver, colver_cfn, colver_games, openspiel_jsonl, openspiel_state,
                             coinche_cli, bridgebelot2001, scoresheet_csv, carg_json, bga]

DEAL_COPY_FORMATS = frozenset(r.NAME for r in READERS if getattr(r, "DEAL_COPIES", False))
"""Formats whose records are one deal each, matched by deal against their copies (:mod:`pipeline.ingest.deal_copies`)."""


def names() -> list[str]:
    """Names of the registered formats."""
    return [r.NAME for r in READERS]


def get(name: str) -> ModuleType:
    """The reader called ``name``. Raises KeyError listing the known formats."""
    for r in READERS:
        if r.NAME == name:
            return r
    import difflib
    close = difflib.get_close_matches(str(name), names(), n=2, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise KeyError(f"unknown format {name!r}; {hint}known formats: {', '.join(names())}")


def detect(name: str, head: str) -> ModuleType | None:
    """The first reader whose ``sniff`` accepts the file, or None (the file is reported, not guessed)."""
    for r in READERS:
        if r.sniff(name, head):
            return r
    return None


_DOC_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".adoc", ".pdf", ".html", ".htm"})
_DOC_STEMS = frozenset({"README", "LICENSE", "LICENCE", "COPYING", "CHANGELOG", "CHANGES", "NOTICE", "AUTHORS"})


def is_documentation(name: str) -> bool:
    """A file that documents a folder of records rather than holding any (README.md, FORMAT.md, LICENSE, notes.txt):
    met inside a folder and recognised by no reader, it is counted, not listed line by line."""
    stem, dot, suffix = name.rpartition(".")
    return ("." + suffix.lower() in _DOC_SUFFIXES if dot else False) or (stem or suffix).upper() in _DOC_STEMS
