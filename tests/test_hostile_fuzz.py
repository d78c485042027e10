"""A fuzz test per reader (issue 18): random damage to a file each reader claims, read under a memory limit
(RLIMIT_AS) and a time limit in a subprocess. The accounting must hold: no reader fails (``reader_error``), every
reject names its file, and for the native format every non-blank input line is a game of the lake or a reject of
that line, and nothing else appears."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from pipeline import ingest

SCRIPT = textwrap.dedent('''
    import resource, sys, tempfile, pathlib, orjson
    resource.setrlimit(resource.RLIMIT_AS, (3000 << 20, 3000 << 20))
    from hypothesis import given, settings, strategies as st, HealthCheck
    from pipeline import lake as lakemod
    from pipeline.ingest.run import ingest_paths
    from pipeline.limits import Limits
    from pipeline.rules import load
    from pipeline.simulate import simulate

    fmt = sys.argv[1]
    games = [orjson.dumps(g) for g in simulate(load("belote-classic"), 2, 9)]
    seed = b"\\n".join(games) + b"\\n" if fmt == "rebelote" else b'{"a": [1, {"b": "c"}]}\\n' + games[0] + b"\\n"
    mutation = st.tuples(st.sampled_from(["cut", "insert", "flip", "dup", "key"]), st.integers(0, 10 ** 6),
                         st.binary(min_size=0, max_size=40))

    def mutate(data, ops):
        for op, at, blob in ops:
            i = at % (len(data) + 1)
            if op == "cut":
                data = data[:i]
            elif op == "insert":
                data = data[:i] + blob + data[i:]
            elif op == "flip" and data:
                data = data[:i] + bytes([(data[i % len(data)] + 1) % 256]) + data[i + 1:]
            elif op == "dup":
                data = data[:i] + data[i:i + 200] + data[i:]
            elif op == "key":
                data = data.replace(b'"players":', b'"players":[],"players":', 1)
        return data

    @settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(mutation, max_size=4))
    def check(ops):
        with tempfile.TemporaryDirectory() as d:
            f = pathlib.Path(d) / ("in.jsonl")
            data = mutate(seed, ops)
            f.write_bytes(data)
            lake = pathlib.Path(d) / "lake"
            s = ingest_paths([f], lake, fmt=fmt, bounds=Limits(max_line_bytes=1 << 20, max_bytes=1 << 24))
            assert "reader_error" not in s.rejected, s.rejected
            rej = lakemod.read(lake, "rejects", ["source_file", "source_line", "reason_code"]).to_pylist() \\
                if lakemod.has_table(lakemod.locate(lake), "rejects") else []
            assert all(r["source_file"] == str(f) for r in rej)
            if fmt == "rebelote":
                lines = [i for i, x in enumerate(data.split(b"\\n"), 1) if x.strip()]
                n_games = lakemod.read(lake, "games", ["game_id"]).num_rows \\
                    if lakemod.has_table(lakemod.locate(lake), "games") else 0
                line_rejects = [r["source_line"] for r in rej if r["source_line"] is not None]
                # every line a game, a reject of that line or a counted duplicate, each once; nothing else
                assert n_games == s.games
                assert len(set(line_rejects)) == len(line_rejects) and set(line_rejects) <= set(lines)
                assert s.games + len(line_rejects) + s.duplicates == len(lines), (s, line_rejects, lines)
    check()
    print("ok")
''')


@pytest.mark.parametrize("fmt", ingest.names())
def test_fuzz_reader_accounting_under_memory_and_time_limits(fmt):
    r = subprocess.run([sys.executable, "-c", SCRIPT, fmt], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-3000:] + r.stderr[-3000:]
