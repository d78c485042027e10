"""pipeline/stats/ratings.py: ratings from game results in time order (issue 21).

The arithmetic is openskill's: every test of values runs the library directly on the games in the order and
with the teams and ranks the module text states, and asks for exactly the same floats. What is Rebelote's own is
tested by hand: the order (dated games by time, then undated ones by source and game id, numbers as numbers),
the teams (seats 0+2 against 1+3; a name on both seats of a team is one member; a name on both teams is not
rated), the ranks (3 players: the winner, then the others by their final totals), and that the ratings do not
depend on how the records were split into files."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pytest

from openskill.models import PlackettLuce
from typer.testing import CliRunner

from pipeline.stats import ratings

from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.rules import load
from pipeline.simulate.games import simulate

UTC = timezone.utc


def _results(rows: list[dict]) -> pa.Table:
    """A results table as :func:`pipeline.stats.ratings.game_results` gives it."""
    schema = pa.schema([("game_id", pa.string()), ("source", pa.string()), ("source_game_id", pa.string()),
                        ("n_players", pa.int8()), ("players", pa.list_(pa.string())),
                        ("played_at", pa.timestamp("us", tz="UTC")), ("winner", pa.int32()),
                        ("totals", pa.list_(pa.int32()))])
    full = [dict({"totals": None, "played_at": None, "source": "club"}, **r) for r in rows]
    for r in full:
        r.setdefault("source_game_id", r["game_id"])
        r.setdefault("n_players", len(r["players"]))
    return pa.Table.from_pylist(full, schema=schema)


def test_the_order_is_time_then_source_and_game_id_with_numbers_as_numbers():
    t = _results([
        {"game_id": "g10", "players": ["a", "b"], "winner": 0},
        {"game_id": "g9", "players": ["a", "b"], "winner": 0},
        {"game_id": "late", "players": ["a", "b"], "winner": 0, "played_at": datetime(2026, 3, 2, tzinfo=UTC)},
        {"game_id": "early", "players": ["a", "b"], "winner": 0, "played_at": datetime(2026, 3, 1, tzinfo=UTC)},
        {"game_id": "a1", "players": ["a", "b"], "winner": 0, "source": "another"},
    ])
    order = [t.column("game_id")[i].as_py() for i in ratings.rating_order(t)]
    assert order == ["early", "late", "a1", "g9", "g10"]


def _natural(text):
    """The natural order's key as the module text states it, in Python: runs of digits 0-9 as numbers, before any
    text at the same place (the reference the SQL order is checked against)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"([0-9]+)", text or "") if p)


def test_the_order_is_the_natural_order_in_python_over_odd_ids():
    # ratings.ORDER_SQL sorts in DuckDB; the same order, computed in Python from the module text's definition,
    # over ids with leading zeros, numbers past 2^64, text and digits at the same place, an empty id, no
    # source_game_id (our game id then), undated and dated games, a null source
    import random

    rnd = random.Random(5)
    pieces = ["g", "G", "-", "0", "007", "7", "10", "99999999999999999999999", "18446744073709551617", "a1", ".", "é"]
    rows = []
    for i in range(600):
        sid = "".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 5)))
        when = rnd.choice([None, None, datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 2, 12, tzinfo=UTC)])
        rows.append({"game_id": f"x{i:04d}", "source_game_id": rnd.choice([sid, sid, None]), "played_at": when,
                     "source": rnd.choice(["club", "another", None]), "players": ["a", "b"], "winner": 0})
    t = _results(rows)

    def key(r):
        when = r["played_at"]
        ident = r["source_game_id"] if r["source_game_id"] is not None else r["game_id"]
        return (when is None, when.timestamp() if when else 0.0, r["source"] or "", _natural(ident), r["game_id"])
    want = [r["game_id"] for r in sorted(t.to_pylist(), key=key)]
    assert [t.column("game_id")[i].as_py() for i in ratings.rating_order(t)] == want


