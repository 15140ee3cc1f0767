"""A fake provider for the LongMemEval tests: answers echo the first retrieved memory,
verdicts follow the reference-recall rule (CORRECT when >= 70 % of the reference's words
are in the answer)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from locoscore.testing._verdicts import reference_recall_score
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
    config = FakeConfig(timeout_s=5.0, answer=echo_first_memory, verdict=reference_recall_score)
    with FakeProvider(config) as provider:
        yield provider
