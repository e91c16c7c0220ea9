"""Every format says the same thing: each pair's estimate, interval, test, p and verdict, each arm's mean and
interval, identical (same rounding) in markdown, LaTeX, CSV, HTML and JSON (issue 36).

Why a test: the pairs table gave puct - thompson -0.01 [-0.35, +0.34] and the
list below it -0.010 [-0.10, +0.09] for the same runs; the HTML lacked sections
the markdown had. Three inputs: a slice of the demo (`costmatch run`'s
search-sim at equal rollouts, tests/data/agreement/demo-search-sim.toml), a
slice of the replay suite (tests/data/agreement/replay-aime2025.toml, a group
that is not valid), and a hand-made file where b spends 3x a's tokens at
equal rollouts and c reports no tokens. Each is analysed once per module;
the five formats are parsed back and compared cell by cell. CSV and JSON
carry full precision: they must round, with the decimals the analysis chose,
to the text the other formats print.
"""
from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

import pytest

from baselines import RunRecord, compare, read_records
from reports.html import report_html
from reports.run_report import render_report
from reports.text import fixed, interval

DATA = Path(__file__).resolve().parent / "data" / "agreement"


def hand_made() -> list[RunRecord]:
    """b spends 3x a's tokens at equal rollouts and wins on 10 of 10 seeds by 0.15 (spread 0.05); c: no tokens."""
    out = []
    for seed in range(10):
        base = 0.4 + 0.03 * ((seed * 7) % 10) / 10
        spread = 0.05 * (((seed * 3) % 5) - 2) / 2
        out.append(RunRecord("w", "a", seed, {"rollouts": 10, "tokens": 1000}, base, budget={"rollouts": 10}))
        out.append(RunRecord("w", "b", seed, {"rollouts": 10, "tokens": 3000}, base + 0.15 + spread,
                             budget={"rollouts": 10}))
        out.append(RunRecord("w", "c", seed, {"rollouts": 10}, base + 0.02 * (seed % 3), budget={"rollouts": 10}))
    return out


INPUTS = {"demo": lambda: read_records(DATA / "demo-search-sim.jsonl"),
          "replay": lambda: read_records(DATA / "replay-aime2025.jsonl"),
          "confound": hand_made}


@pytest.fixture(scope="module", params=sorted(INPUTS))
def rendered(request):
    records = INPUTS[request.param]()
    analysis = compare(records).analysis(records=records)
    out = {fmt: render_report(analysis, fmt=fmt)[0] for fmt in ("md", "latex", "csv")}
    out["html"] = report_html([("At equal spend", analysis)])   # the report's page without its figures (cost)
    out["json"] = json.dumps(analysis.to_json())
    return request.param, analysis, out


# -- parsing each format back ----------------------------------------------------------------------------
def _plain(text: str) -> str:
    """One spelling of a number or word across formats (LaTeX math minus, thousands, escapes; HTML entities)."""
    text = html.unescape(text)
    for a, b in (("$-$", "-"), ("\u2212", "-"), ("{,}", ","), ("\\textgreater{}", ">"), ("\\%", "%"), ("$", "")):
        text = text.replace(a, b)
    return re.sub(r"<[^>]+>", "", text).strip()


def _md_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append((current[0], [r for r in current[2:]]))
            current = []
    return tables


def _latex_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    out = []
    for block in re.findall(r"\\toprule\n(.*?)\\bottomrule", text, re.S):
        head, _, body = block.partition("\\midrule\n")
        cells = lambda line: [c.strip() for c in re.split(r"(?<!\\)&", re.sub(r"\s*(\\tabularnewline|\\\\)\s*$", "", line))]  # noqa: E731
        rows = [cells(line) for line in body.strip().splitlines()]
        lines = head.strip("\n").splitlines()
        if "\\tabularnewline" in head:   # a wide table's header split over rows at spaces: join each column's parts
            out.append(([" ".join(c for c in column if c) for column in zip(*map(cells, lines))], rows))
        else:
            out.append((cells(lines[0]), rows))
    return out


