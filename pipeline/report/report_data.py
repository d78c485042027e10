"""The numbers behind the HTML report's charts, computed in DuckDB over a :func:`pipeline.stats.reports.connect`
connection (so filters and pseudonyms apply). Histograms are binned in SQL: the page carries one number
per bin, never one per hand.

Units: hand scores are game points; contract margins are card points (``scores.contract_points``, the
totals the made test compares).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import duckdb


@dataclass(frozen=True)
class Bins:
    """A histogram: ``width``-wide bins starting at each value of ``starts`` (bin = [start, start + width)),
    with one count list per series (``counts[name][i]`` is the count of bin ``starts[i]``). ``outside[name]``:
    values of the series beyond the bins (a long tail left off the axis, :data:`TAIL`), counted, not drawn."""

    width: int
    starts: list[int]
    counts: dict[str, list[int]]
    outside: dict[str, int] = field(default_factory=dict)

    def total(self, name: str) -> int:
        """Values of series ``name`` in the bins."""
        return sum(self.counts[name])

    def all(self, name: str) -> int:
        """Values of series ``name``, those beyond the bins included."""
        return self.total(name) + self.outside.get(name, 0)


#: Share of the values at each end a histogram may leave off its axis: when the whole range is more than twice
#: the range of the values between these quantiles (a few coinched capots at 2,000 points among hands of 0 to
#: 300), the bins cover that central range only, so they stay narrow where the hands are.
TAIL = 0.005


def nice_width(lo: float, hi: float, max_bins: int = 40) -> int:
    """Smallest bin width of the form 1, 2, 5 x 10^k (k >= 0) giving at most ``max_bins`` bins over [lo, hi]."""
    k = 0
    while True:
        for m in (1, 2, 5):
            w = m * 10 ** k
            if math.floor(hi / w) - math.floor(lo / w) + 1 <= max_bins:
                return w
        k += 1


def _bins(con: duckdb.DuckDBPyConnection, values_sql: str, params: dict, series: list[str]) -> Bins:
    """Bin the rows of ``values_sql`` (columns ``series``: value, ``kind``) per kind into one :class:`Bins`, over
    the whole range of the values, or over the central one when the tails are long (:data:`TAIL`)."""
    lo, hi, q_lo, q_hi = con.execute(f"SELECT min(value), max(value), quantile_disc(value, {TAIL}), "
                                     f"quantile_disc(value, {1 - TAIL}) FROM ({values_sql})", params).fetchall()[0]
    if lo is None:
        return Bins(1, [], {s: [] for s in series}, {s: 0 for s in series})
    if hi - lo > 2 * max(q_hi - q_lo, 1):
        lo, hi = q_lo, q_hi
    width = nice_width(lo, hi)
    first, last = int(math.floor(lo / width) * width), int(math.floor(hi / width) * width)
    rows = con.execute(f"SELECT (floor(value / {width}) * {width})::BIGINT AS start, kind, count(*) "
                       f"FROM ({values_sql}) GROUP BY ALL ORDER BY start", params).fetchall()
    starts = list(range(first, last + 1, width))
    index = {s: i for i, s in enumerate(starts)}
    counts = {s: [0] * len(starts) for s in series}
    outside = {s: 0 for s in series}
    for start, kind, n in rows:
        if start in index:
            counts[kind][index[start]] = n
        else:
            outside[kind] += n
    return Bins(width, starts, counts, outside)


def hand_score_bins(con: duckdb.DuckDBPyConnection, ruleset: str) -> Bins:
    """Game points scored on each hand the ruleset scored with a result (status 'scored'), by the taker's
    team (series 'taker') and by the defence (series 'defence' = every other team's points added up)."""
    sql = """
        SELECT hand_score[taker_team + 1] AS value, 'taker' AS kind FROM hand_facts
        WHERE ruleset = $r AND status = 'scored' AND hand_score IS NOT NULL AND taker_team IS NOT NULL
        UNION ALL
        SELECT list_sum(hand_score) - hand_score[taker_team + 1], 'defence' FROM hand_facts
        WHERE ruleset = $r AND status = 'scored' AND hand_score IS NOT NULL AND taker_team IS NOT NULL
    """
    return _bins(con, sql, {"r": ruleset}, ["taker", "defence"])


#: Over the view hand_facts (pipeline/facts/hand_facts.py): the hand's bid beside its result, no join on hand_key.
#: taker_contract_points is null exactly when contract_points is (a scored hand has a taker team);
#: defence_contract_points is set exactly when there are two teams.
MARGIN_SQL = """
    SELECT CASE WHEN bid IS NOT NULL THEN 'bid' ELSE 'prise' END AS kind,
           CASE WHEN bid IS NOT NULL THEN taker_contract_points - bid
                ELSE taker_contract_points - defence_contract_points END AS value
    FROM hand_facts
    WHERE ruleset = $r AND status = 'scored' AND NOT capot_bid AND taker_contract_points IS NOT NULL
      AND (bid IS NOT NULL OR defence_contract_points IS NOT NULL)
"""


def margin_bins(con: duckdb.DuckDBPyConnection, ruleset: str) -> tuple[Bins, int]:
    """Contract margins of the hands the ruleset scored with a result, in card points:

    * series 'bid': contracts with a bid value: the taker team's contract points minus the bid (>= 0: the
      bid was reached);
    * series 'prise': takes without a bid value (classic prise) in 2-team hands: the taker team's contract
      points minus the defence's (> 0: more than the defence, 0: a tie).

    Capot bids (need every trick, no points target) are left out: their count is returned beside the bins.
    """
    bins = _bins(con, MARGIN_SQL, {"r": ruleset}, ["bid", "prise"])
    capots = con.execute("SELECT count(*) FROM hand_facts WHERE ruleset = $r AND status = 'scored' AND capot_bid",
                         {"r": ruleset}).fetchall()[0][0]
    return bins, capots


def overview(con: duckdb.DuckDBPyConnection, ruleset: str) -> dict[str, int]:
    """Counts for the page header: games, hands, contracts (hands with a taker), players (distinct names per
    source), sources, and the ruleset's scores by status (scored, passed_out, unscorable, unscored =
    hands with no score row under the ruleset)."""
    games, hands, contracts, sources = con.execute(
        "SELECT count(DISTINCT game_id), count(*), count(taker), count(DISTINCT source) FROM hands").fetchall()[0]
    players = con.execute("SELECT count(*) FROM (SELECT DISTINCT source, player FROM seats)").fetchall()[0][0]
    status = dict(con.execute("SELECT status, count(*) FROM scores WHERE ruleset = $r GROUP BY status",
                              {"r": ruleset}).fetchall())
    scored_rows = sum(status.values())
    return {"games": games, "hands": hands, "contracts": contracts, "players": players, "sources": sources,
            "scored": status.get("scored", 0), "passed_out": status.get("passed_out", 0),
            "unscorable": status.get("unscorable", 0), "unscored": hands - scored_rows}
