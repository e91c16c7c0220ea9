"""promptfoo results (`promptfoo eval -o results.json`), per test case.

One record per (arm, repeat): the arm is the provider (its label, else its
id), the prompt (its label), or both (`--arm provider|prompt|provider+prompt`;
by default whichever of the two varies in the file, both when both do). The
seed is the repeat (`--repeat N`: promptfoo runs each test N times in a row
and writes no repeat number, so the k-th result of a test in a column is
repeat k mod N, N being the test's own `options.repeat` or the run's).

Items are the test cases, keyed by their variables (canonical JSON of
`vars`, e.g. `{"a":3,"b":41}`; a hash when that is long), so providers
pair by test; a second test with the same variables gets `#2`. An item's
reward is `pass` (1/0, the default), `score` (promptfoo's assertion score)
or a named score (`--metric named:NAME`); [0, 1] is declared as the range
when every item lies in it.

Spend per item and summed per run: `calls` is promptfoo's `numRequests`;
`prompt_tokens`, `completion_tokens` (and `cached_tokens`) are what the
provider reported in its response: promptfoo fills 0 for a provider that
reports nothing, so a response without token usage, or with 0 and 0 on a
call, is unreported (null), never 0; `usd` is the response's `cost`
(unreported when the response has none); `latency_seconds` is promptfoo's
`latencyMs` / 1000 (per-call latency, not the run's wall time). Tokens spent
by model-graded assertions are not counted. A unit some items reported and
others did not is partial.

Errors follow the one rule of `common`: a test whose provider call failed
(`failureReason` 2, an error, not a failed assertion) has no reward, and
its run is unscored (`reward: null`, the mean over the other tests kept as
`source_reward`).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.json_line import quote
from ..core.records import RunRecord
from .common import (check_item_ids, item_reward, load_json, make_record, mean_of, source_error, source_label,
                     source_number, source_object, summed_spend, within_unit_interval, wrong_type)

ARM_CHOICES = "provider, prompt or provider+prompt"
METRIC_CHOICES = "pass, score or named:NAME"
_UNITS = ("calls", "prompt_tokens", "completion_tokens", "tokens", "cached_tokens", "usd", "latency_seconds")
_ERROR = 2  # promptfoo's ResultFailureReason.ERROR (1 is a failed assertion)
_LONG_ID = 120


def check_arm_spec(spec: str) -> str:
    if spec in ("provider", "prompt", "provider+prompt"):
        return spec
    raise InputError(f"--arm: {spec!r} is not one of {ARM_CHOICES}")


def check_metric(metric: str) -> str:
    if metric in ("pass", "score") or (metric.startswith("named:") and metric[6:]):
        return metric
    raise InputError(f"--metric: {metric!r} is not one of {METRIC_CHOICES} (promptfoo)")


def read_results(path: Path) -> tuple[dict, list[dict]]:
    data = load_json(path, "promptfoo")
    body = data.get("results") if isinstance(data, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        raise InputError(f"{path}: not a promptfoo results file; expected the JSON that promptfoo eval -o "
                         "results.json writes (an object with 'results': {'results': [...]})")
    rows = body["results"]
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(f"{path}: results.results[{i}] must be an object (one test result)")
    return data, rows


def item_key(vars_: Any, where: str) -> str:
    """A test's identity across providers: its variables as canonical JSON (hashed when long)."""
    if vars_ is None:
        vars_ = {}
    if not isinstance(vars_, dict):
        raise InputError(f"{where}: field 'vars' must be an object, got {quote(vars_)}; fix it in the source file")
    try:
        text = json.dumps(vars_, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # 1e999 parses as inf, which JSON cannot write back
        raise InputError(f"{where}: field 'vars' holds a number too large for JSON, got {quote(vars_)}; "
                         "fix it in the source file") from None
    if len(text) <= _LONG_ID:
        return text
    return "vars:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _names(row: dict, where: str) -> tuple[str, str]:
    provider = row.get("provider")
    if isinstance(provider, dict):
        provider = provider.get("label") or provider.get("id")
    prompt = source_object(row, "prompt", where)
    label = prompt.get("label") or prompt.get("raw")
    for field, value in (("provider", provider), ("prompt.label", label)):
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: field {quote(field)} must be a non-empty string, got {quote(value)}; "
                             "fix it in the source file")
    return provider, label


def default_arm_spec(names: list[tuple[str, str]]) -> str:
    providers, prompts = {p for p, _ in names}, {q for _, q in names}
    if len(providers) > 1 and len(prompts) > 1:
        return "provider+prompt"
    return "prompt" if len(prompts) > 1 else "provider"


def _arm(names: tuple[str, str], spec: str) -> str:
    provider, prompt = names
    return {"provider": provider, "prompt": prompt, "provider+prompt": f"{provider} | {prompt}"}[spec]


def _index(row: dict, key: str, where: str) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: field {key!r} must be an integer >= 0, got {quote(value)}; "
                         "fix it in the source file")
    return value


