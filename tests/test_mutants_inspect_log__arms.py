"""What names an inspect log's arm (`--arm solver|model|task-arg:NAME|meta:KEY`), and the refusals (issue 44)."""
from __future__ import annotations

import pytest

from baselines.core.errors import InputError
from baselines.importers import import_records
from baselines.importers.inspect_log import check_arm_spec
from tests.test_mutants_inspect_log__logs import base_log, read, read_many, refusal, write_log

CHOICES = "solver, model, task-arg:NAME or meta:KEY"


def arms(records: list[dict]) -> list[str]:
    return [r["arm"] for r in records]


def two_models(tmp_path):
    a, b = base_log(), base_log()
    b["eval"]["model"] = "mockllm/large"
    b["plan"]["steps"] = b["plan"]["steps"][1:]
    return write_log(tmp_path / "a", a), write_log(tmp_path / "b", b)


def test_one_log_is_named_by_its_solver_plan_by_default(tmp_path):
    assert arms(read(write_log(tmp_path, base_log()))) == ["trouble > generate"] * 2


def test_logs_of_one_model_are_named_by_their_solvers_by_default(tmp_path):
    a, b = base_log(), base_log()
    b["plan"]["steps"] = b["plan"]["steps"][1:]
    records = read_many([write_log(tmp_path / "a", a), write_log(tmp_path / "b", b)])
    assert arms(records) == ["trouble > generate"] * 2 + ["generate"] * 2


def test_logs_of_two_models_are_named_by_their_models_by_default(tmp_path):
    assert arms(read_many(list(two_models(tmp_path)))) == ["mockllm/model"] * 2 + ["mockllm/large"] * 2


def test_arm_solver_and_arm_model_choose_either_name(tmp_path):
    a, b = two_models(tmp_path)
    assert arms(read_many([a, b], arm="solver")) == ["trouble > generate"] * 2 + ["generate"] * 2
    assert arms(read(a, arm="model")) == ["mockllm/model"] * 2


def test_a_plan_with_one_step_is_that_step(tmp_path):
    log = base_log()
    log["plan"]["steps"] = log["plan"]["steps"][1:]
    assert arms(read(write_log(tmp_path, log))) == ["generate"] * 2


def test_a_log_without_plan_steps_is_named_by_its_eval_solver_else_no_solver(tmp_path):
    log = base_log()
    log["plan"]["steps"] = []
    log["eval"]["solver"] = "my_agent"
    assert arms(read(write_log(tmp_path / "a", log))) == ["my_agent"] * 2
    del log["eval"]["solver"]
    assert arms(read(write_log(tmp_path / "b", log))) == ["(no solver)"] * 2


def test_a_log_without_a_plan_is_named_by_its_eval_solver(tmp_path):
    log = base_log()
    del log["plan"]
    log["eval"]["solver"] = "my_agent"
    records = read(write_log(tmp_path, log))
    assert arms(records) == ["my_agent"] * 2 and records[0]["params"]["plan"] == []


def test_the_arm_suffix_is_added_in_brackets(tmp_path):
    path = write_log(tmp_path, base_log())
    assert arms(read(path, arm_suffix="retry")) == ["trouble > generate [retry]"] * 2
    assert arms(read(path, arm="model", arm_suffix="v2")) == ["mockllm/model [v2]"] * 2
    assert arms(read_many([path], arm="model", arm_suffix="v2")) == ["mockllm/model [v2]"] * 2


def test_a_task_argument_names_the_arm(tmp_path):
    assert arms(read(write_log(tmp_path, base_log()), arm="task-arg:variant")) == ["terse"] * 2


def test_a_metadata_key_names_the_arm(tmp_path):
    assert arms(read(write_log(tmp_path, base_log()), arm="meta:run")) == ["fixture"] * 2