def test_ratings_are_the_librarys_on_the_same_games_teams_and_ranks():
    # four games in a stated order: 4 players (team 0 = seats 0 and 2 wins), 2 players (seat 1 wins),
    # 3 players (seat 2 wins; seat 0 has more points than seat 1: ranks 1, 2, 0), 4 players again (team 1 wins)
    t = _results([
        {"game_id": "g1", "players": ["A", "B", "C", "D"], "winner": 0},
        {"game_id": "g2", "players": ["A", "B"], "winner": 1},
        {"game_id": "g3", "players": ["A", "B", "C"], "winner": 2, "totals": [300, 120, 1010]},
        {"game_id": "g4", "players": ["A", "D", "C", "B"], "winner": 1},
    ])
    got = ratings.rate(t)
    m = PlackettLuce()
    r = {p: m.rating() for p in "ABCD"}
    [[r["A"], r["C"]], [r["B"], r["D"]]] = m.rate([[r["A"], r["C"]], [r["B"], r["D"]]], ranks=[0, 1])
    [[r["A"]], [r["B"]]] = m.rate([[r["A"]], [r["B"]]], ranks=[1, 0])
    [[r["A"]], [r["B"]], [r["C"]]] = m.rate([[r["A"]], [r["B"]], [r["C"]]], ranks=[1, 2, 0])
    [[r["A"], r["C"]], [r["D"], r["B"]]] = m.rate([[r["A"], r["C"]], [r["D"], r["B"]]], ranks=[1, 0])
    assert got.rated == 4 and got.skipped == {}
    for p in "ABCD":
        e = got.entities[((p,), "club")]
        assert (e.rating.mu, e.rating.sigma) == (r[p].mu, r[p].sigma), p
    assert {p: got.entities[((p,), "club")].games for p in "ABCD"} == {"A": 4, "B": 4, "C": 3, "D": 2}
    assert {p: got.entities[((p,), "club")].won for p in "ABCD"} == {"A": 1, "B": 2, "C": 2, "D": 1}
    board = ratings.leaderboard(got)
    ordinals = board.column("ordinal").to_pylist()
    assert ordinals == sorted(ordinals, reverse=True) and board.column("rank").to_pylist() == [1, 2, 3, 4]
    assert board.column("ordinal").to_pylist() == [round(r[p].ordinal(), 3) for p in board.column("player").to_pylist()]


def test_ratings_equal_the_librarys_own_copies_over_many_games(monkeypatch):
    # rate() hands the library teams whose deep copy shares the rating objects (ratings._Teams: the copy was two
    # thirds of its time). 400 random games among 7 players, 2, 3 and 4 players, 3-player games with equal
    # totals (tied ranks) among them, rated here by the library on its own copies, in the same order: every
    # entity's mu and sigma, games and wins are the same to the last bit.
    import random

    rnd = random.Random(11)
    names = list("ABCDEFG")
    rows = []
    for g in range(400):
        n = rnd.choice((2, 3, 4))
        players = rnd.sample(names, n)
        totals = [rnd.choice((300, 500, 500, 1001)) for _ in range(n)] if n == 3 else None
        rows.append({"game_id": f"g{g}", "players": players, "winner": rnd.randrange(3 if n == 3 else 2),
                     "totals": totals})
    import copy

    from openskill.models.weng_lin import plackett_luce

    copied = []
    real = copy.deepcopy

    def counting(x, memo=None):
        copied.append(type(x).__name__)
        return real(x, memo)
    monkeypatch.setattr(plackett_luce.copy, "deepcopy", counting)
    got = ratings.rate(_results(rows))
    # the library's deep copy of the teams went through _Teams' (which shares the rating objects): not once
    # through the generic copy of a plain list
    assert copied and set(copied) == {"_Teams"}
    monkeypatch.undo()
    m = PlackettLuce()
    r = {p: m.rating() for p in names}
    for row in rows:
        teams, ranks = ratings._teams(len(row["players"]), row["players"], row["winner"], row["totals"], False)
        keys = [[k[0] for k in team] for team in teams]
        new = m.rate([[r[p] for p in team] for team in keys], ranks=ranks)
        for team, rated in zip(keys, new):
            for p, x in zip(team, rated):
                r[p] = x
    assert got.rated == 400
    assert any(len(set(rk)) < 3 for rk in (ratings._teams(3, row["players"], row["winner"], row["totals"], False)[1]
                                           for row in rows if len(row["players"]) == 3))     # tied ranks occur
    for p in names:
        e = got.entities[((p,), "club")]
        assert (e.rating.mu, e.rating.sigma) == (r[p].mu, r[p].sigma), p


