"""agentdescent result files: per-(arm, seed) `arms` lists and the `observations` matrix.

What the source gets wrong, and what this importer does about it:
- A run that made calls but reports 0 prompt and 0 completion tokens did not
  report usage: its tokens become unreported (null), never 0.
- An arm that reports tokens on some seeds and 0 on others was metered on
  only some of its calls; its reported figures are marked `partial` (lower
  bounds), so compare calls the arm partial, not verified.
- A run whose scoring failed keeps its error, and its reward becomes null:
  a score over part of the test set is not the run's score (the figure the
  file printed is kept as `source_reward`).
- `observations` files claim `matched: true` for equal candidates and
  proposal calls; the records carry rollouts, provider calls and actor calls
  as measured so compare can say what the claim leaves out. Actor calls that
  report 0 tokens make the run's token figures partial.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..records import RunRecord


def _load(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a JSON file ({exc}); agentdescent results are one JSON object") from None
    if not isinstance(data, dict) or not ("arms" in data or "observations" in data):
        raise InputError(f"{path}: not an agentdescent result file; expected a JSON object with an "
                         "'arms' list (per-arm results) or an 'observations' list")
    return data


def import_agentdescent(path: str | Path, arm_suffix: str | None = None) -> list[RunRecord]:
    """Records of one file; `arm_suffix` tells apart files that reuse arm names
    for different configurations (e.g. ``reflective-on`` vs ``reflective-off``)."""
    path = Path(path)
    data = _load(path)
    records = _from_arms(path, data) if "arms" in data else _from_observations(path, data)
    if arm_suffix:
        for record in records:
            record.arm = f"{record.arm} [{arm_suffix}]"
    return records


def _need(item: dict, key: str, where: str):
    if key not in item:
        raise InputError(f"{where}: field '{key}' is missing; agentdescent arm entries carry it")
    return item[key]


def _tokens_unreported(calls, prompt, completion) -> bool:
    return (calls or 0) > 0 and not prompt and not completion


def _from_arms(path: Path, data: dict) -> list[RunRecord]:
    arms = data["arms"]
    if not isinstance(arms, list):
        raise InputError(f"{path}: field 'arms' must be a list of per-(arm, seed) results")
    workload = str(data.get("dataset") or path.stem)
    budget = {u: v for u, v in (data.get("budget") or {}).items() if isinstance(v, (int, float))}
    params_common = {k: data[k] for k in ("model", "provider") if k in data}
    # Arms where some runs made calls without token usage: their reported figures are partial.
    leaky = {a.get("arm") for a in arms if isinstance(a, dict)
             and _tokens_unreported(a.get("calls"), a.get("prompt_tokens"), a.get("completion_tokens"))}
    out = []
    for i, item in enumerate(arms):
        where = f"{path}: arms[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: must be an object")
        arm, seed = str(_need(item, "arm", where)), _need(item, "seed", where)
        calls = item.get("calls")
        prompt, completion = item.get("prompt_tokens"), item.get("completion_tokens")
        unreported = _tokens_unreported(calls, prompt, completion)
        spend: dict[str, Any] = {
            "rollouts": item.get("rollouts"), "calls": calls,
            "prompt_tokens": None if unreported else prompt,
            "completion_tokens": None if unreported else completion,
            "tokens": None if unreported or prompt is None or completion is None else prompt + completion,
            "seconds": item.get("wallclock"),
        }
        partial = ("prompt_tokens", "completion_tokens", "tokens") if (arm in leaky and not unreported) else ()
        error = item.get("error")
        reward = item.get("test_reward")
        extra = {"source": f"agentdescent:{path.name}"}
        if error is not None and reward is not None:
            extra["source_reward"] = reward
            reward = None
        if item.get("test_oracle") is not None:
            extra["oracle_reward"] = item["test_oracle"]
        if item.get("wallclock_parallel") is not None:
            extra["parallel_seconds"] = item["wallclock_parallel"]
        params = dict(params_common)
        if "width" in item:
            params["width"] = item["width"]
        out.append(RunRecord(workload, arm, int(seed), spend, reward, dict(budget), params,
                             item.get("dev_reward"), None, item.get("stop_reason"), error, partial, extra))
    return out


def _from_observations(path: Path, data: dict) -> list[RunRecord]:
    observations = data["observations"]
    if not isinstance(observations, list):
        raise InputError(f"{path}: field 'observations' must be a list")
    config = data.get("config") or {}
    params_common = {k: config[k] for k in ("model", "provider") if k in config}
    out = []
    for i, obs in enumerate(observations):
        where = f"{path}: observations[{i}]"
        if not isinstance(obs, dict):
            raise InputError(f"{where}: must be an object")
        algorithm, mode = _need(obs, "algorithm", where), _need(obs, "mode", where)
        usage = obs.get("usage") or {}
        actor = obs.get("actor_usage") or {}
        declared = obs.get("budget") or {}
        framework = obs.get("framework") or {}
        provider_calls, actor_calls = usage.get("calls"), actor.get("calls") or 0
        actor_silent = _tokens_unreported(actor_calls, actor.get("prompt_tokens"), actor.get("completion_tokens"))
        usage_silent = _tokens_unreported(provider_calls, usage.get("prompt_tokens"), usage.get("completion_tokens"))
        prompt = None if usage_silent else usage.get("prompt_tokens")
        completion = None if usage_silent else usage.get("completion_tokens")
        if not actor_silent and prompt is not None:
            prompt += actor.get("prompt_tokens") or 0
            completion += actor.get("completion_tokens") or 0
        spend = {
            "rollouts": framework.get("rollouts", declared.get("observed_rollouts")),
            "calls": None if provider_calls is None else provider_calls + actor_calls,
            "prompt_tokens": prompt, "completion_tokens": completion,
            "tokens": None if prompt is None or completion is None else prompt + completion,
            "seconds": obs.get("wall_seconds"),
            "candidates": declared.get("observed_candidates"),
            "proposal_calls": declared.get("observed_proposal_calls"),
        }
        partial = ("prompt_tokens", "completion_tokens", "tokens") if (actor_silent and prompt is not None) else ()
        budget = {k: v for k, v in (("candidates", declared.get("reserved_candidates")),
                                    ("proposal_calls", declared.get("expected_proposal_calls")))
                  if isinstance(v, (int, float))}
        extra = {"source": f"agentdescent:{path.name}", "source_claims_matched": declared.get("matched"),
                 "actor_calls": actor_calls, "fidelity": obs.get("fidelity")}
        out.append(RunRecord(f"candidate-methods/{algorithm}", str(mode), int(_need(obs, "seed", where)),
                             spend, obs.get("final_quality"), budget, dict(params_common),
                             obs.get("validation_quality"), None, framework.get("stop_reason"),
                             obs.get("error"), partial, extra))
    return out
