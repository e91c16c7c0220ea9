"""'did you mean ...?' for a name the user typed: one rule for verbs, suite keys, arms, workloads and units.

Why: "unknown arm 'local-serch'" with no hint sends the user to read the
suite again for a one-letter typo (issue 39); the verb typos already had one.
"""
from __future__ import annotations

import difflib
from typing import Iterable


def did_you_mean(word: object, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """``" (did you mean 'x'?)"`` for the closest of `choices` to `word`, or "" when none is close."""
    if not isinstance(word, str):
        return ""
    choices = [c for c in choices if isinstance(c, str)]
    close = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    if not close:  # case slips (Tokens) are close at any length
        close = [c for c in choices if c.lower() == word.lower()][:1]
    return f" (did you mean {close[0]!r}?)" if close else ""
