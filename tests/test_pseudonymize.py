"""Pseudonymization (pipeline/stats/pseudonymize.py) in the stats views, every report, fairness and the JSON Lines
export: names gone, pseudonyms stable and consistent between tables, another salt gives others, numbers
unchanged.

The lake is simulated (tests/helpers.simulated_lake): 4 classic games from source 'club', 2 contrée games
from source 'online', rescored under belote-classic and colver.
"""

from __future__ import annotations

import json

import orjson
import pytest
from typer.testing import CliRunner

from helpers import simulated_lake
from pipeline.stats import reports as stats
from pipeline.cli import app
from pipeline.report.export import export_jsonl
from pipeline.stats.fairness import fairness_report
from pipeline.stats.pseudonymize import ERROR_REMOVED, Pseudonymizer, keyed, pseudonym
from pipeline.simulate.games import PLAYERS

SALT = "pepper"
REPORTS = ("players", "partnerships", "head_to_head", "contracts", "declarations", "audit")
runner = CliRunner()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return simulated_lake(tmp_path_factory.mktemp("pseudo") / "lake")


def _names_in(obj) -> set[str]:
    """Simulated player names found anywhere in the text of ``obj``."""
    text = json.dumps(obj, default=str, ensure_ascii=False)
    return {n for n in PLAYERS if n in text}


def test_pseudonym_values():
    # HMAC-SHA256 computed independently with OpenSSL:
    #   printf 'club\x1fBruno' | openssl dgst -sha256 -hmac pepper  -> f8fab9798b99 29ac...
    #   printf 'online\x1fBruno' | openssl dgst -sha256 -hmac pepper -> 7ddb1a41252b 4532...
    #   printf 'club\x1fBruno' | openssl dgst -sha256 -hmac salt2   -> fbb945639cfc 5f07...
    #   printf 'club\x1fChloé' | openssl dgst -sha256 -hmac pepper  -> c9c825922721 a94d... (UTF-8)
    assert pseudonym(SALT, "club", "Bruno") == "p_f8fab9798b99"
    assert pseudonym(SALT, "online", "Bruno") == "p_7ddb1a41252b"
    assert pseudonym("salt2", "club", "Bruno") == "p_fbb945639cfc"
    assert pseudonym(SALT, "club", "Chloé") == "p_c9c825922721"
    with pytest.raises(ValueError, match="salt"):
        pseudonym("", "club", "Bruno")
    p = Pseudonymizer(SALT)
    assert p.names("club", ["Bruno", None]) == ["p_f8fab9798b99", None] and p.names("club", None) is None
    assert p.expand(["club", "online"], ["Bruno"]) == ("Bruno", "p_7ddb1a41252b", "p_f8fab9798b99")


def test_views_hold_only_pseudonyms(lake):
    con = stats.connect(lake, stats.Filters(pseudonymize=SALT))
    raw = stats.connect(lake)
    try:
        for view in ("hands", "games", "seats", "rejects"):
            rows = con.sql(f"SELECT * FROM {view}").to_arrow_table().to_pylist()
            assert rows or view == "rejects"
            assert _names_in(rows) == set(), view
        # consistent between tables: seats.player, seats.partner, hands.players and games.players are the
        # pseudonyms of the real names at the same place
        # (hand keys re-keyed with the salt, pipeline.stats.pseudonymize.keyed)
        got = con.sql("SELECT hand_key, seat, player, partner FROM seats ORDER BY ALL").fetchall()
        want = raw.sql("SELECT hand_key, seat, source, player, partner FROM seats").fetchall()
        assert got == sorted((keyed(SALT, k), s, pseudonym(SALT, src, p), pseudonym(SALT, src, q) if q else None)
                             for k, s, src, p, q in want)
        games = con.sql("SELECT game_id, players FROM games ORDER BY game_id").fetchall()
        raw_games = raw.sql("SELECT game_id, source, players FROM games ORDER BY game_id").fetchall()
        # game ids keyed too (a game id may be made of names: issue 18), alike in every table
        assert games == sorted((keyed(SALT, g), [pseudonym(SALT, s, p) for p in ps]) for g, s, ps in raw_games)
        assert con.execute("SELECT count(*) FROM hands WHERE game_id NOT IN (SELECT game_id FROM games)").fetchone() == (0,)
    finally:
        con.close()
        raw.close()


