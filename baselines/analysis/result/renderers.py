"""Renderers registered by name: how `Comparison.to_markdown()` and `run(out=...)` reach reports/ without importing it.

Why a registry: reports/ sits above the analysis and the API in the layer
order (tests/test_layers.py); an import from `baselines.api` to
`reports.run_report` was the one cycle left (baselines -> api -> reports ->
baselines). A renderer module registers its entry points when imported; a
caller asks for one by name, and the module named in RENDERER_MODULES is
loaded on first use (so a worker or `import baselines` never pays for
matplotlib).
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

#: renderer name -> the module that registers it when imported
RENDERER_MODULES = {"views": "reports.views", "run_report": "reports.run_report"}
_REGISTERED: dict[str, Any] = {}


def register(name: str, renderer: Any) -> None:
    """Called by a renderer module on import (`reports.views`, `reports.run_report`)."""
    _REGISTERED[name] = renderer


def renderer(name: str) -> Any:
    """The registered renderer `name`, loading its module by name on first use."""
    if name not in _REGISTERED:
        importlib.import_module(RENDERER_MODULES[name])
    return _REGISTERED[name]


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call the registered callable `name` (a function, e.g. `run_report`'s `write_run_report`)."""
    fn: Callable[..., Any] = renderer(name)
    return fn(*args, **kwargs)
