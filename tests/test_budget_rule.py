"""The budget rule: a budget of N calls (rollouts, evaluations) gives every built-in arm N usable results.

One sentence (baselines/meter.py): the charge that would go beyond the budget
raises BudgetExhausted before it is charged; tokens, dollars and seconds are
charged as reported and the call that goes beyond stops the run, its
overshoot measured. These tests run every built-in arm (and the starter arms
`costmatch init` writes) under a small N and count what the arm received.
"""
from __future__ import annotations

import importlib.util
import sys
import types

import numpy as np
import pytest

from baselines import Budget, BudgetExhausted, Meter, run
from baselines.running.scaffold import starter_templates


def _run_arm(arm, instance, budget: Budget, measures=("calls", "seconds", "rollouts")) -> Meter:
    meter = Meter(budget, measures=measures)
    try:
        arm.run(instance, meter, np.random.default_rng(0))
    except BudgetExhausted:
        pass
    return meter


# -- bbob: N evaluations reach the optimizer ------------------------------------------------------
BBOB_ARMS = ["RandomSearch", "NelderMead", "DifferentialEvolution", "CMAES", "OptunaTPE"]


@pytest.mark.parametrize("name", BBOB_ARMS)
def test_every_bbob_arm_gets_n_function_values_from_n_evaluations(name):
    import arms.optimizers as optimizers
    from workloads.bbob import BBOB

    instance = BBOB(functions=[1], dimension=2).instance(0)
    returned = []
    plain = instance.objective

    def counting(meter):
        f = plain(meter)

        def call(x):
            value = f(x)
            returned.append(value)  # reached only when the evaluation's value reaches the optimizer
            return value
        call.best_x = None
        return call

    instance.objective = counting
    arm = optimizers.NelderMead(restarts=True) if name == "NelderMead" else getattr(optimizers, name)()
    meter = _run_arm(arm, instance, Budget(calls=25), measures=("calls", "seconds"))
    assert meter.spend()["calls"] == 25 and len(returned) == 25
    assert meter.exhausted == "calls" and meter.has_choice


# -- search-sim: N calls or N rollouts are all used, none beyond ------------------------------------
SELECTION_ARMS = ["Greedy", "UniformRandom", "UCB1", "PUCT", "CostEfficientPUCT", "Thompson", "BestOfNFork",
                  "VerifiedGreedy"]


@pytest.mark.parametrize("name", SELECTION_ARMS)
@pytest.mark.parametrize("unit, n", [("calls", 12), ("rollouts", 9), ("rollouts", 1)])
def test_every_selection_arm_uses_exactly_its_budget(name, unit, n):
    import arms.governed as governed
    import arms.selection as selection
    from workloads.search_sim import SearchSim

    policy = getattr(selection, name, None) or getattr(governed, name)
    sim = SearchSim()   # 2 calls per expansion, 1 rollout per evaluation
    instance = sim.instance(3)
    before = len(instance.registry)
    meter = _run_arm(policy(), instance, Budget({unit: n}),
                     measures=("calls", "seconds", "rollouts", "prompt_tokens", "completion_tokens", "tokens"))
    spend = meter.spend()
    expansions = len(instance.registry) - before
    assert spend[unit] == n, spend   # the whole budget is used: the last result is not thrown away
    looks = spend["calls"] - sim.calls_per_expansion * expansions   # a verifier's looks: one call each
    assert spend["rollouts"] == expansions + looks   # every expansion and look was evaluated: no wasted call
    if name != "VerifiedGreedy":
        per = sim.calls_per_expansion if unit == "calls" else sim.rollouts_per_eval
        assert looks == 0 and expansions == n // per


# -- qa (test-time compute): N model calls are N answers ---------------------------------------------
class _FakeChat:
    """A duck-typed OpenAI client: every call answers "42" with reported usage."""

    def __init__(self):
        self.calls = 0
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        self.calls += 1
        message = types.SimpleNamespace(content="42")
        usage = types.SimpleNamespace(prompt_tokens=10, completion_tokens=2, prompt_tokens_details=None,
                                      completion_tokens_details=None)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)], usage=usage)


@pytest.mark.parametrize("name", ["SingleSample", "SelfConsistency", "BestOfNVerifier", "SelfRevision"])
def test_every_qa_arm_makes_exactly_n_calls_and_keeps_their_answers(name):
    import arms.tts as tts
    from workloads.qa import QA

    workload = QA(n_questions=50)
    fake = _FakeChat()
    workload._raw = fake
    instance = workload.instance(0)
    meter = _run_arm(getattr(tts, name)(), instance, Budget(calls=6), measures=("calls", "seconds"))
    assert fake.calls == 6 and meter.spend()["calls"] == 6   # no request is sent beyond the budget


# -- the starter project `costmatch init` writes ------------------------------------------------------
def _starter_modules(tmp_path):
    texts = starter_templates()
    modules = {}
    for name in ("my_workload", "my_arms"):
        path = tmp_path / f"{name}.py"
        path.write_text(texts[f"{name}.py"], encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"starter_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules[name] = module
    return modules["my_workload"], modules["my_arms"]


@pytest.mark.parametrize("arm", ["RandomGuess", "LocalSearch"])
@pytest.mark.parametrize("unit", ["calls", "rollouts"])
@pytest.mark.parametrize("n", [1, 4])
def test_starter_arms_get_n_results_and_a_choice_from_a_budget_of_n(tmp_path, arm, unit, n):
    workload_module, arms_module = _starter_modules(tmp_path)
    workload = workload_module.HiddenPoint()
    meter = _run_arm(getattr(arms_module, arm)(), workload.instance(0), Budget({unit: n}), workload.measures)
    spend = meter.spend()
    assert spend["calls"] == n and spend["rollouts"] == n and len(meter.trace) >= 1
    assert meter.has_choice   # a budget of one call still leaves a choice to score


def test_a_budget_of_one_call_scores_every_run():
    records = run("workloads.search_sim:SearchSim", {"greedy": "arms.selection:Greedy",
                                                     "random-search": "arms.selection:UniformRandom"},
                  Budget(calls=2), seeds=3, backend="sequential")
    assert all(r.reward is not None and r.error is None for r in records)
    bbob = run(("workloads.bbob:BBOB", {"functions": [1], "dimension": 2}),
               {"rs": "arms.optimizers:RandomSearch", "cma": "arms.optimizers:CMAES"}, Budget(calls=1), seeds=2,
               backend="sequential")
    assert all(r.reward is not None and r.spend["calls"] == 1 for r in bbob)


def test_a_budget_of_one_call_scores_every_starter_run(tmp_path, monkeypatch):
    _starter_modules(tmp_path)   # writes my_workload.py and my_arms.py
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("my_workload", "my_arms"):   # imported here, then forgotten: later tests import their own
        monkeypatch.delitem(sys.modules, name, raising=False)
    records = run("my_workload:HiddenPoint", {"random-guess": "my_arms:RandomGuess",
                                              "local-search": "my_arms:LocalSearch"},
                  Budget(calls=1), seeds=3, backend="sequential")
    for name in ("my_workload", "my_arms"):
        sys.modules.pop(name, None)
    assert len(records) == 6
    assert all(r.reward is not None and r.spend["calls"] == 1 and r.stop_reason == "budget:calls" for r in records)
