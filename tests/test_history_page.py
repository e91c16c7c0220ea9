"""A 30-commit gate history from real `costmatch run` outputs, drawn and read in headless Chromium (issue 40).

The suite's candidate arm keeps its level for 15 commits and then loses 0.04
(a parameter that degrades at commit 15); every commit is run, checked
against the base and against the release's results (commit 0) as the pinned
reference, and appended to one history. The page must show every commit's
point, mark the step at commit 15, and not scroll sideways at 1400 or 390 px.
COSTMATCH_SCREENSHOTS=DIR keeps the screenshots.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from .helpers import chrome_driver

from baselines.cli import main

pytestmark = pytest.mark.slow

SUITE = """
seeds = 10
[arms.baseline]
path = "tests.history_arms:Shifted"
params = {{ shift = 0.0, salt = 1 }}
[arms.candidate]
path = "tests.history_arms:Shifted"
params = {{ shift = {shift}, salt = {salt} }}
[[workloads]]
name = "level"
path = "tests.history_arms:Level"
fixed = "rollouts"
budget = {{ rollouts = 1 }}
arms = ["baseline", "candidate"]
"""
COMMITS, STEP_AT = 30, 15


def sha(k: int) -> str:
    return hashlib.sha1(f"commit {k}".encode()).hexdigest()


def _run(root: Path, k: int, shift: float) -> Path:
    suite = root / f"suite{k}.toml"
    suite.write_text(SUITE.format(shift=shift, salt=100 + k))
    out = root / f"c{k}"
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--backend", "sequential"]) == 0
    return out / "results.jsonl"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("history")
    for name in ("GITHUB_SHA", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_STEP_SUMMARY"):
        os.environ.pop(name, None)
    reference = _run(root, 0, 0.0)
    history = root / "history.jsonl"
    codes = []
    for k in range(1, COMMITS + 1):
        results = _run(root, k, 0.0 if k < STEP_AT else -0.04)
        codes.append(main(["check", str(results), "--baseline", "baseline", "--candidate", "candidate",
                           "--margin", "0.05", "--history", str(history), "--commit", sha(k), "--branch", "main",
                           "--reference", str(reference), "--reference-label", "v1.2"]))
    assert main(["history", str(history), "--out", str(root / "page"), "--json"]) == 0
    return root, history, codes


def test_the_history_holds_every_commit_and_finds_the_step(built, capsys):
    root, history, codes = built
    lines = [json.loads(x) for x in history.read_text().splitlines()]
    assert [x["commit"] for x in lines] == [sha(k) for k in range(1, COMMITS + 1)]
    assert [x["drift"]["look"] for x in lines] == list(range(1, COMMITS + 1))
    assert set(codes) <= {0, 3, 4}
    assert main(["history", str(history), "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    steps = group["steps"]["steps"]
    assert [s["commit"] for s in steps] == [sha(STEP_AT)]
    assert steps[0]["interval"][0] < -0.04 + 0.02 and steps[0]["interval"][1] < 0
    assert group["series"] == "candidate - v1.2 reference"


@pytest.fixture(scope="module")
def driver():
    yield from chrome_driver("costmatch-history-")


PROBE = """
var inner = window.innerWidth, svg = document.querySelector('figure.chart svg').getBoundingClientRect();
var box = document.querySelector('figure.chart').getBoundingClientRect();
var pts = Array.from(document.querySelectorAll('a.point')).map(function(a){
  var r = a.querySelector('circle').getBoundingClientRect();
  return {commit: a.getAttribute('data-commit'), href: a.getAttribute('href'),
          visible: r.width > 0 && r.left >= svg.left - 1 && r.right <= svg.right + 1};});
var text = Array.from(document.querySelectorAll('figure.chart svg text')).map(function(t){
  return t.getBoundingClientRect().height;}).filter(function(h){ return h > 0; });
var steps = Array.from(document.querySelectorAll('g.step')).map(function(g){
  var r = g.getBoundingClientRect(); return {commit: g.getAttribute('data-commit'), visible: r.height > 0};});
return {inner: inner, scroll: document.documentElement.scrollWidth, points: pts, steps: steps,
        box_right: box.right, smallest_text: Math.min.apply(null, text),
        targets: pts.filter(function(p){ return p.href[0] !== '#' || document.getElementById(p.href.slice(1)); }).length};
"""


def test_the_page_shows_every_point_and_the_step_at_desktop_and_phone_width(built, driver):
    root, _, _ = built
    page = root / "page" / "history.html"
    keep = os.environ.get("COSTMATCH_SCREENSHOTS")
    for width in (1400, 390):
        driver.set_window_size(width, 1000)
        driver.get(page.as_uri())
        got = driver.execute_script(PROBE)
        assert got["scroll"] <= got["inner"], f"scrolls sideways at {width} px: {got['scroll']} > {got['inner']}"
        assert [p["commit"] for p in got["points"]] == [sha(k) for k in range(1, COMMITS + 1)]
        assert all(p["visible"] for p in got["points"]), [p for p in got["points"] if not p["visible"]]
        assert got["box_right"] <= got["inner"] + 1     # the chart scrolls inside its own box, never the page
        # chart text was ~4 px tall at 390 px (a 900-unit viewBox scaled to the phone); 11 px boxes = ~9 px type
        assert got["smallest_text"] >= 11, f"chart text {got['smallest_text']:.1f} px tall at {width} px"
        assert got["targets"] == COMMITS     # every point links somewhere that exists
        assert got["steps"] == [{"commit": sha(STEP_AT), "visible": True}]
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(Path(keep) / f"history-{width}.png"))