def test_every_report_same_numbers_with_pseudonyms(lake):
    salts = {"plain": None, "pseudo": SALT, "again": SALT, "other": "another salt"}   # again: a second connection
    cons = {k: (stats.connect(lake, stats.Filters(pseudonymize=v)), stats.Filters(pseudonymize=v))
            for k, v in salts.items()}
    try:
        _compare_reports(cons)
    finally:
        for con, _ in cons.values():
            con.close()


def _compare_reports(cons):
    for ruleset in ("belote-classic", "colver"):
        for name in REPORTS:
            plain, pseudo, again, other = (stats.run_report_on(con, name, ruleset, f)
                                           for con, f in (cons[k] for k in ("plain", "pseudo", "again", "other")))
            assert pseudo.equals(again), f"{name}: pseudonyms not stable across runs"
            assert _names_in(pseudo.to_pylist()) == set(), name
            assert pseudo.num_rows == plain.num_rows
            names = [c for c in plain.column_names if c in ("player", "player_a", "player_b", "pair_a_1",
                                                            "pair_a_2", "pair_b_1", "pair_b_2")]
            if not names:
                assert pseudo.equals(plain), name      # contracts, declarations, audit: no names at all
                continue
            # numbers unchanged: the same multiset of rows once names are mapped to their pseudonyms (rows
            # may come in another order: the reports sort by name; pair columns re-sort by pseudonym)
            if name == "head_to_head":
                # which pair is 'a' depends on the names' order: compare each match-up as {pair: games won}
                def matchups(t, rename):
                    return sorted(json.dumps([r["source"], r["games"], r["finished"], sorted([
                        [sorted(rename(r["source"], r[f"pair_{x}_{i}"]) for i in (1, 2)), r[f"{x}_won"]]
                        for x in ("a", "b")])]) for r in t.to_pylist())
                assert matchups(plain, lambda s, n: pseudonym(SALT, s, n)) == matchups(pseudo, lambda s, n: n)
                continue
            numbers = [c for c in plain.column_names if c not in names]
            key = lambda r: json.dumps([r[c] for c in numbers], default=str)  # noqa: E731
            assert sorted(map(key, plain.to_pylist())) == sorted(map(key, pseudo.to_pylist())), name
            if "player" in names:
                mapped = {(pseudonym(SALT, r["source"], r["player"]), r["source"]): key(r) for r in plain.to_pylist()}
                assert {(r["player"], r["source"]): key(r) for r in pseudo.to_pylist()} == mapped
            other_names = {r[c] for r in other.to_pylist() for c in names}
            assert other_names.isdisjoint({r[c] for r in pseudo.to_pylist() for c in names})


def test_ratings_are_the_same_with_pseudonyms(lake):
    # docs/reports.md (Pseudonyms): the numbers do not change. The ratings rate games without a time in the natural
    # order of their ids, which pseudonyms key: the views keep the stored ids' order (_game_order), so every
    # player's and partnership's rating, uncertainty, games and wins are the same, to the bit
    from pipeline.stats import ratings

    for partnerships in (False, True):
        got = {}
        for salt in (None, SALT):
            con = stats.connect(lake, stats.Filters(pseudonymize=salt))
            summary = ratings.rate(ratings.game_results(con, "belote-classic"), partnerships=partnerships)
            got[salt] = {(frozenset(n if salt else pseudonym(SALT, e.source, n) for n in e.names), e.source):
                         (e.rating.mu, e.rating.sigma, e.games, e.won) for e in summary.entities.values()}
        assert got[None] == got[SALT] and len(got[None]) >= 4


