"""One inference per pair (issue 27): every decided pair, in every format, prints an interval that excludes 0
on the decided side, and the pairs say which family they were adjusted in.

The report is built from a demo-like results file (four arms, ten seeds, a bounded accuracy workload and an
unbounded one: the demo's mix) with and without --baseline; the bounded pairs were "better" beside a betting
interval spanning 0 before.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import re

import numpy as np
import pytest

from reports.text import tex

from baselines.cli import main

NUM = r"([+\-−]?\d+(?:\.\d+)?)"
BRACKET = re.compile(NUM + r" \[(?:\$)?" + NUM + r"(?:\$)?, (?:\$)?" + NUM + r"(?:\$)?\]")
PAIR_CELL = re.compile(r"(>)\[" + NUM + r", " + NUM + r"\]<")   # a pairs row's interval cell (HTML)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    rng = np.random.default_rng(4)
    arms = {"a": 0.0, "b": 0.15, "c": 0.35, "d": -0.2}
    path = tmp_path_factory.mktemp("demo") / "r.jsonl"
    with open(path, "w") as f:
        for s in range(10):
            base = rng.normal(0, 0.05)
            for arm, eff in arms.items():
                acc = float(np.clip(0.5 + eff + base + rng.normal(0, 0.03), 0, 1))
                f.write(json.dumps({"workload": "acc", "arm": arm, "seed": s, "budget": {"tokens": 100},
                                    "spend": {"tokens": 100}, "reward": acc, "reward_range": [0, 1]}) + "\n")
                f.write(json.dumps({"workload": "raw", "arm": arm, "seed": s, "budget": {"tokens": 100},
                                    "spend": {"tokens": 100},
                                    "reward": float(3 * eff + base + rng.normal(0, 0.1))}) + "\n")
    return str(path)


def _num(text: str) -> float:
    return float(text.replace("−", "-").replace("$", ""))


def _agrees(side: str, lo: float, hi: float) -> bool:
    return lo > 0 if side == "better" else hi < 0


def _out(capsys, args) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


BASELINES = {"all": [], "vs-a": ["--baseline", "a"]}
FAMILY = {"all": "all 6 pairs, Holm", "vs-a": "3 pairs against a, Holm"}


@pytest.fixture(scope="module")
def outputs(results):
    """Every format with and without --baseline, built once in-process: {(format, baseline key): text}."""
    out = {}
    for key, baseline in BASELINES.items():
        for fmt in ("json", "md", "latex", "csv", "html"):
            args = ["compare", results, "--json"] if fmt == "json" else ["report", results, "--format", fmt]
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                assert main(args + baseline) == 0
            out[(fmt, key)] = buffer.getvalue()
    return out


def _decided_json(text: str) -> list[tuple[str, float, float]]:
    out = []
    for group in json.loads(text)["groups"]:
        for p in group["pairs"]:
            if p["verdict"] in ("a>b", "b>a"):
                out.append(("better" if p["verdict"] == "a>b" else "worse", *p["claim_ci"]))   # the claim's interval
    return out


def _decided_md(text: str) -> list[tuple[str, float, float]]:
    """Pairs-table rows (verdict a>b/b>a beside a "[lo, hi]" cell) and baseline cells ("+d [lo, hi] better")."""
    out = []
    for row in text.splitlines():
        cells = [c.strip() for c in row.split("|")]
        for verdict, side in (("a>b", "better"), ("b>a", "worse")):
            if verdict in cells:
                ci = next(c for c in cells if re.fullmatch(r"\[" + NUM + ", " + NUM + r"\]", c))
                out.append((side, *map(_num, ci[1:-1].split(", "))))
        for cell in cells:
            m = BRACKET.search(cell)
            if m and cell.endswith((" better", " worse")):
                out.append((cell.rsplit(" ", 1)[1], _num(m.group(2)), _num(m.group(3))))
    return out


def _decided_latex(text: str) -> list[tuple[str, float, float]]:
    """Rows against the baseline (better/worse) and pairs-table rows (a>b/b>a): LaTeX prints verdicts by default."""
    out = []
    words = {"better": "better", "worse": "worse", tex("a>b"): "better", tex("b>a"): "worse"}
    for r in text.splitlines():
        verdict = words.get(r.rstrip(" \\").rsplit("& ", 1)[-1])
        if verdict:
            lo, hi = re.findall(r"\[([^\]]*)\]", r)[-1].split(", ")
            out.append((verdict, _num(lo), _num(hi)))
    return out


def _decided_csv(text: str) -> list[tuple[str, float, float]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return [(r["vs_verdict"], float(r["vs_ci_low"]), float(r["vs_ci_high"]))
            for r in rows if r.get("vs_verdict") in ("better", "worse")] + \
        [("better" if r["verdict"] == "a>b" else "worse", float(r["ci_low"]), float(r["ci_high"]))
         for r in rows if r.get("kind") == "pair" and r.get("verdict") in ("a>b", "b>a")]


def _decided_html(text: str) -> list[tuple[str, float, float]]:
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", text):
        values = re.findall(r'data-v="([^"]*)"', row)
        for verdict, side in (("a&gt;b", "better"), ("b&gt;a", "worse")):
            if verdict in values:
                m = BRACKET.search(row) or PAIR_CELL.search(row)   # against the baseline, or a pairs row's CI
                out.append((side, _num(m.group(2)), _num(m.group(3))))
    return out


DECIDED = {"json": _decided_json, "md": _decided_md, "latex": _decided_latex, "csv": _decided_csv,
           "html": _decided_html}


@pytest.mark.parametrize("key", BASELINES)
@pytest.mark.parametrize("fmt", DECIDED)
def test_every_decided_pair_in_every_format_has_an_interval_excluding_0(outputs, fmt, key):
    decided = DECIDED[fmt](outputs[(fmt, key)])
    assert len(decided) >= 3   # the unbounded workload decides its pairs (the check is not vacuous)
    for side, lo, hi in decided:
        assert _agrees(side, lo, hi), (side, lo, hi)


@pytest.mark.parametrize("key", BASELINES)
def test_every_format_says_which_family_its_verdicts_belong_to(outputs, key):
    family = FAMILY[key]
    line = f"Family: {family} (a verdict depends on the pairs adjusted with it)."
    data = json.loads(outputs[("json", key)])
    assert {p["family"] for g in data["groups"] for p in g["pairs"]} == {family}
    assert outputs[("md", key)].count(line) == 2    # once per group, below its pairs table
    assert outputs[("html", key)].count(f'<p class="note family">{line}</p>') == (4 if key == "vs-a" else 2)
    # LaTeX prints every pair by default (a note below each pairs table), and with a baseline below its table too
    assert outputs[("latex", key)].count(line + r"\par") == (4 if key == "vs-a" else 2)
    if key == "all":
        assert "vs_family" not in outputs[("csv", key)]
        return
    table = [r for r in csv.DictReader(io.StringIO(outputs[("csv", key)])) if r["kind"] == "arm"]
    assert {r["vs_family"] for r in table if r["arm"] != "a"} == {family}
    assert {r["vs_family"] for r in table if r["arm"] == "a"} == {""}   # the baseline row has no pair


def test_bounded_pairs_the_tests_reject_but_the_interval_spans_0_are_not_decided(results, capsys):
    data = json.loads(_out(capsys, ["compare", results, "--json", "--workload", "acc", "--claim", "mean"]))
    pairs = data["groups"][0]["pairs"]
    spanning = [p for p in pairs if p["ci"][0] <= 0 <= p["ci"][1] and p["p_adjusted"] < 0.05]
    assert spanning and all(p["verdict"] not in ("a>b", "b>a") for p in spanning)
    assert all("includes 0, so the pair is not decided" in " ".join(p["notes"]) for p in spanning)
