"""Per-run values kept as table columns, built alike by both readers.

Why a module of its own: the bulk reader (`table_arrow`) and the line
reader (`table._Builder.add_records`) must give the same column for the
same records (a test compares them); each column is built here once, from
the values of a record's fields.
"""
from __future__ import annotations

import json

import numpy as np

from ...core.provenance import code_key
from ...core.records import declared_range


def error_summary(error) -> str | None:
    """One line saying what went wrong in a run (type and message), for headlines; None without an error.

    Only a string error or the `type`/`message` of an object are shown, so the
    bulk reader (which fills absent object fields with null) and the line
    reader always agree on the summary.
    """
    if error is None:
        return None
    if isinstance(error, dict):
        kind, message = error.get("type"), error.get("message")
        kind = kind if isinstance(kind, str) and kind else None
        message = message if isinstance(message, str) and message else None
        if kind and message and not message.startswith(kind):
            text = f"{kind}: {message}"
        else:
            text = message or kind or "an error without a message"
    elif isinstance(error, str):
        text = error or "an error without a message"
    else:
        text = "an error without a message"
    lines = text.strip().splitlines()
    return (lines[0] if lines else text)[:300]


def items_column(values: list) -> np.ndarray:
    """Per run its canonical `items` list (None without items), as an object column (never a 2-D array)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def nouns_column(values: list) -> np.ndarray:
    """A workload's own words for its units (`unit_nouns`), per run as canonical JSON text (None: none declared).

    Kept so a comparison read in bulk can say "function evaluations" for
    bbob's calls instead of "model calls".
    """
    out = np.full(len(values), None, dtype=object)
    for i, nouns in enumerate(values):
        if isinstance(nouns, dict):
            clean = {str(k): v for k, v in nouns.items() if isinstance(v, str) and v}
            if clean:
                out[i] = json.dumps(clean, sort_keys=True)
    return out


def instance_column(values: list) -> np.ndarray:
    """Each run's problem instance (bbob's "f21-i1") as text, None without one.

    Kept so that `compare --target` computes ERT per instance from the
    columns, never pooling instances, without re-reading the records.
    """
    return np.array([None if v is None else str(v) for v in values], dtype=object)


def code_column(values: list) -> np.ndarray:
    """Each run's code version (`provenance.code_key`) as one string, None without provenance.

    Kept so that `compare` can warn when one arm's runs came from different
    code (a worker with a stale module) without keeping per-run records.
    """
    return np.array([code_key(prov) for prov in values], dtype=object)


def reward_range_columns(values: list) -> tuple[np.ndarray, np.ndarray]:
    """`reward_range: [lo, hi]` per run as two float columns (NaN where none is declared or it is malformed).

    Why columns: a comparison read in bulk keeps no records, yet must never
    print a mean or interval end outside the range a workload declared.
    """
    lo, hi = np.full(len(values), np.nan), np.full(len(values), np.nan)
    for i, value in enumerate(values):
        bounds = declared_range(value)
        if bounds is not None:
            lo[i], hi[i] = bounds
    return lo, hi
