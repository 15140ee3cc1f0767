"""Prices: the built-in table, user overrides, batch discount, estimates."""

from __future__ import annotations

from pathlib import Path

import pytest

from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable, estimate_calls


def test_sonnet_list_price_per_million_tokens() -> None:
    table = PriceTable()
    assert table.cost("claude-sonnet-4-6", 1_000_000, 0) == pytest.approx(3.0)
    assert table.cost("claude-sonnet-4-6", 0, 1_000_000) == pytest.approx(15.0)
    assert table.cost("claude-sonnet-4-6", 1_000_000, 0, batch=True) == pytest.approx(1.5)


def test_unknown_model_has_no_price() -> None:
    assert PriceTable().cost("my-local-llama", 1000, 1000) is None


def test_user_file_overrides_and_adds_prices(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"my-local-llama": {"input": 0.1, "output": 0.2}}')
    table = PriceTable.load(path)
    assert table.cost("my-local-llama", 2_000_000, 1_000_000) == pytest.approx(0.4)


def test_malformed_price_file_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"m": {"input": "cheap"}}')
    with pytest.raises(InputError, match=r"prices.json, record m: expected"):
        PriceTable.load(path)


def test_estimate_counts_prompt_characters_and_expected_reply() -> None:
    estimate = estimate_calls(["x" * 400, "y" * 800], "rubric", "claude-sonnet-4-6", PriceTable())
    # (400/4 + 80) + (800/4 + 80) input tokens; 60 output tokens per rubric call
    assert (estimate.calls, estimate.input_tokens, estimate.output_tokens) == (2, 460, 120)
    assert estimate.cost_usd == pytest.approx((460 * 3 + 120 * 15) / 1e6)


def test_max_cost_for_a_model_without_a_price_is_bad_input() -> None:
    # Every estimate would be unknown, so the cap could never stop a call: refuse up front.
    from locoscore.judge import JudgeSettings

    settings = JudgeSettings(provider="openai-compatible", model="llama-3-8b", max_cost_usd=1.0)
    with pytest.raises(InputError, match=r"'--max-cost': needs a price for model llama-3-8b"):
        settings.resolve()
    priced = PriceTable({"llama-3-8b": (0.1, 0.1)})
    settings = JudgeSettings(
        provider="openai-compatible", model="llama-3-8b", max_cost_usd=1.0, prices=priced
    )
    assert settings.resolve().model == "llama-3-8b"
