"""agentdescent result files: per-(arm, seed) `arms` lists and the `observations` matrix.

What the source gets wrong, and what this importer does about it:
- A run that reports 0 prompt and 0 completion tokens without a measured 0
  calls (calls > 0, or calls not reported) did not report usage: its tokens
  become unreported (null), never 0.
- An arm that reports tokens on some seeds and 0 on others was metered on
  only some of its calls; its reported figures are marked `partial` (lower
  bounds), so compare calls the arm partial, not verified.
- Errors follow the one rule of `common` (contract section 1): a fork-of-N
  run whose error belongs to a fork it did not select (that fork's
  `test_reward` is null while the selected fork was scored and its score is
  the run's `test_reward`) keeps its reward, the error kept in `notes`; any
  other run with an error is unscored (`reward: null`, the figure the file
  printed kept as `source_reward`): a score over part of the test set is not
  the run's score.
- `observations` files claim `matched: true` for equal candidates and
  proposal calls; the records carry rollouts, provider calls and actor calls
  as measured so compare can say what the claim leaves out. Actor calls that
  report 0 tokens make the run's token figures partial.
- Units (`baselines.core.units`): the files' `prompt_tokens`/`completion_tokens`
  are the provider's figures as the source summed them; they carry no cache
  or reasoning breakdown, so no `cached_tokens` is invented, and `tokens` is
  prompt + completion, which equals the source's own `total_tokens` on every
  observation of the shared files.
- Every source value is checked before use (a NaN, a string where a number
  belongs, a null arm name) and every record is validated by the reader
  `compare` uses, so a file the import accepts is a file compare accepts.
"""
from __future__ import annotations

from pathlib import Path
from ..core.errors import InputError
from ..core.records import RunRecord
from .common import (load_json, make_record, source_error, source_flag, source_label, source_list, source_number,
                     source_object, source_score, source_seed, source_text, wrong_type)

_TOKEN_UNITS = ("prompt_tokens", "completion_tokens", "tokens")


def _load(path: Path) -> dict:
    data = load_json(path, "agentdescent")
    if not isinstance(data, dict) or not ("arms" in data or "observations" in data):
        raise InputError(f"{path}: not an agentdescent result file; expected a JSON object with an "
                         "'arms' list (per-arm results) or an 'observations' list")
    return data


def import_agentdescent(path: str | Path, arm_suffix: str | None = None) -> list[RunRecord]:
    """Records of one file; `arm_suffix` tells apart files that reuse arm names
    for different configurations (e.g. ``reflective-on`` vs ``reflective-off``)."""
    path = Path(path)
    data = _load(path)
    records = _from_arms(path, data, arm_suffix) if "arms" in data else _from_observations(path, data, arm_suffix)
    return records


def _named(arm: str, suffix: str | None) -> str:
    return f"{arm} [{suffix}]" if suffix else arm


def _tokens_unreported(calls, prompt, completion) -> bool:
    """0 and 0 tokens are a measurement only when the calls were measured as 0 too."""
    return calls != 0 and not prompt and not completion


def _fork_notes(item: dict) -> list[str] | None:
    """Notes for errors that belong to forks the run did not select, or None when the rule does not apply.

    The selected fork is the one with the best dev reward whose test reward is
    the run's test reward; the error belongs to forks whose test reward is
    missing. When the selected fork cannot be identified the run is unscored.
    """
    forks, reward = item.get("forks"), item.get("test_reward")
    if not isinstance(forks, list) or not forks or not isinstance(reward, (int, float)) or isinstance(reward, bool):
        return None
    if not all(isinstance(f, dict) for f in forks):
        return None
    devs = [f.get("dev_reward") for f in forks if isinstance(f.get("dev_reward"), (int, float))]
    if not devs:
        return None
    best = max(devs)
    selected = [f for f in forks if f.get("dev_reward") == best and f.get("test_reward") == reward]
    failed = [f for f in forks if f.get("test_reward") is None]
    if not selected or not failed or any(f is selected[0] for f in failed):
        return None
    return [f"fork {f.get('seed')} (not selected): {item['error']}" for f in failed]


