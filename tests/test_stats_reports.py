"""Tests of the reports partnerships, head_to_head, contracts and audit (queries/) over a tiny hand-made lake.

The lake (source 'colver', ruleset 'belote-classic'; values are made up, consistent enough for the reports):

  game colver:g1, seats [Alice, Bob, Carol, Dave] -> team 0 = Alice+Carol, team 1 = Bob+Dave; winner team 0
    h1 taker Alice (s0, t0) H 80          scored, MADE    cp [92, 70]   score [90, 70]   rec [90, 70]    match
    h2 taker Bob   (s1, t1) S 100 coinche scored, FAILED  cp [82, 80]   score [360, 0]   rec [320, 0]    MISMATCH
                                                          rec cards [82, 80] = cards [82, 80]
    h3 passed out                         passed_out                    score [0, 0]     rec [0, 0]      match
    h4 taker Carol (s2, t0) H 80          scored, MADE    cp [252, 0]   score [330, 0]   rec [330, 0]    match
                                                          capot by team 0 (the taker's)
  game colver:g2, seats [Bob, Alice, Dave, Carol] -> team 0 = Bob+Dave, team 1 = Alice+Carol; winner team 0
    h1 taker Dave  (s2, t0) NT capot bid  scored, FAILED  cp [10, 152]  score [0, 500]   rec [0, 500]    match
    h2 taker Bob   (s0, t0) S 100 coinche scored, MADE    cp [122, 40]  score [360, 0]   rec [350, 0]    MISMATCH
                                                          rec cards [112, 50] != cards [122, 40]
    h3 taker Carol (s3, t1) H 80          scored, LITIGE  cp [81, 81]   score [80, 0]    no record
  game colver:g3, seats [Alice, Bob, Dave, Carol] -> team 0 = Alice+Dave, team 1 = Bob+Carol; no winner
    h1 taker Carol (s3, t1) H take        unscorable                    score NULL       no record
    h2 taker Dave  (s2, t0) H 90 surcoin. scored, MADE    cp [101, 61]  score [740, 0]   rec margin +700 MISMATCH
                                                          (margin-only source, no recorded card points)
    h3 passed out                         passed_out                    score [0, 0]     rec [0, 20]     MISMATCH
  game colver:g4, 3 players [Alice, Bob, Carol] (not scored under the 4-player ruleset: no score row)
    h1 taker Bob (s1) C take
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from helpers import record_version
from pipeline.storage import schema
from pipeline.stats import reports as stats
RULES = "belote-classic"
G1 = ["Alice", "Bob", "Carol", "Dave"]
G2 = ["Bob", "Alice", "Dave", "Carol"]
G3 = ["Alice", "Bob", "Dave", "Carol"]
G4 = ["Alice", "Bob", "Carol"]


def _default(typ: pa.DataType):
    """A value for a non-nullable column the test does not set (so new schema columns do not break it)."""
    if pa.types.is_boolean(typ):
        return False
    if pa.types.is_integer(typ):
        return 0
    if pa.types.is_list(typ):
        return []
    return ""


def _rows(table: str, rows: list[dict]) -> pa.Table:
    """Rows (dicts of some columns) -> table conformed to ``table``'s schema; other columns NULL (or a
    neutral value when not nullable)."""
    sch = schema.schema(table)
    cols = {}
    for f in sch:
        values = [r.get(f.name) for r in rows]
        if not f.nullable:
            values = [_default(f.type) if v is None else v for v in values]
        cols[f.name] = pa.array(values, f.type)
    return schema.conform(table, pa.table(cols))


def _write(lake: Path, table: str, rows: list[dict]) -> None:
    """Append rows as hive partitions LAKE/<table>/<key>=<value>/part-<n>.parquet (partition column kept)."""
    data = _rows(table, rows)
    keys = schema.partition_columns(table)
    parts = [(lake / table, data)]
    if keys:
        (key,) = keys
        parts = [(lake / table / f"{key}={v}", data.filter(pc.equal(data.column(key), v)))
                 for v in sorted(set(data.column(key).to_pylist()))]
    for folder, part in parts:
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(part, folder / f"part-{len(list(folder.glob('part-*.parquet')))}.parquet")
    record_version(lake)


def _hand(game: str, no: int, players: list[str], taker: int | None, strain: str | None = None,
          bid: int | None = None, *, capot_bid: bool = False, coinche: int = 0, rec=None, rec_cards=None,
          rec_margin=None, source: str = "colver") -> dict:
    return {
        "hand_key": f"{source}:{game}#{no}", "game_id": f"{source}:{game}", "hand_no": no, "source": source,
        "source_format": "test", "source_file": "test.jsonl", "source_game_id": game,
        "variant": "belote" if len(players) == 4 else "belote-3p", "n_players": len(players),
        "players": players, "dealer": 0, "completeness": "full_play", "auction": [], "taker": taker,
        "strain": strain, "bid": bid, "capot_bid": capot_bid, "coinche": coinche, "errors": [],
        "recorded_score": rec, "recorded_card_points": rec_cards, "recorded_margin": rec_margin,
    }


def _score(game: str, no: int, status: str, taker_team: int | None, hand_score, *, made=None, litige=False,
           cp=None, capot_team=None, match=None, source: str = "colver", ruleset: str = RULES) -> dict:
    return {
        "ruleset": ruleset, "hand_key": f"{source}:{game}#{no}", "game_id": f"{source}:{game}", "hand_no": no,
        "source": source, "status": status, "taker_team": taker_team, "hand_score": hand_score,
        "contract_made": made, "litige": litige, "contract_points": cp, "card_points": cp,
        "capot_team": capot_team, "held_points": 80 if litige else 0, "matches_recorded": match,
    }


def _game(game: str, players: list[str], n_hands: int, source: str = "colver") -> dict:
    return {
        "game_id": f"{source}:{game}", "source": source, "source_format": "test", "source_file": "test.jsonl",
        "source_game_id": game, "variant": "belote" if len(players) == 4 else "belote-3p",
        "n_players": len(players), "players": players, "n_hands": n_hands, "game_key": f"key-{source}-{game}",
    }


def _game_score(game: str, winner: int | None, source: str = "colver") -> dict:
    return {"ruleset": RULES, "game_id": f"{source}:{game}", "source": source, "n_hands": 3, "totals": [0, 0],
            "winner": winner, "unresolved_held": 0}


HANDS = [
    _hand("g1", 1, G1, 0, "H", 80, rec=[90, 70], rec_cards=[92, 70]),
    # Carol (seat 2) coinched Bob's 100 S, which failed
    dict(_hand("g1", 2, G1, 1, "S", 100, coinche=1, rec=[320, 0], rec_cards=[82, 80]),
         auction=[{"seat": 1, "call": "100S"}, {"seat": 2, "call": "coinche"}, {"seat": 3, "call": "pass"}]),
    _hand("g1", 3, G1, None, rec=[0, 0]),
    _hand("g1", 4, G1, 2, "H", 80, rec=[330, 0], rec_cards=[252, 0]),
    _hand("g2", 1, G2, 2, "NT", capot_bid=True, rec=[0, 500], rec_cards=[10, 152]),
    # Alice (seat 1 in g2) coinched Bob's 100 S, which was made
    dict(_hand("g2", 2, G2, 0, "S", 100, coinche=1, rec=[350, 0], rec_cards=[112, 50]),
         auction=[{"seat": 0, "call": "100S"}, {"seat": 1, "call": "coinche"}]),
    _hand("g2", 3, G2, 3, "H", 80),
    _hand("g3", 1, G3, 3, "H"),
    _hand("g3", 2, G3, 2, "H", 90, coinche=2, rec_margin=700),
    _hand("g3", 3, G3, None, rec=[0, 20]),
    _hand("g4", 1, G4, 1, "C"),
]
SCORES = [
    _score("g1", 1, "scored", 0, [90, 70], made=True, cp=[92, 70], match=True),
    _score("g1", 2, "scored", 1, [360, 0], made=False, cp=[82, 80], match=False),
    _score("g1", 3, "passed_out", None, [0, 0], match=True),
    _score("g1", 4, "scored", 0, [330, 0], made=True, cp=[252, 0], capot_team=0, match=True),
    _score("g2", 1, "scored", 0, [0, 500], made=False, cp=[10, 152], match=True),
    _score("g2", 2, "scored", 0, [360, 0], made=True, cp=[122, 40], match=False),
    _score("g2", 3, "scored", 1, [80, 0], litige=True, cp=[81, 81]),
    _score("g3", 1, "unscorable", 1, None),
    _score("g3", 2, "scored", 0, [740, 0], made=True, cp=[101, 61], match=False),
    _score("g3", 3, "passed_out", None, [0, 0], match=False),
]
GAMES = [_game("g1", G1, 4), _game("g2", G2, 3), _game("g3", G3, 3), _game("g4", G4, 1)]
GAME_SCORES = [_game_score("g1", 0), _game_score("g2", 0), _game_score("g3", None)]


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    lake = tmp_path / "lake"
    _write(lake, "hands", HANDS)
    _write(lake, "games", GAMES)
    _write(lake, "scores", SCORES)
    _write(lake, "game_scores", GAME_SCORES)
    return lake


def _add_bots(lake: Path) -> None:
    """Source 'sim', game b1: four seats named 'Bot' (the same pair on both teams), one hand taken by seat 1
    (team 1) and made, score [10, 150]; team 1 wins the game."""
    bots = ["Bot"] * 4
    _write(lake, "hands", [_hand("b1", 1, bots, 1, "H", 80, source="sim")])
    _write(lake, "games", [_game("b1", bots, 1, source="sim")])
    _write(lake, "scores", [_score("b1", 1, "scored", 1, [10, 150], made=True, cp=[12, 150], source="sim")])
    _write(lake, "game_scores", [_game_score("b1", 1, source="sim")])


REPORTS = ("partnerships", "head_to_head", "contracts", "audit")


def test_reports_are_listed_and_documented(lake: Path):
    assert set(REPORTS) <= set(stats.list_reports())
    for name in REPORTS:
        assert stats.report_params(name) == ["ruleset"]
        assert "$ruleset" in stats.report_doc(name)
        table = stats.run_report(lake, name, RULES)
        display = stats.display_columns(name)
        assert display and set(display) <= set(table.column_names), name
        # every column is documented in the header
        doc = stats.report_doc(name)
        assert all(c in doc for c in table.column_names), name


# ---------------------------------------------------------------------------------------------- partnerships

PARTNERSHIP_COLUMNS = ["ruleset", "player_a", "player_b", "source", "games", "hands", "taken", "take_rate", "made",
                       "decided", "made_of", "taker_litiges", "points", "points_hands", "points_per_hand", "won",
                       "finished", "won_of"]

EXPECTED_PARTNERSHIPS = [
    # Alice+Carol: team 0 in g1 (4 hands), team 1 in g2 (3 hands) -> 2 games, 7 hands. Took g1h1 (Alice, made),
    # g1h4 (Carol, made), g2h3 (Carol, litige): taken 3, 3/7 = 0.4286, made 2/2, 1 litige.
    # Points: g1 team 0 90+360+0+330 = 780, g2 team 1 500+0+0 = 500 -> 1280 / 7 = 182.857.
    # Games: g1 won (winner 0 = their team 0), g2 lost (winner 0, they were team 1) -> 1/2.
    dict(player_a="Alice", player_b="Carol", games=2, hands=7, taken=3, take_rate=0.4286, made=2, decided=2,
         made_of="2/2", taker_litiges=1, points=1280, points_hands=7, points_per_hand=182.86, won=1, finished=2,
         won_of="1/2"),
    # Bob+Dave: team 1 in g1, team 0 in g2 -> 2 games, 7 hands. Took g1h2 (Bob, failed), g2h1 (Dave, capot bid
    # failed), g2h2 (Bob, made): 3/7, made 1/3. Points: g1 team 1 70+0+0+0 = 70, g2 team 0 0+360+80 = 440
    # -> 510 / 7 = 72.857. Games: g1 lost, g2 won -> 1/2.
    dict(player_a="Bob", player_b="Dave", games=2, hands=7, taken=3, take_rate=0.4286, made=1, decided=3,
         made_of="1/3", taker_litiges=0, points=510, points_hands=7, points_per_hand=72.86, won=1, finished=2,
         won_of="1/2"),
    # Alice+Dave: team 0 in g3 -> 1 game, 3 hands. Took g3h2 (Dave, made): 1/3, made 1/1.
    # Points: g3h1 unscorable (no score), g3h2 740, g3h3 0 -> 740 / 2 = 370. g3 has no winner -> 0/0.
    dict(player_a="Alice", player_b="Dave", games=1, hands=3, taken=1, take_rate=0.3333, made=1, decided=1,
         made_of="1/1", taker_litiges=0, points=740, points_hands=2, points_per_hand=370.0, won=0, finished=0,
         won_of="0/0"),
    # Bob+Carol: team 1 in g3 -> 1 game, 3 hands. Took g3h1 (Carol, unscorable: not decided): 1/3, made 0/0.
    # Points: g3h2 0, g3h3 0 over 2 hands = 0. No winner -> 0/0.
    dict(player_a="Bob", player_b="Carol", games=1, hands=3, taken=1, take_rate=0.3333, made=0, decided=0,
         made_of="0/0", taker_litiges=0, points=0, points_hands=2, points_per_hand=0.0, won=0, finished=0,
         won_of="0/0"),
    # g4 is a 3-player game: no partners, no row.
]


def test_partnerships_report(lake: Path):
    table = stats.run_report(lake, "partnerships", RULES)
    assert table.column_names[:len(PARTNERSHIP_COLUMNS)] == PARTNERSHIP_COLUMNS
    assert table.select(PARTNERSHIP_COLUMNS).to_pylist() == [dict(ruleset=RULES, source="colver", **row)
                                                             for row in EXPECTED_PARTNERSHIPS]
    # each rate with its 95 % Wilson interval, from the counts above (formula written out in _wilson)
    for r in table.to_pylist():
        assert (r["take_rate_lo"], r["take_rate_hi"]) == _wilson(r["taken"], r["hands"])
        assert (r["made_rate_lo"], r["made_rate_hi"]) == (_wilson(r["made"], r["decided"]) if r["decided"] else (None, None))
        assert (r["win_rate_lo"], r["win_rate_hi"]) == (_wilson(r["won"], r["finished"]) if r["finished"] else (None, None))
    for col in ("games", "hands", "taken", "made", "decided", "taker_litiges", "points", "points_hands", "won",
                "finished"):
        assert pa.types.is_integer(table.schema.field(col).type), col


def test_a_name_on_both_teams_has_no_capot_and_no_result(lake: Path):
    # queries/players.sql capots_made / capots_suffered: four 'Bot' seats, seat 1 (team 1) takes every trick.
    # Bot sat on both teams: it made the capot and suffered it, so, as its game, the capot has no result for it:
    # 0 made, 0 suffered (it was 1 and 1, one capot counted as two events: a report audit), and the game is
    # neither won nor finished.
    bots = ["Bot"] * 4
    _write(lake, "hands", [_hand("b2", 1, bots, 1, "H", 80, source="sim")])
    _write(lake, "games", [_game("b2", bots, 1, source="sim")])
    _write(lake, "scores", [_score("b2", 1, "scored", 1, [0, 412], made=True, cp=[0, 252], capot_team=1,
                                   source="sim")])
    _write(lake, "game_scores", [_game_score("b2", 1, source="sim")])
    (bot,) = [r for r in stats.run_report(lake, "players", RULES).to_pylist() if r["player"] == "Bot"]
    assert (bot["capots_made"], bot["capots_suffered"], bot["won"], bot["finished"]) == (0, 0, 0, 0)
    # nor points: [0, 412] are both its teams' (it had team 0's 0 as its own, in points_hands, before a new-user
    # trial found a bot label credited with one side's totals: layout version 10); the hand and the take count
    assert (bot["hands"], bot["taken"], bot["points"], bot["points_hands"], bot["points_per_hand"],
            bot["taker_points_per_hand"], bot["defender_points_per_hand"]) == (1, 1, 0, 0, None, None, None)


def test_partnerships_same_pair_on_both_teams(lake: Path):
    # four 'Bot' seats: the pair Bot+Bot is on both teams of the hand; the hand counts once, taken (team 1 took)
    # and made, with no points (both teams' [10, 150] are its own; it had team 0's 10 before a new-user trial:
    # layout version 10); the game has no result for it (it won and lost it): in games, not in won or finished
    # (it counted as won before another new-user trial: such bots won every game).
    _add_bots(lake)
    rows = stats.run_report(lake, "partnerships", RULES).to_pylist()
    assert rows[-1] == dict(ruleset=RULES, player_a="Bot", player_b="Bot", source="sim", games=1, hands=1, taken=1,
                            take_rate=1.0, made=1, decided=1, made_of="1/1", taker_litiges=0, points=0,
                            points_hands=0, points_per_hand=None, won=0, finished=0, won_of="0/0",
                            take_rate_lo=_wilson(1, 1)[0], take_rate_hi=1.0, made_rate=1.0,
                            made_rate_lo=_wilson(1, 1)[0], made_rate_hi=1.0, win_rate_lo=None,
                            win_rate_hi=None)
    # a source filter keeps only its pairs
    only = stats.run_report(lake, "partnerships", RULES, stats.Filters(sources=("sim",))).to_pylist()
    assert [(r["player_a"], r["player_b"]) for r in only] == [("Bot", "Bot")]


# ---------------------------------------------------------------------------------------------- head to head

H2H_COLUMNS = ["ruleset", "pair_a", "pair_b", "pair_a_1", "pair_a_2", "pair_b_1", "pair_b_2", "source", "games",
               "finished", "a_won", "b_won", "result"]

EXPECTED_H2H = [
    # Alice+Carol (team 0 in g1, team 1 in g2) vs Bob+Dave (team 1 in g1, team 0 in g2): 2 games, both finished;
    # g1 won by team 0 = Alice+Carol, g2 won by team 0 = Bob+Dave -> 1-1.
    dict(pair_a="Alice & Carol", pair_b="Bob & Dave", pair_a_1="Alice", pair_a_2="Carol", pair_b_1="Bob",
         pair_b_2="Dave", games=2, finished=2, a_won=1, b_won=1, result="1-1"),
    # Alice+Dave vs Bob+Carol: g3, no winner.
    dict(pair_a="Alice & Dave", pair_b="Bob & Carol", pair_a_1="Alice", pair_a_2="Dave", pair_b_1="Bob",
         pair_b_2="Carol", games=1, finished=0, a_won=0, b_won=0, result="0-0"),
    # g4 (3 players): no pairs, no row.
]


def test_head_to_head_report(lake: Path):
    table = stats.run_report(lake, "head_to_head", RULES)
    assert table.column_names == H2H_COLUMNS
    assert table.to_pylist() == [dict(ruleset=RULES, source="colver", **row) for row in EXPECTED_H2H]
    # the bots' game: the same pair on both teams; pair A is team 0, so team 1's win is b_won
    _add_bots(lake)
    rows = stats.run_report(lake, "head_to_head", RULES).to_pylist()
    assert rows[-1] == dict(ruleset=RULES, pair_a="Bot & Bot", pair_b="Bot & Bot", pair_a_1="Bot", pair_a_2="Bot",
                            pair_b_1="Bot", pair_b_2="Bot", source="sim", games=1, finished=1, a_won=0, b_won=1,
                            result="0-1")


# ---------------------------------------------------------------------------------------------- contracts

CONTRACT_COLUMNS = ["ruleset", "strain", "level", "coinche", "contracts", "share", "made", "decided", "made_of",
                    "success_rate", "litiges", "unscored", "margin_hands", "avg_margin", "taker_capots"]

# 9 contracts (hands with a taker; the 3 passed-out hands are left out); share = contracts / 9.
EXPECTED_CONTRACTS = [
    # g4h1 (3 players, no score row): counted, but unscored.
    dict(strain="C", level="take", coinche=0, contracts=1, share=0.1111, made=0, decided=0, made_of="0/0",
         success_rate=None, litiges=0, unscored=1, margin_hands=0, avg_margin=None, taker_capots=0),
    # g3h1: a classic take (no bid), unscorable.
    dict(strain="H", level="take", coinche=0, contracts=1, share=0.1111, made=0, decided=0, made_of="0/0",
         success_rate=None, litiges=0, unscored=1, margin_hands=0, avg_margin=None, taker_capots=0),
    # g1h1 made (92 - 80 = +12), g1h4 made with a capot by the taker's team (252 - 80 = +172), g2h3 litige
    # (taker team 1: 81 - 80 = +1): 3/9 = 0.3333, made 2/2, margin (12 + 172 + 1) / 3 = 61.67.
    dict(strain="H", level="80", coinche=0, contracts=3, share=0.3333, made=2, decided=2, made_of="2/2",
         success_rate=1.0, litiges=1, unscored=0, margin_hands=3, avg_margin=61.67, taker_capots=1),
    # g3h2 surcoinched, made: 101 - 90 = +11.
    dict(strain="H", level="90", coinche=2, contracts=1, share=0.1111, made=1, decided=1, made_of="1/1",
         success_rate=1.0, litiges=0, unscored=0, margin_hands=1, avg_margin=11.0, taker_capots=0),
    # g1h2 coinched, failed (taker team 1: 80 - 100 = -20); g2h2 coinched, made (122 - 100 = +22):
    # made 1/2 = 0.5, margin (-20 + 22) / 2 = 1.
    dict(strain="S", level="100", coinche=1, contracts=2, share=0.2222, made=1, decided=2, made_of="1/2",
         success_rate=0.5, litiges=0, unscored=0, margin_hands=2, avg_margin=1.0, taker_capots=0),
    # g2h1 capot bid, failed: no bid value, so no margin; no capot.
    dict(strain="NT", level="capot", coinche=0, contracts=1, share=0.1111, made=0, decided=1, made_of="0/1",
         success_rate=0.0, litiges=0, unscored=0, margin_hands=0, avg_margin=None, taker_capots=0),
]


def test_contracts_report(lake: Path):
    table = stats.run_report(lake, "contracts", RULES)
    assert table.column_names == CONTRACT_COLUMNS
    assert table.to_pylist() == [dict(ruleset=RULES, **row) for row in EXPECTED_CONTRACTS]
    for col in ("contracts", "made", "decided", "litiges", "unscored", "margin_hands", "taker_capots"):
        assert pa.types.is_integer(table.schema.field(col).type), col


def test_contracts_margin_of_classic_takes(tmp_path: Path):
    """A classic take has no bid: its margin is the taker's total minus the defence's (FFB-B16 §10.1.1, rules.md
    R28: the takers must score strictly more than the defenders), as in the HTML report's margin chart."""
    from conftest import write_jsonl
    from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand

    from pipeline import rules

    from pipeline.report import report_data
    from pipeline.ingest.run import ingest_paths
    from pipeline.rescore import rescore_lake

    # three hearts takes by seat 0 (team 0), scores from tests/deals.py, under belote-classic (no declaration is
    # held in these deals; the belote counts in the total the made test compares):
    #   DEAL_A: 92 against 70 + 20 (the defence's belote) = 90: made, margin +2
    #   DEAL_L: 81 against 81: litige, margin 0
    #   DEAL_K: capot, 152 + 100 (last trick on a capot) + 20 (own belote) = 272 against 0: made, margin +272
    # avg_margin = (2 + 0 + 272) / 3 = 91.33
    f = write_jsonl(tmp_path / "takes.jsonl", [native_game("t", [native_hand(DEAL_A, 1, taker=0),
                                                                 native_hand(DEAL_L, 2, taker=0),
                                                                 native_hand(DEAL_K, 3, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, rules.load(RULES))
    (row,) = stats.run_report(lake, "contracts", RULES).to_pylist()
    assert (row["strain"], row["level"], row["contracts"], row["made_of"], row["litiges"]) == ("H", "take", 3, "2/2", 1)
    assert (row["margin_hands"], row["avg_margin"], row["taker_capots"]) == (3, 91.33, 1)
    # the HTML report's margins ('prise' series) are the same three values
    con = stats.connect(lake)
    try:
        got = sorted(v for k, v in con.execute(report_data.MARGIN_SQL, {"r": RULES}).fetchall() if k == "prise")
    finally:
        con.close()
    assert got == [0, 2, 272]


# ---------------------------------------------------------------------------------------------- audit

AUDIT_COLUMNS = ["ruleset", "game_id", "hand_no", "source", "status", "recorded_team0", "recorded_team1",
                 "recorded_margin", "rescored_team0", "rescored_team1", "rescored_margin", "recorded", "rescored",
                 "recorded_cards_team0", "recorded_cards_team1", "rescored_cards_team0", "rescored_cards_team1",
                 "component", "command"]


def _cmd(game: str, hand: int) -> str:
    return f"rebelote show --game colver:{game} --hand {hand} --rules {RULES}"


# matches_recorded = false: g1h2, g2h2, g3h2, g3h3 (g2h3 and g3h1 have no record: NULL, not listed).
EXPECTED_AUDIT = [
    # recorded 320 - 0, rescored 360 - 0; card points 82/80 both sides -> the award differs.
    dict(game_id="colver:g1", hand_no=2, status="scored", recorded_team0=320, recorded_team1=0, recorded_margin=320,
         rescored_team0=360, rescored_team1=0, rescored_margin=360, recorded="320 - 0", rescored="360 - 0",
         recorded_cards_team0=82, recorded_cards_team1=80, rescored_cards_team0=82, rescored_cards_team1=80,
         component="award/rounding/declarations", command=_cmd("g1", 2)),
    # recorded 350 - 0, rescored 360 - 0; card points 112/50 recorded vs 122/40 rescored -> card points.
    dict(game_id="colver:g2", hand_no=2, status="scored", recorded_team0=350, recorded_team1=0, recorded_margin=350,
         rescored_team0=360, rescored_team1=0, rescored_margin=360, recorded="350 - 0", rescored="360 - 0",
         recorded_cards_team0=112, recorded_cards_team1=50, rescored_cards_team0=122, rescored_cards_team1=40,
         component="card points", command=_cmd("g2", 2)),
    # margin-only source: recorded +700, rescored 740 - 0 = +740; no recorded card points -> unknown.
    dict(game_id="colver:g3", hand_no=2, status="scored", recorded_team0=None, recorded_team1=None,
         recorded_margin=700, rescored_team0=740, rescored_team1=0, rescored_margin=740, recorded="margin +700",
         rescored="margin +740", recorded_cards_team0=None, recorded_cards_team1=None, rescored_cards_team0=101,
         rescored_cards_team1=61, component="unknown", command=_cmd("g3", 2)),
    # passed out under the ruleset (0 - 0) but the source scored 0 - 20.
    dict(game_id="colver:g3", hand_no=3, status="passed_out", recorded_team0=0, recorded_team1=20,
         recorded_margin=-20, rescored_team0=0, rescored_team1=0, rescored_margin=0, recorded="0 - 20",
         rescored="0 - 0", recorded_cards_team0=None, recorded_cards_team1=None, rescored_cards_team0=None,
         rescored_cards_team1=None, component="passed out", command=_cmd("g3", 3)),
]


def test_audit_report(lake: Path):
    table = stats.run_report(lake, "audit", RULES)
    assert table.column_names == AUDIT_COLUMNS
    assert table.to_pylist() == [dict(ruleset=RULES, source="colver", **row) for row in EXPECTED_AUDIT]


def test_audit_command_is_shell_quoted(lake: Path):
    # a game id with a space and a quote: the command quotes it so a shell gives it back whole
    game = "O'Neil 1"
    _write(lake, "hands", [_hand(game, 1, G1, 0, "H", 80, rec=[90, 70], rec_cards=[92, 70])])
    _write(lake, "scores", [_score(game, 1, "scored", 0, [100, 62], made=True, cp=[92, 70], match=False)])
    rows = stats.run_report(lake, "audit", RULES).to_pylist()
    row = next(r for r in rows if r["game_id"] == "colver:O'Neil 1")
    assert row["component"] == "award/rounding/declarations"
    assert row["command"] == "rebelote show --game 'colver:O'\\''Neil 1' --hand 1 --rules belote-classic"
    assert shlex.split(row["command"]) == ["rebelote", "show", "--game", "colver:O'Neil 1", "--hand", "1",
                                           "--rules", "belote-classic"]


def test_audit_cli_commands_name_the_lake(lake: Path):
    # through the CLI with --lake, each `rebelote show` command ends with that lake, shell-quoted, so that it
    # finds the lake when pasted as it is; the other columns are the report's
    import json

    from typer.testing import CliRunner

    from pipeline import engine_version
    from pipeline.facts import derived
    from pipeline.cli import app
    from pipeline.rules import load

    # the scores written by hand recorded as a rescore records them (its parameters, the hand and game files it
    # read), so that the command reports them as they are instead of rescoring first
    rules = load(RULES)
    (lake / "scores" / f"ruleset={RULES}" / "_ruleset.json").write_text(json.dumps(
        {"name": RULES, "chain": list(rules.chain), "params": rules.params, "sources": rules.sources,
         "hands_files": derived.hands_snapshot(lake), "games_files": derived.hands_snapshot(lake, "games"),
         "hand_seq_files": None, engine_version.KEY: engine_version.ENGINE}, sort_keys=True))
    r = CliRunner().invoke(app, ["stats", "audit", "--lake", str(lake), "--rules", RULES, "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    expected = [dict(ruleset=RULES, source="colver", **row) for row in EXPECTED_AUDIT]
    assert [row["command"] for row in rows] == [e["command"] + f" --lake {shlex.quote(str(lake))}" for e in expected]
    assert [{k: v for k, v in row.items() if k != "command"} for row in rows] == [
        {k: v for k, v in e.items() if k != "command"} for e in expected]


def test_audit_other_ruleset_ignored(lake: Path):
    # a second ruleset whose scores all match: its audit is empty, and the first one's is unchanged
    _write(lake, "scores", [dict(s, ruleset="colver", matches_recorded=True) for s in SCORES])
    assert stats.run_report(lake, "audit", "colver").num_rows == 0
    assert len(stats.run_report(lake, "audit", RULES).to_pylist()) == len(EXPECTED_AUDIT)


def _wilson(x: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval (Wilson 1927), written out independently of the SQL macro."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def test_wilson_macro_against_published_value():
    # 0 successes in 10 trials: Wilson score interval 0 to 0.2775 (Newcombe 1998, Stat. Med. 17:857, method 3)
    con = duckdb.connect()
    stats.add_macros(con)
    assert con.execute("SELECT wilson_lo(0, 10), wilson_hi(0, 10), wilson_lo(3, 0)").fetchone() == (0.0, 0.2775, None)
    assert con.execute("SELECT wilson_lo(1, 6), wilson_hi(1, 6)").fetchone() == _wilson(1, 6)


def test_players_report_rates_strains_coinches_capots(lake: Path):
    # Hand-computed from the lake in the module docstring (seats and teams per game listed there).
    rows = {r["player"]: r for r in stats.run_report(lake, "players", RULES).to_pylist()}
    cols = ("taken", "hands", "made_suit_of", "made_nt_of", "made_at_of", "taker_points_per_hand",
            "defender_points_per_hand", "coinches", "coinches_won", "coinches_won_of", "capots_made",
            "capots_suffered", "declarations", "declarations_per_100", "mismatches_of")
    got = {p: tuple(rows[p][c] for c in cols) for p in rows}
    assert got == {
        # Alice: 11 hands (g1 4, g2 3, g3 3, g4 1); took g1h1 (H, made, her team scored 90). Defended g1h2 (360),
        # g2h1 (500), g2h2 (0): 860 / 3 = 286.67. Coinched g2h2, which was made. Team 0 capot in g1h4.
        # Recorded scores compared in g1 (4), g2h1-2, g3h2-3 = 8 hands; mismatches g1h2, g2h2, g3h2, g3h3 = 4.
        "Alice": (1, 11, "1/1", "0/0", "0/0", 90.0, 286.67, 1, 0, "0/1", 1, 0, 0, 0.0, "4/8"),
        # Bob: took g1h2 (S failed, team scored 0), g2h2 (S made, 360), g4h1 (3 players, not scored).
        # Defended g1h1 (70), g1h4 (0), g2h3 (80), g3h2 (0) = 37.5. Suffered the capot of g1h4.
        "Bob": (3, 11, "1/2", "0/0", "0/0", 180.0, 37.5, 0, 0, "0/0", 0, 1, 0, 0.0, "4/8"),
        # Carol: took g1h4 (made, 330), g2h3 (litige, her team 0), g3h1 (unscorable): (330 + 0) / 2 = 165.
        # Defended g1h2 (360), g2h1 (500), g2h2 (0), g3h2 (0) = 215. Coinched g1h2, which failed: won 1/1.
        "Carol": (3, 11, "1/1", "0/0", "0/0", 165.0, 215.0, 1, 1, "1/1", 1, 0, 0, 0.0, "4/8"),
        # Dave: took g2h1 (NT capot bid, failed, 0) and g3h2 (H made, 740): 370. Defended g1h1 (70), g1h4 (0),
        # g2h3 (80) = 50. Suffered g1h4's capot.
        "Dave": (2, 10, "1/1", "0/1", "0/0", 370.0, 50.0, 0, 0, "0/0", 0, 1, 0, 0.0, "4/8"),
    }
    # Wilson intervals: take rate taken/hands, made rate made/decided, win rate won/finished
    # (g1 and g2 were won by team 0, g3 unfinished: Alice team 0 then 1 -> 1/2, Bob 1/2, Carol 1/2, Dave 1/2)
    alice = rows["Alice"]
    assert (alice["take_rate_lo"], alice["take_rate_hi"]) == _wilson(1, 11)
    assert (alice["made_rate"], alice["made_rate_lo"], alice["made_rate_hi"]) == (1.0, *_wilson(1, 1))
    assert (alice["win_rate_lo"], alice["win_rate_hi"]) == _wilson(1, 2)
    bob = rows["Bob"]
    assert (bob["made_rate"], bob["made_rate_lo"], bob["made_rate_hi"]) == (0.5, *_wilson(1, 2))


def test_players_coinches_won_of_counts_only_coinches_with_a_result(tmp_path: Path):
    # coinches_won_of = won / decided (queries/players.sql, as bidders.sql's coinches_right_of): a coinche in a hand
    # with no result (unscorable, or a litige: contract_made NULL) is counted in coinches, in neither term of the
    # ratio. The module's lake plus two coinches: Bob (seat 1 in g3) on g3h1 (unscorable) and Dave (seat 2 in g2)
    # on g2h3 (a litige). Alice's (g2h2, made) and Carol's (g1h2, failed) stay as in the test above.
    lake = tmp_path / "lake"
    hands = [dict(h, auction=[{"seat": 3, "call": "take"}, {"seat": 1, "call": "coinche"}], coinche=1)
             if h["hand_key"] == "colver:g3#1" else
             dict(h, auction=[{"seat": 3, "call": "80H"}, {"seat": 2, "call": "coinche"}], coinche=1)
             if h["hand_key"] == "colver:g2#3" else h for h in HANDS]
    _write(lake, "hands", hands)
    _write(lake, "games", GAMES)
    _write(lake, "scores", SCORES)
    _write(lake, "game_scores", GAME_SCORES)
    rows = {r["player"]: r for r in stats.run_report(lake, "players", RULES).to_pylist()}
    cols = ("coinches", "coinches_won", "coinches_decided", "coinches_won_of")
    assert {p: tuple(r[c] for c in cols) for p, r in rows.items()} == {
        "Alice": (1, 0, 1, "0/1"), "Carol": (1, 1, 1, "1/1"),
        "Bob": (1, 0, 0, "0/0"),      # g3h1 unscorable: was "0/1" when every coinche was the denominator
        "Dave": (1, 0, 0, "0/0"),     # g2h3 a litige
    }


@pytest.mark.parametrize("reason, unscorable, games, both", [
    ("ruleset other is for 3 players", (1, 2, 3), 2, 6),
    ("contract strain missing", (1, 2, 3), 2, 6),
    ("contract strain missing", (1,), 3, 7)])
def test_compare_leaves_out_games_one_ruleset_cannot_score(lake: Path, reason: str, unscorable: tuple, games: int,
                                                            both: int):
    # queries/compare.sql: the games compared are those with a game_scores row under each ruleset, of the player
    # count of both, with no hand that one ruleset scores and the other cannot. A second ruleset scores g1 and g2
    # as belote-classic does (same rows, so nothing differs) and the hands ``unscorable`` of g3 not at all.
    # * Every hand of g3 for the player count ("ruleset other is for 3 players", the engine's text): g3 is left
    #   out: 2 games, both finished (team 0), no winner differs.
    # * Every hand of g3 for another reason: g3h2, scored under belote-classic, is not under the other: its game
    #   result there would count it 0 - 0, so g3 is left out too (it was compared, and counted as a winner
    #   difference when one arose, before a new-user audit).
    # * Only g3h1, which belote-classic cannot score either: g3 is compared (so is a score sheet's game, whose
    #   summary hands neither ruleset scores): 3 games, g3 unfinished under both.
    other = "other"
    _write(lake, "scores", [dict(s, ruleset=other) if s["game_id"] != "colver:g3" or s["hand_no"] not in unscorable
                            else dict(s, ruleset=other, status="unscorable", reason=reason, hand_score=None,
                                      contract_made=None, litige=False, matches_recorded=None) for s in SCORES])
    _write(lake, "game_scores", [dict(g, ruleset=other, unscorable_hands=len(unscorable)
                                      if g["game_id"] == "colver:g3" else 0) for g in GAME_SCORES])
    got = {r["measure"]: (r["count"], r["of"]) for r in stats.run_report(lake, "compare", RULES, other=other).to_pylist()}
    assert got["games finished under both"] == (2, games) and got["winner differs"] == (0, 2)
    assert got["end hand differs"] == (0, games)
    # the hands: the lake's 11 (g4h1 has no score but is a hand selected); scored under both: g1h1, g1h2, g1h4,
    # g2h1-h3 = 6, and g3h2 when the other ruleset scores it (passed-out and unscorable hands are left out)
    assert got["hands scored under both"] == (both, 11)


FAST_FILTERS = (None, stats.Filters(players=("Hugo",), pseudonymize="pepper"),
                stats.Filters(sources=("club",)))     # sources alone: filtered on the derived tables' own column
ALL_FILTERS = FAST_FILTERS + (stats.Filters(sources=("club", "online")), stats.Filters(players=("Hugo",)),
                              stats.Filters(pseudonymize="pepper"), stats.Filters(variants=("belote",), min_hands=5))


@pytest.mark.parametrize("filters", [pytest.param(FAST_FILTERS, id="fast"),
                                     pytest.param(ALL_FILTERS, id="all", marks=pytest.mark.slow)])
def test_reports_same_from_written_and_derived_tables(tmp_path: Path, filters):
    # `rescore` writes the stored derived tables (pipeline/facts/derived.py STORED: player_games, hand_facts,
    # pair_games, declaration_items, dealt_events); a lake without them derives the same rows on the fly. No
    # report may depend on which path ran, with and without filters, pseudonymized or not.
    import shutil
    from helpers import simulated_lake

    from pipeline.facts.derived import STORED

    lake = simulated_lake(tmp_path / "lake")
    for name in STORED:
        assert (lake / name).is_dir(), name
    copy = tmp_path / "derived"
    shutil.copytree(lake, copy)
    for name in STORED:
        shutil.rmtree(copy / name)
    reports = stats.list_reports()
    assert {"players", "partnerships", "contracts", "declarations", "declaration_kinds", "compare"} <= set(reports)
    for f in filters:
        con_w, con_d = stats.connect(lake, f), stats.connect(copy, f)
        try:
            for ruleset in ("belote-classic", "colver"):
                for report in reports:
                    extra = {"other": "colver"} if "other" in stats.report_params(report) else {}
                    written = stats.run_report_on(con_w, report, ruleset, f, **extra).to_pylist()
                    assert stats.run_report_on(con_d, report, ruleset, f, **extra).to_pylist() == written, (report, f)
                    if report in ("players", "partnerships", "contracts", "declaration_kinds") and f is None:
                        assert written, report
        finally:
            con_w.close()
            con_d.close()


def test_unscorable_hands_are_told_with_each_reason(lake: Path):
    # The CLI's note on hands a ruleset could not score named only the commonest reason of a source, as if every
    # hand had it (a report audit: 8,592 "is for 4 players" of which 1,549 were not). Source 'x': 3 hands for
    # one reason, 2 for another, 1 each for three more; 'colver' (the fixture): g3h1 only, its one reason.
    texts = ["r-a", "r-a", "r-a", "r-b", "r-b", "r-c", "r-d", "r-e"]
    _write(lake, "hands", [_hand("u", i, G1, 0, "H", source="x") for i in range(1, len(texts) + 1)])
    _write(lake, "scores", [dict(_score("u", i, "unscorable", 0, None, source="x"), reason=r)
                            for i, r in enumerate(texts, start=1)])
    got = stats.unscorable_by_source(lake, RULES)
    assert got[0] == ("x", 8, "r-a 3; r-b 2; r-c 1; 2 other reasons 2")
    assert [(s, n) for s, n, _ in got[1:]] == [("colver", 1)] and ";" not in got[1][2]
