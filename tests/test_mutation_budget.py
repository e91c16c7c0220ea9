"""Budget's construction rules, pinned where mutation testing found them unchecked (issue 44).

Each test names the mutants it kills. The oracles are the rules themselves: a bad allowance is refused
with a line that names the unit and says the fix (the project's bad-input promise), and the largest
allowance a record accepts (records.MAX_AMOUNT) is one a Budget accepts too.
"""
from __future__ import annotations

import pytest

from baselines import Budget, InputError
from baselines.core.records import MAX_AMOUNT, RunRecord


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
