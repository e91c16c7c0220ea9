"""Two starter arms for my_workload.HiddenPoint: a baseline and a candidate to gate against it.

What costmatch needs from an arm class: `run(instance, meter, rng)`.

- Charge every model call with what it reported:
  `meter.call(prompt_tokens=..., completion_tokens=...)` (pass None for a
  figure the provider did not report; it is then "unreported", never 0).
  Charge other spend with `meter.rollouts(n)` or `meter.charge("my_unit", x)`.
- A budget of N calls (rollouts, evaluations) gives the arm N usable
  results. Call `meter.check()` before each model call: once nothing is left
  it raises BudgetExhausted, so no call is made beyond the budget. Charge
  rollouts before the work they pay for (`meter.rollouts(1)` raises instead
  of charging one beyond the budget). Tokens cannot be known before a call:
  the call that goes beyond a token budget is charged as reported (the
  overshoot is recorded) and stops the run. Do not catch BudgetExhausted (it
  is a BaseException, so `except Exception` cannot swallow it). Looping
  "forever" is the normal way to spend the whole budget.
- Report the best dev score and the current choice with
  `meter.progress(best, choice=x)` whenever it improves: when the budget
  stops the arm mid-step, that choice is what gets scored on held-out data.
- Use `rng` (seeded per run) for every random draw, so runs are reproducible.

Constructor keyword arguments are the suite's `params`.
"""
from __future__ import annotations


class RandomGuess:
    """Ask for a fresh candidate on every call; keep the best on dev."""

    def run(self, task, meter, rng):
        best = None
        while True:
            meter.check()        # raises BudgetExhausted once the budget is spent: no call beyond it
            x, usage = task.propose(rng)
            meter.call(**usage)  # what the call reported; its result is usable
            meter.rollouts(1)    # charged before the evaluation it pays for
            score = task.dev_score(x, rng)
            if best is None or score > best:
                best = score
                meter.progress(best, choice=x.tolist())


class LocalSearch:
    """Ask for a small change to the best candidate so far; keep it if dev improves."""

    def __init__(self, step: float = 0.15):
        if not step > 0:
            raise ValueError(f"step must be positive, got {step}")
        self.step = step

    def run(self, task, meter, rng):
        best_x, best = None, None
        while True:
            meter.check()
            x, usage = task.propose(rng, around=best_x, step=self.step)
            meter.call(**usage)
            meter.rollouts(1)
            score = task.dev_score(x, rng)
            if best is None or score > best:
                best_x, best = x, score
                meter.progress(best, choice=x.tolist())