def test_a_lineup_met_again_is_ranked_by_its_own_result():
    # rate() makes a lineup's teams once (games repeat lineups); the same three players with the same winner but
    # other final totals rank the two others the other way round, and another winner ranks anew: each game is
    # rated with its own ranks, as the library rates them given each game's teams and ranks directly
    rows = [{"game_id": "g1", "players": ["A", "B", "C"], "winner": 0, "totals": [1001, 500, 300]},
            {"game_id": "g2", "players": ["A", "B", "C"], "winner": 0, "totals": [1001, 300, 500]},
            {"game_id": "g3", "players": ["A", "B", "C"], "winner": 2, "totals": [300, 500, 1001]},
            {"game_id": "g4", "players": ["A", "B", "C"], "winner": 0, "totals": [1001, 300, 500]}]
    # and a 4-player lineup met twice, the other team winning the second time (the same totals, none)
    rows += [{"game_id": "g5", "players": ["A", "B", "C", "D"], "winner": 0},
             {"game_id": "g6", "players": ["A", "B", "C", "D"], "winner": 1}]
    got = ratings.rate(_results(rows))
    m = PlackettLuce()
    r = {p: m.rating() for p in "ABCD"}
    for ranks in ([0, 1, 2], [0, 2, 1], [2, 1, 0], [0, 2, 1]):     # by the totals: hand computed
        new = m.rate([[r["A"]], [r["B"]], [r["C"]]], ranks=ranks)
        r.update((p, t[0]) for p, t in zip("ABC", new))
    for ranks in ([0, 1], [1, 0]):                                    # seats 0 and 2 against 1 and 3
        (a, c), (b, d) = m.rate([[r["A"], r["C"]], [r["B"], r["D"]]], ranks=ranks)
        r.update(A=a, B=b, C=c, D=d)
    for p in "ABCD":
        e = got.entities[((p,), "club")]
        assert (e.rating.mu, e.rating.sigma) == (r[p].mu, r[p].sigma), p


def test_the_winners_rise_and_the_losers_fall():
    # the meaning of the ranks, checked without the library: a win raises the winners' ratings
    t = _results([{"game_id": "g1", "players": ["A", "B", "C", "D"], "winner": 1},
                  {"game_id": "g2", "players": ["A", "B", "C"], "winner": 0, "totals": [1001, 500, 700]}])
    got = ratings.rate(t.slice(0, 1))
    mu = {p: got.entities[((p,), "club")].rating.mu for p in "ABCD"}
    assert mu["B"] == mu["D"] > 25 > mu["A"] == mu["C"]
    got = ratings.rate(t.slice(1, 1))
    mu = {p: got.entities[((p,), "club")].rating.mu for p in "ABC"}
    assert mu["A"] > mu["C"] > 25 > mu["B"]          # second place (700 against 500) beats one player too


def test_predictions_name_rated_teams():
    t = _results([{"game_id": f"g{i}", "players": ["A", "B", "C", "D"], "winner": 0} for i in range(3)])
    players, pairs = ratings.rate(t), ratings.rate(t, partnerships=True)
    p = ratings.predict(players, ["A+C", "B+D"]).column("win_probability").to_pylist()
    q = ratings.predict(pairs, ["C+A", "D+B"]).column("win_probability").to_pylist()
    assert p[0] > 0.5 > p[1] and q[0] > 0.5 > q[1]
    with pytest.raises(ValueError, match="a player in two teams: A"):
        ratings.predict(players, ["A+C", "A+D"])
    with pytest.raises(ValueError, match="no rated partnership A \\+ B"):
        ratings.predict(pairs, ["A+B", "C+D"])


