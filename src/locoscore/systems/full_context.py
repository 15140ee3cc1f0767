"""`full-context`: no memory system at all; the whole conversation goes into the prompt.

Search returns every session in order (its date, speakers and captions in the text), so the
answer step sees the entire conversation. The upper bound papers report; top-k and the
context budget do not apply.

`window_tokens=N` is the shape of BEAM's official long-context baseline: when the
conversation is longer than N cl100k tokens, only the most recent turns that fit are kept
(whole turns, newest first; a session keeps its header when any of its turns stay).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec, resolve_options


class FullContextSystem(MemorySystem):
    name = "full-context"
    ignores_budget = True
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "window_tokens": OptionSpec(
            int, None, "keep only the most recent turns that fit N cl100k tokens"
        ),
    }

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
        window = self.options["window_tokens"]
        if window is not None:
            sessions = most_recent(sessions, window)
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


def most_recent(sessions: list[SessionInput], window: int) -> list[SessionInput]:
    """The sessions cut to the most recent whole turns whose rendered lines fit `window`
    tokens (each kept session's header counted too)."""
    from locoscore.tokens import count_tokens

    kept: list[SessionInput] = []
    used = 0
    for session in reversed(sessions):
        header = count_tokens(session.render().split("\n", 1)[0] + "\n")
        turns: list = []
        for turn in reversed(session.turns):
            cost = count_tokens(turn.render() + "\n") + (0 if turns else header)
            if used + cost > window:
                break
            used += cost
            turns.append(turn)
        if turns:
            kept.append(dataclasses.replace(session, turns=tuple(reversed(turns))))
        if len(turns) < len(session.turns):
            break
    return list(reversed(kept))
