"""Ruleset files: inheritance, validation errors that name the file and key, every shipped ruleset loads."""

import pytest

from pipeline import rules
from pipeline.rules import RulesetError, load, shipped_names


@pytest.mark.parametrize("name", shipped_names())
def test_every_shipped_ruleset_resolves(name):
    r = load(name)
    assert r.name == name and r.chain[-1] == "base"
    assert set(r.flat()) == set(load("base").flat())


def test_inheritance_and_overrides():
    r = load("belote-classic-501")
    assert r.chain == ("belote-classic-501", "belote-classic", "ffb-classic-announcements", "ffb-classic", "base")
    assert r["game.target"] == 501 and r["declarations.enabled"] is True
    assert r.sources["game.target"].startswith("seed 000")
    # a partial rank table overrides only the ranks it names
    assert load("ffb-contree-2016").rank_table("cards.all_trump") == [0, 0, 14, 10, 20, 3, 4, 11]


def test_house_rules_file(tmp_path):
    f = tmp_path / "club.toml"
    f.write_text('name = "club"\nextends = "belote-classic"\n[game]\ntarget = 501\n[rounding]\nmode = "nearest10_5up"\n')
    r = load(f)
    assert (r.name, r["game.target"], r["rounding.mode"], r["declarations.enabled"]) == ("club", 501, "nearest10_5up", True)
    # a house file may extend another house file by relative path
    g = tmp_path / "club2.toml"
    g.write_text('name = "club2"\nextends = "club.toml"\n[cards]\nlast_trick = 20\n')
    assert load(g)["game.target"] == 501 and load(g)["cards.last_trick"] == 20


@pytest.mark.parametrize("body,message", [
    ('extends = "base"\n[game]\ntargett = 5\n', "unknown parameter game.targett"),
    ('extends = "base"\n[gaem]\ntarget = 5\n', "unknown section [gaem]"),
    ('extends = "base"\n[game]\ntarget = "five"\n', "game.target must be a whole number"),
    ('extends = "base"\n[play]\nmust_trump = 1\n', "play.must_trump must be true or false"),
    ('extends = "base"\n[rounding]\nmode = "nearest5"\n', "rounding.mode = 'nearest5' is not supported"),
    ('extends = "base"\n[cards]\ntrump = { Z = 3 }\n', "unknown rank(s) ['Z']"),
    ('extends = "nope"\n', "unknown ruleset 'nope'"),
    ('[game]\ntarget = 5\n', "missing parameter"),
    ('extends = "base"\n[game\n', "not valid TOML"),
    ('extends = "base"\n[cards]\nall_trump_scale = [0, 1]\n', "cards.all_trump_scale must be a list of 2 whole numbers > 0"),
])
def test_validation_errors_name_file_and_key(tmp_path, body, message):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(RulesetError) as e:
        load(f)
    assert message in str(e.value)
    assert "bad.toml" in str(e.value) or "unknown ruleset" in str(e.value)


def test_extends_cycle(tmp_path):
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n')
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n')
    with pytest.raises(RulesetError, match="cycle"):
        load(tmp_path / "a.toml")


def test_unknown_name_lists_shipped():
    with pytest.raises(RulesetError, match="shipped rulesets: .*belote-classic"):
        rules.load("belote-clasic")


@pytest.mark.parametrize("ruleset, expected", [("belote-classic", [[0, 0]]), ("belote-classic-501", [[0, 0]]),
                                               ("ffb-classic-announcements", [[0, 0]]),
                                               ("ffb-coinche-2015", [[20, 0]])])
def test_capoted_team_declarations_per_ruleset(ruleset, expected):
    # team 1 holds a tierce (20) and team 0 takes every trick: rules.md R24, PAGAT-B (classic): a side that
    # took no trick counts none of its declarations; FFB-Co15: they change hands to the capot team
    import numpy as np
    from pipeline.rescore.declarations import transfer_on_capot
    got = transfer_on_capot(np.array([[0, 20]], dtype=np.int32), np.array([0]), rules.load(ruleset))
    assert got.tolist() == expected
