"""Regression tests of the attacks of issue 18 beyond its seven findings that failed (the whole list, with the
result of each: the issue's note). Each test failed before its fix."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile

import orjson
import pytest

from pipeline import lake as lakemod
from pipeline.ingest.run import ingest_paths
from pipeline.rules import load
from pipeline.simulate import simulate

GAMES = b"".join(orjson.dumps(g) + b"\n" for g in simulate(load("belote-classic"), 2, 7))


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:        # stored, not deflated: the members' bytes are there as text
        z.writestr("games.jsonl", data)
    return out.getvalue()


def _tar(data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        info = tarfile.TarInfo("games.jsonl")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize("pack, what, how", [
    (_zip, "a zip archive", "unzip"),
    (lzma.compress, "xz-compressed", "xz -d"),
    (bz2.compress, "bzip2-compressed", "bunzip2"),
    (_tar, "a tar archive", "tar -xf"),
    (lambda d: gzip.compress(gzip.compress(d)), "gzip-compressed twice (a gzip inside the gzip)", "gunzip"),
], ids=["zip", "xz", "bz2", "tar", "gzip-in-gzip"])
def test_an_archive_or_other_compression_is_named_for_what_it_is(tmp_path, pack, what, how):
    # a stored zip was read as text: the games on lines of their own imported, the first one (on the zip header's
    # line) and the directory rejected as bad_encoding; xz, bzip2, tar and a double gzip were only "not recognised"
    f = tmp_path / "games.jsonl.pack"
    f.write_bytes(pack(GAMES))
    s = ingest_paths([f], tmp_path / "lake", fmt="rebelote")
    assert (s.games, dict(s.rejected)) == (0, {"unreadable_file": 1})
    r = lakemod.read(tmp_path / "lake", "rejects", ["reason", "source_line"]).to_pylist()
    assert r == [{"reason": f"the file is {what}: the ingest reads plain text and gzip files; unpack it first "
                            f"({how}) and import what it holds", "source_line": None}]


def test_concatenated_gzip_members_are_read_as_one_file(tmp_path):
    first, rest = GAMES.split(b"\n", 1)
    f = tmp_path / "two.jsonl.gz"
    f.write_bytes(gzip.compress(first + b"\n") + gzip.compress(rest))
    s = ingest_paths([f], tmp_path / "lake")
    assert (s.games, dict(s.rejected)) == (2, {})
