"""What an arm actually spends, measured as it runs.

Why a Meter and not a counter the arm keeps: spend must be *measured*, never
requested, and an unreported unit must stay unknown instead of becoming 0.
The Meter therefore records, per model call, which units the call reported:
a unit reported on every call is measured, on none is unreported (`None`),
on some is *partial* (the sum is a lower bound). When a budgeted unit runs
out the Meter raises :class:`BudgetExhausted`, a BaseException, so an arm's
``except Exception`` cannot swallow the stop by accident.

The budget rule, in one sentence: a budget of N calls, rollouts or
evaluations gives the arm N usable results, because the charge that would go
beyond the budget raises BudgetExhausted before it is charged (for work whose
usage is reported after it is done, a model call or a function evaluation,
that is the :meth:`Meter.check` made before it); tokens, dollars and seconds,
which a call cannot bound in advance, are charged as reported, and the call
that goes beyond one stops the run with its overshoot measured and recorded.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable, Mapping, NoReturn

from .budget import Budget
from .governor import Governor
from .units import CALL_UNITS, ordered_units

_NO_CHOICE = object()


class BudgetExhausted(BaseException):
    """Raised by the Meter once a budgeted unit is used up.

    It derives from BaseException (like KeyboardInterrupt) so that generic
    error handling inside an arm does not keep it running past its budget.
    """

    def __init__(self, unit: str, spent: float, limit: float):
        super().__init__(f"budget exhausted in {unit}: spent {spent:g} of {limit:g}")
        self.unit, self.spent, self.limit = unit, spent, limit


class CellTimeout(BaseException):
    """Raised when a cell runs past its time limit (a BaseException for the same reason)."""


class Meter:
    """Charges one run's spend against its Budget and keeps the anytime trace.

    `measures` names the units the caller is the authority on (a unit it
    measures and that was never charged is a measured 0). Units reported by
    model calls (`prompt_tokens`, `completion_tokens`, `tokens`, `usd`, and
    any extra keyword given to :meth:`call`) are judged per call instead.
    """

    def __init__(
        self,
        budget: Budget | None = None,
        measures: Iterable[str] = ("calls", "seconds"),
        clock: Callable[[], float] = time.perf_counter,
        deadline: float | None = None,
    ):
        self.budget = budget
        self._measured: set[str] = set(measures)
        self._totals: dict[str, float] = {}
        self._calls = 0
        self._call_reported: dict[str, int] = {}
        self._clock = clock
        self._start = clock()
        self._stopped_at: float | None = None
        self.exhausted: str | None = None
        self.trace: list[dict[str, Any]] = []
        self.trace_choices: list[Any] = []  # the choice in force at each trace point
        self.best: float | None = None
        self.choice: Any = _NO_CHOICE
        self._deadline = deadline  # on this Meter's clock; the runner's per-cell timeout
        self._parent: Meter | None = None
        self._voided: dict[str, str] = {}  # unit -> why it is unreported for the whole run

    # -- charging -----------------------------------------------------------
    def call(
        self,
        prompt_tokens: float | None = None,
        completion_tokens: float | None = None,
        tokens: float | None = None,
        usd: float | None = None,
        **other_units: float | None,
    ) -> None:
        """Charge one model call with what it reported (None = not reported).

        `tokens` defaults to prompt + completion when both are reported; a
        call reporting neither leaves every token unit unreported for it.
        Extra keywords (``cached_tokens=...``, ``reasoning_tokens=...``) are
        call units of their own, judged the same way.
        """
        if tokens is None and prompt_tokens is not None and completion_tokens is not None:
            tokens = prompt_tokens + completion_tokens
        reported = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                    "tokens": tokens, "usd": usd, **other_units}
        for unit, value in reported.items():
            if value is not None:
                _check_amount(unit, value)
        chain = self._chain()
        for meter in chain:  # the call happened: it is recorded everywhere before any stop is raised
            meter._record_call(reported)
        for meter in reversed(chain):  # the whole run's allowance is judged first
            meter._enforce()

    def _record_call(self, reported: dict[str, float | None]) -> None:
        self._calls += 1
        for unit in reported:
            self._call_reported.setdefault(unit, 0)
        for unit, value in reported.items():
            if value is None:
                continue
            self._call_reported[unit] += 1
            self._totals[unit] = self._totals.get(unit, 0) + value

    def rollouts(self, n: int = 1) -> None:
        """Charge `n` rollouts (scoring episodes, evaluations of a candidate)."""
        self.charge("rollouts", n)

    def charge(self, unit: str, amount: float) -> None:
        """Charge a non-call unit (rollouts or a custom unit); it becomes measured."""
        if unit == "calls" or unit in CALL_UNITS:
            raise ValueError(f"'{unit}' is charged through Meter.call(), which knows what each call reported")
        if unit == "seconds":
            raise ValueError("'seconds' is measured by the Meter's clock, not charged")
        _check_amount(unit, amount)
        chain = self._chain()
        for meter in reversed(chain):  # refused before anything is charged: the run's allowance first
            meter._refuse_beyond(unit, amount)
        for meter in chain:
            meter._measured.add(unit)
            meter._totals[unit] = meter._totals.get(unit, 0) + amount
        for meter in reversed(chain):
            meter._enforce()

    def sub(self, budget: Budget) -> "Meter":
        """A Meter for one sub-run (a fork, a worker) with its own share of the budget.

        Every charge goes to the parent too, so the run's total is measured
        once and the parent's allowance still stops everything; the share
        stops only the sub-run (its BudgetExhausted names the share's unit).
        """
        child = Meter(budget, measures=self._measured, clock=self._clock, deadline=self._deadline)
        child._parent = self
        return child

    def check(self, **amounts: float) -> None:
        """Raise BudgetExhausted when a budgeted unit has nothing left (or `amounts`, e.g. ``rollouts=4``, would not fit).

        Call it *before* work that is charged after it is done (a model call
        whose usage is reported afterwards, a function evaluation): with
        ``Budget(calls=N)`` the check before call N + 1 stops the arm, so it
        gets exactly N usable results and never makes a call beyond N.
        """
        for unit, amount in amounts.items():
            _check_amount(unit, amount)
        for meter in reversed(self._chain()):
            meter._enforce()
            for unit, limit in (meter.budget.limits.items() if meter.budget is not None else ()):
                need = amounts.get(unit)
                beyond = meter.spent(unit) + need > limit if need is not None else meter.spent(unit) >= limit
                if beyond:
                    meter._stop(unit)

    def _chain(self) -> list["Meter"]:
        """This Meter and its parents (a sub-run's charges go to the whole run's Meter too)."""
        chain, meter = [], self
        while meter is not None:
            chain.append(meter)
            meter = meter._parent
        return chain

    def governor(self, soft: float = 0.75, hard: float = 0.90, stages: Mapping[str, float] | None = None,
                 estimate: str = "max") -> Governor:
        """The run's budget governor: stages to drop as the budget runs low, and a projection at round barriers.

        ``allow("rank")`` says no from the `soft` fraction of the budget on,
        ``allow("verify")`` from the `hard` one; `stages` declares others
        (name -> floor). ``fits()`` before a round, ``round_done()`` after it:
        no round starts that the costliest round so far (`estimate="max"`, or
        the mean) says cannot finish. The run's record says what it did; a
        Meter without a budget gives a governor that allows everything and
        records nothing (see docs/governor.md). One per Meter: asking again
        with the same settings returns the same governor.
        """
        wanted = {"rank": soft, "verify": hard, **dict(stages or {})}
        held = getattr(self, "_governor", None)
        if held is not None:
            if held.estimate != estimate or any(held.stages.get(k) != float(v) for k, v in wanted.items()):
                raise ValueError("this Meter already holds a governor with other settings; ask for it once per run")
            return held
        self._governor = Governor(self, wanted, estimate)
        return self._governor

    # -- what is left -------------------------------------------------------
    def spent(self, unit: str) -> float:
        """Spend so far in `unit` as a lower bound (unreported counts as 0 here)."""
        if unit == "calls":
            return self._calls
        if unit == "seconds":
            return self.elapsed()
        return self._totals.get(unit, 0)

    def remaining(self, unit: str) -> float:
        """What is left of `unit` (infinite when the unit is not budgeted).

        A model adapter caps a call's maximum output at
        ``min(remaining("tokens"), remaining("completion_tokens"))`` so one
        reasoning call cannot overshoot a token budget by its whole length.
        """
        if self.budget is None or unit not in self.budget:
            return math.inf
        return max(0.0, self.budget[unit] - self.spent(unit))

    def token_allowance(self) -> float:
        """Largest completion a call may still produce under a token budget."""
        return min(self.remaining("tokens"), self.remaining("completion_tokens"))

    def elapsed(self) -> float:
        end = self._stopped_at if self._stopped_at is not None else self._clock()
        return end - self._start

    # -- anytime trace ------------------------------------------------------
    def progress(self, best: float, choice: Any = _NO_CHOICE) -> None:
        """Record the arm's best-so-far (dev) score and, optionally, its current choice.

        The last reported choice is what gets scored on held-out data when
        the budget stops the arm mid-step, so arms report it as they improve.
        """
        if best is None or not math.isfinite(best):
            raise ValueError(f"progress(best=...) needs a finite number, got {best!r}")
        self.best = float(best)
        if choice is not _NO_CHOICE:
            self.choice = choice
        snap = {u: v for u, v in self.spend().items() if v is not None and u != "seconds"}
        self.trace.append({"spend": snap, "best": self.best})
        self.trace_choices.append(self.choice)

    @property
    def has_choice(self) -> bool:
        return self.choice is not _NO_CHOICE

    # -- results ------------------------------------------------------------
    def stop(self) -> None:
        """Freeze the clock (the runner calls this when the arm returns or stops)."""
        if self._stopped_at is None:
            self._stopped_at = self._clock()

    def spend(self) -> dict[str, float | None]:
        """Spend per unit; None where the unit was not reported."""
        out: dict[str, float | None] = {"calls": self._calls}
        for unit in self._measured:
            out[unit] = self.spent(unit)
        for unit, n in self._call_reported.items():
            if self._calls and n == 0:
                out[unit] = None
            else:
                out[unit] = self._totals.get(unit, 0)
        for unit in CALL_UNITS:
            if unit not in out:
                out[unit] = 0 if (self._calls == 0 and unit in self._measured) else None
        for unit in self._voided:
            out[unit] = None
        return {u: out[u] for u in ordered_units(out)}

    def partial(self) -> list[str]:
        """Units reported on some calls only: their figure is a lower bound."""
        return ordered_units(u for u, n in self._call_reported.items()
                             if 0 < n < self._calls and u not in self._voided)

    def voided(self, unit: str) -> bool:
        return unit in self._voided

    def void(self, unit: str, reason: str) -> None:
        """Make `unit` unreported for this whole run (e.g. usd once one call could not be priced).

        A partial dollar figure would read as a lower bound; a price table that
        lacks a model cannot bound anything, so the unit becomes unknown.
        """
        self._voided.setdefault(unit, reason)
        if self._parent is not None:
            self._parent.void(unit, reason)

    def _enforce(self) -> None:
        """Stop a run that is past its time limit, already stopped, or beyond a budgeted unit.

        "Beyond" is strict: spending exactly the budget is within it (a budget
        of N calls gives N usable results). Only what a call cannot bound in
        advance (tokens, dollars, seconds; calls an arm made without
        :meth:`check`) can be beyond it; it stays recorded as measured.
        """
        if self._deadline is not None and self._clock() > self._deadline:
            raise CellTimeout(f"cell ran past its time limit ({self.elapsed():.1f} s)")
        if self.budget is None:
            return
        if self.exhausted is not None:
            raise BudgetExhausted(self.exhausted, self.spent(self.exhausted), self.budget[self.exhausted])
        for unit, limit in self.budget.limits.items():
            if self.spent(unit) > limit:
                self._stop(unit)

    def _refuse_beyond(self, unit: str, amount: float) -> None:
        """The budget rule for spend known before it is made: refuse the charge that would go beyond it."""
        if self.exhausted is not None:
            self._enforce()
        if self.budget is not None and unit in self.budget and self.spent(unit) + amount > self.budget[unit]:
            self._stop(unit)

    def _stop(self, unit: str) -> NoReturn:
        self.exhausted = unit
        raise BudgetExhausted(unit, self.spent(unit), self.budget[unit])


def _check_amount(unit: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"spend in '{unit}' must be a finite non-negative number, got {value!r}")
