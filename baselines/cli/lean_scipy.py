"""Import scipy.special without numpy's f2py and testing tools: about 0.08 s CPU of every analysing verb.

Why: scipy.special loads scipy's bundled array-API layer, which copies
numpy's namespace with ``from numpy import *`` and a ``getattr`` of every
name in ``dir(numpy)``. Both lists name numpy's lazily loaded submodules,
so the copy imports ``numpy.f2py`` (a Fortran wrapper generator, which in
turn loads charset_normalizer and every text codec) and ``numpy.testing``
(unittest, difflib, pydoc): about a quarter of scipy.special's import
(issue 38: `compare` after an append is mostly start-up; ``import numpy,
scipy.special``: medians 0.36 s plainly, 0.28 s so, five runs each). Nothing costmatch
calls reaches them through scipy.

How: for the one ``import scipy.special`` only, numpy's ``__all__`` and
``__dir__`` leave out those two names when they are not imported yet; both
are put back before this returns, whatever happens, so numpy itself is
unchanged (``numpy.testing`` still loads on first use). scipy's private
copy of the namespace lacks the two attributes; scipy uses them only in
its own tests. Any other numpy (no such names, no module ``__dir__``)
gets a plain import. The CLI calls this before it imports the analysis;
a library user's ``import baselines`` does not.
"""
from __future__ import annotations

import sys

#: numpy submodules that scipy's namespace copy would import and nothing here uses through it
TOOLS = ("f2py", "testing")


def import_scipy_special() -> None:
    """Import scipy.special (once), keeping numpy's tool submodules unloaded unless something else loads them."""
    if "scipy.special" in sys.modules:
        return
    import numpy

    skip = {name for name in TOOLS if f"numpy.{name}" not in sys.modules}
    full_all = getattr(numpy, "__all__", None)
    full_dir = numpy.__dict__.get("__dir__")
    if not skip or full_all is None or full_dir is None:
        import scipy.special  # noqa: F401
        return
    numpy.__all__ = [name for name in full_all if name not in skip]
    numpy.__dir__ = lambda: [name for name in full_dir() if name not in skip]
    try:
        import scipy.special  # noqa: F401
    finally:
        numpy.__all__ = full_all
        numpy.__dir__ = full_dir
