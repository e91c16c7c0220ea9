"""replay: test-time-compute strategies on recorded samples of real reasoning models.

A strategy that samples a model n times and votes can be run on the samples
the model really produced: each drawn sample costs the tokens it really
generated, with no model and no network, in seconds. The shipped slice is
AIME 2025 for four open models from the Best-of-Infinity release (MIT; see
``workloads/data/replay/NOTICE.md``); ``folder``/``files`` point the workload
at any other files of the format (docs/replay.md).

Rules that change numbers (all stated in docs/replay.md):

- Pairing: the unit is the problem. At a seed every arm sees the same
  problems and, per model, the same order of each problem's samples (a
  permutation seeded by the seed and the model name, never by the arm).
  ``order = "generation"`` keeps the recorded order at every seed instead.
- Charging: one call and the sample's recorded tokens as ``completion_tokens``
  (the files record no prompts: ``prompt_tokens`` and ``tokens`` stay
  unreported); ``usd`` is the output price times those tokens where the price
  table knows the model, else unreported (never 0).
- A sample that would cross a token or dollar budget is cut at what is left
  (as a live model capped at the remaining tokens would be): charged that, its
  answer unused, and the run stops. A sample that reaches a call budget is
  whole and counts.
- Samples are drawn without replacement; a problem whose pool is used up gets
  no more samples, and a run whose problems are all used up stops below its
  budget (its record shows the spend).
- Votes: ``empty`` and ``ties`` name the vote rule (``baselines.core.votes``;
  default: the Best-of-∞ authors' rule, empty answers abstain, ties to the
  first seen in the drawn order); every arm of the workload counts by it.
- Reward: the fraction of problems whose chosen answer equals the gold answer
  as strings; per-problem outcomes (1/0; 1/k for a k-way tie under
  ``ties = "random"``) are the record's ``items``.
"""
from __future__ import annotations

import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from baselines.core.errors import InputError
from baselines.core.meter import BudgetExhausted, Meter
from baselines.core.prices import load_prices
from baselines.core.scored import Scored
from baselines.core.votes import VoteRule, tie_credit, vote_rule

from .replay_data import benchmark_files, read_samples
from .replay_pools import Pool, PoolSet, encode

ORDERS = ("shuffled", "generation")


def shipped_folder() -> Path:
    """The folder of the shipped slice (package data, so a plain install has it)."""
    return Path(str(resources.files("workloads") / "data" / "replay"))


class Replay:
    """Test-time-compute strategies replayed on recorded samples of real models (default: AIME 2025, 4 models)."""

    kind = "replay"
    reward_range = (0.0, 1.0)  # fraction of problems answered correctly
    measures = ("calls", "completion_tokens", "seconds")
    unit_nouns = {"calls": "samples"}
    score_trace = True  # scoring is a pass over the problems: anytime curves show held-out accuracy

    def __init__(self, benchmark: str = "aime2025", folder: str | None = None, models: list[str] | None = None,
                 files: dict[str, str] | None = None, problems: int | None = None, order: str = "shuffled",
                 empty_votes: bool | None = None, prices: str | None = None, empty: str | None = None,
                 ties: str | None = None):
        if order not in ORDERS:
            raise InputError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
        paths = _paths(benchmark, folder, models, files)
        self.vote_rule: VoteRule = vote_rule(empty, ties, empty_votes)
        self.benchmark, self.order, self.empty_votes = benchmark, order, self.vote_rule.empty == "votes"
        self.pools: PoolSet = encode({m: read_samples(p) for m, p in paths.items()}, paths, self.vote_rule)
        self.sources = {m: p.name for m, p in paths.items()}
        if problems is not None and not (isinstance(problems, int) and 1 <= problems <= len(self.pools.ids)):
            raise InputError(f"problems must be a whole number from 1 to {len(self.pools.ids)} "
                             f"(the files hold {len(self.pools.ids)}), got {problems!r}")
        self.problems = problems
        self.price_table = load_prices(prices)

    @property
    def models(self) -> list[str]:
        return list(self.pools.pools)

    def instance(self, seed: int) -> "ReplayInstance":
        return ReplayInstance(self, seed)

    def record_fields(self, instance: "ReplayInstance") -> dict[str, Any]:
        return {"benchmark": self.benchmark, "sample_files": dict(self.sources), "vote_rule": self.vote_rule.name}

    def score(self, instance: "ReplayInstance", choice: dict[str, Any]) -> Scored:
        """Fraction of the seed's problems answered right; a list of answers (the oracle) is right if any is;
        answers tied under ``ties = "random"`` score their expectation (1/k if the gold is among the k)."""
        items = {}
        for row in instance.rows:
            pid, gold = self.pools.ids[row], self.pools.gold[row]
            answer = choice.get(pid)
            credit = tie_credit(answer, gold)
            if credit is not None:
                items[pid] = credit
                continue
            hit = gold in answer if isinstance(answer, (list, tuple, set, frozenset)) else answer == gold
            items[pid] = 1.0 if hit else 0.0
        return Scored(sum(items.values()) / len(items), items)


