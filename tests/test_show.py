"""`rebelote show`: whole-text golden files for hand-computed deals (one per ruleset family), the JSON form's
totals against the scores table for every hand of a simulated lake, and the CLI.

The golden files were generated once and read line by line against tests/deals.py's arithmetic (card points
92-70, belote 20 to team 1, etc.); regenerate with REBELOTE_REGEN_GOLDEN=1 only after such a review.
"""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write_jsonl
from deals import DEAL_A, DEAL_K, DEAL_L, native_game, native_hand
from pipeline import rules
from pipeline.storage import lake as lakemod
from pipeline.formats import native
from pipeline.cli import app
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake
from pipeline.stats.show import explain, mark_differences, render
from pipeline.simulate.games import simulate

GOLDEN = Path(__file__).parent / "golden"


def rows_of(game):
    return native.game_to_rows(game, "rebelote", "<test>", None)[1]


CASES = {
    # French classic: DEAL_A taken by seat 0 (made 92-90 with the defence's belote); DEAL_L: a litige
    "show_classic_made": (native_game("a", [native_hand(DEAL_A, 1, taker=0)]), ["belote-classic"]),
    "show_classic_litige": (native_game("l", [native_hand(DEAL_L, 1, taker=0)]), ["belote-classic"]),
    # contrée: DEAL_A, 80 hearts coinched by the defence, made: 162 + 80 x 2 + 20 = 342, against FFB contrée 2016
    "show_coinche_compare": (native_game("c", [native_hand(DEAL_A, 1, taker=0, bid=80, coinche=1)], variant="coinche"),
                             ["colver", "ffb-contree-2016"]),
    # Bulgarian: DEAL_K (a valat) as a hearts contract under the 2001 rules
    "show_bulgarian_valat": (native_game("b", [native_hand(DEAL_K, 1, taker=0)], variant="bulgarian"), ["bulgarian-2001"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_breakdowns(name):
    game, names = CASES[name]
    (hand,) = rows_of(game)
    text = render([explain(hand, rules.load(r)) for r in names]) + "\n"
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("REBELOTE_REGEN_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def _contract_rows(text: str) -> list[str]:
    """The lines of a rendered breakdown's 'Contract result' section."""
    return text.split("\nContract result\n")[1].split("\n\n")[0].split("\n")


BID_TEST = "taker's total vs bid: 92 vs 80   [contract.made_vs_bid / contract.made_min_points / contract.made_counts_*]"
DEFENCE_TEST = "taker's total vs defence: 92 vs 90   [contract.made_vs_defence / contract.made_counts_*]"


def test_side_by_side_each_column_has_its_own_parameter():
    # DEAL_A, 80 hearts taken by seat 0 (tests/deals.py): card points 92 - 70, belote 20 to team 1, no declaration
    # held by anyone, so the taker's total is 92 against a bid of 80 and a defence of 70 + 20 = 90.
    (hand,) = rows_of(native_game("c", [native_hand(DEAL_A, 1, taker=0, bid=80)], variant="coinche"))
    # ffb-coinche-2015 makes both tests (bid and defence), colver only the bid's: the second test faces a gap,
    # and its parameter stays on its own (left) side instead of moving to the right-hand column
    rows = _contract_rows(render([explain(hand, rules.load("ffb-coinche-2015")), explain(hand, rules.load("colver"))]))
    # longer than the left column (80 at most): its parameters go to the next line, indented, and the right side
    # stays in its column (a trial found the lines that differ, the longest, pushed out of line)
    assert len(BID_TEST) > 80
    bid_text, bid_param = BID_TEST.split("   ")
    assert rows[0] == f"  {bid_text.ljust(80)}   {BID_TEST}"
    assert rows[1] == f"      {bid_param}"
    assert rows[2] == f"* {DEFENCE_TEST}"
    assert rows[3].startswith("  contract: made ") and rows[3].endswith("   contract: made")
    assert rows[3].index("   contract: made") == rows[0].index(f"   {BID_TEST}") == 2 + 80
    # belote-classic tests the defence, colver the bid: one made test each, on one line, each with its parameter
    rows = _contract_rows(render([explain(hand, rules.load("belote-classic")), explain(hand, rules.load("colver"))]))
    defence_text, defence_param = DEFENCE_TEST.split("   ")
    assert rows[0] == f"* {defence_text.ljust(80)}   {BID_TEST}"
    assert rows[1] == f"      {defence_param}"
    assert len(rows) == 3
    # the header names each ruleset above its column, padded to the left column's width (80, the cap)
    text = render([explain(hand, rules.load("belote-classic")), explain(hand, rules.load("colver"))])
    assert text.split("\n")[1] == "  " + "[belote-classic]".ljust(80) + "   [colver]"


def test_a_narrow_terminal_stacks_the_two_rulesets():
    # a trial found `show --rules A --rules B` 223 columns wide in a 100-column terminal. Same hand as above:
    # ffb-coinche-2015 and colver say the bid test alike (once), the defence test only under ffb-coinche-2015
    # (A, facing nothing under B), and the score differs by the rounding (170 - 90 against 172 - 90).
    (hand,) = rows_of(native_game("c", [native_hand(DEAL_A, 1, taker=0, bid=80)], variant="coinche"))
    both = [explain(hand, rules.load("ffb-coinche-2015")), explain(hand, rules.load("colver"))]
    text = render(both, columns=120)          # the bid test's line is 106 characters: one fits, two do not
    lines = text.split("\n")
    assert lines[1] == "  A = ffb-coinche-2015, B = colver; a line that differs is shown under each, marked *"
    assert max(len(x) for x in lines) <= 120
    rows = _contract_rows(text)
    assert rows[:3] == [f"  {BID_TEST}", f"* A {DEFENCE_TEST}", "  B (nothing)"]
    score = text.split("\nScore (game points)\n")[1].split("\n")
    assert [x.split("   [")[0] for x in score if x.startswith(("* A hand score", "  B hand score"))] == [
        "* A hand score: 170 - 90", "  B hand score: 172 - 90"]
    # wide enough for both side by side: the layout of test_side_by_side_each_column_has_its_own_parameter; a
    # terminal exactly as wide as its widest line keeps it (the wrapped parameters count, not the unwrapped line)
    assert render(both, columns=1000) == render(both)
    widest = max(len(x) for x in render(both).split("\n"))
    assert render(both, columns=widest) == render(both) and render(both, columns=widest - 1) != render(both)
    # one ruleset in a narrow terminal: a line too long puts its parameters on the next lines, indented
    rows = _contract_rows(render(both[:1], columns=60))
    assert rows[0] == "  taker's total vs bid: 92 vs 80"
    assert rows[1] == "      [contract.made_vs_bid / contract.made_min_points /"
    assert rows[2] == "      contract.made_counts_*]"


def test_json_marks_the_lines_that_differ():
    (hand,) = rows_of(native_game("c", [native_hand(DEAL_A, 1, taker=0, bid=80)], variant="coinche"))
    left, right = mark_differences([explain(hand, rules.load("ffb-coinche-2015")), explain(hand, rules.load("colver"))])
    lines = {(b["ruleset"], ln["label"]): ln for b in (left, right) for sec in b["sections"] for ln in sec["lines"]}
    assert lines[("ffb-coinche-2015", "taker's total vs defence")]["differs"] is True     # faces a gap
    assert lines[("ffb-coinche-2015", "taker's total vs defence")]["key"] == "made test"
    assert lines[("ffb-coinche-2015", "taker's total vs bid")]["differs"] is False        # 92 vs 80 both sides
    assert lines[("colver", "taker's total vs bid")]["differs"] is False
    # ffb-coinche-2015 rounds to the nearest ten (172 -> 170), colver does not: 170 - 90 against 172 - 90
    assert lines[("ffb-coinche-2015", "hand score")]["differs"] is True
    assert lines[("colver", "hand score")]["value"] == "172 - 90"
    assert lines[("ffb-coinche-2015", "hand score")]["value"] == "170 - 90"


def test_json_totals_equal_the_scores_table(tmp_path):
    r = rules.load("belote-classic")
    f = write_jsonl(tmp_path / "sim.jsonl", list(simulate(r, 8, 3)))
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    rescore_lake(lake, r)
    scores = {s["hand_key"]: s["hand_score"] for s in lakemod.read(lake, "scores").to_pylist()}
    hands = lakemod.read(lake, "hands").to_pylist()
    assert len(hands) > 50
    for h in hands:
        assert explain(h, r)["score"] == scores[h["hand_key"]]


def test_a_game_explained_from_one_scoring_equals_hand_by_hand(tmp_path, monkeypatch):
    """`show --game` (and the HTML report's example games) score a game's hands in one call per ruleset and take
    the running totals from the game pass over every prefix of the game (show_game._running, in groups of rows).
    Hand by hand, each hand scored alone and the game pass run on each prefix, as before, gives the same
    breakdowns and totals, whatever the groups:
    simulated games under the classic rules (litiges among them) and a litige carried to the next hand."""
    import pyarrow as pa

    from pipeline.rescore import game_pass, score_batch
    from pipeline.stats import show_game
    from pipeline.storage import schema

    r = rules.load("belote-classic")
    f = write_jsonl(tmp_path / "sim.jsonl", list(simulate(r, 6, 5))
                    + [native_game("l", [native_hand(DEAL_L, 1, taker=0), native_hand(DEAL_A, 2, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    by_game: dict[str, list] = {}
    for h in sorted(lakemod.read(lake, "hands").to_pylist(), key=lambda h: (h["game_id"], h["hand_no"])):
        by_game.setdefault(h["game_id"], []).append(h)
    litiges = 0
    for gid, hands in by_game.items():
        table = pa.Table.from_pylist(hands, schema=schema.schema("hands"))
        scores = score_batch(table, r)
        want = [{**game_pass(scores.slice(0, k), r).to_pylist()[0], "game_id": None} for k in range(1, len(hands) + 1)]
        for group_rows in (show_game.PREFIX_ROWS, 7):     # the prefixes in one call, and in groups of about 7 rows
            monkeypatch.setattr(show_game, "PREFIX_ROWS", group_rows)
            running = show_game._running(scores, r, None)
            assert [{**g, "game_id": None} for g in running] == want, gid
        litiges += sum(bool(g["unresolved_held"]) for g in running)
        got = show_game.breakdowns(hands, [r, rules.load("colver")], whole=False)
        assert got == [[explain(h, r), explain(h, rules.load("colver"))] for h in hands], gid
    assert litiges > 0      # a litige held over a hand was among them


def test_cli(tmp_path):
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0),
                                                              native_hand(DEAL_L, 2, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    runner = CliRunner()
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--hand", "1"])
    assert r.exit_code == 0, r.output
    assert "hand score: 92 - 90" in r.stdout and "[belote-classic]" in r.stdout
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "test:g1", "--format", "json", "--rules", "ffb-classic"])
    data = json.loads(r.stdout)
    assert [[b["score"] for b in hand] for hand in data[:2]] == [[[92, 90]], [[0, 81]]]
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--hand", "1", "--format", "json",
                            "--rules", "ffb-classic", "--rules", "belote-classic"])
    (hand1,) = json.loads(r.stdout)
    # both rulesets score DEAL_A 92 - 90 (no declaration is held); only belote-classic's declarations line
    # says they are on, so it differs, while the hand score does not
    diff = {(b["ruleset"], ln["label"]): ln["differs"] for b in hand1 for sec in b["sections"] for ln in sec["lines"]}
    assert diff[("ffb-classic", "hand score")] is False and diff[("belote-classic", "hand score")] is False
    assert diff[("ffb-classic", "declarations scored")] is True
    # the game summary: hand 2 is a litige (81 held, pending after the last hand): totals 92 - 171
    assert data[2][0]["totals"] == [92, 171] and data[2][0]["winner"] is None
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1"])
    assert "hand 2: [0, 81], 81 held -> totals [92, 171] (pending 81)" in r.stdout
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "nope"])
    assert r.exit_code == 2 and "no game 'nope'" in r.stderr
    r = runner.invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--hand", "7"])
    assert r.exit_code == 2 and "has no hand 7" in r.stderr


def _summary_hand(hand_no: int, score: list[int]) -> dict:
    """A summary-level hand (a score sheet's line: no cards), which counts its recorded score in the totals."""
    return {"hand_no": hand_no, "dealer": 3, "completeness": "summary",
            "contract": {"taker": 0, "strain": "H", "bid": 80}, "recorded": {"score": score}}


def test_game_summary_uses_the_games_recorded_target(tmp_path):
    """coinche-cli sets game.target_from_record (the target is a per-table option): a game recorded with target
    500 ends at the first hand that leaves a total of 500 or more, in ``show`` as in ``game_scores``.
    By hand, the recorded scores add up: [300, 10] -> [300, 10]; + [210, 40] -> [510, 50], 510 >= 500 held by
    team 0 alone: team 0 wins at hand 2; + [0, 250] -> [510, 300] (the totals go on after the end). Under the
    ruleset's own target (1000) nobody would have reached it."""
    g = native_game("t500", [_summary_hand(1, [300, 10]), _summary_hand(2, [210, 40]), _summary_hand(3, [0, 250])],
                    ruleset_hint="coinche-cli")
    g["target"] = 500
    lake = tmp_path / "lake"
    ingest_paths([write_jsonl(tmp_path / "g.jsonl", [g])], lake)
    rescore_lake(lake, rules.load("coinche-cli"))
    (stored,) = lakemod.read(lake, "game_scores").to_pylist()
    assert (stored["winner"], stored["ended_at_hand"], stored["totals_at_end"]) == (0, 2, [510, 50])
    r = CliRunner().invoke(app, ["show", "--lake", str(lake), "--game", "test:t500"])
    assert r.exit_code == 0, r.output
    assert "result: team 0 wins at hand 2 with [510, 50]   [game.target]" in r.stdout
    r = CliRunner().invoke(app, ["show", "--lake", str(lake), "--game", "test:t500", "--format", "json"])
    summary = json.loads(r.stdout)[-1][0]
    assert (summary["winner"], summary["totals"]) == (0, [510, 300])


def test_the_game_shows_the_litige_points_a_later_hand_receives(tmp_path):
    # a new user's trial: the hand that received the points an earlier litige held showed only its own score,
    # so its totals did not add up on the line. Hand 2 (DEAL_L) is a litige, 81 held; hand 3 (DEAL_A, taker
    # team 0 makes 92 - 90) gets them under belote-classic's game.litige_to (the next hand's winner):
    # totals [92 + 0 + 92 + 81, 90 + 81 + 90] = [265, 261]
    f = write_jsonl(tmp_path / "g.jsonl", [native_game("g1", [native_hand(DEAL_A, 1, taker=0),
                                                              native_hand(DEAL_L, 2, taker=0),
                                                              native_hand(DEAL_A, 3, taker=0)])])
    lake = tmp_path / "lake"
    ingest_paths([f], lake)
    r = CliRunner().invoke(app, ["show", "--lake", str(lake), "--game", "g1", "--rules", "belote-classic"])
    assert r.exit_code == 0, r.output
    assert "hand 2: [0, 81], 81 held -> totals [92, 171] (pending 81)" in r.stdout
    assert "hand 3: [92, 90], + [81, 0] held by an earlier litige -> totals [265, 261]" in r.stdout


def test_announced_only_ruleset_shows_no_contest_of_held_declarations(tmp_path):
    """Under ``declarations.count = "announced"`` a hand whose record holds no announcements scores no declaration
    (the engine settles the recorded list, which is empty: pipeline/rescore/classify.py, F_FROM_ANN). The
    breakdown lists what is held but must not settle a contest over it. The hand (tests/test_hand_pass.py's
    _game): each seat holds one whole suit, so a run of 8 (quinte, 100) each; seat 0 takes in clubs. By hand:
    nothing announced -> declarations 0 - 0, belote 0 - 0 with ``belote.count = "announced"`` too; with
    ``belote.count = "held"`` (belote-classic's) the belote counts as held: seat 0 holds every club, KC QC, 20."""
    from helpers import hands_table
    from test_hand_pass import _game

    house = tmp_path / "announced-only.toml"
    house.write_text('name = "announced-only"\nextends = "belote-classic"\ndescription = "t"\n\n'
                     '[declarations]\ncount = "announced"\n[belote]\ncount = "announced"\n')
    (hand,) = hands_table(_game(1)).to_pylist()
    assert hand["announced"] is None
    b = explain(hand, rules.load(str(house)))
    (sec,) = [s for s in b["sections"] if s["title"] == "Declarations and belote"]
    assert [(ln["label"], ln["value"]) for ln in sec["lines"]] == [
        ("held by P0", "quinte to AC (100)"), ("held by P1", "quinte to AD (100)"),
        ("held by P2", "quinte to AH (100)"), ("held by P3", "quinte to AS (100)"),
        ("declarations scored", "0 - 0"), ("belote-rebelote", "0 - 0")]
    held = tmp_path / "announced-declarations.toml"
    held.write_text('name = "announced-declarations"\nextends = "belote-classic"\n[declarations]\ncount = "announced"\n')
    b = explain(hand, rules.load(str(held)))
    (sec,) = [s for s in b["sections"] if s["title"] == "Declarations and belote"]
    assert (sec["lines"][-2]["value"], sec["lines"][-1]["value"]) == ("0 - 0", "20 - 0")


@pytest.mark.parametrize("ruleset, to", [
    ("belote-classic", "the winner of the next hand"),            # game.litige_to = next_hand_winner
    ("ffb-classic", "the team that makes the next contract"),     # next_made_contract (FFB-B16 §10.1.3)
])
def test_held_over_line_names_who_receives_the_litige(ruleset, to):
    """DEAL_L taken by seat 0 is a litige under both rulesets (tests/test_show.py::test_cli: 81 - 81, the
    defence scores its 81 now, the takers' 81 are held: [0, 81], 81 held); the line says who gets them, as
    game.litige_to says."""
    from helpers import hands_table

    (hand,) = hands_table(native_game("g1", [native_hand(DEAL_L, 1, taker=0)])).to_pylist()
    b = explain(hand, rules.load(ruleset))
    (line,) = [ln for s in b["sections"] for ln in s["lines"] if ln["label"] == "held over"]
    assert (line["value"], b["score"]) == (f"81 to {to}", [0, 81])


@pytest.mark.parametrize("ruleset, capot_line, score", [
    # FFB-Co15 (declarations.on_capot = to_capot_team, rules.md R24): team 1's 120 change hands; 160 bid made with
    # capot: 252 + 120 + 160 = 532 -> 530 (nearest ten, 5 up)
    ("ffb-coinche-2015", "team 1's declarations go to team 0", [530, 0]),
    # belote-classic (on_capot = lost, pagat via card-game-dsl): the capoted side's declarations score for nobody:
    # 252 - 0
    ("belote-classic", "team 1's declarations are lost", [252, 0]),
    # pagat-coinche (on_capot = keep): no line; the defence keeps its 120, the takers 250 (unbid capot) + 160
    ("pagat-coinche", None, [410, 120]),
])
def test_show_names_the_capot_rule_that_moves_the_declarations(ruleset, capot_line, score):
    """DEAL_D (tests/deals.py): team 0 takes every trick, team 1 wins the declaration contest (carré of queens
    100 + tierce 20). The breakdown said 'team 1 scores its declarations' and then 'declarations scored: 120 - 0'
    (or 0 - 0) with no parameter behind the move; it must name declarations.on_capot."""
    from deals import DEAL_D
    from helpers import hands_table

    bid = None if ruleset == "belote-classic" else 160
    (hand,) = hands_table(native_game("d", [native_hand(DEAL_D, 1, taker=0, bid=bid)])).to_pylist()
    b = explain(hand, rules.load(ruleset))
    (sec,) = [s for s in b["sections"] if s["title"] == "Declarations and belote"]
    lines = [(ln["label"], ln["value"], ln.get("param")) for ln in sec["lines"]]
    assert ("contest", "team 1 scores its declarations") == lines[3][:2]
    capot = [ln for ln in lines if ln[0] == "capot"]
    assert capot == ([] if capot_line is None else [("capot", capot_line, "declarations.on_capot")])
    assert b["score"] == score


def test_rules_own_explains_each_game_under_its_own_ruleset(tmp_path):
    # `show --rules own` (the reports' default, and the commands the HTML report's player pages print) used to
    # fail with an AttributeError: each game is explained under the ruleset own scores it with. A colver game is
    # scored under colver and a classic one under belote-classic: the same text as naming those rulesets.
    from helpers import simulated_lake
    from pipeline.rules import own

    lake = simulated_lake(tmp_path / "lake")
    rescore_lake(lake, own.plan(lake))
    games = lakemod.read(lake, "games", columns=["game_id", "ruleset_hint"]).to_pylist()
    seen = set()
    for g in games:
        if g["ruleset_hint"] in seen:
            continue
        seen.add(g["ruleset_hint"])
        run = CliRunner().invoke
        mine = run(app, ["show", "--game", g["game_id"], "--hand", "1", "--rules", "own", "--lake", str(lake)])
        named = run(app, ["show", "--game", g["game_id"], "--hand", "1", "--rules", g["ruleset_hint"], "--lake", str(lake)])
        assert mine.exit_code == 0 and "Traceback" not in mine.output, mine.output
        assert mine.stdout == named.stdout
    assert seen == {"belote-classic", "colver"}
