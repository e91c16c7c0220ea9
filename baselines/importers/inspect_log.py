"""inspect_ai evaluation logs (`.eval` or `.json`), read with inspect_ai itself.

Why through inspect_ai (the optional `inspect` extra) and not by parsing the
files: the log format has two encodings and changes between releases;
`inspect_ai.log.read_eval_log` is the supported reader of both.

One record per evaluated (task, arm, epoch): the epoch is the seed, the task
is the workload. The arm is what tells the logs apart (`--arm`): the solver
plan (`solver`, the default when every log used the same model), the model
(`model`, the default otherwise), a task argument (`task-arg:NAME`) or an
eval metadata key (`meta:KEY`). File names are never arm names: one solver
run on two tasks keeps one name.

Units follow `baselines.core.units`: `prompt_tokens` is every input token the
model read, so inspect's `input_tokens` (which excludes cache reads and
writes) is added to `input_tokens_cache_read` and `input_tokens_cache_write`;
`cached_tokens` and `cache_write_tokens` are those parts; `completion_tokens`
is `output_tokens` (reasoning included); `tokens` is prompt + completion;
`usd` is `total_cost`. A unit that some of an epoch's samples did not report
(or a sample that called the model and logged no usage) is partial.

Errors follow the one rule of `common`: a sample that errored (no score of
its own), or whose scorer gave no one number (a list or an object of values,
or text other than a number, C, I, P, N, yes, no, true or false: inspect's
`value_to_float` would make each 0), leaves the epoch unscored, the
mean over the other samples kept as `source_reward`; errors of earlier
attempts of a sample whose retry was scored (`error_retries`) are kept as
`notes`.
"""
from __future__ import annotations

import math
import zipfile
from pathlib import Path
from typing import Any

from ..core.archives import check_archive
from ..core.errors import InputError
from ..core.input_files import check_input
from ..core.json_line import quote
from ..core.records import RunRecord
from .common import make_record

ARM_CHOICES = "solver, model, task-arg:NAME or meta:KEY"

#: inspect usage field -> costmatch unit, for the parts kept as they are.
_DIRECT = {"output_tokens": "completion_tokens", "input_tokens_cache_read": "cached_tokens",
           "input_tokens_cache_write": "cache_write_tokens", "reasoning_tokens": "reasoning_tokens",
           "total_cost": "usd"}
_UNITS = ("prompt_tokens", "completion_tokens", "tokens", "cached_tokens", "cache_write_tokens",
          "reasoning_tokens", "usd")


def _inspect():
    try:
        from inspect_ai.log import read_eval_log
        from inspect_ai.scorer import value_to_float
    except ImportError:
        raise InputError("import inspect needs inspect_ai: pip install 'costmatch[inspect]'") from None
    return read_eval_log, value_to_float


def check_log_file(path: str | Path) -> None:
    """What costmatch checks before inspect_ai opens a log: a FIFO or a device, and for a zip (.eval) its
    limits (a zip bomb, a member named ../x, thousands of members): each one line, inspect_ai not imported."""
    check_input(path, "inspect log")
    if zipfile.is_zipfile(path):   # reads only the end-of-directory record
        _zstd_members()
        check_archive(path, "inspect log")


def _zstd_members() -> None:
    """Let zipfile inflate zstd members (method 93), which inspect_ai writes into every .eval log.

    Why: the check inflates each member before inspect_ai is imported, and only
    inspect_ai's import registered zstd with zipfile: in a fresh process every
    real log was refused as "not a readable zip" (issue 43's schema test found
    it). zipfile_zstd is inspect_ai's own dependency and loads in milliseconds.
    """
    try:
        import zipfile_zstd  # noqa: F401 - registers the method with zipfile on import
    except ImportError:  # inspect_ai absent: say how to install it, not "not a readable zip"
        _inspect()


def read_log(path: str | Path):
    """One log, read by inspect_ai once `check_log_file` has passed it."""
    check_log_file(path)
    read_eval_log, _ = _inspect()
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect_ai raises several types for a file that is not a log
        message = " ".join(str(exc).split())[:200]
        raise InputError(f"{path}: not an inspect_ai evaluation log ({type(exc).__name__}: {message}); "
                         "expected a .eval or .json log written by inspect eval") from None
    if not log.samples:
        raise InputError(f"{path}: the log has no samples (status {log.status!r}); "
                         "was it written with --no-log-samples?")
    return log


def solver_name(log) -> str:
    """The solver plan as one name: its steps joined with ' > ', e.g. 'chain_of_thought > generate'."""
    steps = [step.solver for step in log.plan.steps] if log.plan else []
    return " > ".join(steps) or (str(log.eval.solver) if log.eval.solver else "(no solver)")


def check_arm_spec(spec: str) -> str:
    if spec in ("solver", "model") or (spec.startswith(("task-arg:", "meta:")) and spec.split(":", 1)[1]):
        return spec
    raise InputError(f"--arm: {spec!r} is not one of {ARM_CHOICES}")


def arm_of(log, spec: str, path: Path) -> str:
    """The arm name `spec` picks out of one log."""
    if spec == "solver":
        return solver_name(log)
    if spec == "model":
        return str(log.eval.model)
    kind, key = spec.split(":", 1)
    source = (log.eval.task_args or {}) if kind == "task-arg" else (log.eval.metadata or {})
    if key not in source:
        known = ", ".join(sorted(map(str, source))) or "none"
        what = "task argument" if kind == "task-arg" else "metadata key"
        raise InputError(f"{path}: --arm {spec}: the log has no {what} {key!r} (it has: {known}); "
                         f"choose another --arm ({ARM_CHOICES})")
    value = source[key]
    return value if isinstance(value, str) else quote(value)  # as JSON: never str(None) or a Python repr


