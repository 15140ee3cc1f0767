"""The benchmark tests talk to the fake provider with a dummy key from the environment."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-benchmarks-SECRETKEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-benchmarks-SECRETKEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
