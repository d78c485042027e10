"""Where the project's data folders (``schemas/``, ``queries/``, ``data/``) are found at run time.

In a wheel they are copied into the package (``pipeline/schemas`` and so on, see pyproject.toml);
in an editable install or a checkout they are the top-level folders beside ``pipeline/``.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Folder ``name`` (``schemas``, ``queries``, ``data`` or ``rulesets``). Raises FileNotFoundError."""
    if name == "rulesets":
        return _PKG / "rules" / "rulesets"
    for cand in (_PKG / name, _PKG.parent / name):
        if cand.is_dir():
            return cand
    raise FileNotFoundError(f"resource folder {name!r} not found beside {_PKG}")
