"""Fixtures for the local-model tests: a key in the environment (the stand-in needs none)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)
