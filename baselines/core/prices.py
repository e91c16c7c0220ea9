"""Dated per-model prices, so `usd` is computed from measured tokens, never guessed.

The shipped table (`baselines/data/prices.json`) carries its date and source;
a user's JSON file of the same shape overrides or adds models. A model that
is not in the table is never priced at 0: the run's `usd` becomes
unreported, with the model named in a warning.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from baselines.core.errors import InputError
from baselines.core.input_files import read_input

DEFAULT_PRICES = Path(__file__).resolve().parent.parent / "data" / "prices.json"


@dataclass(frozen=True)
class Price:
    """USD per million tokens.

    `prompt_tokens` passed to :meth:`cost` is every input token (the
    definition in `baselines.core.units`): cache reads and cache writes are parts
    of it, priced at `cached_input` and `cache_write_input` (both default to
    `input` when a table does not list them).
    """

    input: float
    output: float
    cached_input: float
    cache_write_input: float | None = None

    def cost(self, prompt_tokens: float, completion_tokens: float, cached_tokens: float = 0.0,
             cache_write_tokens: float = 0.0) -> float:
        fresh = max(0.0, prompt_tokens - cached_tokens - cache_write_tokens)
        write_price = self.input if self.cache_write_input is None else self.cache_write_input
        return (fresh * self.input + cached_tokens * self.cached_input + cache_write_tokens * write_price
                + completion_tokens * self.output) / 1e6


@dataclass(frozen=True)
class PriceTable:
    date: str
    source: str
    models: dict[str, Price]

    def get(self, model: str) -> Price | None:
        return self.models.get(model)


def _parse(data: dict, where: str) -> PriceTable:
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise InputError(f"{where}: a price file is a JSON object with 'date', 'source' and 'models'")
    models = {}
    for name, p in data["models"].items():
        try:
            models[name] = Price(float(p["input"]), float(p["output"]), float(p.get("cached_input", p["input"])),
                                 float(p.get("cache_write_input", p["input"])))
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{where}: models.{name} needs numeric 'input' and 'output' (USD per million tokens)") from None
        price = models[name]
        values = (price.input, price.output, price.cached_input, price.cache_write_input)
        if not all(math.isfinite(v) for v in values):
            raise InputError(f"{where}: models.{name} has a price that is not a finite number")
        if min(values) < 0:
            raise InputError(f"{where}: models.{name} has a negative price")
    return PriceTable(str(data.get("date", "undated")), str(data.get("source", "unknown")), models)


def load_prices(override: str | Path | None = None) -> PriceTable:
    """The shipped table, with `override` (a JSON file of the same shape) on top."""
    base = _parse(json.loads(DEFAULT_PRICES.read_text()), str(DEFAULT_PRICES))
    if override is None:
        return base
    path = Path(override)
    raw = read_input(path, "price file")  # a FIFO, a device or a folder is refused before it can block
    try:
        extra = _parse(json.loads(raw), str(path))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; save the price file as UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg})") from None
    return PriceTable(extra.date, f"{extra.source} (over {base.source[:40]}...)", {**base.models, **extra.models})
