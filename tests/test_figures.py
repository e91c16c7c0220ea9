"""Figures that cannot mislead: not-valid groups never drawn as equal-budget points, legends and notes that
overlap nothing, every arm accounted for, and rank reversals claimed only where the statistics support them.

Geometry is asserted on the drawn artists' boxes (matplotlib's Agg renderer), never on pixels.
"""
from __future__ import annotations

import random

import pytest
from matplotlib.colors import to_rgba

from baselines import RunRecord, compare
from reports import plots
from tests.helpers import group_analysis, sweep_plot
from baselines.analysis.curves.ranking import group_ranking
from baselines.analysis.tables.group_runs import as_index

WHITE = to_rgba("white")
NO_MARKER = ("None", "", None, "_", "|")  # no marker, or an error bar's cap


def _close(plot):
    if plot is not None:
        plots.close(plot)


def _boxes(fig):
    """(renderer, legend) after a full draw; the legend is the axes' or the figure's."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.axes[0].get_legend() or (fig.legends[0] if fig.legends else None)
    return renderer, legend


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _sweep_records(unequal_arm="greedy", budgets=(1000, 2000), arms=("greedy", "random"), seeds=5):
    """The audit's R12: `unequal_arm` spends 2x the token budget at the smallest budget (NOT VALID there)."""
    out = []
    for b in budgets:
        for arm in arms:
            for s in range(seeds):
                spent = 2 * b if (arm == unequal_arm and b == budgets[0]) else b
                out.append(RunRecord("w", arm, s, {"tokens": spent, "calls": 10}, 0.5 + 0.05 * s +
                                     (0.3 if arm == "greedy" else 0), budget={"tokens": b}))
    return out


# -- 1. a group that is not valid is never drawn as an equal-budget point ----------------------------------
def test_sweep_draws_a_not_valid_budget_open_and_names_it():
    recs = _sweep_records()
    c = compare(recs, fixed="tokens")
    assert [g.valid for g in c.groups] == [False, True]
    plot = sweep_plot(c, "w", plots.Style(["greedy", "random"]))
    try:
        ax = plot.fig.axes[0]
        def drawn_at(line, x):  # the line has a (finite) point at x
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            return x in xs and ys[xs.index(x)] == ys[xs.index(x)]

        filled_at_invalid = [line for line in ax.lines if drawn_at(line, 1000)
                             and line.get_marker() not in NO_MARKER and to_rgba(line.get_markerfacecolor()) != WHITE]
        open_at_invalid = [line for line in ax.lines if list(line.get_xdata()) == [1000]
                           and line.get_marker() not in NO_MARKER and to_rgba(line.get_markerfacecolor()) == WHITE]
        assert not filled_at_invalid and len(open_at_invalid) == 2  # both arms: the comparison there is not equal
        # no solid (equal-budget) line reaches the not-valid budget
        for line in ax.lines:
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            if 1000 in xs and line.get_linestyle() not in (":", "None", ""):
                assert ys[xs.index(1000)] != ys[xs.index(1000)]  # NaN: the solid line skips it
        notes = " ".join(plot.notes)
        assert "not valid: w at 1,000 tokens" in notes and "greedy spent 2,000 tokens" in notes
        assert "NOT VALID" in plot.title
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert any("not valid" in t for t in ticks) and not any("not valid" in t and "2k" in t for t in ticks)
        svg = plots.render(plot, "svg").decode()
        assert "greedy spent 2,000 tokens" in svg  # the note is in the figure itself, not only the caption
    finally:
        _close(plot)