def _from_arms(path: Path, data: dict, suffix: str | None) -> list[RunRecord]:
    arms = data["arms"]
    if not isinstance(arms, list):
        raise InputError(f"{path}: field 'arms' must be a list of per-(arm, seed) results")
    workload = source_label(data, "dataset", str(path)) or path.stem  # a wrong type is an error, never the file name
    declared = source_object(data, "budget", str(path))
    budget = {u: source_number(declared, u, f"{path}: budget") for u in declared}
    budget = {u: v for u, v in budget.items() if v is not None}
    params_common = _labels(data, str(path))
    items = []
    for i, item in enumerate(arms):
        where = f"{path}: arms[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: must be an object with 'arm', 'seed' and the run's figures")
        figures = {k: source_number(item, k, where) for k in
                   ("rollouts", "calls", "prompt_tokens", "completion_tokens", "wallclock", "wallclock_parallel",
                    "width")}
        scores = {k: source_score(item, k, where) for k in ("test_reward", "dev_reward", "test_oracle")}
        _check_forks(item, where)
        figures.update(scores, stop_reason=source_label(item, "stop_reason", where),
                       error=source_error(item, "error", where))
        items.append((where, item, source_text(item, "arm", where), source_seed(item, "seed", where), figures))
    # Arms where some runs made calls without token usage: their reported figures are partial.
    leaky = {arm for _, _, arm, _, f in items
             if _tokens_unreported(f["calls"], f["prompt_tokens"], f["completion_tokens"])}
    out = []
    for where, item, arm, seed, f in items:
        unreported = _tokens_unreported(f["calls"], f["prompt_tokens"], f["completion_tokens"])
        prompt = None if unreported else f["prompt_tokens"]
        completion = None if unreported else f["completion_tokens"]
        spend = {"rollouts": f["rollouts"], "calls": f["calls"], "prompt_tokens": prompt,
                 "completion_tokens": completion,
                 "tokens": None if prompt is None or completion is None else prompt + completion,
                 "seconds": f["wallclock"]}
        partial = _TOKEN_UNITS if (arm in leaky and not unreported and prompt is not None) else ()
        error, reward, notes, source_reward = f["error"], f["test_reward"], None, None
        if error is not None:
            notes = _fork_notes(item)
            if notes is None:  # the run's own scoring failed: unscored
                source_reward, reward = reward, None
            else:  # the selected fork was scored: the error was an unselected fork's
                error = None
        params = dict(params_common)
        if "width" in item:
            params["width"] = f["width"]
        out.append(make_record(
            where, workload=workload, arm=_named(arm, suffix), seed=seed, spend=spend, reward=reward,
            budget=dict(budget), params=params, dev_reward=f["dev_reward"],
            stop_reason=f["stop_reason"], error=error, partial=partial,
            source=f"agentdescent:{path.name}", source_reward=source_reward, notes=notes,
            oracle_reward=f["test_oracle"], parallel_seconds=f["wallclock_parallel"],
            reward_range=ACCURACY_RANGE if _all_within(reward, source_reward) else None))
    return out


def _labels(source: dict, where: str) -> dict[str, str]:
    """The run's model and provider (strings): a field of another type is an error, never dropped in silence."""
    labels = {k: source_label(source, k, where) for k in ("model", "provider")}
    return {k: v for k, v in labels.items() if v is not None}


def _check_forks(item: dict, where: str) -> None:
    """`forks`: a list of objects whose seed is an integer and whose scores are numbers or null."""
    for j, fork in enumerate(source_list(item, "forks", where) or []):
        at = f"{where}: forks[{j}]"
        if not isinstance(fork, dict):
            raise wrong_type(where, f"forks[{j}]", "an object (one fork's seed and scores)", fork)
        for key in ("dev_reward", "test_reward"):
            source_score(fork, key, at)
        if fork.get("seed") is not None:
            source_seed(fork, "seed", at)


