"""The dashboard database: one DuckDB file for BI tools (Metabase, Superset, Grafana, Evidence).

:func:`export_duckdb` writes ``FILE.duckdb`` holding

* the lake's views ``hands games rejects scores game_scores seats`` (those of :func:`pipeline.stats.reports.connect`),
  either as views over the lake's Parquet files (absolute paths, so the file works from any directory; the
  data stays live: re-run ``rescore`` and the views see the new scores) or, with ``materialize``, as tables
  copied into the file (self-contained: the file can be moved or shared without the lake);
* one table per report, ``report_<name>``, for each ruleset reported (a ``ruleset`` column tells them
  apart): :data:`REPORTS` from ``queries/``, plus ``report_ratings`` (:mod:`pipeline.stats.ratings`) and
  ``report_fairness`` from :mod:`pipeline.stats.fairness`. Report
  tables are computed when the file is written;
* ``export_info``: how the file was made (key/value text).

Pseudonymization (``Filters.pseudonymize``) always materializes: a view would have to carry the salt in its
SQL and read the real names from the lake, so the file would hold both.

:func:`markdown` documents every table and view of the file (``docs/dashboards.md``), from the schemas,
:data:`pipeline.stats.reports.SEATS_COLUMNS` and the header comments of ``queries/*.sql``.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from pipeline.storage import schema

from pipeline.stats import reports as stats
from pipeline.stats.fairness import REPORT_COLUMNS as FAIRNESS_COLUMNS
from pipeline.stats.fairness import TRUMP_CAVEAT, exact_probabilities, fairness_many
from pipeline.stats.pseudonymize import keyed

#: Reports of ``queries/`` written to the file as ``report_<name>`` (``compare`` needs two rulesets: not here).
REPORTS = ("players", "partnerships", "head_to_head", "contracts", "bidding", "bidders", "declarations",
           "declaration_kinds", "dd_players", "dd_bids", "audit")
#: Reports also written month by month, as ``report_<name>_by_month`` (``rebelote stats NAME --by month``).
MONTHLY = ("players", "partnerships", "bidders")
#: The groupings of ``report_fairness`` (column ``grouped_by``).
FAIRNESS_GROUPINGS = ("all", "source", "player")


@dataclass
class ExportSummary:
    """What :func:`export_duckdb` wrote: file, 'views' or 'tables', rulesets reported, rows per report table,
    hands in the (filtered) ``hands`` view, seconds."""

    path: Path
    mode: str
    rulesets: list[str]
    report_rows: dict[str, int] = field(default_factory=dict)
    hands: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        live = "views over the lake" if self.mode == "views" else "tables copied in"
        rules = ", ".join(self.rulesets) or "none scored"
        return (f"export duckdb: {self.hands} hands; {len(stats.VIEWS)} {live}; {len(self.report_rows)} report "
                f"tables ({sum(self.report_rows.values())} rows; rulesets: {rules}), {self.seconds:.2f} s "
                f"-> {self.path}")


def _empty_report(con: duckdb.DuckDBPyConnection, name: str) -> pa.Table:
    """Report ``name`` with no rows but its columns and types (a lake with no scores still gets the table)."""
    params = {p: "" for p in stats.report_params(name)}
    return con.sql(f"SELECT * FROM ({stats.report_sql(name)}) LIMIT 0", params=params).to_arrow_table()


def report_tables(con: duckdb.DuckDBPyConnection, rulesets: list[str],
                  filters: stats.Filters | None = None, progress=None, lake=None) -> dict[str, pa.Table]:
    """``report_<name>`` -> rows of every report for every ruleset of ``rulesets`` (stacked; each report
    has a ``ruleset`` column), and ``report_fairness`` (ruleset-independent: it looks at the dealt hands)
    with a leading ``grouped_by`` column: 'all', 'source' or 'player' (the ``group`` column's meaning).

    ``con`` is a :func:`pipeline.stats.reports.connect` connection made with ``filters``; ``progress(stage, done,
    total)`` is called before each report. ``lake``: the lake ``con`` reads, needed when ``filters`` selects
    players: the ratings then rate every game of the other filters (as ``stats ratings --player`` does) and keep
    the rows of the players the players report keeps. Raises :class:`pipeline.stats.reports.StatsError` as the reports do.
    """
    progress = progress or (lambda *a: None)
    out: dict[str, pa.Table] = {}
    for i, name in enumerate(REPORTS):
        progress(f"report {name}", i, len(REPORTS) + 1)
        parts = [stats.run_report_on(con, name, r, filters) for r in rulesets]
        out[f"report_{name}"] = pa.concat_tables(parts) if parts else _empty_report(con, name)
    if filters is not None and filters.players:
        if lake is None:
            raise ValueError("report_tables: a player filter needs the lake (its ratings rate every game)")
        from pipeline.stats import ratings

        kept = out["report_players"].select(["ruleset", "player", "source"]).to_pylist()
        everyone = ratings.every_game(lake, filters)
        try:
            out["report_ratings"], out["report_rating_history"] = rating_tables(
                everyone, rulesets, {(r["ruleset"], r["player"], r["source"]) for r in kept})
        finally:
            everyone.close()
    else:
        out["report_ratings"], out["report_rating_history"] = rating_tables(con, rulesets)
    parts = []
    progress("report fairness", len(REPORTS), len(REPORTS) + 1)
    for by, t in fairness_many(con, FAIRNESS_GROUPINGS, filters).items():
        parts.append(t.add_column(0, "grouped_by", pa.array([by] * t.num_rows, pa.string())))
    out["report_fairness"] = pa.concat_tables(parts)
    return out


#: Columns of ``report_ratings``: (name, DuckDB type, meaning).
RATINGS_COLUMNS = (
    ("ruleset", "VARCHAR", "The ruleset whose game results were rated."),
    ("kind", "VARCHAR", "'player' (every player rated) or 'partnership' (each pair of partners rated as one, pairs "
                        "against pairs: `stats ratings --partnerships`)."),
    ("rank", "INTEGER", "Rank by ordinal within the ruleset and kind, 1 = best."),
    ("player", "VARCHAR", "The player's name, or a partnership's first name (sorted)."),
    ("partner", "VARCHAR", "A partnership's second name (the same name again for a team of bots named alike, as in "
                           "report_partnerships); NULL for a player."),
    ("source", "VARCHAR", "Source of the games (a player is a name as its source spells it)."),
    ("rating", "DOUBLE", "mu: the rating after the last game."),
    ("uncertainty", "DOUBLE", "sigma: how uncertain the rating is."),
    ("ordinal", "DOUBLE", "rating - 3 x uncertainty: the conservative rating the rank is by."),
    ("games", "INTEGER", "Games rated."),
    ("won", "INTEGER", "Games won."),
    ("last_played", "TIMESTAMP WITH TIME ZONE", "When its last game was played (NULL for records with no time)."),
)


#: Columns of ``report_rating_history``: (name, DuckDB type, meaning).
RATING_HISTORY_COLUMNS = (
    ("ruleset", "VARCHAR", "The ruleset whose game results were rated."),
    ("game_no", "INTEGER", "The player's n-th rated game (1, 2 ...), in rating order."),
    ("game_id", "VARCHAR", "The game."),
    ("played_at", "TIMESTAMP WITH TIME ZONE", "When it was played (NULL for records with no time: rated after the "
                                              "dated games, by source and game id)."),
    ("player", "VARCHAR", "The player's name."),
    ("source", "VARCHAR", "Source of the game."),
    ("won", "BOOLEAN", "Whether the player's side won the game."),
    ("rating", "DOUBLE", "mu after the game."),
    ("uncertainty", "DOUBLE", "sigma after the game."),
    ("ordinal", "DOUBLE", "rating - 3 x uncertainty after the game."),
)


def _empty(columns) -> pa.Table:
    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(),
             "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC")}
    return pa.schema([(c, types[t]) for c, t, _ in columns]).empty_table()


def rating_tables(con: duckdb.DuckDBPyConnection, rulesets: list[str],
                  keep: set[tuple[str, str, str]] | None = None) -> tuple[pa.Table, pa.Table]:
    """(``report_ratings``, ``report_rating_history``) for each ruleset of ``rulesets``, stacked.

    ``report_ratings`` (:data:`RATINGS_COLUMNS`): the players' and the partnerships' leaderboards (``rebelote
    stats ratings``, with and without ``--partnerships``). ``report_rating_history``
    (:data:`RATING_HISTORY_COLUMNS`): every player's rating after each of its games (``stats ratings
    --history``, for every player at once). The players are rated once for both tables: keeping the history
    does not change the ratings, and each rating pass calls the library once per game. ``keep``: (ruleset,
    player, source) of the only players whose rows to keep (a partnership's when it holds one), all rated."""
    from pipeline.stats import ratings
    boards, histories = [], []
    for r in rulesets:
        results = ratings.game_results(con, r)
        names = {n for ps in results.column("players").to_pylist() if ps for n in ps if n is not None}
        if keep is not None:
            names = {p for rs, p, _ in keep if rs == r}
        players = ratings.rate(results, history_of=names)
        t = ratings.history_table(players)
        if keep is not None:
            t = t.filter(pa.array([(r, p, s) in keep for p, s in zip(t.column("player").to_pylist(),
                                                                     t.column("source").to_pylist())], pa.bool_()))
        histories.append(t.add_column(0, "ruleset", pa.array([r] * t.num_rows, pa.string())))
        for kind, summary in (("player", players), ("partnership", ratings.rate(results, partnerships=True))):
            board = ratings.leaderboard(summary)
            if summary.partnerships:
                board = board.rename_columns(["partner" if c == "player_b" else "player" if c == "player_a" else c
                                              for c in board.column_names])
            else:
                board = board.add_column(board.column_names.index("player") + 1, "partner",
                                         pa.nulls(board.num_rows, pa.string()))
            if keep is not None:
                board = board.filter(pa.array(
                    [(r, p, s) in keep or (r, q, s) in keep for p, q, s in zip(
                        board.column("player").to_pylist(), board.column("partner").to_pylist(),
                        board.column("source").to_pylist())], pa.bool_()))
            n = board.num_rows
            board = board.add_column(0, "kind", pa.array([kind] * n, pa.string()))
            boards.append(board.add_column(0, "ruleset", pa.array([r] * n, pa.string())))
    return (pa.concat_tables(boards) if boards else _empty(RATINGS_COLUMNS),
            pa.concat_tables(histories) if histories else _empty(RATING_HISTORY_COLUMNS))


def monthly_tables(con: duckdb.DuckDBPyConnection, lake, rulesets: list[str],
                   filters: stats.Filters) -> dict[str, pa.Table]:
    """``report_<name>_by_month`` for each report of :data:`MONTHLY`: the report over each month's games
    (:func:`pipeline.stats.reports.reports_by_month` on ``lake``), for every ruleset of ``rulesets``, stacked; ``con``
    (a connection over the lake) gives the columns when there is no ruleset."""
    by_month = stats.reports_by_month(lake, list(MONTHLY), rulesets, filters) if rulesets else {}
    out = {}
    for name in MONTHLY:
        if not rulesets:
            t = _empty_report(con, name)
            at = 1 if t.column_names[:1] == ["ruleset"] else 0
            by_month[name] = t.add_column(at, "month", pa.array([], pa.string()))
        out[f"report_{name}_by_month"] = by_month[name]
    return out


def _choose_rulesets(con: duckdb.DuckDBPyConnection, wanted: list[str] | None) -> list[str]:
    found = stats.rulesets(con)
    if not wanted:
        return found
    chosen = list(dict.fromkeys(wanted))
    for r in chosen:
        stats.resolve_ruleset(con, r)          # raises, naming the rulesets scored
    return chosen


def export_duckdb(lake: Path | str, path: Path | str, rulesets: list[str] | None = None,
                  filters: stats.Filters | None = None, materialize: bool = False, progress=None) -> ExportSummary:
    """Write the dashboard database ``path`` (replaced if it exists) for ``lake``.

    Args:
        lake: lake root folder; views name it by its absolute path.
        path: the DuckDB file to write. It is written beside itself under a temporary name and renamed, so
            a reader never sees half a file.
        rulesets: rulesets to report (each must be scored in the lake); None or empty = every ruleset scored.
        filters: sources / variants / players / min_hands as for ``rebelote stats``, applied to the views and
            the report tables; ``filters.pseudonymize`` (a salt) replaces player names by pseudonyms and
            forces ``materialize``.
        materialize: copy the views' rows into tables instead of views over the lake's files.
        progress: called as ``progress(stage, done, total)`` before each report and each table copied.
    Returns:
        an :class:`ExportSummary`.
    Raises:
        pipeline.stats.reports.StatsError: missing lake, unreadable table, ruleset not scored.
        OSError: the file cannot be written.
    """
    import time

    t0 = time.perf_counter()
    lake = Path(lake).resolve()
    path = Path(path)
    filters = filters or stats.Filters()
    materialize = materialize or bool(filters.pseudonymize)
    con = stats.connect(lake, filters)
    try:
        chosen = _choose_rulesets(con, rulesets)
        progress = progress or (lambda *a: None)
        reports = report_tables(con, chosen, filters, lambda stage, done, total: progress("reports", done, total),
                                lake)
        progress("monthly reports", 0, 1)
        reports.update(monthly_tables(con, lake, chosen, filters))
        hands = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        for leftover in (tmp, Path(str(tmp) + ".wal")):
            leftover.unlink(missing_ok=True)
        try:
            out = duckdb.connect(str(tmp))
            try:
                if materialize:
                    for i, view in enumerate(stats.VIEWS):   # streamed in batches: memory bounded by the batch size
                        progress("copying tables", i, len(stats.VIEWS))
                        # on ``con`` itself, not a cursor: a cursor is another connection, which does not see
                        # ``con``'s temporary tables (the stale games the views leave out)
                        rel = con.sql(f"SELECT * FROM {view}")
                        # DuckDB >= 1.4 names it to_arrow_reader; older versions fetch_record_batch
                        reader = (rel.to_arrow_reader(65_536) if hasattr(rel, "to_arrow_reader")
                                  else rel.fetch_record_batch(65_536))
                        out.register("_rows", reader)
                        out.execute(f"CREATE TABLE {view} AS SELECT * FROM _rows")
                        out.unregister("_rows")
                else:
                    stats.create_views(out, lake, filters, internal=False)
                for name, table in reports.items():
                    out.register("_rows", table)
                    out.execute(f"CREATE TABLE {name} AS SELECT * FROM _rows")
                    out.unregister("_rows")
                info = _info(lake, "tables" if materialize else "views", chosen, filters)
                out.register("_rows", pa.table({"key": list(info), "value": list(info.values())}))
                out.execute("CREATE TABLE export_info AS SELECT * FROM _rows")
                out.unregister("_rows")
                out.execute("CHECKPOINT")
            finally:
                out.close()
            os.replace(tmp, path)
        finally:
            for leftover in (tmp, Path(str(tmp) + ".wal")):
                leftover.unlink(missing_ok=True)
    finally:
        con.close()
    return ExportSummary(path, "tables" if materialize else "views", chosen,
                         {k: v.num_rows for k, v in reports.items()}, hands, time.perf_counter() - t0)


def _info(lake: Path, mode: str, rulesets: list[str], filters: stats.Filters) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("rebelote")
    except PackageNotFoundError:
        ver = "unknown"
    players = filters.players or ()
    if filters.pseudonymize and players:
        players = (f"({len(players)} names, not stored: pseudonymized export)",)
    return {
        "rebelote_version": ver,
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        # a lake's path may name its players (a folder per club table) like the file paths keyed in the views
        "lake": keyed(filters.pseudonymize, str(lake)) if filters.pseudonymize else str(lake),
        "mode": mode,
        "rulesets": ",".join(rulesets),
        "sources": ",".join(filters.sources or ()),
        "variants": ",".join(filters.variants or ()),
        "players": ",".join(players),
        "min_hands": "" if filters.min_hands is None else str(filters.min_hands),
        "pseudonymized": "yes" if filters.pseudonymize else "no",
    }


# ---------------------------------------------------------------------------------------------
# Documentation of the file (docs/dashboards.md)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Obj:
    """One table or view of the file: name, kind ('view or table', 'table'), description (markdown) and
    columns as (name, DuckDB type or '', meaning)."""

    name: str
    kind: str
    description: str
    columns: tuple[tuple[str, str, str], ...]


INFO_COLUMNS = (("key", "VARCHAR", "rebelote_version, created_at (UTC, ISO 8601), lake (absolute path; keyed when "
                 "pseudonymized), mode ('views' or 'tables'), rulesets (comma-separated), sources, variants, players, min_hands "
                 "(the filters; empty = none), pseudonymized ('yes' or 'no'; a pseudonymized export does not "
                 "store the names it was filtered on)"),
                ("value", "VARCHAR", "its value, as text"))

_VIEW_TEXT = {
    "hands": "One row per hand: deal, auction, contract, plays, recorded score, provenance.",
    "games": "One row per game.",
    "rejects": "Records that could not be imported, with reason and provenance. In a pseudonymized export "
               "`raw` is replaced by a placeholder (the raw record holds the names) and `reason` by what its "
               "`reason_code` means (a reason quotes the value it refuses, a name among them).",
    "scores": "Every hand rescored under each ruleset (`rebelote rescore`).",
    "game_scores": "Game totals, litige carry-over and winner, per ruleset.",
    "seats": "One row per hand per seat (derived from `hands`), to make player queries simple.",
    "player_hands": "One row per hand and player name under each ruleset: the facts the players report adds up "
                    "into player_games (a view computed from hands and scores: not stored).",
    "player_games": "One row per game and player name under each ruleset: the teams the name sat on.",
    "hand_facts": "One row per hand under each ruleset: its contract beside its result, the scalars the contracts, "
                  "declarations and compare reports add up (written by `rebelote rescore`).",
    "pair_hands": "One row per 4-player hand and pair of partners under each ruleset: the facts the partnerships "
                  "report adds up into pair_games (a view computed from hands and scores: not stored).",
    "pair_games": "One row per 4-player game and pair of partners under each ruleset: the teams the pair sat as.",
    "declaration_items": "One row per declaration (counted under the ruleset, or recorded as announced) of each "
                         "hand scored with a result, with the name at its seat (written by `rebelote rescore`).",
    "dd_hands": "One row per hand analysed double-dummy under each ruleset (written by `rebelote analyse`): best-play "
                "card points in the contract's strain and in each strain, whether the contract was makeable, and "
                "what each card played cost its side.",
    "dealt_events": "One row per seat of each complete 4-player deal: the fairness events its dealt hand shows (a bit "
                    "set) and its number of trumps, what the fairness report counts (a view computed from hands: not "
                    "stored; the same rows under every ruleset).",
}

_RATINGS_TEXT = """\
report_ratings: who is strongest? Ratings from the game results in time order (pipeline/stats/ratings.py, docs/reports.md#ratings)

openskill's Plackett-Luce model: in 4-player games two teams of two, in 2- and 3-player games each player alone;
the players' leaderboard and the partnerships' (each pair of partners one entity, in 4-player games), for every
ruleset reported. Ranked by the ordinal (rating - 3 x uncertainty), so a player with few games is not ranked on
luck. `rebelote stats ratings` gives the same rows, a player's trajectory and win probabilities."""

_HISTORY_TEXT = """\
report_rating_history: is a player getting stronger? Every player's rating after each of its games (pipeline/stats/ratings.py)

The same ratings as report_ratings (players, not partnerships), one row per player and rated game, in rating
order (game_no); `rebelote stats ratings --history --player P` gives one player's rows. Under `--player`, the
rows of those players only, rated from every game of the other filters."""

_MONTHLY_TEXT = """\
report_{name}_by_month: report_{name}, month by month (`rebelote stats {report} --by month`)

Each month's rows are the report over the games played in that month (UTC, games.played_at); games with no
recorded time are in no month. The month column ('YYYY-MM') follows ruleset."""

_FAIRNESS_TEXT = """\
report_fairness: are the dealt hands what a fairly shuffled deck gives? (pipeline/stats/fairness.py, docs/fairness.md)

Ruleset-independent (it looks at the dealt hands), so it has no ruleset column. Each seat's initial hand of
each 4-player deal with initial_hands is one trial of each event; the trump_* events count only hands whose
contract strain is a suit (C D H S), that suit being the trump.

Columns:
  grouped_by   'all' (one group '(all)'), 'source' (group = the hand's source) or 'player' (group = the
               player at that seat)
  group        the group
  event        {events}
  depends_on_trump
               true for the events of the contract's trump (trump_len_0 .. trump_len_8, trump_J9), false
               for those of the deal alone (carrés, runs, voids); see the caveat below
  hands        trials (seat hands)
  observed     trials where the event happened
  expected     hands * exact probability for a uniformly shuffled deck
  ratio        observed / expected (NULL when expected is 0)
  p_value      two-sided binomial test of observed against the exact probability
  method       'exact' (binomial distribution) or 'normal' (normal approximation, for very large groups)

Caveat: {caveat}
Filter on depends_on_trump to keep them apart. The four seats of a deal partition the deck, so the test is
approximate. A small p-value is a prompt to look, not proof."""


def _report_columns() -> dict[str, tuple[str, ...]]:
    """Column names of each report of :data:`REPORTS`, from running it on an empty lake."""
    with tempfile.TemporaryDirectory(prefix="rebelote-docs-") as empty:
        con = stats.connect(empty)
        try:
            return {name: tuple(_empty_report(con, name).column_names) for name in REPORTS}
        finally:
            con.close()


def describe() -> list[Obj]:
    """Every table and view of a dashboard file, in file order: the lake views, the report tables,
    ``export_info``. Report columns come from running each report on an empty lake (names only)."""
    objs: list[Obj] = []
    con = duckdb.connect(":memory:")
    try:
        for t in schema.TABLES:
            types = con.from_arrow(schema.empty(t)).types
            cols = tuple((name, str(ty), doc) for (name, _, _, doc), ty in zip(schema.field_docs(t), types))
            objs.append(Obj(t, "view or table", _VIEW_TEXT[t] + " Same columns as the lake table "
                                                             "([tables.md](tables.md)).", cols))
    finally:
        con.close()
    objs.append(Obj("seats", "view or table", _VIEW_TEXT["seats"], tuple(stats.SEATS_COLUMNS)))
    report_columns = _report_columns()
    for name in REPORTS:
        cols = tuple((c, "", "") for c in report_columns[name])
        objs.append(Obj(f"report_{name}", "table", stats.report_doc(name), cols))
    objs.append(Obj("report_ratings", "table", _RATINGS_TEXT, RATINGS_COLUMNS))
    objs.append(Obj("report_rating_history", "table", _HISTORY_TEXT, RATING_HISTORY_COLUMNS))
    for name in MONTHLY:
        cols = report_columns[name]
        at = 1 if cols[:1] == ("ruleset",) else 0
        objs.append(Obj(f"report_{name}_by_month", "table", _MONTHLY_TEXT.format(name=name, report=name.replace("_", "-")),
                        tuple((c, "", "") for c in cols[:at] + ("month",) + cols[at:])))
    events = ", ".join(exact_probabilities())
    objs.append(Obj("report_fairness", "table", _FAIRNESS_TEXT.format(events=events, caveat=TRUMP_CAVEAT),
                    tuple((c, "", "") for c in ("grouped_by",) + FAIRNESS_COLUMNS)))
    objs.append(Obj("export_info", "table", "How the file was made: one row per key.", INFO_COLUMNS))
    return objs


_INTRO = """\
# The dashboard database

Generated by `rebelote schema --dashboards` from the schemas, `pipeline/stats/views.py` and the headers of
`queries/*.sql`; do not edit by hand (tests/test_dashboard.py checks it is up to date).

`rebelote export duckdb FILE.duckdb` writes one DuckDB file for BI tools (Metabase, Superset, Grafana,
Evidence: any tool with a DuckDB driver opens it read-only):

```text
rebelote export duckdb FILE.duckdb [--lake DIR] [--rules NAME]... [--source S]... [--variant V]... [--player P]...
                       [--min-hands N] [--materialize] [--pseudonymize SALT]
```

* **Views over the lake** (default): `hands`, `games`, `rejects`, `scores`, `game_scores` and `seats` read
  the lake's Parquet files by absolute path, so the file opens from any directory and always shows the lake
  as it is now (a later `rescore` shows up without a new export). The file is small but needs the lake at
  the same path. A table folder that did not exist at export time (e.g. `rejects/` before the first reject)
  is an empty view: export again once it exists.
* **`--materialize`**: the same six objects are tables holding a copy of the rows: the file is
  self-contained and can be moved or shared without the lake.
* **Report tables** `report_*`: every report of `rebelote stats` (and `report_fairness`), computed when the
  file is written, for every ruleset scored in the lake (or those given with `--rules`); the `ruleset`
  column tells them apart. Filter on it in dashboards. Each game's own ruleset (and each one given with
  `--rules`) is scored first when its scores are missing or stale, as for every report; another ruleset whose
  scores are stale is exported as it stands, without the games its scores do not answer for, with a warning
  naming the `rebelote rescore` command that updates it.
* **Filters** `--source`, `--variant`, `--player` restrict the views and the reports to those hands, as in
  `rebelote stats`; `--min-hands` drops report rows with fewer hands. The ratings are the exception to
  `--player`, as in `stats ratings --player`: every game of the other filters is rated, and the rows of the
  players given are kept (a player's rating depends on its opponents' other games).
* **`--pseudonymize SALT`** replaces every player name (in `hands.players`, `games.players`,
  `seats.player`, `seats.partner` and so in every report) by `p_` + 12 hex digits of
  HMAC-SHA256(SALT, source + U+001F + name). It implies `--materialize`: views
  would have to carry the salt and read the real names. The same salt gives the same pseudonyms in every
  export, so datasets made with one salt can be linked to each other; a different salt gives unrelated
  pseudonyms (unlinkable). Keep the salt secret: with it, anyone can test guessed names. What else may
  hold a name is keyed or removed (docs/limits.md, "Pseudonymized outputs"): the keys (`hand_key`,
  `game_key`, `reject_key`), the ids and file paths (`game_id`, `source_game_id`, `source_hand_id`,
  `source_file`, `ingest_file`, the lake's path in `export_info`) become HMAC-SHA256(SALT, value), 32 hex digits,
  alike in every table, so joins hold; `rejects.raw`, `rejects.reason` and each of `hands.errors` are
  replaced by placeholders. `source` is kept.

Example (Evidence, Metabase or the DuckDB CLI):

```sql
SELECT player, take_rate, made_of, points_per_hand FROM report_players WHERE ruleset = 'colver' ORDER BY hands DESC;
SELECT s.player, count(*) AS capots FROM scores sc JOIN seats s USING (hand_key)
WHERE sc.ruleset = 'colver' AND s.is_taker AND sc.capot_team = s.team GROUP BY 1;
```
"""


def markdown() -> str:
    """``docs/dashboards.md``: the introduction, then every object of :func:`describe`."""
    out = [_INTRO]
    for obj in describe():
        out += [f"## `{obj.name}` ({obj.kind})", ""]
        if obj.name.startswith("report_"):
            out += ["```text", obj.description, "```", "",
                    "Columns: " + ", ".join(f"`{c}`" for c, _, _ in obj.columns), ""]
        else:
            out += [obj.description, "", "| column | type | meaning |", "|---|---|---|"]
            out += [f"| `{c}` | `{t}` | {d.replace('|', '/')} |" for c, t, d in obj.columns]
            out.append("")
    return "\n".join(out).rstrip() + "\n"
