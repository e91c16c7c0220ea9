"""Importers, tested on the real result files in tests/data/agentdescent (a copy of the shared data)."""
import contextlib
import json
from pathlib import Path

import pytest

from baselines import InputError, compare
from baselines.cli import main
from baselines.importers import import_agentdescent, import_csv, run_import
from baselines.core.records import read_records


def test_selection_file_tokens_unreported_by_every_arm(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "selection-hotpotqa-3seed.json")
    assert all(r.spend["tokens"] is None and r.spend["calls"] > 0 for r in records)
    c = compare(records, fixed="tokens")
    assert not c.valid
    assert {(u.arm, u.reason) for u in c.groups[0].unverified} == {
        ("serial", "unreported"), ("fork-of-3", "unreported"), ("merge-of-3", "unreported")}


def test_selection_file_rollouts_valid_and_calls_confounded_for_the_bigger_spender(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "selection-hotpotqa-3seed.json")
    c = compare(records, fixed="rollouts")
    assert c.valid
    over = [(f.arm, f.spend, f.reference) for f in c.groups[0].confounded if f.unit == "calls" and f.direction == "over"]
    assert over == [("fork-of-3", 225, 164)]


def test_equal_budget_file_merge_arm_is_partial_and_fork_error_is_a_note(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "equal-budget-hotpotqa-3seed.json")
    merge = [r for r in records if r.arm == "merge-of-3"]
    assert [r.spend["prompt_tokens"] for r in merge] == [255, None, 256]
    assert all(r.partial for r in merge if r.spend["prompt_tokens"] is not None)
    c = compare(records, fixed="tokens")
    reasons = {u.arm: u.reason for u in c.groups[0].unverified}
    assert reasons == {"merge-of-3": "partial", "serial": "unreported", "fork-of-3": "unreported"}
    # the timeout belongs to fork 2001, which was not selected; the selected fork 2000 was scored 0.7
    [noted] = [r for r in records if r.extra.get("notes")]
    assert (noted.arm, noted.seed, noted.reward, noted.error) == ("fork-of-3", 1, 0.7, None)
    assert noted.extra["notes"][0].startswith("fork 2001 (not selected): test_eval failed: APITimeoutError")
    assert not any(r.error for r in records)
    fork = c.groups[0].arm("fork-of-3")
    assert (fork.runs, fork.scored, fork.errors) == (3, 3, 0)


def _edited(agentdescent_dir, tmp_path, edit):
    data = json.loads((agentdescent_dir / "equal-budget-hotpotqa-3seed.json").read_text())
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def _fork_seed1(data):
    return next(a for a in data["arms"] if a["arm"] == "fork-of-3" and a["seed"] == 1)


@pytest.mark.parametrize("edit, why", [
    (lambda a: a["forks"][0].update(test_reward=None), "the selected fork itself failed"),
    (lambda a: a.update(forks=[]), "no forks: the error is the run's own"),
    (lambda a: a["forks"][1].update(test_reward=0.65), "no fork failed: the error cannot be an alternative's"),
    (lambda a: a.update(test_reward=0.9), "no fork carries the run's score: the selection is unknown"),
])
def test_agentdescent_run_whose_own_scoring_failed_is_unscored(agentdescent_dir, tmp_path, edit, why):
    path = _edited(agentdescent_dir, tmp_path, lambda d: edit(_fork_seed1(d)))
    [run] = [r for r in import_agentdescent(path) if r.arm == "fork-of-3" and r.seed == 1]
    assert run.reward is None and "APITimeoutError" in run.error, why
    assert run.extra["source_reward"] == _fork_seed1(json.loads(path.read_text()))["test_reward"]


def test_agentdescent_zero_tokens_with_unreported_calls_stay_unreported(agentdescent_dir, tmp_path):
    def edit(data):
        data["arms"][0].update(calls=None, prompt_tokens=0, completion_tokens=0)
        data["arms"][1].update(calls=0, prompt_tokens=0, completion_tokens=0)
    records = import_agentdescent(_edited(agentdescent_dir, tmp_path, edit))
    assert records[0].spend["calls"] is None and records[0].spend["tokens"] is None
    assert records[1].spend["calls"] == 0 and records[1].spend["tokens"] == 0  # measured: no calls, no tokens


