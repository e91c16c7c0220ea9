"""Typos and aliases (issue 39): 'did you mean' for arm, workload, unit and suite key names; the message names
what the user wrote; every unit alias accepted anywhere is accepted everywhere (suite, CLI, API)."""
from __future__ import annotations

import textwrap

import pytest

from baselines import Budget, compare, run
from baselines.api import check
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.suite import parse_suite
from baselines.core.units import UNIT_ALIASES, canonical_unit

import tomllib

BASE = """
seeds = 2
[arms.local-search]
path = "tests.helpers:Guess"
[arms.random-guess]
path = "tests.helpers:Guess"
params = {spin = 1}
[[workloads]]
name = "coin"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {rollouts = 2}
arms = ["local-search", "random-guess"]
"""


def refused(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_suite(tomllib.loads(textwrap.dedent(text)), "s.toml")
    return str(caught.value)


def test_an_arm_name_typo_in_a_workload_suggests_the_arm():
    message = refused(BASE.replace('arms = ["local-search",', 'arms = ["local-serch",'))
    assert "unknown arm 'local-serch' (did you mean 'local-search'?)" in message


@pytest.mark.parametrize("old, new, where, meant", [
    ("seeds = 2", "seds = 2", "s.toml", "seeds"),
    ('path = "tests.helpers:Guess"\n[arms.random', 'pth = "tests.helpers:Guess"\n[arms.random',
     "arms.local-search", "path"),
    ('fixed = "rollouts"', 'fixed = "rollouts"\ntolerence = 0.1', "workloads[0]", "tolerance"),
])
def test_a_suite_key_typo_suggests_the_key(old, new, where, meant):
    message = refused(BASE.replace(old, new, 1))
    assert f"{where}: unknown key" in message and f"(did you mean {meant!r}?)" in message


def test_a_budget_unit_typo_blames_the_unit_written_not_the_fixed_key():
    message = refused(BASE.replace('fixed = "rollouts"\nbudget = {rollouts = 2}', 'fixed = "tokens"\nbudget = {tokns = 9}'))
    assert message.startswith("s.toml: workloads[0].budget: unit 'tokns' is not a unit costmatch knows "
                              "(did you mean 'tokens'?)"), message
    message = refused(BASE.replace('fixed = "rollouts"', 'fixed = "rolouts"'))
    assert "workloads[0].fixed: 'rolouts' is not a unit of the budget (rollouts) (did you mean 'rollouts'?)" in message


@pytest.mark.parametrize("alias", ["token", "dollars", "rollout", "call", "seconds"])
def test_every_alias_the_cli_accepts_is_accepted_in_a_suite(alias):
    unit = canonical_unit(alias)
    text = BASE.replace('fixed = "rollouts"\nbudget = {rollouts = 2}', f'fixed = "{alias}"\nbudget = {{{alias} = 2}}')
    suite = parse_suite(tomllib.loads(text), "s.toml", check_imports=False)
    assert suite.workloads[0].fixed == unit and suite.workloads[0].budgets[0].units == (unit,)


def test_an_alias_and_its_unit_in_one_budget_are_one_unit_given_twice():
    message = refused(BASE.replace("budget = {rollouts = 2}", "budget = {rollouts = 2, rollout = 3}"))
    assert "'rollout' and 'rollouts' both name the unit 'rollouts'" in message


def test_aliases_are_one_table_for_the_cli_and_the_api():
    from baselines.cli import options

    assert options.UNIT_ALIASES is UNIT_ALIASES
    assert {alias: options.unit(alias) for alias in UNIT_ALIASES} == UNIT_ALIASES


def test_the_api_accepts_the_aliases_in_run_compare_and_check(tmp_path):
    records = run("tests.helpers:Toy", {"a": "tests.helpers:Guess", "b": ("tests.helpers:Guess", {"spin": 1})},
                  {"rollout": 2}, seeds=3, backend="sequential")
    assert {tuple(r.budget) for r in records} == {("rollouts",)}
    assert compare(records, fixed="rollout").groups[0].fixed == "rollouts"
    assert check(records, baseline="a", candidate="b", margin=0.5, fixed="rollout").verdict in (
        "PASS", "FAIL", "INCONCLUSIVE")
    with pytest.raises(ValueError, match=r"unknown unit 'rolouts' \(did you mean 'rollouts'\?\)"):
        compare(records, fixed="rolouts")
    with pytest.raises(ValueError, match=r"arm 'bb' is not in the results \(did you mean 'b'\?\)"):
        check(records, baseline="a", candidate="bb", margin=0.5)


def test_cli_workload_and_arm_typos_suggest_the_name(tmp_path, capsys):
    records = run("tests.helpers:Toy", {"local-search": "tests.helpers:Guess",
                                         "random-guess": ("tests.helpers:Guess", {"spin": 1})},
                  Budget(rollouts=2), seeds=3, backend="sequential", out=tmp_path / "o", plots=False)
    assert records
    results = str(tmp_path / "o" / "results.jsonl")
    capsys.readouterr()
    assert main(["compare", results, "--workload", "ty"]) == 2
    assert "no workload is named 'ty' (did you mean 'toy'?)" in capsys.readouterr().err
    assert main(["check", results, "--baseline", "random-guess", "--candidate", "local-serch",
                 "--margin", "0.1"]) == 2
    assert "(did you mean 'local-search'?)" in capsys.readouterr().err
    assert main(["compare", results, "--fixed", "rollout", "--no-pairs"]) in (0, 1)   # an alias: not "unknown"
    assert "unknown unit" not in capsys.readouterr().err


def test_a_gate_arm_typo_in_run_suggests_the_arm(tmp_path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text(BASE)
    assert main(["run", str(suite), "--out", str(tmp_path / "o"), "--looks", "2", "--gate", "local-serch:random-guess",
                 "--margin", "0.1", "--backend", "sequential"]) == 2
    err = capsys.readouterr().err
    assert "--gate: arm 'local-serch' is not in" in err and "(did you mean 'local-search'?)" in err
