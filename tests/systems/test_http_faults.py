"""`--system http` against a server that fails on cue: what is retried, what is recorded."""

from __future__ import annotations

import asyncio
import time

import pytest
from fault_server import FaultServer

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.errors import InputError, LocoscoreError
from locoscore.systems.base import SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.http import HttpSystem, MemoryServerError
from locoscore.systems.serve import MemoryServer

SESSION = SessionInput(
    conversation_id="conv-x",
    index=1,
    date_raw="1:56 pm on 8 May, 2023",
    date_iso="2023-05-08T13:56",
    turns=(
        TurnInput("Caroline", "D1:1", "I went to a LGBTQ support group yesterday."),
        TurnInput("Melanie", "D1:2", "Look at my painting!", "a sunset over a lake"),
    ),
    speakers=("Caroline", "Melanie"),
)
QUERY = Query("conv-x", "conv-x#0", "What did Melanie paint?", top_k=1)
FAST = {"retry_base_delay_s": "0.01", "max_attempts": "3", "timeout_s": "0.3"}


def _system(url: str, context: SystemContext, **options: str) -> HttpSystem:
    return HttpSystem({"url": url, **FAST, **options}, context)


async def _ingest_then_search(system: HttpSystem) -> SearchResult:
    await system.start()
    try:
        await system.reset("conv-x")
        await system.add(SESSION)
        return await system.search(QUERY)
    finally:
        await system.aclose()


def _run(
    bm25_server: MemoryServer,
    context: SystemContext,
    script: dict[str, list[str]],
    after: dict[str, str] | None = None,
    **options: str,
) -> tuple[SearchResult | LocoscoreError, FaultServer, float]:
    with FaultServer(bm25_server, script, after) as server:
        started = time.monotonic()
        try:
            result: SearchResult | LocoscoreError = asyncio.run(
                _ingest_then_search(_system(server.url, context, **options))
            )
        except LocoscoreError as exc:
            result = exc
        return result, server, time.monotonic() - started


def _painting_found(result: object) -> bool:
    assert isinstance(result, SearchResult), result
    return [item.dia_ids for item in result.items] == [("D1:2",)]


def test_server_errors_are_retried_until_an_answer(bm25_server, context):
    result, server, _ = _run(bm25_server, context, {"search": ["500", "html_503"]})
    assert _painting_found(result)
    assert server.requests["search"] == 3


def test_rate_limit_waits_out_retry_after(bm25_server, context):
    result, server, elapsed = _run(bm25_server, context, {"search": ["429:0.4"]})
    assert _painting_found(result)
    assert server.requests["search"] == 2
    assert elapsed >= 0.4


def test_a_hung_request_times_out_and_is_retried(bm25_server, context):
    result, server, elapsed = _run(bm25_server, context, {"search": ["hang:1.0"]})
    assert _painting_found(result)
    assert server.requests["search"] == 2
    assert elapsed < 1.0  # the retry did not wait for the hung request


def test_persistent_server_errors_give_up_after_max_attempts(bm25_server, context):
    result, server, _ = _run(bm25_server, context, {}, after={"search": "500"})
    assert isinstance(result, MemoryServerError)
    assert not isinstance(result, InputError)
    assert str(result).startswith("search conv-x#0: server: HTTP 500")
    assert server.requests["search"] == 3


def test_persistent_hangs_are_recorded_as_timeouts(bm25_server, context):
    result, server, _ = _run(bm25_server, context, {}, after={"search": "hang:0.6"})
    assert isinstance(result, MemoryServerError)
    assert str(result) == "search conv-x#0: timeout: request timed out"
    assert server.requests["search"] == 3


