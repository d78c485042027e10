"""The per-declaration column ``scores.declarations``, ``scores.declarations_decided`` and the all-trump belote
of the Bulgarian rules.

Expected values are computed by hand from the ruleset values (belote-classic: tierce 20, quarte 50, carré of
nines 150; PAGAT-B, FFB-Co15 §8; rules.md R18) or come from an independent, per-play Python reading of the rule
(``belote.belote_announceable``, a per-play reference kept for tests and the oracles) compared with the vectorised engine.
"""

import functools

import numpy as np
import pyarrow as pa
import pytest

from pipeline import rules

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.cards import ALL_TRUMP, mask_of, parse_cards, parse_strain
from pipeline.rescore import score_batch
from pipeline.rescore.belote import belote_announceable
from pipeline.rescore.declaration_items import KINDS
from pipeline.rescore.declarations import build_tables, detect
from pipeline.simulate.games import simulate

RULESETS = tuple(rules.shipped_names())


def _entries(seats, strain, ruleset):
    r = rules.load(ruleset)
    h = np.array([[mask_of(parse_cards(s)) for s in seats]], dtype=np.uint32)
    d = detect(h, np.array([parse_strain(strain)], dtype=np.int8), r, build_tables(r), entries=True,
               dealer=np.array([3]))     # seat 0 announces first
    e = d.entries
    return [(int(e.seat[i]), KINDS[e.kind[i]], int(e.rank[i]), int(e.suit[i]), int(e.length[i]), int(e.points[i]),
             bool(e.scored[i])) for i in range(len(e.row))]


def test_entries_of_a_hand_built_by_hand():
    # Seat 0: 7 8 9 of spades (tierce, top 9 = rank index 2, 20) and J Q K A of spades (quarte, top A = 7, 50);
    # nobody else declares, so team 0 scores both (two runs in one suit are two declarations).
    got = _entries(["7S 8S 9S JS QS KS AS", "9C 9D 9H TS", "", ""], "H", "belote-classic")
    assert got == [(0, "tierce", 2, 3, 3, 20, True), (0, "quarte", 7, 3, 4, 50, True)]
    # Seat 1 now holds the four nines (carré of 9, 150). Unified contest: the carré is the best declaration, so
    # team 1 scores all of its declarations and team 0 none of its own (rules.md R23).
    got = _entries(["7S 8S JS QS KS AS", "9C 9D 9H 9S", "", ""], "H", "belote-classic")
    assert got == [(0, "quarte", 7, 3, 4, 50, False), (1, "carre", 2, -1, 4, 150, True)]


def test_separate_contests_mark_each_family():
    # Bulgarian (declarations.contest = "separate"): sequences and carrés are two contests. Seat 0's quarte
    # (50) beats seat 1's tierce (20); seat 1's carré of jacks (200) has no rival. Carré cards are not used in
    # runs (carre_cards_in_sequences = false), so seat 1's jack of hearts does not extend its run.
    got = _entries(["7C 8C 9C TC", "JC JD JH JS 8H 9H TH", "", ""], "D", "bulgarian")
    assert got == [(0, "quarte", 3, 0, 4, 50, True), (1, "carre", 4, -1, 4, 200, True),
                   (1, "tierce", 3, 2, 3, 20, False)]


@functools.cache
def _sample(ruleset: str) -> tuple[pa.Table, pa.Table]:
    rows = []
    for obj in simulate(rules.load(ruleset), 6, 11):
        rows.extend(native.game_to_rows(obj, "rebelote", "<sim>", None)[1])
    hands = pa.Table.from_pylist(rows, schema=schema.schema("hands"))
    return hands, score_batch(hands, rules.load(ruleset))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_entries_add_up_to_the_team_columns(ruleset):
    # Every scored item adds its points to its team: tierce..carré to declaration_points (when no capot
    # transfer can have moved them), belotes to belote_points.
    r = rules.load(ruleset)
    _, scores = _sample(ruleset)
    checked = 0
    for x in scores.to_pylist():
        if x["status"] != "scored":
            assert x["declarations"] is None
            continue
        K = len(x["declaration_points"])            # teams: 2, or 3 players each for himself
        decl, bel = [0] * K, [0] * K
        for e in x["declarations"]:
            target = bel if e["kind"] == "belote" else decl
            target[e["seat"] % K] += e["points"] if e["scored"] else 0
            assert e["points"] > 0
        # a team (player, with 3) that took no trick may have lost or given away its declarations
        # (declarations.on_capot); with 3 players that happens without a capot too
        no_trick = x["capot_team"] is not None or len({w % K for w in x["trick_winners"] or []}) < K
        if not no_trick or r["declarations.on_capot"] == "keep":
            assert decl == x["declaration_points"], (ruleset, x["game_id"], x["hand_no"])
        assert bel == x["belote_points"], (ruleset, x["game_id"], x["hand_no"])
        checked += 1
    assert checked > 0


def _without_declarations(ruleset: str, tmp_path) -> rules.Ruleset:
    path = tmp_path / "no-declarations.toml"
    path.write_text(f'name = "no-declarations"\nextends = "{ruleset}"\n'
                    'description = "test: the same rules without tierce..carré"\n'
                    '[declarations]\nenabled = false\n')
    return rules.load(path)


@pytest.mark.parametrize("ruleset", ["belote-classic", "ffb-coinche-2015", "bulgarian", "pagat-coinche"])
def test_declarations_decided_is_the_outcome_without_them(ruleset, tmp_path):
    # Independent path: rescore the same hands under the same ruleset with declarations disabled; a hand was
    # decided by its declarations exactly when its outcome (made / failed / litige) changes.
    hands, with_ = _sample(ruleset)
    without = score_batch(hands, _without_declarations(ruleset, tmp_path))
    seen = 0
    for a, b in zip(with_.to_pylist(), without.to_pylist()):
        if a["status"] != "scored":
            continue
        if not any(a["declaration_points"]):
            assert a["declarations_decided"] is None
            continue
        changed = (a["contract_made"], a["litige"]) != (b["contract_made"], b["litige"])
        assert a["declarations_decided"] == changed, (ruleset, a["game_id"], a["hand_no"])
        seen += 1
    assert seen > 0


def test_bulgarian_all_trump_belote_matches_the_per_play_rule():
    # BG-HIT / BG-NIK (rules.md R25): in all-trump a suit's belote counts when its holder plays the first of the
    # king and queen leading or following that suit. The reference walks the plays one by one with
    # belote_announceable (the rule read play by play); the engine does it vectorised.
    r = rules.load("bulgarian")
    rows = []
    for obj in simulate(r, 40, 5):
        rows.extend(native.game_to_rows(obj, "rebelote", "<sim>", None)[1])
    hands = pa.Table.from_pylist(rows, schema=schema.schema("hands"))
    scores = score_batch(hands, r).to_pylist()
    at_with_belote = 0
    for h, s in zip(rows, scores):
        if h["strain"] != "AT" or s["status"] != "scored":
            continue
        held = list(h["initial_hands"])
        expected = [0, 0]
        for t in range(8):
            trick = []
            for i in range(4):
                card, seat = h["plays"][t * 4 + i], h["play_seats"][t * 4 + i]
                if belote_announceable(ALL_TRUMP, held[seat], trick, card, r):
                    expected[seat % 2] += r["belote.value"]
                held[seat] &= ~(1 << card)
                trick.append(card)
        assert s["belote_points"] == expected, (h["game_id"], h["hand_no"])
        assert min(s["belote_points"]) >= 0
        at_with_belote += any(expected)
    assert at_with_belote > 5   # the sample does exercise the rule
