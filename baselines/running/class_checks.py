"""Is the class a suite names really an arm or a workload, and do its params fit its constructor?

Why a check this deep before any cell runs: a suite naming
``threading:Thread`` (it has a ``run`` method), a base class whose method
only raises ``NotImplementedError``, or ``params = { c = "0.5" }`` for a
float parameter passed ``plan`` and every construction, and then every cell
failed in ``run`` (issue 31). Each is found here, at load time, as one line
naming the key and the fix.

Parameter types are read from the constructor's annotations (``float``,
``int``, ``str``, ``bool``; ``X | None`` allows null, which TOML cannot
write anyway) or, without one, from the default's type (a number default
takes any number, since ``temperature=1`` is often given 0.7). Anything
else (unions, containers, custom types) is left to the constructor.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
import typing
from typing import Any

from ..core.errors import InputError
from ..core.json_line import quote

#: the methods a suite's class must take, with the arguments costmatch passes
PROTOCOL_CALLS = {"arm": {"run": ("instance", "meter", "rng")},
                  "workload": {"instance": ("seed",), "score": ("instance", "choice")}}

_NUMBER = (int, float)


def check_class(cls: Any, kind: str, where: str) -> None:
    """InputError unless `cls` is a concrete class whose protocol methods take costmatch's arguments."""
    if not inspect.isclass(cls):
        return  # a factory function: the instance is checked after construction
    name = cls.__name__
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise InputError(f"{where}: {name} is an abstract class (it does not define {missing}); name a "
                         f"subclass that does")
    stub = _stub_method(cls, PROTOCOL_CALLS[kind])
    if stub is not None:
        raise InputError(f"{where}: {name}.{stub} only raises NotImplementedError: {name} is a base class; "
                         f"name a subclass that defines {stub}")
    for method, args in PROTOCOL_CALLS[kind].items():
        function = getattr(cls, method, None)
        if function is None:
            continue  # the protocol check after construction names what is missing
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):  # a builtin without a signature: nothing to check
            continue
        try:
            signature.bind(None, *args)  # self, then what the runner passes
        except TypeError:
            raise InputError(f"{where}: {name}.{method}{signature} does not take {method}({', '.join(args)}); "
                             f"the path must name {'an arm' if kind == 'arm' else 'a workload'} class "
                             "(see baselines/core/protocols.py)") from None


def _stub_method(cls: type, protocol: dict) -> str | None:
    """A method the protocol calls (or one they call by name) whose body only raises NotImplementedError.

    Only those: an optional hook that raises NotImplementedError to mean
    "not supported" is a class's own business until something calls it.
    """
    called = set(protocol)
    for name in protocol:
        function = inspect.getattr_static(cls, name, None)
        called |= set(getattr(getattr(function, "__code__", None), "co_names", ()))
    for name in sorted(called):
        function = inspect.getattr_static(cls, name, None)
        if isinstance(function, (staticmethod, classmethod)):
            function = function.__func__
        if isinstance(function, types.FunctionType) and "NotImplementedError" in function.__code__.co_names \
                and _only_raises(function):
            return name
    return None


def _only_raises(function: types.FunctionType) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0])


def check_params(cls: Any, params: dict, where: str) -> None:
    """InputError when a param's TOML value has a type the constructor's annotation or default rules out."""
    if not params:
        return
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return
    try:
        hints = typing.get_type_hints(cls.__init__ if inspect.isclass(cls) else cls)
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate: fall back to defaults
        hints = {}
    for key, value in params.items():
        parameter = signature.parameters.get(key)
        if parameter is None:
            continue  # unknown names are the constructor's TypeError, already one line
        wanted = _wanted(hints.get(key, parameter.annotation), parameter.default)
        if wanted is not None and not _fits(value, wanted):
            raise InputError(f"{where}: {key} = {quote(value)} is not {_noun(wanted)}, which "
                             f"{getattr(cls, '__name__', 'the constructor')} takes for {key}; "
                             f"write {_example(wanted)}")


def _wanted(annotation: Any, default: Any) -> type | None:
    """float, int, str or bool when the annotation (or, lacking one, the default) says so; else None."""
    if annotation is not inspect.Parameter.empty and not isinstance(annotation, str):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
            annotation = args[0]
        return annotation if annotation in (float, int, str, bool) else None
    if default is inspect.Parameter.empty or default is None:
        return None
    if isinstance(default, bool):
        return bool
    if isinstance(default, _NUMBER):
        return float  # any number: an int default is often given a float
    return str if isinstance(default, str) else None


def _fits(value: Any, wanted: type) -> bool:
    if isinstance(value, bool):
        return wanted is bool
    if wanted is float:
        return isinstance(value, _NUMBER)
    return isinstance(value, wanted)


def _noun(wanted: type) -> str:
    return {float: "a number", int: "a whole number", str: "a string", bool: "true or false"}[wanted]


def _example(wanted: type) -> str:
    return {float: "a number without quotes (c = 0.5)", int: "a whole number without quotes (n = 3)",
            str: 'a string in quotes (name = "x")', bool: "true or false without quotes"}[wanted]
