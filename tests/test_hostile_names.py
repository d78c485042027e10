"""Names that become lake paths (issue 18, finding 1): a ruleset name, a source, a table, a partition value or an
output file can never make a lake command write, rename or delete outside the lake folder."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pyarrow as pa
import pytest


from pipeline.storage import lake_write
from pipeline import names
from pipeline.storage import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rules import RulesetError, load
from pipeline.simulate.games import simulate

BAD = ["../../../../victim", "..", "a..b", "/etc/victim", "a/b", "a\0b", "ok\n", "", " x", "x=y", "a\\b", "-x",
       "x" * 101]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_no_bad_name_is_plain(bad):
    assert not names.is_plain(bad)
    with pytest.raises(names.BadName, match="is not a plain name"):
        names.check("source", bad)


@pytest.mark.parametrize("good", ["belote-classic", "club", "h1.v2", "a+b", "x" * 100, "9_z"])
def test_plain_names_pass(good):
    assert names.check("source", good) == good


@pytest.mark.parametrize("bad", [b for b in BAD if b], ids=repr)
def test_a_house_ruleset_name_that_is_no_plain_name_is_a_ruleset_error(tmp_path, bad):
    f = tmp_path / "evil.toml"
    f.write_text(f'extends = "belote-classic"\nname = {orjson.dumps(bad).decode()}\n')
    with pytest.raises(RulesetError) as e:
        load(f)
    assert str(e.value) == (f"{f}: ruleset name {bad!r} is not a plain name ({names.RULE}): it names a folder of "
                            "the lake (its name)")


def test_a_file_name_that_is_no_plain_name_needs_a_name_in_the_file(tmp_path):
    f = tmp_path / "my rules.toml"
    f.write_text('extends = "belote-classic"\n')
    with pytest.raises(RulesetError, match=r"ruleset name 'my rules' is not a plain name .*give it name ="):
        load(f)
    f.write_text('extends = "belote-classic"\nname = "my-rules"\n')
    assert load(f).name == "my-rules"


def _lake(tmp_path):
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"".join(orjson.dumps(g) + b"\n" for g in simulate(load("belote-classic"), 1, 3)))
    lake = tmp_path / "lake"
    ingest_paths([src], lake)
    return lake


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


def test_rescore_with_an_escaping_ruleset_name_touches_nothing_outside_the_lake(tmp_path):
    lake = _lake(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    evil = tmp_path / "evil.toml"
    evil.write_text('extends = "belote-classic"\nname = "../../victim"\n')
    r = _cli("rescore", "--rules", evil, "--lake", lake)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "ruleset name '../../victim' is not a plain name" in r.stderr
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt"] and (victim / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in lake.iterdir()) == [".lock", "_lake.json", "_manifest.json", "games", "hands", "holdings"]


@pytest.mark.parametrize("bad", ["../../victim", "/tmp/victim", "a/b", "a\0b", "x\n"], ids=repr)
def test_lake_partitions_refuse_a_value_that_is_no_plain_name(tmp_path, bad):
    lake = _lake(tmp_path)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    t = pa.table({"ruleset": [bad]})
    with pytest.raises(names.BadName, match="is not a plain name"):
        lake_write.replace_partition(lake, "scores", bad, [t])
    with pytest.raises(names.BadName, match="is not a plain name"):
        lake_write.drop_partition(lake, "scores", bad)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("part", ["..", "../x", "/etc", "a/../../b", "a\0", "a\\..\\b", ""], ids=repr)
def test_a_lake_path_never_leaves_the_root(tmp_path, part):
    loc = lakemod.locate(tmp_path / "lake")
    with pytest.raises(names.BadName, match="is not a relative path inside the lake"):
        loc.path(part)
    with pytest.raises(names.BadName):
        lakemod.write_bytes(loc, part, b"x")
    assert not any(tmp_path.iterdir())


def test_a_source_with_a_trailing_newline_is_rejected(tmp_path):
    g = next(iter(simulate(load("belote-classic"), 1, 3)))
    g["source"] = "club\n"     # `^...$` let it through: a folder 'source=club\n'
    f = tmp_path / "a.jsonl"
    f.write_bytes(orjson.dumps(g) + b"\n")
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, s.hands, dict(s.rejected)) == (0, 0, {"bad_source": 1})


@pytest.mark.parametrize("where", ["hands/source=rebelote/part-x.parquet", "games.csv", "."])
def test_a_report_is_never_written_inside_the_lake(tmp_path, where):
    lake = _lake(tmp_path)
    before = {p: p.read_bytes() for p in lake.rglob("*") if p.is_file()}
    target = lake / where
    r = _cli("games", "--lake", lake, "--format", "csv", "--output", target)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{target} is inside the lake folder {lake}" in " ".join(r.stderr.split())
    assert {p: p.read_bytes() for p in lake.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("table", ["../../victim", "hands/../..", "/etc"])
def test_compact_of_a_table_that_is_no_table_is_a_usage_error(tmp_path, table):
    lake = _lake(tmp_path)
    r = _cli("compact", "--lake", lake, "--table", table)
    assert r.returncode == 2 and "Traceback" not in r.stderr and f"unknown table {table!r}" in r.stderr