def test_partnerships_are_rated_pair_against_pair():
    t = _results([
        {"game_id": "g1", "players": ["A", "B", "C", "D"], "winner": 0},
        {"game_id": "g2", "players": ["C", "D", "A", "B"], "winner": 1},     # the same pairs, seats swapped
        {"game_id": "g3", "players": ["A", "B"], "winner": 0},               # no partnerships: not rated
    ])
    got = ratings.rate(t, partnerships=True)
    m = PlackettLuce()
    ac, bd = m.rating(), m.rating()
    [[ac], [bd]] = m.rate([[ac], [bd]], ranks=[0, 1])
    [[bd], [ac]] = m.rate([[bd], [ac]], ranks=[0, 1])      # g2: team 0 = C+A, team 1 = D+B wins
    assert (got.entities[(("A", "C"), "club")].rating.mu, got.entities[(("B", "D"), "club")].rating.mu) \
        == (ac.mu, bd.mu)
    assert got.rated == 2 and got.skipped == {"no partnerships (a 2- or 3-player game)": 1}
    board = ratings.leaderboard(got)
    assert board.column_names[:3] == ["rank", "player_a", "player_b"]


def test_a_team_of_bots_named_on_both_seats_is_one_member_and_self_play_is_not_rated():
    # colver names each seat by its team's pair of bots: [X, Y, X, Y] is X against Y
    t = _results([
        {"game_id": "g1", "players": ["X", "Y", "X", "Y"], "winner": 1},
        {"game_id": "g2", "players": ["X", "X", "X", "X"], "winner": 0},
        {"game_id": "g3", "players": ["X", "Y", None, "Y"], "winner": 0},
        {"game_id": "g4", "players": ["X", "Y", "X", "Y"], "winner": None},
    ])
    got = ratings.rate(t)
    m = PlackettLuce()
    x, y = m.rating(), m.rating()
    [[x], [y]] = m.rate([[x], [y]], ranks=[1, 0])
    assert (got.entities[(("X",), "club")].rating.mu, got.entities[(("Y",), "club")].rating.mu) == (x.mu, y.mu)
    assert got.skipped == {"a name on both teams": 1, "a seat without a name": 1, "unfinished (no winner)": 1}
    # the partnerships board names such a team's one name twice, as queries/partnerships.sql names the pair
    # (player_a = player_b = the bot), so the two boards list the same pairs; it was (X, None) before
    pairs = ratings.rate(t, partnerships=True)
    board = ratings.leaderboard(pairs).to_pylist()
    assert sorted((r["player_a"], r["player_b"]) for r in board) == [("X", "X"), ("Y", "Y")]
    assert [(r["player_a"], r["player_b"]) for r in ratings.board(pairs, players=["Y"]).to_pylist()] == [("Y", "Y")]


