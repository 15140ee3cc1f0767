"""Fixtures for the harness tests: keys in the environment, a fake provider that answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from run_helpers import echo_first_memory

from locoscore.testing.fake_provider import FakeConfig, FakeProvider

OPENAI_KEY = "sk-test-run-0123456789abcdef"


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, answer=echo_first_memory)) as provider:
        yield provider
