"""What a report selects: the :class:`Filters` of ``rebelote stats`` (sources, variants, players, dates, the
pseudonymizing salt), as SQL conditions on the hands, and :class:`StatsError`, the error every report raises.

Kept apart from the views (:mod:`pipeline.stats.views`) and the reports (:mod:`pipeline.stats.reports`), which both read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone


class StatsError(ValueError):
    """A report that cannot run: unknown name, missing lake, missing or ambiguous ruleset, missing parameter."""


def sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Filters:
    """Row filters applied to the lake's views, so every report honours them.

    sources / variants: keep hands whose ``source`` / ``variant`` is in the tuple (None = all);
    players: keep hands where one of these names sat. Scores, games and game results follow the hands kept.
    min_hands: after the report runs, keep rows whose ``hands`` column is at least this (reports without one
    are unchanged).
    pseudonymize: a salt; when set, player names are replaced by their pseudonyms in every view (see
    :mod:`pipeline.stats.pseudonymize`), and ``players`` may be given as real names or as pseudonyms.
    since / until: keep games whose ``games.played_at`` (UTC) is at or after ``since`` / before ``until``
    (aware datetimes; :func:`parse_when` turns a command-line date into them). Games with no recorded time
    are left out when either is set.
    """

    sources: tuple[str, ...] | None = None
    variants: tuple[str, ...] | None = None
    players: tuple[str, ...] | None = None
    min_hands: int | None = None
    pseudonymize: str | None = field(default=None, repr=False)
    since: datetime | None = None
    until: datetime | None = None

    @property
    def row_local(self) -> bool:
        """True when the filter tests only a hand's ``source`` and ``players`` (no variant, no time): a derived
        table holding those columns can then apply it to its own rows (:meth:`hands_where`) instead of joining
        the filtered hands on ``hand_key``."""
        return not (self.variants or self.since or self.until)

    def hands_where(self, players: tuple[str, ...] | None = None, games: str = "_all_games") -> str:
        """SQL condition on ``hands`` columns (empty string: no filter). ``players`` overrides
        ``self.players`` (used to pass the names expanded with their pseudonyms); ``games`` is the relation
        the time filter reads ``played_at`` from."""
        players = self.players if players is None else players
        conds = []
        if self.sources:
            conds.append(f"source IN ({', '.join(sql_str(x) for x in self.sources)})")
        if self.variants:
            conds.append(f"variant IN ({', '.join(sql_str(x) for x in self.variants)})")
        if players:
            # one list_contains per name: what len(list_intersect(...)) > 0 tests, without building a list per row
            conds.append("(" + " OR ".join(f"list_contains(players, {sql_str(x)})" for x in players) + ")")
        if self.since or self.until:
            when = [f"played_at >= {sql_str(self.since.isoformat())}::TIMESTAMPTZ" if self.since else "true",
                    f"played_at < {sql_str(self.until.isoformat())}::TIMESTAMPTZ" if self.until else "true"]
            conds.append(f"game_id IN (SELECT game_id FROM {games} WHERE {' AND '.join(when)})")
        return " AND ".join(conds)


def parse_when(text: str, end: bool = False) -> datetime:
    """A command-line time bound: ``YYYY-MM-DD`` or an ISO 8601 time (no offset = UTC). With ``end``, a bare
    date means the end of that day (``--until 2026-03-31`` keeps March 31). Returns an aware UTC datetime.
    Raises ValueError with the accepted forms."""
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO 8601 time") from None
    if end and len(text) == 10:
        t += timedelta(days=1)
    return (t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t).astimezone(timezone.utc)
