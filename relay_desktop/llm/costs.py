"""What each model call cost, from a table of per-model prices the user can edit.

Prices change more often than releases, so the table ships as `prices.json` and is copied to the user's config
folder, where the user's edits win over the shipped defaults entry by entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from relay_desktop import paths
from relay_desktop.llm.types import Usage

PER_TOKEN = 1e-6  # prices are written per million tokens


@dataclass(frozen=True)
class ModelPrice:
    input: float
    output: float
    cached_input: float | None = None  # None: cached prompt tokens cost as much as the others
    cache_write: float | None = None

    def cost(self, usage: Usage) -> float:
        cached = usage.cached_input_tokens if self.cached_input is not None else 0
        written = usage.cache_write_tokens if self.cache_write is not None else 0
        fresh = max(0, usage.input_tokens - cached - written)
        total = fresh * self.input + usage.output_tokens * self.output
        total += cached * (self.cached_input or 0.0) + written * (self.cache_write or 0.0)
        return total * PER_TOKEN


def user_prices_path() -> Path:
    return paths.config_dir() / "prices.json"


class PriceTable:
    def __init__(self, entries: dict[str, dict[str, ModelPrice]]) -> None:
        self.entries = entries

    @classmethod
    def defaults(cls) -> PriceTable:
        text = resources.files("relay_desktop.llm").joinpath("prices.json").read_text("utf-8")
        return cls.from_json(json.loads(text), "the built-in price table")

    @classmethod
    def load(cls, path: Path | None = None) -> PriceTable:
        """The defaults, overridden by the user's file when there is one. A broken file is an error, not ignored:
        a silently wrong price table would show wrong costs."""
        table = cls.defaults()
        path = path or user_prices_path()
        if not path.exists():
            return table
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read the price table {path}: {error}") from None
        except json.JSONDecodeError as error:
            raise ValueError(f"the price table {path} is not valid JSON (line {error.lineno}, column "
                             f"{error.colno}: {error.msg})") from None
        user = cls.from_json(data, str(path))
        for provider, models in user.entries.items():
            table.entries.setdefault(provider, {}).update(models)
        return table

    @classmethod
    def from_json(cls, data: Any, where: str) -> PriceTable:
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object of providers")
        entries: dict[str, dict[str, ModelPrice]] = {}
        for provider, models in data.items():
            if provider.startswith("_"):
                continue  # comments
            if not isinstance(models, dict):
                raise ValueError(f"{where}: {provider!r} must map model ids to prices")
            for model, price in models.items():
                try:
                    entries.setdefault(provider, {})[model] = ModelPrice(
                        **{k: float(v) for k, v in price.items() if not k.startswith("_")})
                except (TypeError, ValueError, AttributeError):
                    raise ValueError(f"{where}: {provider}/{model}: a price needs numbers for input and output "
                                     "(and optionally cached_input and cache_write)") from None
        return cls(entries)

    def write_user_copy(self, path: Path | None = None) -> Path:
        """Copy the defaults to the user's config folder (once), so there is a file to edit."""
        path = path or user_prices_path()
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            text = resources.files("relay_desktop.llm").joinpath("prices.json").read_text("utf-8")
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text, "utf-8")
            tmp.replace(path)
        return path

    def price(self, provider: str, model: str) -> ModelPrice | None:
        """The longest-prefix entry: `claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`."""
        models = self.entries.get(provider, {})
        # OpenRouter-style ids name the vendor: "anthropic/claude-haiku-4-5".
        bare = model.rsplit("/", 1)[-1]
        best = max((m for m in models if model.startswith(m) or bare.startswith(m)), key=len, default=None)
        return models[best] if best is not None else None

    def cost(self, provider: str, model: str, usage: Usage) -> float | None:
        price = self.price(provider, model)
        return price.cost(usage) if price is not None else None


@dataclass
class ModelTotals:
    calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    unpriced_calls: int = 0  # calls whose model had no price: the cost is then a lower bound


@dataclass
class CostMeter:
    """Token use and cost of one run (or one session), per model."""

    by_model: dict[str, ModelTotals] = field(default_factory=dict)

    def add(self, provider: str, model: str, usage: Usage, cost_usd: float | None) -> None:
        totals = self.by_model.setdefault(f"{provider}/{model}", ModelTotals())
        totals.calls += 1
        totals.usage += usage
        if cost_usd is None:
            totals.unpriced_calls += 1
        else:
            totals.cost_usd += cost_usd

    @property
    def usage(self) -> Usage:
        return sum((t.usage for t in self.by_model.values()), Usage())

    @property
    def cost_usd(self) -> float:
        return sum(t.cost_usd for t in self.by_model.values())

    @property
    def complete(self) -> bool:
        """False when some call had no price, so `cost_usd` understates the cost."""
        return not any(t.unpriced_calls for t in self.by_model.values())

    def summary(self) -> str:
        usage = self.usage
        cost = f"${self.cost_usd:.4f}" + ("" if self.complete else " + unpriced calls")
        return (f"{usage.input_tokens} in ({usage.cached_input_tokens} cached) / {usage.output_tokens} out "
                f"tokens, {cost}")