def test_history_prediction_and_calibration_are_the_librarys():
    games = [{"game_id": f"g{i}", "players": ["A", "B", "C", "D"], "winner": int(i % 3 == 0)} for i in range(1, 11)]
    t = _results(games)
    got = ratings.rate(t, history_of="A", hold_back=0.2)
    # the last 2 games (g9, g10) held back: rated on g1..g8, predicted from those ratings
    m = PlackettLuce()
    r = {p: m.rating() for p in "ABCD"}
    trail = []
    for g in games[:8]:
        w = g["winner"]
        [[r["A"], r["C"]], [r["B"], r["D"]]] = m.rate([[r["A"], r["C"]], [r["B"], r["D"]]],
                                                    ranks=[0 if w == 0 else 1, 0 if w == 1 else 1])
        trail.append(r["A"].mu)
    assert got.rated == 8 and [h["mu"] for h in got.history] == trail
    import math
    p = m.predict_win([[r["A"], r["C"]], [r["B"], r["D"]]])
    want = {"held_back_games": 2,
            "log_loss": (-math.log(p[1]) - math.log(p[0])) / 2,          # g9: team 1 won; g10: team 0
            "log_loss_even": math.log(2), "accuracy": 0.5,                # the same prediction twice: one right
            "brier": ((p[0] - 0) ** 2 + (p[0] - 1) ** 2) / 2, "brier_even": 0.25, "two_team_games": 2}
    assert got.calibration == pytest.approx(want, rel=1e-12, abs=0)
    hist = ratings.history_table(got)
    assert hist.column("game_no").to_pylist() == list(range(1, 9)) and hist.column("player")[0].as_py() == "A"
    pred = ratings.predict(got, ["A+C", "B+D"])
    assert pred.column("win_probability").to_pylist() == [round(x, 4) for x in p]
    with pytest.raises(ValueError, match="no rated player 'Z'"):
        ratings.predict(got, ["A+Z", "B+D"])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[bytes]:
    """Native lines of 6 classic games (two dated) and 3 three-player games."""
    lines = []
    for i, g in enumerate(simulate(load("belote-classic"), 6, 41)):
        if i < 2:
            g["played_at"] = f"2026-0{i + 1}-15T20:00:00Z"
        lines.append(orjson.dumps(g))
    lines += [orjson.dumps(g) for g in simulate(load("belote-3p"), 3, 42)]
    return lines


def _board(lake: Path) -> list[dict]:
    con = stats.connect(lake)
    try:
        return ratings.leaderboard(ratings.rate(ratings.game_results(con, "own"))).to_pylist()
    finally:
        con.close()


def test_the_ratings_do_not_depend_on_how_the_records_were_split_into_files(files, tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"\n".join(files) + b"\n")
    lake1 = tmp_path / "l1"
    ingest_paths([one], lake1)
    # the same games in three files, read in another order, in two imports
    parts = [files[5:], files[:2], files[2:5]]
    paths = []
    for i, p in enumerate(parts):
        paths.append(tmp_path / f"part{i}.jsonl")
        paths[-1].write_bytes(b"\n".join(p) + b"\n")
    lake2 = tmp_path / "l2"
    ingest_paths(paths[:1], lake2)
    ingest_paths(paths[1:], lake2)
    for lake in (lake1, lake2):
        from pipeline.rules import own
        rescore_lake(lake, own.plan(lake))
    b1, b2 = _board(lake1), _board(lake2)
    assert b1 == b2 and len(b1) > 0
    # every finished game rated: 6 classic and 3 three-player games
    con = stats.connect(lake1)
    try:
        got = ratings.rate(ratings.game_results(con, "own"))
        finished = con.execute("SELECT count(*) FROM game_scores WHERE ruleset = 'own' AND winner IS NOT NULL").fetchall()[0][0]
    finally:
        con.close()
    assert got.rated == finished and got.undated == finished - 2


