"""Faults found by replaying bugs reported in other belote programs (issue 16), each as a small hand with the
value the rule text gives, and the parameter each fix rests on checked both ways."""

from __future__ import annotations

import pytest
from deals import DEAL_K, native_game, native_hand
from helpers import score
from .seedkit import house, settle1

pytestmark = pytest.mark.rules


@pytest.mark.covers("double.valat_cancels")
def test_bulgarian_doubles_the_valat():
    # BG-HIT doubles every premium under contra, the valat included. The doubled takers win every trick, no
    # declarations: 152 + 10 + valat 90 = 252 -> 25 game points (bg_modern: 252 / 10 halves to even) x 2 = 50,
    # 50-0. The NikolayIT engine cancels the double on a valat (double.valat_cancels, ruleset nikolayit): 25-0.
    assert settle1("bulgarian", (252, 0), capot=0, coinche=1)[0] == [50, 0]
    assert settle1("nikolayit", (252, 0), capot=0, coinche=1)[0] == [25, 0]


@pytest.mark.covers("belote.count", "ffb-classic:belote.count")
def test_ffb_unannounced_belote_is_lost(tmp_path):
    # FFB-B16 §7: belote and rebelote must be said, an omission loses them. DEAL_K: seat 0 takes every trick,
    # 252; QH KH with seat 2 (team 0). The record lists no announcement (an empty list: nothing was said):
    # 252-0, not 272-0. A record that does not record announcements at all (null) keeps the held belote: 272.
    # belote.count = "held" scores it whatever the record says: 272.
    said_nothing = native_hand(DEAL_K, 1, taker=0)
    said_nothing["announced"] = []
    silent = native_hand(DEAL_K, 1, taker=0)
    (r,) = score("ffb-classic", native_game("k1", [said_nothing], ruleset_hint=None))
    assert r["hand_score"] == [252, 0]
    (r,) = score("ffb-classic", native_game("k2", [silent], ruleset_hint=None))
    assert r["hand_score"] == [272, 0]
    held = house(tmp_path, "ffb-classic", '[belote]\ncount = "held"')
    (r,) = score(held, native_game("k3", [said_nothing], ruleset_hint=None))
    assert r["hand_score"] == [272, 0]
    # said by seat 2: 272
    said = native_hand(DEAL_K, 1, taker=0)
    said["announced"] = [{"seat": 2, "kind": "belote", "suit": "H"}]
    (r,) = score("ffb-classic", native_game("k4", [said], ruleset_hint=None))
    assert r["hand_score"] == [272, 0]
    # "announced" never falls back on the hand: the silent record scores 252 too
    strict = house(tmp_path, "ffb-classic", '[belote]\ncount = "announced"')
    (r,) = score(strict, native_game("k5", [silent], ruleset_hint=None))
    assert r["hand_score"] == [252, 0]


@pytest.mark.parametrize("ruleset", ["ffb-classic", "ffb-classic-announcements", "ffb-coinche-2015",
                                     "ffb-contree-2016"])
def test_every_ffb_ruleset_reads_belote_and_declarations_as_announced(ruleset):
    # The FFB texts lose an unsaid belote (FFB-B16 §7, repeated by Co15/Ct16) and an unannounced declaration
    # (FFB-Co15 §8.2); a record that says what was said is read as it says.
    from pipeline import rules
    R = rules.load(ruleset)
    assert R["belote.count"] == "announced_else_held"
    if R["declarations.enabled"]:
        assert R["declarations.count"] == "announced_else_held"


@pytest.mark.covers("ffb-coinche-2015:contract.tie", "contract.tie")
def test_ffb_coinche_tie_fails_the_contract(tmp_path):
    # FFB-Co15 §10.1.2: the contract fails when the defence has at least as much: 81-81 on a bid of 80 is 0 to
    # the takers, 160 + 80 = 240 to the defence. The litige is a tournament option: with it the takers' 81 is
    # held (-> 80) and the defence scores its 81 -> 80.
    assert settle1("ffb-coinche-2015", (81, 81), bid=80) == ([0, 240], False, 0)
    litige = house(tmp_path, "ffb-coinche-2015", '[contract]\ntie = "litige"')
    assert settle1(litige, (81, 81), bid=80) == ([0, 80], None, 80)


@pytest.mark.covers("contract.made_scores")
def test_points_annonces_a_made_contract_scores_the_bid_alone(tmp_path):
    # "Points annoncés" (CONTREE.NET: "l'équipe qui remporte son contrat marque les points associés et uniquement
    # ces points"; rules.md R31): bid 100 made with 112 and a belote: the takers 100 + their belote 20 = 120, the
    # defence nothing but its own belote (none). Under pagat-coinche's points + bid: 112 + 20 + 100 = 232 -> 230,
    # defence 50. A failure is unchanged: 160 + 100 = 260.
    bid_only = house(tmp_path, "pagat-coinche", '[contract]\nmade_scores = "bid"')
    assert settle1(bid_only, (112, 50), belote=(20, 0), bid=100) == ([120, 0], True, 0)
    assert settle1("pagat-coinche", (112, 50), belote=(20, 0), bid=100) == ([230, 50], True, 0)
    assert settle1(bid_only, (70, 92), bid=100) == ([0, 260], False, 0)
    # the defence keeps its belote: bid 90 made with 100 against 62 + belote 20 -> [90, 20]
    assert settle1(bid_only, (100, 62), belote=(0, 20), bid=90) == ([90, 20], True, 0)
