"""The package's import graph runs one way (issue 19): no cycle, and no module imports a stage above its own.

The graph is read from the source with ``ast``, every ``import`` statement counted wherever it stands
(function-level imports included: they hide cycles from Python but not from a reader). An edge goes to the
module named: ``from pipeline.formats import bga`` to ``pipeline.formats.bga``, ``from pipeline.storage import lake``
to ``pipeline.storage.lake``, ``from pipeline.formats.records import Reject`` to ``pipeline.formats.records``. Python also
runs the parent package's ``__init__`` on such an import; that is not counted, since a package's ``__init__``
that registers its modules (``pipeline.formats.READERS``) is not a dependency of those modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"

#: The stages, lowest first; a module belongs to the first stage one of whose names is the module or a package
#: above it. A module may import its own stage and the ones below, never one above.
STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("cards", "words", "names", "catalog", "resources", "limits", "jit", "trick_order", "arrow_rows",
              "engine_version", "rules.citations", "terminal")),
    ("storage", ("storage",)),
    ("rules", ("rules",)),
    ("formats", ("formats",)),
    ("ingest", ("ingest",)),
    ("facts", ("facts",)),
    ("rescore", ("rescore",)),
    ("simulate", ("simulate",)),
    ("stats", ("stats",)),
    ("maintenance", ("maintenance",)),
    ("report", ("report",)),
    ("commands", ("bench", "cli")),
]

#: Edges that break the stages today, each with what removes it. The test fails when one of these is gone (so
#: the list only shrinks) and on any edge not listed.
KNOWN: dict[tuple[str, str], str] = {}


def modules() -> dict[str, Path]:
    """Dotted names below ``pipeline`` (``ingest.run``; a package by its own name) -> source file."""
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            out[".".join(parts)] = p
    return out


def graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (names as in :func:`modules`)."""
    mods = modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:       # relative: from its package, one level up per extra dot
                    up = package.split(".") if package else []
                    up = up[:len(up) - (node.level - 1)]
                    base = "pipeline." + ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names]
                targets = [t if t.removeprefix("pipeline.") in mods else base for t in targets]
            for t in targets:
                if t.startswith("pipeline."):
                    r = resolve(t.removeprefix("pipeline."))
                    if r is not None and r != m:
                        edges[m].add(r)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def stage(module: str) -> int:
    """Index in :data:`STAGES` of ``module``'s stage. Raises KeyError for a module in no stage."""
    parts = module.split(".")
    for i, (_, names) in enumerate(STAGES):
        if any(".".join(parts[:k]) in names for k in range(len(parts), 0, -1)):
            return i
    raise KeyError(module)


def test_the_graph_sees_function_level_imports():
    # pipeline.facts.derived.hands_unchanged imports pipeline.storage.lake inside the function only
    assert "storage.lake" in graph()["facts.derived"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_every_module_has_a_stage():
    missing = [m for m in modules() if not _has_stage(m)]
    assert missing == [], f"add these modules to a stage of STAGES: {missing}"


def _has_stage(m: str) -> bool:
    try:
        stage(m)
        return True
    except KeyError:
        return False


def test_no_module_imports_a_stage_above_its_own():
    upward = {(m, t) for m, ts in graph().items() for t in ts if _has_stage(m) and _has_stage(t)
              and stage(t) > stage(m)}
    assert sorted(upward - set(KNOWN)) == []
    gone = sorted(set(KNOWN) - upward)
    assert gone == [], f"these edges are gone: remove them from KNOWN: {gone}"


@pytest.mark.parametrize("low", ["storage.commits", "storage.lake", "storage.schema", "names"])
def test_storage_imports_nothing_above_it(low):
    # the storage layer knows tables and files, never readers, rules, scores or reports
    assert {t for t in graph()[low] if stage(t) > stage("storage.lake")} == set()


def test_the_folders_are_the_stages():
    # the layout shows the architecture: a module at the top of the package is base, and every subpackage
    # (rules/citations aside: the abbreviations every stage may print) lies in one stage, named after it
    for m in modules():
        top = m.split(".")[0]
        if "." not in m and (PACKAGE / f"{m}.py").exists():
            assert stage(m) == 0, f"{m} is at the top of the package but not in the base stage"
        elif m != "rules.citations":
            assert STAGES[stage(m)][1] == (top,) or top in STAGES[stage(m)][1], m
    assert [name for name, _ in STAGES[1:-1]] == [names[0] for _, names in STAGES[1:-1]]
