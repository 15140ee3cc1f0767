"""Ingestion: each conversation once per run, sessions in order, every cost measured."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from locoscore.data.conversation import Conversation
from locoscore.errors import LocoscoreError
from locoscore.systems.base import MemorySystem, Usage


class IngestionError(LocoscoreError):
    """A system failed while storing a conversation; its questions are recorded as failed."""


@dataclass(frozen=True)
class IngestionMeasures:
    conversation_id: str
    sessions: int
    turns: int
    wall_s: float
    usage: Usage
    skipped: bool = False  # already in the system's persistent store from an earlier run
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "wall_s": round(self.wall_s, 4),
            "usage": self.usage.to_json(),
            "skipped": self.skipped,
            "error": self.error,
        }


def _one_line(exc: BaseException) -> str:
    from locoscore.llm.call_errors import redact_secrets

    text = " ".join(str(exc).split()) or type(exc).__name__
    return redact_secrets(f"{type(exc).__name__}: {text}")[:300]


async def ingest_conversation(
    system: MemorySystem, conversation: Conversation
) -> IngestionMeasures:
    """reset, then add every session in order; a failure is measured and reported, not
    raised, so the other conversations go on."""
    sessions, turns = len(conversation.sessions), conversation.turn_count
    if await system.already_ingested(conversation):
        return IngestionMeasures(conversation.conversation_id, sessions, turns, 0.0, Usage(), True)
    usage = Usage()
    started = time.perf_counter()
    try:
        await system.reset(conversation.conversation_id)
        for session in conversation.sessions:
            spent = await system.add(session)
            if spent is not None:
                usage = usage + spent
    except Exception as exc:  # the user's or a server's failure: recorded, never a crash
        wall = time.perf_counter() - started
        return IngestionMeasures(
            conversation.conversation_id, sessions, turns, wall, usage, error=_one_line(exc)
        )
    wall = time.perf_counter() - started
    return IngestionMeasures(conversation.conversation_id, sessions, turns, wall, usage)


one_line_error = _one_line
