"""The defects a reviewer measured in issue 36, one test each (each failed before the analysis result existed)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from baselines import RunRecord, compare
from baselines.analysis.compare.pair_result import PairResult
from baselines.analysis.result.build import pair_row, p_label
from baselines.analysis.result.model import GroupAnalysis
from baselines.analysis.statistics.clustered import METHOD as CLUSTERED
from reports.headline import group_headline
from reports.html import report_html
from reports.latex import comparison_latex
from reports.markdown import comparison_markdown, pairs_table
from reports.run_report import _unit_heading
from tests.test_agreement import hand_made, md_pairs


@pytest.fixture(scope="module")
def confound():
    records = hand_made()
    return compare(records).analysis(records=records)


def test_the_headline_confound_names_who_spent_more_relative_to_whom(confound):
    """Was: "main confound: a spent 0.5x the median tokens" although b spent 3x a's tokens."""
    ga = confound.groups[0]
    assert ga.leader == "b"
    [head] = [c for c in ga.headline_confound if c.reference_arm == "a"]
    assert head.arm == "b" and head.ratio == pytest.approx(3.0) and head.unit == "tokens"
    assert all(c.reference_arm != "c" for c in ga.headline_confound)   # c reports no tokens: no ratio, never 0
    text = group_headline(ga).text
    assert "main confound: b spent 3× a's tokens" in text and "median" not in text
    page = report_html([("At equal rollouts", confound)])
    glance = page.split('<h2 id="glance">')[1].split("</ul>")[0]
    assert "b spent 3× a&#x27;s tokens" in glance and "the median" not in glance


def test_the_p_column_is_named_after_the_method_of_its_p():
    """Was: a seed-clustered t p printed under "p (sign-flip)"."""
    assert p_label(CLUSTERED) == "seed-clustered t" and p_label("sign-flip exact") == "sign-flip"
    pair = PairResult("a", "b", 10, 0.2, (0.1, 0.3), 0.004, CLUSTERED, 0.004, 0.1, True, math.nan,
                      interval_method=CLUSTERED, method=CLUSTERED, verdict="a>b", p_adjusted=0.004)
    row = pair_row(pair)
    assert row.p_label == "seed-clustered t" and row.claims[0].p_label == "seed-clustered t"
    ga = GroupAnalysis(group=None, fixed_noun="samples", arms=[], pairs=[row], decimals=2, pair_decimals=2)
    table = pairs_table(ga)
    assert "p (seed-clustered t)" in table and "sign-flip" not in table


def test_notes_come_from_the_procedure_that_decides(confound):
    """Was: a t test's detectable difference beside a verdict another procedure decided."""
    for p in confound.groups[0].pairs:
        for c in p.claims:
            shown = c.notes if len(p.claims) > 1 else p.notes
            assert shown == c.notes or len(p.claims) == 1 and shown == p.notes
            if c.claim == "typical":
                assert all(n.startswith("typical seed") for n in c.notes), c.notes
    both = compare(hand_made(), claim="both").analysis()
    for p in both.groups[0].pairs:
        for c in p.claims:
            other = "mean" if c.claim == "typical" else "typical seed"
            assert not any(n.startswith(other + ":") for n in c.notes), (c.claim, c.notes)


def test_one_pair_has_one_interval_in_the_ranking_and_the_pairs_table():
    """Was: puct - thompson -0.01 [-0.35, +0.34] in the pairs table, -0.010 [-0.10, +0.09] in "Order differs"."""
    recs = []
    for seed in range(6):
        lift = 0.01 * seed
        for arm, pts in (("lavish", [({"rollouts": 5, "tokens": 5000}, 0.5), ({"rollouts": 10, "tokens": 10000}, 0.8)]),
                         ("frugal", [({"rollouts": 5, "tokens": 1000}, 0.6), ({"rollouts": 10, "tokens": 2000}, 0.7)])):
            r = RunRecord("w", arm, seed, dict(pts[-1][0]), pts[-1][1] + lift, budget={"rollouts": 10})
            r.trace = [{"spend": s, "best": b + lift, "reward": b + lift} for s, b in pts]
            recs.append(r)
    analysis = compare(recs, fixed="rollouts").analysis(records=recs)
    text = comparison_markdown(analysis)
    from reports.ranking_view import ranking_markdown
    ranking = ranking_markdown(analysis.groups[0])
    cited = re.findall(r"at equal rollouts \(pairs table: ([^,]+), (\S+) (\[[^\]]+\])\)", ranking)
    assert cited, ranking
    (verdict, estimate, ci), = cited
    row = md_pairs(text)[("frugal", "lavish", "typical seed")]
    assert (estimate, ci, verdict) == (row[0], row[1], row[4])


