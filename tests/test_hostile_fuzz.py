"""A fuzz test per reader (issue 18): random damage to a valid sample of each format, read in a subprocess under
a memory limit (RLIMIT_AS, 3000 MB) and a time limit (the timeout below). The accounting must hold for every
reader (tests/fuzz_accounting.py says what a record is per format): no reader fails (``reader_error``), every input
record is a game or hand of the lake or covered by a reject, each once, and nothing else appears. Readers whose
sample needs ../shared print a skip when it is absent; the default run tries 12 damaged files per reader (a few
seconds each), ``pytest -m slow`` 150."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import formats

SCRIPT = Path(__file__).with_name("fuzz_accounting.py")


def _run(fmt: str, examples: int) -> None:
    r = subprocess.run([sys.executable, str(SCRIPT), fmt, str(examples)], capture_output=True, text=True,
                       timeout=240 if examples < 100 else 1800)
    out = r.stdout.strip()
    if out.startswith("skip:"):
        pytest.skip(out)
    assert r.returncode == 0 and out.endswith("ok"), r.stdout[-3000:] + r.stderr[-3000:]


def test_every_registered_reader_is_fuzzed():
    from fuzz_accounting import BESIDE, DOC_UNITS, LINE_UNITS
    # the file-per-game readers are the rest; a new reader must be given its kind of record here
    assert set(formats.names()) - LINE_UNITS - DOC_UNITS - BESIDE == {"bga", "openspiel-state"}


@pytest.mark.parametrize("fmt", formats.names())
def test_fuzz_reader_accounting_under_memory_and_time_limits(fmt):
    _run(fmt, 12)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", formats.names())
def test_fuzz_reader_accounting_many_examples(fmt):
    _run(fmt, 150)