def test_sweep_crossing_is_not_claimed_from_a_not_valid_budget():
    # at 1,000 tokens random leads only because greedy's group is not valid there (random also overspends)
    recs = []
    for b, lead in ((1000, "random"), (2000, "greedy")):
        for arm in ("greedy", "random"):
            for s in range(5):
                spent = 3 * b if (arm == "random" and b == 1000) else b
                recs.append(RunRecord("w", arm, s, {"tokens": spent}, (0.9 if arm == lead else 0.5) + 0.01 * s,
                                      budget={"tokens": b}))
    c = compare(recs, fixed="tokens")
    plot = sweep_plot(c, "w", plots.Style(["greedy", "random"]))
    try:
        texts = [t.get_text() for t in plot.fig.axes[0].texts]
        assert not any("\u2192" in t for t in texts), texts
    finally:
        _close(plot)


def test_cost_reward_draws_the_off_budget_arm_open_and_keeps_it_off_the_frontier():
    # greedy spends 2x the tokens and fewer calls: on calls alone it would dominate the frontier
    recs = []
    for arm, tokens, calls, reward in (("greedy", 2000, 5, 0.9), ("random", 1000, 10, 0.6), ("third", 1000, 20, 0.8)):
        for s in range(5):
            recs.append(RunRecord("w", arm, s, {"tokens": tokens, "calls": calls}, reward + 0.01 * s,
                                  budget={"tokens": 1000}))
    g = compare(recs, fixed="tokens").groups[0]
    assert not g.valid
    plot = plots.cost_reward_plot(group_analysis(g, recs), "calls", plots.Style(["greedy", "random", "third"]), "tokens")
    try:
        ax = plot.fig.axes[0]
        markers = {(float(line.get_xdata()[0]), round(float(line.get_ydata()[0]), 3)): line for line in ax.lines
                   if len(line.get_xdata()) == 1 and line.get_marker() not in NO_MARKER}
        greedy = next(line for (x, _), line in markers.items() if x == 5)
        random_ = next(line for (x, _), line in markers.items() if x == 10)
        assert to_rgba(greedy.get_markerfacecolor()) == WHITE
        assert to_rgba(random_.get_markerfacecolor()) != WHITE
        assert not [line for line in ax.lines if len(line.get_xdata()) >= 2]   # no frontier in a not-valid group
        assert any(n.startswith("No frontier: the group is not valid") for n in plot.notes)
        assert "NOT VALID" in plot.title and any("greedy spent 2,000 tokens" in n for n in plot.notes)
    finally:
        _close(plot)


def test_anytime_marks_the_arm_that_broke_the_budget():
    recs = []
    for arm, final in (("a", 20_000), ("b", 20_000), ("lavish", 40_000)):
        for s in range(3):
            r = RunRecord("w", arm, s, {"tokens": final}, 0.5, budget={"tokens": 20_000})
            r.trace = [{"spend": {"tokens": final * k / 4}, "best": 0.4 + 0.1 * k, "reward": 0.4 + 0.1 * k}
                       for k in range(1, 5)]
            recs.append(r)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["a", "b", "lavish"]))
    try:
        _, legend = _boxes(plot.fig)
        labels = [t.get_text() for t in legend.get_texts()]
        assert "lavish (not valid)" in labels and "a" in labels
        assert "NOT VALID" in plot.title and any("lavish spent 40,000 tokens" in n for n in plot.notes)
    finally:
        _close(plot)


# -- 3. the anytime figure names every arm it leaves out ---------------------------------------------------
def test_anytime_names_an_arm_without_a_trace():
    """The audit's R8: gamma has no trace; the figure said nothing about it."""
    recs = []
    for arm in ("alpha", "beta", "gamma"):
        for s in range(4):
            r = RunRecord("w", arm, s, {"tokens": 100, "calls": 10 + s}, 0.1 * s, budget={"tokens": 100})
            if arm != "gamma":
                r.trace = [{"spend": {"tokens": 50}, "best": 0.1}, {"spend": {"tokens": 100}, "best": 0.2 + 0.1 * s}]
            recs.append(r)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["alpha", "beta", "gamma"]))
    try:
        assert "Not drawn: gamma (no trace)." in plot.notes
        assert "Not drawn: gamma (no trace)." in plots.render(plot, "svg").decode()
    finally:
        _close(plot)


