"""docs/notebook.ipynb runs headless, from nothing to a table, a gate and a figure (slow: a kernel and workers)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.ipynb"


@pytest.mark.slow
def test_the_notebook_runs_and_shows_a_table_a_verdict_and_a_figure(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    root = str(NOTEBOOK.parents[1])   # the kernel imports this tree's costmatch, as the tests do
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    table, figures = html
    assert '<div class="costmatch">' in table and "round-robin" in table and "ucb" in table
    assert "Every group verified equal spend in coin flips" in table
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    # every figure the notebook promises (cost-reward, anytime, ranking) is drawn, and the page embeds them all
    drawn = next(line for line in text.splitlines() if line.startswith("drawn: "))
    for kind in ("cost-reward", "anytime", "ranking"):
        assert f"{kind}-" in drawn, drawn
    assert "not drawn: none" in text
    count = len(drawn.removeprefix("drawn: ").split(", "))
    assert figures.count("<svg") >= count and f"{count} figures in the page" in text
    assert text.splitlines()[0] in ("PASS", "FAIL", "INCONCLUSIVE")
    assert str(outputs[0]["data"]["text/plain"]) == "(40, 200)"   # 2 arms x 20 seeds; each spent its 200 flips