def test_reflective_on_reports_tokens_siblings_do_not(agentdescent_dir):
    on = import_agentdescent(agentdescent_dir / "reflective-on-bbh-4seeds.json", arm_suffix="on")
    off = import_agentdescent(agentdescent_dir / "reflective-off-bbh-4seeds.json", arm_suffix="off")
    assert all(r.spend["tokens"] is not None for r in on)
    assert all(r.spend["tokens"] is None for r in off)
    c = compare(on + off, fixed="tokens")
    assert [(u.arm, u.reason) for u in c.groups[0].unverified] == [("merge-of-4 [off]", "unreported")]


def test_candidate_methods_async_rollouts_flagged_although_file_says_matched(agentdescent_dir):
    records = import_agentdescent(agentdescent_dir / "candidate-methods-framework-final.json")
    assert len(records) == 99 and all(r.extra["source_claims_matched"] for r in records)
    by_candidates = compare(records, fixed="candidates")
    assert by_candidates.valid
    confounded = {(g.workload, f.arm) for g in by_candidates.groups for f in g.confounded if f.unit == "rollouts"}
    assert confounded and {arm for _, arm in confounded} == {"async_pipeline"}
    by_rollouts = compare(records, fixed="rollouts")
    assert not by_rollouts.valid
    assert {f.arm for g in by_rollouts.groups for f in g.unequal} == {"async_pipeline"}
    # actor calls reported 0 tokens: token figures are lower bounds
    assert all("tokens" in r.partial for r in records if r.extra["actor_calls"])


def test_agentdescent_tokens_are_prompt_plus_completion_as_the_source_totals_them(agentdescent_dir):
    path = agentdescent_dir / "candidate-methods-framework-final.json"
    source = json.loads(path.read_text())["observations"]
    records = import_agentdescent(path)
    assert [r.spend["tokens"] for r in records] == [o["usage"]["total_tokens"] for o in source]
    assert all("cached_tokens" not in r.spend for r in records)  # the source has no cache figures


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


def test_csv_instance_column_becomes_the_record_instance(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("policy,s,acc,problem\ncma,0,0.5,f21-i1\ncma,1,0.6,\n")
    records = import_csv(path, "arm=policy,seed=s,reward=acc,instance=problem")
    assert [r.extra.get("instance") for r in records] == ["f21-i1", None]
    assert "problem" not in records[0].spend


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


# -- hostile inputs: one line, exit 2, nothing written (issue 18 item 9) -------------------
_ARM = {"arm": "a", "seed": 0, "rollouts": 9, "calls": 5, "prompt_tokens": 10, "completion_tokens": 2,
        "test_reward": 0.5, "error": None}
_OBS = {"algorithm": "x", "mode": "serial", "seed": 0, "final_quality": 0.5,
        "usage": {"calls": 3, "prompt_tokens": 10, "completion_tokens": 2}}


def _arms(**change):
    return json.dumps({"dataset": "d", "arms": [{**_ARM, **change}]}).encode()


@pytest.mark.parametrize("content, words", [
    (_arms().replace(b'"test_reward": 0.5', b'"test_reward": NaN'), "NaN, which is not a finite number"),
    (_arms().replace(b'"calls": 5', b'"calls": Infinity'), "Infinity, which is not a finite number"),
    (_arms(arm=None), "field 'arm' must be a non-empty string, got null"),
    (_arms(arm=""), "field 'arm' must be a non-empty string"),
    (_arms(seed="abc"), "field 'seed' must be an integer seed, got \"abc\""),
    (_arms(seed=1.5), "field 'seed' must be an integer seed"),
    (_arms(test_reward="0.5"), "field 'test_reward' must be a finite number or null, got string \"0.5\""),
    (_arms(dev_reward=[1]), "field 'dev_reward' must be a finite number or null"),
    (_arms(prompt_tokens=-3), "field 'prompt_tokens' must be a finite number >= 0"),
    (_arms(calls="many"), "field 'calls' must be a finite number >= 0"),
    (_arms(stop_reason=7), "field 'stop_reason' must be a non-empty string or null"),
    (_arms().replace(b'"test_reward": 0.5', b'"test_reward": 1e400'), "field 'test_reward' must be a finite number or null, got number Infinity"),
    (json.dumps({"observations": [{**_OBS, "usage": [1, 2]}]}).encode(), "field 'usage' must be an object, got list"),
    (json.dumps({"observations": [{**_OBS, "seed": "abc"}]}).encode(), "field 'seed' must be an integer seed"),
    (json.dumps({"observations": [{**_OBS, "mode": None}]}).encode(), "field 'mode' must be a non-empty string"),
    (json.dumps({"observations": [{**_OBS, "usage": {"calls": 3, "prompt_tokens": "9"}}]}).encode(),
     "usage: field 'prompt_tokens' must be a finite number >= 0"),
    (json.dumps({"arms": 5}).encode(), "field 'arms' must be a list"),
    (json.dumps({"arms": [3]}).encode(), "must be an object"),
    (b'{"arms": [' + "\xe9".encode("latin-1") + b']}', "not UTF-8 text"),
    pytest.param(b"[" * 100_000, "nested deeper", id="deep-nesting"),
    (b"{", "not a JSON file"),
])
def test_agentdescent_bad_input_is_one_line_and_nothing_is_written(tmp_path, content, words):
    src = tmp_path / "src.json"
    src.write_bytes(content)
    out = tmp_path / "out" / "o.jsonl"
    out.parent.mkdir()
    with pytest.raises(InputError) as info:
        run_import("agentdescent", [src], out)
    message = str(info.value)
    assert words in message and "\n" not in message and str(src) in message
    assert list(out.parent.iterdir()) == []


def test_every_imported_shared_file_reads_back_with_the_compare_reader(agentdescent_dir, tmp_path):
    total = 0
    for path in sorted(agentdescent_dir.glob("*.json")):
        out = tmp_path / f"{path.stem}.jsonl"
        written = run_import("agentdescent", [path], out)
        back = read_records(out)
        assert len(back) == written and [r.to_json() for r in back] == \
            [r.to_json() for r in import_agentdescent(path)]
        total += written
    assert total > 99


def test_failed_import_leaves_the_previous_output_untouched(tmp_path, agentdescent_dir):
    out = tmp_path / "o.jsonl"
    run_import("agentdescent", [agentdescent_dir / "selection-hotpotqa-3seed.json"], out)
    before = out.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(_arms(arm=None))
    with pytest.raises(InputError):
        run_import("agentdescent", [agentdescent_dir / "selection-hotpotqa-3seed.json", bad], out)
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "o.jsonl"]


