"""The Python API's signatures, rendered with `inspect.signature` for docs/python.md.

Why generated: python.md showed `compare(...)` without its `seed` keyword
and with defaults (`tolerance=0.1`) that are really `None`, "the options'
default" (issue 43). Rendering the signatures from the functions makes a new
keyword appear in the docs by running one command, and the docs test fails
until it is run.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

#: the public callables python.md documents, as `name -> object`; Comparison's methods follow
API_FUNCTIONS = ("run", "compare", "check")


def _annotation(annotation: Any) -> str:
    """An annotation as written (with `from __future__ import annotations` it is already text)."""
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _parameters(fn: Callable[..., Any], drop_self: bool) -> list[str]:
    sig = inspect.signature(fn)
    parts, star_done = [], False
    for param in sig.parameters.values():
        if drop_self and param.name == "self":
            continue
        if param.kind is param.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if param.kind is param.VAR_POSITIONAL:
            star_done = True
        text = param.name
        if param.annotation is not param.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not param.empty:
            text += f" = {param.default!r}" if param.annotation is not param.empty else f"={param.default!r}"
        parts.append(text)
    return parts


def _returns(fn: Callable[..., Any]) -> str:
    ret = inspect.signature(fn).return_annotation
    return "" if ret is inspect.Signature.empty else f" -> {_annotation(ret)}"


def signature_line(name: str, fn: Callable[..., Any], *, drop_self: bool = False, width: int = 100) -> str:
    """`name(params) -> returns`, wrapped between parameters at `width`, aligned under the first."""
    params = _parameters(fn, drop_self)
    indent = " " * (len(name) + 1)
    lines, line = [], f"{name}("
    for i, param in enumerate(params):
        piece = param + (", " if i < len(params) - 1 else "")
        if len(line) + len(piece.rstrip()) > width and line.strip() != f"{name}(":
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line + ")" + _returns(fn))
    return "\n".join(lines)


def comparison_methods() -> dict[str, Callable[..., Any]]:
    """The public methods of `Comparison` (and `_repr_html_`, what a notebook calls), in source order."""
    from ..analysis.compare.comparison import Comparison

    return {name: member for name, member in vars(Comparison).items()
            if inspect.isfunction(member) and (not name.startswith("_") or name == "_repr_html_")}


def render() -> str:
    """One python block: `run`, `compare`, `check`, then each `Comparison` method."""
    import baselines

    lines = [signature_line(name, getattr(baselines, name)) for name in API_FUNCTIONS]
    lines += [signature_line(f"Comparison.{name}", fn, drop_self=True) for name, fn in comparison_methods().items()]
    return "```python\n" + "\n".join(lines) + "\n```\n"
