"""Shared by the fake-provider tests: SDK clients pointed at the fake, and the verdict rule
computed independently of the server."""

from __future__ import annotations

import hashlib
from typing import Any

import anthropic
import openai

from locoscore.testing import FakeProvider

SONNET = "claude-sonnet-4-6"
OLD_VERSION = {"anthropic-version": "2023-06-01"}
SECRET = "sk-test-DO-NOT-LOG-7f3a"
PROMPT = "Question: Where did Caroline go?\nGold: Paris\nCandidate: She went to Paris."
SCORE_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 0, "maximum": 100},
        "label": {"type": "string", "enum": ["CORRECT", "WRONG"]},
        "explanation": {"type": "string"},
    },
    "required": ["score", "label", "explanation"],
    "additionalProperties": False,
}
# Claude's structured outputs refuse numeric bounds: the same schema without them.
OUTPUT_SCHEMA = {
    **SCORE_SCHEMA,
    "properties": {**SCORE_SCHEMA["properties"], "score": {"type": "integer"}},  # type: ignore[dict-item]
}
SCHEMA_OUTPUT = {"format": {"type": "json_schema", "schema": OUTPUT_SCHEMA}}


def hash_rule(text: str) -> int:
    """The documented default verdict: 40 + sha256(text) mod 61."""
    return 40 + int(hashlib.sha256(text.encode()).hexdigest(), 16) % 61


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def claude(fake: FakeProvider, **kwargs: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake.url, api_key=SECRET, max_retries=0, **kwargs)


def gpt(fake: FakeProvider, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.openai_url, api_key=SECRET, max_retries=0, **kwargs)


def ask(client: anthropic.Anthropic, text: str = PROMPT, **kwargs: Any) -> Any:
    """One Messages call with the judge's defaults, overridable per test."""
    params: dict[str, Any] = {"model": SONNET, "max_tokens": 256, "messages": user(text)}
    return client.messages.create(**{**params, **kwargs})
