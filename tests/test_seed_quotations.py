"""No sentence of the seed texts is copied into the project.

The five rule pages in ``../shared/seeds/`` (Spanish, one in Tagalog) are reference material: their README asks
that they be read for the rules and never quoted. The rulesets, tests and docs cite them (``seed 004``, a section
or table) and say in English what the text states. This test keeps it so: it reads the seed texts, normalises
them (case, accents, punctuation and whitespace dropped: words only) and fails if any run of :data:`RUN` or more
consecutive seed words appears in a file git tracks, naming the file, the line and the fragment.

Runs made only of one- and two-character words and numbers (a card order such as J 9 A 10 K Q 8 7, a row of
card values) are not language and are not counted. The test skips, saying why, when ``../shared`` is absent
(a plain clone) or the checkout is not a git work tree.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest
from conftest import shared_path

#: The shortest run of consecutive seed words that counts as a quotation.
RUN = 6

ROOT = Path(__file__).resolve().parents[1]
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[tuple[str, int]]:
    """The words of ``text`` with their 1-based line numbers: case folded, accents removed, punctuation,
    underscores and whitespace as separators."""
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        folded = unicodedata.normalize("NFKD", line.casefold())
        folded = "".join(c for c in folded if not unicodedata.combining(c))
        out.extend((w, no) for w in _WORD.findall(folded))
    return out


def is_language(run: tuple[str, ...]) -> bool:
    """Whether a run of words is text rather than a card order or a row of numbers: one word of three letters."""
    return any(len(w) >= 3 and w.isalpha() for w in run)


def seed_runs(seed_dir: Path) -> dict[tuple[str, ...], str]:
    """Every run of :data:`RUN` consecutive words of the seed texts (``*.txt``) -> the seed's number ('004')."""
    runs: dict[tuple[str, ...], str] = {}
    for path in sorted(seed_dir.glob("*.txt")):
        ws = [w for w, _ in words(path.read_text(encoding="utf-8"))]
        for i in range(len(ws) - RUN + 1):
            run = tuple(ws[i:i + RUN])
            if is_language(run):
                runs.setdefault(run, path.name[:3])
    return runs


def quotations(text: str, runs: dict[tuple[str, ...], str]) -> list[tuple[int, str, str]]:
    """The seed quotations in ``text``: (line, seed, fragment) for each maximal stretch of overlapping runs."""
    ws = words(text)
    found, i = [], 0
    while i + RUN <= len(ws):
        run = tuple(w for w, _ in ws[i:i + RUN])
        if run not in runs:
            i += 1
            continue
        end = i + RUN                     # extend while the next window is a seed run too
        while end < len(ws) and tuple(w for w, _ in ws[end - RUN + 1:end + 1]) in runs:
            end += 1
        found.append((ws[i][1], runs[run], " ".join(w for w, _ in ws[i:end])))
        i = end
    return found


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"{ROOT} is not a git work tree ({e}): no tracked files to check")
    return [ROOT / p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def read_text(path: Path) -> str | None:
    """A tracked file's text; None for a binary file (NUL bytes or not UTF-8) or one deleted from the tree."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, ...], str]:
    seeds = shared_path("seeds")
    found = seed_runs(seeds)
    if not found:
        pytest.skip(f"no seed text (*.txt) in {seeds}")
    return found


def test_no_seed_text_is_quoted_verbatim(runs):
    bad = []
    for path in tracked_files():
        text = read_text(path)
        if text is not None:
            bad += [f"{path.relative_to(ROOT)}:{line}: seed {seed}: {frag!r}"
                    for line, seed, frag in quotations(text, runs)]
    assert not bad, (f"{len(bad)} verbatim quotation(s) of the seed texts ({RUN}+ consecutive words; "
                     "say it in English and cite the seed instead):\n" + "\n".join(bad))


def test_the_check_finds_a_planted_quotation(runs):
    # a run of the seed text itself, taken at run time (so this file quotes nothing), planted in a comment with
    # different case, punctuation and line breaks, is found at its line; the same run one word short is not.
    run, seed = next((r, s) for r, s in runs.items() if s == "004")
    planted = "x = 1\n# the text says: " + ", ".join(run[:3]).upper() + "\n#   " + " -- ".join(run[3:]) + ".\n"
    assert quotations(planted, runs) == [(2, seed, " ".join(run))]
    assert quotations("# " + " ".join(run[:RUN - 1]) + "\n", runs) == []
    # a card order is not language: never a quotation, whatever a seed lists
    assert not is_language(("j", "9", "a", "10", "k", "q")) and is_language(("una", "carta", "1", "2", "3", "4"))