def _repeat(value: Any, where: str, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{where}: field {quote(field)} must be an integer >= 1, got {quote(value)}")
    return value


def import_promptfoo(path: str | Path, arm: str | None = None, arm_suffix: str | None = None,
                     metric: str | None = None, workload: str | None = None) -> list[RunRecord]:
    """Records of one results file; see `import_promptfoo_files`."""
    return import_promptfoo_files([path], arm=arm, arm_suffix=arm_suffix, metric=metric, workload=workload)


def import_promptfoo_files(paths: list[str | Path], arm: str | None = None, arm_suffix: str | None = None,
                           metric: str | None = None, workload: str | None = None) -> list[RunRecord]:
    """Records of several results files with one arm rule (see the module docstring)."""
    metric = check_metric(metric or "pass")
    loaded = [(Path(p), *read_results(Path(p))) for p in paths]
    names = [_names(row, f"{path}: results.results[{i}]") for path, _, rows in loaded for i, row in enumerate(rows)]
    spec = check_arm_spec(arm) if arm else default_arm_spec(names)
    out: list[RunRecord] = []
    for path, data, rows in loaded:
        name = workload or _workload(data, str(path))
        out += _records(path, data, rows, name, spec, metric, arm_suffix)
    return out


def _workload(data: dict, where: str) -> str:
    description = source_label(source_object(data, "config", where), "description", f"{where}: config")
    return description.strip() if description else "promptfoo"


def _records(path: Path, data: dict, rows: list[dict], workload: str, spec: str, metric: str,
             suffix: str | None) -> list[RunRecord]:
    runtime = source_object(data, "runtimeOptions", str(path))
    default_repeat = _repeat(runtime.get("repeat"), str(path), "runtimeOptions.repeat") or 1
    order = sorted(range(len(rows)), key=lambda i: (_index(rows[i], "promptIdx", f"{path}: results.results[{i}]"),
                                                    _index(rows[i], "testIdx", f"{path}: results.results[{i}]")))
    seen: dict[tuple[int, str], int] = {}
    runs: dict[tuple[str, int], list[tuple[str, dict, str]]] = {}
    for i in order:
        row, where = rows[i], f"{path}: results.results[{i}]"
        key = item_key(row.get("vars", source_object(row, "testCase", where).get("vars")), where)
        options = source_object(source_object(row, "testCase", where), "options", where)
        repeat = _repeat(options.get("repeat"), where, "testCase.options.repeat") or default_repeat
        occurrence = seen.get((row["promptIdx"], key), 0)
        seen[(row["promptIdx"], key)] = occurrence + 1
        copy = occurrence // repeat
        item_id = key if copy == 0 else f"{key} #{copy + 1}"
        name = _arm(_names(row, where), spec) + (f" [{suffix}]" if suffix else "")
        runs.setdefault((name, occurrence % repeat), []).append((item_id, row, where))
    return [_record(path, workload, arm, seed, results, metric) for (arm, seed), results in sorted(runs.items())]


def _outcome(row: dict, metric: str, where: str) -> tuple[float | None, str | None]:
    """(reward, error) of one test result."""
    response = source_object(row, "response", where)
    reason = row.get("failureReason")
    if reason is not None and (isinstance(reason, bool) or not isinstance(reason, int)):
        raise wrong_type(where, "failureReason", "promptfoo's failure code (an integer) or null", reason)
    provider_error = source_error(response, "error", f"{where}: response")
    row_error = source_error(row, "error", where)  # also a failed assertion's words: an error only with one above
    if reason == _ERROR or provider_error:
        message = provider_error or row_error or "provider error"
        return None, " ".join(str(message).split())[:200]
    if metric == "pass":
        value = row.get("success")
        if not isinstance(value, bool):
            raise InputError(f"{where}: field 'success' must be true or false, got {quote(value)}")
        return float(value), None
    if metric == "score":
        return item_reward(row.get("score"), where, "score"), None
    named = source_object(row, "namedScores", where)
    name = metric[6:]
    if name not in named:
        known = ", ".join(sorted(map(str, named))) or "none"
        raise InputError(f"{where}: no named score {name!r} (it has: {known}); choose another --metric")
    return item_reward(named[name], where, f"namedScores.{name}"), None


def _item_spend(row: dict, where: str) -> dict[str, Any]:
    response = source_object(row, "response", where)
    counted = source_object(row, "tokenUsage", where)
    usage = source_object(response, "tokenUsage", f"{where}: response")
    calls = source_number(counted, "numRequests", f"{where}: tokenUsage")
    prompt = source_number(usage, "prompt", f"{where}: response.tokenUsage")
    completion = source_number(usage, "completion", f"{where}: response.tokenUsage")
    if calls != 0 and not prompt and not completion:  # promptfoo's zero fill: not a measurement
        prompt = completion = None
    latency = source_number(row, "latencyMs", where)
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion,
            "tokens": None if prompt is None or completion is None else prompt + completion,
            "cached_tokens": source_number(usage, "cached", f"{where}: response.tokenUsage")
            if prompt is not None else None,
            "usd": source_number(response, "cost", f"{where}: response"),
            "latency_seconds": None if latency is None else latency / 1000}


def _record(path: Path, workload: str, arm: str, seed: int, results: list, metric: str) -> RunRecord:
    items, per_item, errors = [], [], []
    for item_id, row, where in results:
        reward, error = _outcome(row, metric, where)
        spend = _item_spend(row, where)
        if error is not None:
            errors.append(f"test {item_id}: {error}")
        items.append({"id": item_id, "reward": reward,
                      "spend": {u: v for u, v in spend.items() if v is not None}})
        per_item.append(spend)
    where = f"{path}: arm {quote(arm)} repeat {seed}"
    check_item_ids(items, where, "two columns of the file (provider x prompt) map to this arm: "
                   "choose an --arm that tells them apart (provider+prompt) or give them distinct labels")
    spend, partial = summed_spend(per_item, _UNITS)
    mean = mean_of(item["reward"] for item in items)
    reward, source_reward = (None, mean) if errors else (mean, None)
    rewards = [item["reward"] for item in items]
    return make_record(
        where, workload=workload, arm=arm, seed=seed, spend=spend, reward=reward, partial=partial,
        error="; ".join(errors) or None, source=f"promptfoo:{path.name}", metric=metric, items=items,
        source_reward=source_reward, tests=len(items),
        reward_range=[0.0, 1.0] if within_unit_interval(rewards) and any(r is not None for r in rewards) else None)
