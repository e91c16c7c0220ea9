"""Test-time-compute strategies for the qa workload, compared at equal tokens.

These are the arms the test-time-scaling papers argue about: one sample,
self-consistency (majority vote over k samples), best-of-n with a verifier
call, and sequential self-revision. Each answers the questions in order and
reports its answers so far through ``meter.progress``, so when the token
budget runs out mid-way the answered questions still count.
"""
from __future__ import annotations

import re
from collections import Counter

from baselines.core.clients import response_text


def parse_answer(text: str) -> int | None:
    """The last integer in a reply (models often restate the question first)."""
    found = re.findall(r"-?\d[\d,]*", text or "")
    if not found:
        return None
    try:
        return int(found[-1].replace(",", ""))
    except ValueError:
        return None


SYSTEM = "You are a careful calculator. Reply with the final number only."


class _Strategy:
    max_tokens = 32
    workloads = ("qa",)

    def run(self, instance, meter, rng):
        client = instance.client(meter)
        answers: dict[str, int | None] = {}
        meter.progress(0.0, choice=dict(answers))
        for i, q in enumerate(instance.questions):
            answers[q.id] = self.answer(client, instance.model, q.text, rng)
            meter.progress((i + 1) / len(instance.questions), choice=dict(answers))
        return answers

    def ask(self, client, model, messages, temperature, rng):
        response = client.chat.completions.create(model=model, messages=messages, max_tokens=self.max_tokens,
                                                  temperature=temperature, seed=int(rng.integers(2**31)))
        return response_text(response)

    def answer(self, client, model, text, rng):
        raise NotImplementedError


def _messages(text: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


class SingleSample(_Strategy):
    """One greedy sample per question."""

    def answer(self, client, model, text, rng):
        return parse_answer(self.ask(client, model, _messages(text), 0.0, rng))


class _Sampling(_Strategy):
    """Draws `count` independent samples per question at a temperature."""

    def __init__(self, count: int, temperature: float, name: str):
        if count < 1:
            raise ValueError(f"{name} must be >= 1")
        self.count, self.temperature = count, temperature

    def samples(self, client, model, text, rng) -> list[int | None]:
        return [parse_answer(self.ask(client, model, _messages(text), self.temperature, rng))
                for _ in range(self.count)]


class SelfConsistency(_Sampling):
    """k samples at a temperature; the most frequent parsed answer wins (ties: the first seen)."""

    def __init__(self, k: int = 5, temperature: float = 0.7):
        super().__init__(k, temperature, "k")

    def answer(self, client, model, text, rng):
        counted = Counter(v for v in self.samples(client, model, text, rng) if v is not None)
        return counted.most_common(1)[0][0] if counted else None


class BestOfNVerifier(_Sampling):
    """n samples, then one verifier call that picks a candidate by its number."""

    def __init__(self, n: int = 4, temperature: float = 0.7):
        super().__init__(n, temperature, "n")

    def answer(self, client, model, text, rng):
        candidates = self.samples(client, model, text, rng)
        listed = "\n".join(f"{i + 1}. {c}" for i, c in enumerate(candidates))
        verdict = self.ask(client, model, [
            {"role": "system", "content": "You check arithmetic. Reply with the number of the correct candidate."},
            {"role": "user", "content": f"{text}\nCandidates:\n{listed}\nWhich candidate is correct?"}], 0.0, rng)
        pick = parse_answer(verdict)
        if pick is not None and 1 <= pick <= len(candidates):
            return candidates[pick - 1]
        return next((c for c in candidates if c is not None), None)


class SelfRevision(_Strategy):
    """Answer, then ask the model to check and revise its answer, `rounds` times."""

    def __init__(self, rounds: int = 2):
        if rounds < 0:
            raise ValueError("rounds must be >= 0")
        self.rounds = rounds

    def answer(self, client, model, text, rng):
        messages = _messages(text)
        reply = self.ask(client, model, messages, 0.0, rng)
        for _ in range(self.rounds):
            messages = messages + [{"role": "assistant", "content": reply},
                                   {"role": "user", "content": "Check your answer step by step and reply with "
                                                               "the corrected final number only."}]
            reply = self.ask(client, model, messages, 0.0, rng)
        return parse_answer(reply)
