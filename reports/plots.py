"""Figures: cost-reward with the Pareto frontier, anytime curves, budget sweeps,
and the ranking of arms at equal rollouts, calls and tokens.

Rules, and the mistake each prevents:
- An arm whose x unit is unreported is not drawn at zero (that would put it
  on the frontier for free); it is left off the axes and named in a note.
- Colours come from the Okabe-Ito colour-blind-safe palette, assigned by the
  sorted list of every arm in the report, so an arm keeps its colour across
  figures; beyond eight arms, markers and line styles tell them apart.
- Output is deterministic: fixed SVG hash salt and no dates in metadata, so
  the same input gives the same bytes (reports can be diffed in review).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from baselines import anytime
from baselines.compare import Comparison, Group
from baselines.records import RunRecord, budget_key
from baselines.units import unit_noun

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]
WIDTH = 3.4  # inches: one column of a two-column paper


def _mpl():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({"svg.hashsalt": "costmatch", "font.size": 7, "axes.titlesize": 7.5,
                                "legend.fontsize": 6, "axes.spines.top": False, "axes.spines.right": False,
                                "figure.dpi": 150, "savefig.bbox": "tight", "path.simplify": False})
    return plt


class Style:
    """Stable colour, marker and line style per arm across every figure of a report."""

    def __init__(self, arms):
        self.order = sorted(set(arms))

    def __call__(self, arm: str) -> dict:
        i = self.order.index(arm)
        return {"color": OKABE_ITO[i % 8], "marker": MARKERS[(i // 8 + i) % 8],
                "linestyle": LINESTYLES[(i // 8) % 4]}


def _save(fig, path: Path, formats=("png", "svg")) -> list[Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for fmt in formats:
        target = path.with_suffix("." + fmt)
        meta = {"Date": None} if fmt == "svg" else ({"Software": None} if fmt == "png" else {"CreationDate": None})
        fig.savefig(target, format=fmt, metadata=meta)
        out.append(target)
    return out


def _slug(*parts) -> str:
    return "-".join("".join(ch if ch.isalnum() else "_" for ch in str(p)) for p in parts)


def _group_records(records: list[RunRecord], group: Group) -> dict[str, list[RunRecord]]:
    key = budget_key(group.budget)
    out: dict[str, list[RunRecord]] = {}
    for r in records:
        if r.workload == group.workload and budget_key(r.budget) == key:
            out.setdefault(r.arm, []).append(r)
    return out


# -- cost-reward --------------------------------------------------------------------------
def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Arms not dominated: no other arm spends no more and scores no less, one of them strictly."""
    front = []
    for a, (xa, ya) in points.items():
        dominated = any((xb <= xa and yb >= ya) and (xb < xa or yb > ya) for b, (xb, yb) in points.items() if b != a)
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda a: points[a][0])


