"""The record fields of docs/contract.md, rendered from the record schema (baselines/data/record.schema.json).

Why one machine-readable place: the contract described fields in twelve
subsections and missed seven the tool writes (`workload_params`,
`parallel_seconds`, ...; issue 43). The JSON Schema is the definition; this
renders it as the contract's field table, and `tests/test_record_schema.py`
validates what the tool writes against it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "data" / "record.schema.json"


def load_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    target: Any = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _type(node: dict[str, Any]) -> str:
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " \\| ".join(json.dumps(v) for v in node["enum"])
    if "anyOf" in node:
        return " \\| ".join(_type(n) for n in node["anyOf"])
    kind = node.get("type", "any")
    return " \\| ".join(kind) if isinstance(kind, list) else kind


def fields(root: dict[str, Any] | None = None) -> Iterator[tuple[str, str, str]]:
    """(dotted name, type, meaning) of every field the schema names, depth first, in schema order."""
    root = root or load_schema()

    def walk(node: dict[str, Any], prefix: str) -> Iterator[tuple[str, str, str]]:
        for name, child in node.get("properties", {}).items():
            child = _resolve(child, root)
            path = f"{prefix}{name}"
            yield path, _type(child), " ".join(child.get("description", "").split())
            yield from walk(child, path + ".")
            items = child.get("items")
            if isinstance(items, dict) and "properties" in items:
                yield from walk(_resolve(items, root), path + "[].")
            for choice in child.get("anyOf", []):  # e.g. error: null, a string or an object
                yield from walk(choice, path + ".")

    yield from walk(root, "")


def render() -> str:
    rows = ["| field | type | meaning and unit |", "|---|---|---|"]
    rows += [f"| `{name}` | {kind} | {meaning.replace('|', chr(92) + '|')} |" for name, kind, meaning in fields()]
    return "\n".join(rows) + "\n"
