import math

import pytest
from hypothesis import given, strategies as st

from baselines import Budget


def test_budget_keeps_units_in_contract_order():
    b = Budget(tokens=200_000, rollouts=80, custom_units=3)
    assert b.units == ("rollouts", "tokens", "custom_units")
    assert b["tokens"] == 200_000 and "rollouts" in b and "calls" not in b


@pytest.mark.parametrize("kwargs, words", [
    ({}, "at least one unit"),
    ({"tokens": -1}, "'tokens' must be non-negative"),
    ({"tokens": math.nan}, "'tokens' must be finite"),
    ({"usd": math.inf}, "'usd' must be finite"),
    ({"calls": "10"}, "'calls' must be a number"),
    ({"calls": True}, "'calls' must be a number"),
])
def test_budget_rejects_bad_allowances_naming_the_unit(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Budget(**kwargs)


def test_split_remainder_goes_to_first_shares():
    shares = Budget(rollouts=10, tokens=7).split(3)
    assert [s["rollouts"] for s in shares] == [4, 3, 3]
    assert [s["tokens"] for s in shares] == [3, 2, 2]


def test_split_smaller_total_than_ways_gives_zero_shares():
    assert [s["calls"] for s in Budget(calls=2).split(4)] == [1, 1, 0, 0]


def test_split_continuous_units_evenly():
    shares = Budget(usd=1.0, seconds=10).split(3)
    assert sum(s["usd"] for s in shares) <= 1.0
    assert all(s["seconds"] == pytest.approx(10 / 3) for s in shares)


@pytest.mark.parametrize("ways", [0, -1, 1.5, True])
def test_split_rejects_non_positive_ways(ways):
    with pytest.raises(ValueError, match="positive whole number"):
        Budget(calls=10).split(ways)


@given(total=st.integers(0, 10**9), ways=st.integers(1, 64))
def test_split_whole_units_never_exceed_whole_and_differ_by_at_most_one(total, ways):
    shares = [s["tokens"] for s in Budget(tokens=total).split(ways)]
    assert sum(shares) == total
    assert max(shares) - min(shares) <= 1


@given(total=st.floats(0, 1e6, allow_nan=False), ways=st.integers(1, 64))
def test_split_continuous_never_exceeds_whole(total, ways):
    shares = [s["usd"] for s in Budget(usd=total).split(ways)]
    assert math.fsum(shares) <= total
    assert max(shares) == min(shares)