def test_the_command(files, tmp_path):
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(files) + b"\n")
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    run = CliRunner().invoke
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == ["rank", "player", "source", "rating", "uncertainty", "ordinal", "games", "won", "last_played"]
    assert "games rated (" in r.stderr and "openskill PlackettLuce" in r.stderr
    name = rows[0]["player"]
    # pseudonymized, the real name given to --player stands for its pseudonym, as in the other reports (it was
    # "no rated player"); the row is the same but for the name, and so is the history
    from pipeline.stats.pseudonymize import pseudonym
    alias = pseudonym("pepper", rows[0]["source"], name)
    for given in (name, alias, f"{name}@{rows[0]['source']}"):
        r = run(app, ["stats", "ratings", "--lake", str(lake), "--player", given, "--pseudonymize", "pepper",
                      "--format", "csv"])
        assert r.exit_code == 0, r.output
        assert list(csv.DictReader(io.StringIO(r.stdout))) == [dict(rows[0], player=alias)], given
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--history", "--player", name, "--pseudonymize", "pepper",
                  "--format", "csv"])
    hist = list(csv.DictReader(io.StringIO(r.stdout)))
    assert r.exit_code == 0 and hist and {h["player"] for h in hist} == {alias}
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--history", "--player", name, "--format", "csv"])
    assert r.exit_code == 0 and list(csv.DictReader(io.StringIO(r.stdout)))[0]["player"] == name
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--history"])
    assert r.exit_code == 2 and "--history needs --player" in r.output
    # the calibration figures go beside the table (stderr): stdout stays CSV (a review found them in it)
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--calibration", "0.3", "--format", "csv"])
    assert r.exit_code == 0 and "calibration on the last" in r.stderr and "log-loss" in r.stderr
    assert list(csv.DictReader(io.StringIO(r.stdout)))[0]["rank"] == "1"
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--as-of", "soon"])
    assert r.exit_code == 2 and "--as-of: 'soon' is not a date" in " ".join(r.output.split())
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--history", "--player", f"{name}@nowhere"])
    assert r.exit_code == 2 and f"no rated player '{name}' in source 'nowhere'" in " ".join(r.output.split())
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--predict", "Nobody+Else", "--predict", "X+Y"])
    assert r.exit_code == 2 and "no rated player 'Nobody'" in r.output
    # as of January 31st: the one game played before then (the January game); the undated ones cannot be placed
    r = run(app, ["stats", "ratings", "--lake", str(lake), "--as-of", "2026-01-31", "--format", "csv"])
    assert r.exit_code == 0 and "ratings [own]: 1 game rated;" in " ".join(r.stderr.split())
    assert {row["games"] for row in csv.DictReader(io.StringIO(r.stdout))} == {"1"}
    # the warning about the undated games names the option given (it said --since/--until, not given)
    assert "left out by --as-of" in " ".join(r.stderr.split()) and "--until" not in r.stderr


def test_the_dashboard_file_holds_the_leaderboards(files, tmp_path):
    """export duckdb: report_ratings holds, per ruleset, the players' leaderboard and the partnerships', the same
    rows as `stats ratings` with and without --partnerships."""
    import duckdb

    from pipeline.report import dashboard
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(files) + b"\n")
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    from pipeline.rules import own
    rescore_lake(lake, own.plan(lake))
    dashboard.export_duckdb(lake, tmp_path / "d.duckdb", materialize=True)
    con = duckdb.connect(str(tmp_path / "d.duckdb"), read_only=True)
    try:
        rows = con.sql("SELECT * FROM report_ratings ORDER BY ruleset, kind, rank").to_arrow_table().to_pylist()
    finally:
        con.close()
    assert [c for c, _, _ in dashboard.RATINGS_COLUMNS] == list(rows[0])
    con = stats.connect(lake)
    try:
        results = ratings.game_results(con, "own")
    finally:
        con.close()
    players = ratings.leaderboard(ratings.rate(results)).to_pylist()
    pairs = ratings.leaderboard(ratings.rate(results, partnerships=True)).to_pylist()
    assert [r for r in rows if r["kind"] == "player"] == [
        dict(ruleset="own", kind="player", rank=p["rank"], player=p["player"], partner=None, source=p["source"],
             **{k: p[k] for k in ("rating", "uncertainty", "ordinal", "games", "won", "last_played")}) for p in players]
    assert [(r["player"], r["partner"], r["ordinal"]) for r in rows if r["kind"] == "partnership"] == [
        (p["player_a"], p["player_b"], p["ordinal"]) for p in pairs] and pairs