def test_player_filter_accepts_names_and_pseudonyms(lake):
    p = pseudonym(SALT, "club", "Bruno")
    plain = stats.run_report(lake, "players", "belote-classic", stats.Filters(players=("Bruno",)))
    by_name = stats.run_report(lake, "players", "belote-classic", stats.Filters(players=("Bruno",), pseudonymize=SALT))
    by_pseudonym = stats.run_report(lake, "players", "belote-classic", stats.Filters(players=(p,), pseudonymize=SALT))
    # Bruno plays in both sources of the simulated lake: two rows, one per source
    assert [r["source"] for r in plain.to_pylist()] == ["club", "online"]
    assert [r["player"] for r in by_name.to_pylist()] == [p, pseudonym(SALT, "online", "Bruno")]
    assert [r["player"] for r in by_pseudonym.to_pylist()] == [p]     # a pseudonym is per source
    assert by_name.drop_columns(["player"]).equals(plain.drop_columns(["player"]))


def test_fairness_by_player(lake):
    plain = {(r["group"], r["event"]): r for r in fairness_report(lake, "player").to_pylist()}
    pseudo = fairness_report(lake, "player", filters=stats.Filters(pseudonymize=SALT)).to_pylist()
    assert _names_in(pseudo) == set()
    # fairness groups by the name alone (not per source): the pseudonyms split a name that plays in two
    # sources, so compare per source-free name only where the name has one source
    con = stats.connect(lake)
    sources = dict(con.sql("SELECT player, list(DISTINCT source) FROM seats GROUP BY 1").fetchall())
    con.close()
    single = {n: s[0] for n, s in sources.items() if len(s) == 1}
    for name, src in single.items():
        for event in ("carre_any", "void", "trump_J9"):
            r = next(x for x in pseudo if x["group"] == pseudonym(SALT, src, name) and x["event"] == event)
            assert (r["hands"], r["observed"]) == (plain[(name, event)]["hands"], plain[(name, event)]["observed"])


def test_export_jsonl_pseudonymized(lake, tmp_path):
    out = tmp_path / "p.jsonl"
    with out.open("wb") as f:
        games, hands = export_jsonl(lake, f, pseudonymize=SALT)
    with (tmp_path / "plain.jsonl").open("wb") as f:
        assert export_jsonl(lake, f) == (games, hands) == (6, 61)   # 4 + 2 games; 36 + 25 hands (ingest summary)
    objs = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    plain = [orjson.loads(x) for x in (tmp_path / "plain.jsonl").read_bytes().splitlines()]
    assert _names_in(objs) == set()
    for o, p in zip(objs, plain):
        # what the plain export says with names pseudonymized, identifiers and file names keyed, error texts
        # removed (pipeline.stats.pseudonymize.ID_COLUMNS, ERROR_REMOVED); everything else the same
        p["players"] = [pseudonym(SALT, p["source"], n) for n in p["players"]]
        p["game_id"], p["source_game_id"] = keyed(SALT, p["game_id"]), keyed(SALT, p["source_game_id"])
        p["provenance"]["source_file"] = keyed(SALT, p["provenance"]["source_file"])
        for h in p["hands"]:
            h["source_hand_id"] = None if h["source_hand_id"] is None else keyed(SALT, h["source_hand_id"])
            h["errors"] = [ERROR_REMOVED] * len(h["errors"])
        assert o == p


def test_cli_pseudonymize(lake, tmp_path):
    r = runner.invoke(app, ["stats", "players", "--lake", str(lake), "--rules", "colver", "--format", "json",
                            "--pseudonymize", SALT])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert _names_in(rows) == set() and {x["player"] for x in rows} >= {pseudonym(SALT, "online", "Bruno")}
    r = runner.invoke(app, ["stats", "fairness", "--lake", str(lake), "--by", "player", "--format", "json",
                            "--pseudonymize", SALT])
    assert r.exit_code == 0, r.output
    assert _names_in(json.loads(r.stdout)) == set()
    r = runner.invoke(app, ["export", "--format", "jsonl", "--lake", str(lake), "--pseudonymize", SALT,
                            "-o", str(tmp_path / "x.jsonl")])
    assert r.exit_code == 0 and "(pseudonymized)" in r.stderr
    assert _names_in(tmp_path.joinpath("x.jsonl").read_text()) == set()
    r = runner.invoke(app, ["stats", "players", "--lake", str(lake), "--pseudonymize", ""])
    assert r.exit_code == 2 and "salt" in r.stderr
