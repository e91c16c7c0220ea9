"""agentdescent's `observations` files (importers/agentdescent.py): every figure of the record, and its rules.

Rules protected: provider and actor calls and tokens add up (actor tokens only when the provider reported
its own); 0 tokens over calls not measured as 0 are unreported (null), never 0, and an actor that reports
none makes the token figures partial; the framework's rollout count wins over the budget's; an error makes
the run unscored (its figure kept as source_reward); each refusal names the observation and the field.
"""
from __future__ import annotations

import copy
import json

import pytest

from baselines.core.errors import InputError
from baselines.importers.agentdescent import import_agentdescent

OBS = {"algorithm": "alg", "mode": "m", "seed": 1,
       "usage": {"calls": 4, "prompt_tokens": 100, "completion_tokens": 20},
       "actor_usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": 5},
       "budget": {"observed_rollouts": 7, "observed_candidates": 3, "observed_proposal_calls": 2,
                  "reserved_candidates": 5, "expected_proposal_calls": 4, "matched": True},
       "framework": {"rollouts": 9, "stop_reason": "budget"}, "wall_seconds": 12.5, "final_quality": 0.7,
       "validation_quality": 0.6, "fidelity": "full"}


def one(tmp_path, change=None, drop=(), config=None, suffix=None):
    obs = copy.deepcopy(OBS)
    for key in drop:
        obs.pop(key)
    for key, value in (change or {}).items():
        if isinstance(value, dict) and isinstance(obs.get(key), dict):
            obs[key].update(value)
        else:
            obs[key] = value
    path = tmp_path / "o.json"
    path.write_text(json.dumps({"config": config if config is not None else {"model": "gpt", "provider": "x"},
                                "observations": [obs]}))
    return import_agentdescent(path, suffix)[0].to_json()


def test_an_observation_becomes_one_record_with_every_figure(tmp_path):
    assert one(tmp_path) == {
        "schema": "costmatch.run/1", "workload": "candidate-methods/alg", "arm": "m", "seed": 1,
        "params": {"model": "gpt", "provider": "x"}, "budget": {"candidates": 5, "proposal_calls": 4},
        "spend": {"rollouts": 9, "calls": 6, "prompt_tokens": 110, "completion_tokens": 25, "tokens": 135,
                  "seconds": 12.5, "candidates": 3, "proposal_calls": 2},
        "reward": 0.7, "dev_reward": 0.6, "stop_reason": "budget", "error": None,
        "source": "agentdescent:o.json", "source_claims_matched": True, "actor_calls": 2, "fidelity": "full"}
    assert one(tmp_path, suffix="v2")["arm"] == "m [v2]"


def test_without_an_actor_the_provider_figures_stand(tmp_path):
    r = one(tmp_path, drop=("actor_usage",))
    assert r["spend"]["calls"] == 4 and r["actor_calls"] == 0
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"], r["spend"]["tokens"]) == (100, 20, 120)
    assert "partial" not in r


def test_the_framework_rollouts_win_over_the_budgets_and_fill_in_when_absent(tmp_path):
    assert one(tmp_path, {"framework": {"rollouts": 9}})["spend"]["rollouts"] == 9
    assert one(tmp_path, {"framework": {"stop_reason": "done"}}, drop=())["spend"]["rollouts"] == 9
    r = one(tmp_path, {"framework": {"stop_reason": "done", "rollouts": None}})
    assert r["spend"]["rollouts"] == 7 and r["stop_reason"] == "done"