#: agentdescent's `test_reward` is accuracy on the test split: declared so that reports never print
#: a mean or interval end outside it (a 3-seed t interval of 0.750 reached 1.079).
ACCURACY_RANGE = [0.0, 1.0]


def _all_within(*values) -> bool:
    return all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0)
               for v in values)


def _from_observations(path: Path, data: dict, suffix: str | None) -> list[RunRecord]:
    observations = data["observations"]
    if not isinstance(observations, list):
        raise InputError(f"{path}: field 'observations' must be a list")
    config = source_object(data, "config", str(path))
    params_common = _labels(config, f"{path}: config")
    out = []
    for i, obs in enumerate(observations):
        where = f"{path}: observations[{i}]"
        if not isinstance(obs, dict):
            raise InputError(f"{where}: must be an object")
        algorithm, mode = source_text(obs, "algorithm", where), source_text(obs, "mode", where)
        usage = source_object(obs, "usage", where)
        actor = source_object(obs, "actor_usage", where)
        declared = source_object(obs, "budget", where)
        framework = source_object(obs, "framework", where)
        u = {k: source_number(usage, k, f"{where}: usage") for k in ("calls", "prompt_tokens", "completion_tokens")}
        a = {k: source_number(actor, k, f"{where}: actor_usage") for k in ("calls", "prompt_tokens", "completion_tokens")}
        d = {k: source_number(declared, k, f"{where}: budget") for k in
             ("observed_rollouts", "observed_candidates", "observed_proposal_calls",
              "reserved_candidates", "expected_proposal_calls")}
        provider_calls = u["calls"]
        actor_calls = a["calls"] if actor else 0
        actor_silent = _tokens_unreported(actor_calls, a["prompt_tokens"], a["completion_tokens"]) if actor else False
        usage_silent = _tokens_unreported(provider_calls, u["prompt_tokens"], u["completion_tokens"])
        prompt = None if usage_silent else u["prompt_tokens"]
        completion = None if usage_silent else u["completion_tokens"]
        if not actor_silent and prompt is not None and completion is not None:
            prompt += a["prompt_tokens"] or 0
            completion += a["completion_tokens"] or 0
        rollouts = source_number(framework, "rollouts", f"{where}: framework")
        spend = {
            "rollouts": d["observed_rollouts"] if rollouts is None else rollouts,
            "calls": None if provider_calls is None or actor_calls is None else provider_calls + actor_calls,
            "prompt_tokens": prompt, "completion_tokens": completion,
            "tokens": None if prompt is None or completion is None else prompt + completion,
            "seconds": source_number(obs, "wall_seconds", where),
            "candidates": d["observed_candidates"],
            "proposal_calls": d["observed_proposal_calls"],
        }
        partial = _TOKEN_UNITS if (actor_silent and prompt is not None) else ()
        budget = {k: v for k, v in (("candidates", d["reserved_candidates"]),
                                    ("proposal_calls", d["expected_proposal_calls"])) if v is not None}
        error, reward, source_reward = source_error(obs, "error", where), source_score(obs, "final_quality", where), None
        if error is not None:  # no alternatives are recorded here: the run's own result failed
            source_reward, reward = reward, None
        out.append(make_record(
            where, workload=f"candidate-methods/{algorithm}", arm=_named(mode, suffix),
            seed=source_seed(obs, "seed", where), spend=spend, reward=reward, budget=budget,
            params=dict(params_common), dev_reward=source_score(obs, "validation_quality", where),
            stop_reason=source_label(framework, "stop_reason", f"{where}: framework"), error=error, partial=partial,
            source=f"agentdescent:{path.name}", source_reward=source_reward,
            source_claims_matched=source_flag(declared, "matched", f"{where}: budget"), actor_calls=actor_calls,
            fidelity=source_label(obs, "fidelity", where)))
    return out
