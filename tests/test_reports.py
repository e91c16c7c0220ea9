"""Reports: table structure, escaping, captions that follow the flags, figures a reviewer accepts."""
from __future__ import annotations

import errno
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines import RunRecord, compare
from baselines.cli import main
from baselines.core.fileio import DiskError
from baselines.core.records import write_records
from reports import plots
from reports.markdown import comparison_markdown
from baselines.analysis.result.ranges import RewardRange, reward_ranges
from reports.confounds import confound_markdown
from reports.latex import comparison_latex, parse_columns
from reports.tables import frame, to_csv
from reports.text import budget_tag, budget_text, md, quantity
from tests.builders import make_arms
from tests.sizes import examples
from tests.helpers import group_analysis
from baselines.analysis.curves.ranking import group_ranking
from baselines.analysis.tables.group_runs import as_index

B = {"tokens": 1000}


def spec_records(spec, seeds=5, **kw):
    return make_arms(spec, seeds=seeds, budget=B, **kw)


def test_latex_is_booktabs_escaped_with_caption_and_label():
    recs = spec_records({"a_b & c%": {"tokens": 1000, "calls": 10}, "base": {"tokens": 1000, "calls": 10}})
    tex = comparison_latex(compare(recs, fixed="tokens"), baseline="base")
    for needed in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption[", r"\label{tab:costmatch-w-0}"):
        assert needed in tex
    assert r"a\_b \& c\%" in tex and "a_b & c%" not in tex
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    header = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    assert all(line.count(" & ") == header.count(" & ") for line in body)


def test_caption_changes_when_a_flag_appears():
    ok = comparison_latex(compare(spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}}), fixed="tokens"))
    bad = comparison_latex(compare(spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1600}}), fixed="tokens"))
    assert "Budget held fixed in tokens" in ok and "NOT A LIKE-FOR-LIKE" not in ok
    assert "Budget held fixed" not in bad and "NOT A LIKE-FOR-LIKE" in bad and "b spent 1{,}600" not in bad
    assert "b spent 1,600 tokens" in bad
    conf = comparison_latex(compare(spec_records({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 10},
                                                  "c": {"tokens": 1000, "calls": 50}}), fixed="tokens"))
    assert "median across arms & 10 \\\\" in conf and "c & 5$\\times$ \\\\" in conf  # the confound table


def test_unreported_columns_dropped_in_paper_tables_and_named_in_caption():
    recs = spec_records({"a": {"tokens": 1000, "usd": None}, "b": {"tokens": 1000, "usd": None}})
    tex = comparison_latex(compare(recs, fixed="tokens"))
    assert "Not reported by any arm (no column): dollars" in tex and "dollars &" not in tex
    assert "dollars (median)" in comparison_markdown(compare(recs, fixed="tokens")).split("\n\n")[3].splitlines()[0]


def test_partial_unit_gets_lower_bound_marker_in_every_format():
    recs = spec_records({"a": {"tokens": 1000, "calls": 7}, "b": {"tokens": 1000, "calls": 7}})
    for r in recs:
        if r.arm == "b":
            r.partial = ("calls",)
    c = compare(recs, fixed="tokens")
    assert "\u22657" in comparison_markdown(c)
    assert r"$\geq$7" in comparison_latex(c)
    df = frame(c)
    assert list(df.loc[df.arm == "b", "calls_status"]) == ["partial"]


def test_csv_and_frame_agree_and_keep_unreported_as_missing():
    recs = spec_records({"a": {"tokens": 1000, "usd": None}, "b": {"tokens": 1000, "usd": 0.5}})
    c = compare(recs, fixed="tokens")
    df = pd.read_csv(io.StringIO(to_csv(c, baseline="a")))
    assert df.loc[df.arm == "a", "usd_median"].isna().all()
    assert df.loc[df.arm == "b", "usd_median"].iloc[0] == 0.5
    assert df.loc[df.arm == "a", "vs_verdict"].isna().all() and not df.loc[df.arm == "b", "vs_verdict"].isna().any()


