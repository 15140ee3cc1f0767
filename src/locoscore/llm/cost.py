"""Token and cost estimates: a price table the user can override, dry runs, budgets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from locoscore.errors import InputError
from locoscore.llm.endpoint import Served, model_matches

# USD per million tokens (input, output), list prices at the time of writing. Override with
# --prices FILE ({"model": {"input": 3.0, "output": 15.0}}) when they change.
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
BATCH_DISCOUNT = 0.5
# Expected reply length: a score plus one or two sentences, or a label plus one sentence.
EXPECTED_OUTPUT_TOKENS = {"rubric": 60, "binary": 30}
# Request overhead beyond the prompt text (role markup, the output schema).
REQUEST_OVERHEAD_TOKENS = 80


def estimate_prompt_tokens(prompt: str) -> int:
    """About four characters a token for English text, plus the request overhead."""
    return len(prompt) // 4 + REQUEST_OVERHEAD_TOKENS


@dataclass
class PriceTable:
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        table = cls()
        if path is None:
            return table
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read price table: {exc}", file=str(path)) from None
        if not isinstance(data, dict):
            raise InputError("expected an object of models", file=str(path))
        for model, entry in data.items():
            try:
                table.prices[model] = (float(entry["input"]), float(entry["output"]))
            except (TypeError, KeyError, ValueError):
                raise InputError(
                    'expected {"input": USD per Mtok, "output": USD per Mtok}',
                    file=str(path),
                    record=model,
                ) from None
        return table

    def cost(
        self, model: str, input_tokens: int, output_tokens: int, *, batch: bool = False
    ) -> float | None:
        """USD, or None for a model without a price."""
        price = self.prices.get(model)
        if price is None:
            return None
        usd = (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
        return usd * (BATCH_DISCOUNT if batch else 1.0)

    def served_cost(
        self,
        asked: str,
        served: str | None,
        input_tokens: int,
        output_tokens: int,
        *,
        batch: bool = False,
    ) -> float | None:
        """As `cost`, and None when the server said it served another model than asked:
        a price applies only to the model that was really served."""
        if served and not model_matches(asked, served):
            return None
        return self.cost(asked, input_tokens, output_tokens, batch=batch)

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