def cost_reward(group: Group, records: list[RunRecord], unit: str, style: Style, path: Path,
                metric: str = "reward") -> tuple[list[Path], list[str], list[str]]:
    """Returns (files, arms drawn, arms left off with the reason)."""
    plt = _mpl()
    by_arm = _group_records(records, group)
    points, ranges, left_off = {}, {}, []
    for a in group.arms:
        s = a.spend.get(unit)
        if s is None or s.status == "unreported":
            left_off.append(f"{a.arm} (did not report {unit_noun(unit)})")
            continue
        if s.status == "partial":
            left_off.append(f"{a.arm} (reported {unit_noun(unit)} only in part)")
            continue
        if not math.isfinite(a.mean):
            left_off.append(f"{a.arm} (no scored runs)")
            continue
        xs = [r.spend[unit] for r in by_arm.get(a.arm, []) if r.spend.get(unit) is not None]
        points[a.arm] = (s.median, a.mean)
        ranges[a.arm] = (min(xs), max(xs), a.ci)
    fig, ax = plt.subplots(figsize=(WIDTH, 2.5))
    for arm, (x, y) in points.items():
        lo, hi, ci = ranges[arm]
        st = style(arm)
        yerr = [[y - ci[0]], [ci[1] - y]] if all(math.isfinite(c) for c in ci) else None
        ax.errorbar([x], [y], xerr=[[x - lo], [hi - x]], yerr=yerr, fmt=st["marker"], color=st["color"],
                    ms=4, lw=0.8, capsize=2, label=arm)
    front = pareto_front(points)
    if len(front) > 1:
        ax.step([points[a][0] for a in front], [points[a][1] for a in front], where="post", color="0.5",
                lw=0.8, ls="--", zorder=0, label="Pareto frontier")
    budget = ", ".join(f"{v:g} {unit_noun(u)}" for u, v in group.budget.items())
    ax.set_title(f"{group.workload} at {budget}")
    ax.set_xlabel(f"{unit_noun(unit)} (median, min-max over seeds)")
    ax.set_ylabel(f"{metric} (mean, 95% CI)")
    if points:
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    if left_off:
        fig.text(0.01, -0.02, "Not drawn: " + "; ".join(left_off), fontsize=5.5, ha="left", va="top", wrap=True)
    files = _save(fig, path)
    plt.close(fig)
    return files, list(points), left_off


# -- anytime ----------------------------------------------------------------------------
def anytime_curves(group: Group, records: list[RunRecord], unit: str, style: Style, path: Path) -> list[Path]:
    limit = group.budget.get(unit)
    by_arm = _group_records(records, group)
    if not limit or not any(r.trace for rs in by_arm.values() for r in rs):
        return []
    plt = _mpl()
    grid = np.linspace(0, limit, 101)
    fig, ax = plt.subplots(figsize=(WIDTH, 2.5))
    for arm in sorted(by_arm):
        curves = np.array([[anytime.best_at(r.trace, unit, x) for x in grid] for r in by_arm[arm] if r.trace])
        if curves.size == 0 or np.isnan(curves).all():
            continue
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                med = np.nanmedian(curves, axis=0)
                q1, q3 = np.nanpercentile(curves, [25, 75], axis=0)
        st = style(arm)
        ax.plot(grid, med, color=st["color"], ls=st["linestyle"], lw=1, label=arm)
        ax.fill_between(grid, q1, q3, color=st["color"], alpha=0.15, lw=0)
    ax.axvline(limit, color="0.3", lw=0.6, ls=":")
    ax.text(limit, ax.get_ylim()[0], " budget", fontsize=5.5, va="bottom", ha="right", rotation=90)
    ax.set_title(f"{group.workload}: anytime, by {unit_noun(unit)}")
    ax.set_xlabel(f"cumulative {unit_noun(unit)}")
    ax.set_ylabel("reward of the current choice\n(median, IQR over seeds)")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    files = _save(fig, path)
    plt.close(fig)
    return files


# -- budget sweeps -------------------------------------------------------------------------
def sweep_crossings(series: dict[str, list[tuple[float, float]]]) -> list[tuple[float, float, str, str]]:
    """Budgets between which the best arm changes: (budget_before, budget_after, best_before, best_after)."""
    budgets = sorted({b for pts in series.values() for b, _ in pts})
    best = []
    for b in budgets:
        scores = {arm: y for arm, pts in series.items() for bb, y in pts if bb == b and math.isfinite(y)}
        best.append(max(sorted(scores), key=lambda a: scores[a]) if scores else None)
    return [(budgets[i], budgets[i + 1], best[i], best[i + 1]) for i in range(len(budgets) - 1)
            if best[i] and best[i + 1] and best[i] != best[i + 1]]


