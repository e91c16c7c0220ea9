"""Anytime metrics from traces: who wins at budget X, for every X up to the budget.

A trace is the run's cumulative spend with its best-so-far score, in order of
spend. These are pure functions on traces. Choices the literature leaves open
are explicit arguments: the score before the first point (`start`, stated in
every output that uses it) and the normalisation (by the budget B).

Which score: a trace point's ``best`` is what the arm *saw* (its dev score,
optimistically selected); when the workload sets ``score_trace`` the runner
adds ``reward``, the held-out score of the choice in force at that point,
and these functions use it, so "who wins at spend X" means what would have
shipped at X.

`metric_frame` is the step that puts one of these metrics (or the dev score)
in place of the reward column a comparison compares: the spend rules are the
same whatever is compared, and a metric that cannot be computed for a run
(no trace, no budget in the unit) is NaN, i.e. unscored, never 0.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pandas as pd
from scipy import special

from ...core.records import budget_label
from ..statistics.reward_range import check_target, observed_span
from ..tables.columns import run_bounds

if TYPE_CHECKING:  # pragma: no cover - types only: the table is handed in
    from ..tables.table import RunTable

#: what a comparison can compare: the final reward, the dev score, or an anytime metric of the trace
METRICS = ("reward", "dev_reward", "auc", "reward@25%", "reward@50%", "reward@100%")


def score_field(trace) -> str:
    """``reward`` (held-out score of the choice in force) when every point has it, else ``best``."""
    return "reward" if trace and all("reward" in p for p in trace) else "best"


def _points(trace, unit: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Spend in `unit` and the score curve, or None when any point does not report the unit.

    With held-out ``reward`` points the curve is that reward as it was (a later
    choice can score lower on test); with ``best`` it is the running maximum.
    """
    if not trace:
        return np.zeros(0), np.zeros(0)
    key = score_field(trace)
    xs, ys = [], []
    for point in trace:
        x = point.get("spend", {}).get(unit)
        if x is None or point.get(key) is None:
            return None
        xs.append(float(x))
        ys.append(float(point[key]))
    ys = np.asarray(ys)
    return np.asarray(xs), (ys if key == "reward" else np.maximum.accumulate(ys))


def best_at(trace, unit: str, x: float, start: float = math.nan) -> float:
    """Best-so-far score once `x` of `unit` was spent (`start` before the first point; NaN if unknown)."""
    pts = _points(trace, unit)
    if pts is None:
        return math.nan
    xs, ys = pts
    i = int(np.searchsorted(xs, x, side="right")) - 1
    return float(ys[i]) if i >= 0 else start


def budget_auc(trace, unit: str, budget: float, start: float = 0.0) -> float:
    """(1/B) * integral over [0, B] of the best-so-far score against spend in `unit`.

    The score is `start` before the first point and the last best after the
    last point (a run that stopped early keeps its best). NaN when the trace
    does not report the unit.
    """
    if budget <= 0:
        raise ValueError(f"budget must be positive, got {budget}")
    pts = _points(trace, unit)
    if pts is None:
        return math.nan
    xs, ys = pts
    edges = np.concatenate(([0.0], np.clip(xs, 0, budget), [budget]))
    values = np.concatenate(([start], ys))
    widths = np.diff(edges)
    return float(np.sum(widths * values) / budget)


def cost_to_target(trace, unit: str, target: float, spent: float) -> tuple[float, bool]:
    """(cost, reached): spend at which `target` was first reached, or the run's whole spend (censored)."""
    pts = _points(trace, unit)
    if pts is None:
        return math.nan, False
    xs, ys = pts
    hit = np.nonzero(ys >= target)[0]
    if hit.size:
        return float(xs[hit[0]]), True
    return float(spent), False


def expected_running_time(costs: Sequence[float], reached: Sequence[bool]) -> float:
    """ERT: total spend of all runs (censored ones count in full) / number of runs that reached the target.

    Infinite when no run reached it; this is how COCO treats unsuccessful runs.
    """
    successes = int(np.sum(reached))
    total = float(np.sum(costs))
    return total / successes if successes else math.inf


def cost_of_pass(costs: Sequence[float], rewards: Sequence[float], threshold: float = 1.0) -> float:
    """Expected cost per success for pass/fail rewards: mean cost / success rate (infinite at 0)."""
    rewards = np.asarray(rewards, dtype=float)
    rate = float(np.mean(rewards >= threshold)) if rewards.size else 0.0
    return float(np.mean(costs)) / rate if rate > 0 else math.inf