@pytest.mark.parametrize("content, words", [
    ("a,b,c\nx,1,-5\n".encode(), "column 'c' ('c') holds '-5', a negative amount"),
    ("a,b,c\nx,1,nan\n".encode(), "which is not finite"),
    ("a,b,c\nx,abc,1\n".encode(), "column for 'seed' holds 'abc', not a number"),
    ("a,b,c\n,1,1\n".encode(), "empty arm name"),
    ("a,b,c\nx\n".encode(), "1 cells where the header names 3; write every cell"),
    ("a,b,c\nx,1,1\n".encode() + "caf\xe9,2,1\n".encode("latin-1"), "not UTF-8 text"),
    (b"a,b,c\nx,1,\"1\x00\"\n", "not a number"),
])
def test_csv_bad_numbers_and_bytes_are_one_line(tmp_path, content, words):
    path = tmp_path / "r.csv"
    path.write_bytes(content)
    out = tmp_path / "o.jsonl"
    mapping = "arm=a,seed=b,reward=c,c=c" if "negative" in words else "arm=a,seed=b,reward=c"
    with pytest.raises(InputError) as info:
        run_import("csv", [path], out, mapping=mapping)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_cli_import_then_compare(tmp_path, agentdescent_dir, capsys):
    out = tmp_path / "s.jsonl"
    assert main(["import", "agentdescent", str(agentdescent_dir / "selection-hotpotqa-3seed.json"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["compare", str(out), "--fixed", "tokens", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] is False and data["groups"][0]["unverified"][0]["reason"] == "unreported"


def test_cli_equal_budget_file_fork_of_3_has_three_scored_seeds(tmp_path, agentdescent_dir, capsys):
    out = tmp_path / "e.jsonl"
    assert main(["import", "agentdescent", str(agentdescent_dir / "equal-budget-hotpotqa-3seed.json"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["compare", str(out), "--fixed", "rollouts", "--json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    arms = {a["arm"]: (a["runs"], a["scored"]) for a in group["arms"]}
    assert arms["fork-of-3"] == (3, 3)
    pair = next(p for p in group["pairs"] if {p["a"], p["b"]} == {"fork-of-3", "merge-of-3"})
    assert pair["n"] == 3


@pytest.mark.parametrize("content", [_arms(arm=None), _arms(test_reward="0.5"), _arms(prompt_tokens=-1),
                                     _arms().replace(b"0.5", b"NaN"), b"\xff\xfe"])
def test_cli_import_refusal_is_exit_2_one_line_and_no_file(tmp_path, capsys, content):
    src = tmp_path / "src.json"
    src.write_bytes(content)
    out = tmp_path / "out.jsonl"
    assert main(["import", "agentdescent", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("costmatch: ") and err.count("\n") == 1 and str(src) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.json"]


def test_cli_import_unknown_format_is_exit_2(tmp_path, capsys):
    assert main(["import", "nope", "f", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "known formats" in err
    assert not (tmp_path / "o").exists()


def test_cli_arm_option_is_for_inspect_only(tmp_path, agentdescent_dir, capsys):
    src = agentdescent_dir / "selection-hotpotqa-3seed.json"
    assert main(["import", "agentdescent", str(src), "-o", str(tmp_path / "o"), "--arm", "model"]) == 2
    assert "--arm is for inspect logs" in capsys.readouterr().err


# -- inspect_ai logs, written for real with the mockllm model -------------------------------
@contextlib.contextmanager
def _packages_scanned_once():
    """inspect_ai looks up which installed distribution ships each task (ours: none) by scanning the file
    lists of every installed package, about 0.7 s per log; the scan's answer cannot change within a test
    run, so it is made once (same logs, a fraction of the time)."""
    from inspect_ai._util import package  # the module inspect_ai calls `packages_distributions` from

    scan = getattr(package, "packages_distributions", None)
    if scan is None:  # another inspect_ai release: nothing to share
        yield
        return
    if "answer" not in _SCANNED:
        _SCANNED["answer"] = scan()
    package.packages_distributions = lambda: _SCANNED["answer"]
    try:
        yield
    finally:
        package.packages_distributions = scan


_SCANNED: dict = {}  # the one scan's answer


def _write_inspect_log(log_dir, model_name, usages, contents, epochs=2, solvers=("generate",), name="arith",
                       variant=None, metadata=None, failing=None, flaky=None):
    """A real log: `usages` are (input, output[, reasoning[, cache_read[, cache_write]]]) or None per call.

    `failing` names a sample id whose solver always raises (kept as an errored sample), `flaky` one whose
    first attempt raises and whose retry is scored.
    """
    pytest.importorskip("inspect_ai", reason="the test extra installs inspect_ai")
    from inspect_ai import Task, eval as inspect_eval, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import chain_of_thought, generate, solver

    attempts = {}

    @solver
    def trouble():
        async def solve(state, generate_):
            attempts[state.sample_id] = attempts.get(state.sample_id, 0) + 1
            if state.sample_id == failing or (state.sample_id == flaky and attempts[state.sample_id] == 1):
                raise RuntimeError(f"tool crashed on sample {state.sample_id}")
            return state
        return solve

    outputs = []
    for usage, content in zip(usages, contents):
        out = ModelOutput.from_content(model=model_name, content=content)
        if usage is not None:
            extra = list(usage[2:]) + [None] * (5 - len(usage))
            out.usage = ModelUsage(input_tokens=usage[0], output_tokens=usage[1],
                                   total_tokens=usage[0] + usage[1] + (extra[1] or 0) + (extra[2] or 0),
                                   reasoning_tokens=extra[0], input_tokens_cache_read=extra[1],
                                   input_tokens_cache_write=extra[2])
        else:
            out.usage = None
        outputs.append(out)
    plan = [{"generate": generate, "chain_of_thought": chain_of_thought}[s]() for s in solvers]
    if failing is not None or flaky is not None:
        plan.insert(0, trouble())

    @task(name=name)
    def arith(variant: str = "plain"):
        return Task(dataset=[Sample(input=f"{i}+1?", target=str(i + 1), id=i) for i in range(3)],
                    solver=plan, scorer=match())

    # mockllm fills a missing usage by counting tokens with tiktoken, which downloads its tables; a provider
    # that reports no usage is what a None stands for, so that filling is switched off here.
    from inspect_ai.model._providers.mockllm import MockLLM

    async def no_default_usage(self, output, input, tools):
        return None

    saved, MockLLM._ensure_default_usage = MockLLM._ensure_default_usage, no_default_usage
    try:
        with _packages_scanned_once():
            [log] = inspect_eval(arith(**({} if variant is None else {"variant": variant})),
                                 model=get_model(model_name, custom_outputs=outputs), epochs=epochs,
                                 log_dir=str(log_dir), display="none", metadata=metadata,
                                 fail_on_error=False, retry_on_error=1 if flaky is not None else 0, max_samples=1)
    finally:
        MockLLM._ensure_default_usage = saved
    return Path(log.location)


def test_inspect_log_usage_units_calls_and_primary_scorer(tmp_path):
    from baselines.importers import import_inspect
    path = _write_inspect_log(tmp_path, "mockllm/model", [(10, 2, 1), (11, 3, 0), (12, 4, 2)] * 2,
                              ["1", "2", "x", "1", "x", "x"])
    records = import_inspect(path, arm="model")
    assert [(r.workload, r.arm, r.seed) for r in records] == [("arith", "mockllm/model", 1), ("arith", "mockllm/model", 2)]
    first = records[0]
    assert first.spend["calls"] == 3 and first.spend["prompt_tokens"] == 33 and first.spend["completion_tokens"] == 9
    assert first.spend["tokens"] == 42 and first.spend["reasoning_tokens"] == 3 and first.spend["usd"] is None
    assert first.spend["cached_tokens"] is None  # mockllm logged no cache figures: unreported, not 0
    assert sum(r.spend["prompt_tokens"] for r in records) == 66
    assert sorted(r.reward for r in records) == pytest.approx([1 / 3, 2 / 3])


def test_inspect_prompt_tokens_include_cache_reads_and_writes_as_units_py_defines(tmp_path):
    """inspect's input_tokens excludes the cache; costmatch's prompt_tokens is every input token read."""
    from baselines.importers import import_inspect
    from baselines.core.units import UNIT_DEFINITIONS
    assert "includes cached" in UNIT_DEFINITIONS["prompt_tokens"]
    path = _write_inspect_log(tmp_path, "mockllm/model", [(10, 2, None, 30, 5), (11, 3, None, 0, 0),
                                                          (12, 4, None, 40, 0)], ["1", "2", "3"], epochs=1)
    [run] = import_inspect(path)
    assert run.spend["prompt_tokens"] == 10 + 30 + 5 + 11 + 12 + 40
    assert (run.spend["cached_tokens"], run.spend["cache_write_tokens"]) == (70, 5)
    assert run.spend["tokens"] == run.spend["prompt_tokens"] + 9 and not run.partial


def test_inspect_samples_without_usage_make_tokens_partial_and_compare_says_so(tmp_path):
    from baselines.importers import import_inspect
    full = import_inspect(_write_inspect_log(tmp_path / "a", "mockllm/model", [(10, 2)] * 6, ["1"] * 6),
                          arm="model", arm_suffix="full")
    leaky = import_inspect(_write_inspect_log(tmp_path / "b", "mockllm/model", [(10, 2), None, (10, 2)] * 2,
                                              ["1"] * 6), arm="model", arm_suffix="leaky")
    assert all("tokens" in r.partial for r in leaky) and all(not r.partial for r in full)
    c = compare(full + leaky, fixed="tokens")
    assert [(u.arm, u.reason) for u in c.groups[0].unverified] == [("mockllm/model [leaky]", "partial")]


def test_inspect_two_solvers_on_one_model_are_two_arms_by_default(tmp_path):
    from baselines.importers import import_records
    plain = _write_inspect_log(tmp_path / "a", "mockllm/model", [(10, 2)] * 6, ["1", "2", "3"] * 2)
    cot = _write_inspect_log(tmp_path / "b", "mockllm/model", [(10, 2)] * 6, ["1", "x", "x"] * 2,
                             solvers=("chain_of_thought", "generate"))
    records = import_records("inspect", [plain, cot])
    assert sorted({r.arm for r in records}) == ["chain_of_thought > generate", "generate"]
    c = compare(records, fixed="calls")
    assert c.valid and {a.arm: a.scored for a in c.groups[0].arms} == {"generate": 2, "chain_of_thought > generate": 2}
    with pytest.raises(InputError, match="appears twice across the input files; pass --arm solver"):
        import_records("inspect", [plain, cot], arm="model")  # the model does not tell them apart


def test_inspect_one_solver_on_two_tasks_keeps_one_arm_name(tmp_path):
    from baselines.importers import import_records
    first = _write_inspect_log(tmp_path / "a", "mockllm/model", [(10, 2)] * 6, ["1"] * 6, name="arith")
    second = _write_inspect_log(tmp_path / "b", "mockllm/model", [(10, 2)] * 6, ["1"] * 6, name="algebra")
    records = import_records("inspect", [first, second])
    assert {(r.workload, r.arm) for r in records} == {("arith", "generate"), ("algebra", "generate")}
    by_file = import_records("inspect", [first, second], arm_from_file=True)
    assert len({r.arm for r in by_file}) == 2  # what --arm-from-file did: one solver, two names


def test_inspect_arm_from_model_task_arg_and_metadata(tmp_path):
    from baselines.importers import import_records
    a = _write_inspect_log(tmp_path / "a", "mockllm/small", [(10, 2)] * 6, ["1"] * 6, variant="terse",
                           metadata={"prompt": "v1"})
    b = _write_inspect_log(tmp_path / "b", "mockllm/large", [(10, 2)] * 6, ["1"] * 6, variant="verbose",
                           metadata={"prompt": "v2"})
    assert {r.arm for r in import_records("inspect", [a, b])} == {"mockllm/small", "mockllm/large"}  # models differ
    assert {r.arm for r in import_records("inspect", [a, b], arm="task-arg:variant")} == {"terse", "verbose"}
    assert {r.arm for r in import_records("inspect", [a, b], arm="meta:prompt")} == {"v1", "v2"}
    with pytest.raises(InputError, match="the log has no metadata key 'nope' .it has: prompt."):
        import_records("inspect", [a], arm="meta:nope")
    with pytest.raises(InputError, match="--arm: 'file' is not one of solver, model"):
        import_records("inspect", [a], arm="file")


def test_inspect_errored_sample_leaves_the_epoch_unscored_like_agentdescent(tmp_path):
    from baselines.importers import import_inspect
    path = _write_inspect_log(tmp_path, "mockllm/model", [(10, 2)] * 4, ["1", "2", "1", "2"], failing=2)
    records = import_inspect(path)
    assert [r.reward for r in records] == [None, None]
    assert all("sample 2: RuntimeError" in r.error and r.extra["source_reward"] == 1.0 for r in records)
    c = compare(records, fixed="calls")
    arm = c.groups[0].arms[0]
    assert (arm.runs, arm.scored, arm.errors) == (2, 0, 2)


def test_inspect_failed_attempt_that_was_retried_is_a_note_and_the_reward_is_kept(tmp_path):
    """The inspect form of the fork case: the scored attempt is the one selected; the failed one is a note."""
    from baselines.importers import import_inspect
    path = _write_inspect_log(tmp_path, "mockllm/model", [(10, 2)] * 3, ["1"] * 3, epochs=1, flaky=1)
    [run] = import_inspect(path)
    assert run.reward == pytest.approx(1 / 3) and run.error is None and run.extra["scored"] == 3
    assert run.extra["notes"] == ["sample 1: an earlier attempt failed and was retried: "
                                  "RuntimeError('tool crashed on sample 1')"]


def test_inspect_import_cli_and_bad_file(tmp_path, capsys):
    path = _write_inspect_log(tmp_path, "mockllm/model", [(5, 1)] * 6, ["1"] * 6)
    out = tmp_path / "o.jsonl"
    assert main(["import", "inspect", str(path), "-o", str(out), "--arm", "model"]) == 0
    assert [r.arm for r in read_records(out)] == ["mockllm/model"] * 2
    bad = tmp_path / "bad.eval"
    bad.write_text("not a log")
    capsys.readouterr()
    assert main(["import", "inspect", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not an inspect_ai evaluation log" in err and err.count("\n") == 1
    assert len(read_records(out)) == 2  # the earlier output is untouched


@pytest.mark.process
def test_a_real_inspect_log_imports_in_a_fresh_process(tmp_path):
    """inspect_ai writes .eval members compressed with zstd; the archive check before inspect_ai is imported
    refused every real log in a fresh process (the in-process tests had imported inspect_ai already)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("inspect_ai", reason="the test extra installs inspect_ai")
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "runs.jsonl"
    done = subprocess.run([sys.executable, "-m", "baselines.cli", "import", "inspect",
                           str(root / "tests" / "data" / "inspect" / "arith.eval"), "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    assert len(read_records(out)) == 2