def test_anytime_names_an_arm_whose_trace_lacks_the_unit():
    recs = []
    for arm in ("alpha", "beta"):
        for s in range(3):
            r = RunRecord("w", arm, s, {"tokens": 100}, 0.5, budget={"tokens": 100})
            r.trace = [{"spend": {"tokens": 100} if arm == "alpha" else {"calls": 3}, "best": 0.5}]
            recs.append(r)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["alpha", "beta"]))
    try:
        assert plot.arms == {"alpha": "drawn", "beta": "unknown"}   # in the "unknown" strip, not dropped
        assert any(n.startswith("Trace without tokens") and "beta" in n for n in plot.notes)
    finally:
        _close(plot)


# -- 2. layout: legends and notes outside the axes, overlapping nothing ------------------------------------
def _many_arm_sweep(names, budgets=(1000, 2000)):
    recs = []
    for b in budgets:
        for i, arm in enumerate(names):
            for s in range(4):
                recs.append(RunRecord("w", arm, s, {"tokens": b, "calls": 10 + i}, 0.02 * i + 0.01 * s,
                                      budget={"tokens": b}))
    return compare(recs, fixed="tokens")


def _assert_clear(plot):
    """The legend overlaps neither the axes nor the title, and stays inside the figure's width."""
    fig = plot.fig
    renderer, legend = _boxes(fig)
    ax = fig.axes[0]
    leg = legend.get_window_extent(renderer)
    assert not _overlap(leg, ax.get_window_extent(renderer))
    assert not _overlap(leg, ax.title.get_window_extent(renderer))
    for label in (ax.xaxis.label, ax.yaxis.label):
        assert not _overlap(leg, label.get_window_extent(renderer))
    return leg, fig.get_size_inches() * fig.dpi


@pytest.mark.parametrize("width", ["single", "double"])
def test_sweep_legend_with_eight_arms_is_outside_the_axes(width):
    """The audit's R2: the legend sat inside the axes (outside=False) and covered the data."""
    c = _many_arm_sweep([f"llama-3.1-8b-instruct/strategy-{i}" for i in range(8)])
    plot = sweep_plot(c, "w", plots.Style([f"llama-3.1-8b-instruct/strategy-{i}" for i in range(8)]),
                                   width)
    try:
        _assert_clear(plot)
    finally:
        _close(plot)


@pytest.mark.parametrize("width", ["single", "double"])
def test_thirty_two_long_names_fit_below_the_axes_and_the_figure_grows(width):
    models = ["claude-3-5-haiku-20241022", "gpt-4o-mini", "llama-3.1-70b-instruct-turbo", "qwen2.5-72b"]
    names = [f"{m}/strategy-number-{k}" for m in models for k in range(8)]
    names[10] = "gpt-4o-mini/majority-vote@5-with-an-extremely-long-configuration-suffix-temperature-0.7-top-p-0.95"
    c = _many_arm_sweep(names)
    style = plots.Style(names)
    base = plots.WIDTHS[width]
    sweep = sweep_plot(c, "w", style, width)
    cost = plots.cost_reward_plot(group_analysis(c.groups[0], []), "calls", style, "tokens", width=width)
    try:
        for plot in (sweep, cost):
            leg, (fig_w, fig_h) = _assert_clear(plot)
            assert leg.x0 >= 0 and leg.x1 <= fig_w  # no name cut at the left edge or run past the right
            assert leg.y0 >= 0  # the figure grew to hold the legend
            assert plot.fig.get_size_inches()[0] == pytest.approx(base)  # the width a paper asked for
            assert plot.fig.get_size_inches()[1] > 2.4 * 1.2
        texts = [t.get_text() for t in _boxes(sweep.fig)[1].get_texts()]
        [long] = [t for t in texts if t.replace("\n", "") == names[10]]  # whole: wrapped, never cut
        assert ("\n" in long) == (width == "single")  # 99 characters fit on one line of a double-width figure
    finally:
        _close(sweep)
        _close(cost)