def test_a_baseline_that_did_not_run_in_a_group_is_said_in_every_format():
    """Was: with --baseline, a group without that arm silently lost its difference columns."""
    records = hand_made()
    analysis = compare(records).analysis("zeta", records)
    line = "--baseline zeta: zeta did not run in this group"
    assert line in comparison_markdown(analysis) and line in report_html([("x", analysis)])
    assert line.replace("--", "-{}-") in comparison_latex(analysis)   # LaTeX's escape of "--" (no en dash)


def test_unit_headings_use_the_units_display_noun(confound):
    """Was: "At equal calls" for function evaluations and samples, "completion_tokens" raw."""
    records = [RunRecord("f", arm, s, {"calls": 30}, 0.1 * s + (arm == "b"), budget={"calls": 30},
                         extra={"unit_nouns": {"calls": "function evaluations"}}) for arm in "ab" for s in range(3)]
    analysis = compare(records).analysis(records=records)
    assert analysis.groups[0].fixed_noun == "function evaluations"
    assert _unit_heading("calls", analysis) == "At equal function evaluations"
    tokens = [RunRecord("t", arm, s, {"completion_tokens": 900}, 0.1 * s, budget={"completion_tokens": 900})
              for arm in "ab" for s in range(3)]
    assert _unit_heading("completion_tokens", compare(tokens).analysis(records=tokens)) == \
        "At equal completion tokens"


def test_ten_or_more_arms_get_distinct_styles_and_arms_of_one_colour_differ_in_marker_and_dash():
    """Was: in the 9-arm figures two arms shared a colour, and two shared marker and dash."""
    import itertools

    from reports.figure_base import Style

    names = [f"arm-{i:02d}" for i in range(16)]
    style = Style(names)
    looks = [tuple(style(n).values()) for n in names]
    assert len(set(looks)) == 16
    assert all(sum(x == y for x, y in zip(a, b)) <= 1 for a, b in itertools.combinations(looks, 2))


@pytest.mark.slow  # draws every figure of a comparison (about 1.5 s)
def test_legend_handles_show_two_periods_of_each_dashed_line():
    """Was: a dash-dot line's 2-em legend handle read as solid."""
    from reports import plots
    from reports.figure_base import HANDLE_LENGTH

    records = hand_made()
    analysis = compare(records).analysis(records=records)
    for plot in [p for p in plots.comparison_plots(analysis) if p.drawn]:
        for legend in [*plot.fig.legends, *(ax.get_legend() for ax in plot.fig.axes if ax.get_legend())]:
            size = legend.prop.get_size_in_points()
            for handle in legend.legend_handles:
                dashes = getattr(handle, "_dash_pattern", (0, None))[1]
                if dashes:
                    assert HANDLE_LENGTH * size >= 2 * sum(dashes), (plot.name, dashes)
        plots.close(plot)


@pytest.mark.slow  # draws and writes three figures (about 1.5 s)
def test_paper_style_figures_carry_no_title_or_caption_and_the_caption_is_written_beside(tmp_path):
    from baselines.cli import main

    src = Path(__file__).resolve().parent / "data" / "agreement" / "demo-search-sim.jsonl"
    assert main(["report", str(src), "--plots", str(tmp_path / "p"), "--figure-style", "paper",
                 "--figure-format", "svg", "--out", str(tmp_path / "r.md")]) == 0
    svgs = sorted((tmp_path / "p").glob("*.svg"))
    assert svgs
    for svg in svgs:
        caption = (tmp_path / "p" / f"{svg.stem}.caption.txt").read_text()
        title = caption.split(".")[0]
        assert title and title not in svg.read_text()   # the title is beside the figure, not in it


