"""One inference per pair (issue 27): every decided pair, in every format, prints an interval that excludes 0
on the decided side, and the pairs say which family they were adjusted in.

The report is built from a demo-like results file (four arms, ten seeds, a bounded accuracy workload and an
unbounded one: the demo's mix) with and without --baseline; the bounded pairs were "better" beside a betting
interval spanning 0 before.
"""
from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest

from baselines.cli import main

NUM = r"([+\-−]?\d+(?:\.\d+)?)"
BRACKET = re.compile(NUM + r" \[(?:\$)?" + NUM + r"(?:\$)?, (?:\$)?" + NUM + r"(?:\$)?\]")


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


@pytest.mark.parametrize("baseline", [[], ["--baseline", "a"]])
def test_every_decided_pair_in_every_format_has_an_interval_excluding_0(results, capsys, tmp_path, baseline):
    decided = 0
    data = json.loads(_out(capsys, ["compare", results, "--json"] + baseline))
    for group in data["groups"]:
        for p in group["pairs"]:
            assert p["family"].endswith("Holm")
            if p["verdict"] in ("a>b", "b>a"):
                decided += 1
                assert _agrees("better" if p["verdict"] == "a>b" else "worse", *p["ci"])
    assert decided >= 3   # the unbounded workload decides its pairs
    md = _out(capsys, ["report", results, "--format", "md"] + baseline)
    for row in md.splitlines():
        cells = [c.strip() for c in row.split("|")]
        for verdict, side in (("a>b", "better"), ("b>a", "worse"), ("better", "better"), ("worse", "worse")):
            for cell in cells:
                m = BRACKET.search(cell)
                if m and (cell.endswith(f" {side}") or verdict in cells):
                    assert _agrees(side, _num(m.group(2)), _num(m.group(3))) or verdict not in cells, row
    assert "Family: all 6 pairs, Holm" in md or "Family: 3 pairs against a, Holm" in md
    if baseline:
        latex = _out(capsys, ["report", results, "--format", "latex"] + baseline)
        rows = [r for r in latex.splitlines() if r.rstrip(" \\").endswith(("better", "worse"))]
        assert rows
        for r in rows:
            lo, hi = re.findall(r"\[([^\]]*)\]", r)[-1].split(", ")
            assert _agrees("better" if r.rstrip(" \\").endswith("better") else "worse", _num(lo), _num(hi)), r
        table = list(csv.DictReader(io.StringIO(_out(capsys, ["report", results, "--format", "csv"] + baseline))))
        for r in table:
            if r["vs_verdict"] in ("a>b", "b>a"):
                side = "better" if r["vs_verdict"] == "a>b" else "worse"
                assert _agrees(side, float(r["vs_ci_low"]), float(r["vs_ci_high"])), r
    html = _out(capsys, ["report", results, "--format", "html"] + baseline)
    for row in re.findall(r"<tr>(.*?)</tr>", html):
        values = re.findall(r'data-v="([^"]*)"', row)
        for verdict, side in (("a&gt;b", "better"), ("b&gt;a", "worse")):
            if verdict in values:
                m = BRACKET.search(row)
                lo, hi = (_num(m.group(2)), _num(m.group(3))) if m else (float(values[2]), float(values[3]))
                assert _agrees(side, lo, hi), row


def test_bounded_pairs_the_tests_reject_but_the_interval_spans_0_are_not_decided(results, capsys):
    data = json.loads(_out(capsys, ["compare", results, "--json", "--workload", "acc"]))
    pairs = data["groups"][0]["pairs"]
    spanning = [p for p in pairs if p["ci"][0] <= 0 <= p["ci"][1] and p["p_adjusted"] < 0.05]
    assert spanning and all(p["verdict"] not in ("a>b", "b>a") for p in spanning)
    assert all("includes 0, so the pair is not decided" in " ".join(p["notes"]) for p in spanning)
