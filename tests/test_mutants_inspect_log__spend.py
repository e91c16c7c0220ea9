"""An inspect log's spend in costmatch units: calls, token parts, cost; unreported is None, not 0 (issue 44).

baselines.core.units: prompt_tokens is every input token read (inspect's input_tokens excludes the cache
reads and writes), tokens is prompt + completion, usd is inspect's total_cost; a unit some of an epoch's
counted samples (those that called the model or logged usage) did not report is partial (a lower bound).
"""
from __future__ import annotations

from tests.test_mutants_inspect_log__logs import base_log, read, refusal, sample, samples, set_calls, usage, write_log


def one_epoch(tmp_path, per_sample: list[tuple[dict, int]], name: str = "arith.json"):
    """A log of epoch 1 only: sample i's model_usage and number of model events are per_sample[i]."""
    log = base_log()
    log["samples"] = samples(log, 1)
    for s, (usages, calls) in zip(log["samples"], per_sample):
        s["model_usage"] = usages
        set_calls(log, s, calls)
    [record] = read(write_log(tmp_path, log, name))
    return record


def u(**parts) -> dict:
    return {"mockllm/model": usage(**parts)}


def test_every_unit_from_its_inspect_field(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, read=4, write=1, reasoning=1, cost=0.25), 1),
                                  (u(inp=20, out=3, read=0, write=0, reasoning=0, cost=0.5), 2),
                                  (u(inp=30, out=5, read=6, write=7, reasoning=2, cost=0.125), 1)])
    assert record["spend"] == {"calls": 4, "prompt_tokens": 10 + 4 + 1 + 20 + 30 + 6 + 7, "completion_tokens": 10,
                               "tokens": 78 + 10, "cached_tokens": 10, "cache_write_tokens": 8,
                               "reasoning_tokens": 3, "usd": 0.875}
    assert "partial" not in record or record["partial"] == []


def test_prompt_tokens_without_cache_figures_are_the_input_tokens(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2), 1), (u(inp=20, out=3), 1), (u(inp=30, out=5), 1)])
    assert record["spend"] == {"calls": 3, "prompt_tokens": 60, "completion_tokens": 10, "tokens": 70,
                               "cached_tokens": None, "cache_write_tokens": None, "reasoning_tokens": None,
                               "usd": None}   # unreported: not 0
    assert not record.get("partial")


def test_cache_reads_alone_or_writes_alone_add_to_the_prompt(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, read=5), 1), (u(inp=20, out=3, write=7), 1),
                                  (u(inp=30, out=5, read=1, write=2), 1)])
    assert record["spend"]["prompt_tokens"] == 10 + 5 + 20 + 7 + 30 + 1 + 2
    assert (record["spend"]["cached_tokens"], record["spend"]["cache_write_tokens"]) == (6, 9)
    assert record["spend"]["tokens"] == 75 + 10
    assert record["partial"] == ["cached_tokens", "cache_write_tokens"]  # one sample each did not say


def test_zero_is_reported_zero_not_unreported(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=0, out=0, read=0, write=0, reasoning=0, cost=0.0), 1)] * 3)
    assert record["spend"] == {"calls": 3, "prompt_tokens": 0, "completion_tokens": 0, "tokens": 0,
                               "cached_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0, "usd": 0.0}
    assert not record.get("partial")


def test_a_unit_one_sample_did_not_report_is_partial_and_summed_over_the_others(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, reasoning=1, cost=0.5), 1), (u(inp=20, out=3, cost=0.25), 1),
                                  (u(inp=30, out=5, reasoning=4, cost=0.25), 1)])
    assert record["spend"]["reasoning_tokens"] == 5 and record["spend"]["usd"] == 1.0
    assert record["partial"] == ["reasoning_tokens"]


def test_a_sample_that_called_the_model_and_logged_no_usage_makes_every_unit_partial(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, read=1, write=1, reasoning=1, cost=0.5), 1), ({}, 2),
                                  (u(inp=30, out=5, read=1, write=1, reasoning=1, cost=0.25), 1)])
    assert record["spend"] == {"calls": 4, "prompt_tokens": 44, "completion_tokens": 7, "tokens": 51,
                               "cached_tokens": 2, "cache_write_tokens": 2, "reasoning_tokens": 2, "usd": 0.75}
    assert record["partial"] == ["prompt_tokens", "completion_tokens", "tokens", "cached_tokens",
                                 "cache_write_tokens", "reasoning_tokens", "usd"]