@pytest.mark.slow  # draws and writes three figures
def test_paper_style_figures_leave_no_blank_band_where_the_title_was(tmp_path):
    """Paper style drops the title but kept its space: blank above the axes for 10.6-11.0% of the figure's height
    (measured before the fix on these three figures; 1.1-1.7% after)."""
    import matplotlib.image as mpimg
    from baselines.cli import main

    src = Path(__file__).resolve().parent / "data" / "agreement" / "demo-search-sim.jsonl"
    bands = {}
    for style in ("paper",):
        out = tmp_path / style
        assert main(["report", str(src), "--plots", str(out), "--figure-style", style, "--figure-format", "png",
                     "--out", str(tmp_path / f"{style}.md")]) == 0
        for png in sorted(out.glob("*.png")):
            image = mpimg.imread(png)[..., :3]
            inked = (image < 0.95).any(axis=(1, 2))          # rows with anything drawn
            bands[(style, png.stem)] = int(inked.argmax()) / image.shape[0]
    paper = {k: v for k, v in bands.items() if k[0] == "paper"}
    assert paper and all(v <= 0.03 for v in paper.values()), paper


def _traced(arm: str, seed: int, points: list, final: dict, reward: float) -> RunRecord:
    r = RunRecord("w", arm, seed, dict(final), reward, budget={"rollouts": 10})
    r.trace = [{"spend": s, "best": b, "reward": b} for s, b in points]
    return r


def test_a_curve_has_points_only_where_a_trace_has_them():
    """Was: a best-of-1 arm (two trace points) drew reward 0.0 at every sample before the last."""
    from baselines.analysis.curves.anytime_series import anytime_series

    recs = []
    for seed in range(4):
        recs.append(_traced("best-of-1", seed, [({"rollouts": 1}, 0.0), ({"rollouts": 10}, 0.6)], {"rollouts": 10}, 0.6))
        recs.append(_traced("dense", seed, [({"rollouts": k}, 0.05 * k) for k in range(1, 11)], {"rollouts": 10}, 0.5))
    by_arm = {a: [r for r in recs if r.arm == a] for a in ("best-of-1", "dense")}
    series = anytime_series(by_arm, "rollouts", 10)
    assert series.points["best-of-1"] == [(1.0, 0.0), (10.0, 0.6)]
    assert math.isnan(series.means["dense"][0])   # before any run's first point: nothing, never a 0
    from reports import plots
    from tests.helpers import group_analysis

    ga = group_analysis(compare(recs, fixed="rollouts").groups[0], recs)
    style = plots.Style(["best-of-1", "dense"])
    plot = plots.anytime_plot(ga, "rollouts", style)
    try:
        def drawn(arm):
            from matplotlib.colors import to_hex
            return [line for line in plot.fig.axes[0].lines if len(line.get_xdata()) > 1
                    and to_hex(line.get_color()) == to_hex(style(arm)["color"])]
        [sparse] = drawn("best-of-1")
        assert list(sparse.get_xdata()) == [1.0, 10.0] and sparse.get_linestyle() in ("None", "none", "")
        [dense] = drawn("dense")
        assert dense.get_linestyle() not in ("None", "none", "")   # a dense trace is still a line
    finally:
        plots.close(plot)


def test_equal_scores_share_a_rank_and_make_no_flip():
    """Was: 0.847 and 0.847 ranked 1 and 2, with a crossing drawn between them."""
    from baselines.analysis.curves.ranking import group_ranking

    recs = []
    for seed in range(4):
        recs.append(_traced("x", seed, [({"rollouts": 5, "tokens": 500}, 0.5), ({"rollouts": 10, "tokens": 1000}, 0.8)],
                            {"rollouts": 10, "tokens": 1000}, 0.8))
        recs.append(_traced("y", seed, [({"rollouts": 5, "tokens": 500}, 0.5), ({"rollouts": 10, "tokens": 1000}, 0.7)],
                            {"rollouts": 10, "tokens": 1000}, 0.7))
    ranking = group_ranking({a: [r for r in recs if r.arm == a] for a in "xy"})
    # at equal tokens (level 1,000) x leads; at equal rollouts too: no flip. Ties: force one
    by = ranking.by_unit
    assert by["rollouts"]["x"].rank == 1 and by["rollouts"]["y"].rank == 2
    tied = [_traced(a, s, [({"rollouts": 10, "tokens": 1000}, 0.847)], {"rollouts": 10, "tokens": 1000}, 0.847)
            for a in "xy" for s in range(3)]
    tie = group_ranking({a: [r for r in tied if r.arm == a] for a in "xy"})
    assert {e.rank for e in tie.by_unit["rollouts"].values()} == {1} and tie.flips == []
