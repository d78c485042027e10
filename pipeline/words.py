"""Counts in words for the one-line summaries of every command: "1 file", "2 files"."""

from __future__ import annotations


def count(k: int, noun: str, grouped: bool = False) -> str:
    """``k`` and ``noun``, the noun plural (an ``s`` added) unless ``k`` is 1; ``grouped``: ``k`` with thousands
    separators ("1,000 hands")."""
    number = f"{k:,}" if grouped else str(k)
    return f"{number} {noun}{'' if k == 1 else 's'}"
