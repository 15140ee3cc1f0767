"""Cache-write and cache-read prices: the published ones, a user's table, and a state file
from before cached tokens were recorded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.llm.ledger import Ledger, Spend


def test_published_cache_prices() -> None:
    table = PriceTable()
    assert table.cache_price("claude-sonnet-4-5") == (3.75, 0.30)
    assert table.cache_price("gpt-4o-mini") == (0.15, 0.075)
    assert table.cache_price("gpt-4.1-mini") == (0.40, 0.10)
    # every priced Claude model: write 1.25x, read 0.1x the input price
    for model, (price_in, _) in table.prices.items():
        if model.startswith("claude"):
            write, read = table.cache_price(model) or (0, 0)
            assert (write, read) == pytest.approx((1.25 * price_in, 0.1 * price_in))
    assert table.cache_price("unpriced-model") is None


def test_cost_prices_each_part_of_the_prompt_at_its_own_price() -> None:
    table = PriceTable()
    # 10,000 prompt tokens: 1,000 uncached, 8,000 read, 1,000 written; 100 out
    usd = table.cost("claude-sonnet-4-5", 10_000, 100, cache_read=8_000, cache_write=1_000)
    assert usd == pytest.approx((1_000 * 3 + 8_000 * 0.30 + 1_000 * 3.75 + 100 * 15) / 1e6)
    # nothing cached: the plain price, as before
    assert table.cost("gpt-4o-mini", 2_000, 50) == pytest.approx((2_000 * 0.15 + 50 * 0.6) / 1e6)
    batch = table.cost("gpt-4o-mini", 2_000, 0, cache_read=1_024, batch=True)
    assert batch == pytest.approx((976 * 0.15 + 1_024 * 0.075) / 1e6 / 2)


def test_a_price_applies_only_to_the_model_the_server_served() -> None:
    table = PriceTable()
    plain = (2_000 * 0.15 + 50 * 0.6) / 1e6
    # a dated snapshot of the model asked for is the model asked for
    dated = table.cost("gpt-4o-mini", 2_000, 50, served="gpt-4o-mini-2024-07-18")
    assert dated == pytest.approx(plain)
    assert table.cost("gpt-4o-mini", 2_000, 50, served="") == pytest.approx(plain)  # unsaid
    assert table.cost("gpt-4o-mini", 2_000, 50, served="llama-3") is None


def test_a_users_table_sets_or_derives_cache_prices(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "claude-new": {"input": 10, "output": 50},
                "gpt-new": {"input": 1, "output": 4, "cache_read": 0.25},
                "claude-sonnet-4-5": {"input": 3, "output": 15, "cache_write": 6, "cache_read": 1},
            }
        )
    )
    table = PriceTable.load(path)
    assert table.cache_price("claude-new") == pytest.approx((12.5, 1.0))
    assert table.cache_price("gpt-new") == (1.0, 0.25)
    assert table.cache_price("claude-sonnet-4-5") == (6.0, 1.0)
    assert table.source.startswith("prices.json sha256:")
    assert PriceTable().source == "built-in"
    path.write_text(json.dumps({"m": {"input": 1, "output": 2, "cache_read": "cheap"}}))
    with pytest.raises(InputError, match="cache_read"):
        PriceTable.load(path)


def test_a_ledger_from_before_cached_tokens_opens_and_adds_them(tmp_path: Path) -> None:
    conn = sqlite3.connect(str(tmp_path / "state.sqlite"), isolation_level=None)
    conn.executescript(
        "CREATE TABLE attempts (job TEXT NOT NULL, attempt INTEGER NOT NULL, started_at REAL "
        "NOT NULL, requests INTEGER NOT NULL, results INTEGER NOT NULL, input_tokens INTEGER "
        "NOT NULL, output_tokens INTEGER NOT NULL, cost_usd REAL, PRIMARY KEY (job, attempt));"
        "INSERT INTO attempts VALUES ('answer', 1, 0, 3, 3, 900, 30, 0.01);"
    )
    ledger = Ledger(conn, "answer")
    assert ledger.earlier == Spend(3, 3, 900, 30, 0.01, attempts=1)
    ledger.record(Spend(2, 2, 5_000, 20, 0.002, cache_read_tokens=4_000, cache_write_tokens=500))
    again = Ledger(conn, "answer")
    assert again.earlier.cache_read_tokens == 4_000 and again.earlier.cache_write_tokens == 500
    assert again.earlier.input_tokens == 5_900
