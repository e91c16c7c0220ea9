"""Recorded samples of a model on a benchmark: the JSON Lines files the replay workload reads.

One file holds one model's samples on one benchmark, one line per problem, in
either of two shapes (both are documented in docs/replay.md):

- costmatch's own: ``{"id": "p1", "gold": "588", "samples": [{"answer": "588",
  "tokens": 15000, "score": 0.9}, ...]}`` (``score`` optional: a verifier's value);
- the Best-of-Infinity release, as published: ``{"problem_num": 1,
  "gold_answer": "588", "all_answers": [["588", 15000], ...]}`` (other keys ignored).

Why strict: a sample without a token count would be charged nothing and a
missing gold answer would score every arm 0, so either is an InputError that
names the file, the line, the problem and the field, before any cell runs.
Parsed files are cached per process by path, size and modification time: each
cell of a suite builds the workload again, and a 500-problem file is read once.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from baselines.core.errors import InputError
from baselines.core.input_files import read_input


@dataclass(frozen=True)
class Problem:
    """One problem of one file: samples in the order recorded (answer None = no answer at all)."""

    id: str
    gold: str
    answers: tuple[str | None, ...]
    tokens: np.ndarray          # int64, one per sample, >= 0
    scores: np.ndarray | None   # float64 per sample (NaN: none), or None when the file has no scores


_CACHE: dict[tuple[str, int, int], tuple[Problem, ...]] = {}


def read_samples(path: str | os.PathLike) -> tuple[Problem, ...]:
    """Every problem of a samples file, checked; InputError names the file, line, problem and field."""
    path = Path(path)
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        if key in _CACHE:
            return _CACHE[key]
        data = read_input(path, "samples file")  # a FIFO or a device is refused before it can block
    except OSError as exc:
        raise InputError(f"{path}: cannot read samples file ({exc.strerror or exc}); check the path") from None
    problems, seen = [], {}
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        problem = parse_problem(line, f"{path}:{number}")
        if problem.id in seen:
            raise InputError(f"{path}:{number}: problem {problem.id!r}: id: the same problem as line "
                             f"{seen[problem.id]}; each problem once per file")
        seen[problem.id] = number
        problems.append(problem)
    if not problems:
        raise InputError(f"{path}: no problems; a samples file has one JSON object per line")
    _CACHE[key] = out = tuple(problems)
    return out


def parse_problem(line: bytes, where: str) -> Problem:
    """One line as a Problem, in either shape (see the module docstring)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc}); one object per line") from None
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a line must be a JSON object with id, gold and samples")
    if "all_answers" in obj or "problem_num" in obj:
        return _boinf_problem(obj, where)
    return _native_problem(obj, where)


def _answer(value, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{where}: answer must be a string, an integer or null, got {value!r}")


def _tokens(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or value != int(value):
        raise InputError(f"{where}: tokens must be a whole number >= 0 (the tokens the sample generated), "
                         f"got {value!r}")
    return int(value)


def _id_and_gold(obj: dict, where: str, id_key: str, gold_key: str) -> tuple[str, str]:
    if id_key not in obj:
        raise InputError(f"{where}: missing {id_key!r} (the problem's id)")
    pid = obj[id_key]
    if isinstance(pid, bool) or not isinstance(pid, (str, int)) or pid == "":
        raise InputError(f"{where}: {id_key} must be a non-empty string or an integer, got {pid!r}")
    pid = str(pid)
    gold = obj.get(gold_key)
    if gold is None or (isinstance(gold, str) and not gold.strip()):
        raise InputError(f"{where}: problem {pid!r}: missing {gold_key!r} (the reference answer); a problem "
                         "without one cannot be scored")
    return pid, _answer(gold, f"{where}: problem {pid!r}: {gold_key}")


def _native_problem(obj: dict, where: str) -> Problem:
    pid, gold = _id_and_gold(obj, where, "id", "gold")
    samples = obj.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(f"{where}: problem {pid!r}: samples must be a non-empty list of "
                         '{"answer": ..., "tokens": ...}')
    answers, tokens, scores = [], [], []
    for i, sample in enumerate(samples):
        at = f"{where}: problem {pid!r}: samples[{i}]"
        if not isinstance(sample, dict):
            raise InputError(f'{at}: must be an object {{"answer": ..., "tokens": ...}}')
        if "tokens" not in sample:
            raise InputError(f"{at}: missing 'tokens' (the tokens the sample generated)")
        answers.append(_answer(sample.get("answer"), f"{at}.answer"))
        tokens.append(_tokens(sample["tokens"], f"{at}.tokens"))
        score = sample.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                  or not math.isfinite(score)):
            raise InputError(f"{at}.score: must be a finite number or absent, got {score!r}")
        scores.append(math.nan if score is None else float(score))
    has_scores = any(not math.isnan(s) for s in scores)
    return Problem(pid, gold, tuple(answers), np.asarray(tokens, dtype=np.int64),
                   np.asarray(scores) if has_scores else None)


def _boinf_problem(obj: dict, where: str) -> Problem:
    pid, gold = _id_and_gold(obj, where, "problem_num", "gold_answer")
    samples = obj.get("all_answers")
    if not isinstance(samples, list) or not samples:
        raise InputError(f"{where}: problem {pid!r}: all_answers must be a non-empty list of [answer, tokens]")
    if all(type(s) is list and len(s) >= 2 and (s[0] is None or type(s[0]) is str) and type(s[1]) is int
           and s[1] >= 0 for s in samples):  # the release's own shape, checked in one pass (the loop below names errors)
        return Problem(pid, gold, tuple(s[0] for s in samples), np.fromiter((s[1] for s in samples), np.int64,
                                                                            len(samples)), None)
    answers, tokens = [], []
    for i, sample in enumerate(samples):
        at = f"{where}: problem {pid!r}: all_answers[{i}]"
        if not isinstance(sample, list) or len(sample) < 2:
            raise InputError(f"{at}: must be [answer, tokens]; a sample without tokens cannot be charged")
        answers.append(_answer(sample[0], f"{at}[0] (answer)"))
        tokens.append(_tokens(sample[1], f"{at}[1] (tokens)"))
    return Problem(pid, gold, tuple(answers), np.asarray(tokens, dtype=np.int64), None)


#: the release's datasets, in the order its authors' table script prints them
RELEASE_BENCHMARKS = ("aime2024", "aime2025", "gpqa_diamond", "math500")


def benchmarks_in(folder: str | os.PathLike) -> list[str]:
    """The release's datasets that have files in `folder`, in the authors' order (InputError: none)."""
    found = [b for b in RELEASE_BENCHMARKS if any(Path(folder).glob(f"*{b}_*.jsonl"))] if Path(folder).is_dir() else []
    if not found:
        raise InputError(f"{folder}: no samples files of the release's datasets ({', '.join(RELEASE_BENCHMARKS)}); "
                         "name one with --benchmark")
    return found


def benchmark_files(folder: str | os.PathLike, benchmark: str) -> dict[str, Path]:
    """model -> file for the files of `benchmark` in `folder`: ``[analysis_]<benchmark>_<model>.jsonl``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder; 'folder' names the folder that holds the samples files")
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.jsonl")):
        stem = path.stem.removeprefix("analysis_")
        if stem.startswith(f"{benchmark}_") and len(stem) > len(benchmark) + 1:
            found[stem[len(benchmark) + 1:]] = path
    if not found:
        raise InputError(f"{folder}: no samples files for benchmark {benchmark!r} (named "
                         f"analysis_{benchmark}_<model>.jsonl or {benchmark}_<model>.jsonl)")
    return found