def test_a_player_filter_keeps_its_rows_rated_over_every_game(files, tmp_path):
    """export duckdb --player P and report --html --player P: P's rows, rated from every game of the other
    filters, as `stats ratings --player P` rates them (a report audit found them rated from P's games alone: the
    opponents' ratings, hence P's, moved, and P's rank with them)."""
    import duckdb

    from pipeline.report import dashboard, html_report
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"\n".join(files) + b"\n")
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    from pipeline.rules import own
    rescore_lake(lake, own.plan(lake))
    con = stats.connect(lake)
    try:
        results = ratings.game_results(con, "own")
        hands = con.sql("SELECT players FROM hands").fetchall()
    finally:
        con.close()
    players = ratings.rate(results)
    board = ratings.leaderboard(players).to_pylist()
    # a player of the classic games who did not sit in every one of them (so that the filter cuts games)
    name = next(r["player"] for r in board if sum(r["player"] in p for (p,) in hands) < len(hands))
    want = next(r for r in board if r["player"] == name)
    pick = stats.Filters(players=(name,))
    dashboard.export_duckdb(lake, tmp_path / "d.duckdb", materialize=True, filters=pick)
    c = duckdb.connect(str(tmp_path / "d.duckdb"), read_only=True)
    try:
        rows = c.sql("SELECT * FROM report_ratings WHERE ruleset = 'own' ORDER BY kind, rank").to_arrow_table().to_pylist()
        hist = c.sql("SELECT DISTINCT player FROM report_rating_history").fetchall()
    finally:
        c.close()
    mine = [r for r in rows if r["kind"] == "player"]
    assert [(r["rank"], r["player"], r["rating"], r["uncertainty"], r["games"]) for r in mine] == [
        (want["rank"], name, want["rating"], want["uncertainty"], want["games"])]
    assert all(name in (r["player"], r["partner"]) for r in rows) and hist == [(name,)]
    # the page's leaderboard: the one row, the same rank and rating (the section's table, tags stripped)
    text = html_report.build_html(lake, "own", pick)[0]
    table = text[text.index('id="table-ratings"'):]
    table = table[:table.index("</table>")]
    cells = [c.strip() for c in re.sub(r"<[^>]+>", "|", table.split("<tbody>")[1]).split("|") if c.strip()]
    assert cells[:6] == [str(want["rank"]), name, want["source"], f"{want['rating']:.2f}",
                         f"{want['uncertainty']:.2f}", f"{want['ordinal']:.2f}"]
    assert not any(r["player"] in cells for r in board if r["player"] != name)


def test_a_trail_is_bounded_and_evenly_spread():
    """history_points: the report's trails keep the first game and every stride-th, the stride doubling past
    twice the points asked for; the last RECENT games are kept whole, and the ratings are those of every game."""
    games = [{"game_id": f"g{i}", "players": ["A", "B"], "winner": i % 2} for i in range(1, 101)]
    t = _results(games)
    full = ratings.rate(t, history_of="A")
    thin = ratings.rate(t, history_of={"A", "B"}, history_points=10)
    trail = thin.trails[(("A",), "club")]
    assert trail[0] == 8 and [p[0] for p in trail[1:]] == [1] + list(range(8, 101, 8))
    mus = {i + 1: h["mu"] for i, h in enumerate(full.history)}
    assert all(mu == mus[n] for n, mu, _ in trail[1:])
    assert [r["game_id"] for r in thin.recent[(("A",), "club")]] == [f"g{i}" for i in range(91, 101)]
    assert thin.entities[(("A",), "club")].rating.mu == full.entities[(("A",), "club")].rating.mu


def test_the_history_rounds_as_round_does_to_the_bit():
    # ratings._round3 rounds a column at once; it must give round(v, 3) exactly (the history table's digests are
    # pinned): exact halves of the third decimal (the binary value decides), values a hair from a half, negative
    # values and zeros, huge values, NaN and infinities, and random ratings-like values.
    import random

    rng = random.Random(3)
    edge = [0.0, -0.0, 0.0005, 0.0015, 0.0025, 1.2345, 2.675, -2.675, -0.0004, 0.4995, 1e-9, -1e-9, 123.4565,
            24.9995, 1e15 + 0.5, -1e300, float("nan"), float("inf"), -float("inf")]
    edge += [k / 1000 + d for k in range(-3000, 3000, 7) for d in (0.0005, -0.0005, 5e-13, -5e-13)]
    values = edge + [rng.uniform(-60, 90) for _ in range(200_000)] + [rng.uniform(0, 9) for _ in range(50_000)]
    got = ratings._round3(values)
    want = np.array([round(v, 3) for v in values], np.float64)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), [(v, g, w) for v, g, w, ok in zip(values, got, want, same) if not ok][:5]
