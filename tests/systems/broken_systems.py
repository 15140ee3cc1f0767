"""Deliberately broken memory systems, each with one integration bug the field has shipped
(see the reference's harness notes): the probe must fail on each, naming the check.

Importable as `python:broken_systems:<Class>` when this folder is the working directory.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import SearchResult, Usage
from locoscore.systems.bm25 import BM25System, _Index


class DateDroppingBM25(BM25System):
    """Loses the session date on the way in (a date only in metadata nobody reads)."""

    async def add(self, session: SessionInput) -> Usage:
        return await super().add(replace(session, date_raw=None, date_iso=None))


class IngestionDayBM25(BM25System):
    """Stamps every memory with the day it was ingested instead of the session's date."""

    async def add(self, session: SessionInput) -> Usage:
        today = "2026-12-01T09:00"
        return await super().add(replace(session, date_raw=None, date_iso=today))


class CaptionDroppingBM25(BM25System):
    """Reads the caption from a key that does not exist: every image caption is lost."""

    async def add(self, session: SessionInput) -> Usage:
        turns = tuple(replace(turn, caption=None) for turn in session.turns)
        return await super().add(replace(session, turns=turns))


class LeakyBM25(BM25System):
    """Stores per conversation but searches every conversation at once (ignores the id)."""

    async def search(self, query: Query) -> SearchResult:
        everything = _Index()
        for index in self._indexes.values():
            everything.items.extend(index.items)
            everything.tokens.extend(index.tokens)
        self._indexes["*"] = everything
        try:
            return await super().search(replace(query, conversation_id="*"))
        finally:
            del self._indexes["*"]


class DoubleAddBM25(BM25System):
    """Stores every session twice (as a harness adding it once per speaker would)."""

    async def add(self, session: SessionInput) -> Usage:
        await super().add(session)
        return await super().add(session)


class TopKIgnoringBM25(BM25System):
    """Returns its own fixed number of items whatever top_k the run asked for."""

    async def search(self, query: Query) -> SearchResult:
        return await super().search(replace(query, top_k=10))


class ResetIgnoringBM25(BM25System):
    """reset() is a no-op: a rerun would see the previous run's memories."""

    async def reset(self, conversation_id: str) -> None:
        return None


class SlowIndexBM25(BM25System):
    """Indexes asynchronously: a session becomes searchable `delay_s` after add returns."""

    delay_s: ClassVar[float] = 0.3

    def __init__(self, options: dict[str, str], context: object) -> None:
        super().__init__(options, context)  # type: ignore[arg-type]
        self._pending: list[tuple[float, SessionInput]] = []

    async def add(self, session: SessionInput) -> Usage:
        self._pending.append((time.monotonic() + self.delay_s, session))
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        now = time.monotonic()
        ready = [s for due, s in self._pending if due <= now]
        self._pending = [(due, s) for due, s in self._pending if due > now]
        for session in ready:
            await super().add(session)
        return await super().search(query)

    async def reset(self, conversation_id: str) -> None:
        self._pending = [(d, s) for d, s in self._pending if s.conversation_id != conversation_id]
        await super().reset(conversation_id)


class NeverIndexesBM25(SlowIndexBM25):
    delay_s = 3600.0


class SelfAnsweringBM25(BM25System):
    """Answers itself (no items): the best turn's text followed by its session date."""

    answers_itself = True
    say_dates: ClassVar[bool] = True

    async def search(self, query: Query) -> SearchResult:
        found = await super().search(replace(query, top_k=1))
        if not found.items:
            return SearchResult((), answer="I do not know.")
        best = found.items[0]
        said = f" (said {best.date_raw})" if self.say_dates else ""
        return SearchResult((), answer=f"{best.text}{said}")


class DatelessAnsweringBM25(SelfAnsweringBM25):
    say_dates = False


class BadShapesBM25(BM25System):
    """Returns dia_ids the conversation never had and a NaN score."""

    async def search(self, query: Query) -> SearchResult:
        found = await super().search(query)
        return SearchResult(
            tuple(
                replace(item, score=float("nan"), dia_ids=(*(item.dia_ids or ()), "X9:9"))
                for item in found.items
            )
        )


class CrashingSearchBM25(BM25System):
    async def search(self, query: Query) -> SearchResult:
        raise RuntimeError("index file vanished\nsecond line")


class CrashingAddBM25(BM25System):
    async def add(self, session: SessionInput) -> Usage:
        if session.index == 2:
            raise ConnectionError("memory server went away")
        return await super().add(session)


class UnknownConversationCrashBM25(BM25System):
    async def search(self, query: Query) -> SearchResult:
        if query.conversation_id not in self._indexes:
            raise KeyError(query.conversation_id)
        return await super().search(query)


class StaleItemsBM25(BM25System):
    """Serves items of the last conversation it saw for an unknown conversation."""

    async def search(self, query: Query) -> SearchResult:
        if query.conversation_id not in self._indexes:
            query = replace(query, conversation_id=next(reversed(self._indexes)))
        return await super().search(query)


class ResetWipesAllBM25(BM25System):
    """reset(conversation) forgets every conversation."""

    async def reset(self, conversation_id: str) -> None:
        self._indexes.clear()