def budget_sweep(comparison: Comparison, workload: str, style: Style, path: Path) -> list[Path]:
    groups = [g for g in comparison.groups if g.workload == workload and comparison.fixed in g.budget]
    if len(groups) < 2:
        return []
    plt = _mpl()
    series: dict[str, list[tuple[float, float]]] = {}
    fig, ax = plt.subplots(figsize=(WIDTH, 2.5))
    for g in sorted(groups, key=lambda g: g.budget[comparison.fixed]):
        for a in g.arms:
            series.setdefault(a.arm, []).append((g.budget[comparison.fixed], a.mean))
    for arm, pts in sorted(series.items()):
        st = style(arm)
        xs, ys = zip(*pts)
        cis = [next(a.ci for g in groups for a in g.arms if a.arm == arm and g.budget[comparison.fixed] == x)
               for x in xs]
        ax.errorbar(xs, ys, yerr=[[y - c[0] for y, c in zip(ys, cis)], [c[1] - y for y, c in zip(ys, cis)]],
                    color=st["color"], marker=st["marker"], ls=st["linestyle"], ms=3, lw=0.8, capsize=2, label=arm)
    for lo, hi, before, after in sweep_crossings(series):
        ax.axvspan(lo, hi, color="0.85", zorder=0)
        ax.text((lo + hi) / 2, ax.get_ylim()[1], f"{before} → {after}", fontsize=5, ha="center", va="top")
    ax.set_xscale("log")
    ax.set_title(f"{workload}: budget sweep in {unit_noun(comparison.fixed)}")
    ax.set_xlabel(f"budget ({unit_noun(comparison.fixed)})")
    ax.set_ylabel(f"{comparison.metric} (mean, 95% CI)")
    ax.legend(loc="best", frameon=False)
    files = _save(fig, path)
    plt.close(fig)
    return files


# -- ranking across units -----------------------------------------------------------------
RANK_UNITS = ("rollouts", "calls", "tokens", "usd")


def ranking_across_units(group: Group, records: list[RunRecord]) -> dict[str, dict[str, tuple[int, float, float]]]:
    """For each unit the traces report: arm -> (rank, best-so-far mean, spend level compared at).

    The level for a unit is the smallest median final spend in that unit
    across arms: every arm reached it in at least half its runs, so the
    comparison is at equal spend in that unit, read off the same runs.
    """
    by_arm = _group_records(records, group)
    out: dict[str, dict[str, tuple[int, float, float]]] = {}
    for unit in RANK_UNITS:
        finals = {}
        for arm, rs in by_arm.items():
            vals = [r.spend.get(unit) for r in rs if r.trace]
            if not vals or any(v is None for v in vals) or any(
                    any(p.get("spend", {}).get(unit) is None for p in r.trace) for r in rs if r.trace):
                finals = {}
                break
            finals[arm] = float(np.median(vals))
        if len(finals) < 2:
            continue
        level = min(finals.values())
        scores = {arm: _mean_or_nan([anytime.best_at(r.trace, unit, level) for r in by_arm[arm] if r.trace])
                  for arm in finals}
        ordered = sorted(scores, key=lambda a: (-scores[a] if math.isfinite(scores[a]) else math.inf, a))
        out[unit] = {arm: (i + 1, scores[arm], level) for i, arm in enumerate(ordered)}
    return out


def _mean_or_nan(values) -> float:
    """Mean over runs that had a score at that level (NaN when none had: it ranks last)."""
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def reversals(ranking: dict[str, dict[str, tuple]]) -> list[tuple[str, str, str, str]]:
    """Pairs whose order flips between units: (arm_a, arm_b, unit where a leads, unit where b leads)."""
    units = list(ranking)
    arms = sorted(set.intersection(*(set(r) for r in ranking.values()))) if ranking else []
    out = []
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            for u in units:
                for v in units:
                    if ranking[u][a][0] < ranking[u][b][0] and ranking[v][a][0] > ranking[v][b][0]:
                        out.append((a, b, u, v))
    return out