def default_arm_spec(logs: list) -> str:
    """The solver when every log used the same model (the solvers are what is compared), else the model."""
    return "solver" if len({str(log.eval.model) for log in logs}) <= 1 else "model"


def import_inspect(path: str | Path, arm: str | None = None, arm_suffix: str | None = None) -> list[RunRecord]:
    """Records of one log; `arm` as in `import_inspect_files` (default: the solver plan)."""
    return import_inspect_files([path], arm=arm, arm_suffix=arm_suffix)


def import_inspect_files(paths: list[str | Path], arm: str | None = None,
                         arm_suffix: str | None = None) -> list[RunRecord]:
    """Records of several logs, with one arm rule for all of them (see the module docstring)."""
    logs = [(Path(p), read_log(p)) for p in paths]   # each checked before inspect_ai is imported
    _, value_to_float = _inspect()
    spec = check_arm_spec(arm) if arm else default_arm_spec([log for _, log in logs])
    out: list[RunRecord] = []
    for path, log in logs:
        name = arm_of(log, spec, path) + (f" [{arm_suffix}]" if arm_suffix else "")
        out += _records(path, log, name, value_to_float())
    return out


def _usage_parts(usage) -> dict[str, Any]:
    """One inspect ModelUsage in costmatch units (None where the usage did not report a part)."""
    parts = {unit: getattr(usage, field, None) for field, unit in _DIRECT.items()}
    fresh = getattr(usage, "input_tokens", None)
    parts["prompt_tokens"] = None if fresh is None else \
        fresh + (parts["cached_tokens"] or 0) + (parts["cache_write_tokens"] or 0)
    if parts["prompt_tokens"] is not None and parts["completion_tokens"] is not None:
        parts["tokens"] = parts["prompt_tokens"] + parts["completion_tokens"]
    else:
        parts["tokens"] = None
    return parts


def _epoch_spend(samples) -> tuple[dict[str, Any], list[str]]:
    spend: dict[str, Any] = {"calls": 0}
    reported = {unit: 0 for unit in _UNITS}
    counted = 0  # samples that called the model or logged usage: each should report every unit
    for s in samples:
        calls = sum(1 for e in (s.events or []) if type(e).__name__ == "ModelEvent")
        usages = list((s.model_usage or {}).values())
        spend["calls"] += calls
        if calls or usages:
            counted += 1
        seen = set()
        for usage in usages:
            for unit, value in _usage_parts(usage).items():
                if value is not None:
                    spend[unit] = (spend.get(unit) or 0) + value
                    seen.add(unit)
        for unit in seen:
            reported[unit] += 1
    partial = []
    for unit in _UNITS:
        if reported[unit] == 0:
            spend[unit] = None
        elif reported[unit] < counted:
            partial.append(unit)  # some samples did not log this unit: a lower bound
    return spend, partial


_LETTERS = ("C", "I", "P", "N")          # inspect's CORRECT, INCORRECT, PARTIAL, NOANSWER, compared with ==
_WORDS = ("yes", "true", "no", "false")  # compared after lower()


def _readable_text(text: str) -> bool:
    """Whether inspect_ai's `value_to_float` reads `text` as a score: any other text it logs and makes 0,
    which would count a scorer's "correct" (or "", "nan") as a wrong answer rather than as no score."""
    if text in _LETTERS or text.lower() in _WORDS:
        return True
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _records(path: Path, log, arm: str, to_float) -> list[RunRecord]:
    scorer = log.results.scores[0].name if log.results and log.results.scores else None
    plan = [step.solver for step in log.plan.steps] if log.plan else []
    by_epoch: dict[int, list] = {}
    for sample in log.samples:
        by_epoch.setdefault(int(sample.epoch), []).append(sample)
    out = []
    for epoch, samples in sorted(by_epoch.items()):
        spend, partial = _epoch_spend(samples)
        values, errors, notes = [], [], []
        for s in samples:
            for retry in s.error_retries or []:
                notes.append(f"sample {s.id}: an earlier attempt failed and was retried: "
                             f"{getattr(retry, 'message', retry)}")
            if s.error is not None:
                errors.append(f"sample {s.id}: {getattr(s.error, 'message', s.error)}")
                continue
            score = (s.scores or {}).get(scorer) if scorer else next(iter((s.scores or {}).values()), None)
            value = getattr(score, "value", None)   # None: no score from this scorer
            if isinstance(value, str) and not _readable_text(value):
                errors.append(f"sample {s.id}: {scorer or 'score'} value {value!r} is not a number, C, I, P, N, yes, "
                              f"no, true or false (what inspect_ai reads as a score)")
            elif isinstance(value, (str, int, float)):   # a list or an object of values is no one number (inspect's
                values.append(float(to_float(value)))   # value_to_float makes it 0, a wrong answer)
            else:
                errors.append(f"sample {s.id}: no {scorer or 'score'} value that is a number")
        mean = sum(values) / len(values) if values else None
        reward, source_reward = (None, mean) if errors else (mean, None)
        out.append(make_record(
            f"{path}: epoch {epoch}", workload=str(log.eval.task), arm=arm, seed=epoch, spend=spend,
            reward=reward, params={"plan": plan, "model": str(log.eval.model),
                                   "task_args": dict(log.eval.task_args or {})},
            stop_reason=log.status, error="; ".join(errors) or None, partial=partial,
            source=f"inspect:{path.name}", samples=len(samples), scored=len(values), scorer=scorer,
            source_reward=source_reward, notes=notes or None))
    return out
