"""Two starter arms for my_workload.HiddenPoint: a baseline and a candidate to gate against it.

What costmatch needs from an arm class: `run(instance, meter, rng)`.

- Charge every model call with what it reported:
  `meter.call(prompt_tokens=..., completion_tokens=...)` (pass None for a
  figure the provider did not report; it is then "unreported", never 0).
  Charge other spend with `meter.rollouts(n)` or `meter.charge("my_unit", x)`.
- When a budgeted unit is used up, the Meter raises BudgetExhausted; do not
  catch it (it is a BaseException, so `except Exception` cannot swallow it).
  Looping "forever" is the normal way to spend the whole budget.
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
            x, usage = task.propose(rng)
            meter.call(**usage)  # raises BudgetExhausted once the tokens are spent
            score = task.dev_score(x, rng)
            meter.rollouts(1)
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
            x, usage = task.propose(rng, around=best_x, step=self.step)
            meter.call(**usage)
            score = task.dev_score(x, rng)
            meter.rollouts(1)
            if best is None or score > best:
                best_x, best = x, score
                meter.progress(best, choice=x.tolist())