def test_a_key_may_hold_a_colon(tmp_path):
    log = base_log()
    log["eval"]["metadata"] = {"run:id": "seven", ":odd": "eight"}
    log["eval"]["task_args"] = {"a:b": "nine"}
    path = write_log(tmp_path, log)
    assert arms(read(path, arm="meta:run:id")) == ["seven"] * 2
    assert arms(read(path, arm="meta::odd")) == ["eight"] * 2
    assert arms(read(path, arm="task-arg:a:b")) == ["nine"] * 2


def test_a_value_that_is_not_a_string_is_written_as_json(tmp_path):
    log = base_log()
    log["eval"]["task_args"] = {"shots": 3, "hint": None, "tools": ["calc", "web"], "deep": {"k": True}}
    path = write_log(tmp_path, log)
    assert arms(read(path, arm="task-arg:shots")) == ["3"] * 2
    assert arms(read(path, arm="task-arg:hint")) == ["null"] * 2
    assert arms(read(path, arm="task-arg:tools")) == ['["calc", "web"]'] * 2
    assert arms(read(path, arm="task-arg:deep")) == ['{"k": true}'] * 2


def test_a_task_argument_and_a_metadata_key_of_one_name_are_not_confused(tmp_path):
    log = base_log()
    log["eval"]["task_args"] = {"prompt": "from-args"}
    log["eval"]["metadata"] = {"prompt": "from-meta"}
    path = write_log(tmp_path, log)
    assert arms(read(path, arm="task-arg:prompt")) == ["from-args"] * 2
    assert arms(read(path, arm="meta:prompt")) == ["from-meta"] * 2


def test_a_missing_metadata_key_names_the_file_the_keys_it_has_and_the_fix(tmp_path):
    log = base_log()
    log["eval"]["metadata"] = {"run": "x", "alpha": "y"}
    path = write_log(tmp_path, log)
    assert refusal([path], arm="meta:nope") == (
        f"{path}: --arm meta:nope: the log has no metadata key 'nope' (it has: alpha, run); "
        f"choose another --arm ({CHOICES})")


def test_a_missing_task_argument_says_task_argument(tmp_path):
    path = write_log(tmp_path, base_log())
    assert refusal([path], arm="task-arg:shots") == (
        f"{path}: --arm task-arg:shots: the log has no task argument 'shots' (it has: variant); "
        f"choose another --arm ({CHOICES})")


def test_a_log_without_metadata_or_task_arguments_has_none(tmp_path):
    log = base_log()
    del log["eval"]["metadata"]
    log["eval"]["task_args"] = {}
    path = write_log(tmp_path, log)
    assert refusal([path], arm="meta:run") == (
        f"{path}: --arm meta:run: the log has no metadata key 'run' (it has: none); choose another --arm ({CHOICES})")
    assert "the log has no task argument 'variant' (it has: none)" in refusal([path], arm="task-arg:variant")


def test_the_second_of_two_logs_is_the_one_named_when_it_lacks_the_key(tmp_path):
    a = write_log(tmp_path / "a", base_log())
    log = base_log()
    log["eval"]["metadata"] = {}
    b = write_log(tmp_path / "b", log)
    assert refusal([a, b], arm="meta:run").startswith(f"{b}: --arm meta:run: ")


@pytest.mark.parametrize("spec", ["file", "meta:", "task-arg:", "meta", "Solver", "models", "task-arg", "task-args:x"])
def test_an_unknown_arm_rule_is_refused_with_the_choices(tmp_path, spec):
    path = write_log(tmp_path, base_log())
    assert refusal([path], arm=spec) == f"--arm: {spec!r} is not one of {CHOICES}"


@pytest.mark.parametrize("spec", ["solver", "model", "task-arg:x", "meta:y", "meta:a:b", "meta::"])
def test_the_arm_rules_are_accepted_as_given(spec):
    assert check_arm_spec(spec) == spec


def test_the_arm_rule_reaches_import_records(tmp_path):
    path = write_log(tmp_path, base_log())
    assert {r.arm for r in import_records("inspect", [path], arm="meta:run")} == {"fixture"}
    with pytest.raises(InputError, match="is not one of solver, model"):
        import_records("inspect", [path], arm="nope")