def test_csv_verdict_is_the_word_markdown_prints_and_the_long_text_has_its_own_column():
    """docs/reports.md: a verdict is one word in every format; CSV said "no difference detected" (issue 43)."""
    recs = spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=12)
    c = compare(recs, fixed="tokens")
    df = pd.read_csv(io.StringIO(to_csv(c, baseline="a")))
    row = df.loc[df.arm == "b"].iloc[0]
    assert (row["vs_verdict"], row["vs_verdict_text"]) == ("n.d.", "no difference detected")
    md_row = next(line for line in comparison_markdown(c, baseline="a").splitlines() if line.startswith("| b "))
    assert md_row.rstrip(" |").endswith(" n.d.")
    assert list(df.columns).index("vs_verdict_text") > list(df.columns).index("vs_family")  # added, not moved


def test_numbers_rounded_consistently_within_a_column():
    recs = spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=8)
    table = comparison_markdown(compare(recs, fixed="tokens")).split("\n\n")[3].splitlines()[2:]
    decimals = {cell.split()[-3].split(".")[1].__len__() for cell in
                [row.strip("|").split("|")[-1] for row in table]}
    assert len(decimals) == 1


def test_pareto_front():
    pts = {"cheap-bad": (1, 0.1), "mid": (2, 0.5), "dominated": (3, 0.4), "expensive-best": (5, 0.9)}
    assert plots.pareto_front(pts) == ["cheap-bad", "mid", "expensive-best"]


def test_unreported_arm_is_drawn_in_the_unknown_strip_not_dropped():
    recs = spec_records({"a": {"tokens": 1000, "usd": 1.0}, "b": {"tokens": 1000, "usd": 2.0},
                         "cli": {"tokens": 1000, "usd": None}})
    c = compare(recs, fixed="tokens")
    plot = plots.cost_reward_plot(group_analysis(c.groups[0], recs), "usd", plots.Style(["a", "b", "cli"]), "tokens")
    try:
        assert plot.arms == {"a": "drawn", "b": "drawn", "cli": "unknown"}
        assert len(plot.fig.axes) == 2                       # the main axes and the shaded "unknown" strip
        svg = plots.render(plot, "svg").decode()
    finally:
        plots.close(plot)
    assert "cli (spend unknown)" in svg and "unknown" in svg and "drawn in the 'unknown' strip" in svg
    ET.fromstring(svg)  # well-formed


def test_svg_output_is_deterministic():
    recs = spec_records({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}})
    c = compare(recs, fixed="tokens")
    style = plots.Style(["a", "b"])
    out = []
    for _ in range(2):
        plot = plots.cost_reward_plot(group_analysis(c.groups[0], recs), "calls", style, "tokens")
        out.append(plots.render(plot, "svg"))
        plots.close(plot)
    assert out[0] == out[1]


def test_style_is_stable_and_colour_blind_palette():
    s1, s2 = plots.Style(["b", "a", "c"]), plots.Style(["c", "a", "b", "a"])
    assert s1("a") == s2("a") and s1("a")["color"] in plots.OKABE_ITO


def _traced(arm, seed, points, final):
    r = RunRecord("w", arm, seed, dict(final), 0.5, budget={"rollouts": 10})
    r.trace = [{"spend": s, "best": b, "reward": b} for s, b in points]
    return r


def test_ranking_across_units_finds_a_reversal():
    recs = []
    for seed in range(3):
        # "frugal" is better per token, "lavish" better per rollout
        recs.append(_traced("lavish", seed, [({"rollouts": 5, "tokens": 5000}, 0.5),
                                              ({"rollouts": 10, "tokens": 10000}, 0.9)], {"rollouts": 10, "tokens": 10000}))
        recs.append(_traced("frugal", seed, [({"rollouts": 5, "tokens": 1000}, 0.6),
                                              ({"rollouts": 10, "tokens": 2000}, 0.7)], {"rollouts": 10, "tokens": 2000}))
    g = compare(recs, fixed="rollouts").groups[0]
    ranking = group_ranking(as_index(recs).of(g))
    assert ranking.by_unit["rollouts"]["lavish"][0] == 1 and ranking.by_unit["tokens"]["frugal"][0] == 1
    assert ranking.by_unit["tokens"]["lavish"][2] == 2000  # compared at the level every arm reached
    assert ("frugal", "lavish", "tokens", "rollouts") in ranking.flips
    # 3 seeds (and no lavish score at 2,000 tokens): the order flips, but no test supports it, so no reversal
    assert ranking.supported == []
    text = plots.ranking_markdown(ranking)
    assert "**frugal**" not in text and "Order differs between units, not significant" in text
    assert "- frugal vs lavish: " in text


