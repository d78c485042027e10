"""Every ruleset parameter has a rule test: the ``covers(...)`` marks of tests/rules/test_*.py, read with ``ast``.

* every parameter of ``base.toml`` ('section.key', meta keys and [sources] aside) must be named by some
  ``covers("section.key")``;
* every parameter a seed ruleset's own TOML file sets to a value other than base.toml's must be named as
  ``covers("RULESET:section.key")``; a value equal to base.toml's (restated only to cite the seed for it) is
  the value the base parameter's own test pins, so that test covers it;
* every name a ``covers`` mark gives must be a real parameter (a typo would otherwise cover nothing).

A new parameter in base.toml therefore fails this test until a test in tests/rules/ pins it (see harness.py for
the pattern: the hand-computed value under the ruleset and the different one with the parameter changed).
"""

import ast
import tomllib
from pathlib import Path

import pytest

from pipeline.resources import resource_dir

pytestmark = pytest.mark.rules

HERE = Path(__file__).resolve().parent
RULESETS = resource_dir("rulesets")
META = {"name", "extends", "description", "sources"}
SEED_RULESETS = ["mundijuegos-classic", "mundijuegos-classic-no-announcements", "mundijuegos-2p", "mundijuegos-3p",
                 "mundijuegos-coinche", "fournier-2p", "fournier-4p", "bulgarian-plain", "coinche-1000"]


def own_parameters(path: Path) -> set[str]:
    """The 'section.key' parameters a ruleset file sets itself (not inherited, meta keys and [sources] aside)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {f"{s}.{k}" for s, body in data.items() if s not in META and isinstance(body, dict) for k in body}


def covered() -> dict[str, list[str]]:
    """Each string argument of a ``covers(...)`` call (``pytest.mark.covers``, as a decorator, in ``marks=`` or
    in ``pytestmark``) in tests/rules/test_*.py -> the files naming it."""
    out: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name == "covers":
                    for arg in node.args:
                        assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                            f"{path.name}:{node.lineno}: covers() takes literal strings")
                        out.setdefault(arg.value, []).append(path.name)
    return out


BASE_PARAMS = sorted(own_parameters(RULESETS / "base.toml"))


def test_every_base_parameter_has_a_rule_test():
    have = covered()
    missing = [p for p in BASE_PARAMS if p not in have]
    assert not missing, f"base.toml parameters without a rule test (@pytest.mark.covers): {', '.join(missing)}"


def test_covers_names_real_parameters():
    bad = []
    for name in covered():
        ruleset, _, param = name.rpartition(":")
        if param not in BASE_PARAMS or (ruleset and ruleset not in SEED_RULESETS
                                        and not (RULESETS / f"{ruleset}.toml").exists()):
            bad.append(name)
    assert not bad, f"covers() names no parameter: {bad}"


@pytest.mark.parametrize("name", SEED_RULESETS)
def test_every_seed_ruleset_value_has_a_rule_test(name):
    path = RULESETS / f"{name}.toml"
    if not path.exists():
        pytest.skip(f"seed ruleset {name} is not shipped yet")
    have = covered()
    base = tomllib.loads((RULESETS / "base.toml").read_text(encoding="utf-8"))
    own = tomllib.loads(path.read_text(encoding="utf-8"))

    def differs(dotted: str) -> bool:
        section, key = dotted.split(".")
        value, default = own[section][key], base[section][key]
        if isinstance(default, dict):
            value = {**default, **value}
        return value != default

    missing = sorted(p for p in own_parameters(path) if differs(p) and f"{name}:{p}" not in have)
    assert not missing, (f"{name} sets parameters without a rule test of its value "
                         f"(@pytest.mark.covers(\"{name}:section.key\")): {', '.join(missing)}")