def seeded_bootstrap(stat, columns: list[np.ndarray], draws: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of `stat(*columns)` resampling seeds jointly (rows stay paired).

    Used for aggregates that have no per-seed value (ERT, cost-of-pass): the
    same seeds are drawn for every column, so a difference between two arms
    is a paired difference. Seeded: the same inputs give the same interval.
    Like every bootstrap it under-covers at small n; callers say so.
    """
    n = len(columns[0])
    if n < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    values = []
    with np.errstate(invalid="ignore"):
        for _ in range(draws):
            idx = rng.integers(0, n, n)
            values.append(stat(*(c[idx] for c in columns)))
    values = np.sort(np.asarray(values, dtype=float))
    values = values[~np.isnan(values)]  # inf - inf: undefined draws are left out
    if values.size == 0:
        return (math.nan, math.nan)
    # nearest-rank percentiles: no arithmetic on the values, so infinite costs stay infinite
    lo = values[int(math.floor((1 - level) / 2 * (values.size - 1)))]
    hi = values[int(math.ceil((1 + level) / 2 * (values.size - 1)))]
    return (float(lo), float(hi))


BOOTSTRAP_MAX_RUNS = 5000   # beyond this many runs per arm the ratio intervals use the delta method


def _first_hit(trace, unit: str, target: float, spent: float) -> tuple[float, bool, str]:
    """(cost, reached, score field) for one trace, in plain Python (no numpy per run: 1M runs stay fast).

    NaN cost when a point does not report `unit` (the run cannot be placed on the spend axis).
    """
    key = "reward" if all("reward" in p for p in trace) else "best"
    best = -math.inf
    for point in trace:
        x = (point.get("spend") or {}).get(unit)
        y = point.get(key)
        if x is None or y is None:
            return math.nan, False, key
        y = float(y)
        if key == "best":
            best = y if y > best else best
            y = best
        if y >= target:
            return float(x), True, key
    return float(spent), False, key


def run_costs(records, unit: str, target: float) -> dict[tuple[str, str | None], dict[str, list]]:
    """Per (arm, instance): seeds, costs to `target`, reached flags, whole spends, passes, score fields.

    A run whose reward is null (it crashed or was not scored) but whose spend
    was recorded counts: in ERT at its whole spend (censored, unless its
    trace reached the target first) and in cost-of-pass as a failure. Leaving
    it out made ERT look cheaper (140 instead of 240). A run that does not
    report `unit` cannot be counted and is skipped (`skipped` in the row).
    """
    out: dict[tuple[str, str | None], dict] = {}
    for r in records:
        spent = r.spend.get(unit)
        instance = r.extra.get("instance") if r.extra else None
        cell = out.setdefault((r.arm, None if instance is None else str(instance)),
                              {"seed": [], "cost": [], "hit": [], "spent": [], "passed": [], "key": [],
                               "crashed": 0, "skipped": 0})
        if spent is None:
            cell["skipped"] += 1
            continue
        crashed = r.reward is None
        if r.trace:
            cost, hit, key = _first_hit(r.trace, unit, target, spent)
        else:
            cost, hit, key = float(spent), (not crashed) and r.reward >= target, "final reward"
        if math.isnan(cost):
            cell["skipped"] += 1
            continue
        cell["crashed"] += crashed
        cell["seed"].append(r.seed)
        cell["cost"].append(cost)
        cell["hit"].append(hit)
        cell["spent"].append(float(spent))
        cell["passed"].append((not crashed) and r.reward >= target)
        cell["key"].append(key)
    return {k: _finish(cell) for k, cell in out.items()}


def _finish(cell: dict) -> dict:
    """Lists to arrays (the row builders are array code whatever the source)."""
    return {"seed": np.asarray(cell["seed"], dtype=np.int64), "cost": np.asarray(cell["cost"], dtype=float),
            "hit": np.asarray(cell["hit"], dtype=bool), "spent": np.asarray(cell["spent"], dtype=float),
            "passed": np.asarray(cell["passed"], dtype=bool), "keys": set(cell["key"]),
            "crashed": int(cell["crashed"]), "skipped": int(cell["skipped"])}


def table_costs(frame, traces, unit: str, target: float) -> dict[tuple[str, str | None], dict]:
    """`run_costs` from columns (a RunTable's frame rows and their traces): array work per run.

    Only runs with a trace are visited one by one (their first hit needs the
    trace); the rest is whole-column arithmetic, so 1M runs without traces
    take about as long as reading them.
    """
    if not isinstance(target, (int, float)) or not math.isfinite(target):
        raise ValueError(f"target must be a finite number, got {target!r}")
    column = f"spend:{unit}"
    n = len(frame)
    spent = frame[column].to_numpy(dtype=float) if column in frame.columns else np.full(n, np.nan)
    reward = frame["reward"].to_numpy(dtype=float)
    crashed = np.isnan(reward)
    with np.errstate(invalid="ignore"):
        passed = ~crashed & (reward >= target)
    cost = spent.copy()
    hit = passed.copy()
    kind = np.zeros(n, dtype=np.int8)            # 0 final reward, 1 held-out trace reward, 2 dev best
    if traces is not None:
        for i in np.nonzero([t is not None and len(t) > 0 for t in traces])[0]:
            if np.isnan(spent[i]):
                continue
            c, h, key = _first_hit(traces[i], unit, target, spent[i])
            cost[i], hit[i], kind[i] = c, h, (1 if key == "reward" else 2)
    counted = ~np.isnan(cost)
    seeds = frame["seed"].to_numpy()
    names = {0: "final reward", 1: "reward", 2: "best"}
    out = {}
    for (arm, inst), rows in _cells(frame):
        ok = rows[counted[rows]]
        out[(arm, inst)] = {
            "seed": seeds[ok].astype(np.int64), "cost": cost[ok], "hit": hit[ok], "spent": spent[ok],
            "passed": passed[ok], "keys": {names[int(k)] for k in np.unique(kind[ok])},
            "crashed": int(crashed[ok].sum()), "skipped": int((~counted[rows]).sum())}
    return out


def _cells(frame) -> list[tuple[tuple[str, str | None], np.ndarray]]:
    """Rows per (arm, instance), ordered by arm then instance text, from integer codes.

    Why codes: sorting a million arm (and instance) strings was most of the
    time of `compare --target`; the codes sort in milliseconds and only the
    distinct names are ever turned into text.
    """
    arm_codes = frame["arm"].cat.codes.to_numpy().astype(np.int64)
    arm_names = [str(a) for a in frame["arm"].cat.categories]
    if "instance" in frame.columns:
        inst_codes, inst_names = pd.factorize(frame["instance"].to_numpy(dtype=object), use_na_sentinel=True)
        inst_names = [None if (v is None or v != v or v == "") else str(v) for v in inst_names]
    else:
        inst_codes, inst_names = np.full(len(frame), -1), []
    width = len(inst_names) + 1                    # instance code + 1; 0 = no instance
    keys = arm_codes * width + (np.asarray(inst_codes, dtype=np.int64) + 1)
    cells: dict[tuple[str, str | None], list[np.ndarray]] = {}
    for k, rows in _slices(keys):
        name = (arm_names[k // width], inst_names[k % width - 1] if k % width else None)
        cells.setdefault(name, []).append(rows)   # "" and no instance are one cell
    return sorted(((name, np.sort(np.concatenate(parts))) for name, parts in cells.items()),
                  key=lambda item: (item[0][0], item[0][1] or ""))


def _slices(keys: np.ndarray):
    """(key, rows) for each distinct integer key, in key order: one stable sort, then contiguous slices."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    bounds = run_bounds(ordered).tolist()
    return [(int(ordered[a]), order[a:z]) for a, z in zip(bounds[:-1], bounds[1:])]


def _ratio_interval(num: np.ndarray, den: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Delta-method interval for sum(num) / sum(den) (large n only: ERT and cost-of-pass are such ratios)."""
    n = num.size
    if n < 2 or den.sum() == 0:
        return (math.nan, math.inf) if den.sum() == 0 else (math.nan, math.nan)
    r = num.sum() / den.sum()
    psi = (num - r * den) / den.mean()
    half = float(special.ndtri(0.5 + level / 2)) * float(psi.std(ddof=1)) / math.sqrt(n)
    return (float(r - half), float(r + half))


def _score_words(keys) -> str:
    kinds = set(keys)
    if kinds <= {"reward", "final reward"}:
        return "held-out reward"
    if kinds == {"best"} or kinds == {"best", "final reward"}:
        return "dev score (best): the traces carry no held-out reward"
    return "mixed: held-out reward where the trace has it, dev score (best) elsewhere"


def cost_table(records, unit: str, target: float, seed: int = 0, baseline: str | None = None) -> list[dict]:
    """Per arm: runs reaching `target`, ERT and cost-of-pass in `unit`, with seeded paired bootstrap intervals.

    A run reaches the target when its trace does (cost = spend at that point;
    the trace's held-out ``reward`` when every point has it, else its dev
    ``best``, and the row's ``score`` says which) or, without a trace, when
    its final reward does (cost = its spend); runs that never reach it, and
    crashed runs (null reward, recorded spend), count at their whole spend.
    Cost-of-pass uses final reward >= target as the pass. With `baseline`,
    each arm's ERT difference to it is bootstrapped on the seeds both share.

    Records with an ``instance`` field (e.g. bbob's "f21-i1") are never
    pooled across instances into one ERT (a function solved in 992
    evaluations and four never solved is not "4,992"): each arm's row then
    has ``ert`` per instance in ``instances``, COCO-style aggregates
    (instances solved, the ECDF of first-hit times over (instance, target)
    pairs) and ``ert`` null. Beyond 5,000 runs per arm the intervals use the
    delta method for ratios instead of the bootstrap (array work, no 2,000
    resamples of a million runs).
    """
    if not isinstance(target, (int, float)) or not math.isfinite(target):
        raise ValueError(f"target must be a finite number, got {target!r}")
    return cost_rows(run_costs(records, unit, target), seed, baseline)


def cost_rows(cells: dict, seed: int = 0, baseline: str | None = None) -> list[dict]:
    """The rows of `cost_table` from per (arm, instance) cells (`run_costs` or `table_costs`)."""
    if any(inst is not None for _, inst in cells):
        return _instance_table(cells)
    by_arm = {arm: cell for (arm, _), cell in cells.items()}
    rows = []
    for k, arm in enumerate(sorted(by_arm)):
        cell = by_arm[arm]
        cost = cell["cost"]
        hit = cell["hit"].astype(float)
        spent = cell["spent"]
        passed = cell["passed"].astype(float)
        large = cost.size > BOOTSTRAP_MAX_RUNS
        row = {"arm": arm, "runs": int(cost.size), "reached": int(hit.sum()), "ert": expected_running_time(cost, hit),
               "ert_ci": _ratio_interval(cost, hit) if large else
               seeded_bootstrap(expected_running_time, [cost, hit], seed=seed * 7919 + k),
               "cost_of_pass": cost_of_pass(spent, passed, threshold=0.5),
               "cost_of_pass_ci": _ratio_interval(spent, passed) if large else
               seeded_bootstrap(lambda s, p: cost_of_pass(s, p, threshold=0.5), [spent, passed],
                                seed=seed * 7919 + k + 1),
               "score": _score_words(cell["keys"]), "crashed": int(cell["crashed"]),
               "skipped": int(cell["skipped"]),
               "interval_method": "delta method (ratio of sums)" if large else "seeded paired bootstrap over seeds"}
        if baseline is not None and arm != baseline and baseline in by_arm:
            _baseline_difference(row, cell, by_arm[baseline], seed * 7919 + k + 2)
        rows.append(row)
    return rows


def _baseline_difference(row: dict, cell: dict, base: dict, seed: int) -> None:
    shared, ia, ib = np.intersect1d(cell["seed"], base["seed"], assume_unique=False, return_indices=True)
    if len(shared) < 2:
        return
    a = [np.asarray(cell[f], dtype=float)[ia] for f in ("cost", "hit")]
    b = [np.asarray(base[f], dtype=float)[ib] for f in ("cost", "hit")]
    diff = lambda ca, ha, cb, hb: expected_running_time(ca, ha) - expected_running_time(cb, hb)  # noqa: E731
    row["ert_diff_vs_baseline"] = diff(a[0], a[1], b[0], b[1])
    if len(shared) > BOOTSTRAP_MAX_RUNS and a[1].sum() and b[1].sum():
        ra, rb = a[0].sum() / a[1].sum(), b[0].sum() / b[1].sum()
        psi = (a[0] - ra * a[1]) / a[1].mean() - (b[0] - rb * b[1]) / b[1].mean()
        half = 1.959964 * float(psi.std(ddof=1)) / math.sqrt(len(shared))
        row["ert_diff_ci"] = (row["ert_diff_vs_baseline"] - half, row["ert_diff_vs_baseline"] + half)
    else:
        row["ert_diff_ci"] = seeded_bootstrap(diff, [a[0], a[1], b[0], b[1]], seed=seed)


def _instance_table(cells: dict) -> list[dict]:
    """Rows per arm with per-instance ERT and COCO-style aggregates (no ERT pooled across instances)."""
    arms = sorted({arm for arm, _ in cells})
    rows = []
    for arm in arms:
        inst_rows = []
        hits_all: list[float] = []   # first-hit costs (inf when never), one weight per (instance, target) pair
        weights: list[float] = []
        keys: set[str] = set()
        crashed = skipped = 0
        for (a, inst), cell in sorted(cells.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            if a != arm:
                continue
            cost = cell["cost"]
            hit = cell["hit"]
            crashed += cell["crashed"]
            skipped += cell["skipped"]
            keys |= cell["keys"]
            if cost.size == 0:
                continue
            inst_rows.append({"instance": inst if inst is not None else "(none)", "runs": int(cost.size),
                              "reached": int(hit.sum()), "ert": expected_running_time(cost, hit)})
            hits_all += [c if h else math.inf for c, h in zip(cost, hit)]
            weights += [1.0 / cost.size] * cost.size
        solved = sum(1 for r in inst_rows if math.isfinite(r["ert"]))
        per_function = function_erts({inst: cell for (a, inst), cell in cells.items() if a == arm})
        rows.append({
            "arm": arm, "runs": sum(r["runs"] for r in inst_rows), "reached": sum(r["reached"] for r in inst_rows),
            "ert": math.nan, "ert_ci": (math.nan, math.nan),
            "cost_of_pass": math.nan, "cost_of_pass_ci": (math.nan, math.nan),
            "instances": inst_rows, "instances_solved": solved, "instances_total": len(inst_rows),
            "functions": per_function,
            "ecdf": first_hit_ecdf(np.asarray(hits_all), np.asarray(weights)),
            "score": _score_words(keys), "crashed": int(crashed), "skipped": int(skipped),
            "aggregation": ("per instance: ERT is computed for each instance and never pooled across "
                            "instances; the ECDF gives each (instance, target) pair equal weight (COCO's "
                            "runtime distribution without simulated restarts)")})
    return rows


def function_of(instance) -> str | None:
    """The function part of a COCO-style instance name (``f21-i3`` -> ``f21``); None when it has none."""
    if not isinstance(instance, str):
        return None
    head, sep, tail = instance.rpartition("-i")
    return head if sep and head and tail.isdigit() else None


def function_erts(cells: dict) -> list[dict]:
    """ERT per function with its instances as trials (COCO's convention): the spend of every run on every
    instance of the function (runs that never hit count in full) over the number that hit.

    `cells`: instance -> {"cost", "hit"} of one arm. Instances whose name has no function part are left out.
    """
    by_function: dict[str, list] = {}
    for inst, cell in cells.items():
        fn = function_of(inst)
        if fn is not None and cell["cost"].size:
            by_function.setdefault(fn, []).append((inst, cell))
    out = []
    for fn in sorted(by_function, key=lambda f: (len(f), f)):
        cost = np.concatenate([np.asarray(c["cost"], dtype=float) for _, c in by_function[fn]])
        hit = np.concatenate([np.asarray(c["hit"], dtype=bool) for _, c in by_function[fn]])
        out.append({"function": fn, "instances": len(by_function[fn]), "runs": int(cost.size),
                    "reached": int(hit.sum()), "ert": expected_running_time(cost, hit)})
    return out


def first_hit_ecdf(costs: np.ndarray, weights: np.ndarray) -> list[tuple[float, float]]:
    """Steps (cost, fraction of (instance, target) pairs reached by then), each pair weighing 1/total.

    `weights` spread each pair's unit weight over its runs; runs that never
    reached the target (cost inf) never enter the curve, so it tops out at
    the fraction solved.
    """
    finite = np.isfinite(costs)
    if not finite.any():
        return []
    total = float(np.sum(weights))
    order = np.argsort(costs[finite], kind="stable")
    xs = costs[finite][order]
    ys = np.cumsum(weights[finite][order]) / total
    last = np.r_[xs[1:] != xs[:-1], True]
    return [(float(x), float(y)) for x, y in zip(xs[last], ys[last])]


def cost_tables(table, unit: str, target: float, seed: int = 0, baseline: str | None = None,
                declared: dict | None = None) -> list[dict]:
    """`compare --target` for a whole RunTable: one entry per (workload, budget) group, array work.

    Returns [{"workload", "budget", "target", "arms": cost rows}], the shape of
    `compare --json`'s "cost_to_target"; pass it through `json_ready` before
    printing JSON. A target outside a group's range (`declared`: (workload,
    budget key) -> (lo, hi)) is a ValueError; outside every score the group
    observed, its entry has no arms and says why in "not_computed".
    """
    frame = table.frame
    if len(frame) == 0:
        return []
    workloads = [str(w) for w in frame["workload"].cat.categories]
    budgets = [str(b) for b in frame["budget"].cat.categories]
    keys = frame["workload"].cat.codes.to_numpy().astype(np.int64) * len(budgets) + \
        frame["budget"].cat.codes.to_numpy().astype(np.int64)
    groups = sorted((((workloads[k // len(budgets)], budgets[k % len(budgets)]), rows) for k, rows in _slices(keys)),
                    key=lambda item: item[0])
    out = []
    for (workload, bkey), rows in groups:
        traces = [table.traces[i] for i in rows] if table.traces is not None else None
        where = f"workload {workload!r} at budget {budget_label(table.budgets[bkey])}"
        why = check_target(target, (declared or {}).get((workload, bkey)),
                           observed_span(frame["reward"].to_numpy()[rows], traces), where)
        if why is not None:
            out.append({"workload": workload, "budget": table.budgets[bkey], "target": target, "arms": [],
                        "not_computed": why})
            continue
        cells = table_costs(frame.iloc[rows], traces, unit, target)
        out.append({"workload": workload, "budget": table.budgets[bkey], "target": target,
                    "arms": cost_rows(cells, seed, baseline)})
    return out


def json_ready(value):
    """Recursively: floats to JSON (inf as "inf"/"-inf", NaN as null), tuples to lists."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return None if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else v)
    if isinstance(value, np.integer):
        return int(value)
    return value


def check_start(start: float) -> float:
    """`--start`: the score before a run's first trace point must be a finite number (NaN poisons every AUC)."""
    if not isinstance(start, (int, float)) or not math.isfinite(start):
        raise ValueError(f"--start must be a finite number, got {start!r}")
    return float(start)


def metric_frame(table: RunTable, fixed_of, metric: str, start: float) -> tuple[pd.DataFrame, str]:
    """A copy of the table's frame whose `reward` column holds `metric`, and a note saying what it is.

    `fixed_of(budget_key)` names the fixed unit of each row's group: anytime
    metrics are read off the trace in that unit, up to that budget.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    frame = table.frame.copy()
    if metric == "dev_reward":
        frame["reward"] = frame["dev_reward"]
        return frame, "metric: the arm's own dev score of its final choice (not held out)"
    traces = table.traces or [None] * len(frame)
    values = np.full(len(frame), np.nan)
    budgets = frame["budget"].astype(str).to_numpy()
    units = set()
    for i, trace in enumerate(traces):
        fixed = fixed_of(budgets[i])
        limit = table.budgets[budgets[i]].get(fixed) if fixed else None
        if trace is None or not limit:
            continue
        units.add(fixed)
        if metric == "auc":
            values[i] = budget_auc(trace, fixed, limit, start)
        else:
            fraction = float(metric.split("@")[1].rstrip("%")) / 100
            values[i] = best_at(trace, fixed, fraction * limit, start)
    frame["reward"] = values
    unit_text = "/".join(sorted(units)) or "the fixed unit"
    what = ("normalised budget-aware AUC: (1/B) x integral of best-so-far over spend in "
            f"{unit_text} up to the budget B" if metric == "auc"
            else f"best-so-far at {metric.split('@')[1]} of the {unit_text} budget")
    return frame, f"metric: {what}, from the runs' traces; start value {start:g} before the first point"
