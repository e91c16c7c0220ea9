"""The HTML report: self-contained, escaped, sortable; and opened in a real headless Chromium."""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from baselines import RunRecord, compare
from baselines.cli import main
from baselines.core.records import write_records
from reports.html import inline_svg, report_html
from reports.run_report import render_report

EVIL = "<script>alert(1)</script>"


def _records() -> list[RunRecord]:
    """Three arms at 1,000 tokens; one has a hostile name, one fails on a seed with a traceback."""
    out = []
    for arm, level, tokens in ((EVIL, 0.3, 1000), ("good", 0.7, 1000), ("mid & co", 0.5, 990)):
        for seed in range(4):
            r = RunRecord("w<b>", arm, seed, {"tokens": tokens, "calls": 10 + seed}, level + 0.05 * seed,
                          budget={"tokens": 1000})
            r.trace = [{"spend": {"tokens": 500, "calls": 5}, "best": level, "reward": level},
                       {"spend": {"tokens": tokens, "calls": 10}, "best": level + 0.05 * seed,
                        "reward": level + 0.05 * seed}]
            out.append(r)
    broken = RunRecord("w<b>", "good", 4, {"tokens": 1000, "calls": 10}, None, budget={"tokens": 1000})
    broken.error = {"type": "ValueError", "message": "bad <input>", "where": "arm.py:3 in run",
                    "traceback": "Traceback (most recent call last):\n  File \"arm.py\", line 3\nValueError: bad <input>"}
    return out + [broken]


def _page(tmp_path=None) -> str:
    records = _records()
    comparison = compare(records, fixed="tokens")
    text, _, _ = render_report(comparison, records, "html", baseline="good")
    return text


def test_page_is_self_contained_and_forbids_network():
    page = _page()
    assert page.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # no external loads of any kind: no src=, no <link>, no url(http...), no @import
    assert not re.search(r"\bsrc\s*=", page)
    assert "<link" not in page and "@import" not in page and not re.search(r"url\(\s*['\"]?https?:", page)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert all(h.startswith("#") for h in hrefs), hrefs
    assert page.count("<svg") >= 2 and "<text" in page  # figures inline, text as text


def test_user_text_is_escaped_everywhere():
    page = _page()
    assert EVIL not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # only the sorting script
    assert "w&lt;b&gt;" in page and "<b>" not in page.replace("<b class=", "")
    assert "mid &amp; co" in page
    assert "bad &lt;input&gt;" in page and "Traceback (most recent call last)" in page


def test_page_has_tables_flags_pairs_seeds_and_errors():
    page = _page()
    assert page.count('<table class="sortable">') >= 3
    assert "Pairs (a \u2212 b, paired by seed)" in page
    assert "Per-seed runs of each arm" in page
    assert 'data-v="1000.0"' in page  # raw numbers for sorting
    assert "seed 4: ValueError: bad &lt;input&gt;" in page
    assert "INCOMPLETE" in page  # 'good' scored 4 of 5 runs


def test_inline_svg_ids_are_prefixed_per_figure():
    svg = ('<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg xmlns="http://www.w3.org/2000/svg"><defs>'
           '<clipPath id="p1"><rect/></clipPath><path id="m2"/></defs><g clip-path="url(#p1)">'
           '<use xlink:href="#m2"/></g></svg>')
    out = inline_svg(svg, "fig3")
    assert out.startswith("<svg") and "<?xml" not in out
    assert 'id="fig3-p1"' in out and "url(#fig3-p1)" in out and 'href="#fig3-m2"' in out
    assert 'id="p1"' not in out


def test_page_ids_are_unique():
    page = _page()
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_report_verb_writes_html(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _records())
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--fixed", "tokens", "--format", "html", "--out", str(out)]) == 0
    page = out.read_text()
    assert "<svg" in page and EVIL not in page
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_run_writes_report_html_listing_exactly_the_files_written(tmp_path, capsys):
    suite = Path(__file__).parent / "data" / "tiny-suite.toml"
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--backend", "sequential"]) == 0
    page = (out / "report.html").read_text()
    listed = re.findall(r'<li class="name">([^<]+)</li>', page.split('id="files"')[1])
    on_disk = sorted(str(p.relative_to(out)) for p in out.rglob("*")
                     if p.is_file() and p.name not in ("results.jsonl", "report.html") and not p.name.startswith("."))
    assert sorted(listed) == on_disk
    md = (out / "report.md").read_text()
    for name in (n for n in on_disk if n.startswith("plots/")):
        assert f"`{name}`" in md


# -- a real browser ------------------------------------------------------------------------
def _chromium() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.mark.slow
def test_html_report_in_headless_chromium(tmp_path):
    tools = _chromium()
    if tools is None:
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    page = tmp_path / "report.html"
    page.write_text(_page(), encoding="utf-8")
    options = Options()
    options.binary_location = tools[0]
    profile = tempfile.mkdtemp(prefix="costmatch-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--window-size=1200,1400",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(tools[1]), options=options)
    try:
        driver.get(page.as_uri())
        assert driver.title.startswith("costmatch")
        # the hostile arm name is text on the page, and nothing ran it
        assert driver.execute_script("return document.querySelectorAll('script').length") == 1
        assert EVIL in driver.find_element(By.TAG_NAME, "body").text
        # sorting: click the reward header of the first table; the arm order changes, twice reverses
        table = driver.find_elements(By.CSS_SELECTOR, "table.sortable")[0]
        headers = table.find_elements(By.CSS_SELECTOR, "thead th")
        reward = next(h for h in headers if h.text.startswith("reward (mean)"))
        order = lambda: [r.find_elements(By.TAG_NAME, "td")[0].text  # noqa: E731
                         for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        before = order()
        reward.click()
        ascending = order()
        reward.click()
        descending = order()
        assert ascending != before or descending != before
        assert ascending == list(reversed(descending))
        assert ascending[0] == EVIL and descending[0] == "good"
        assert reward.get_attribute("aria-sort") == "descending"
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == [], errors
        keep = os.environ.get("COSTMATCH_SCREENSHOT")
        if keep:
            shutil.copy(shot, keep)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_table_captions_sit_above_the_sideways_scroll_box():
    """A <caption> is as wide as its table: at 390 px the confound table's sentence ran on under the
    sideways scroll and was cut at the screen's edge. Captions are now a note above the box."""
    records = []
    for seed in range(6):   # b spends 3x a's tokens at equal rollouts: the page gets its confound table
        records.append(RunRecord("w", "a", seed, {"rollouts": 10, "tokens": 1000}, 0.4 + 0.01 * seed,
                                 budget={"rollouts": 10}))
        records.append(RunRecord("w", "b", seed, {"rollouts": 10, "tokens": 3000}, 0.5 + 0.01 * seed,
                                 budget={"rollouts": 10}))
    page = render_report(compare(records, fixed="rollouts"), records, "html")[0]
    assert "<caption" not in page
    assert re.search(r'<p class="note caption">[^<]*Confounds: spend in other units[^<]*</p><div class="scroll">',
                     page)
