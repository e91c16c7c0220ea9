"""Budget's construction rules, pinned where mutation testing found them unchecked (issue 44).

Each test names the mutants it kills. The oracles are the rules themselves: a bad allowance is refused
with a line that names the unit and says the fix (the project's bad-input promise), and the largest
allowance a record accepts (records.MAX_AMOUNT) is one a Budget accepts too.
"""
from __future__ import annotations

import math

import pytest

from baselines import Budget, InputError
from baselines.core.records import MAX_AMOUNT, RunRecord, budget_key


def test_an_empty_budget_is_refused_with_an_example_of_the_fix():
    """Kills: the message replaced or lower-cased (the example must be the real constructor's name)."""
    with pytest.raises(ValueError) as err:
        Budget({})
    assert str(err.value) == "Budget needs at least one unit, e.g. Budget(tokens=200000)"


@pytest.mark.parametrize("unit", ["", 7])
def test_a_unit_name_that_is_not_a_non_empty_string_is_refused_by_name(unit):
    """Kills: `or` -> `and` in the name check (either half alone refuses) and the message dropped."""
    with pytest.raises(ValueError, match=f"Budget unit names must be non-empty strings, got {unit!r}$"):
        Budget({unit: 5})


def test_the_largest_allowance_a_record_accepts_is_a_budget_too():
    """Kills: `> MAX_AMOUNT` -> `>=`: MAX_AMOUNT itself is within the limit for records and budgets alike."""
    top = int(MAX_AMOUNT)
    assert Budget(tokens=top)["tokens"] == 10**15
    RunRecord("w", "a", 0, {"tokens": top}, 0.5, budget={"tokens": top})   # the record rule agrees


def test_an_integer_above_the_largest_allowance_names_unit_digits_and_limit():
    """Kills: the InputError's message replaced by None (a bare error names no unit and no limit)."""
    with pytest.raises(InputError) as err:
        Budget(calls=10**15 + 1)
    assert str(err.value) == "Budget unit 'calls' is an integer of 16 digits, above the largest allowance 1e+15"


@pytest.mark.parametrize("total, ways", [(0.1, 11), (0.2, 11), (0.9, 7), (7.7, 3), (7.7, 6), (123.456, 10)])
def test_a_continuous_share_that_would_overshoot_is_rounded_down_one_place(total, ways):
    """The split's promise for usd/seconds: shares never add up to more than the whole. For these totals the
    float quotient total / ways times ways is above the total (0.1 / 11 * 11 = 0.10000000000000002), so
    the share is the quotient one place lower; below 1 and above 1 alike."""
    assert (total / ways) * ways > total                       # the case the rounding exists for
    shares = [s["usd"] for s in Budget(usd=total).split(ways)]
    assert len(set(shares)) == 1
    share = shares[0]
    assert isinstance(share, float) and share * ways <= total and math.fsum(shares) <= total
    assert share == math.nextafter(total / ways, 0.0)          # one place down, not further


def test_a_continuous_share_that_fits_is_the_plain_quotient():
    assert [s["seconds"] for s in Budget(seconds=10).split(4)] == [2.5] * 4
    assert Budget(usd=1.0).split(3)[0]["usd"] == 1.0 / 3        # 1/3 * 3 is 1.0: nothing to round


def test_whole_and_continuous_units_split_by_their_own_rule_in_one_budget():
    """An integer usd or seconds allowance still splits evenly (they are continuous units); a fractional
    custom allowance splits evenly; a whole custom or standard one splits into whole numbers."""
    first, second = Budget(tokens=7, usd=1, seconds=3, widgets=5, grams=2.5).split(2)
    assert first.to_dict() == {"tokens": 4, "usd": 0.5, "seconds": 1.5, "grams": 1.25, "widgets": 3}
    assert second.to_dict() == {"tokens": 3, "usd": 0.5, "seconds": 1.5, "grams": 1.25, "widgets": 2}


def test_a_budget_reads_like_a_mapping_of_its_units():
    b = Budget({"calls": 100, "tokens": 1}, tokens=200_000)    # keywords win over the mapping
    assert b.units == ("calls", "tokens") and b["tokens"] == 200_000   # contract order, not given order
    assert b.get("calls") == 100 and b.get("usd") is None and b.get("usd", 0) == 0
    assert "calls" in b and "usd" not in b and 3 not in b
    with pytest.raises(KeyError):
        b["usd"]
    copy = b.to_dict()
    assert copy == {"calls": 100, "tokens": 200_000} and list(copy) == ["calls", "tokens"]
    copy["tokens"] = 1                                         # a copy: the budget is unchanged
    assert b["tokens"] == 200_000


def test_a_whole_float_allowance_is_stored_as_an_integer():
    b = Budget(tokens=1.5e6, usd=2.0, calls=0.5)
    assert b["tokens"] == 1_500_000 and type(b["tokens"]) is int
    assert type(b["usd"]) is int and type(b["calls"]) is float


def test_equal_budgets_are_equal_hash_alike_and_print_as_their_constructor():
    a, b = Budget(tokens=1_500_000, calls=3), Budget(calls=3.0, tokens=1.5e6)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Budget(tokens=1_500_000) and a != Budget(tokens=1_500_001, calls=3)
    assert a != {"tokens": 1_500_000, "calls": 3}              # a mapping is not a Budget
    assert repr(a) == "Budget(calls=3, tokens=1500000)" and eval(repr(a), {"Budget": Budget}) == a
    assert repr(Budget(usd=0.25)) == "Budget(usd=0.25)"
    assert a.key() == budget_key({"calls": 3, "tokens": 1_500_000})
