"""The one-pool budget curves as a figure: accuracy against expected tokens, and a paired difference.

Left: each strategy's curve (majority@n, an adaptive rule, another model) with
the oracle (pass@n) drawn apart, dashed and grey, labelled as not an arm.
Right, when a difference is given: a - b at equal tokens with its paired band,
zero, and the crossover budgets marked. The numbers come from
`baselines.analysis.curves.tts_curves`; this module only draws them.
"""
from __future__ import annotations

import textwrap

from pathlib import Path

from baselines.analysis.curves.tts_curves import Curve, CurveDifference

from .figure_base import PALETTE, Plot, _mpl, _quantity_axis, save
from .text import quantity


def budget_curves_plot(curves: list[Curve], oracle: Curve | None = None, difference: CurveDifference | None = None,
                       title: str = "accuracy against tokens", name: str = "budget-curves") -> Plot:
    """A Plot (see reports.plots) of the curves and, optionally, the difference between two of them."""
    plt = _mpl()
    panels = 2 if difference is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(3.4 * panels, 3.4), squeeze=False, layout="constrained")
    ax = axes[0][0]
    for i, curve in enumerate(curves):
        ax.plot(curve.tokens, curve.accuracy, color=PALETTE[i % len(PALETTE)], lw=1.1, marker="o", ms=1.8,
                label=curve.name)
    if oracle is not None:
        ax.plot(oracle.tokens, oracle.accuracy, color="#666666", lw=0.9, ls="--",
                label=f"{oracle.name}: an oracle, not an arm")
    ax.set_xlabel("expected completion tokens per problem")
    ax.set_ylabel("accuracy (fraction of problems)")
    ax.set_xscale("log")
    _quantity_axis(ax.xaxis, log=True)
    ax.set_title(textwrap.fill(title, 36))  # two panels side by side: long titles wrap, never overlap
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.3), frameon=False)  # below the axes: never over the data
    if difference is not None:
        _difference_panel(axes[0][1], difference)
    return Plot(name, title, fig)


def _difference_panel(ax, d: CurveDifference) -> None:
    ax.fill_between(d.tokens, d.low, d.high, color=PALETTE[0], alpha=0.25, lw=0,
                    label=f"{d.level:.0%} paired band (problems resampled)")
    ax.plot(d.tokens, d.difference, color=PALETTE[0], lw=1.1, label=f"{d.a} - {d.b}")
    ax.axhline(0, color="#000000", lw=0.6)
    for x in d.crossovers[:3]:
        ax.axvline(x, color=PALETTE[1], lw=0.7, ls=":")
    if d.crossovers:
        ax.plot([], [], color=PALETTE[1], lw=0.7, ls=":", label=f"crossover at {quantity(d.crossovers[0])} tokens")
    ax.set_xscale("log")
    _quantity_axis(ax.xaxis, log=True)
    ax.set_xlabel("expected completion tokens per problem")
    ax.set_ylabel("accuracy difference")
    ax.set_title(textwrap.fill(f"{d.a} - {d.b} at equal tokens", 36))
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.3), frameon=False)


def write_budget_curves(curves: list[Curve], out_dir: str | Path, oracle: Curve | None = None,
                        difference: CurveDifference | None = None, name: str = "budget-curves",
                        title: str = "accuracy against tokens") -> list[Path]:
    """Draw and write the figure as PNG and SVG in `out_dir`; the paths written."""
    plot = budget_curves_plot(curves, oracle, difference, title, name)
    try:
        return save(plot, Path(out_dir))
    finally:
        import matplotlib.pyplot as plt  # matplotlib is loaded by now; closing frees the figure

        plt.close(plot.fig)
