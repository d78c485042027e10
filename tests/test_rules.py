"""Ruleset files: inheritance, validation errors that name the file and key, every shipped ruleset loads."""

import tomllib
from pathlib import Path

import pytest

from pipeline import rules
from pipeline.resources import resource_dir
from pipeline.rules import RulesetError, load, shipped_names
from pipeline.rules.citations import cited_keys, listed_keys, ruleset_keys


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
    # a misspelt key or section names the closest real one
    ('extends = "base"\n[game]\ntarget_pts = 500\n', "unknown parameter game.target_pts (did you mean 'target'?)"),
    ('extend = "base"\n[game]\ntarget = 500\n', "unknown section [extend] (did you mean 'extends'?)"),
])
def test_validation_errors_name_file_and_key(tmp_path, body, message):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(RulesetError) as e:
        load(f)
    assert message in str(e.value)
    assert "bad.toml" in str(e.value) or "unknown ruleset" in str(e.value)


@pytest.mark.parametrize("body,message", [
    # these top-level keys used to escape as a TypeError / AttributeError traceback instead of a RulesetError
    ('extends = ["belote-classic"]\n', "extends must be text (one shipped ruleset's name or a .toml file), got ['belote-classic']"),
    ('extends = "belote-classic"\nsources = "mine"\n', "sources must be a table of 'section.key' = \"citation\", got 'mine'"),
    ('extends = "belote-classic"\n[sources]\n"game.target" = 501\n', "sources.game.target must be text (a citation), got 501"),
    ('name = 5\nextends = "belote-classic"\n', "name must be text, got 5"),
    # a section's name given a value instead of a table said "unknown section [game] (did you mean 'game'?)"
    ('extends = "belote-classic"\ngame = 5\n', "game must be a section: write [game] and its parameters below it, "
                                                "got game = 5"),
    # a citation of a misspelt parameter was kept silently (it cites nothing: the parameter's own citation
    # stays the parent's); it names the closest real parameter as a misspelt parameter does
    ('extends = "belote-classic"\n[sources]\n"game.targte" = "club rules"\n',
     "sources.game.targte cites an unknown parameter (did you mean 'game.target'?)"),
])
def test_house_file_top_level_keys_of_the_wrong_type(tmp_path, body, message):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(RulesetError) as e:
        load(f)
    assert str(e.value) == f"{f}: {message}"


def test_house_file_not_utf8_is_a_ruleset_error(tmp_path):
    # a file saved as UTF-16 (a BOM ff fe, then two bytes a character) escaped as a UnicodeDecodeError traceback
    f = tmp_path / "utf16.toml"
    f.write_bytes('extends = "belote-classic"\n'.encode("utf-16"))
    with pytest.raises(RulesetError) as e:
        load(f)
    assert str(e.value) == f"{f}: not UTF-8 text (byte 0xff at position 0); save the file as UTF-8"


def test_extends_cycle(tmp_path):
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n')
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n')
    with pytest.raises(RulesetError, match="cycle"):
        load(tmp_path / "a.toml")


def test_unknown_name_lists_shipped():
    with pytest.raises(RulesetError, match="shipped rulesets: .*belote-classic"):
        rules.load("belote-clasic")


# ---------------------------------------------------------------------------------------------- cited sources

SOURCES_DOC = Path(__file__).resolve().parents[1] / "docs" / "sources.md"


