"""A fake answer provider for the LongMemEval runs: it echoes the first retrieved memory."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from locoscore.testing.fake_provider import FakeConfig, FakeProvider


def echo_first_memory(prompt: str) -> str:
    match = re.search(r"^\[1\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
    return match.group(1) if match else "I do not know."


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lme-0123456789abcdef")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, answer=echo_first_memory)) as provider:
        yield provider
