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


# -- budget identity by exact value (issue 18, item 1) ---------------------------------------
import json  # noqa: E402

from baselines.cli import main  # noqa: E402
from baselines.core.records import budget_key, budget_label, read_records  # noqa: E402
from baselines.analysis.tables.table import RunTable  # noqa: E402


@pytest.mark.parametrize("a, b", [
    ({"tokens": 1_500_000}, {"tokens": 1_500_001}),
    ({"usd": 0.3}, {"usd": 0.1 + 0.2}),
    ({"seconds": 1.5}, {"seconds": 1.5000000000000002}),
    ({"tokens": 1_000_000, "calls": 5}, {"tokens": 1_000_000, "calls": 6}),
])
def test_distinct_budgets_have_distinct_keys(a, b):
    assert budget_key(a) != budget_key(b)
    assert Budget(a).key() != Budget(b).key()
    assert budget_label(a) != budget_label(b)


def test_equal_values_are_one_budget_whatever_their_spelling():
    assert budget_key({"tokens": 1_500_000}) == budget_key({"tokens": 1.5e6}) == '{"tokens":1500000}'
    assert budget_key({"tokens": 10, "calls": 2}) == budget_key({"calls": 2.0, "tokens": 10})
    assert Budget(tokens=1.5e6).key() == budget_key({"tokens": 1_500_000})
    assert budget_key({"usd": 0.1}) == '{"usd":0.1}' and json.loads(budget_key({"usd": 0.1})) == {"usd": 0.1}


def _two_budget_file(tmp_path, a_budget, b_budget):
    lines = []
    for arm, budget in (("at-a", a_budget), ("at-b", b_budget)):
        for other in ("x", "y"):
            for seed in range(3):
                lines.append({"workload": "w", "arm": f"{arm}-{other}", "seed": seed, "budget": budget,
                              "spend": {"tokens": budget.get("tokens", 1)}, "reward": 0.1 * seed})
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path


@pytest.mark.parametrize("a_budget, b_budget", [
    ({"tokens": 1_500_000}, {"tokens": 1_500_001}),
    ({"tokens": 1000, "usd": 0.3}, {"tokens": 1000, "usd": 0.1 + 0.2}),
])
def test_compare_never_pools_budgets_that_differ_by_one(tmp_path, capsys, a_budget, b_budget):
    path = _two_budget_file(tmp_path, a_budget, b_budget)
    assert main(["compare", str(path), "--fixed", "tokens", "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert len(groups) == 2
    by_budget = {json.dumps(g["budget"], sort_keys=True): sorted(a["arm"] for a in g["arms"]) for g in groups}
    assert by_budget == {json.dumps(a_budget, sort_keys=True): ["at-a-x", "at-a-y"],
                         json.dumps(b_budget, sort_keys=True): ["at-b-x", "at-b-y"]}
    # both readers group the same way
    fast, slow = RunTable.read([path]), RunTable.from_records(read_records(path))
    assert set(fast.budgets) == set(slow.budgets) == {budget_key(a_budget), budget_key(b_budget)}
