"""The reference server of `locoscore-memory/1`: routes, body checks, auth, concurrency."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import pytest

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

SESSION = {
    "conversation_id": "conv-x",
    "session_index": 1,
    "date_raw": "1:56 pm on 8 May, 2023",
    "date_iso": "2023-05-08T13:56",
    "speakers": ["Caroline", "Melanie"],
    "turns": [
        {
            "speaker": "Caroline",
            "dia_id": "D1:1",
            "text": "I went to a support group.",
            "caption": None,
        },
        {
            "speaker": "Melanie",
            "dia_id": "D1:2",
            "text": "Look at my painting!",
            "caption": "a sunset over a lake",
        },
    ],
}
QUERY = {
    "conversation_id": "conv-x",
    "question_id": "conv-x#0",
    "query": "What did Melanie paint?",
    "top_k": 1,
    "date_iso": "2023-05-08T13:56",
}


def _post(server: MemoryServer, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=5, **kwargs)


def _ingest(server: MemoryServer) -> None:
    assert _post(server, "/v1/conversations/conv-x/reset").status_code == 200
    assert _post(server, "/v1/conversations/conv-x/sessions", SESSION).status_code == 200


def test_info_names_contract_system_options_and_capabilities(bm25_server):
    reply = httpx.get(bm25_server.url + "/v1/info", timeout=5)
    assert reply.status_code == 200
    assert reply.json() == {
        "contract": "locoscore-memory/1",
        "system": "bm25",
        "options": {"b": "0.75", "granularity": "turn", "k1": "1.5"},
        "capabilities": {"answers": False, "ignores_budget": False},
    }


def test_full_context_is_served_as_ignoring_the_budget(context):
    with MemoryServer(make_system("full-context", {}, context)) as server:
        capabilities = httpx.get(server.url + "/v1/info", timeout=5).json()["capabilities"]
    assert capabilities == {"answers": False, "ignores_budget": True}


def test_reset_add_search_round_trip(bm25_server):
    reset = _post(bm25_server, "/v1/conversations/conv-x/reset").json()
    assert reset == {"conversation_id": "conv-x", "items_in": 0}
    added = _post(bm25_server, "/v1/conversations/conv-x/sessions", SESSION).json()
    assert added["items_in"] == 2  # one item per turn
    assert added["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "embedding_tokens": 0,
        "cost_usd": None,
        "calls": 0,
    }
    found = _post(bm25_server, "/v1/conversations/conv-x/search", QUERY).json()
    assert found["question_id"] == "conv-x#0"
    [item] = found["items"]
    assert item["text"] == "Melanie: Look at my painting! [shares an image: a sunset over a lake]"
    assert item["dia_ids"] == ["D1:2"]
    assert (item["date_iso"], item["date_raw"]) == ("2023-05-08T13:56", "1:56 pm on 8 May, 2023")
    assert item["score"] > 0


def test_reset_empties_the_conversation(bm25_server):
    _ingest(bm25_server)
    _post(bm25_server, "/v1/conversations/conv-x/reset")
    assert _post(bm25_server, "/v1/conversations/conv-x/search", QUERY).json()["items"] == []


def test_conversation_ids_travel_percent_encoded(bm25_server):
    odd_id = "team a/conv#7"
    session = SESSION | {"conversation_id": odd_id}
    path = "/v1/conversations/team%20a%2Fconv%237"
    assert _post(bm25_server, path + "/reset").status_code == 200
    assert _post(bm25_server, path + "/sessions", session).json()["conversation_id"] == odd_id
    found = _post(bm25_server, path + "/search", QUERY | {"conversation_id": odd_id}).json()
    assert [item["dia_ids"] for item in found["items"]] == [["D1:2"]]


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("sessions", "{not json", "body is not valid JSON"),
        ("sessions", [], "body: expected a JSON object"),
        (
            "sessions",
            SESSION | {"conversation_id": "conv-y"},
            "body.conversation_id: 'conv-y' differs from the path's 'conv-x'",
        ),
        (
            "sessions",
            SESSION | {"turns": [{"dia_id": "D1:1", "text": "hi"}]},
            "body.turns[0].speaker: expected a string",
        ),
        (
            "sessions",
            SESSION | {"session_index": "1"},
            "body.session_index: expected an integer >= 0",
        ),
        ("sessions", SESSION | {"date_iso": 20230508}, "body.date_iso: expected a string or null"),
        ("search", QUERY | {"top_k": 0}, "body.top_k: expected an integer >= 1"),
        (
            "search",
            {k: v for k, v in QUERY.items() if k != "query"},
            "body.query: expected a string",
        ),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(bm25_server, action, body, message):
    url = f"{bm25_server.url}/v1/conversations/conv-x/{action}"
    content = body if isinstance(body, str) else None
    reply = httpx.post(url, content=content, json=None if content else body, timeout=5)
    assert reply.status_code == 400
    assert reply.json() == {"error": {"message": message, "type": "invalid_request"}}


@pytest.mark.parametrize(
    ("method", "path", "status", "error_type"),
    [
        ("GET", "/v1/nowhere", 404, "not_found"),
        ("POST", "/v1/conversations/conv-x/forget", 404, "not_found"),
        ("GET", "/v1/conversations/conv-x/search", 405, "method_not_allowed"),
        ("POST", "/v1/info", 405, "method_not_allowed"),
        ("POST", "/v1/conversations/conv-x/answer", 404, "not_supported"),
    ],
)
def test_routes_outside_the_contract_are_json_errors(bm25_server, method, path, status, error_type):
    reply = httpx.request(method, bm25_server.url + path, json=QUERY, timeout=5)
    assert reply.status_code == status
    assert reply.json()["error"]["type"] == error_type


def test_a_token_is_required_when_configured(context):
    with MemoryServer(make_system("bm25", {}, context), token="s3cret") as server:
        info = server.url + "/v1/info"
        assert httpx.get(info, timeout=5).status_code == 401
        wrong = httpx.get(info, headers={"authorization": "Bearer nope"}, timeout=5)
        assert wrong.status_code == 401
        assert "s3cret" not in wrong.text
        right = httpx.get(info, headers={"authorization": "Bearer s3cret"}, timeout=5)
        assert right.status_code == 200


class _FailingSystem(MemorySystem):
    """Ingests, then fails every search the way a broken backend does."""

    name = "failing"

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        raise RuntimeError(f"index for {query.conversation_id} is corrupted")


def test_a_failing_system_is_a_500_with_its_error(context):
    with MemoryServer(_FailingSystem()) as server:
        reply = _post(server, "/v1/conversations/conv-x/search", QUERY)
    assert reply.status_code == 500
    assert reply.json() == {
        "error": {
            "message": "RuntimeError: index for conv-x is corrupted",
            "type": "server_error",
        }
    }


class _SlowSystem(MemorySystem):
    """Each search waits (asynchronously, like a remote vector store) until `expected`
    searches are in flight at once, or 10 s: served one after another, the peak stays 1."""

    name = "slow"

    def __init__(self, expected: int) -> None:
        self.in_flight = 0
        self.peak = 0
        self.expected = expected
        self._all_in: asyncio.Event | None = None

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        if self._all_in is None:
            self._all_in = asyncio.Event()  # on the server's loop
        if self.in_flight >= self.expected:
            self._all_in.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_in.wait(), timeout=10)
        self.in_flight -= 1
        return SearchResult((MemoryItem(text=query.question_id, score=1.0),))


def test_64_concurrent_searches_are_served_at_once(context: SystemContext):
    system = _SlowSystem(expected=64)

    async def search_all(url: str) -> list[str]:
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=10) as client:
            replies = await asyncio.gather(
                *(
                    client.post(
                        "/v1/conversations/conv-x/search", json=QUERY | {"question_id": f"q{i}"}
                    )
                    for i in range(64)
                )
            )
        return [reply.json()["items"][0]["text"] for reply in replies]

    with MemoryServer(system) as server:
        texts = asyncio.run(search_all(server.url))
    assert texts == [f"q{i}" for i in range(64)]  # each reply answers its own request
    assert system.peak == 64  # all 64 in flight at once (no timing: a barrier)


class _SilentSystem(MemorySystem):
    """A user's class that stores and reports nothing (its add returns None)."""

    name = "silent"

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        return None  # type: ignore[return-value]

    async def search(self, query: Query) -> SearchResult:
        return SearchResult(())


def test_an_add_that_returns_nothing_reports_zero_usage():
    with MemoryServer(_SilentSystem()) as server:
        reply = _post(server, "/v1/conversations/conv-x/sessions", SESSION)
    assert reply.status_code == 200
    assert reply.json()["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "embedding_tokens": 0,
        "cost_usd": None,
        "calls": 0,
    }


def test_a_retried_add_of_the_same_session_is_not_stored_twice(context):
    from locoscore.systems.registry import make_system

    system = make_system("bm25", {}, context)
    with MemoryServer(system) as server:
        first = _post(server, "/v1/conversations/conv-x/sessions", SESSION)
        again = _post(server, "/v1/conversations/conv-x/sessions", SESSION)
        assert first.status_code == again.status_code == 200
        assert again.json()["items_in"] == first.json()["items_in"] == len(SESSION["turns"])
        _post(server, "/v1/conversations/conv-x/reset", {})
        after_reset = _post(server, "/v1/conversations/conv-x/sessions", SESSION)
        assert after_reset.json()["items_in"] == len(SESSION["turns"])