def test_many_short_names_get_several_columns():
    names = [f"arm-{i:02d}" for i in range(32)]
    plot = sweep_plot(_many_arm_sweep(names), "w", plots.Style(names), "double")
    try:
        _, legend = _boxes(plot.fig)
        assert legend._ncols > 1
        _assert_clear(plot)
    finally:
        _close(plot)


def test_anytime_with_thirty_arms_keeps_the_title_clear():
    names = [f"configuration-{i:02d}-with-a-long-name" for i in range(30)]
    recs = []
    for i, arm in enumerate(names):
        for s in range(3):
            r = RunRecord("web-agent-benchmark-with-a-really-long-workload-name", arm, s, {"tokens": 1000}, 0.5,
                          budget={"tokens": 1000})
            r.trace = [{"spend": {"tokens": 500}, "best": 0.01 * i}, {"spend": {"tokens": 1000}, "best": 0.02 * i}]
            recs.append(r)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(names))
    try:
        _assert_clear(plot)
    finally:
        _close(plot)


def test_not_drawn_note_sits_below_the_x_label():
    """The audit's R3: the "Not drawn" footnote at a fixed offset ran over the x-axis label."""
    recs = []
    for arm, tokens in (("on", 6000), ("off", None), ("base", None)):
        for s in range(4):
            recs.append(RunRecord("bbh", arm, s, {"rollouts": 48, "tokens": tokens, "calls": 900 + s},
                                  0.2 + 0.01 * s, budget={"rollouts": 48}))
    g = compare(recs, fixed="rollouts").groups[0]
    plot = plots.cost_reward_plot(group_analysis(g, recs), "tokens", plots.Style(["on", "off", "base"]), "rollouts")
    try:
        renderer, legend = _boxes(plot.fig)
        ax = plot.fig.axes[0]
        [note] = [t for t in plot.fig.texts if "'unknown' strip" in t.get_text()]
        box = note.get_window_extent(renderer)
        assert box.y1 <= ax.xaxis.label.get_window_extent(renderer).y0
        assert not _overlap(box, ax.get_tightbbox(renderer))
        assert not _overlap(box, legend.get_window_extent(renderer))
    finally:
        _close(plot)


def test_cost_reward_x_unit_is_the_one_most_arms_report():
    """The audit's real reflective files: one arm of three reports tokens, all report calls."""
    recs = []
    for arm, tokens in (("on", 6000), ("off", None), ("base", None)):
        for s in range(4):
            recs.append(RunRecord("bbh", arm, s, {"rollouts": 48, "tokens": tokens, "calls": 900 + s},
                                  0.2, budget={"rollouts": 48}))
    g = compare(recs, fixed="rollouts").groups[0]
    assert plots.cost_units(g, "rollouts") == ["calls"]
    # a tie keeps the preference order: tokens before calls
    both = [RunRecord("w", a, s, {"rollouts": 10, "tokens": 100, "calls": 5}, 0.5, budget={"rollouts": 10})
            for a in ("x", "y") for s in range(3)]
    assert plots.cost_units(compare(both, fixed="rollouts").groups[0], "rollouts") == ["tokens"]


