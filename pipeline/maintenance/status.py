"""``rebelote status``: what a lake holds, which rulesets are scored and whether each is fresh, and what to run next.

A new user's first question after an import is "what do I have, and can I ask for a report yet?". This module
answers it from the lake alone: per source the games, hands, dates and the rulesets the records name
(``ruleset_hint``); the rejects by reason; per scored ruleset whether its scores cover exactly the lake's hands
(:func:`pipeline.facts.derived.hands_unchanged`) and were computed with the ruleset's current parameters
(:func:`pipeline.stats.scored_with.changed_parameters`); and the commands that would bring it up to date.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from pipeline.facts import derived

from pipeline.storage import lake as lakemod

from pipeline.stats import scored_with
from pipeline.words import count


@dataclass
class SourceStatus:
    """One source partition: games and hands, the range of ``played_at`` (ISO dates, None when no game has
    one), the rulesets its records name as theirs (``ruleset_hint``), and its hands whose records name none
    (``unhinted``: scored under the choice of `rules sources`)."""

    source: str
    games: int
    hands: int
    first_played: str | None
    last_played: str | None
    hinted: list[str]
    unhinted: int = 0


@dataclass
class RulesetStatus:
    """A ruleset with stored scores: the hands scored; ``fresh`` when they are exactly the lake's hands;
    ``changed``: the parameters whose value differs from the ruleset's now (None when the ruleset cannot be
    loaded by name here: a house file given by path); ``unwritten``: the stored report tables (:data:`pipeline.facts.derived.STORED`)
    with no rows stored for it (``rescore --no-derived``, or dropped by ``migrate``): the reports compute those rows
    on the fly, which is slower over many hands, until a rescore writes them; ``changes``: the changed parameters
    said as the reports' note says them (for ``own``: the choices changed, the rulesets now also or no longer
    used, the parameters edited; with new hands, without the choices and rulesets that came in with them);
    ``house``: a house ruleset, whose file status does not check."""

    name: str
    hands: int
    fresh: bool
    changed: list[str] | None
    unwritten: list[str] = field(default_factory=list)
    changes: str = ""
    house: bool = False


@dataclass
class LakeStatus:
    """What :func:`lake_status` found; prints as a few lines, :meth:`to_dict` for ``--json``."""

    lake: str
    version: int
    current_version: int
    sources: list[SourceStatus] = field(default_factory=list)
    rejects: dict[str, int] = field(default_factory=dict)
    rulesets: list[RulesetStatus] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        games, hands = sum(s.games for s in self.sources), sum(s.hands for s in self.sources)
        out = [f"lake {self.lake} (layout version {self.version}): {count(games, 'game')}, {count(hands, 'hand')} "
               f"from {count(len(self.sources), 'source')}, {count(sum(self.rejects.values()), 'reject')}"]
        for s in self.sources:
            dates = f", played {s.first_played} to {s.last_played}" if s.first_played else ", no dates"
            hint = f", recorded under {', '.join(s.hinted)}" if s.hinted else ""
            if s.hinted and s.unhinted:
                hint += f" ({count(s.unhinted, 'hand')} naming no ruleset)"
            out.append(f"  source {s.source}: {count(s.games, 'game')}, {count(s.hands, 'hand')}{dates}{hint}")
        if self.rejects:
            out.append("  rejects: " + ", ".join(f"{code} {n}" for code, n in self.rejects.items()))
        if not self.rulesets:
            out.append("  scores: none yet")
        for r in self.rulesets:
            # the hands first, as the reports' note; then what changed in the rules (under own, without what
            # the new hands brought in: their choices and rulesets)
            why = ([] if r.fresh else ["hands imported or replaced since"]) + \
                  ([f"the rules changed: {r.changes}"] if r.changes else [])
            state = ("stale (" + "; ".join(why) + ")" if why else
                     "fresh" if r.changed is not None else
                     "hands fresh; rules not checked (a house ruleset: its file is not known here)" if r.house else
                     "hands fresh; rules not checked (the record of what they were scored with cannot be read)")
            if r.name == "own":
                state += " (each game under its own ruleset)"
            if r.unwritten:
                state += f"; report tables not written: {', '.join(r.unwritten)} (the reports compute them, slower)"
            out.append(f"  scores under {r.name}: {count(r.hands, 'hand')}, {state}")
        out += [f"next: {step}" for step in self.next_steps]
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _rows(con, sql: str) -> list[tuple]:
    return con.execute(sql).fetchall()


def lake_status(lake) -> LakeStatus:
    """The status of ``lake`` (a folder or URL). Raises FileNotFoundError when there is no lake there, and
    :class:`pipeline.storage.lake.LakeVersionError` when its version record cannot be read."""
    from pipeline.storage import duck
    from pipeline.rules import RulesetError, load, own, shipped_names

    loc = lakemod.locate(lake)
    if not lakemod.exists(loc):
        raise FileNotFoundError(f"no lake at {loc.uri}")
    st = LakeStatus(loc.uri, lakemod.version(loc), lakemod.LAKE_VERSION)
    if st.version < st.current_version:
        # files of an older layout may lack columns the queries below read: migrating comes first
        st.next_steps = _next_steps(st, loc.uri)
        return st
    con = duck.duckdb_connection()
    if lakemod.has_table(loc, "hands") and lakemod.list_files(loc, "hands"):
        hands = duck.table_source(con, loc, "hands")
        by_source = {s: (n, hints, bare) for s, n, hints, bare in _rows(con, f"""
            SELECT source, count(*), list(DISTINCT ruleset_hint ORDER BY ruleset_hint)
                   FILTER (WHERE ruleset_hint IS NOT NULL), count(*) FILTER (WHERE ruleset_hint IS NULL)
            FROM {hands} GROUP BY source""")}
        games = {}
        if lakemod.list_files(loc, "games"):
            games = {s: (n, a, b) for s, n, a, b in _rows(con, f"""
                SELECT source, count(*), strftime(min(played_at), '%Y-%m-%d'), strftime(max(played_at), '%Y-%m-%d')
                FROM {duck.table_source(con, loc, 'games')} GROUP BY source""")}
        for s in sorted(by_source):
            n_hands, hints, bare = by_source[s]
            n_games, first, last = games.get(s, (0, None, None))
            st.sources.append(SourceStatus(s, n_games, n_hands, first, last, list(hints or []), bare))
    if lakemod.has_table(loc, "rejects") and lakemod.list_files(loc, "rejects"):
        st.rejects = dict(_rows(con, f"SELECT reason_code, count(*) FROM {duck.table_source(con, loc, 'rejects')} "
                                     "GROUP BY 1 ORDER BY 2 DESC, 1"))
    scored = {}
    if lakemod.has_table(loc, "scores") and lakemod.list_files(loc, "scores"):
        scored = dict(_rows(con, f"SELECT ruleset, count(*) FROM {duck.table_source(con, loc, 'scores')} "
                                 "GROUP BY 1 ORDER BY 1"))
    shipped = set(shipped_names())
    written = {t: set(lakemod.partitions(loc, t)) if lakemod.has_table(loc, t) else set() for t in derived.STORED}
    for name, n in scored.items():
        changed, text = None, ""
        if name in shipped or name == own.OWN:
            try:
                rules = own.plan(loc) if name == own.OWN else load(name)
                changes = scored_with.changed_parameters(loc, rules)
                changed = [c[0] for c in changes]
                fresh = derived.hands_unchanged(loc, name)
                if name == own.OWN and not fresh:      # a new source's choice and ruleset come with its hands
                    changes = [c for c in changes if c[1] is not None]
                text = own.describe(changes) if name == own.OWN else scored_with.describe(changes, 3)
            except (RulesetError, OSError, ValueError):
                changed = None
        st.rulesets.append(RulesetStatus(name, n, derived.hands_unchanged(loc, name), changed,
                                         [t for t in derived.STORED if f"ruleset={name}" not in written[t]], text,
                                         house=name not in shipped and name != own.OWN))
    st.next_steps = _next_steps(st, loc.uri)
    return st


def _next_steps(st: LakeStatus, uri: str) -> list[str]:
    """The commands that bring the lake up to date, most needed first."""
    lake = f" --lake {uri}" if uri != lakemod.locate(lakemod.DEFAULT_LAKE).uri else ""
    if st.version < st.current_version:
        return [f"rebelote migrate{lake}  (the lake was written by an older Rebelote; `status` shows what it holds "
                "once it is migrated)"]
    if not st.sources:
        return [f"rebelote ingest FILES...{lake}  (the lake holds no hands yet)"]
    steps = []
    scored = {r.name for r in st.rulesets}
    for r in st.rulesets:
        # a house ruleset is given by its file (`--rules my-club.toml`): its name alone is not found
        what = "" if r.name == "own" else f" --rules {r.name}" + (".toml" if r.house else "")
        where = f"; {r.name}.toml stands for the path of its house file" if r.house else ""
        if not r.fresh or r.changed:
            steps.append(f"rebelote rescore{what}{lake}  (its scores are stale{where})")
        elif r.unwritten:
            steps.append(f"rebelote rescore{what}{lake}  (writes the report tables the reports now compute on the "
                         f"fly{where})")
    alone = [r for r in st.rulesets if r.fresh and not r.changed]
    if "own" not in scored and not (len(st.rulesets) == 1 and alone):    # the reports' default (report_rules)
        steps.append(f"rebelote rescore{lake}  (scores each game under its own ruleset: `rebelote rules sources"
                     f"{lake}` shows which)")
    if not steps:
        steps.append(f"rebelote stats players{lake}  (everything is up to date)")
    return steps
