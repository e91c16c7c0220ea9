"""Adding seeds without peeking: a group-sequential gate.

Testing after every new seed and stopping at the first "significant" result
gives a 17-23% false-positive rate (docs/design-notes.md). Here the looks are fixed
in advance (e.g. 5, 10, 15, 20 seeds) and each look may only spend its share
of alpha (`gate_bounds.spending_schedule`), so the chance of a false FAIL over all
looks stays at most alpha. Bounded rewards (a declared reward range, or
0/1 rewards) use betting confidence sequences instead, which hold at every
look at once: each look uses the whole alpha and no spending is needed.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from ...core.records import budget_key
from .gate import overall, run_gate
from .gate_bounds import FAIL, INCONCLUSIVE, PASS, decide_gate, spending_schedule


def parse_looks(text: str) -> list[int]:
    try:
        looks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--looks must be comma-separated seed counts like 5,10,15,20, got {text!r}") from None
    spending_schedule(looks, 0.05)  # validates
    return looks


def sequential_verdict(diffs, looks: list[int], margin: float, alpha: float,
                       reward_range: tuple[float, float] | None = None) -> tuple[str, int]:
    """Verdict and seeds used for one sequence of per-seed differences (pure; for simulation)."""
    spend = [alpha] * len(looks) if reward_range is not None else spending_schedule(looks, alpha)
    verdict = INCONCLUSIVE
    for n, a in zip(looks, spend):
        verdict, *_ = decide_gate(diffs[:n], margin, a, reward_range, planned_n=looks[-1], anytime=True)
        if verdict != INCONCLUSIVE:
            return verdict, n
    return verdict, looks[-1]


def simulate(true_diff: float, sd: float, margin: float, looks: list[int] | None = None, n: int = 10,
             alpha: float = 0.05, sims: int = 1000, seed: int = 0) -> dict[str, float]:
    """Seeded simulation of the gate on normal per-seed differences.

    With `looks`, the sequential gate; otherwise one look at `n` seeds.
    Returns the PASS/FAIL/INCONCLUSIVE rates and the mean seeds used.
    """
    rng = np.random.default_rng(seed)
    counts = {PASS: 0, FAIL: 0, INCONCLUSIVE: 0}
    used = 0
    size = looks[-1] if looks else n
    for _ in range(sims):
        diffs = rng.normal(true_diff, sd, size)
        if looks:
            verdict, k = sequential_verdict(diffs, looks, margin, alpha)
        else:
            verdict, k = decide_gate(diffs, margin, alpha)[0], n
        counts[verdict] += 1
        used += k
    return {"pass": counts[PASS] / sims, "fail": counts[FAIL] / sims,
            "inconclusive": counts[INCONCLUSIVE] / sims, "mean_seeds": used / sims}


def run_sequential(suite, out_dir: Path, looks: list[int], baseline: str, candidate: str, margin,
                   alpha: float, lower_is_better: bool, run, progress_factory,
                   reward_range: tuple[float, float] | None = None, bounds: str = "auto"):
    """Run the suite look by look (resuming each time) until the gate decides.

    `run` is runner.run_suite; seeds are the suite's first `looks[-1]` seeds.
    Returns (verdict, seeds used, gate results of the last look, outcome).
    """
    spend = spending_schedule(looks, alpha)
    results, outcome = [], None
    for n, a in zip(looks, spend):
        workloads = []
        for w in suite.workloads:
            seeds = list(w.seeds) if len(w.seeds) >= looks[-1] else list(range(looks[-1]))
            workloads.append(dataclasses.replace(w, seeds=tuple(seeds[:n])))
        look_suite = dataclasses.replace(suite, workloads=workloads)
        outcome = run(look_suite, out_dir, progress=progress_factory())
        if outcome.interrupted:
            return INCONCLUSIVE, n, results, outcome
        results = _gate_look(suite, outcome.records, baseline, candidate, margin, a, alpha, lower_is_better,
                             reward_range, looks[-1], bounds)
        verdict = overall(results)
        if verdict != INCONCLUSIVE:
            return verdict, n, results, outcome
    return INCONCLUSIVE, looks[-1], results, outcome


def _gate_look(suite, records, baseline: str, candidate: str, margin, look_alpha: float, alpha: float,
               lower_is_better: bool, reward_range, planned_n: int, bounds: str) -> list:
    """The gate results of one look: one `run_gate` per (fixed unit, tolerance) of the suite's workloads.

    Each workload's own `tolerance` decides its spend checks (the sequential
    gate used the default 0.1 whatever the suite said). Workloads that do
    not run both arms are not gated; any other problem is an InputError,
    never a group skipped in silence.
    """
    by_setting: dict[tuple, set] = {}
    for w in suite.workloads:
        if baseline in w.arms and candidate in w.arms:
            by_setting.setdefault((w.fixed, w.tolerance), set()).update((w.name, b.key()) for b in w.budgets)
    results = []
    for (unit, tolerance), keys in by_setting.items():
        subset = [r for r in records if (r.workload, budget_key(r.budget)) in keys]
        try:
            res, _ = run_gate(subset, unit, baseline, candidate, margin, look_alpha, tolerance=tolerance,
                              lower_is_better=lower_is_better, reward_range=reward_range, planned_n=planned_n,
                              alpha_total=alpha, bounds=bounds)
        except ValueError as exc:
            raise InputError(f"run --looks: {exc}") from None
        results += res
    return results
