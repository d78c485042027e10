"""Absurd integers in a house file (issue 18, finding 5): every whole number is range-checked on load, with a
RulesetError naming the file and the parameter; none reaches the kernels' int16/int32 arrays to wrap a score."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline.rules import HAND_MAX, RulesetError, _largest_hand, load, shipped_names


def _house(tmp_path, body: str):
    f = tmp_path / "house.toml"
    f.write_text('extends = "belote-classic"\nname = "house"\n' + body)
    return f


@pytest.mark.parametrize("body, message", [
    ("[belote]\nvalue = 99999999999999999999\n", "belote.value must be at most 10000, got 99999999999999999999"),
    ("[belote]\nvalue = 9223372036854775807\n", "belote.value must be at most 10000, got 9223372036854775807"),
    ("[belote]\nvalue = -9223372036854775808\n", "belote.value must be at least 0, got -9223372036854775808"),
    ("[game]\ntarget = 0\n", "game.target must be at least 1, got 0"),
    ("[game]\ntarget = 100001\n", "game.target must be at most 100000, got 100001"),
    ("[double]\ncoinche = 101\n", "double.coinche must be at most 100, got 101"),
    ("[double]\nsurcoinche = 0\n", "double.surcoinche must be at least 1, got 0"),
    ("[contract]\nfail_base = 10001\n", "contract.fail_base must be at most 10000, got 10001"),
    ("[cards]\ntrump = { J = 1001 }\n", "cards.trump.J must be a whole number >= 0 and <= 1000, got 1001"),
    ("[declarations]\ncarre = { A = 10001 }\n",
     "declarations.carre.A must be a whole number >= 0 and <= 10000, got 10001"),
    ("[cards]\nno_trump_scale = [1001, 1]\n",
     "cards.no_trump_scale must be a list of 2 whole numbers > 0 and <= 1000, got [1001, 1]"),
    ("[play]\nrevoke_penalty = 1e400\n", "play.revoke_penalty must be a whole number, got inf"),
])
def test_an_integer_out_of_range_names_the_parameter(tmp_path, body, message):
    f = _house(tmp_path, body)
    with pytest.raises(RulesetError) as e:
        load(f)
    assert str(e.value) == f"{f}: {message}"


def test_values_each_in_range_that_together_overflow_a_hand_are_refused(tmp_path):
    f = _house(tmp_path, "[cards]\nno_trump_scale = [1000, 1]\n")
    with pytest.raises(RulesetError) as e:
        load(f)
    assert str(e.value) == (f"{f}: these values can score a hand 618680 points (cards, declarations, belote and the "
                            f"contract's flat values, times double.surcoinche), more than the engine's 32767; lower "
                            "the largest of them")


@pytest.mark.parametrize("name", [n for n in shipped_names() if n != "base"])
def test_every_shipped_ruleset_fits_the_engine_with_room_to_spare(name):
    assert _largest_hand(load(name).params) * 2 < HAND_MAX


def test_the_cli_reports_a_huge_value_without_a_traceback(tmp_path):
    f = _house(tmp_path, "[belote]\nvalue = 99999999999999999999\n")
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "rules", "show", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "belote.value must be at most 10000, got 99999999999999999999" in r.stderr
