"""Several models' samples on one benchmark as arrays: answer codes, tokens and pool sizes.

Why codes: a strategy counts votes per problem, and the curves module counts
them for thousands of orderings at once; integers shared by every model of a
problem let a mix of models vote on the same answers and let numpy do the
counting. Code -1 is a sample that does not vote (no answer; also an empty
answer when the vote rule says empty answers abstain: `baselines.core.votes`); the gold answer's code is -2 when no
sample of any model found it, so it never matches.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.core.errors import InputError
from baselines.core.votes import AUTHORS, VoteRule

from .replay_data import Problem

ABSTAINS = -1
NEVER_SAMPLED = -2


@dataclass(frozen=True)
class Pool:
    """One model's samples: row p is problem p, padded after `sizes[p]` (code -1, 0 tokens)."""

    model: str
    codes: np.ndarray    # (problems, samples) int32
    tokens: np.ndarray   # (problems, samples) int64
    sizes: np.ndarray    # (problems,) int64
    scores: np.ndarray | None  # (problems, samples) float64, NaN where absent; None: the file has none


@dataclass(frozen=True)
class PoolSet:
    """Every model's pool over the same problems, in the first file's order."""

    ids: tuple[str, ...]
    gold: tuple[str, ...]
    gold_codes: np.ndarray            # (problems,) int32
    vocab: tuple[tuple[str, ...], ...]  # per problem: code -> answer
    pools: dict[str, Pool]

    def pool(self, model: str) -> Pool:
        if model not in self.pools:
            raise InputError(f"model {model!r} is not in this workload's files; its models are "
                             f"{', '.join(self.pools)}")
        return self.pools[model]


def encode(files: dict[str, tuple[Problem, ...]], sources: dict[str, Path], rule: VoteRule = AUTHORS) -> PoolSet:
    """Encode every model's problems; the models must hold the same problems with the same gold answers."""
    first_model = next(iter(files))
    ids = tuple(p.id for p in files[first_model])
    gold = tuple(p.gold for p in files[first_model])
    index = {pid: i for i, pid in enumerate(ids)}
    for model, problems in files.items():
        _check_same_problems(problems, index, gold, sources[model], sources[first_model])
    vocab: list[dict[str, int]] = [{} for _ in ids]
    pools = {model: _encode_pool(model, problems, index, vocab, rule) for model, problems in files.items()}
    gold_codes = np.asarray([vocab[i].get(g, NEVER_SAMPLED) for i, g in enumerate(gold)], dtype=np.int32)
    return PoolSet(ids, gold, gold_codes, tuple(tuple(v) for v in vocab), pools)


def _check_same_problems(problems, index: dict[str, int], gold: tuple[str, ...], path: Path, first: Path) -> None:
    ids = {p.id for p in problems}
    missing, extra = sorted(set(index) - ids), sorted(ids - set(index))
    if missing or extra:
        what = f"lacks problem {missing[0]!r}" if missing else f"has problem {extra[0]!r}"
        raise InputError(f"{path}: {what}, which {first} does not match; every model's file must hold the "
                         "same problems (pass only files of one benchmark)")
    for p in problems:
        if p.gold != gold[index[p.id]]:
            raise InputError(f"{path}: problem {p.id!r}: gold {p.gold!r} differs from {gold[index[p.id]]!r} in "
                             f"{first}; the files disagree on the reference answer")


def _encode_pool(model: str, problems, index: dict[str, int], vocab: list[dict[str, int]],
                 rule: VoteRule) -> Pool:
    width = max(len(p.answers) for p in problems)
    codes = np.full((len(index), width), ABSTAINS, dtype=np.int32)
    tokens = np.zeros((len(index), width), dtype=np.int64)
    sizes = np.zeros(len(index), dtype=np.int64)
    any_scores = any(p.scores is not None for p in problems)
    scores = np.full((len(index), width), np.nan) if any_scores else None
    for p in problems:
        row, words = index[p.id], vocab[index[p.id]]
        n = len(p.answers)
        codes[row, :n] = [words.setdefault(a, len(words)) if rule.votes(a) else ABSTAINS for a in p.answers]
        tokens[row, :n] = p.tokens
        sizes[row] = n
        if scores is not None and p.scores is not None:
            scores[row, :n] = p.scores
    return Pool(model, codes, tokens, sizes, scores)