def _html_tables(text: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    out = {}
    for cls, table in re.findall(r'<table class="sortable (\w+)">(.*?)</table>', text, re.S):
        head = [_plain(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
        rows = [[_plain(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
                for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])]
        out[cls] = (head, rows)
    return out


def _column(headers: list[str], *starts: str) -> int:
    return next(i for i, h in enumerate(headers) if any(_plain(h).startswith(s) for s in starts))


def md_arms(text):
    head, rows = next(t for t in _md_tables(text) if any("(mean, 95% CI)" in h for h in t[0]))
    col = _column(head, "reward (mean", "score (mean")
    return {r[0]: tuple(_plain(r[col]).split(" ", 1)) for r in rows}


def latex_arms(text):
    head, rows = _latex_tables(text)[0]
    mean, ci = _column(head, "reward", "score"), _column(head, "95% CI")
    return {_plain(r[0]): (_plain(r[mean]), _plain(r[ci])) for r in rows}


def html_arms(text):
    head, rows = _html_tables(text)["arms"]
    return {r[0]: (r[1], r[2]) for r in rows}


def md_pairs(text):
    head, rows = next(t for t in _md_tables(text) if t[0][:4] == ["a", "b", "n", "claim"])
    label = head[6][3:-1] if head[6] != "p" else None
    return {(r[0], r[1], r[3]): (r[4], r[5], *_p(r[6], label), r[8]) for r in rows}


def latex_pairs(text):
    head, rows = next(t for t in _latex_tables(text) if t[0][:4] == ["a", "b", "n", "Claim"])
    label = _plain(head[6])[3:-1] if _plain(head[6]) != "p" else None
    return {(_plain(r[0]), _plain(r[1]), _plain(r[3])): (_plain(r[4]), _plain(r[5]), *_p(_plain(r[6]), label),
                                                          _plain(r[8])) for r in rows}


def html_pairs(text):
    head, rows = _html_tables(text)["pairs"]
    label = head[7][3:-1] if head[7] != "p" else None
    return {(r[0], r[1], r[5]): (r[2], r[3], *_p(r[7], label), r[4]) for r in rows}


def _p(cell: str, label: str | None) -> tuple[str, str]:
    """(p text, its test's label): from the column header, or "0.03 (label)" in the cell."""
    if label:
        return cell, label
    value, _, rest = cell.partition(" (")
    return value, rest.rstrip(")")


def _ci(lo, hi, decimals, signed=False):
    return interval(lo, hi, decimals, signed)


def json_arms(text):
    g = json.loads(text)["analysis"]["groups"][0]
    return {a["arm"]: (fixed(a["mean"], g["decimals"]), _ci(a["interval"]["lo"], a["interval"]["hi"], g["decimals"]))
            for a in g["arms"]}


def json_pairs(text):
    g = json.loads(text)["analysis"]["groups"][0]
    d = g["pair_decimals"]
    words = {"typical": "typical seed", "mean": "mean"}
    return {(p["a"], p["b"], words.get(c["claim"], c["claim"]) + (f", {c['about']}" if c.get("about") else "")):
            (fixed(c["estimate"], d, True), _ci(c["interval"]["lo"], c["interval"]["hi"], d, True), f"{c['p']:.3g}",
             c["p_label"], c["verdict_word"]) for p in g["pairs"] for c in p["claims"]}


def _float(x: str):
    return float(x) if x not in ("", None) else None


def csv_arms(text, decimals):
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["kind"] == "arm"]
    mean = next(k for k in rows[0] if k.endswith("_mean"))
    return {r["arm"]: (fixed(_float(r[mean]), decimals), _ci(_float(r["ci_low"]), _float(r["ci_high"]), decimals))
            for r in rows}


def csv_pairs(text, decimals):
    words = {"typical": "typical seed", "mean": "mean"}
    return {(r["a"], r["b"], words.get(r["claim"], r["claim"]) + (f", {r['about']}" if r.get("about") else "")):
            (fixed(_float(r["diff"]), decimals, True), _ci(_float(r["ci_low"]), _float(r["ci_high"]), decimals, True),
             f"{float(r['p']):.3g}", r["p_method"], r["verdict"])
            for r in csv.DictReader(io.StringIO(text)) if r["kind"] == "pair"}


# -- the agreement ---------------------------------------------------------------------------------------
def test_each_arm_mean_and_interval_is_the_same_text_in_every_format(rendered):
    name, analysis, out = rendered
    ga = analysis.groups[0]
    arms = {"md": md_arms(out["md"]), "latex": latex_arms(out["latex"]), "html": html_arms(out["html"]),
            "csv": csv_arms(out["csv"], ga.decimals), "json": json_arms(out["json"])}
    assert len(arms["md"]) == len(ga.arms) >= 3, name
    for fmt, values in arms.items():
        assert values == arms["md"], (name, fmt)


def test_each_pair_estimate_interval_test_p_and_verdict_is_the_same_in_every_format(rendered):
    name, analysis, out = rendered
    ga = analysis.groups[0]
    pairs = {"md": md_pairs(out["md"]), "latex": latex_pairs(out["latex"]), "html": html_pairs(out["html"]),
             "csv": csv_pairs(out["csv"], ga.pair_decimals), "json": json_pairs(out["json"])}
    assert len(pairs["md"]) >= len(ga.pairs) >= 3, name
    for fmt, values in pairs.items():
        assert values == pairs["md"], (name, fmt)


def test_every_format_carries_every_section(rendered):
    """The HTML lacked the ranking, the order-differs list and the oracle the markdown had (issue 36)."""
    name, analysis, out = rendered
    ga = analysis.groups[0]
    if ga.ranking is not None and len(ga.ranking.by_unit) > 1:
        assert "ranking at equal spend" in out["md"] and "Ranking at equal spend" in out["html"]
    if ga.oracle:
        assert "(oracle)" in out["md"] and "(oracle)" in out["html"]
        assert len(re.findall(r"^#### .*\(oracle\)$", out["md"], re.M)) == len(
            {h for h in re.findall(r"^#### (.*)\(oracle\)$", out["md"], re.M)})   # no two identical headings
    assert "Pairs of" in out["latex"]   # LaTeX prints verdicts by default


def test_each_decided_pairs_sentence_prints_the_tables_numbers(rendered):
    """The sentence below the pairs table ("b beats a on the mean (mean gain +0.150 [...])") used 3 significant
    digits where the table printed the column's decimals."""
    name, analysis, out = rendered
    rows = md_pairs(out["md"])
    for p in analysis.groups[0].pairs:
        if p.decided and p.sentence:
            row = rows[(p.a, p.b, p.claims[0].claim_word)]
            numbers = {row[0].lstrip("+-"), *(x.strip().lstrip("+-") for x in row[1].strip("[]").split(","))}
            assert numbers <= set(re.findall(r"\d+\.\d+", p.sentence)), (name, p.sentence, row)
            assert f"- {p.sentence}" in out["md"]
