"""lm-evaluation-harness and promptfoo importers, on real files the tools wrote (tests/data/lm_eval,
tests/data/promptfoo; tests/eval_tools.py made them). Every figure is checked against an independent
parse of the same files here; the slow tests at the end run the tools again and import what they write."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from baselines import InputError
from baselines.cli import main
from baselines.importers import import_lm_eval, import_promptfoo, import_records, run_import
from baselines.core.records import read_records

DATA = Path(__file__).parent / "data"
LM_EVAL = DATA / "lm_eval" / "output"
PROMPTFOO = DATA / "promptfoo" / "results.json"


# -- lm-evaluation-harness -------------------------------------------------------------------
def _lm_eval_truth() -> dict[tuple[str, int], dict]:
    """Per (model, seed): the samples' exact_match by doc id and the results file's figures, read here
    without costmatch."""
    truth = {}
    for results in sorted(LM_EVAL.rglob("results_*.json")):
        data = json.loads(results.read_text())
        date = results.name[len("results_"):-len(".json")]
        lines = [json.loads(line) for line in (results.parent / f"samples_arith20_{date}.jsonl").read_text().splitlines()]
        truth[(data["model_name"], data["config"]["random_seed"])] = {
            "items": {str(s["doc_id"]): s["exact_match"] for s in lines},
            "figure": data["results"]["arith20"]["exact_match,none"],
            "seconds": float(data["total_evaluation_time_seconds"]),
            "responses": sum(len(r) for s in lines for r in s["resps"])}
    return truth


def test_lm_eval_items_and_reward_are_the_files_own():
    truth = _lm_eval_truth()
    records = import_lm_eval(LM_EVAL)
    assert sorted((r.arm, r.seed) for r in records) == sorted(truth) == [(m, s) for m in ("strong", "weak")
                                                                         for s in (0, 1, 2)]
    for record in records:
        mine = truth[(record.arm, record.seed)]
        assert {i["id"]: i["reward"] for i in record.items} == mine["items"]
        assert record.reward == pytest.approx(mine["figure"]) and record.extra["source_reward"] == mine["figure"]
        assert (record.workload, record.extra["metric"]) == ("arith20", "exact_match,none")
        assert record.extra["reward_range"] == [0.0, 1.0]
        assert record.spend["calls"] == mine["responses"] == 20
        assert record.spend["seconds"] == mine["seconds"]
    assert {r.arm: r.reward for r in records} == {"strong": 0.85, "weak": 0.45}


def test_lm_eval_reports_no_tokens_or_cost_so_they_are_unreported_not_zero():
    for record in import_lm_eval(LM_EVAL):
        assert all(record.spend[u] is None for u in ("prompt_tokens", "completion_tokens", "tokens", "usd"))


def test_lm_eval_items_pair_by_document_across_models():
    strong, weak = sorted((r for r in import_lm_eval(LM_EVAL) if r.seed == 0), key=lambda r: r.arm)
    assert [i["id"] for i in strong.items] == [i["id"] for i in weak.items] == [str(n) for n in range(20)]
    both = {i["id"]: i["reward"] for i in strong.items}
    wins = [k for k, v in both.items() if v == 1.0 and dict((j["id"], j["reward"]) for j in weak.items)[k] == 0.0]
    assert len(wins) == 8  # the weak model's 11 misses include the strong model's 3


@pytest.mark.parametrize("spec, arms", [
    ("model", {"strong", "weak"}), ("model-arg:model", {"strong", "weak"}), ("meta:model", {"strong", "weak"}),
])
def test_lm_eval_arm_choices(spec, arms):
    assert {r.arm for r in import_records("lm-eval", [LM_EVAL], arm=spec)} == arms


def test_lm_eval_arm_that_does_not_tell_runs_apart_is_refused_before_writing(tmp_path):
    with pytest.raises(InputError, match="appears twice across the input files; pass --arm model"):
        import_records("lm-eval", [LM_EVAL], arm="model-arg:num_concurrent")
    with pytest.raises(InputError, match="the run has no gen-kwarg 'temperature' .it has: none."):
        import_records("lm-eval", [LM_EVAL], arm="gen-kwarg:temperature")
    with pytest.raises(InputError, match="--arm: 'solver' is not one of model"):
        import_records("lm-eval", [LM_EVAL], arm="solver")


def _lm_copy(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    shutil.copytree(LM_EVAL, out)
    results = sorted(out.rglob("results_*.json"))[0]
    return results, results.with_name("samples_arith20_" + results.name[len("results_"):-len(".json")] + ".jsonl")


def _edit_first_sample(samples: Path, edit) -> None:
    lines = samples.read_text().splitlines()
    first = json.loads(lines[0])
    edit(first)
    lines[0] = json.dumps(first, allow_nan=True)
    samples.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("edit, words", [
    (lambda s: s.update(exact_match=float("nan")), "holds NaN, which is not a finite number"),
    (lambda s: s.update(exact_match="1"), "field \"exact_match\" must be a finite number per item, got \"1\""),
    (lambda s: s.pop("exact_match"), "field \"exact_match\" is missing"),
    (lambda s: s.update(doc_id=None), "field 'doc_id' must be an integer or a non-empty string, got null"),
    (lambda s: s.update(doc_id=1), "item \"1\" appears twice in one run"),
    (lambda s: s.update(doc_hash="0" * 64), "document 0 is not the document of the same id"),
])
def test_lm_eval_bad_samples_are_one_line_and_nothing_is_written(tmp_path, edit, words):
    results, samples = _lm_copy(tmp_path)
    _edit_first_sample(samples, edit)
    out = tmp_path / "o.jsonl"
    with pytest.raises(InputError) as info:
        run_import("lm-eval", [tmp_path / "out"], out)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert not out.exists()


def test_lm_eval_without_log_samples_or_with_a_cut_file_is_refused(tmp_path):
    results, samples = _lm_copy(tmp_path)
    samples.write_text("".join(samples.read_text().splitlines(keepends=True)[:5]))
    with pytest.raises(InputError, match="holds 5 documents for filter 'none', the results file says 20"):
        import_lm_eval(results)
    samples.unlink()
    with pytest.raises(InputError, match="run lm_eval with --log_samples"):
        import_lm_eval(results)


def test_lm_eval_metric_choice(tmp_path):
    with pytest.raises(InputError, match="reports no metric 'acc' .it has: exact_match,none."):
        import_lm_eval(LM_EVAL, metric="acc")
    assert {r.extra["metric"] for r in import_lm_eval(LM_EVAL, metric="exact_match,none")} == {"exact_match,none"}


# -- promptfoo --------------------------------------------------------------------------------
def _promptfoo_truth() -> dict[tuple[str, int], dict]:
    """Per (provider label, repeat): pass/fail, tokens and cost by test vars, parsed here without costmatch."""
    rows = json.loads(PROMPTFOO.read_text())["results"]["results"]
    truth: dict[tuple[str, int], dict] = {}
    counts: dict[tuple[str, str], int] = {}
    for row in sorted(rows, key=lambda r: (r["promptIdx"], r["testIdx"])):
        key = json.dumps(row["vars"], sort_keys=True, separators=(",", ":"))
        label = row["provider"]["label"]
        repeat = counts.get((label, key), 0)
        counts[(label, key)] = repeat + 1
        run = truth.setdefault((label, repeat), {"pass": {}, "prompt": 0, "completion": 0, "usd": [], "ms": 0})
        run["pass"][key] = 1.0 if row["success"] else 0.0
        run["prompt"] += row["response"]["tokenUsage"]["prompt"]
        run["completion"] += row["response"]["tokenUsage"]["completion"]
        run["usd"].append(row["response"]["cost"])
        run["ms"] += row["latencyMs"]
    return truth


def test_promptfoo_items_tokens_cost_and_latency_are_the_files_own():
    truth = _promptfoo_truth()
    records = import_promptfoo(PROMPTFOO)
    assert sorted((r.arm, r.seed) for r in records) == sorted(truth) == [(p, s) for p in ("strong", "weak")
                                                                         for s in (0, 1, 2)]
    for record in records:
        mine = truth[(record.arm, record.seed)]
        assert {i["id"]: i["reward"] for i in record.items} == mine["pass"]
        assert record.reward == pytest.approx(sum(mine["pass"].values()) / 20)
        assert (record.spend["prompt_tokens"], record.spend["completion_tokens"]) == (mine["prompt"], mine["completion"])
        assert record.spend["tokens"] == mine["prompt"] + mine["completion"]
        assert record.spend["usd"] == pytest.approx(sum(mine["usd"]), rel=1e-12)
        assert record.spend["latency_seconds"] == pytest.approx(mine["ms"] / 1000)
        assert record.spend["calls"] == 20 and record.spend["cached_tokens"] is None and not record.partial
        assert record.workload == "arith20" and record.extra["reward_range"] == [0.0, 1.0]
    assert {r.arm: r.reward for r in records} == {"strong": 0.85, "weak": 0.45}


def test_promptfoo_items_pair_by_vars_across_providers_and_repeats():
    records = import_promptfoo(PROMPTFOO)
    ids = [sorted(i["id"] for i in r.items) for r in records]
    assert all(x == ids[0] for x in ids) and len(ids[0]) == 20
    assert '{"a":3,"answer":"44","b":41}' in ids[0]


def _promptfoo_edit(tmp_path: Path, edit) -> Path:
    data = json.loads(PROMPTFOO.read_text())
    edit(data)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data, allow_nan=True))
    return path


def _strong_first(data):
    return next(r for r in data["results"]["results"] if r["provider"]["label"] == "strong")


def test_promptfoo_zero_filled_tokens_and_missing_cost_are_unreported(tmp_path):
    def edit(data):
        for row in data["results"]["results"]:
            if row["provider"]["label"] == "weak":
                row["response"].pop("tokenUsage")  # what an exec: provider writes: promptfoo fills 0 elsewhere
                row["response"].pop("cost")
        row = _strong_first(data)
        row["response"]["tokenUsage"].update(prompt=0, completion=0)
    records = {(r.arm, r.seed): r for r in import_promptfoo(_promptfoo_edit(tmp_path, edit))}
    assert records[("weak", 0)].spend["tokens"] is None and records[("weak", 0)].spend["usd"] is None
    assert records[("weak", 0)].spend["calls"] == 20
    first = records[("strong", 0)]
    assert set(first.partial) == {"prompt_tokens", "completion_tokens", "tokens", "cached_tokens"} - {"cached_tokens"}
    assert first.spend["prompt_tokens"] == 950


def test_promptfoo_provider_error_leaves_the_run_unscored_and_the_item_null(tmp_path):
    def edit(data):
        row = _strong_first(data)
        row.update(failureReason=2, success=False, score=0, error="API error: 500")
        row["response"]["error"] = "API error: 500"
    records = {(r.arm, r.seed): r for r in import_promptfoo(_promptfoo_edit(tmp_path, edit))}
    run = records[("strong", 0)]
    assert run.reward is None and "API error: 500" in run.error and run.extra["source_reward"] == pytest.approx(16 / 19)
    assert sum(i["reward"] is None for i in run.items) == 1
    assert records[("strong", 1)].reward == 0.85


def test_promptfoo_metric_and_arm_choices(tmp_path):
    scores = import_promptfoo(PROMPTFOO, metric="score")
    assert {r.arm: r.reward for r in scores} == {"strong": 0.85, "weak": 0.45}
    assert {r.arm for r in import_promptfoo(PROMPTFOO, arm="provider+prompt")} == {"strong | plain", "weak | plain"}
    with pytest.raises(InputError, match="appears twice in one run; two columns of the file .provider x prompt. map to this arm"):
        import_promptfoo(PROMPTFOO, arm="prompt")
    with pytest.raises(InputError, match="no named score 'accuracy' .it has: none."):
        import_promptfoo(PROMPTFOO, metric="named:accuracy")
    with pytest.raises(InputError, match="--metric: 'acc' is not one of pass, score or named:NAME"):
        import_promptfoo(PROMPTFOO, metric="acc")


def test_promptfoo_same_vars_in_two_tests_get_distinct_ids(tmp_path):
    def edit(data):
        rows = data["results"]["results"]
        second = [r for r in rows if r["vars"]["a"] == 6]
        for row in second:
            row["vars"] = {"a": 3, "b": 41, "answer": "44"}
    records = import_promptfoo(_promptfoo_edit(tmp_path, edit))
    ids = {i["id"] for i in records[0].items}
    assert '{"a":3,"answer":"44","b":41}' in ids and '{"a":3,"answer":"44","b":41} #2' in ids


# -- through the CLI: import, compare, check --------------------------------------------------
def test_cli_import_compare_and_check_both_formats(tmp_path, capsys):
    lm, pf = tmp_path / "lm.jsonl", tmp_path / "pf.jsonl"
    assert main(["import", "lm-eval", str(LM_EVAL), "-o", str(lm)]) == 0
    assert main(["import", "promptfoo", str(PROMPTFOO), "-o", str(pf)]) == 0
    assert len(read_records(lm)) == 6 and len(read_records(pf)) == 6
    capsys.readouterr()
    assert main(["compare", str(pf), "--fixed", "calls", "--json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert {a["arm"]: a["reward"]["mean"] for a in group["arms"]} == {"strong": 0.85, "weak": 0.45}
    pair = group["pairs"][0]
    assert pair["n"] == 3 and "paired by item: 60 question(s)" in " ".join(map(str, pair.values()))
    for path in (pf, lm):  # the weak arm loses 0.4 on the same questions: the gate fails it, paired by item
        capsys.readouterr()
        assert main(["check", str(path), "--fixed", "calls", "--baseline", "strong", "--candidate", "weak",
                     "--margin", "0.02", "--json"]) == 1
        [gate] = json.loads(capsys.readouterr().out)["groups"]
        assert gate["verdict"] == "FAIL" and "paired item differences" in gate["reason"], gate


@pytest.mark.parametrize("args, words", [
    (["import", "promptfoo", "F", "--map", "a=b"], None),
    (["import", "agentdescent", "F", "--metric", "acc"], "--metric is for lm-eval and promptfoo"),
    (["import", "inspect", "F", "--workload", "w"], "--workload is for csv and promptfoo"),
])
def test_cli_misplaced_options_are_exit_2(tmp_path, capsys, args, words):
    src = tmp_path / "f.json"
    src.write_text("{}")
    argv = [a if a != "F" else str(src) for a in args] + ["-o", str(tmp_path / "o.jsonl")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and (words is None or words in err)
    assert not (tmp_path / "o.jsonl").exists()


# -- the tools themselves (slow: installed by .ci/run) ----------------------------------------
@pytest.mark.slow
def test_lm_eval_for_real_two_models_pair_by_document(tmp_path):
    from tests.eval_tools import run_lm_eval, tool
    if tool("LM_EVAL", "lm_eval") is None:
        pytest.skip("lm_eval is not installed (.ci/run installs it into a cache folder and sets LM_EVAL)")
    files = run_lm_eval(tmp_path / "out", tmp_path / "work")
    records = {r.arm: r for r in import_records("lm-eval", [tmp_path / "out"])}
    assert len(files) == 2 and {a: r.reward for a, r in records.items()} == {"strong": 0.85, "weak": 0.45}
    for record in records.values():
        assert record.reward == record.extra["source_reward"] and len(record.items) == 20


@pytest.mark.slow
def test_promptfoo_for_real_two_providers_two_repeats(tmp_path):
    from tests.eval_tools import run_promptfoo, tool
    if tool("PROMPTFOO", "promptfoo") is None:
        pytest.skip("promptfoo is not installed (.ci/run installs it with npm into a cache folder)")
    path = run_promptfoo(tmp_path / "results.json", tmp_path / "work")
    records = import_promptfoo(path)
    assert sorted((r.arm, r.seed, r.reward) for r in records) == [("strong", 0, 0.85), ("strong", 1, 0.85),
                                                                  ("weak", 0, 0.45), ("weak", 1, 0.45)]
    assert {r.arm: r.spend["tokens"] for r in records} == {"strong": 1040, "weak": 320}
