"""A memory system that keeps everything it is given, for tests of what a benchmark hands a
system: `python:plus_recorder:Recorder` (this folder is on the tests' path). It answers as
full-context does, so a run's answer prompts hold the whole conversation."""

from __future__ import annotations

from typing import ClassVar

from locoscore.data.conversation import SessionInput
from locoscore.systems.base import Usage
from locoscore.systems.full_context import FullContextSystem

SEEN: dict[str, list[SessionInput]] = {}  # conversation id -> its sessions, as added


class Recorder(FullContextSystem):
    name: ClassVar[str] = "recorder"

    async def add(self, session: SessionInput) -> Usage:
        SEEN.setdefault(session.conversation_id, []).append(session)
        return await super().add(session)
