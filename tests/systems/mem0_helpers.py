"""Shared by the mem0 tests: the skip when the extra is absent, real LoCoMo conversations
cut to a few sessions, a Mem0System pointed at the fake provider, and the request log."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations
from locoscore.data.conversation import Conversation
from locoscore.systems.base import Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeProvider

# mem0 must not be imported before Mem0System sets its environment: look, do not import.
requires_mem0 = pytest.mark.skipif(
    importlib.util.find_spec("mem0") is None, reason="the mem0 extra is not installed"
)
DIMS = 64
API_KEY = "sk-mem0-test-DO-NOT-LOG-51c2"


def conversation(dataset: Any, conversation_id: str, sessions: int | None = None) -> Conversation:
    """A real LoCoMo conversation, optionally only its first `sessions` sessions."""
    full = next(c for c in locomo_conversations(dataset) if c.conversation_id == conversation_id)
    kept = full.sessions if sessions is None else full.sessions[:sessions]
    return Conversation(full.conversation_id, full.speakers, kept)


def fake_options(fp: FakeProvider, **extra: str) -> dict[str, str]:
    return {
        "llm_base_url": fp.openai_url,
        "embedder_base_url": fp.openai_url,
        "embedding_dims": str(DIMS),
        **extra,
    }


def make_mem0(state_dir: Path, fp: FakeProvider, **extra: str) -> Any:
    return make_system("mem0", fake_options(fp, **extra), SystemContext(state_dir))


async def ingest(system: Any, conv: Conversation) -> Usage:
    await system.reset(conv.conversation_id)
    total = Usage()
    for session in conv.sessions:
        total = total + await system.add(session)
    return total


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def requests_to(fp: FakeProvider, path: str) -> list[dict[str, Any]]:
    return [e for e in fp.requests_log if e["path"] == path and e["method"] == "POST"]


def user_prompt(entry: dict[str, Any]) -> str:
    messages = entry["body"]["messages"]
    return str(next(m["content"] for m in messages if m["role"] == "user"))


def new_messages_section(prompt: str) -> list[str]:
    """The lines under mem0's "## New Messages" heading, as sent."""
    body = prompt.split("## New Messages\n", 1)[1].split("\n\n## ", 1)[0]
    return [line for line in body.splitlines() if line]
