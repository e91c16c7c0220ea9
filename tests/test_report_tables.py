"""Tables and pages a reader cannot misread: columns the text promises, short LaTeX captions, the workload's
own unit words, no signed zeros, run notes shown, one ratio style, n/a apart from "not reported"."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines import RunRecord, compare
from baselines.cli import main
from baselines.core.records import write_records
from reports.flags import group_caption
from reports.html import report_html
from reports.markdown import comparison_markdown
from reports.run_report import render_report
from reports.confounds import confound_markdown, confound_ratio
from reports.latex import comparison_latex, parse_columns
from reports.text import fixed, interval
from tests.builders import make_arms
from tests.sizes import examples

B = {"tokens": 1000}


def _no_tokens_records():
    """Three arms on a rollout budget that report calls but neither tokens nor dollars."""
    return make_arms({a: {"rollouts": 10, "calls": c, "tokens": None, "usd": None}
                      for a, c in (("a", 10), ("b", 12), ("c", 11))}, budget={"rollouts": 10}, seeds=4)


def _header(markdown: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith("| arm "))


# -- 1. the fixed unit is always a column --------------------------------------------------------
def test_fixed_unit_keeps_its_column_when_no_arm_reports_it():
    records = _no_tokens_records()
    c = compare(records, fixed="tokens")
    paper = comparison_markdown(c, paper=True)
    assert "tokens" in _header(paper).split("|")[3:][-3] or " tokens " in _header(paper)
    row = next(line for line in paper.splitlines() if line.startswith("| a "))
    assert "\u2014" in row                                  # its cells say "not reported"
    assert "usd" not in _header(paper)                      # a unit nobody reports (and not fixed) is dropped
    tex = comparison_latex(c)
    head = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    assert "Tokens" in head and "USD" not in head
    assert "Not reported by any arm (no column): dollars." in tex and "tokens." not in tex.split("no column")[1][:40]
    page = report_html([("x", c)], records)
    table = page.split("<table")[1]
    assert ">tokens (median)</th>" in table and ">dollars (median)</th>" not in table


def test_a_dropped_unit_is_never_said_to_be_shown_as_a_dash():
    records = make_arms({a: {"tokens": 1000, "usd": None, "seconds": None} for a in ("a", "b")}, budget=B)
    c = compare(records, fixed="tokens")
    paper = comparison_markdown(c, paper=True, compact_confounds=True)
    assert "shown as \u2014" not in paper and "no column" in paper
    full = comparison_markdown(c, paper=False, compact_confounds=True)   # compare: every unit has a column
    assert "shown as \u2014" in full and "no column" not in full
    page = report_html([("x", c)], records)
    assert "shown as \u2014" not in page and "no column" in page


# -- 2. LaTeX with many arms ---------------------------------------------------------------------
def _many_arms(n=32, seeds=5, workload="w"):
    out = []
    for i in range(n):
        for s in range(seeds):
            out.append(RunRecord(workload, f"provider-model-name/policy-number-{i:02d}", s,
                                 {"rollouts": 10, "calls": 10 + 7 * i, "tokens": 1000 * (1 + i),
                                  "usd": 0.01 * (1 + i), "prompt_tokens": 700 * (1 + i)},
                                 0.5 + 0.01 * i + 0.01 * s, budget={"rollouts": 10}))
    return out


def _captions(tex: str) -> list[str]:
    """The mandatory argument of every \\caption[short]{...} (braces balanced)."""
    out = []
    for m in re.finditer(r"\\caption\[[^\]]*\]\{", tex):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(tex[i], 0)
            i += 1
        out.append(tex[m.end():i - 1])
    return out


def test_latex_caption_stays_short_for_32_arms_and_confounds_go_to_their_own_table():
    tex = comparison_latex(compare(_many_arms(), fixed="rollouts"))
    captions = _captions(tex)
    assert len(captions) == 3                        # the results, their confounds and the pairs (verdicts by default)
    assert all(len(c) < 600 for c in captions), [len(c) for c in captions]
    assert "policy-number" not in captions[0]                      # no per-arm text in the caption
    assert "Confounded: dollars, model calls, prompt tokens, tokens" in captions[0]
    assert r"\ref{tab:costmatch-w-0-confounds}" in captions[0]
    conf = tex.split(r"\label{tab:costmatch-w-0-confounds}")[1].split(r"\label{tab:costmatch-w-0-pairs}")[0]
    assert conf.count("policy-number-") == 28       # arms 14-17 are within the tolerance in every unit
    assert r"\resizebox" not in tex and "graphicx" not in tex


def test_long_arm_names_wrap_instead_of_the_table_shrinking():
    records = _many_arms(n=4, seeds=6)
    base = "provider-model-name/policy-number-00"
    tex = comparison_latex(compare(records, fixed="rollouts"), baseline=base, columns=parse_columns(
        "arm,seeds,spend,mean,ci,diff,diff_ci,verdict", ["rollouts", "calls", "tokens", "usd", "prompt_tokens"]))
    assert r"\resizebox" not in tex
    spec = re.search(r"\\begin\{tabular\}\{([^}]*(?:\{[^}]*\}[^}]*)*)\}", tex).group(1)
    assert spec.startswith("p{")                                    # the arm column wraps
    assert r"\allowbreak{}" in tex and r"\tabularnewline" in tex   # a name may break after its slash


def test_a_table_taller_than_a_page_says_so_in_the_tex():
    records = _many_arms()
    fits = comparison_latex(compare(records, fixed="rollouts"))
    assert "taller than a page" not in fits
    tall = comparison_latex(compare(records, fixed="rollouts"), baseline="provider-model-name/policy-number-00")
    assert "% taller than a page at this size: choose fewer columns with --columns" in tall


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex (apt-get install texlive-latex-base)")
def test_many_arm_tables_compile_and_fit_the_page(tmp_path):
    records = _many_arms()
    base = "provider-model-name/policy-number-00"
    tables = (comparison_latex(compare(records, fixed="rollouts"))
              + comparison_latex(compare(_many_arms(n=6, workload="v"), fixed="rollouts"), baseline=base))
    (tmp_path / "t.tex").write_text(tables)
    (tmp_path / "doc.tex").write_text("\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n"
                                      "\\begin{document}\n\\input{t.tex}\nText.\n\\end{document}\n")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert "Float too large" not in log and "Dimension too large" not in log
    assert not re.search(r"Overfull \\hbox \((\d+)\.", log) or all(
        float(w) < 20 for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt", log)), log[-2000:]


# -- 3. the workload's own unit words in HTML ----------------------------------------------------
def test_html_names_units_in_the_workloads_words(tmp_path):
    records = []
    for arm in ("cma", "nm"):
        for s in range(3):
            r = RunRecord("bbob", arm, s, {"calls": 500}, 0.1 * s + (0.2 if arm == "nm" else 0),
                          budget={"calls": 500})
            r.extra["unit_nouns"] = {"calls": "function evaluations"}
            records.append(r)
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["report", str(path), "--format", "html", "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "at 500 function evaluations" in page and "model calls" not in page
    assert ">function evaluations</th>" in page


# -- 4. no signed zeros --------------------------------------------------------------------------
def test_small_nonzero_estimates_keep_a_significant_digit():
    assert fixed(-0.0333, 1, signed=True) == "-0.03"
    assert fixed(0.0333, 1, signed=True) == "+0.03"
    assert fixed(0.0, 1, signed=True) == "0.0" and fixed(-0.0, 1, signed=True) == "0.0"
    assert fixed(0.25, 1, signed=True) == "+0.2"                    # not near zero: the column's decimals
    assert fixed(-3e-9, 2, signed=True) == "-3e-09"                 # beyond six decimals: e-notation
    assert interval(-1.0, 0.04, 1, signed=True) == "[-1.0, +0.04]"


@settings(deadline=None, max_examples=examples(300))
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), st.integers(0, 6),
       st.booleans())
def test_fixed_never_prints_a_zero_that_is_not_one(value, decimals, signed):
    text = fixed(value, decimals, signed)
    assert float(text) == 0.0 if value == 0 else float(text) != 0.0
    assert not text.startswith(("-0.0", "+0.0")) or float(text) != 0.0
    if value != 0:
        assert (float(text) > 0) == (value > 0)


def test_pair_differences_in_reports_are_not_signed_zeros():
    # rewards in [0, 1] at 3 seeds: the betting interval is [-1, +1] (one decimal), the difference -1/30
    records = []
    for arm, rewards in (("a", (0.6, 0.9, 0.65)), ("b", (0.7, 0.8, 0.75))):
        for seed, reward in enumerate(rewards):
            r = RunRecord("w", arm, seed, {"tokens": 1000}, reward, budget=B)
            r.extra["reward_range"] = [0, 1]
            records.append(r)
    c = compare(records, fixed="tokens", claim="mean")   # the mean claim's difference is the one printed
    text = comparison_markdown(c, baseline="b")
    assert "-0.03 [-1.0, +1.0]" in text and "| -0.03 " in text       # the arm table and the pairs table
    assert not re.search(r"[-+]0\.0\b", text)
    page = report_html([("x", c)], records, baseline="b")
    assert not re.search(r">[-+]0\.0<", page) and ">-0.03<" in page
    tex = comparison_latex(c, baseline="b")
    assert "$-$0.03 &" in tex


# -- 5. run notes --------------------------------------------------------------------------------
NOTE = ("fork 2001 (not selected): test_eval failed: APITimeoutError | <script>x</script> "
        + "timed out " * 60)


def _noted_records():
    records = make_arms({"fork": {"tokens": 1000}, "serial": {"tokens": 1000}}, budget=B, seeds=3)
    records[1].extra["notes"] = [NOTE]
    return records


def test_run_notes_are_listed_in_markdown_with_arm_and_seed(tmp_path, capsys):
    records = _noted_records()
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["report", str(path), "--format", "md"]) == 0
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if l.startswith("- **fork**, seed 1: fork 2001"))
    assert "\\|" in line and "<script>" not in line and "&lt;script&gt;" in line
    assert len(line) < 320 and line.endswith("\u2026")              # truncated, and says so
    assert "Run notes from the records (1)" in out


def test_run_notes_are_a_column_of_the_html_seed_table():
    records = _noted_records()
    page, _, _ = render_report(compare(records, fixed="tokens"), records, "html")
    assert ">notes</th>" in page and "1 run(s) with notes" in page
    cell = re.search(r'<td class="t note" title="([^"]*)">([^<]*)</td>', page)
    assert cell and cell.group(2).startswith("fork 2001") and cell.group(2).endswith("\u2026")
    assert "<script>x" not in page and "&lt;script&gt;x" in page
    assert "timed out timed out" in cell.group(1) and len(cell.group(1)) > len(cell.group(2))


def test_no_notes_column_without_notes():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B, seeds=3)
    page, _, _ = render_report(compare(records, fixed="tokens"), records, "html")
    assert ">notes</th>" not in page.split("Per-seed runs")[1]


# -- 6. nits -------------------------------------------------------------------------------------
def test_one_seed_is_singular_and_its_undefined_interval_is_n_a_not_a_dash():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B, seeds=1)
    c = compare(records, fixed="tokens")
    caption = group_caption(c.groups[0], "tokens", 0.1)
    assert "1 seed per arm" in caption and "1 seeds" not in caption
    assert "n/a = not defined" in caption
    md_row = next(l for l in comparison_markdown(c).splitlines() if l.startswith("| a "))
    assert md_row.rstrip(" |").endswith("n/a") and "\u2014" not in md_row.split("|")[-2]
    page = report_html([("x", c)], records)
    first = page.split("<tbody>")[1].split("</tr>")[0]
    assert first.count(">n/a</td>") == 1                             # the interval (one cell, as in md)
    assert "n/a = not defined" in page


def test_missing_dev_score_is_n_a_in_the_seed_table():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B, seeds=2)
    page, _, _ = render_report(compare(records, fixed="tokens"), records, "html")
    seed_rows = page.split("Per-seed runs")[1].split("<tbody>")[1].split("</tr>")[0]
    assert seed_rows.count(">n/a</td>") == 1 and "\u2014" not in seed_rows


def test_confound_ratios_use_one_style():
    assert [confound_ratio(s, 100) for s in (35, 78, 120, 300, 1500)] == \
        ["0.35\u00d7", "0.78\u00d7", "1.2\u00d7", "3\u00d7", "15\u00d7"]
    spec = {f"arm{i}": {"tokens": 1000, "calls": c} for i, c in enumerate((5, 8, 10, 10, 12, 30))}
    table = confound_markdown(compare(make_arms(spec, budget=B), fixed="tokens").groups[0], 0.1)
    cells = [c.strip() for line in table.splitlines()[4:] for c in line.strip("|").split("|")[1:] if c.strip()]
    assert cells and all(c.endswith("\u00d7") for c in cells) and not any("%" in c for c in cells)


def test_latex_minus_signs_and_no_claim_about_differences_it_does_not_show():
    recs = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 550}, "c": {"tokens": 1000}}, budget=B)
    c = compare(recs, fixed="tokens")
    plain = comparison_latex(c)
    assert "Differences are per-seed paired" not in plain           # no difference column here
    assert "$-$45\\%" in plain and "-45\\%" not in plain.replace("$-$45", "")
    with_diff = comparison_latex(c, baseline="a")
    assert "Differences are per-seed paired" in with_diff
    only_means = comparison_latex(c, baseline="a", columns=parse_columns("arm,mean,ci", ["tokens"]))
    assert "Differences are per-seed paired" not in only_means


def test_the_report_itself_carries_the_comparisons_warnings():
    """A resumed run with edited code: `compare` warned on stderr, report.md and report.html said nothing."""
    from baselines import compare
    from reports.html import report_html
    from reports.markdown import comparison_markdown
    from tests.builders import make_arms

    recs = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget={"calls": 10}, seeds=4)
    for r in recs:
        r.extra["provenance"] = {"costmatch": "0.1", "arm_module": "x" if r.seed < 2 else "y", "workload_module": "w"}
    c = compare(recs, fixed="calls")
    assert "warning: arm 'a' on workload 'w' ran from different code" in comparison_markdown(c)
    assert "warning: arm &#x27;a&#x27; on workload &#x27;w&#x27; ran from different code" in report_html([("r", c)], recs) \
        or "warning: arm 'a' on workload 'w' ran from different code" in report_html([("r", c)], recs)


def test_a_split_header_never_breaks_math():
    """Failed before: the pairs table's "$a - b$" header was split into "$a" / "- b$" once the Claim column made
    the table wide enough to split headers, and pdflatex stopped at "Extra }, or forgotten $"."""
    from reports.latex_layout import split_header

    assert split_header("$a - b$") == ["$a - b$"]
    assert split_header("p (sign test)") == ["p (sign", "test)"]
    assert split_header(r"cost \$ per $x y$ run") == [r"cost \$ per", "$x y$ run"]
    for header in ("$a - b$ per seed", "mean $a - b$"):
        assert all(line.count("$") % 2 == 0 for line in split_header(header))