def _paths(benchmark: str, folder: str | None, models: list[str] | None,
           files: dict[str, str] | None) -> dict[str, Path]:
    """model -> file: `files` as given, else the benchmark's files in `folder` (default: the shipped slice)."""
    if files is not None:
        if folder is not None or not isinstance(files, dict) or not files:
            raise InputError("files must be a table { model = \"path.jsonl\", ... } and not given with folder")
        found = {str(m): Path(p) for m, p in files.items()}
    else:
        found = benchmark_files(shipped_folder() if folder is None else folder, benchmark)
    if models is not None:
        unknown = [m for m in models if m not in found]
        if unknown or not models:
            raise InputError(f"models: {unknown[0] if unknown else 'none'!r} has no samples file; the files "
                             f"hold {', '.join(found)}")
        found = {m: found[m] for m in models}
    return found


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


class ReplayInstance:
    """One seed: which problems, and per model the order each problem's samples are drawn in."""

    def __init__(self, workload: Replay, seed: int):
        self.workload, self.seed = workload, seed
        total = len(workload.pools.ids)
        if workload.problems is None or workload.problems == total:
            self.rows = np.arange(total)
        else:
            rng = np.random.default_rng([seed, _crc("problems")])
            self.rows = np.sort(rng.choice(total, workload.problems, replace=False))
        self.ids = tuple(workload.pools.ids[r] for r in self.rows)
        self._orders: dict[str, np.ndarray] = {}

    def order(self, model: str) -> np.ndarray:
        """(problems, samples) indices into the model's pool: the seeded order, the same for every arm."""
        if model not in self._orders:
            pool = self.workload.pools.pool(model)
            width = pool.codes.shape[1]
            if self.workload.order == "generation":
                order = np.broadcast_to(np.arange(width), (len(self.rows), width))
            else:
                rng = np.random.default_rng([self.seed, _crc(model)])
                keys = rng.random((len(self.workload.pools.ids), width))[self.rows]
                keys[np.arange(width)[None, :] >= pool.sizes[self.rows][:, None]] = np.inf  # padding last
                order = np.argsort(keys, axis=1, kind="stable")
            self._orders[model] = order
        return self._orders[model]

    def sampler(self, meter: Meter) -> "Sampler":
        return Sampler(self, meter)

    def answer(self, i: int, code: int | None) -> str | None:
        """The answer text of a code for the instance's i-th problem (None: no answer)."""
        return None if code is None or code < 0 else self.workload.pools.vocab[self.rows[i]][code]


class Sampler:
    """Draws samples for one run and charges each to the Meter (see the module docstring for the rules)."""

    def __init__(self, instance: ReplayInstance, meter: Meter):
        budget = meter.budget
        for unit in ("tokens", "prompt_tokens"):
            if budget is not None and unit in budget:
                raise InputError(f"budget: replay charges completion_tokens (the sample files record no prompts), "
                                 f"so a budget in {unit} would never run out; budget completion_tokens instead")
        self.instance, self.meter = instance, meter
        self.cursor: dict[str, np.ndarray] = {}
        self.stopped: BudgetExhausted | None = None
        self._prices: dict[str, float | None] = {}

    def left(self, model: str, i: int) -> int:
        """Samples of `model` still undrawn for the instance's i-th problem."""
        pool = self.instance.workload.pools.pool(model)
        return int(pool.sizes[self.instance.rows[i]] - self._cursor(model)[i])

    def _cursor(self, model: str) -> np.ndarray:
        if model not in self.cursor:
            self.cursor[model] = np.zeros(len(self.instance.rows), dtype=np.int64)
        return self.cursor[model]

    def draw(self, model: str, i: int) -> int | None:
        """The next sample's answer code for problem i (-1: it does not vote), or None when the pool is
        used up or the budget stopped the sample; `stopped` is then set when the budget ran out."""
        if self.left(model, i) <= 0:
            return None
        try:  # a budget of N calls gives N samples: the check before sample N + 1 stops the arm
            self.meter.check(calls=1)
        except BudgetExhausted as exc:
            self.stopped = exc
            return None
        pool: Pool = self.instance.workload.pools.pool(model)
        cursor = self._cursor(model)
        row, column = self.instance.rows[i], self.instance.order(model)[i, cursor[i]]
        cursor[i] += 1
        tokens = int(pool.tokens[row, column])
        price = self._price(model)
        allowed = self._allowance(price)
        cut = tokens > allowed
        charged = int(allowed) if cut else tokens
        try:
            self.meter.call(completion_tokens=charged, usd=None if price is None else charged * price)
        except BudgetExhausted as exc:
            self.stopped = exc
        if cut:  # a cut sample has no answer; the run stops even if rounding left a sliver of budget
            self.stopped = self.stopped or BudgetExhausted("completion_tokens", charged, charged)
            return None
        return int(pool.codes[row, column])

    def _allowance(self, price: float | None) -> float:
        allowed = self.meter.token_allowance()
        if price is not None and price > 0:
            allowed = min(allowed, self.meter.remaining("usd") / price)
        return allowed

    def _price(self, model: str) -> float | None:
        """USD per completion token, or None (then usd is unreported for the whole run, never 0)."""
        if model not in self._prices:
            found = self.instance.workload.price_table.get(model)
            self._prices[model] = None if found is None else found.output / 1e6
        price = self._prices[model]
        if price is None:
            if self.meter.budget is not None and "usd" in self.meter.budget:
                raise InputError(f"budget: usd, but the price table has no price for model {model!r}; give the "
                                 "workload a prices file that lists it, or budget completion_tokens")
            self.meter.void("usd", f"no price for model {model!r} in the price table")
        return price