def test_cited_keys_grammar():
    # citations copied from the shipped rulesets, with the keys a reader has to look up in docs/sources.md
    assert cited_keys("FFB-Co15/Ct15/Ct16 §10.2 (T,Q): nearest ten, 5 up; rules.md R34") == {
        "FFB-Co15", "FFB-Ct15", "FFB-Ct16", "rules.md"}
    assert cited_keys("rules.md §2.10: the seed's 'taker scores only extras' is an error; FFB-Bweb/PAGAT-B give "
                      "all declarations to the defence") == {"rules.md", "FFB-Bweb", "PAGAT-B"}
    assert cited_keys("as the online platform of seeds 000/003 plays it") == {"seed 000", "seed 003"}
    assert cited_keys("bga.md §8.5 step 2 [code]: x 152/120, PHP round") == {"bga.md"}
    assert cited_keys("FFB-Ct16 p.7 (Q): capot bid made / contré / surcontré 500 / 1000 / 2000; rules_examples B10") \
        == {"FFB-Ct16", "rules_examples"}
    assert cited_keys("Belote contrée as colver 0.11.1 scores it (../shared/data/real/colver/FORMAT.md §6-8)") == {
        "../shared/data/real/colver/FORMAT.md"}
    # card values, matrix rows, example ids, access letters and no-trump / all-trump are not keys
    assert cited_keys("PAGAT-C + WP-FR-Co (Q): J14 9:9 A6 10:5 K3 Q1 in SA/TA; rules.md R9, R28-R29; D1-D15") == {
        "PAGAT-C", "WP-FR-Co", "rules.md"}
    assert cited_keys("") == set()


def test_listed_keys_reads_the_first_column():
    doc = ("| key | what |\n|---|---|\n| `FFB-B16` | FFB rules, `not a key` |\n"
           "| `WP-FR-B`, `WP-FR-Co` | fr.wikipedia |\ntext `outside` a table\n")
    assert listed_keys(doc) == {"FFB-B16", "WP-FR-B", "WP-FR-Co"}


def test_every_cited_source_is_listed():
    """Every abbreviation a shipped ruleset's description or [sources] uses is explained in docs/sources.md."""
    listed = listed_keys(SOURCES_DOC.read_text(encoding="utf-8"))
    missing = {}
    files = sorted(resource_dir("rulesets").glob("*.toml"))
    assert len(files) == len(shipped_names())
    for path in files:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        keys = ruleset_keys(data.get("description", ""), data.get("sources", {}).values())
        if keys - listed:
            missing[path.name] = sorted(keys - listed)
    assert not missing, f"add these to {SOURCES_DOC}: {missing}"
    # the check can fail: a key no page lists is found
    assert ruleset_keys("", ["XYZ-Q9 §1 (D)"]) - listed == {"XYZ-Q9"}


@pytest.mark.parametrize("ruleset, expected", [("belote-classic", [[0, 0]]), ("belote-classic-501", [[0, 0]]),
                                               ("ffb-classic-announcements", [[0, 0]]),
                                               ("ffb-coinche-2015", [[20, 0]])])
def test_capoted_team_declarations_per_ruleset(ruleset, expected):
    # team 1 holds a tierce (20) and team 0 takes every trick: rules.md R24, PAGAT-B (classic): a side that
    # took no trick counts none of its declarations; FFB-Co15: they change hands to the capot team
    import numpy as np
    from pipeline.rescore.declaration_contest import on_capot
    from pipeline.rescore.pass_layout import _ON_CAPOT
    D = np.array([[0, 20]], dtype=np.int64)
    on_capot(D, 0, 2, 0, np.array([[True, False]]), _ON_CAPOT[rules.load(ruleset)["declarations.on_capot"]])
    assert D.tolist() == expected


def test_a_path_that_is_no_ruleset_file_says_file_not_found(tmp_path, monkeypatch):
    # new-user trial: `--rules chez-nous.tml` (a typo for .toml) said "unknown ruleset" and listed the shipped
    # ones; a name that is a path (a suffix or a folder) is not a shipped name: say what is wrong with the file
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesetError) as e:
        load("chez-nous.tml")
    assert str(e.value) == "ruleset 'chez-nous.tml' is no shipped ruleset, and no ruleset file: file not found"
    (tmp_path / "club.toml").write_text('name = "club"\nextends = "belote-classic"\n')
    with pytest.raises(RulesetError) as e:
        load("club.tml")
    assert str(e.value).endswith("file not found; did you mean club.toml?")
    with pytest.raises(RulesetError) as e:
        load("rules/club")
    assert "no ruleset file: file not found" in str(e.value)
    # a plain name still lists the shipped rulesets, with the closest ones
    with pytest.raises(RulesetError) as e:
        load("belote-clasic")
    assert str(e.value).startswith("unknown ruleset 'belote-clasic'; did you mean belote-classic")
