"""Budget curves from one pool of recorded samples: accuracy against expected tokens, n = 1 .. pool size.

Why from the pool and not by re-running: the first n samples of a uniformly
random ordering of a problem's pool are a uniformly random n-subset in random
order, so one walk along each of R random orderings gives, at every n at once,
an unbiased estimate of majority@n accuracy (ties to the answer seen first,
which under a random order is a uniform tie-break). Expected tokens at n are
exact: n times the pool's mean tokens (the whole pool once it runs out). The
adaptive rule's stop and outcome are read off the same walks, so strategies
are compared on common orderings and problems (paired), and the band of the
difference comes from resampling problems. Pure functions on arrays; the
replay workload's pools (`workloads.replay`) supply them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.votes import whole_pool_credit

DEFAULT_CONFIDENCES = (0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)


@dataclass(frozen=True)
class Curve:
    """Per-problem expected accuracy and tokens at each point (columns: n, or a rule's setting)."""

    name: str
    per_problem: np.ndarray         # (problems, points) expected accuracy
    per_problem_tokens: np.ndarray  # (problems, points) expected tokens
    per_problem_samples: np.ndarray  # (problems, points) expected samples
    settings: tuple                 # n, or the rule's confidence, per point
    error: np.ndarray | None = None  # (points,) Monte Carlo standard error of `accuracy` (0 where exact); None: not estimated

    @property
    def accuracy(self) -> np.ndarray:
        return self.per_problem.mean(axis=0)

    @property
    def tokens(self) -> np.ndarray:
        """Expected tokens per problem at each point."""
        return self.per_problem_tokens.mean(axis=0)

    @property
    def samples(self) -> np.ndarray:
        return self.per_problem_samples.mean(axis=0)


@dataclass(frozen=True)
class Walks:
    """R orderings of every problem's pool, walked once: outcome, votes and spend after each draw."""

    correct: np.ndarray  # (problems, R, width) bool: majority right after t+1 draws
    lead: np.ndarray     # (problems, R, width) votes of the leader
    second: np.ndarray   # (problems, R, width) votes of the strongest other answer
    spent: np.ndarray    # (problems, R, width) tokens drawn so far
    sizes: np.ndarray    # (problems,)
    single: np.ndarray   # (problems,) exact single-sample accuracy: the pool's share of right samples


def orderings(sizes: np.ndarray, width: int, draws: int, seed: int = 0) -> np.ndarray:
    """(problems, draws, width) random orderings of each pool (its padding after it)."""
    rng = np.random.default_rng(seed)
    keys = rng.random((len(sizes), draws, width))
    padding = np.arange(width)[None, :] >= np.asarray(sizes)[:, None]        # (problems, width)
    keys[np.broadcast_to(padding[:, None, :], keys.shape)] = np.inf
    return np.argsort(keys, axis=2, kind="stable")


def walk(codes: np.ndarray, tokens: np.ndarray, sizes: np.ndarray, gold: np.ndarray, order: np.ndarray,
         chunk: int = 1 << 18) -> Walks:
    """Walk every ordering once (code < 0 does not vote; gold < 0 is never right).

    Problems are renumbered to dense answer codes and counted in groups of the
    same number of distinct answers (a group split to about `chunk` one-hot
    cells), so a problem pays for its own answers only: one batch for all
    problems made each pay for the most varied (35 answers against a mean of
    1.4 on math500) and cost 12-15x a plain loop over problems.
    """
    problems, draws, width = order.shape
    shape = (problems, draws, width)
    correct, lead, second = np.zeros(shape, bool), np.zeros(shape, np.int16), np.zeros(shape, np.int16)
    rows = np.arange(problems)[:, None, None]
    spent = np.cumsum(tokens[rows, order], axis=2)
    dense, dense_gold, answers = _dense(codes, gold)
    drawn = dense[rows, order]                                          # (problems, draws, width)
    for k in np.unique(answers):
        if k == 0:
            continue  # no sample votes: never right, no leader
        group = np.flatnonzero(answers == k)
        step = max(1, chunk // (draws * width * int(k)))
        for start in range(0, len(group), step):
            batch = group[start:start + step]
            correct[batch], lead[batch], second[batch] = _walk_batch(drawn[batch], dense_gold[batch], int(k))
    right = ((codes == gold[:, None]) & (gold[:, None] >= 0)).sum(axis=1)
    return Walks(correct, lead, second, spent, np.asarray(sizes), right / np.asarray(sizes))


def _dense(codes: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes renumbered 0..k-1 per problem (-1 stays -1), the gold's new code (-1: never drawn), and k."""
    dense = np.full(codes.shape, -1, dtype=np.int16)
    dense_gold = np.full(len(codes), -1, dtype=np.int16)
    answers = np.zeros(len(codes), dtype=np.int64)
    for p in range(len(codes)):
        voting = codes[p] >= 0
        values, inverse = np.unique(codes[p][voting], return_inverse=True)
        dense[p][voting] = inverse
        answers[p] = len(values)
        hit = np.flatnonzero(values == gold[p]) if gold[p] >= 0 else ()
        if len(hit):
            dense_gold[p] = hit[0]
    return dense, dense_gold, answers


def _walk_batch(drawn: np.ndarray, gold: np.ndarray, answers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Problems (batch, draws, width) at once: correct, leader votes and runner-up votes after each draw.

    One answer at a time (a loop over the batch's distinct answers, each step
    elementwise over the whole batch): an answer's rank is its votes, then how
    early it was first seen; the gold answer is right where its rank is the best.
    """
    width = drawn.shape[2]
    top = np.zeros(drawn.shape, np.int16)
    runner_up = np.zeros(drawn.shape, np.int16)
    best = np.full(drawn.shape, -(width + 1), np.int32)
    gold_rank = np.full(drawn.shape, -(width + 2), np.int32)
    for k in range(answers):
        hits = drawn == k
        votes = np.cumsum(hits, axis=2, dtype=np.int16)
        first = np.where(votes[:, :, -1:] > 0, hits.argmax(axis=2)[:, :, None], width)
        rank = votes * np.int32(width + 1) - first
        np.maximum(best, rank, out=best)
        np.maximum(runner_up, np.minimum(top, votes), out=runner_up)
        np.maximum(top, votes, out=top)
        mine = gold == k
        if mine.any():
            gold_rank[mine] = rank[mine]
    correct = (gold_rank == best) & (top > 0)
    return correct, top, runner_up


def majority_curve(walks: Walks, tokens: np.ndarray, name: str = "majority",
                   whole_pool: np.ndarray | None = None) -> Curve:
    """Majority@n for n = 1 .. width; past a pool's end the whole pool's vote (and spend) stands.

    Exact where it is cheap: n = 1 (the share of right samples) and every n
    that reaches a problem's whole pool (`whole_pool`: the exact whole-pool
    score under the vote rule, `baselines.core.votes.whole_pool_credit`; the
    walks' last step would be a 64-ordering estimate of a random tie-break,
    0.391 or 0.469 for a two-way tie whose value is 0.5). Every other point is
    the mean over the walks, its Monte Carlo standard error in `error`.
    """
    problems, draws, width = walks.correct.shape
    n = np.arange(1, width + 1)
    used = np.minimum(n[None, :], walks.sizes[:, None])                # (problems, width)
    at = np.arange(problems)[:, None], used - 1
    share = walks.correct.mean(axis=1)                                  # (problems, width)
    accuracy = share[at]
    variance = (share * (1 - share) * draws / max(draws - 1, 1))[at] / draws  # of each problem's mean over walks
    exact = np.zeros(accuracy.shape, bool)
    exact[:, 0] = True
    accuracy[:, 0] = walks.single  # n = 1 exactly (the estimate's mean is this; no need to estimate it)
    if whole_pool is not None:
        whole = n[None, :] >= walks.sizes[:, None]
        accuracy = np.where(whole, whole_pool[:, None], accuracy)
        exact |= whole
    error = np.sqrt(np.where(exact, 0.0, variance).sum(axis=0)) / problems
    mean_tokens = tokens.sum(axis=1) / walks.sizes
    return Curve(name, accuracy, used * mean_tokens[:, None], used.astype(float), tuple(int(k) for k in n), error)


def leader_probability(lead: np.ndarray, second: np.ndarray) -> np.ndarray:
    """P(the leader's share of the two leading answers exceeds 1/2), uniform prior: P(Bin(a+b+1, 1/2) <= a).

    Looked up in a table over the vote counts present (a handful of values, millions of cells).
    scipy is imported here: `curves --format` never needs it and its import is 0.3 s of the table's 0.7 s.
    """
    from scipy.special import bdtr

    size = int(max(lead.max(initial=0), second.max(initial=0))) + 1
    a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    return bdtr(a, a + b + 1, 0.5)[lead, second]


def adaptive_curve(walks: Walks, confidences=DEFAULT_CONFIDENCES, min_samples: int = 2,
                   name: str = "adaptive") -> Curve:
    """The Beta stopping rule of arms.replay_tts.AdaptiveMajority at each confidence, per problem, no budget."""
    problems, draws, width = walks.correct.shape
    allowed = (walks.lead > 0) & (np.arange(width) >= min_samples - 1)
    best = np.maximum.accumulate(np.where(allowed, leader_probability(walks.lead, walks.second), 0.0), axis=2)
    last = (walks.sizes - 1)[:, None]
    at_p, at_r = np.arange(problems)[:, None], np.arange(draws)[None, :]
    accuracy, spent, samples = (np.zeros((problems, len(confidences))) for _ in range(3))
    for j, confidence in enumerate(confidences):
        # the running best probability only grows, so the stop is the count of draws still below the bar
        stop = np.minimum((best < confidence).sum(axis=2), last)  # the pool's last sample ends it
        accuracy[:, j] = walks.correct[at_p, at_r, stop].mean(axis=1)
        spent[:, j] = walks.spent[at_p, at_r, stop].mean(axis=1)
        samples[:, j] = (stop + 1).mean(axis=1)
    return Curve(name, accuracy, spent, samples, tuple(float(c) for c in confidences))


def pass_at_n(codes: np.ndarray, tokens: np.ndarray, sizes: np.ndarray, gold: np.ndarray,
              name: str = "oracle (pass@n)") -> Curve:
    """Exact P(any of n samples is right): 1 - C(size-g, n) / C(size, n). An oracle, never an arm."""
    problems, width = codes.shape
    right = ((codes == gold[:, None]) & (gold[:, None] >= 0)).sum(axis=1)
    n = np.arange(1, width + 1)
    used = np.minimum(n[None, :], sizes[:, None])
    miss = np.ones((problems, width))
    for k in range(width):  # C(s-g, n)/C(s, n) = prod_{i<n} (s-g-i)/(s-i), built one factor at a time
        factor = np.clip((sizes - right - k) / np.maximum(sizes - k, 1), 0, 1)
        miss[:, k] = (miss[:, k - 1] if k else 1.0) * np.where(k < sizes, factor, 1.0)
    accuracy = 1 - miss[np.arange(problems)[:, None], used - 1]
    mean_tokens = tokens.sum(axis=1) / sizes
    return Curve(name, accuracy, used * mean_tokens[:, None], used.astype(float), tuple(int(k) for k in n))


@dataclass(frozen=True)
class CurveDifference:
    """a - b in accuracy at equal expected tokens per problem, with a paired band over problems."""

    a: str
    b: str
    tokens: np.ndarray     # the common grid (where both curves have points)
    difference: np.ndarray
    low: np.ndarray
    high: np.ndarray
    crossovers: tuple[float, ...]  # grid budgets where the point difference changes sign
    level: float


def _on_grid(tokens: np.ndarray, accuracy: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Accuracy at each grid budget, linear between points (mixing two settings at random achieves it)."""
    order = np.argsort(tokens, kind="stable")
    x, y = tokens[order], accuracy[order]
    x = np.maximum.accumulate(x) + np.arange(len(x)) * 1e-9 * max(1.0, float(x[-1]))  # strictly increasing
    return np.interp(grid, x, y)


def compare_curves(a: Curve, b: Curve, points: int = 200, resamples: int = 1000, level: float = 0.95,
                   seed: int = 0) -> CurveDifference:
    """Accuracy of a minus b at equal expected tokens, over the budgets both reach.

    The band resamples problems (the same resample for both curves, so it is
    paired): each resample's curves are rebuilt from its problems' rows, put
    on the grid, and subtracted; the band is the percentile interval.
    """
    if a.per_problem.shape[0] != b.per_problem.shape[0]:
        raise ValueError("the two curves must be over the same problems (paired)")
    lo = max(a.tokens.min(), b.tokens.min())
    hi = min(a.tokens.max(), b.tokens.max())
    if not lo < hi:
        raise ValueError(f"the curves share no budget: {a.name} spans {a.tokens.min():.0f}-{a.tokens.max():.0f} "
                         f"tokens per problem, {b.name} {b.tokens.min():.0f}-{b.tokens.max():.0f}")
    grid = np.linspace(lo, hi, points)
    point = _on_grid(a.tokens, a.accuracy, grid) - _on_grid(b.tokens, b.accuracy, grid)
    problems = a.per_problem.shape[0]
    weights = np.random.default_rng(seed).multinomial(problems, np.full(problems, 1 / problems), resamples) / problems
    curves = []
    for curve in (a, b):
        acc, tok = weights @ curve.per_problem, weights @ curve.per_problem_tokens
        curves.append(np.array([_on_grid(tok[r], acc[r], grid) for r in range(resamples)]))
    spread = curves[0] - curves[1]
    tail = (1 - level) / 2
    low, high = np.quantile(spread, [tail, 1 - tail], axis=0)
    return CurveDifference(a.name, b.name, grid, point, low, high, crossovers(grid, point), level)


def crossovers(grid: np.ndarray, difference: np.ndarray) -> tuple[float, ...]:
    """Budgets where the difference changes sign (linear between grid points); exact zeros count once."""
    sign = np.sign(difference)
    out = []
    for i in range(1, len(grid)):
        if sign[i - 1] != 0 and sign[i] != 0 and sign[i] != sign[i - 1]:
            d0, d1 = difference[i - 1], difference[i]
            out.append(float(grid[i - 1] + (grid[i] - grid[i - 1]) * d0 / (d0 - d1)))
    return tuple(out)


def pool_curves(codes: np.ndarray, tokens: np.ndarray, sizes: np.ndarray, gold: np.ndarray, draws: int = 64,
                seed: int = 0, confidences=DEFAULT_CONFIDENCES, ties: str = "first-seen") -> dict[str, Curve]:
    """Majority@n, the adaptive rule and the oracle for one model's pool, on shared orderings.

    `ties` is the vote rule's tie-break for the whole pool (exact, in recorded
    order); below the whole pool the walks' random orderings break ties
    uniformly, which is both rules' expectation over a random subset's order.
    """
    walks = walk(codes, tokens, sizes, gold, orderings(sizes, codes.shape[1], draws, seed))
    whole = whole_pool_credit(codes, gold, ties)
    return {"majority": majority_curve(walks, tokens, whole_pool=whole), "adaptive": adaptive_curve(walks, confidences),
            "oracle": pass_at_n(codes, tokens, sizes, gold)}