# -- 4. reversals only where both orders are detected differences -------------------------------------------
def _ranking_records(seeds: int, effect: float, noise: float, rng_seed: int = 0):
    """Two arms traced in rollouts and tokens. "lavish" reaches the token level (2,000) at rollout 2 scoring
    0.5 - effect and ends at 10 rollouts scoring 0.5 + effect; "frugal" spends its 2,000 tokens over all 10
    rollouts and scores 0.5. With `effect` > 0 lavish is better per rollout and frugal per token; with effect 0
    they differ only by noise."""
    rng = random.Random(rng_seed)
    recs = []
    for seed in range(seeds):
        lav_t, lav_r = 0.5 - effect + rng.gauss(0, noise), 0.5 + effect + rng.gauss(0, noise)
        fru = 0.5 + rng.gauss(0, noise)
        lavish = RunRecord("w", "lavish", seed, {"rollouts": 10, "tokens": 10_000}, lav_r, budget={"rollouts": 10})
        lavish.trace = [{"spend": {"rollouts": 2, "tokens": 2000}, "best": lav_t, "reward": lav_t},
                        {"spend": {"rollouts": 10, "tokens": 10_000}, "best": lav_r, "reward": lav_r}]
        frugal = RunRecord("w", "frugal", seed, {"rollouts": 10, "tokens": 2000}, fru, budget={"rollouts": 10})
        frugal.trace = [{"spend": {"rollouts": 1, "tokens": 200}, "best": 0.1, "reward": 0.1},
                        {"spend": {"rollouts": 10, "tokens": 2000}, "best": fru, "reward": fru}]
        recs += [lavish, frugal]
    return recs


def _ranking(recs):
    g = compare(recs, fixed="rollouts").groups[0]
    return group_ranking(as_index(recs).of(g))


def test_a_flip_from_noise_is_not_a_reversal():
    """Seeded: over 30 simulated data sets with no real effect, an order that flips is never claimed."""
    flips = 0
    for rep in range(30):
        ranking = _ranking(_ranking_records(seeds=10, effect=0.0, noise=0.05, rng_seed=rep))
        flipped = bool(ranking.flips)
        flips += flipped
        assert ranking.supported == []
        text = plots.ranking_markdown(ranking)
        assert "**" not in text and "Reversals" not in text
        if flipped:
            assert "not significant" in text
    assert flips >= 5  # the data do flip; the claim is what must not follow


def test_a_real_reversal_is_claimed_with_scores_beside_the_ranks():
    ranking = _ranking(_ranking_records(seeds=10, effect=0.3, noise=0.05))
    assert ("frugal", "lavish", "tokens", "rollouts") in ranking.supported
    text = plots.ranking_markdown(ranking)
    assert "**frugal**" in text and "Reversals (bold arms): frugal ahead of lavish at equal tokens" in text
    assert "1 (0.8" in text  # the score beside the rank
    plot = plots.ranking_plot(ranking, plots.Style(["frugal", "lavish"]), "r", "t")
    try:
        assert any(line.get_linewidth() > 1.5 for line in plot.fig.axes[0].lines)
        assert any(t.get_text().startswith("0.8") for t in plot.fig.axes[0].texts)  # scores drawn beside ranks
    finally:
        _close(plot)


def test_the_demo_flip_puct_thompson_is_not_bold():
    """The audit's demo case in miniature: 0.847 vs 0.845 with wide, overlapping spread is not a reversal."""
    rng = random.Random(7)

    def centred(mean):  # noise of sd 0.15 around an exact mean, so the ranks flip as in the demo
        draws = [rng.gauss(0, 0.15) for _ in range(10)]
        return [mean + d - sum(draws) / 10 for d in draws]

    recs = []
    for seed, th_r, th_t, pu in zip(range(10), centred(0.877), centred(0.845), centred(0.847)):
        # thompson reaches the token level (2,000) at rollout 40; puct spends its 2,000 tokens over all 80
        th = RunRecord("w", "thompson", seed, {"rollouts": 80, "tokens": 4000}, th_r, budget={"rollouts": 80})
        th.trace = [{"spend": {"rollouts": 40, "tokens": 2000}, "best": th_t, "reward": th_t},
                    {"spend": {"rollouts": 80, "tokens": 4000}, "best": th_r, "reward": th_r}]
        pc = RunRecord("w", "puct", seed, {"rollouts": 80, "tokens": 2000}, pu, budget={"rollouts": 80})
        pc.trace = [{"spend": {"rollouts": 40, "tokens": 1000}, "best": 0.1, "reward": 0.1},
                    {"spend": {"rollouts": 80, "tokens": 2000}, "best": pu, "reward": pu}]
        recs += [th, pc]
    ranking = _ranking(recs)
    assert ranking.flips and ranking.supported == []
    plot = plots.ranking_plot(ranking, plots.Style(["puct", "thompson"]), "r", "t")
    try:
        assert all(line.get_linewidth() < 1.5 for line in plot.fig.axes[0].lines)
        assert any("Order differs, not significant: puct / thompson" in n for n in plot.notes)
    finally:
        _close(plot)


