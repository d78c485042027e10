"""Reasons a hand is not rescored that other stages name too (a report reads them without importing the engine)."""

#: scores.reason of a summary-level hand (points only, as on a score sheet): no cards, so nothing to rescore
SUMMARY_REASON = "summary hands carry no cards: nothing to rescore"
