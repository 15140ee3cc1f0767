"""Fixtures for the judge tests: API keys in the environment, a fake provider on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from judge_helpers import ANTHROPIC_KEY, OPENAI_KEY

from locoscore.testing.fake_provider import FakeConfig, FakeProvider


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as provider:
        yield provider
