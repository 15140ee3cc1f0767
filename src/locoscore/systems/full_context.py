"""`full-context`: no memory system at all; the whole conversation goes into the prompt.

Search returns every session in order (its date, speakers and captions in the text), so the
answer step sees the entire conversation. The upper bound papers report; top-k and the
context budget do not apply.
"""

from __future__ import annotations

from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.options import OptionSpec, resolve_options
from locoscore.systems.registry import SystemContext


class FullContextSystem(MemorySystem):
    name = "full-context"
    ignores_budget = True
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {}

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._sessions: dict[str, list[SessionInput]] = {}

    async def reset(self, conversation_id: str) -> None:
        self._sessions[conversation_id] = []

    async def add(self, session: SessionInput) -> Usage:
        self._sessions.setdefault(session.conversation_id, []).append(session)
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        sessions = self._sessions.get(query.conversation_id, [])
        return SearchResult(
            tuple(
                MemoryItem(
                    text=session.render(),
                    date_iso=session.date_iso,
                    date_raw=session.date_raw,
                    dia_ids=tuple(turn.dia_id for turn in session.turns),
                )
                for session in sessions
            )
        )

    def items_in(self, conversation_id: str) -> int | None:
        return len(self._sessions.get(conversation_id, []))
