"""Ingestion: each conversation once per run, sessions in order, every cost measured."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from locoscore.data.conversation import Conversation
from locoscore.errors import LocoscoreError
from locoscore.llm.call_errors import one_line_error
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


async def ingest_conversation(
    system: MemorySystem,
    conversation: Conversation,
    on_spent: Callable[[int, Usage], None] | None = None,
) -> IngestionMeasures:
    """reset, then add every session in order; a failure is measured and reported, not
    raised, so the other conversations go on. `on_spent(sessions, usage)` follows each call
    into the system: the sessions it added (1 for `add`, else 0) and what it spent."""
    sessions, turns = len(conversation.sessions), conversation.turn_count
    if await system.already_ingested(conversation):
        return IngestionMeasures(conversation.conversation_id, sessions, turns, 0.0, Usage(), True)
    usage = Usage()
    wall = 0.0  # time inside the system's calls, not the yields between them

    async def timed(call: Awaitable[Usage | None], sessions: int = 0) -> None:
        nonlocal usage, wall
        started = time.perf_counter()
        spent = await call or Usage()
        wall += time.perf_counter() - started
        usage = usage + spent
        if on_spent is not None:
            on_spent(sessions, spent)
        # Let other conversations' questions go out between sessions: a CPU-bound add
        # never yields on its own.
        await asyncio.sleep(0)

    cid = conversation.conversation_id
    try:
        await timed(system.reset(cid))
        for session in conversation.sessions:
            await timed(system.add(session), sessions=1)
        await timed(system.finish(cid))
    except Exception as exc:  # the user's or a server's failure: recorded, never a crash
        return IngestionMeasures(cid, sessions, turns, wall, usage, error=one_line_error(exc))
    return IngestionMeasures(cid, sessions, turns, wall, usage)