def test_report_markdown_carries_the_figure_notes(tmp_path):
    """report.md shows the PNG; the not-valid note must be beside it, not only in the HTML caption."""
    from reports.run_report import _files_markdown, draw_figures

    recs = _sweep_records()
    figs = draw_figures(compare(recs, fixed="tokens").analysis(records=recs), tmp_path, formats=("png",))
    assert any("not valid: w at 1,000 tokens" in " ".join(n) for _, n in figs.notes)
    text = "\n".join(_files_markdown(figs.files, figs.skipped, tmp_path, figs.captions))
    # the caption (title, then notes) right below its image (issue 36)
    image = "![sweep-w-tokens](sweep-w-tokens.png)\n\n*Figure: w: budget sweep in tokens (1 of 2 budgets NOT VALID). "
    assert image + "not valid: w at 1,000 tokens: greedy" in text


@pytest.mark.parametrize("width", ["single", "double"])
def test_saved_figures_are_as_wide_as_the_width_asked_for(width):
    """docs/reports.md: single is 3.33 in, double 6.8 in, exactly. A legend beside the axes and a y label past the
    left edge were saved too (tight bounding box): single-column figures came out 4.2-4.6 in wide, double 6.3-6.6."""
    import io

    from matplotlib import image

    arms = ["best-of-3", "cost-efficient-puct", "greedy", "puct", "random", "thompson", "ucb1"]
    recs = [RunRecord("w", arm, s, {"tokens": 1000 + 10 * i, "calls": 10 + i}, 0.1 * i + 0.01 * s,
                      budget={"tokens": 1000}, trace=[{"spend": {"tokens": 500, "calls": 5}, "best": 0.1 * i},
                                                      {"spend": {"tokens": 1000, "calls": 10}, "best": 0.1 * i + 0.05}])
            for i, arm in enumerate(arms) for s in range(4)]
    c = compare(recs, fixed="tokens")
    drawn = [p for p in plots.comparison_plots(c, recs, None, width, None) if p.drawn]
    assert drawn
    for plot in drawn:
        try:
            pixels = image.imread(io.BytesIO(plots.render(plot, "png")))
        finally:
            _close(plot)
        assert pixels.shape[1] == round(plots.WIDTHS[width] * 300), (plot.name, pixels.shape[1] / 300)


def test_ranking_unit_labels_do_not_collide_at_single_width():
    """"equal rollouts", "equal model calls" and "equal tokens" ran into each other on a 3.3 in figure."""
    recs = _ranking_records(seeds=6, effect=0.2, noise=0.01)
    for r in recs:  # a third unit, so three labels share the axis
        r.spend["calls"] = 2 * r.spend["rollouts"]
        for p in r.trace:
            p["spend"]["calls"] = 2 * p["spend"]["rollouts"]
    for r in recs:  # names as long as the demo's: the legend beside the axes leaves them 2 in
        r.arm = {"frugal": "cost-efficient-puct-frugal", "lavish": "cost-efficient-puct-lavish"}[r.arm]
    plot = plots.ranking_plot(_ranking(recs), plots.Style(sorted({r.arm for r in recs})), "ranking-w", "w: rank",
                              "single")
    try:
        renderer, _ = _boxes(plot.fig)
        labels = [t.get_window_extent(renderer) for t in plot.fig.axes[0].get_xticklabels() if t.get_text()]
        assert len(labels) == 3
        assert not any(_overlap(a, b) for i, a in enumerate(labels) for b in labels[i + 1:])
    finally:
        _close(plot)
