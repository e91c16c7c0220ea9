"""One alpha rule: every entry point that takes a significance level accepts and refuses the same values."""
from __future__ import annotations

import math

import pytest

from baselines import CompareOptions
from baselines.analysis.statistics.alpha import ALPHA_RANGE, check_alpha
from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import gate_decision
from baselines.analysis.compare.pair_verdict import decide
from baselines.cli import main

BAD = [0, 0.0, 0.5, 0.7, 1, -0.1, math.nan, math.inf, True, "0.05", None]
GOOD = [1e-9, 0.01, 0.05, 0.1, 0.499]


@pytest.mark.parametrize("value", GOOD)
def test_a_level_inside_the_range_is_kept(value):
    assert check_alpha(value) == value
    assert CompareOptions(alpha=value).alpha == value
    assert gate_decision([0.1, 0.2, 0.15, 0.3], margin=0.05, alpha=value).verdict in ("PASS", "FAIL", "INCONCLUSIVE")
    assert decide([], alpha=value) == []


@pytest.mark.parametrize("value", BAD)
def test_every_entry_point_refuses_the_same_levels(value):
    with pytest.raises(ValueError, match="alpha must be a number between 0 and 0.5"):
        check_alpha(value)
    with pytest.raises(ValueError, match="alpha must be"):
        CompareOptions(alpha=value)
    with pytest.raises(ValueError, match="alpha must be"):
        decide([], alpha=value)
    with pytest.raises(ValueError, match="alpha must be"):
        gate_decision([0.1, 0.2, 0.15, 0.3], margin=0.05, alpha=value)
    if value is not None:  # run_gate's alpha=None means the comparison options' alpha
        with pytest.raises(ValueError, match="alpha must be"):
            run_gate([], "calls", "a", "b", margin=0.1, alpha=value)


@pytest.mark.parametrize("text", ["0.5", "0.7", "0", "-1", "nan", "abc"])
def test_the_command_line_refuses_them_in_one_line(text, tmp_path, capsys):
    code = main(["check", str(tmp_path / "none.jsonl"), "--baseline", "a", "--candidate", "b", "--margin", "0.1",
                 "--alpha", text])
    err = capsys.readouterr().err
    assert code == 2
    assert "--alpha must be a number between 0 and 0.5" in err and err.count("\n") == 1


def test_the_range_is_the_one_the_two_sided_intervals_need():
    assert ALPHA_RANGE == (0.0, 0.5)  # 1 - 2 alpha > 0: the gate's and TOST's interval is not empty
