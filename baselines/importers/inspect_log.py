"""inspect_ai evaluation logs (`.eval` or `.json`), read with inspect_ai itself.

Why through inspect_ai (the optional `inspect` extra) and not by parsing the
files: the log format has two encodings and changes between releases;
`inspect_ai.log.read_eval_log` is the supported reader of both.

One record per evaluated (task, model, epoch): the epoch is the seed, the
model is the arm, the task is the workload. Spend is summed over the
epoch's samples: `calls` counts model events, and the logged usage keeps
its parts as their own units (`prompt_tokens` = input, `completion_tokens`
= output, `tokens` = the logged total, `cache_read_tokens`,
`cache_write_tokens`, `reasoning_tokens`, `usd` when every sample has a
cost). A sample that called the model but logged no usage leaves its tokens
unknown, so the epoch's token figures become partial (lower bounds). The
reward is the mean of the primary scorer (the first in the log's results)
over the epoch's scored samples; `params` records the solver plan.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..records import RunRecord

_USAGE_UNITS = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens", "total_tokens": "tokens",
                "input_tokens_cache_read": "cache_read_tokens", "input_tokens_cache_write": "cache_write_tokens",
                "reasoning_tokens": "reasoning_tokens", "total_cost": "usd"}


def import_inspect(path: str | Path, arm_suffix: str | None = None) -> list[RunRecord]:
    try:
        from inspect_ai.log import read_eval_log
        from inspect_ai.scorer import value_to_float
    except ImportError:
        raise InputError("import inspect needs inspect_ai: pip install 'costmatch[inspect]'") from None
    path = Path(path)
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect_ai raises several types for a file that is not a log
        raise InputError(f"{path}: not an inspect_ai evaluation log ({type(exc).__name__}: {exc}); "
                         "expected a .eval or .json log written by inspect eval") from None
    if not log.samples:
        raise InputError(f"{path}: the log has no samples (status {log.status!r}); "
                         "was it written with --no-log-samples?")
    scorer = log.results.scores[0].name if log.results and log.results.scores else None
    to_float = value_to_float()
    arm = str(log.eval.model) + (f" [{arm_suffix}]" if arm_suffix else "")
    plan = [step.solver for step in log.plan.steps] if log.plan else []
    by_epoch: dict[int, list] = {}
    for sample in log.samples:
        by_epoch.setdefault(int(sample.epoch), []).append(sample)
    out = []
    for epoch, samples in sorted(by_epoch.items()):
        spend: dict[str, float | None] = {"calls": 0}
        reported: dict[str, int] = {}
        silent = 0
        values, errors = [], []
        for s in samples:
            calls = sum(1 for e in (s.events or []) if type(e).__name__ == "ModelEvent")
            spend["calls"] += calls
            usage = list((s.model_usage or {}).values())
            if calls and not usage:
                silent += 1
            for u in usage:
                for field, unit in _USAGE_UNITS.items():
                    value = getattr(u, field, None)
                    if value is not None:
                        spend[unit] = (spend.get(unit) or 0) + value
                        reported[unit] = reported.get(unit, 0) + 1
            if s.error is not None:
                errors.append(f"sample {s.id}: {getattr(s.error, 'message', s.error)}")
            score = (s.scores or {}).get(scorer) if scorer else next(iter((s.scores or {}).values()), None)
            if score is not None:
                try:
                    values.append(float(to_float(score.value)))
                except (TypeError, ValueError):
                    pass
        partial = []
        usage_samples = sum(1 for s in samples if s.model_usage)
        for unit in _USAGE_UNITS.values():
            if unit not in spend:
                spend[unit] = None
            elif silent or reported.get(unit, 0) < usage_samples:
                partial.append(unit)  # some samples did not log this unit: a lower bound
        if usage_samples == 0:
            spend.update({u: None for u in _USAGE_UNITS.values()})
            partial = []
        reward = sum(values) / len(values) if values else None
        out.append(RunRecord(str(log.eval.task), arm, epoch, spend, reward, {}, {"plan": plan},
                             None, None, log.status, "; ".join(errors) or None, tuple(partial),
                             {"source": f"inspect:{path.name}", "samples": len(samples), "scored": len(values),
                              "scorer": scorer}))
    return out
