"""Reports: table structure, escaping, captions that follow the flags, figures' structure."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pandas as pd

from baselines import RunRecord, compare
from baselines.cli import main
from baselines.records import write_records
from reports import plots
from reports.markdown import comparison_markdown
from reports.tables import comparison_latex, frame, to_csv
from tests.conftest import make_arms

B = {"tokens": 1000}


def spec_records(spec, seeds=5, **kw):
    return make_arms(spec, seeds=seeds, budget=B, **kw)


def test_latex_is_booktabs_escaped_with_caption_and_label():
    recs = spec_records({"a_b & c%": {"tokens": 1000, "calls": 10}, "base": {"tokens": 1000, "calls": 10}})
    tex = comparison_latex(compare(recs, "tokens"), baseline="base")
    for needed in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{", r"\label{tab:costmatch-w-0}"):
        assert needed in tex
    assert r"a\_b \& c\%" in tex and "a_b & c%" not in tex
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    header = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    assert all(line.count(" & ") == header.count(" & ") for line in body)


def test_caption_changes_when_a_flag_appears():
    ok = comparison_latex(compare(spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}}), "tokens"))
    bad = comparison_latex(compare(spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1600}}), "tokens"))
    assert "Budget held fixed in tokens" in ok and "NOT A LIKE-FOR-LIKE" not in ok
    assert "Budget held fixed" not in bad and "NOT A LIKE-FOR-LIKE" in bad and "b spent 1{,}600" not in bad
    assert "b spent 1,600 tokens" in bad
    conf = comparison_latex(compare(spec_records({"a": {"tokens": 1000, "calls": 10}, "b": {"tokens": 1000, "calls": 10},
                                                  "c": {"tokens": 1000, "calls": 50}}), "tokens"))
    assert "Confounds: c 50 model calls vs a median of 10" in conf


def test_unreported_columns_dropped_in_paper_tables_and_named_in_caption():
    recs = spec_records({"a": {"tokens": 1000, "usd": None}, "b": {"tokens": 1000, "usd": None}})
    tex = comparison_latex(compare(recs, "tokens"))
    assert "Not reported by any arm (no column): dollars" in tex and "dollars &" not in tex
    assert "usd" in comparison_markdown(compare(recs, "tokens")).split("\n\n")[3].splitlines()[0]


def test_partial_unit_gets_lower_bound_marker_in_every_format():
    recs = spec_records({"a": {"tokens": 1000, "calls": 7}, "b": {"tokens": 1000, "calls": 7}})
    for r in recs:
        if r.arm == "b":
            r.partial = ("calls",)
    c = compare(recs, "tokens")
    assert "\u22657" in comparison_markdown(c)
    assert r"$\geq$7" in comparison_latex(c)
    df = frame(c)
    assert list(df.loc[df.arm == "b", "calls_status"]) == ["partial"]


def test_csv_and_frame_agree_and_keep_unreported_as_missing():
    recs = spec_records({"a": {"tokens": 1000, "usd": None}, "b": {"tokens": 1000, "usd": 0.5}})
    c = compare(recs, "tokens")
    df = pd.read_csv(io.StringIO(to_csv(c, baseline="a")))
    assert df.loc[df.arm == "a", "usd_median"].isna().all()
    assert df.loc[df.arm == "b", "usd_median"].iloc[0] == 0.5
    assert df.loc[df.arm == "a", "vs_verdict"].isna().all() and not df.loc[df.arm == "b", "vs_verdict"].isna().any()


def test_numbers_rounded_consistently_within_a_column():
    recs = spec_records({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=8)
    table = comparison_markdown(compare(recs, "tokens")).split("\n\n")[3].splitlines()[2:]
    decimals = {cell.split()[-3].split(".")[1].__len__() for cell in
                [row.strip("|").split("|")[-1] for row in table]}
    assert len(decimals) == 1


def test_pareto_front():
    pts = {"cheap-bad": (1, 0.1), "mid": (2, 0.5), "dominated": (3, 0.4), "expensive-best": (5, 0.9)}
    assert plots.pareto_front(pts) == ["cheap-bad", "mid", "expensive-best"]


def test_unreported_arm_is_not_drawn_and_is_named(tmp_path):
    recs = spec_records({"a": {"tokens": 1000, "usd": 1.0}, "b": {"tokens": 1000, "usd": 2.0},
                         "cli": {"tokens": 1000, "usd": None}})
    c = compare(recs, "tokens")
    files, drawn, left = plots.cost_reward(c.groups[0], recs, "usd", plots.Style(["a", "b", "cli"]),
                                           tmp_path / "cr")
    assert sorted(drawn) == ["a", "b"] and left == ["cli (did not report dollars)"]
    svg = (tmp_path / "cr.svg").read_text()
    assert "Not drawn: cli (did not report dollars)" in svg.replace("\u00a0", " ") or "Not drawn" in svg
    ET.fromstring(svg)  # well-formed


def test_svg_output_is_deterministic(tmp_path):
    recs = spec_records({"a": {"tokens": 1000, "calls": 3}, "b": {"tokens": 1000, "calls": 5}})
    c = compare(recs, "tokens")
    style = plots.Style(["a", "b"])
    plots.cost_reward(c.groups[0], recs, "calls", style, tmp_path / "one")
    plots.cost_reward(c.groups[0], recs, "calls", style, tmp_path / "two")
    assert (tmp_path / "one.svg").read_bytes() == (tmp_path / "two.svg").read_bytes()


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
    g = compare(recs, "rollouts").groups[0]
    ranking = plots.ranking_across_units(g, recs)
    assert ranking["rollouts"]["lavish"][0] == 1 and ranking["tokens"]["frugal"][0] == 1
    assert ranking["tokens"]["lavish"][2] == 2000  # compared at the level every arm reached
    assert ("frugal", "lavish", "tokens", "rollouts") in plots.reversals(ranking)
    assert "**frugal**" in plots.ranking_markdown(ranking)


def test_sweep_crossings():
    series = {"a": [(100, 0.5), (1000, 0.6)], "b": [(100, 0.4), (1000, 0.8)]}
    assert plots.sweep_crossings(series) == [(100, 1000, "a", "b")]


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
            for seed in range(4):
                recs.append(RunRecord("w", arm, seed, {"tokens": budget}, level + 0.01 * seed,
                                      budget={"tokens": budget}))
    c = compare(recs, "tokens")
    files = plots.budget_sweep(c, "w", plots.Style(["a", "b"]), tmp_path / "sweep")
    assert [f.suffix for f in files] == [".png", ".svg"]
    assert "a → b" in (tmp_path / "sweep.svg").read_text() or "a \u2192 b" in (tmp_path / "sweep.svg").read_text()
