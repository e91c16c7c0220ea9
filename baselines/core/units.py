"""Spend units: what each one counts, said once, and how to tell them apart.

The standard units are fixed by the contract; any other name is a custom unit
and is treated the same way. `tokens` is derived (prompt + completion) only
when both parts are reported, so a missing half can never make it look small.

Why the definitions live here: providers disagree on what "input tokens"
means (OpenAI's `prompt_tokens` includes cached input, Anthropic's and
inspect_ai's `input_tokens` exclude cache reads and writes), so the same
unit meant different things depending on where a record came from. Every
adapter (the metered OpenAI and Anthropic clients, the llama.cpp adapter,
the inspect and agentdescent importers) maps its source onto
`UNIT_DEFINITIONS` and is tested against it with the source's own payloads.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator

STANDARD_UNITS: tuple[str, ...] = (
    "rollouts", "calls", "prompt_tokens", "completion_tokens", "tokens", "usd", "seconds",
)

#: Units measured on a continuous scale; budgets in these split evenly,
#: never into whole-number shares.
CONTINUOUS_UNITS: frozenset[str] = frozenset({"usd", "seconds"})

#: Units a model call reports about itself; the Meter tracks per call whether
#: each was reported, which is what tells "partial" from "unreported".
CALL_UNITS: tuple[str, ...] = ("prompt_tokens", "completion_tokens", "tokens", "usd")

#: Units charged as reported, after the work is done: a call cannot bound them in advance, so the call
#: that crosses a budget in them overshoots it by design (the Meter's rule). Overshoot in any other unit
#: (calls, rollouts, evaluations: checked before they are charged) means an arm skipped `meter.check()`.
CHARGED_AS_REPORTED: frozenset[str] = frozenset(CALL_UNITS) | {"seconds"}

#: What each unit counts, one line each. Adapters convert to these meanings.
UNIT_DEFINITIONS: dict[str, str] = {
    "rollouts": "complete attempts at the task (episodes, candidate programs, forks' trajectories) the arm ran",
    "calls": "model requests sent, failed and retried attempts included (each attempt is one call)",
    "prompt_tokens": "every input token the model read on a call: includes cached input (cache reads and "
                     "cache writes), i.e. OpenAI's prompt_tokens, Anthropic input + cache_read + cache_creation",
    "completion_tokens": "every output token the model generated, includes reasoning/thinking tokens",
    "tokens": "prompt_tokens + completion_tokens, only when both are reported",
    "usd": "dollars charged, computed per call from a dated price table (cached input at its cached price)",
    "seconds": "wall-clock seconds of the run, measured by the harness (not the provider's latency)",
    "cached_tokens": "the part of prompt_tokens read from the provider's prompt cache (already inside prompt_tokens)",
    "cache_write_tokens": "the part of prompt_tokens written to the prompt cache (already inside prompt_tokens)",
    "reasoning_tokens": "the part of completion_tokens spent on hidden reasoning (already inside completion_tokens)",
    "failed_calls": "the part of calls whose attempt failed (an error status or no response)",
}

#: How a unit is spoken of in captions and flags, so a token confound is never
#: described as call frequency (a mistake of the tool costmatch replaces).
UNIT_NOUNS: dict[str, str] = {
    "rollouts": "rollouts",
    "calls": "model calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "tokens": "tokens",
    "usd": "dollars",
    "seconds": "seconds of wall time",
}


#: The workload nouns in force while one group is written out (see `nouns_of`).
_SCOPED_NOUNS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("unit_nouns", default=None)


def unit_noun(unit: str, nouns: dict[str, str] | None = None) -> str:
    """The words for a unit in prose (custom units are named as they are).

    `nouns` are a workload's own words for its units (records carry them as
    the top-level field `unit_nouns`): for bbob a call is a "function
    evaluation", not a "model call". Without `nouns`, the words of the group
    being written out (`nouns_of`) apply.
    """
    nouns = nouns if nouns is not None else _SCOPED_NOUNS.get()
    if nouns and isinstance(nouns.get(unit), str) and nouns[unit]:
        return nouns[unit]
    return UNIT_NOUNS.get(unit, f"'{unit}' units")


@contextlib.contextmanager
def nouns_of(nouns: dict[str, str] | None) -> Iterator[None]:
    """Speak of units in a workload's own words inside the block (one group's table, flags, figures).

    Why a scope: every sentence, header and axis label of a group names units
    through `unit_noun`; passing the workload's words through each of them
    would thread one argument through thirty call sites.
    """
    token = _SCOPED_NOUNS.set(nouns or None)
    try:
        yield
    finally:
        _SCOPED_NOUNS.reset(token)


#: Words people type for the standard units; each maps to the contract's name. One table for the suite,
#: the command line and the Python API (issue 39: `--fixed token` worked, `budget = {token = ...}` did not).
UNIT_ALIASES: dict[str, str] = {
    "rollout": "rollouts", "call": "calls", "requests": "calls", "request": "calls",
    "token": "tokens", "prompt-tokens": "prompt_tokens", "input_tokens": "prompt_tokens",
    "completion-tokens": "completion_tokens", "output_tokens": "completion_tokens",
    "dollars": "usd", "dollar": "usd", "$": "usd", "cost": "usd",
    "second": "seconds", "secs": "seconds", "sec": "seconds", "s": "seconds", "time": "seconds",
}


def canonical_unit(name: str) -> str:
    """The contract's name for a unit a user wrote (``dollars`` -> ``usd``); any other name is kept (custom)."""
    return UNIT_ALIASES.get(name.strip().lower(), name) if isinstance(name, str) else name


def unit_definition(unit: str) -> str:
    """What `unit` counts, in one line (custom units: whatever their source says)."""
    return UNIT_DEFINITIONS.get(unit, f"a custom unit: '{unit}' as its source counted it")


def ordered_units(units) -> list[str]:
    """Standard units in contract order, then custom units alphabetically."""
    units = set(units)
    head = [u for u in STANDARD_UNITS if u in units]
    return head + sorted(units - set(STANDARD_UNITS))