def test_client_errors_are_not_retried(bm25_server, context):
    result, server, _ = _run(bm25_server, context, {"search": ["400"]})
    assert isinstance(result, MemoryServerError)
    assert str(result).startswith("search conv-x#0: client_error: HTTP 400")
    assert server.requests["search"] == 1


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("not_json", "search conv-x#0: the reply is not JSON"),
        ("wrong_shape", "search conv-x#0: malformed reply: reply.items: expected a list"),
        (
            "bad_item",
            "search conv-x#0: malformed reply: reply.items[0].text: expected a string",
        ),
    ],
)
def test_a_malformed_search_reply_is_an_error_of_that_question(
    bm25_server, context, fault, message
):
    result, server, _ = _run(bm25_server, context, {"search": [fault]})
    assert isinstance(result, MemoryServerError)
    assert str(result) == message
    assert server.requests["search"] == 1  # a contract violation is not transient


def test_a_failed_ingestion_names_the_session(bm25_server, context):
    result, _, _ = _run(bm25_server, context, {}, after={"sessions": "500"})
    assert isinstance(result, MemoryServerError)
    assert str(result).startswith("add conv-x session 1: server: HTTP 500")


def test_the_bearer_token_never_reaches_an_error(bm25_server, context, monkeypatch):
    secret = "tok-3f9a1c77e2"
    monkeypatch.setenv("MY_MEMORY_TOKEN", secret)
    with FaultServer(bm25_server, after={"search": "echo_auth"}, secret=secret) as server:
        system = _system(server.url, context, token_env="MY_MEMORY_TOKEN")
        with pytest.raises(MemoryServerError) as caught:
            asyncio.run(_ingest_then_search(system))
    message = str(caught.value)
    assert "upstream refused credentials" in message
    assert secret not in message
    assert message.count("[redacted]") == 2  # the echoed header and the bare token


# ------------------------------------------------------------------ start(): bad input


def _start_error(url: str, context: SystemContext) -> str:
    with pytest.raises(InputError) as caught:
        asyncio.run(_ingest_then_search(_system(url, context)))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_start_names_an_unreachable_url(context):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    message = _start_error(f"http://127.0.0.1:{port}", context)
    assert message.startswith(
        f"--system-option url=http://127.0.0.1:{port}: /v1/info: cannot reach the memory server"
    )


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("not_json", "the reply is not JSON (is this a locoscore-memory/1 server?)"),
        ("wrong_shape", "info.contract: expected a string"),
        ("old_contract", "info.contract: 'locoscore-memory/0', expected 'locoscore-memory/1'"),
        ("500", 'HTTP 500 {"error": {"message": "scripted failure", "type": "server_error"}}'),
    ],
)
def test_start_rejects_a_server_that_does_not_speak_the_contract(
    bm25_server, context, fault, reason
):
    with FaultServer(bm25_server, {"info": [fault]}) as server:
        message = _start_error(server.url, context)
        assert message == f"--system-option url={server.url}: /v1/info: {reason}"
        assert server.requests["info"] == 1  # checked once: bad input is not retried


def test_start_refuses_a_server_that_changed_since_it_was_first_asked(bm25_server, context):
    with FaultServer(bm25_server, {"info": ["ok", "other_system"]}) as server:
        message = _start_error(server.url, context)
    assert message.startswith(f"--system-option url={server.url}: the server changed since")
    assert message.endswith("the run signature would be wrong")


def test_start_without_the_servers_token_says_which_variable(context, monkeypatch):
    from locoscore.systems.registry import make_system

    monkeypatch.delenv("LOCOSCORE_MEMORY_TOKEN", raising=False)
    with MemoryServer(make_system("bm25", {}, context), token="s3cret-value") as server:
        message = _start_error(server.url, context)
    assert message.endswith("(is $LOCOSCORE_MEMORY_TOKEN set to the server's token?)")
    assert "HTTP 401" in message


def test_the_url_option_is_required_and_checked(context):
    with pytest.raises(InputError, match=r"needs --system-option url=http://HOST:PORT"):
        HttpSystem({}, context)
    with pytest.raises(InputError, match=r"url=localhost:8400: expected http://HOST:PORT"):
        HttpSystem({"url": "localhost:8400"}, context)
