"""`--system http` as a run sees it: ingestion usage, self-answering servers, signature."""

from __future__ import annotations

import asyncio

import pytest

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.http import HttpSystem
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer


def _session(conversation_id: str, index: int, turns: int) -> SessionInput:
    return SessionInput(
        conversation_id=conversation_id,
        index=index,
        date_raw=f"10:00 am on {index} May, 2023",
        date_iso=f"2023-05-{index:02d}T10:00",
        turns=tuple(
            TurnInput("Ann", f"D{index}:{n}", f"fact number {n} of session {index}")
            for n in range(1, turns + 1)
        ),
        speakers=("Ann", "Bob"),
    )


class _MeteredSystem(MemorySystem):
    """Reports what an extracting system would spend: per turn 100 tokens in, 1 out and
    $0.001; stores nothing retrievable and does not say how many items it holds."""

    name = "metered"

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        n = len(session.turns)
        return Usage(input_tokens=100 * n, output_tokens=n, cost_usd=0.001 * n, calls=1)

    async def search(self, query: Query) -> SearchResult:
        return SearchResult((), Usage(input_tokens=7, calls=1))


def _ingest(system: HttpSystem, sessions: list[SessionInput]) -> list[Usage]:
    async def go() -> list[Usage]:
        await system.start()
        try:
            spent = []
            for conversation_id in sorted({s.conversation_id for s in sessions}):
                await system.reset(conversation_id)
            for session in sessions:
                spent.append(await system.add(session))
            return spent
        finally:
            await system.aclose()

    return asyncio.run(go())


def test_add_returns_what_the_server_spent_on_each_session(context):
    sessions = [_session("a", 1, 2), _session("a", 2, 3), _session("b", 1, 4)]
    with MemoryServer(_MeteredSystem()) as server:
        client = HttpSystem({"url": server.url}, context)
        spent = _ingest(client, sessions)
    assert [(u.input_tokens, u.output_tokens, u.calls) for u in spent] == [
        (200, 2, 1),
        (300, 3, 1),
        (400, 4, 1),
    ]
    assert [u.cost_usd for u in spent] == pytest.approx([0.002, 0.003, 0.004])


def test_items_in_is_unknown_when_the_server_does_not_say(context):
    with MemoryServer(_MeteredSystem()) as server:
        client = HttpSystem({"url": server.url}, context)
        _ingest(client, [_session("a", 1, 2)])
    assert client.items_in("a") is None


def test_items_in_is_what_the_server_reports(context):
    with MemoryServer(make_system("bm25", {}, context)) as server:
        client = HttpSystem({"url": server.url}, context)
        _ingest(client, [_session("a", 1, 2), _session("a", 2, 3)])
    assert client.items_in("a") == 5


class _AnsweringSystem(MemorySystem):
    """Answers itself: the answer is the best item's text, upper-cased."""

    name = "oracle"
    answers_itself = True

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        item = MemoryItem(text=f"about {query.text}", score=0.5, dia_ids=("D1:1",))
        return SearchResult((item,), Usage(input_tokens=40, output_tokens=3), item.text.upper())


def test_a_server_that_answers_itself_owns_the_answer_step(context):
    query = Query("a", "a#0", "the lake", top_k=5)

    async def ask(client: HttpSystem) -> SearchResult:
        await client.start()
        try:
            return await client.search(query)
        finally:
            await client.aclose()

    with MemoryServer(_AnsweringSystem()) as server:
        client = HttpSystem({"url": server.url}, context)
        result = asyncio.run(ask(client))
    assert result.answer == "ABOUT THE LAKE"
    assert result.items == (MemoryItem(text="about the lake", score=0.5, dia_ids=("D1:1",)),)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (40, 3)
    assert client.answers_itself is True
    assert HttpSystem.answers_itself is False  # set on the instance, not the class
    assert client.signature_options() == {
        "answers": "server",
        "contract": "locoscore-memory/1",
        "server": "oracle",
    }


def test_a_served_full_context_ignores_the_budget_over_http_too(context):
    with MemoryServer(make_system("full-context", {}, context)) as server:
        client = HttpSystem({"url": server.url}, context)
        _ingest(client, [])
    assert client.ignores_budget is True
    assert client.answers_itself is False


def test_the_servers_flags_and_signature_are_known_before_start(context):
    """The run signs and plans (answer step, budgets) before it starts the system."""
    with MemoryServer(_AnsweringSystem()) as server:
        client = HttpSystem({"url": server.url}, context)
    assert client.answers_itself is True
    assert client.signature_options()["server"] == "oracle"


def test_connection_options_stay_out_of_the_signature(context: SystemContext):
    with MemoryServer(make_system("bm25", {"k1": "1.2"}, context)) as server:
        options = {"url": server.url, "timeout_s": "5", "max_attempts": "2"}
        client = HttpSystem(options, context)
        _ingest(client, [])
    assert client.signature_options() == {
        "contract": "locoscore-memory/1",
        "server": "bm25",
        "server.b": "0.75",
        "server.granularity": "turn",
        "server.k1": "1.2",
    }