def test_zero_tokens_over_unmeasured_calls_are_unreported(tmp_path):
    """Provider calls made with 0 and 0 tokens: no token figure at all (null), not 0, and no actor tokens added."""
    r = one(tmp_path, {"usage": {"calls": 4, "prompt_tokens": 0, "completion_tokens": 0}})
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"], r["spend"]["tokens"]) == (None, None, None)
    assert r["spend"]["calls"] == 6
    r = one(tmp_path, {"usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}, drop=("actor_usage",))
    assert (r["spend"]["prompt_tokens"], r["spend"]["tokens"]) == (0, 0)          # 0 calls measured: 0 is 0


def test_one_token_figure_missing_leaves_the_total_unreported(tmp_path):
    r = one(tmp_path, {"usage": {"calls": 4, "prompt_tokens": 100, "completion_tokens": None}})
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"], r["spend"]["tokens"]) == (100, None, None)
    r = one(tmp_path, {"usage": {"calls": 4, "prompt_tokens": None, "completion_tokens": 20}})
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"], r["spend"]["tokens"]) == (None, 20, None)


def test_an_actor_without_token_figures_makes_the_tokens_partial(tmp_path):
    for actor in ({"calls": 2, "prompt_tokens": 0, "completion_tokens": 0},
                  {"calls": None, "prompt_tokens": 0, "completion_tokens": 0},
                  {"calls": 2, "prompt_tokens": None, "completion_tokens": None}):
        r = one(tmp_path, {"actor_usage": actor})
        assert r["partial"] == ["prompt_tokens", "completion_tokens", "tokens"], actor
        assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"]) == (100, 20), actor


def test_actor_tokens_add_only_what_the_actor_reported(tmp_path):
    r = one(tmp_path, {"actor_usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": None}})
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"], r["spend"]["tokens"]) == (110, 20, 130)
    r = one(tmp_path, {"actor_usage": {"calls": 2, "prompt_tokens": None, "completion_tokens": 5}})
    assert (r["spend"]["prompt_tokens"], r["spend"]["completion_tokens"]) == (100, 25)
    assert "partial" not in r


def test_calls_are_unreported_when_either_count_is(tmp_path):
    assert one(tmp_path, {"usage": {"calls": None}})["spend"]["calls"] is None
    r = one(tmp_path, {"actor_usage": {"calls": None}})
    assert r["spend"]["calls"] is None and r.get("actor_calls") is None


def test_an_error_makes_the_observation_unscored(tmp_path):
    r = one(tmp_path, {"error": "boom"})
    assert r["reward"] is None and r["source_reward"] == 0.7 and r["error"] == "boom"


def test_labels_come_from_the_config_and_the_framework(tmp_path):
    r = one(tmp_path, config={"model": "gpt"}, drop=("fidelity",))
    assert r["params"] == {"model": "gpt"} and "fidelity" not in r


@pytest.mark.parametrize("change, message", [
    ({"algorithm": 3}, r"^{p}: observations\[0\]: field 'algorithm' must be a non-empty string, got 3; "),
    ({"mode": ""}, r"^{p}: observations\[0\]: field 'mode' must be a non-empty string"),
    ({"usage": 3}, r"^{p}: observations\[0\]: field 'usage' must be an object"),
    ({"actor_usage": 3}, r"^{p}: observations\[0\]: field 'actor_usage' must be an object"),
    ({"budget": 3}, r"^{p}: observations\[0\]: field 'budget' must be an object"),
    ({"framework": 3}, r"^{p}: observations\[0\]: field 'framework' must be an object"),
    ({"usage": {"calls": -1}}, r"^{p}: observations\[0\]: usage: field 'calls' must be a finite number >= 0"),
    ({"actor_usage": {"calls": -1}}, r"^{p}: observations\[0\]: actor_usage: field 'calls' must be a finite number >= 0"),
    ({"budget": {"observed_rollouts": -1}}, r"^{p}: observations\[0\]: budget: field 'observed_rollouts' must be"),
    ({"budget": {"matched": 3}}, r"^{p}: observations\[0\]: budget: field 'matched' must be true, false or null"),
    ({"framework": {"rollouts": -1}}, r"^{p}: observations\[0\]: framework: field 'rollouts' must be"),
    ({"framework": {"stop_reason": 3}}, r"^{p}: observations\[0\]: framework: field 'stop_reason' must be"),
    ({"wall_seconds": -1}, r"^{p}: observations\[0\]: field 'wall_seconds' must be a finite number >= 0"),
    ({"final_quality": "x"}, r"^{p}: observations\[0\]: field 'final_quality' must be a finite number or null"),
    ({"validation_quality": "x"}, r"^{p}: observations\[0\]: field 'validation_quality' must be"),
    ({"seed": "x"}, r"^{p}: observations\[0\]: field 'seed' must be an integer seed"),
    ({"error": 3}, r"^{p}: observations\[0\]: field 'error' must be a message"),
    ({"fidelity": 3}, r"^{p}: observations\[0\]: field 'fidelity' must be a non-empty string or null"),
])
def test_a_bad_field_is_refused_naming_the_observation(tmp_path, change, message):
    with pytest.raises(InputError, match=message.replace("{p}", str(tmp_path / "o.json").replace(".", r"\."))):
        one(tmp_path, change)


def test_file_level_refusals(tmp_path):
    path = tmp_path / "o.json"
    p = str(path).replace(".", r"\.")
    path.write_text(json.dumps({"observations": {}}))
    with pytest.raises(InputError, match=rf"^{p}: field 'observations' must be a list$"):
        import_agentdescent(path)
    path.write_text(json.dumps({"observations": [3]}))
    with pytest.raises(InputError, match=rf"^{p}: observations\[0\]: must be an object$"):
        import_agentdescent(path)
    path.write_text(json.dumps({"observations": [], "config": 3}))
    with pytest.raises(InputError, match=rf"^{p}: field 'config' must be an object"):
        import_agentdescent(path)
    path.write_text(json.dumps({"observations": [], "config": {"model": 3}}))
    with pytest.raises(InputError, match=rf"^{p}: config: field 'model' must be a non-empty string or null"):
        import_agentdescent(path)


def test_a_field_the_reader_refuses_names_the_observation(tmp_path):
    p = str(tmp_path / "o.json").replace(".", r"\.")
    with pytest.raises(InputError, match=rf"^{p}: observations\[0\]: field 'arm' is 300 characters long"):
        one(tmp_path, {"mode": "x" * 300})


def test_an_actor_measured_at_zero_calls_is_a_measurement(tmp_path):
    r = one(tmp_path, {"actor_usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}})
    assert "partial" not in r and r["spend"]["calls"] == 4 and r["spend"]["prompt_tokens"] == 100
