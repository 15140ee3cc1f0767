"""Token and cost estimates: a price table the user can override, dry runs, budgets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from locoscore._io import read_json_object
from locoscore.errors import InputError
from locoscore.llm.endpoint import Served, model_matches

# USD per million tokens (input, output), list prices at the time of writing. Override with
# --prices FILE ({"model": {"input": 3.0, "output": 15.0, "cache_write": 3.75,
# "cache_read": 0.3}}) when they change.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-opus-4-7": (5.0, 25.0),
    "claude-opus-4-8": (5.0, 25.0),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.0),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.0, 8.0),
    # Embedding models: input tokens only.
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.10, 0.0),
}
# USD per million prompt tokens written to / read from the provider's prompt cache (write,
# read), as published: Anthropic bills a 5-minute cache write at 1.25x and a read at 0.1x
# the input price; OpenAI writes at the input price and reads at 0.5x (gpt-4o family) or
# 0.25x (gpt-4.1 family). A model without an entry here is priced by those ratios.
DEFAULT_CACHE_PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-6": (3.75, 0.30),
    "claude-sonnet-4-5": (3.75, 0.30),
    "claude-haiku-4-5": (1.25, 0.10),
    "claude-opus-4-7": (6.25, 0.50),
    "claude-opus-4-8": (6.25, 0.50),
    "gpt-4o-mini": (0.15, 0.075),
    "gpt-4o": (2.50, 1.25),
    "gpt-4.1-mini": (0.40, 0.10),
    "gpt-4.1": (2.0, 0.50),
}
ANTHROPIC_CACHE_RATIOS = (1.25, 0.1)
OPENAI_CACHE_RATIOS = (1.0, 0.5)
BATCH_DISCOUNT = 0.5
# Expected reply length: a score plus one or two sentences, or a label plus one sentence.
EXPECTED_OUTPUT_TOKENS = {"rubric": 60, "binary": 30}
# Request overhead beyond the prompt text (role markup, the output schema).
REQUEST_OVERHEAD_TOKENS = 80


def estimate_prompt_tokens(prompt: str) -> int:
    """About four characters a token for English text, plus the request overhead."""
    return len(prompt) // 4 + REQUEST_OVERHEAD_TOKENS


def cache_ratios(model: str) -> tuple[float, float]:
    """(write, read) as multiples of the input price, by the model's provider."""
    return ANTHROPIC_CACHE_RATIOS if model.startswith("claude") else OPENAI_CACHE_RATIOS


_PRICE_FIELDS = ("input", "output", "cache_write", "cache_read")


def _price(entry: dict[str, object], name: str, path: Path, model: str,
           default: float | None = None) -> float:  # fmt: skip
    """A price of the --prices file: a finite, non-negative number (not a string, not a
    boolean: JSON's `true` is not a price, and "1.0" is a typo waiting to happen)."""
    import math

    value = entry.get(name, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise InputError(
            f"{json.dumps(entry.get(name))}: a price is a finite number >= 0 (USD per Mtok)",
            file=str(path),
            record=model,
            field=name,
        )
    return float(value)


@dataclass
class PriceTable:
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    # (cache write, cache read) USD per Mtok; a priced model without an entry: cache_ratios.
    cache_prices: dict[str, tuple[float, float]] = field(
        default_factory=lambda: dict(DEFAULT_CACHE_PRICES)
    )
    source: str = "built-in"  # which table: "built-in", or the --prices file and its hash
    from_file: set[str] = field(default_factory=set)  # the models the --prices file priced

    def origin(self, model: str) -> str | None:
        """Where `model`'s price comes from: "file", "built-in", or None (no price)."""
        if model in self.from_file:
            return "file"
        return "built-in" if model in self.prices else None

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        table = cls()
        if path is None:
            return table
        import hashlib

        try:
            table.source = (
                f"{path.name} sha256:{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"
            )
        except OSError as exc:
            raise InputError(f"cannot read price table: {exc}", file=str(path)) from None
        data = read_json_object(path, "cannot read price table: {}", "expected an object of models")
        shape = (
            'expected {"input": USD per Mtok, "output": USD per Mtok} (optional '
            '"cache_write", "cache_read")'
        )
        for model, entry in data.items():
            if not isinstance(entry, dict) or "input" not in entry or "output" not in entry:
                raise InputError(shape, file=str(path), record=model)
            unknown = sorted(set(entry) - set(_PRICE_FIELDS))
            if unknown:
                raise InputError(f"unknown price field ({shape})", file=str(path), record=model,
                                 field=unknown[0])  # fmt: skip
            price_in = _price(entry, "input", path, model)
            table.prices[model] = (price_in, _price(entry, "output", path, model))
            write, read = (r * price_in for r in cache_ratios(model))
            table.cache_prices[model] = (
                _price(entry, "cache_write", path, model, write),
                _price(entry, "cache_read", path, model, read),
            )
            table.from_file.add(model)
        return table

    def cache_price(self, model: str) -> tuple[float, float] | None:
        """(cache write, cache read) USD per Mtok, or None for a model without a price."""
        if model in self.cache_prices:
            return self.cache_prices[model]
        price = self.prices.get(model)
        if price is None:
            return None
        write, read = cache_ratios(model)
        return price[0] * write, price[0] * read

    def cost(
        self,
        model: str,
        input_tokens: int,
        output_tokens: int,
        *,
        batch: bool = False,
        cache_read: int = 0,
        cache_write: int = 0,
        served: str | None = None,
    ) -> float | None:
        """USD, or None for a model without a price. `input_tokens` counts every prompt
        token; `cache_read` and `cache_write` are the parts of it read from or written to
        the provider's prompt cache, billed at their own prices. None too when the server
        said it `served` another model than `model`: a price applies only to the model that
        was really served."""
        if served and not model_matches(model, served):
            return None
        price = self.prices.get(model)
        if price is None:
            return None
        uncached = max(0, input_tokens - cache_read - cache_write)
        usd = uncached * price[0] + output_tokens * price[1]
        if cache_read or cache_write:
            write, read = self.cache_price(model) or (price[0], price[0])
            usd += cache_write * write + cache_read * read
        return usd / 1_000_000 * (BATCH_DISCOUNT if batch else 1.0)

    def unknown_reason(self, asked: str, served: Served) -> str | None:
        """Why a pass's cost is n/a (reported beside the null), or None when it is known."""
        wrong = served.mismatches(asked)
        if wrong:
            return f"served {', '.join(wrong)}, not {asked}: no price applies"
        if asked not in self.prices:
            return f"no price for model {asked} (add it with --prices FILE)"
        return None


@dataclass(frozen=True)
class Estimate:
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


def estimate_calls(
    prompts: list[str], protocol: str, model: str, prices: PriceTable, *, batch: bool = False
) -> Estimate:
    input_tokens = sum(estimate_prompt_tokens(p) for p in prompts)
    output_tokens = EXPECTED_OUTPUT_TOKENS.get(protocol, 60) * len(prompts)
    return Estimate(
        len(prompts),
        input_tokens,
        output_tokens,
        prices.cost(model, input_tokens, output_tokens, batch=batch),
    )
