"""Importers, tested on the real result files in shared/data/agentdescent."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from baselines import InputError, compare
from baselines.importers import import_agentdescent, import_csv


def test_selection_file_tokens_unreported_by_every_arm(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "selection-hotpotqa-3seed.json")
    assert all(r.spend["tokens"] is None and r.spend["calls"] > 0 for r in records)
    c = compare(records, "tokens")
    assert not c.valid
    assert {(u.arm, u.reason) for u in c.groups[0].unverified} == {
        ("serial", "unreported"), ("fork-of-3", "unreported"), ("merge-of-3", "unreported")}


def test_selection_file_rollouts_valid_and_calls_confounded_for_the_bigger_spender(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "selection-hotpotqa-3seed.json")
    c = compare(records, "rollouts")
    assert c.valid
    over = [(f.arm, f.spend, f.reference) for f in c.groups[0].confounded if f.unit == "calls" and f.direction == "over"]
    assert over == [("fork-of-3", 225, 164)]


def test_equal_budget_file_merge_arm_is_partial_and_timeout_keeps_its_error(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "equal-budget-hotpotqa-3seed.json")
    merge = [r for r in records if r.arm == "merge-of-3"]
    assert [r.spend["prompt_tokens"] for r in merge] == [255, None, 256]
    assert all(r.partial for r in merge if r.spend["prompt_tokens"] is not None)
    c = compare(records, "tokens")
    reasons = {u.arm: u.reason for u in c.groups[0].unverified}
    assert reasons == {"merge-of-3": "partial", "serial": "unreported", "fork-of-3": "unreported"}
    [failed] = [r for r in records if r.error]
    assert "APITimeoutError" in failed.error and failed.reward is None and failed.extra["source_reward"] == 0.7
    fork = c.groups[0].arm("fork-of-3")
    assert (fork.runs, fork.scored, fork.errors) == (3, 2, 1)


def test_reflective_on_reports_tokens_siblings_do_not(agentdescent_dir):
    on = import_agentdescent(agentdescent_dir / "reflective-on-bbh-4seeds.json", arm_suffix="on")
    off = import_agentdescent(agentdescent_dir / "reflective-off-bbh-4seeds.json", arm_suffix="off")
    assert all(r.spend["tokens"] is not None for r in on)
    assert all(r.spend["tokens"] is None for r in off)
    c = compare(on + off, "tokens")
    assert [(u.arm, u.reason) for u in c.groups[0].unverified] == [("merge-of-4 [off]", "unreported")]


def test_candidate_methods_async_rollouts_flagged_although_file_says_matched(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "candidate-methods-framework-final.json")
    assert len(records) == 99 and all(r.extra["source_claims_matched"] for r in records)
    by_candidates = compare(records, "candidates")
    assert by_candidates.valid
    confounded = {(g.workload, f.arm) for g in by_candidates.groups for f in g.confounded if f.unit == "rollouts"}
    assert confounded and {arm for _, arm in confounded} == {"async_pipeline"}
    by_rollouts = compare(records, "rollouts")
    assert not by_rollouts.valid
    assert {f.arm for g in by_rollouts.groups for f in g.unequal} == {"async_pipeline"}
    # actor calls reported 0 tokens: token figures are lower bounds
    assert all("tokens" in r.partial for r in records if r.extra["actor_calls"])


def test_not_an_agentdescent_file(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(InputError, match="expected a JSON object with an 'arms' list"):
        import_agentdescent(bad)


def test_csv_empty_cell_is_unreported(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("policy,s,acc,tok,budget_tok\ngreedy,0,0.5,1000,1000\ngreedy,1,0.6,,1000\n")
    records = import_csv(path, "arm=policy,seed=s,reward=acc,tokens=tok,budget.tokens=budget_tok")
    assert [r.spend["tokens"] for r in records] == [1000, None]
    assert records[0].budget == {"tokens": 1000}


@pytest.mark.parametrize("content, mapping, words", [
    ("a,b\n1,2\n", "arm=a,seed=b", "no column for 'reward'"),
    ("a,b,c\n1,2,3\n", "arm=a,seed=b,reward=zz", "no column 'zz'"),
    ("a,b,c\nx,1.5,3\n", "arm=a,seed=b,reward=c", "seed must be an integer"),
    ("a,b,c\nx,1,lots\n", "arm=a,seed=b,reward=c", "holds 'lots', not a number"),
])
def test_csv_bad_input(tmp_path, content, mapping, words):
    path = tmp_path / "r.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=words):
        import_csv(path, mapping)


def test_cli_import_then_compare(tmp_path, agentdescent_dir):
    out = tmp_path / "s.jsonl"
    run = subprocess.run([sys.executable, "-m", "baselines.cli", "import", "agentdescent",
                          str(agentdescent_dir / "selection-hotpotqa-3seed.json"), "-o", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    res = subprocess.run([sys.executable, "-m", "baselines.cli", "compare", str(out), "--fixed", "tokens", "--json"],
                         capture_output=True, text=True)
    data = json.loads(res.stdout)
    assert data["valid"] is False and data["groups"][0]["unverified"][0]["reason"] == "unreported"


def test_cli_import_unknown_format_is_exit_2(tmp_path):
    res = subprocess.run([sys.executable, "-m", "baselines.cli", "import", "nope", "f", "-o", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "known formats" in res.stderr
    assert not (tmp_path / "o").exists()


# -- inspect_ai logs, written for real with the mockllm model -------------------------------
def _write_inspect_log(log_dir, model_name, usages, contents, epochs=2):
    pytest.importorskip("inspect_ai", reason="the test extra installs inspect_ai")
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    outputs = []
    for usage, content in zip(usages, contents):
        out = ModelOutput.from_content(model=model_name, content=content)
        out.usage = None if usage is None else ModelUsage(input_tokens=usage[0], output_tokens=usage[1],
                                                          total_tokens=usage[0] + usage[1],
                                                          reasoning_tokens=usage[2] if len(usage) > 2 else None)
        outputs.append(out)
    task = Task(dataset=[Sample(input=f"{i}+1?", target=str(i + 1)) for i in range(3)], solver=[generate()],
                scorer=match(), name="arith")
    [log] = inspect_eval(task, model=get_model(model_name, custom_outputs=outputs), epochs=epochs,
                         log_dir=str(log_dir), display="none")
    return Path(log.location)


def test_inspect_log_usage_units_calls_and_primary_scorer(tmp_path):
    from baselines.importers import import_inspect
    path = _write_inspect_log(tmp_path, "mockllm/model", [(10, 2, 1), (11, 3, 0), (12, 4, 2)] * 2,
                              ["1", "2", "x", "1", "x", "x"])
    records = import_inspect(path)
    assert [(r.workload, r.arm, r.seed) for r in records] == [("arith", "mockllm/model", 1), ("arith", "mockllm/model", 2)]
    first = records[0]
    assert first.spend["calls"] == 3 and first.spend["prompt_tokens"] == 33 and first.spend["completion_tokens"] == 9
    assert first.spend["tokens"] == 42 and first.spend["reasoning_tokens"] == 3 and first.spend["usd"] is None
    assert sum(r.spend["prompt_tokens"] for r in records) == 66
    assert sorted(r.reward for r in records) == pytest.approx([1 / 3, 2 / 3])


def test_inspect_samples_without_usage_make_tokens_partial_and_compare_says_so(tmp_path):
    from baselines.importers import import_inspect
    full = import_inspect(_write_inspect_log(tmp_path / "a", "mockllm/model", [(10, 2)] * 6, ["1"] * 6), "full")
    leaky = import_inspect(_write_inspect_log(tmp_path / "b", "mockllm/model", [(10, 2), None, (10, 2)] * 2,
                                              ["1"] * 6), "leaky")
    assert all("tokens" in r.partial for r in leaky) and all(not r.partial for r in full)
    c = compare(full + leaky, "tokens")
    assert [(u.arm, u.reason) for u in c.groups[0].unverified] == [("mockllm/model [leaky]", "partial")]


def test_inspect_import_cli_and_bad_file(tmp_path):
    pytest.importorskip("inspect_ai")
    path = _write_inspect_log(tmp_path, "mockllm/model", [(5, 1)] * 6, ["1"] * 6)
    out = tmp_path / "o.jsonl"
    res = subprocess.run([sys.executable, "-m", "baselines.cli", "import", "inspect", str(path), "-o", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert len(out.read_text().splitlines()) == 2
    bad = tmp_path / "bad.eval"
    bad.write_text("not a log")
    res = subprocess.run([sys.executable, "-m", "baselines.cli", "import", "inspect", str(bad), "-o", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "not an inspect_ai evaluation log" in res.stderr and res.stderr.count("\n") == 1