def _sweep_of(levels: dict, seeds: int = 10, noise: float = 0.01):
    recs = [RunRecord("w", arm, seed, {"tokens": budget}, level + noise * ((seed * 7) % 5 - 2), budget={"tokens": budget})
            for budget, rewards in levels.items() for arm, level in rewards.items() for seed in range(seeds)]
    return compare(recs, fixed="tokens").analysis().sweeps[0]


def test_a_sweep_band_needs_both_orders_decided_and_both_arms_at_both_budgets():
    """Issue 36: the replay sweep shaded a leader change no test decided, across a budget one arm never ran."""
    decided = _sweep_of({100: {"a": 0.6, "b": 0.4}, 1000: {"a": 0.6, "b": 0.8}})
    assert [(b.lo, b.hi, b.before, b.after) for b in decided.bands] == [(100, 1000, "a", "b")]
    noisy = _sweep_of({100: {"a": 0.52, "b": 0.5}, 1000: {"a": 0.5, "b": 0.52}}, seeds=4, noise=0.1)
    assert noisy.bands == [] and "no paired test decided both orders" in " ".join(noisy.notes)
    missing = _sweep_of({100: {"a": 0.6, "c": 0.4}, 1000: {"a": 0.6, "b": 0.8}})
    assert missing.bands == [] and "did not run at both budgets" in " ".join(missing.notes)
    assert [y for _, y, _, _ in missing.series["b"]][0] != [y for _, y, _, _ in missing.series["b"]][0]  # NaN


def test_report_cli_writes_table_and_plots(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    recs = spec_records({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}})
    write_records(path, recs)
    out = tmp_path / "t.tex"
    assert main(["report", str(path), "--fixed", "tokens", "--format", "latex", "--plots", str(tmp_path / "p"),
                 "--out", str(out), "--baseline", "a"]) == 0
    text = out.read_text()
    assert text.startswith("% costmatch tables. Needs in the preamble: \\usepackage{booktabs}")
    assert "\\begin{table" in text
    assert sorted(p.suffix for p in (tmp_path / "p").iterdir()) == [".png", ".svg"]


def test_budget_sweep_figure_marks_the_crossing(tmp_path):
    recs = []
    for budget, rewards in ((1000, {"a": 0.6, "b": 0.4}), (4000, {"a": 0.7, "b": 0.9})):
        for arm, level in rewards.items():
            for seed in range(10):  # 10 seeds: both orders decided, so the band is drawn (4 would be underpowered)
                recs.append(RunRecord("w", arm, seed, {"tokens": budget}, level + 0.01 * seed,
                                      budget={"tokens": budget}))
    c = compare(recs, fixed="tokens")
    files = plots.budget_sweep(c.analysis(), "w", plots.Style(["a", "b"]), tmp_path / "sweep")
    assert [f.suffix for f in files] == [".png", ".svg"]
    assert "a → b" in (tmp_path / "sweep.svg").read_text() or "a \u2192 b" in (tmp_path / "sweep.svg").read_text()


# -- issue 16: figures a reviewer accepts ------------------------------------------------------




def test_one_number_format_is_exact_in_text_and_compact_on_axes():
    assert quantity(1_500_000) == "1,500,000" and quantity(1_500_001) == "1,500,001"
    assert quantity(1_500_000, compact=True) == "1.5M" and quantity(20_000, compact=True) == "20k"
    assert quantity(1_500_001, compact=True) == "1,500,001"  # SI only when exact
    assert quantity(7500, compact=True) == "7.5k" and quantity(0.00437) == "0.00437"
    assert quantity(1.7e308) == "1.7e+308" and "e+06" not in budget_text({"tokens": 1.5e6})
    assert budget_tag({"tokens": 1_500_000}) != budget_tag({"tokens": 1_500_001})
    assert budget_tag({"tokens": 1_500_000}) == "tokens1500000"


