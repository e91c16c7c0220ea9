"""The report a reviewer signs off, read in headless Chromium at 1400 and 390 px (issue 30).

The demo suite's report and three edited copies of its results (an arm
without token counts, traces with dev scores only, hostile arm names): no
sideways scroll on a phone, a headline per group, no verdict in a NOT VALID
group, and every arm of a group in each of its figures' data (drawn, at a
lower bound, or in the "unknown" strip). Set COSTMATCH_SCREENSHOTS=DIR to
keep the screenshots.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .helpers import chrome_driver

from baselines.cli import main
from tests.report_inputs import EDITS, edited

pytestmark = pytest.mark.slow

VERDICT_WORDS = ("a>b", "b>a", "better", "worse", "n.d.", "underpowered", "no difference detected")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("review")
    demo = root / "demo"
    assert main(["run", "--out", str(demo)]) == 0
    out = {"demo": demo / "report.html"}
    for kind in EDITS:
        results = edited(demo / "results.jsonl", root / f"{kind}.jsonl", kind)
        page = root / f"{kind}.html"
        assert main(["report", str(results), "--format", "html", "--out", str(page)]) == 0
        out[kind] = page
    return out


@pytest.fixture(scope="module")
def driver():
    yield from chrome_driver("costmatch-review-")


GROUPS_JS = """
return Array.from(document.querySelectorAll('h3[id]')).map(function(h){
  var head = h.nextElementSibling, parts = [], el = head;
  while (el && !(el.tagName === 'H3' || el.tagName === 'H2')) { parts.push(el); el = el.nextElementSibling; }
  var verdicts = [];
  parts.forEach(function(p){ p.querySelectorAll('td[data-v]').forEach(function(td){
    if (td.classList.contains('t')) verdicts.push(td.textContent.trim()); }); });
  var arms = [];
  parts.forEach(function(p){ if (p.matches && p.matches('.scroll')) {
    var t = p.querySelector('table'); if (t && !arms.length) t.querySelectorAll('tbody td.name').forEach(
      function(td){ arms.push(td.getAttribute('data-v')); }); } });
  var figs = [];
  parts.forEach(function(p){ p.querySelectorAll('figure[data-arms]').forEach(function(f){
    figs.push({arms: JSON.parse(f.getAttribute('data-arms')), text: f.querySelector('svg').textContent}); }); });
  return {id: h.id, headline: head && head.classList.contains('headline') ? head.textContent : '',
          valid: head ? head.getAttribute('data-valid') : null, verdicts: verdicts, arms: arms, figs: figs};
});
"""


def _check_groups(groups: list[dict]) -> None:
    assert groups, "no group on the page"
    for g in groups:
        assert g["headline"], f"group {g['id']} has no headline"
        if g["valid"] == "false":
            assert "NOT VALID" in g["headline"] or "NOT A COMPARISON" in g["headline"]
            words = [v for v in g["verdicts"] if v and v != "not valid"]
            assert not [v for v in words if v in VERDICT_WORDS], (g["id"], words)
        for fig in g["figs"]:
            if not fig["arms"]:
                continue
            missing = [a for a in g["arms"] if a not in fig["arms"]]
            assert not missing, (g["id"], missing, fig["arms"])
            flat = "".join(fig["text"].split())
            for arm in fig["arms"]:   # and the name is in the drawing itself (a legend may wrap it)
                assert "".join(arm.split())[:12] in flat, (arm, g["id"])


@pytest.mark.parametrize("kind", ["demo", *EDITS])
def test_report_page_reads_right_at_desktop_and_phone_width(pages, driver, kind):
    keep = os.environ.get("COSTMATCH_SCREENSHOTS")
    for width in (1400, 390):
        driver.set_window_size(width, 1000)
        driver.get(pages[kind].as_uri())
        inner = driver.execute_script("return window.innerWidth")
        scroll = driver.execute_script("return document.documentElement.scrollWidth")
        assert scroll <= inner, f"{kind} at {width} px scrolls sideways: {scroll} > {inner}"
        groups = driver.execute_script(GROUPS_JS)
        _check_groups(groups)
        assert driver.execute_script("return document.querySelectorAll('script').length") == 1
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(Path(keep) / f"{kind}-{width}.png"))
    if kind == "no-tokens":
        bad = [g for g in groups if g["valid"] == "false"]
        assert bad and all("ucb1" in g["headline"] for g in bad)
    if kind == "hostile":
        assert json.dumps("<script>alert(1)</script>")[1:-1] in driver.find_element("tag name", "body").text
