"""lm-evaluation-harness output (`lm_eval --log_samples --output_path DIR`), per item.

What lm-eval writes, per run: `DIR/<model>/results_<date>.json` (the run's
configuration and aggregated scores) and beside it one
`samples_<task>_<date>.jsonl` per task (one line per document and filter,
with the per-document metric values). Both are read as JSON, with no
lm-eval import: the files are the interface.

One record per (arm, task, seed): the task is the workload, `--seed`'s
first value (`config.random_seed`) is the seed, and the record's `items`
are the documents, `{"id": "<doc_id>", "reward": <metric value>}`, so two
models on the same task pair by document. Before pairing, every document
id must name the same document in every file (lm-eval's `doc_hash`), or the
import stops: a changed dataset would pair different questions.

The metric (`--metric NAME` or `NAME,FILTER`) defaults to the task's first
reported metric; it must be a per-document number aggregated by the mean
(acc, exact_match, ...), so the run's reward is the mean of its items and
equals lm-eval's own figure. [0, 1] is declared as the reward range when
every item lies in it.

The arm (`--arm`) is the model name lm-eval printed (`model`, the default),
a model argument (`model-arg:NAME`), a generation setting
(`gen-kwarg:NAME`, from `--gen_kwargs`) or a task metadata key (`meta:KEY`,
from `--metadata`).

Spend: lm-eval logs no token counts and no cost, so `prompt_tokens`,
`completion_tokens`, `tokens` and `usd` are unreported (null), never 0.
`calls` counts the model's responses in the samples (one request per
document for generation, one per choice for multiple choice, times
`repeats`; retries inside lm-eval's API client are not in the files), left
unreported when lm-eval's response cache was on (cached requests were not
sent). `seconds` is lm-eval's `total_evaluation_time_seconds` when the run
evaluated this one task (several tasks share one clock: unreported).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.json_line import quote
from ..core.records import RunRecord
from .common import (check_item_ids, item_reward, load_json, load_json_lines, make_record, mean_of,
                     source_label, source_list, source_object, source_score, within_unit_interval, wrong_type)

ARM_CHOICES = "model, model-arg:NAME, gen-kwarg:NAME or meta:KEY"
_DATE = re.compile(r"_(\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.json$")
_NOT_METRICS = {"alias", "name", "sample_len", " "}


def expand_paths(paths: list[str | Path]) -> list[Path]:
    """Files as given; a folder stands for every results_*.json under it (lm-eval's --output_path)."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.rglob("results_*.json"))
            if not found:
                raise InputError(f"{path}: no results_*.json under this folder; give lm_eval's --output_path "
                                 "folder or its results files")
            out += found
        else:
            out.append(path)
    return out


def check_arm_spec(spec: str) -> str:
    kind, _, key = spec.partition(":")
    if spec == "model" or (kind in ("model-arg", "gen-kwarg", "meta") and key):
        return spec
    raise InputError(f"--arm: {spec!r} is not one of {ARM_CHOICES}")


def _settings(value: Any, where: str = "", key: str = "") -> dict:
    """model_args / gen_kwargs: lm-eval keeps a dict, older releases the 'k=v,k=v' text; anything else is an error."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return dict(part.split("=", 1) for part in value.split(",") if "=" in part)
    raise wrong_type(where, key, "an object or 'k=v,k=v' text", value)


def arm_of(data: dict, task_config: dict, spec: str, where: str) -> str:
    config = source_object(data, "config", where)
    model_args = _settings(config.get("model_args"), f"{where}: config", "model_args")
    if spec == "model":
        name = data.get("model_name") or model_args.get("pretrained") or model_args.get("model") or config.get("model")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{where}: no model name (field 'model_name'); choose another --arm ({ARM_CHOICES})")
        return name
    kind, key = spec.split(":", 1)
    source = {"model-arg": model_args, "gen-kwarg": _settings(config.get("gen_kwargs"), f"{where}: config", "gen_kwargs"),
              "meta": source_object(task_config, "metadata", f"{where}: configs")}[kind]
    if key not in source:
        known = ", ".join(sorted(map(str, source))) or "none"
        raise InputError(f"{where}: --arm {spec}: the run has no {kind} {key!r} (it has: {known}); "
                         f"choose another --arm ({ARM_CHOICES})")
    value = source[key]
    return value if isinstance(value, str) else quote(value)


def read_results(path: Path) -> dict:
    data = load_json(path, "lm-eval")
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict) \
            or not isinstance(data.get("configs"), dict):
        raise InputError(f"{path}: not an lm-evaluation-harness results file; expected the results_<date>.json "
                         "that lm_eval --output_path writes (an object with 'results' and 'configs')")
    return data


def samples_path(path: Path, task: str) -> Path:
    match = _DATE.search(path.name)
    if not match:
        raise InputError(f"{path}: cannot tell the run's date from the file name; lm-eval names it "
                         "results_<date>.json, with samples_<task>_<date>.jsonl beside it")
    found = path.with_name(f"samples_{task}_{match.group(1)}.jsonl")
    if not found.is_file():
        raise InputError(f"{path}: no {found.name} beside it; run lm_eval with --log_samples "
                         "(per-item outcomes come from the samples files)")
    return found


def choose_metric(data: dict, task: str, metric: str | None, where: str) -> tuple[str, str]:
    """(metric, filter): `--metric NAME[,FILTER]`, else the task's first reported metric."""
    scores = source_object(source_object(data, "results", where), task, f"{where}: results")
    reported = [k for k in scores if k not in _NOT_METRICS and "_stderr" not in k and "," in k]
    if metric:
        name, _, filt = metric.partition(",")
        matches = [k for k in reported if k.split(",", 1)[0] == name and (not filt or k.split(",", 1)[1] == filt)]
        if not matches:
            raise InputError(f"{where}: task {task!r} reports no metric {metric!r} "
                             f"(it has: {', '.join(reported) or 'none'}); choose one with --metric NAME[,FILTER]")
        return tuple(matches[0].split(",", 1))  # type: ignore[return-value]
    if not reported:
        raise InputError(f"{where}: task {task!r} reports no metric; was the run complete?")
    return tuple(reported[0].split(",", 1))  # type: ignore[return-value]


def _check_mean_aggregation(task_config: dict, metric: str, where: str) -> None:
    for entry in source_list(task_config, "metric_list", f"{where}: configs") or []:
        if isinstance(entry, dict) and entry.get("metric") == metric:
            aggregation = entry.get("aggregation", "mean")
            if aggregation not in ("mean", None):
                raise InputError(f"{where}: metric {metric!r} is aggregated by {quote(aggregation)}, not the mean "
                                 "of per-document values, so it has no per-item outcome; choose another with --metric")


def import_lm_eval(path: str | Path, arm: str | None = None, arm_suffix: str | None = None,
                   metric: str | None = None) -> list[RunRecord]:
    """Records of one results file (or output folder); see `import_lm_eval_files`."""
    return import_lm_eval_files([path], arm=arm, arm_suffix=arm_suffix, metric=metric)


def import_lm_eval_files(paths: list[str | Path], arm: str | None = None, arm_suffix: str | None = None,
                         metric: str | None = None) -> list[RunRecord]:
    """Records of several runs with one arm rule; stops when a document id names different documents."""
    spec = check_arm_spec(arm or "model")
    out: list[RunRecord] = []
    documents: dict[tuple[str, str], tuple[str, Path]] = {}
    for path in expand_paths(paths):
        data = read_results(path)
        for task in sorted(data["configs"]):
            record, hashes = _task_record(path, data, task, spec, arm_suffix, metric)
            _check_same_documents(documents, record.workload, hashes, path)
            out.append(record)
    return out


def _check_same_documents(seen: dict, task: str, hashes: dict[str, str], path: Path) -> None:
    for doc_id, digest in hashes.items():
        first = seen.setdefault((task, doc_id), (digest, path))
        if first[0] != digest:
            raise InputError(f"{path}: task {task!r} document {doc_id} is not the document of the same id in "
                             f"{first[1]} (doc_hash differs); items would pair different questions: "
                             "compare runs of one dataset version")


def _seed(data: dict, where: str) -> int:
    seed = source_object(data, "config", where).get("random_seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"{where}: field 'config.random_seed' must be an integer, got {quote(seed)}; "
                         "lm-eval writes the first value of --seed there")
    return seed


def _task_record(path: Path, data: dict, task: str, spec: str, suffix: str | None,
                 metric: str | None) -> tuple[RunRecord, dict[str, str]]:
    where = f"{path}: task {task!r}"
    task_config = source_object(data["configs"], task, f"{path}: configs")
    name, filt = choose_metric(data, task, metric, where)
    _check_mean_aggregation(task_config, name, where)
    samples = samples_path(path, task)
    items, hashes, responses = _items(samples, name, filt)
    config = source_object(data, "config", str(path))
    counts = source_object(source_object(data, "n-samples", str(path)), task, f"{path}: n-samples")
    expected = counts.get("effective")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise wrong_type(f"{path}: n-samples: {task}", "effective", "a count of documents (an integer >= 0)",
                         expected)
    if expected is not None and expected != len(items):
        raise InputError(f"{samples}: holds {len(items)} documents for filter {filt!r}, the results file says "
                         f"{expected}; was the samples file cut short?")
    rewards = [item["reward"] for item in items]
    seconds = data.get("total_evaluation_time_seconds") if len(data["configs"]) == 1 else None
    use_cache = config.get("use_cache")
    if use_cache is not None and not isinstance(use_cache, (str, bool)):
        raise wrong_type(f"{path}: config", "use_cache", "a cache path (string), true, false or null", use_cache)
    num_fewshot = task_config.get("num_fewshot")
    if num_fewshot is not None and (isinstance(num_fewshot, bool) or not isinstance(num_fewshot, int)):
        raise wrong_type(f"{path}: configs: {task}", "num_fewshot", "an integer or null", num_fewshot)
    spend = {"calls": None if use_cache else responses, "prompt_tokens": None,
             "completion_tokens": None, "tokens": None, "usd": None, "seconds": _seconds(seconds, where)}
    arm = arm_of(data, task_config, spec, where) + (f" [{suffix}]" if suffix else "")
    record = make_record(
        where, workload=task, arm=arm, seed=_seed(data, where), spend=spend, reward=mean_of(rewards),
        params={"model": source_label(config, "model", f"{path}: config"),
                "model_args": _settings(config.get("model_args"), f"{path}: config", "model_args"),
                "gen_kwargs": _settings(config.get("gen_kwargs"), f"{path}: config", "gen_kwargs"),
                "num_fewshot": num_fewshot},
        source=f"lm-eval:{path.name}", metric=f"{name},{filt}", items=items,
        source_reward=source_score(source_object(data["results"], task, where), f"{name},{filt}",
                                   f"{path}: results: {task}"),
        reward_range=[0.0, 1.0] if rewards and within_unit_interval(rewards) else None)
    return record, hashes


def _seconds(value: Any, where: str) -> float | None:
    """lm-eval writes the run's time as a string ("35.27"); a number is read too."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: field 'total_evaluation_time_seconds' must be a number of seconds, "
                         f"got {quote(value)}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise InputError(f"{where}: field 'total_evaluation_time_seconds' is {quote(value)}; "
                         "a time is a finite number >= 0")
    return seconds


def _items(samples: Path, metric: str, filt: str) -> tuple[list[dict], dict[str, str], int | None]:
    """The documents of one samples file for one filter: items, doc hashes, responses received."""
    items: list[dict] = []
    hashes: dict[str, str] = {}
    responses: int | None = 0
    for number, line in enumerate(load_json_lines(samples, "lm-eval samples"), 1):
        where = f"{samples}:{number}"
        if not isinstance(line, dict):
            raise InputError(f"{where}: a samples line must be a JSON object (one document)")
        if not isinstance(line.get("filter", "none"), str):
            raise wrong_type(where, "filter", "a filter name (string)", line.get("filter"))
        if line.get("filter", "none") != filt:
            continue
        doc_id = line.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)) or doc_id == "":
            raise InputError(f"{where}: field 'doc_id' must be an integer or a non-empty string, "
                             f"got {quote(doc_id)}; fix it in the samples file")
        if metric not in line:
            raise InputError(f"{where}: field {quote(metric)} is missing; the document has no value "
                             f"for the chosen metric (choose another with --metric)")
        items.append({"id": str(doc_id), "reward": item_reward(line[metric], where, metric)})
        digest = source_label(line, "doc_hash", where)
        if digest is not None:
            hashes[str(doc_id)] = digest
        resps = source_list(line, "resps", where)
        if responses is not None and isinstance(resps, list):
            responses += sum(len(r) if isinstance(r, list) else 1 for r in resps)
        else:  # a document without its responses: the count would be a guess
            responses = None
    check_item_ids(items, str(samples), "lm-eval writes each document once per filter: "
                   "is this two runs' samples in one file?")
    return items, hashes, responses
