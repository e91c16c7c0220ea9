"""Metered model clients: every call charges the run's Meter with what the provider reported.

The mistake this prevents: an adapter that reports usage to an object the
comparison never reads, so the run says 0 tokens while the bill grows. Here
the wrapper *is* the way to call the model, and the Meter is the only place
usage goes:

- every attempt is a call, failed and retried ones included (the SDK's own
  retries are switched off so that none is hidden); an attempt that returned
  no usage leaves tokens unreported for that call, which makes the run's
  token figures partial when other calls did report (never 0);
- prompt, completion, cached, cache-write and reasoning tokens are charged
  as their own units when the response has them, in the meanings of
  `baselines.core.units.UNIT_DEFINITIONS`: `prompt_tokens` is every input token
  (OpenAI's `prompt_tokens` as it is; Anthropic's `input_tokens` plus
  `cache_read_input_tokens` plus `cache_creation_input_tokens`), and
  `cached_tokens`/`cache_write_tokens`/`reasoning_tokens` are parts of the
  prompt or completion figure, never added to it again;
- when tokens are budgeted, each call's maximum output is capped at what the
  Meter says remains, so one long reasoning call cannot overshoot by its
  whole length;
- dollars are computed from a dated price table; a model it does not list
  makes the run's `usd` unreported, with the model named in a warning.

Both wrappers expose the SDK's own call shape (`.chat.completions.create`,
`.messages.create`), so arm code reads like ordinary SDK code.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable

from baselines.core.meter import Meter

from .prices import PriceTable


@dataclass(frozen=True)
class Usage:
    """What one response reported, in costmatch's units; None = not reported."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_write_tokens: int | None = None


def _get(obj: Any, *path: str):
    for key in path:
        if obj is None:
            return None
        obj = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
    return obj


def openai_usage(response: Any) -> Usage:
    """OpenAI-shaped usage (OpenAI, vLLM, llama.cpp): `prompt_tokens` already includes cached input."""
    usage = _get(response, "usage")
    if usage is None:
        return Usage()
    return Usage(_get(usage, "prompt_tokens"), _get(usage, "completion_tokens"),
                 _get(usage, "prompt_tokens_details", "cached_tokens"),
                 _get(usage, "completion_tokens_details", "reasoning_tokens"),
                 _get(usage, "prompt_tokens_details", "cache_write_tokens"))


def anthropic_usage(response: Any) -> Usage:
    """Anthropic usage: `input_tokens` excludes cache reads and writes, so they are added back."""
    usage = _get(response, "usage")
    if usage is None:
        return Usage()
    fresh, out = _get(usage, "input_tokens"), _get(usage, "output_tokens")
    read = _get(usage, "cache_read_input_tokens")
    written = _get(usage, "cache_creation_input_tokens")
    prompt = None if fresh is None else fresh + (read or 0) + (written or 0)
    return Usage(prompt, out, read, None, written)


class _Metered:
    """Shared attempt loop: cap, call, charge, retry."""

    retryable: tuple[type[BaseException], ...] = ()
    usage_of: Callable[[Any], Usage] = staticmethod(openai_usage)
    cap_key = "max_tokens"

    def __init__(self, meter: Meter, prices: PriceTable | None, max_attempts: int, backoff: float):
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        self.meter, self.prices, self.max_attempts, self.backoff = meter, prices, max_attempts, backoff

    def _cap(self, kwargs: dict) -> dict:
        self.meter.check()  # a used-up budget stops the arm before the request is sent, never after
        allowance = self.meter.token_allowance()
        if allowance == math.inf:
            return kwargs
        wanted = kwargs.get(self.cap_key)
        cap = int(max(1, allowance if wanted is None else min(wanted, allowance)))
        return {**kwargs, self.cap_key: cap}

    def _charge(self, model: str | None, usage: Usage, failed: bool) -> None:
        usd = None
        if usage.prompt_tokens is not None and usage.completion_tokens is not None and not self.meter.voided("usd"):
            price = self.prices.get(model) if (self.prices is not None and model) else None
            if price is not None:
                usd = price.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens or 0,
                                 usage.cache_write_tokens or 0)
            elif self.prices is not None:
                warnings.warn(f"no price for model {model!r} in the price table dated {self.prices.date}; "
                              "this run's usd is unreported", stacklevel=3)
                self.meter.void("usd", f"no price for {model!r}")
        extra = {}
        if usage.cached_tokens is not None:
            extra["cached_tokens"] = usage.cached_tokens
        if usage.reasoning_tokens is not None:
            extra["reasoning_tokens"] = usage.reasoning_tokens
        if usage.cache_write_tokens is not None:
            extra["cache_write_tokens"] = usage.cache_write_tokens
        self.meter.call(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                        usd=usd, failed_calls=1 if failed else 0, **extra)

    def _attempt_loop(self, create: Callable[..., Any], kwargs: dict) -> Any:
        model = kwargs.get("model")
        last: BaseException | None = None
        for attempt in range(self.max_attempts):
            capped = self._cap(kwargs)
            try:
                response = create(**capped)
            except self.retryable as exc:
                self._charge(model, Usage(*self._error_usage(exc)), failed=True)
                last = exc
                if attempt + 1 < self.max_attempts and self.backoff:
                    time.sleep(self.backoff * 2 ** attempt)
                continue
            self._charge(model, self.usage_of(response), failed=False)
            return response
        raise last  # every attempt failed: the arm sees the provider's error

    @staticmethod
    def _error_usage(exc: BaseException) -> tuple:
        return ()


class _Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class MeteredOpenAI(_Metered):
    """An OpenAI-compatible client (OpenAI, vLLM, llama.cpp server, Ollama) that charges a Meter.

    Use ``metered.chat.completions.create(model=..., messages=..., max_tokens=...)``.
    """

    usage_of = staticmethod(openai_usage)

    def __init__(self, client: Any, meter: Meter, prices: PriceTable | None = None, max_attempts: int = 3,
                 backoff: float = 0.0):
        super().__init__(meter, prices, max_attempts, backoff)
        try:
            import openai  # an optional dependency (the models extra)
            self.retryable = (openai.APIStatusError, openai.APIConnectionError, openai.APITimeoutError)
        except ImportError:  # a duck-typed client (e.g. the local llama.cpp adapter)
            self.retryable = ()
        self._client = client.with_options(max_retries=0) if hasattr(client, "with_options") else client
        self.chat = _Namespace(completions=_Namespace(create=self._create))

    def _create(self, **kwargs):
        return self._attempt_loop(self._client.chat.completions.create, kwargs)


class MeteredAnthropic(_Metered):
    """An `anthropic` client that charges a Meter. Use ``metered.messages.create(...)``."""

    usage_of = staticmethod(anthropic_usage)

    def __init__(self, client: Any, meter: Meter, prices: PriceTable | None = None, max_attempts: int = 3,
                 backoff: float = 0.0):
        super().__init__(meter, prices, max_attempts, backoff)
        import anthropic  # an optional dependency (the models extra)
        self.retryable = (anthropic.APIStatusError, anthropic.APIConnectionError, anthropic.APITimeoutError)
        self._client = client.with_options(max_retries=0)
        self.messages = _Namespace(create=self._create)

    def _create(self, **kwargs):
        return self._attempt_loop(self._client.messages.create, kwargs)


def response_text(response: Any) -> str:
    """The text of an OpenAI-style or Anthropic-style response."""
    choices = _get(response, "choices")
    if choices:
        return _get(choices[0], "message", "content") or ""
    content = _get(response, "content")
    if isinstance(content, list):
        return "".join(_get(block, "text") or "" for block in content)
    return ""