def test_a_sample_that_logged_usage_without_a_model_event_counts_too(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, reasoning=1), 1), (u(inp=20, out=3), 0),
                                  (u(inp=30, out=5, reasoning=2), 1)])
    assert record["spend"]["calls"] == 2 and record["spend"]["prompt_tokens"] == 60
    assert record["partial"] == ["reasoning_tokens"]


def test_a_sample_that_neither_called_nor_logged_usage_is_not_counted(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, reasoning=1), 1), ({}, 0), (u(inp=30, out=5, reasoning=2), 3)])
    assert record["spend"] == {"calls": 4, "prompt_tokens": 40, "completion_tokens": 7, "tokens": 47,
                               "cached_tokens": None, "cache_write_tokens": None, "reasoning_tokens": 3, "usd": None}
    assert not record.get("partial")


def test_no_sample_called_the_model_and_none_logged_usage(tmp_path):
    record = one_epoch(tmp_path, [({}, 0)] * 3)
    assert record["spend"] == {"calls": 0, "prompt_tokens": None, "completion_tokens": None, "tokens": None,
                               "cached_tokens": None, "cache_write_tokens": None, "reasoning_tokens": None, "usd": None}
    assert not record.get("partial")


def test_a_unit_only_one_sample_reported_is_partial(tmp_path):
    record = one_epoch(tmp_path, [(u(inp=10, out=2, cost=0.5), 1), (u(inp=20, out=3), 1), (u(inp=30, out=5), 1)])
    assert record["spend"]["usd"] == 0.5 and record["partial"] == ["usd"]


def test_two_models_in_one_sample_are_summed_and_that_sample_reports_once(tmp_path):
    both = {"mockllm/model": usage(inp=10, out=2, reasoning=1), "mockllm/judge": usage(inp=7, out=1, reasoning=3)}
    record = one_epoch(tmp_path, [(both, 2), (u(inp=20, out=3, reasoning=0), 1), (u(inp=30, out=5, reasoning=2), 1)])
    assert record["spend"]["calls"] == 4 and record["spend"]["prompt_tokens"] == 67
    assert record["spend"]["reasoning_tokens"] == 6 and not record.get("partial")
    one_says = {"mockllm/model": usage(inp=10, out=2, reasoning=1), "mockllm/judge": usage(inp=7, out=1)}
    record = one_epoch(tmp_path / "b", [(one_says, 2), (u(inp=20, out=3), 1), (u(inp=30, out=5), 1)])
    assert record["spend"]["reasoning_tokens"] == 1 and record["partial"] == ["reasoning_tokens"]


def test_each_epoch_sums_its_own_samples(tmp_path):
    log = base_log()
    for s in samples(log, 2):
        s["model_usage"] = u(inp=100, out=10, cost=1.0)
        set_calls(log, s, 2)
    sample(log, 1, 0)["model_usage"] = u(inp=1, out=1)
    first, second = read(write_log(tmp_path, log))
    assert second["spend"] == {"calls": 6, "prompt_tokens": 300, "completion_tokens": 30, "tokens": 330,
                               "cached_tokens": None, "cache_write_tokens": None, "reasoning_tokens": None,
                               "usd": 3.0}
    assert first["spend"]["calls"] == 3 and first["spend"]["prompt_tokens"] == 1 + 12 + 13
    assert first["partial"] == ["cached_tokens", "cache_write_tokens", "reasoning_tokens"] and not second.get("partial")


def test_a_count_the_record_cannot_hold_is_refused_naming_the_file_and_epoch(tmp_path):
    log = base_log()
    sample(log, 2, 1)["model_usage"] = u(inp=-50, out=2)
    path = write_log(tmp_path, log)
    message = refusal([path])
    assert message.startswith(f"{path}: epoch 2") and "prompt_tokens" in message
