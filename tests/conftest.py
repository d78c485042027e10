from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest

# ../shared beside the checkout (the project workspace and CI); REBELOTE_SHARED points elsewhere.
SHARED = Path(os.environ.get("REBELOTE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
MISSING = f"{SHARED} not available: ../shared is only present in the project workspace (set REBELOTE_SHARED)"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test (with the reason) when it is absent (plain clone)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(MISSING if not SHARED.exists() else f"{p} not found")
    return p


def shared_cases(relpath: str, kind: str | None = None, key: str = "cases") -> list:
    """Oracle cases of a ../shared JSON file as pytest params (id = case id); one skipped param with the reason
    when the file is absent, so the skip says why instead of 'empty parameter set'."""
    p = SHARED / relpath
    if not p.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING), id="shared-missing")]
    data = json.loads(p.read_text())
    cases = data[key] if isinstance(data, dict) else data
    cases = [c for c in cases if kind is None or c.get("kind") == kind]
    return [pytest.param(c, id=str(c.get("id", i))) for i, c in enumerate(cases)]


def write_jsonl(path: Path, objs) -> Path:
    path.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objs))
    return path
