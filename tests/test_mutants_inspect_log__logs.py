"""inspect_log.py's rules as a user meets them, fast enough to judge each mutant (issue 44).

tests/test_importers.py writes every log with inspect_ai's mockllm model (~15 s per mutant). These tests
read the one real log kept in tests/data/inspect/arith.eval (how it was written: tests/data/inspect/README.md),
once as it is, and otherwise as inspect_ai's own JSON encoding of it (`write_eval_log(..., format="json")`)
edited field by field in tmp_path: each variant is still read by inspect_ai's `read_eval_log`, so an edit
that inspect_ai's models refuse fails here instead of testing a log that cannot exist.

This file holds the shared log builder and the records of the kept log; the other
tests/test_mutants_inspect_log__*.py files import the builder from here.
"""
from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the test extra installs inspect_ai")

from baselines.core.errors import InputError  # noqa: E402
from baselines.importers import import_inspect, import_inspect_files  # noqa: E402

EVAL_LOG = Path(__file__).resolve().parent / "data" / "inspect" / "arith.eval"
_BASE: dict = {}


def base_log() -> dict:
    """The kept log in inspect_ai's JSON encoding (a fresh copy each call)."""
    if "log" not in _BASE:
        from inspect_ai.log import read_eval_log, write_eval_log
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "arith.json"
            write_eval_log(read_eval_log(str(EVAL_LOG)), str(out), format="json")
            _BASE["log"] = json.loads(out.read_text())
    return copy.deepcopy(_BASE["log"])


def write_log(folder: Path, log: dict, name: str = "arith.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(log))
    return path


def samples(log: dict, epoch: int | None = None) -> list[dict]:
    return [s for s in log["samples"] if epoch is None or s["epoch"] == epoch]


def sample(log: dict, epoch: int, sample_id: int) -> dict:
    [one] = [s for s in log["samples"] if s["epoch"] == epoch and s["id"] == sample_id]
    return one


def usage(inp: int = 0, out: int = 0, read: int | None = None, write: int | None = None,
          reasoning: int | None = None, cost: float | None = None) -> dict:
    """One inspect ModelUsage as the log writes it (a part left None is absent: not reported)."""
    parts = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out + (read or 0) + (write or 0),
             "input_tokens_cache_read": read, "input_tokens_cache_write": write, "reasoning_tokens": reasoning,
             "total_cost": cost}
    return {k: v for k, v in parts.items() if v is not None}


def set_calls(log: dict, one: dict, calls: int) -> None:
    """Give sample `one` exactly `calls` model events (copies of the log's first model event)."""
    template = next(e for s in log["samples"] for e in s["events"] if e["event"] == "model")
    others = [e for e in one["events"] if e["event"] != "model"]
    one["events"] = others + [copy.deepcopy(template) for _ in range(calls)]


def model_events(one: dict) -> int:
    return sum(e["event"] == "model" for e in one["events"])


def read(path: Path, **options) -> list[dict]:
    """The records of one log as the JSON objects `import inspect` writes."""
    return [json.loads(r.to_line()) for r in import_inspect(path, **options)]


def read_many(paths: list[Path], **options) -> list[dict]:
    return [json.loads(r.to_line()) for r in import_inspect_files(paths, **options)]


def refusal(paths: list[Path], **options) -> str:
    with pytest.raises(InputError) as caught:
        import_inspect_files(paths, **options)
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- the kept log, as it is -------------------------------------------------------------------
NOTE = "sample 1: an earlier attempt failed and was retried: RuntimeError('tool crashed on sample 1')"


def expected_records(source: str) -> list[dict]:
    spend = {"calls": 3, "completion_tokens": 9, "cached_tokens": 4, "cache_write_tokens": 2, "reasoning_tokens": 3,
             "prompt_tokens": 39, "tokens": 48, "usd": None}
    params = {"plan": ["trouble", "generate"], "model": "mockllm/model", "task_args": {"variant": "terse"}}
    first = {"schema": "costmatch.run/1", "workload": "arith", "arm": "trouble > generate", "seed": 1,
             "params": params, "budget": {}, "spend": spend, "reward": 1 / 3, "dev_reward": None,
             "stop_reason": "success", "error": None, "source": source, "samples": 3, "scored": 3,
             "scorer": "match", "notes": [NOTE]}
    second = {**first, "seed": 2, "reward": 0.0}
    del second["notes"]
    return [first, second]


def test_the_kept_eval_log_gives_one_record_per_epoch_with_every_field():
    """3 samples x 2 epochs, sample 1's first attempt failed and was retried; usage per call (input, output,
    reasoning, cache read, cache write): (10, 2, 1, 4, 0), (11, 3, 0, 0, 2), (12, 4, 2, 0, 0)."""
    assert read(EVAL_LOG) == expected_records("inspect:arith.eval")


def test_its_json_encoding_gives_the_same_records(tmp_path):
    path = write_log(tmp_path, base_log(), "other.json")
    assert read(path) == expected_records("inspect:other.json")


def test_records_come_in_epoch_order_whatever_order_the_log_lists_samples(tmp_path):
    log = base_log()
    log["samples"].reverse()
    records = read(write_log(tmp_path, log))
    assert [r["seed"] for r in records] == [1, 2]
    assert [r["reward"] for r in records] == [1 / 3, 0.0]


def test_an_epoch_is_the_seed_and_each_epoch_counts_only_its_own_samples(tmp_path):
    log = base_log()
    for s in samples(log, 2):
        s["epoch"] = 5
    sample(log, 1, 2)["epoch"] = 3   # sample 2 of epoch 1 alone in epoch 3
    records = read(write_log(tmp_path, log))
    assert [(r["seed"], r["samples"], r["scored"], r["spend"]["calls"]) for r in records] == \
        [(1, 2, 2, 2), (3, 1, 1, 1), (5, 3, 3, 3)]
    assert [r["reward"] for r in records] == [0.5, 0.0, 0.0]


def test_the_workload_is_the_task_and_the_source_names_the_file(tmp_path):
    log = base_log()
    log["eval"]["task"] = "algebra"
    records = read(write_log(tmp_path / "deep", log, "run-7.json"))
    assert {(r["workload"], r["source"]) for r in records} == {("algebra", "inspect:run-7.json")}


def test_the_stop_reason_is_the_log_status(tmp_path):
    log = base_log()
    log["status"] = "cancelled"
    assert {r["stop_reason"] for r in read(write_log(tmp_path, log))} == {"cancelled"}


def test_params_keep_the_plan_the_model_and_the_task_arguments(tmp_path):
    log = base_log()
    log["eval"]["task_args"] = {"variant": "terse", "shots": 3}
    log["plan"]["steps"] = log["plan"]["steps"][1:]
    [first, _] = read(write_log(tmp_path, log))
    assert first["params"] == {"plan": ["generate"], "model": "mockllm/model",
                               "task_args": {"variant": "terse", "shots": 3}}


def test_no_task_arguments_are_an_empty_object(tmp_path):
    log = base_log()
    log["eval"]["task_args"] = {}
    [first, _] = read(write_log(tmp_path, log))
    assert first["params"]["task_args"] == {}


def test_one_log_or_several_give_the_same_records_in_file_order(tmp_path):
    a = write_log(tmp_path / "a", base_log())
    log = base_log()
    log["eval"]["task"] = "algebra"
    b = write_log(tmp_path / "b", log)
    records = read_many([b, a])
    assert [(r["workload"], r["seed"]) for r in records] == [("algebra", 1), ("algebra", 2), ("arith", 1), ("arith", 2)]
    assert read_many([a]) == read(a)
