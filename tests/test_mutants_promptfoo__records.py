"""What the promptfoo importer makes of a results file (importers/promptfoo.py), one test per rule a mutant broke.

Arms (provider label, else id; prompt label, else raw; the default and `--arm`), item keys (canonical `vars`,
`{}` for none, `testCase.vars` when the result has no `vars`, hashed past 120 characters), repeats
(`runtimeOptions.repeat` and a test's own `testCase.options.repeat`), errors (which message a run keeps),
spend per item and per run (promptfoo's zero fill is unreported, cached tokens only beside reported ones),
and what a record carries (source, metric, range, suffix, workload). Small files written to tmp_path.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from baselines.importers import import_promptfoo
from baselines.importers.promptfoo import import_promptfoo_files
from tests.test_mutants_promptfoo__messages import row, write


def cell(promptIdx: int, provider: dict, prompt: dict, x: int, **fields) -> dict:
    return row(promptIdx=promptIdx, testIdx=x, provider=provider, prompt=prompt, vars={"x": x},
               testCase={"vars": {"x": x}}, **fields)


# -- arms ------------------------------------------------------------------------------------------------
A, B = {"id": "openai:a", "label": "A"}, {"id": "openai:b", "label": "B"}
P, Q = {"raw": "p {{x}}", "label": "p"}, {"raw": "q {{x}}", "label": "q"}


def test_two_providers_and_two_prompts_make_four_arms_by_default(tmp_path):
    path = write(tmp_path, *(cell(i, prov, prom, 0) for i, (prov, prom) in enumerate([(A, P), (A, Q), (B, P), (B, Q)])))
    assert sorted(r.arm for r in import_promptfoo(path)) == ["A | p", "A | q", "B | p", "B | q"]


def test_arm_provider_names_arms_by_provider(tmp_path):
    path = write(tmp_path, cell(0, A, P, 0), cell(1, B, P, 0))
    assert sorted(r.arm for r in import_promptfoo(path, arm="provider")) == ["A", "B"]


def test_a_provider_without_a_label_is_its_id_and_a_prompt_without_a_label_is_its_text(tmp_path):
    path = write(tmp_path, cell(0, {"id": "openai:gpt"}, {"raw": "say {{x}}"}, 0),
                 cell(1, "plain-string-provider", {"raw": "tell {{x}}", "label": ""}, 0))
    assert sorted(r.arm for r in import_promptfoo(path)) == ["openai:gpt | say {{x}}",
                                                             "plain-string-provider | tell {{x}}"]


def test_arm_suffix_and_workload_reach_every_record_of_every_file(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    first, second = write(one, cell(0, A, P, 0)), write(two, cell(0, B, P, 0))
    [record] = import_promptfoo(first, arm_suffix="v2", workload="w")
    assert (record.arm, record.workload) == ("A [v2]", "w")
    records = import_promptfoo_files([first, second], arm_suffix="v2")
    assert sorted((r.arm, r.workload) for r in records) == [("A [v2]", "d"), ("B [v2]", "d")]


def test_a_file_without_a_description_is_workload_promptfoo(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": [row()]}}))
    assert [r.workload for r in import_promptfoo(path)] == ["promptfoo"]


# -- item keys ---------------------------------------------------------------------------------------------
def ids(path: Path, **options) -> list[str]:
    [record] = import_promptfoo(path, **options)
    return [item["id"] for item in record.items]


def test_vars_null_is_the_empty_test_and_missing_vars_are_read_from_the_test_case(tmp_path):
    assert ids(write(tmp_path, row(vars=None, testCase={}))) == ["{}"]
    bare = [row(testIdx=i, testCase={"vars": {"x": i}}) for i in range(2)]
    for r in bare:
        del r["vars"]
    assert ids(write(tmp_path, *bare)) == ['{"x":0}', '{"x":1}']


def _vars_of_length(n: int, text: str = "") -> dict:
    value = {"k": text + "a" * (n - len('{"k":""}') - len(text))}
    assert len(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) == n
    return value


def test_vars_up_to_120_characters_are_the_key_and_longer_ones_are_hashed(tmp_path):
    at = _vars_of_length(120)
    assert ids(write(tmp_path, row(vars=at))) == [json.dumps(at, separators=(",", ":"))]
    over = _vars_of_length(121, "é")
    text = json.dumps(over, separators=(",", ":"), ensure_ascii=False)
    assert ids(write(tmp_path, row(vars=over))) == ["vars:" + hashlib.sha256(text.encode()).hexdigest()[:16]]


def test_long_vars_with_a_lone_surrogate_still_hash_to_an_id(tmp_path):
    """promptfoo writes a JS string's broken surrogate as \\udc00; a short key keeping it is refused (see
    __messages), a hashed one is plain ASCII and imports."""
    long = _vars_of_length(130, "\udc00")
    text = json.dumps(long, separators=(",", ":"), ensure_ascii=False)
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": [row(vars=long)]}}))
    assert ids(path) == ["vars:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]]


# -- repeats --------------------------------------------------------------------------------------------
def test_a_tests_own_repeat_overrides_the_runs_and_a_repeat_of_1_is_allowed(tmp_path):
    twice = [row(testIdx=i, success=i == 0, testCase={"vars": {"x": 1}, "options": {"repeat": 2}}) for i in range(2)]
    assert sorted((r.seed, r.reward) for r in import_promptfoo(write(tmp_path, *twice))) == [(0, 1.0), (1, 0.0)]
    once = [row(testIdx=i, testCase={"vars": {"x": 1}, "options": {"repeat": 1}}) for i in range(2)]
    path = write(tmp_path, *once, runtimeOptions={"repeat": 2})
    assert ids(path) == ['{"x":1}', '{"x":1} #2']
    assert ids(write(tmp_path, row(), row(testIdx=1), runtimeOptions={"repeat": 1})) == ['{"x":1}', '{"x":1} #2']


# -- errors ----------------------------------------------------------------------------------------------
def error_of(tmp_path, **fields) -> str:
    [record] = import_promptfoo(write(tmp_path, row(**fields)))
    assert record.reward is None and record.items[0]["reward"] is None
    return record.error


def test_which_words_an_errored_test_keeps(tmp_path):
    assert error_of(tmp_path, failureReason=2, error="boom  now") == 'test {"x":1}: boom now'
    assert error_of(tmp_path, failureReason=2, error=None) == 'test {"x":1}: provider error'
    response = {"error": "HTTP 500", "tokenUsage": {}}
    assert error_of(tmp_path, failureReason=1, error="assert failed", response=response) == 'test {"x":1}: HTTP 500'
    assert error_of(tmp_path, failureReason=2, error="assert failed", response=response) == 'test {"x":1}: HTTP 500'
    assert error_of(tmp_path, failureReason=2, error="x" * 300) == 'test {"x":1}: ' + "x" * 200


def test_a_failed_assertion_is_a_scored_zero_not_an_error(tmp_path):
    [record] = import_promptfoo(write(tmp_path, row(failureReason=1, success=False, error="expected 2")))
    assert (record.reward, record.error) == (0.0, None)


def test_two_errors_in_one_run_are_both_kept(tmp_path):
    path = write(tmp_path, row(failureReason=2, error="a"), row(testIdx=1, vars={"x": 2}, failureReason=2, error="b"),
                 row(testIdx=2, vars={"x": 3}))
    [record] = import_promptfoo(path)
    assert record.error == 'test {"x":1}: a; test {"x":2}: b'
    assert (record.reward, record.extra["source_reward"]) == (None, 1.0)


# -- spend ----------------------------------------------------------------------------------------------
def spend_of(tmp_path, tokens: dict, **fields) -> tuple[dict, dict]:
    r = row(**fields)
    r["response"]["tokenUsage"] = tokens
    [record] = import_promptfoo(write(tmp_path, r))
    return record.spend, record.items[0]["spend"]


def test_each_items_spend_is_what_its_response_reported(tmp_path):
    run, item = spend_of(tmp_path, {"prompt": 3, "completion": 2, "cached": 1, "numRequests": 1})
    assert item == {"calls": 1, "prompt_tokens": 3, "completion_tokens": 2, "tokens": 5, "cached_tokens": 1,
                    "usd": 0.001, "latency_seconds": 0.012}
    assert run == item


def test_a_zero_completion_beside_reported_prompt_tokens_is_a_measurement(tmp_path):
    run, item = spend_of(tmp_path, {"prompt": 5, "completion": 0})
    assert (item["prompt_tokens"], item["completion_tokens"], item["tokens"]) == (5, 0, 5)


def test_prompt_tokens_without_completion_tokens_leave_the_total_unreported(tmp_path):
    run, item = spend_of(tmp_path, {"prompt": 5})
    assert item["prompt_tokens"] == 5 and "completion_tokens" not in item and "tokens" not in item
    assert run["tokens"] is None


def test_promptfoos_zero_fill_leaves_tokens_and_cached_tokens_unreported(tmp_path):
    run, item = spend_of(tmp_path, {"prompt": 0, "completion": 0, "cached": 0, "numRequests": 1})
    assert item == {"calls": 1, "usd": 0.001, "latency_seconds": 0.012}
    assert run["cached_tokens"] is None and run["prompt_tokens"] is None


def test_a_result_without_latency_has_no_latency(tmp_path):
    run, item = spend_of(tmp_path, {"prompt": 3, "completion": 2}, latencyMs=None)
    assert "latency_seconds" not in item and run["latency_seconds"] is None


# -- what a record carries ---------------------------------------------------------------------------------
def test_a_record_names_its_source_metric_and_unit_range(tmp_path):
    [record] = import_promptfoo(write(tmp_path, row(namedScores={"a": 0.25})), metric="named:a")
    assert (record.reward, record.extra["source"], record.extra["metric"], record.extra["tests"]) == \
        (0.25, "promptfoo:results.json", "named:a", 1)
    assert record.extra["reward_range"] == [0.0, 1.0]


def test_a_score_outside_0_1_or_no_score_at_all_declares_no_range(tmp_path):
    [record] = import_promptfoo(write(tmp_path, row(score=3)), metric="score")
    assert record.reward == 3.0 and "reward_range" not in record.extra
    [record] = import_promptfoo(write(tmp_path, row(failureReason=2)))
    assert record.reward is None and "reward_range" not in record.extra