def test_markdown_escapes_only_what_github_needs():
    assert md("prompt_tokens") == "prompt_tokens" and md("p<0.05") == "p<0.05"
    assert md("a|b") == "a\\|b" and md("_hidden") == "\\_hidden" and md("*x*") == "\\*x\\*"
    assert md("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;"
    assert md("$x^2$") == "\\$x^2\\$" and md("[a](b)") == "\\[a\\](b)"


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_*|`$\\[]&<>#;!/ -.():~") + ["\u00e9"]), max_size=12))
def test_markdown_cells_render_as_the_text_they_hold(value):
    """GitHub-flavoured rendering (markdown-it's gfm-like rules) of an escaped cell shows the text itself:
    no link, emphasis, code, strike-through or tag, and nothing lost or added."""
    import html
    import re

    from markdown_it import MarkdownIt

    value = value.strip()
    page = MarkdownIt("gfm-like").disable("linkify").render(f"| h |\n|---|\n| {md(value)} |\n")
    cell = re.search(r"<tbody>\s*<tr>\s*<td>(.*?)</td>", page, re.S)
    assert cell is not None, page
    assert not re.search(r"<(a|em|strong|code|img|s|del)\b", cell.group(1)), page
    assert html.unescape(cell.group(1)) == value


def test_markdown_leaves_plain_brackets_and_one_tilde_as_they_are():
    """A reader in a terminal sees "[0, 1]", not "\\[0, 1\\]": brackets are escaped only where they make a link."""
    assert md("Rewards lie in [0, 1] (every reward is 0 or 1)") == "Rewards lie in [0, 1] (every reward is 0 or 1)"
    assert md("~1.5k tokens") == "~1.5k tokens" and md("~~x~~") == "\\~\\~x\\~\\~"
    assert md("[x]: http://a") == "\\[x\\]: http://a" and md("[a][b]") == "\\[a\\]\\[b\\]"


def test_palette_has_enough_contrast_on_white():
    assert len(set(plots.PALETTE)) == 8
    for colour in plots.PALETTE:
        assert plots.contrast_ratio(colour) >= 3.0, colour
    assert plots.contrast_ratio("#F0E442") < 3.0  # the yellow it replaced would fail


def _axis_texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)




def _svg(plot) -> str:
    try:
        return plots.render(plot, "svg").decode()
    finally:
        plots.close(plot)


def _traced_group(arms=("a", "b", "c"), held_out=True, limit=20_000):
    recs = []
    for i, arm in enumerate(arms):
        for seed in range(3):
            r = RunRecord("w", arm, seed, {"tokens": limit, "calls": 10 + i}, 0.5 + 0.1 * i,
                          budget={"tokens": limit})
            pts = [{"spend": {"tokens": limit * k / 4, "calls": k}, "best": 0.5 + 0.2 * k / 4 + 0.1 * i}
                   for k in range(1, 5)]
            for p in pts:
                if held_out:
                    p["reward"] = p["best"] - 0.1
            r.trace = pts
            recs.append(r)
    return recs


def test_anytime_axis_says_dev_score_unless_points_are_held_out():
    for held_out, label in ((True, "held-out reward"), (False, "dev score")):
        recs = _traced_group(held_out=held_out)
        g = compare(recs, fixed="tokens").groups[0]
        plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["a", "b", "c"]))
        texts = " ".join(_axis_texts(_svg(plot)))
        assert label in texts
        assert ("dev score" in " ".join(plot.notes)) == (not held_out)


def test_anytime_ticks_are_compact_and_never_run_together():
    recs = _traced_group(limit=20_000)
    g = compare(recs, fixed="tokens").groups[0]
    texts = _axis_texts(_svg(plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["a", "b", "c"]))))
    xticks = [t for t in texts if re.fullmatch(r"[\d.,]+k?", t)]
    assert "20k" in xticks and len([t for t in xticks if t.endswith("k")]) <= 5
    assert not any("e+" in t or "1e" in t for t in texts)


def test_mixed_trace_scores_are_not_drawn_with_a_reason():
    recs = _traced_group(held_out=True) + [r for r in _traced_group(arms=("d",), held_out=False)]
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.anytime_plot(group_analysis(g, recs), "tokens", plots.Style(["a", "b", "c", "d"]))
    assert not plot.drawn and "held-out" in plot.reason


def test_cost_reward_is_never_drawn_against_the_fixed_unit():
    recs = _traced_group()
    g = compare(recs, fixed="tokens").groups[0]
    plot = plots.cost_reward_plot(group_analysis(g, recs), "tokens", plots.Style(["a"]), fixed="tokens")
    assert not plot.drawn and "fixed unit" in plot.reason
    assert plots.cost_units(g, "tokens") == ["calls"]


def test_names_are_drawn_literally_and_underscore_names_reach_the_legend():
    names = ["$\\frac{$", "$x^2$", "_hidden"]
    recs = make_arms({n: {"tokens": 1000, "calls": 3 + i} for i, n in enumerate(names)}, budget=B)
    g = compare(recs, fixed="tokens").groups[0]
    svg = _svg(plots.cost_reward_plot(group_analysis(g, recs), "calls", plots.Style(names), "tokens"))
    texts = _axis_texts(svg)
    assert "$x^2$" in texts and "_hidden" in texts and "$\\frac{$" in texts


def test_rank_ticks_are_integers():
    recs = []
    for seed in range(3):
        for arm, (t, r) in {"a": (5000, 0.9), "b": (1000, 0.6), "c": (3000, 0.7)}.items():
            recs.append(_traced(arm, seed, [({"rollouts": 5, "tokens": t / 2}, r - 0.1),
                                            ({"rollouts": 10, "tokens": t}, r)], {"rollouts": 10, "tokens": t}))
    g = compare(recs, fixed="rollouts").groups[0]
    plot = plots.ranking_plot(group_ranking(as_index(recs).of(g)), plots.Style("abc"), "r", "t")
    ticks = [t.get_text() for t in plot.fig.axes[0].get_yticklabels()]
    plots.close(plot)
    assert ticks == ["1", "2", "3"]


def test_pdf_embeds_truetype_and_svg_keeps_text(tmp_path):
    recs = spec_records({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}})
    c = compare(recs, fixed="tokens")
    files = plots.write_comparison_plots(c, recs, tmp_path, formats=("pdf", "svg"), width="double")
    pdf = next(f for f in files if f.suffix == ".pdf").read_bytes()
    assert b"FontFile2" in pdf and b"/Type3" not in pdf
    svg = next(f for f in files if f.suffix == ".svg").read_text()
    assert "<text" in svg and 'width="' in svg
    single = plots.write_comparison_plots(c, recs, tmp_path / "s", formats=("svg",))
    width = lambda text: float(re.search(r'<svg[^>]*width="([\d.]+)pt"', text).group(1))  # noqa: E731
    assert width(svg) > 1.6 * width(single[0].read_text())


def test_file_names_stay_inside_the_folder_and_distinct(tmp_path):
    recs = []
    for w in ("search-sim", "search_sim", "search sim", "../../evil"):
        recs += make_arms({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}}, workload=w,
                          budget=B)
    c = compare(recs, fixed="tokens")
    out = tmp_path / "deep" / "plots"
    skipped = []
    files = plots.write_comparison_plots(c, recs, out, x_unit="../../../OUTSIDE", skipped=skipped)
    files += plots.write_comparison_plots(c, recs, out)
    on_disk = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert sorted(files) == on_disk and len(set(files)) == len(files)
    assert all(p.parent == out for p in on_disk)
    assert len([p for p in on_disk if p.name.startswith("cost-reward")]) == 8  # 4 workloads x png/svg
    assert len([s for s in skipped if s[0].startswith("cost-reward")]) == 4
    assert all("OUTSIDE" not in str(p) for p in on_disk)


def test_full_disk_leaves_no_half_written_figure(tmp_path, monkeypatch):
    import baselines.core.fileio as fileio
    recs = spec_records({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}})
    c = compare(recs, fixed="tokens")

    def full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", full)
    with pytest.raises(DiskError):
        plots.write_comparison_plots(c, recs, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_huge_spend_does_not_break_plots(tmp_path, capsys):
    recs = spec_records({"a": {"tokens": 1000, "calls": 1.7e308}, "b": {"tokens": 1000, "calls": 5}})
    c = compare(recs, fixed="tokens")
    files = plots.write_comparison_plots(c, recs, tmp_path / "direct")
    assert files and all(f.stat().st_size > 0 for f in files)
    assert "1.7e+308" in comparison_markdown(c)
    path = tmp_path / "r.jsonl"
    write_records(path, recs)
    code = main(["report", str(path), "--fixed", "tokens", "--plots", str(tmp_path / "p")])
    captured = capsys.readouterr()
    # the reader may refuse the value (one line, exit 2); whatever it accepts must plot
    assert code == 0 or (code == 2 and captured.err.count("\n") == 1), captured.err


def test_printed_intervals_stay_inside_the_reward_range():
    # 0/1 rewards: 4 of 5 successes gives a t interval reaching above 1
    recs = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B,
                     reward_fn=lambda arm, s: 1.0 if (arm == "a" or s < 4) and s != 0 else 1.0 if arm == "a" else 0.0)
    c = compare(recs, fixed="tokens")
    raw_hi = max(a.ci[1] for a in c.groups[0].arms)
    ranges = reward_ranges(recs)
    assert next(iter(ranges.values())).source == "binary"
    text = comparison_markdown(c, ranges=ranges)
    numbers = [float(x) for x in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", text)[0]]
    assert all(0 <= x <= 1 for x in numbers)
    assert "clipped" in text
    assert raw_hi > 1 or all(a.ci[1] <= 1 for a in c.groups[0].arms)
    tex = comparison_latex(c, ranges=ranges)
    assert "clipped" in tex
    for lo, hi in re.findall(r"\[(\$-\$)?[\d.]+, ([\d.]+)\]", tex):
        assert float(hi) <= 1


def test_declared_reward_range_wins_and_conflicts_give_none():
    recs = spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}})
    for r in recs:
        r.extra["reward_range"] = [0, 0.5]
    rng = next(iter(reward_ranges(recs).values()))
    assert (rng.lo, rng.hi, rng.source) == (0.0, 0.5, "declared") and rng.clip(0.9) == 0.5
    recs[0].extra["reward_range"] = [0, 2]
    assert reward_ranges(recs) == {}
    assert RewardRange(0, 1, "binary").clip(float("nan")) != RewardRange(0, 1, "binary").clip(float("nan"))


def test_csv_neutralises_formula_cells():
    recs = spec_records({"=HYPERLINK(1)": {"tokens": 1000}, "+b": {"tokens": 1000}, "@c": {"tokens": 1000},
                         "-d": {"tokens": 1000}})
    text = to_csv(compare(recs, fixed="tokens"))
    df = pd.read_csv(io.StringIO(text))
    assert set(df[df.kind == "arm"].arm) == {"'=HYPERLINK(1)", "'+b", "'@c", "'-d"}
    assert set(df[df.kind == "pair"].a) | set(df[df.kind == "pair"].b) <= {"'=HYPERLINK(1)", "'+b", "'@c", "'-d"}
    assert all(not str(cell).startswith(("=", "+", "@")) for cell in df.astype(str).to_numpy().ravel()
               if not _is_number(cell))


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def test_confounds_are_one_compact_table():
    spec = {f"arm{i}": {"tokens": 1000, "calls": 10 * (1 + 2 * (i == 1)), "usd": 1.0 * (1 + (i == 2))}
            for i in range(5)}
    g = compare(spec_records(spec), fixed="tokens").groups[0]
    table = confound_markdown(g, 0.1)
    lines = [l for l in table.splitlines() if l.startswith("| arm ")]
    assert len(lines) == 1 and "model calls" in lines[0] and "dollars" in lines[0]
    body = [l for l in table.splitlines() if l.startswith("| arm") and not l.startswith("| arm ")]
    assert len(body) == 2 and "3\u00d7" in table and "2\u00d7" in table
    only_usd = confound_markdown(g, 0.1, units=["usd"])
    assert "model calls" not in only_usd and "dollars" in only_usd
    report = comparison_markdown(compare(spec_records(spec), fixed="tokens"), compact_confounds=True)
    assert "**confound**" not in report and "Confounds (spend in other units" in report


def test_latex_columns_verdict_apart_and_wide_tables_span():
    recs = spec_records({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 10}}, seeds=8)
    c = compare(recs, fixed="tokens")
    narrow = comparison_latex(c, baseline="a", columns=parse_columns("arm,mean,ci,verdict", ["tokens", "calls"]))
    header = narrow.split(r"\toprule")[1].split(r"\midrule")[0]
    assert header.count("&") == 3 and "Verdict" in header and r"\begin{table}[t]" in narrow
    full = comparison_latex(c, baseline="a", columns=parse_columns("arm,seeds,spend,mean,ci,diff,diff_ci,verdict",
                                                                  ["tokens", "calls"]))
    assert r"\begin{table*}" in full
    row = [l for l in full.splitlines() if l.startswith("b &")][0]
    cells = [x.strip() for x in row.rstrip("\\ ").split("&")]
    assert cells[-1] in ("better", "worse", "n.d.", "underpowered") and cells[-2].startswith("[")
    with pytest.raises(ValueError, match="unknown column"):
        parse_columns("arm,nonsense", ["tokens"])


@pytest.mark.slow
def test_latex_tables_compile(tmp_path):
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("needs a TeX engine (apt-get install -y texlive-latex-base texlive-latex-recommended)")
    recs = make_arms({"a_b & c%": {"tokens": 1000, "calls": 10, "usd": 0.5},
                      "$x^2$ {y}": {"tokens": 1000, "calls": 30, "usd": 0.5},
                      "base": {"tokens": 1000, "calls": 10, "usd": 0.5}}, budget=B, seeds=6)
    c = compare(recs, fixed="tokens")
    wide = comparison_latex(c, baseline="base", columns=parse_columns(
        "arm,seeds,spend,mean,ci,diff,diff_ci,verdict,tokens,calls,usd", ["tokens", "calls", "usd"]))
    assert r"\resizebox" not in wide and r"\begin{table*}" in wide   # wide tables span, never shrink to fit
    tables = comparison_latex(c, baseline="base") + wide
    (tmp_path / "tables.tex").write_text(tables)
    (tmp_path / "doc.tex").write_text("\\documentclass[twocolumn]{article}\n\\usepackage[T1]{fontenc}\n"
                                      "\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
                                      "\\input{tables.tex}\nText.\n\\end{document}\n")
    result = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def test_wall_time_is_a_cost_axis_only_on_request():
    recs = spec_records({"a": {"calls": 500, "seconds": 0.01}, "b": {"calls": 500, "seconds": 9.0}})
    for r in recs:
        r.budget = {"calls": 500}
    c = compare(recs, fixed="calls")
    assert plots.cost_units(c.groups[0], "calls") == []
    assert plots.cost_units(c.groups[0], "calls", "seconds") == ["seconds"]
    plot = plots.cost_reward_plot(group_analysis(c.groups[0], recs), "seconds", plots.Style("ab"), "calls")
    assert plot.drawn and plot.fig.axes[0].get_xscale() == "log"  # 0.01 to 9 seconds: decades apart
    plots.close(plot)


def test_run_prints_a_short_summary_and_where_the_report_is(tmp_path, capsys):
    suite = Path(__file__).parent / "data" / "tiny-suite.toml"
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--no-plots", "--backend", "sequential"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 2 and printed[0].startswith("toy at 5 rollouts (fixed rollouts): valid")
    assert printed[-1] == f"full report: {out / 'report.md'} and {out / 'report.html'}"
    assert (out / "report.html").is_file() and not (out / "plots").exists()


def test_compare_markdown_clips_binary_rewards_without_records():
    recs = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B, seeds=5,
                     reward_fn=lambda arm, s: 1.0 if s else (0.0 if arm == "b" else 1.0))
    c = compare(recs, fixed="tokens")
    # exact binomial intervals: inside [0, 1] by construction (a t interval left it and was shown clipped)
    assert all(a.interval == "clopper-pearson" and 0 <= a.ci[0] <= a.mean <= a.ci[1] <= 1 for a in c.groups[0].arms)
    text = comparison_markdown(c)
    assert "Rewards lie in [0, 1]" in text
    for lo, hi in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", text.split("| a ")[0]):
        assert 0 <= float(lo) <= float(hi) <= 1


def test_a_lower_bound_is_rounded_down_never_up():
    from reports.text import quantity
    assert quantity(4253.5, lower_bound=True) == "\u22654,253"
    assert quantity(0.12399, lower_bound=True) == "\u22650.123"
    assert quantity(4253.5) == "4,254"


def test_the_fork_oracle_is_shown_apart_from_the_table(tmp_path, capsys):
    """agentdescent's fork oracle reaches the report, labelled as no result (issue: kept but never shown)."""
    from baselines.cli import main
    from tests.builders import AGENTDESCENT

    out = tmp_path / "sel.jsonl"
    assert main(["import", "agentdescent", str(AGENTDESCENT / "selection-hotpotqa-3seed.json"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    oracle = text[text.index("best alternative (oracle)"):]
    assert "fork-of-3: selected 0.733, best alternative 0.783 over 3 seed(s)" in oracle
    assert "merge-of-3" not in oracle


def test_run_summary_names_the_fixed_unit_in_words_not_its_key():
    """`run` printed "(fixed completion_tokens)" (replay-aime2025) where the report says "completion tokens"."""
    from reports.summary import group_line
    recs = make_arms({"a": {"completion_tokens": 1000}, "b": {"completion_tokens": 1000}}, seeds=3,
                     budget={"completion_tokens": 1000})
    line = group_line(compare(recs, fixed="completion_tokens").groups[0])
    assert line.startswith("w at 1,000 completion tokens (fixed completion tokens): valid"), line
    assert "completion_tokens" not in line


def test_the_column_against_the_baseline_names_its_claim():
    """The column printed the median gain under "vs base (paired)" while `check` prints the mean gain: say which."""
    recs = spec_records({"a": {"tokens": 1000}, "base": {"tokens": 1000}})
    text = comparison_markdown(compare(recs, fixed="tokens", baseline="base"), baseline="base")
    assert "| vs base (paired, typical seed) |" in re.sub(r" +\|", " |", text), text
    text = comparison_markdown(compare(recs, fixed="tokens", baseline="base", claim="mean"), baseline="base")
    assert "| vs base (paired, mean) |" in re.sub(r" +\|", " |", text)



def test_figure_notes_each_end_a_sentence():
    """The caption read "Not drawn: raises (no scored runs) Rewards lie in [0, 1]": a note without its full stop."""
    recs = spec_records({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 12},
                         "dead": {"tokens": 1000, "calls": 10}})
    for r in recs:
        if r.arm == "dead":
            r.error, r.reward = {"type": "ValueError", "message": "boom"}, None
    plot = plots.cost_reward_plot(group_analysis(compare(recs, fixed="tokens").groups[0], recs), "calls",
                                  plots.Style(["a", "b", "dead"]), "tokens")
    notes = [n for n in plot.notes if n.startswith("Not drawn")]
    assert notes and all(n.endswith(".") for n in plot.notes), plot.notes
    plots.close(plot)


def test_an_arm_with_no_scored_runs_is_not_a_confound():
    """An arm that raised on every seed printed '0×' in every confound column and moved the median of the others."""
    recs = spec_records({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 10},
                         "dead": {"tokens": 1000, "calls": 0}})
    for r in recs:
        if r.arm == "dead":
            r.error, r.reward = {"type": "ValueError", "message": "boom"}, None
    group = compare(recs, fixed="tokens").groups[0]
    assert [f.arm for f in group.confounded] == [], group.confounded


def test_the_oracle_and_ranking_headings_speak_of_the_workloads_units():
    """replay's report headed "aime2025 at 30 model calls: the selected choice ..." where every other line says samples."""
    from types import SimpleNamespace
    from reports.run_report import _budget
    ga = SimpleNamespace(group=SimpleNamespace(budget={"calls": 30}, unit_nouns={"calls": "samples"}))
    assert _budget(ga) == "30 samples"


def test_the_caption_names_no_interval_method_for_an_arm_without_scores():
    """The caption read "(distribution-free betting for a, b; Student-t for raises)" for an arm that never scored."""
    from reports.flags import _interval_words
    recs = spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}, "dead": {"tokens": 1000}})
    for r in recs:
        r.reward = 1.0 if (r.seed + (r.arm == "a")) % 2 else 0.0
        r.extra = dict(r.extra or {}, reward_range=[0.0, 1.0])
        if r.arm == "dead":
            r.error, r.reward = {"type": "ValueError", "message": "boom"}, None
    words = _interval_words(compare(recs, fixed="tokens").groups[0])
    assert "dead" not in words, words
