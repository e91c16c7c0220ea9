"""The CLI's scipy.special import leaves numpy's f2py and testing unloaded, and numpy unchanged.

A fresh interpreter (this is about a process's imports: pytest has loaded
numpy.testing already, where the import is a plain one). If the control
fails, scipy no longer copies those submodules: lean_scipy can go.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.process

PROBE = """
import json, sys
import numpy
names, listed = sorted(numpy.__all__), sorted(dir(numpy))
from baselines.cli.lean_scipy import import_scipy_special
import_scipy_special()
import scipy.special
loaded = {m: m in sys.modules for m in ("numpy.f2py", "numpy.testing", "charset_normalizer", "unittest")}
same = sorted(numpy.__all__) == names and sorted(dir(numpy)) == listed
value = float(scipy.special.stdtrit(5, 0.975))
import numpy.testing  # still importable on first use, after the patch is gone
print(json.dumps({"loaded": loaded, "same": same, "value": value, "testing": hasattr(numpy, "testing")}))
"""


def _probe(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.smoke
def test_scipy_special_loads_without_numpy_tools_and_numpy_is_restored():
    got = _probe(PROBE)
    assert got["loaded"] == {"numpy.f2py": False, "numpy.testing": False, "charset_normalizer": False,
                             "unittest": False}
    assert got["same"], "numpy.__all__ or dir(numpy) changed after the import"
    assert abs(got["value"] - 2.5705818356363146) < 1e-12
    assert got["testing"]


def test_a_plain_scipy_import_does_load_them():
    """The control: without the function, scipy.special drags both in (else the test above proves nothing)."""
    got = _probe("import json, sys, scipy.special\n"
                 "print(json.dumps({'loaded': {m: m in sys.modules for m in ('numpy.f2py', 'numpy.testing')}}))")
    assert got["loaded"] == {"numpy.f2py": True, "numpy.testing": True}


def test_the_compare_path_imports_it_first():
    got = _probe("import json, sys\nimport baselines.cli.results\n"
                 "print(json.dumps({'loaded': {m: m in sys.modules for m in ('numpy.f2py', 'numpy.testing')}}))")
    assert got["loaded"] == {"numpy.f2py": False, "numpy.testing": False}


def test_already_imported_is_a_no_op():
    got = _probe("import json, sys, numpy.testing, scipy.special\n"
                 "from baselines.cli.lean_scipy import import_scipy_special\nimport_scipy_special()\n"
                 "print(json.dumps({'loaded': {'numpy.testing': 'numpy.testing' in sys.modules}}))")
    assert got["loaded"] == {"numpy.testing": True}
