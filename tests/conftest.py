from __future__ import annotations

from pathlib import Path

import orjson
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test (with the reason) when it is absent (plain clone)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} not available: ../shared is only present in the project workspace")
    return p


def write_jsonl(path: Path, objs) -> Path:
    path.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objs))
    return path