def ranking_markdown(ranking: dict[str, dict[str, tuple]]) -> str:
    from .text import md

    if not ranking:
        return ""
    units = list(ranking)
    flips = reversals(ranking)
    flipped = {a for a, _, _, _ in flips} | {b for _, b, _, _ in flips}
    header = "| arm | " + " | ".join(f"rank at equal {md(u)} ({next(iter(ranking[u].values()))[2]:,.0f})" for u in units) + " |"
    lines = [header, "|---" * (len(units) + 1) + "|"]
    for arm in sorted(ranking[units[0]], key=lambda a: ranking[units[0]][a][0]):
        cells = []
        for u in units:
            rank, score, _ = ranking[u].get(arm, (None, math.nan, 0))
            cells.append(f"{rank} ({score:.3f})" if rank else "n/a")
        name = f"**{md(arm)}**" if arm in flipped else md(arm)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if flips:
        shown = sorted({(a, b, u, v) for a, b, u, v in flips})[:8]
        text += "\n\nReversals (bold arms): " + "; ".join(
            f"{md(a)} ahead of {md(b)} at equal {md(u)}, behind at equal {md(v)}" for a, b, u, v in shown)
    text += ("\n\nScores are read off each run's trace at the spend level in parentheses (held-out reward of the "
             "choice in force when the workload scores traces, else the arm's best-so-far dev score); the level "
             "is the smallest median final spend in that unit across arms, which most runs of every arm reached.")
    return text


def ranking_figure(ranking, style: Style, path: Path, title: str) -> list[Path]:
    if len(ranking) < 2:
        return []
    plt = _mpl()
    units = list(ranking)
    flips = reversals(ranking)
    flipped = {a for a, _, _, _ in flips} | {b for _, b, _, _ in flips}
    fig, ax = plt.subplots(figsize=(WIDTH, 2.3))
    for arm in sorted(ranking[units[0]]):
        ranks = [ranking[u][arm][0] for u in units]
        st = style(arm)
        ax.plot(range(len(units)), ranks, color=st["color"], marker=st["marker"], ms=3,
                lw=1.6 if arm in flipped else 0.7, alpha=1 if arm in flipped else 0.45, label=arm)
    ax.set_xticks(range(len(units)), [f"equal {u}" for u in units])
    ax.invert_yaxis()
    ax.set_ylabel("rank (1 = best)")
    ax.set_title(title)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    files = _save(fig, path)
    plt.close(fig)
    return files


# -- everything for one comparison --------------------------------------------------------
def write_comparison_plots(comparison: Comparison, records: list[RunRecord], out_dir: Path,
                           style: Style | None = None, x_unit: str | None = None) -> list[Path]:
    """Every figure that the data allow, under `out_dir`; returns the files written.

    Colours are assigned per workload from all of its arms in `records`, so an
    arm has one colour in every figure of that workload.
    """
    styles = {w: style or Style(r.arm for r in records if r.workload == w)
              for w in {g.workload for g in comparison.groups}}
    files: list[Path] = []
    for g in comparison.groups:
        style_g = styles[g.workload]
        tag = _slug(g.workload, *(f"{u}{v:g}" for u, v in g.budget.items()))
        unit = x_unit or _cost_unit(g, comparison.fixed)
        files += cost_reward(g, records, unit, style_g, out_dir / f"cost-reward-{tag}-{unit}", comparison.metric)[0]
        files += anytime_curves(g, records, comparison.fixed, style_g, out_dir / f"anytime-{tag}")
        files += ranking_figure(ranking_across_units(g, records), style_g, out_dir / f"ranking-{tag}",
                                f"{g.workload}: rank by unit")
    for workload in sorted(styles):
        files += budget_sweep(comparison, workload, styles[workload], out_dir / f"sweep-{_slug(workload)}")
    return files


def _cost_unit(group: Group, fixed: str) -> str:
    """The x axis: the most informative unit other than the fixed one that arms report (tokens first)."""
    for unit in ("tokens", "usd", "calls", "rollouts", "seconds"):
        if unit != fixed and unit in group.units and any(a.spend[unit].status == "measured" for a in group.arms):
            return unit
    return fixed
