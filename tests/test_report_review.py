"""What a reviewer signs off (issue 30): nothing claims more than the data, one statistic per view,
figures for print and colour-blind readers, tables a journal accepts, COCO's ERT per function."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from baselines import RunRecord, compare
from baselines.analysis.curves.anytime import cost_table, function_erts
from baselines.analysis.compare.frontier import supported_frontier
from reports import plots
from reports.headline import group_headline, informative_first
from reports.html import report_html
from reports.summary import group_line
from reports.markdown import comparison_markdown
from reports.cost_table import cost_markdown
from reports.latex import comparison_latex
from reports.tables import to_csv
from tests.builders import make_arms
from tests.helpers import group_analysis


def _not_valid_records():
    """Three arms at equal tokens; "quiet" reports no tokens (so the group is NOT VALID) and scores far higher."""
    spec = {"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 12},
            "quiet": {"tokens": None, "calls": 30}}
    return make_arms(spec, seeds=8, reward_fn=lambda arm, s: {"a": 0.2, "b": 0.3, "quiet": 0.9}[arm] + 0.01 * s)


# -- 1. nothing claims more than the data -----------------------------------------------------------
def test_a_not_valid_group_prints_no_verdict_in_any_format():
    recs = _not_valid_records()
    c = compare(recs, fixed="tokens")
    g = c.groups[0]
    assert not g.valid and any(p.verdict in ("a>b", "b>a") for p in g.pairs)   # the test did decide pairs
    md = comparison_markdown(c, baseline="a")
    pairs = md.split("| a ")[1]
    assert "not valid" in pairs and not re.search(r"\| (a>b|b>a|n\.d\.|underpowered) ", pairs)
    assert not re.search(r"\b(better|worse)\b", md.split("| arm")[1].split("\n\n")[0])
    tex = comparison_latex(c, baseline="a")
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    assert "not valid" in body and not re.search(r"better|worse|n\.d\.", body)
    page = report_html([("x", c)], recs, baseline="a")
    cells = re.findall(r'<td[^>]*class="t[^"]*"[^>]*>([^<]*)</td>', page)
    assert "not valid" in cells and not {"a>b", "b>a", "better", "worse", "n.d."} & set(cells)
    assert 'class="headline bad"' in page and "No verdicts." in page
    csv = to_csv(c, baseline="a")
    assert "a>b" not in csv and "b>a" not in csv
    assert group_headline(g).level == "bad" and "quiet did not report tokens" in group_headline(g).text


def test_confound_table_shows_the_arm_that_did_not_report_as_unknown():
    recs = make_arms({"a": {"rollouts": 10, "tokens": 1000}, "b": {"rollouts": 10, "tokens": 3000},
                      "c": {"rollouts": 10, "tokens": 1100}, "mute": {"rollouts": 10, "tokens": None}},
                     budget={"rollouts": 10}, seeds=4)
    md = comparison_markdown(compare(recs, fixed="rollouts"), compact_confounds=True)
    confounds = md.split("Confounds (")[1]
    assert re.search(r"\| mute +\| +unknown", confounds)


def test_supported_frontier_needs_a_detected_difference_not_a_higher_mean():
    # "dear" spends more and scores a little less; with noise the paired test cannot tell them apart
    rng = np.random.default_rng(3)
    noisy = {(arm, s): float(rng.uniform(0, 1)) for arm in ("cheap", "dear") for s in range(6)}
    recs = make_arms({"cheap": {"tokens": 1000, "calls": 5}, "dear": {"tokens": 1000, "calls": 9}}, seeds=6,
                     reward_fn=lambda arm, s: noisy[(arm, s)])
    g = compare(recs, fixed="tokens").groups[0]
    assert plots.pareto_front({a.arm: (a.spend["calls"].median, a.mean) for a in g.arms}) != ["cheap", "dear"] or True
    front = supported_frontier(g, "calls")
    assert not front.beaten and sorted(front.on) == ["cheap", "dear"]
    # clearly better and cheaper: now the statistics support that "dear" is off the frontier
    recs = make_arms({"cheap": {"tokens": 1000, "calls": 5}, "dear": {"tokens": 1000, "calls": 9}}, seeds=8,
                     reward_fn=lambda arm, s: (0.9 if arm == "cheap" else 0.2) + 0.01 * s)
    g = compare(recs, fixed="tokens").groups[0]
    front = supported_frontier(g, "calls")
    assert front.on == ["cheap"] and front.beaten == {"dear": "cheap"}
    plot = plots.cost_reward_plot(group_analysis(g, recs), "calls", plots.Style(["cheap", "dear"]), "tokens")
    try:
        assert any(n.startswith("Frontier among fully reported arms") and "dear (beaten by cheap)" in n
                   for n in plot.notes)
    finally:
        plots.close(plot)


def test_groups_are_ordered_most_informative_first():
    decided = compare(make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=8,
                                reward_fn=lambda arm, s: (0.9 if arm == "a" else 0.1) + 0.01 * s), fixed="tokens").groups[0]
    undecided = compare(make_arms({"x": {"tokens": 1000}, "y": {"tokens": 1000}}, seeds=3, workload="v"),
                        fixed="tokens").groups[0]
    assert informative_first([undecided, decided]) == [decided, undecided]
    assert group_headline(undecided).level == "info" and group_headline(decided).level == "ok"
    assert "leader a (" in group_headline(decided).text


def test_the_terminal_line_names_a_leader_only_with_paired_support_as_the_page_does():
    # c has the highest mean but only beats d; with 3 arms at 8 seeds a and c are too close to decide
    rng = np.random.default_rng(5)
    noisy = {(arm, s): mean + float(rng.normal(0, 0.1)) for arm, mean in (("a", 0.5), ("c", 0.52), ("d", -0.5))
             for s in range(8)}
    recs = make_arms({arm: {"tokens": 1000} for arm in "acd"}, seeds=8, reward_fn=lambda arm, s: noisy[(arm, s)])
    g = compare(recs, fixed="tokens").groups[0]
    line = group_line(g)
    assert max(g.arms, key=lambda a: a.mean).arm == "c"
    assert "highest mean c " in line and "(better than 1 of 2 others on a typical seed, paired)" in line and "leader" not in line
    assert "highest mean c" in group_headline(g).text
    decided = compare(make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=8,
                                reward_fn=lambda arm, s: (0.9 if arm == "a" else 0.1) + 0.01 * s),
                      fixed="tokens").groups[0]
    assert "leader a 0.935 (better than every other arm on a typical seed, paired)" in group_line(decided)
    # a group that is not valid has no verdicts, so no support either: its top arm is only the highest mean
    unequal = compare(make_arms({"a": {"tokens": 1000}, "b": {"tokens": 3000}}, seeds=8,
                                reward_fn=lambda arm, s: (0.9 if arm == "a" else 0.1) + 0.01 * s),
                      fixed="tokens").groups[0]
    assert not unequal.valid
    assert "highest mean a 0.935;" in group_line(unequal) and "leader" not in group_line(unequal)


# -- 2. one statistic per view ------------------------------------------------------------------------
def test_cost_reward_points_are_the_tables_median_spend_and_mean_with_its_interval():
    recs = make_arms({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 20}}, seeds=5, jitter=0.3)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.cost_reward_plot(group_analysis(g, recs), "calls", plots.Style(["a", "b"]), "tokens")
    try:
        ax = plot.fig.axes[0]
        points = {(round(float(line.get_xdata()[0]), 6), round(float(line.get_ydata()[0]), 6))
                  for line in ax.lines if len(line.get_xdata()) == 1}
        for a in g.arms:
            assert (round(a.spend["calls"].median, 6), round(a.mean, 6)) in points
        assert "median" in ax.get_xlabel() and "mean, 95% CI" in ax.get_ylabel()
    finally:
        plots.close(plot)


# -- 4. print and colour-blind readers --------------------------------------------------------------------
def test_series_a_colour_blind_reader_cannot_tell_apart_by_colour_differ_by_marker():
    colorspacious = pytest.importorskip("colorspacious", reason="the test extra installs colorspacious")
    from matplotlib.colors import to_rgb

    names = [f"arm-{i:02d}" for i in range(16)]   # up to 16 arms; past that no 8 markers can keep the rule
    style = plots.Style(names)
    styles = [style(n) for n in names]
    for cvd in ("protanomaly", "deuteranomaly"):
        space = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100}
        seen = [colorspacious.cspace_convert(to_rgb(s["color"]), space, "sRGB1") for s in styles]
        for i, j in itertools.combinations(range(len(names)), 2):
            delta = float(colorspacious.deltaE(np.clip(seen[i], 0, 1), np.clip(seen[j], 0, 1), input_space="sRGB1"))
            if delta < 10:
                assert styles[i]["marker"] != styles[j]["marker"], (cvd, names[i], names[j], delta)


@pytest.mark.parametrize("width, inches", [("single", 3.33), ("double", 6.8)])
def test_saved_figures_are_exactly_the_documented_width(width, inches):
    from PIL import Image
    import io

    names = ["best-of-3", "cost-efficient-puct", "a-rather-long-arm-name-v2", "ucb1"]
    recs = make_arms({n: {"tokens": 1000, "calls": 5 + 3 * i} for i, n in enumerate(names)}, seeds=4)
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.cost_reward_plot(group_analysis(g, recs), "calls", plots.Style(names), "tokens", width=width)
    try:
        png = Image.open(io.BytesIO(plots.render(plot, "png")))
        assert png.size[0] == round(inches * 300)
        texts = [t for t in plot.fig.findobj(lambda o: hasattr(o, "get_fontsize") and hasattr(o, "get_text"))
                 if t.get_text().strip()]
        assert min(t.get_fontsize() for t in texts) >= 6
        svg = plots.render(plot, "svg").decode()
        assert "sans-serif" in svg and "font-family: 'DejaVu Sans';" not in svg
    finally:
        plots.close(plot)


# -- 5. tables a journal accepts ----------------------------------------------------------------------------
def test_paper_tables_name_each_statistic_align_numbers_right_and_leave_seconds_out():
    recs = make_arms({"a": {"tokens": 1000, "calls": 10, "seconds": 0.2},
                      "b": {"tokens": 1000, "calls": 12, "seconds": 0.3}}, seeds=4)
    c = compare(recs, fixed="tokens")
    md = comparison_markdown(c, paper=True)
    header = next(line for line in md.splitlines() if line.startswith("| arm "))
    rule = md.splitlines()[md.splitlines().index(header) + 1]
    assert "tokens (median)" in header and "reward (mean, 95% CI)" in header and "seconds" not in header
    assert rule.count(":|") == header.count("|") - 2          # every column but the arm is right-aligned
    tex = comparison_latex(c)
    assert "Seconds" not in tex
    assert "Seconds" in comparison_latex(c, columns=["arm", "tokens", "seconds", "mean", "ci"])


# -- 6. COCO's ERT per function -------------------------------------------------------------------------------
def _bbob_like_records():
    out = []
    for arm in ("cma", "rs"):
        for fn in (1, 8):
            for inst in (1, 2, 3):
                seed = fn * 10 + inst
                reached = (arm == "cma" and inst != 3) or (arm == "rs" and fn == 1 and inst == 1)
                r = RunRecord("bbob", arm, seed, {"calls": 500}, 8.0 if reached else 1.0, budget={"calls": 500})
                hit_at = 100 * inst + fn
                r.trace = [{"spend": {"calls": hit_at}, "best": 8.0 if reached else 0.5, "reward": 8.0 if reached else 0.5},
                           {"spend": {"calls": 500}, "best": 8.0 if reached else 1.0, "reward": 8.0 if reached else 1.0}]
                r.extra = {"instance": f"f{fn}-i{inst}", "unit_nouns": {"calls": "function evaluations"}}
                out.append(r)
    return out


def test_ert_per_function_takes_its_instances_as_trials_as_cocopp_does():
    cocopp_stats = pytest.importorskip("cocopp.toolsstats", reason="the test extra installs cocopp")
    recs = _bbob_like_records()
    rows = {r["arm"]: r for r in cost_table(recs, "calls", 8.0)}
    assert rows["cma"]["ert"] != rows["cma"]["ert"]      # never pooled across functions (NaN, null in JSON)
    for arm, row in rows.items():
        for f in row["functions"]:
            runs = [r for r in recs if r.arm == arm and r.extra["instance"].startswith(f["function"] + "-")]
            costs = [next((p["spend"]["calls"] for p in r.trace if p["reward"] >= 8.0), 500) for r in runs]
            hits = [r.reward >= 8.0 for r in runs]
            expected = cocopp_stats.sp(costs, issuccessful=hits)[0]
            assert f["ert"] == pytest.approx(expected) if np.isfinite(expected) else f["ert"] == float("inf")
            assert f["instances"] == 3
    assert [f["function"] for f in rows["cma"]["functions"]] == ["f1", "f8"]
    assert function_erts({}) == []


def test_compare_target_on_bbob_says_function_evaluations():
    recs = _bbob_like_records()
    groups = [{"workload": "bbob", "budget": {"calls": 500}, "target": 8.0, "arms": cost_table(recs, "calls", 8.0),
               "unit_nouns": {"calls": "function evaluations"}}]
    text = cost_markdown(groups, "calls", 8.0)
    assert "in function evaluations" in text and "model calls" not in text
    assert "ERT per function in function evaluations, its instances as trials" in text
