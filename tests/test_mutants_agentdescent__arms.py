"""agentdescent's per-arm `arms` files (importers/agentdescent.py): the file's labels and budget, the token rules
per arm, fork checks, and the declared accuracy range.

Rules protected: the workload is the file's `dataset` (the file name only without one); a budget unit given
as null is no allowance; an arm with a seed whose calls carry no token figures has its other seeds' tokens
marked partial, while a measured 0 (0 calls) or one token figure of 0 is a measurement; forks are checked
field by field; `reward_range` [0, 1] is declared exactly when every score is inside it.
"""
from __future__ import annotations

import json

import pytest

from baselines.core.errors import InputError
from baselines.importers.agentdescent import import_agentdescent

RUN = {"arm": "a", "seed": 1, "rollouts": 5, "calls": 4, "prompt_tokens": 100, "completion_tokens": 20,
       "wallclock": 3.0, "test_reward": 0.5, "dev_reward": 0.4}


def load(tmp_path, runs, **top):
    path = tmp_path / "arms.json"
    path.write_text(json.dumps({"arms": runs, **top}))
    return [r.to_json() for r in import_agentdescent(path)]


def test_the_workload_is_the_dataset_and_the_budget_keeps_given_units(tmp_path):
    r = load(tmp_path, [RUN], dataset="ds", budget={"tokens": 1000, "calls": None}, model="gpt")[0]
    assert r["workload"] == "ds" and r["budget"] == {"tokens": 1000} and r["params"] == {"model": "gpt"}
    assert load(tmp_path, [RUN])[0]["workload"] == "arms"


def test_file_level_messages_name_the_file(tmp_path):
    p = str(tmp_path / "arms.json").replace(".", r"\.")
    with pytest.raises(InputError, match=rf"^{p}: field 'budget' must be an object"):
        load(tmp_path, [RUN], budget=3)
    with pytest.raises(InputError, match=rf"^{p}: budget: field 'tokens' must be a finite number >= 0"):
        load(tmp_path, [RUN], budget={"tokens": -1})


def partial_of(tmp_path, other):
    runs = [RUN, {**RUN, "seed": 2, **other}]
    return [r.get("partial") for r in load(tmp_path, runs)]


def test_calls_without_token_figures_make_the_arms_reported_tokens_partial(tmp_path):
    assert partial_of(tmp_path, {"prompt_tokens": 0, "completion_tokens": 0}) == \
        [["prompt_tokens", "completion_tokens", "tokens"], None]


def test_a_measured_zero_or_one_zero_figure_is_a_measurement(tmp_path):
    """0 calls with 0 tokens, or prompt tokens with 0 completion tokens (and the reverse), are figures, not gaps."""
    for other in ({"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}, {"prompt_tokens": 50, "completion_tokens": 0},
                  {"prompt_tokens": 0, "completion_tokens": 30}):
        assert partial_of(tmp_path, other) == [None, None], other
        second = load(tmp_path, [RUN, {**RUN, "seed": 2, **other}])[1]["spend"]
        assert (second["prompt_tokens"], second["completion_tokens"]) == (other["prompt_tokens"], other["completion_tokens"])


@pytest.mark.parametrize("fork, message", [
    (3, r"arms\[0\]: field 'forks\[0\]' must be an object \(one fork's seed and scores\), got number 3"),
    ({"dev_reward": "x"}, r"arms\[0\]: forks\[0\]: field 'dev_reward' must be a finite number or null"),
    ({"test_reward": "x"}, r"arms\[0\]: forks\[0\]: field 'test_reward' must be a finite number or null"),
    ({"seed": "x"}, r"arms\[0\]: forks\[0\]: field 'seed' must be an integer seed"),
])
def test_forks_are_checked_field_by_field(tmp_path, fork, message):
    with pytest.raises(InputError, match=message):
        load(tmp_path, [{**RUN, "forks": [fork]}])


def test_a_fork_without_a_seed_is_accepted(tmp_path):
    assert load(tmp_path, [{**RUN, "forks": [{"dev_reward": 0.1, "test_reward": 0.5}]}])[0]["reward"] == 0.5


def test_the_accuracy_range_is_declared_exactly_when_every_score_is_inside(tmp_path):
    for reward, declared in ((0.5, True), (0.0, True), (1.0, True), (1.5, False), (-0.1, False)):
        r = load(tmp_path, [{**RUN, "test_reward": reward}])[0]
        assert ("reward_range" in r) is declared, reward
        if declared:
            assert r["reward_range"] == [0.0, 1.0]
    r = load(tmp_path, [{**RUN, "test_reward": 0.7, "error": "boom"}])[0]      # unscored: its source figure decides
    assert r["reward"] is None and r["source_reward"] == 0.7 and r["reward_range"] == [0.0, 1.0]
    r = load(tmp_path, [{**RUN, "test_reward": 1.7, "error": "boom"}])[0]
    assert "reward_range" not in r


def test_a_run_becomes_one_record_with_every_figure(tmp_path):
    run = {**RUN, "wallclock_parallel": 1.5, "width": 4, "test_oracle": 0.6, "stop_reason": "budget", "dev_reward": 0.4}
    r = load(tmp_path, [run], dataset="ds", model="gpt", provider="x")[0]
    assert r == {
        "schema": "costmatch.run/1", "workload": "ds", "arm": "a", "seed": 1,
        "params": {"model": "gpt", "provider": "x", "width": 4}, "budget": {},
        "spend": {"rollouts": 5, "calls": 4, "prompt_tokens": 100, "completion_tokens": 20, "tokens": 120, "seconds": 3.0},
        "reward": 0.5, "dev_reward": 0.4, "stop_reason": "budget", "error": None,
        "source": "agentdescent:arms.json", "oracle_reward": 0.6, "parallel_seconds": 1.5, "reward_range": [0.0, 1.0]}
    assert "width" not in load(tmp_path, [RUN])[0]["params"]


def test_unreported_tokens_are_null_in_every_token_unit(tmp_path):
    second = load(tmp_path, [RUN, {**RUN, "seed": 2, "prompt_tokens": 0, "completion_tokens": 0}])[1]["spend"]
    assert (second["prompt_tokens"], second["completion_tokens"], second["tokens"]) == (None, None, None)
    for figures in ({"prompt_tokens": 100, "completion_tokens": None}, {"prompt_tokens": None, "completion_tokens": 30}):
        spend = load(tmp_path, [{**RUN, **figures}])[0]["spend"]
        assert spend["tokens"] is None
        assert (spend["prompt_tokens"], spend["completion_tokens"]) == (figures["prompt_tokens"], figures["completion_tokens"])


def test_refusals_name_the_file_and_the_run(tmp_path):
    p = str(tmp_path / "arms.json").replace(".", r"\.")
    with pytest.raises(InputError, match=rf"^{p}: arms\[0\]: field 'arm' is 300 characters long"):
        load(tmp_path, [{**RUN, "arm": "x" * 300}])
    (tmp_path / "arms.json").write_text("[[[")
    with pytest.raises(InputError, match=rf"^{p}: not a JSON file \(.*\); agentdescent results are one JSON object$"):
        import_agentdescent(tmp_path / "arms.json")
