"""The scoring engine's version, recorded with each ruleset's scores (``scores/ruleset=NAME/_ruleset.json``, key
``engine``), so that scores an older engine computed are stale like scores of changed parameters: a report
rescores them first, ``status`` says so, and an update rescores every game rather than only the new ones.

Raise :data:`ENGINE` when a change of the code gives other scores, statuses or game results for the same hands
under the same parameters (the versions and what each changed: docs/rulesets.md, "Stale scores"). A record
without the key was written by version 1.
"""

ENGINE = 2

#: the record's key, and the name a change of it is reported under (beside the rulesets' parameters)
KEY = "engine"
NAME = "scoring_engine"


def recorded(record: dict | None) -> int:
    """The engine version a ``_ruleset.json`` record names (1 when it names none)."""
    v = (record or {}).get(KEY, 1)
    return v if isinstance(v, int) else 1
