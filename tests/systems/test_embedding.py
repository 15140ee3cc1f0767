"""The `embedding` system against the fake provider over real HTTP, on real LoCoMo data.

Expected rankings are recomputed here from the raw dataset JSON and the fake's documented
vectors (`fake_embedding`), independently of the system's text rendering and cosine code.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations
from locoscore.data.conversation import Conversation, Query
from locoscore.errors import InputError, LocoscoreError
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.embedding import EmbeddingError, EmbeddingSystem
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._embeddings import fake_embedding
from locoscore.testing._verdicts import estimate_tokens

LGBTQ = "When did Caroline go to the LGBTQ support group?"
CONV_26_TURNS = 419
CONV_26_SESSIONS = 19


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig()) as provider:
        yield provider


@pytest.fixture(scope="module")
def raw_samples(locomo_path: Path) -> dict[str, Any]:
    return {s["sample_id"]: s for s in json.loads(locomo_path.read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def conversations(dataset: Any) -> dict[str, Conversation]:
    return {c.conversation_id: c for c in locomo_conversations(dataset)}


def raw_sessions(sample: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]], str]]:
    """(number, turns, date) of every session with turns, in order, from the raw JSON."""
    conv = sample["conversation"]
    numbers = sorted(
        int(key.split("_")[1])
        for key, value in conv.items()
        if key.startswith("session_") and isinstance(value, list) and value
    )
    return [(n, conv[f"session_{n}"], conv[f"session_{n}_date_time"]) for n in numbers]


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares an image: {turn['blip_caption']}]"
    return text


def expected_ranking(texts: list[str], query: str, dims: int = 64) -> list[tuple[int, float]]:
    """(position, score) best first: cosine of the fake's unit vectors, rounded to 6
    decimals, ties by position."""
    q = np.array(fake_embedding(query, dims))
    scores = [round(float(np.dot(fake_embedding(t, dims), q)), 6) for t in texts]
    return sorted(enumerate(scores), key=lambda pair: (-pair[1], pair[0]))


def system(fake: FakeProvider, tmp_path: Path, **options: str) -> MemorySystem:
    return make_system(
        "embedding", {"base_url": fake.openai_url, **options}, SystemContext(tmp_path / "state")
    )


async def ingest(memory: MemorySystem, conversation: Conversation) -> Usage:
    await memory.reset(conversation.conversation_id)
    usage = Usage()
    for session in conversation.sessions:
        usage = usage + await memory.add(session)
    return usage


def run_search(
    memory: MemorySystem,
    conversations: list[Conversation],
    query: str,
    top_k: int = 10,
    conversation_id: str = "conv-26",
) -> SearchResult:
    async def go() -> SearchResult:
        await memory.start()
        try:
            for conversation in conversations:
                await ingest(memory, conversation)
            return await memory.search(Query(conversation_id, "q", query, top_k))
        finally:
            await memory.aclose()

    return asyncio.run(go())


def test_turn_ranking_equals_independent_cosine_and_finds_the_evidence(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any], raw_samples: dict[str, Any]
) -> None:
    sample = raw_samples["conv-26"]
    turns = [turn for _, session_turns, _ in raw_sessions(sample) for turn in session_turns]
    expected = expected_ranking([turn_text(t) for t in turns], LGBTQ)[:10]

    result = run_search(system(fake, tmp_path), [conversations["conv-26"]], LGBTQ)

    assert [item.dia_ids for item in result.items] == [(turns[i]["dia_id"],) for i, _ in expected]
    assert [item.score for item in result.items] == pytest.approx(
        [s for _, s in expected], abs=2e-6
    )
    # Hand-checked: the question's evidence is D1:3, "I went to a LGBTQ support group
    # yesterday", dated in session 1; it ranks first with cosine 7/12.
    assert sample["qa"][0]["question"] == LGBTQ and sample["qa"][0]["evidence"] == ["D1:3"]
    top = result.items[0]
    assert top.dia_ids == ("D1:3",) and top.score == 0.583333
    assert top.text.startswith("Caroline: I went to a LGBTQ support group yesterday")
    assert top.date_raw == "1:56 pm on 8 May, 2023" and top.date_iso == "2023-05-08T13:56"


def test_session_granularity_ranks_whole_sessions(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any], raw_samples: dict[str, Any]
) -> None:
    sessions = raw_sessions(raw_samples["conv-26"])
    texts = [
        "\n".join([f"Session {n} ({date})", *(turn_text(t) for t in turns)])
        for n, turns, date in sessions
    ]
    expected = expected_ranking(texts, LGBTQ)

    memory = system(fake, tmp_path, granularity="session")
    result = run_search(memory, [conversations["conv-26"]], LGBTQ, top_k=100)

    assert len(result.items) == CONV_26_SESSIONS
    assert [item.dia_ids for item in result.items] == [
        tuple(t["dia_id"] for t in sessions[i][1]) for i, _ in expected
    ]
    assert [item.date_raw for item in result.items] == [sessions[i][2] for i, _ in expected]


def test_one_batched_request_per_session_and_usage_from_the_server(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    conversation = conversations["conv-26"]
    memory = system(fake, tmp_path)

    async def go() -> Usage:
        await memory.start()
        fake.reset_counters()
        try:
            return await ingest(memory, conversation)
        finally:
            await memory.aclose()

    usage = asyncio.run(go())
    texts = [turn.render() for session in conversation.sessions for turn in session.turns]
    tokens = sum(estimate_tokens(t) for t in texts)  # the fake's usage.prompt_tokens
    assert fake.requests == CONV_26_SESSIONS and usage.calls == CONV_26_SESSIONS
    assert fake._core.stats()["embedding_inputs"] == CONV_26_TURNS == len(set(texts))
    assert usage.embedding_tokens == tokens
    assert usage.input_tokens == usage.output_tokens == 0  # no LLM tokens
    assert usage.cost_usd == pytest.approx(tokens * 0.02 / 1_000_000)  # text-embedding-3-small
    assert memory.items_in("conv-26") == CONV_26_TURNS


def test_batch_size_splits_a_session_into_requests(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    session = conversations["conv-26"].sessions[0]  # 18 turns
    memory = system(fake, tmp_path, batch_size="5")

    async def go() -> Usage:
        await memory.start()
        fake.reset_counters()
        await memory.reset("conv-26")
        try:
            return await memory.add(session)
        finally:
            await memory.aclose()

    usage = asyncio.run(go())
    assert len(session.turns) == 18
    assert fake.requests == usage.calls == 4  # 5 + 5 + 5 + 3
    # Sent concurrently, so in any order.
    assert sorted(len(entry["body"]["input"]) for entry in fake.requests_log) == [3, 5, 5, 5]


def test_rerun_over_the_same_cache_embeds_nothing(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    first = run_search(system(fake, tmp_path), [conversations["conv-26"]], LGBTQ)
    assert fake._core.stats()["embedding_inputs"] == 1 + CONV_26_TURNS + 1  # check, items, query
    second = system(fake, tmp_path)

    async def go() -> tuple[Usage, SearchResult]:
        await second.start()  # the reachability check always asks the server
        fake.reset_counters()
        try:
            usage = await ingest(second, conversations["conv-26"])
            return usage, await second.search(Query("conv-26", "q", LGBTQ, 10))
        finally:
            await second.aclose()

    usage, result = asyncio.run(go())
    assert fake.requests == 0 and fake._core.stats()["embedding_inputs"] == 0
    assert usage == Usage(0, 0, 0.0, 0) and result.usage == Usage(0, 0, 0.0, 0)
    assert result.items == first.items
    assert (tmp_path / "state" / "embeddings.sqlite").is_file()


def test_cache_option_moves_the_vector_file(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    cache = tmp_path / "shared" / "vectors.sqlite"
    run_search(system(fake, tmp_path, cache=str(cache)), [conversations["conv-26"]], LGBTQ)
    fake.reset_counters()
    run_search(
        system(fake, tmp_path / "other", cache=str(cache)), [conversations["conv-26"]], LGBTQ
    )
    assert fake._core.stats()["embedding_inputs"] == 1  # the start check only
    assert cache.is_file() and not (tmp_path / "state" / "embeddings.sqlite").exists()


def test_search_never_returns_another_conversations_items(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    conv_26, conv_30 = conversations["conv-26"], conversations["conv-30"]
    memory = system(fake, tmp_path)
    # A question about conv-30 (Jon and Gina), asked of conv-26, with k above its size.
    result = run_search(memory, [conv_26, conv_30], "Why did Jon shut down his bank account?", 5000)
    own = sorted((t.render(), t.dia_id) for s in conv_26.sessions for t in s.turns)
    assert sorted((i.text, i.dia_ids[0]) for i in result.items if i.dia_ids) == own
    assert len(result.items) == CONV_26_TURNS
    assert not any("Gina" in item.text or item.text.startswith("Jon:") for item in result.items)


def test_top_k_is_honoured(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    ten = run_search(system(fake, tmp_path), [conversations["conv-26"]], LGBTQ, top_k=10)
    three = run_search(system(fake, tmp_path), [conversations["conv-26"]], LGBTQ, top_k=3)
    assert len(ten.items) == 10 and three.items == ten.items[:3]
    scores = [item.score or 0.0 for item in ten.items]
    assert scores == sorted(scores, reverse=True)


def test_dimensions_are_sent_only_when_given(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any], raw_samples: dict[str, Any]
) -> None:
    turns = [t for _, ts, _ in raw_sessions(raw_samples["conv-26"]) for t in ts]
    expected = expected_ranking([turn_text(t) for t in turns], LGBTQ, dims=32)[:5]
    memory = system(fake, tmp_path, dimensions="32")
    result = run_search(memory, [conversations["conv-26"]], LGBTQ, top_k=5)
    assert [i.dia_ids for i in result.items] == [(turns[i]["dia_id"],) for i, _ in expected]
    assert all(entry["body"]["dimensions"] == 32 for entry in fake.requests_log)
    assert memory.signature_options() == {
        "dimensions": "32",
        "granularity": "turn",
        "model": "text-embedding-3-small",
    }
    fake.reset_counters()
    run_search(system(fake, tmp_path / "b"), [conversations["conv-26"]], LGBTQ)
    assert not any("dimensions" in entry["body"] for entry in fake.requests_log)


def test_429s_and_500s_are_retried_to_the_same_ranking(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any]
) -> None:
    clean = run_search(system(fake, tmp_path / "clean"), [conversations["conv-26"]], LGBTQ)
    memory = system(fake, tmp_path / "faulty")
    assert isinstance(memory, EmbeddingSystem)
    memory.policy.base_delay_s = 0.01  # backoff scaled down: outcomes matter here, not waits

    async def go() -> SearchResult:
        await memory.start()
        fake.config = FakeConfig(faults={"429": 0.2, "500": 0.2}, retry_after_s=0.05, seed=7)
        fake.reset_counters()
        try:
            await ingest(memory, conversations["conv-26"])
            return await memory.search(Query("conv-26", "q", LGBTQ, 10))
        finally:
            await memory.aclose()

    result = asyncio.run(go())
    faults = fake.fault_counts
    assert faults["429"] > 0 and faults["500"] > 0
    assert fake.status_counts[200] == CONV_26_SESSIONS + 1  # each session, then the query
    # Every item embedded exactly once (a failed request embeds nothing), then the query.
    assert fake._core.stats()["embedding_inputs"] == CONV_26_TURNS + 1
    assert memory.items_in("conv-26") == CONV_26_TURNS
    assert result.items == clean.items


def test_a_call_that_still_fails_raises_a_key_free_embedding_error(
    fake: FakeProvider, tmp_path: Path, conversations: dict[str, Any], monkeypatch: Any
) -> None:
    secret = "sk-test-embedding-secret-9d1c"
    monkeypatch.setenv("LOCO_EMBED_KEY", secret)
    memory = system(fake, tmp_path, api_key_env="LOCO_EMBED_KEY")

    async def go() -> None:
        await memory.start()
        fake.config = FakeConfig(faults={"quota": 1.0})  # a 429 that no wait cures
        await memory.reset("conv-26")
        try:
            await memory.add(conversations["conv-26"].sessions[0])
        finally:
            await memory.aclose()

    with pytest.raises(EmbeddingError) as caught:
        asyncio.run(go())
    message = str(caught.value)
    assert isinstance(caught.value, LocoscoreError) and not isinstance(caught.value, InputError)
    assert fake.openai_url in message and "HTTP 429" in message and "quota" in message
    assert secret not in message and fake.requests == 2  # the check, then one refused call


def closed_port_url() -> str:
    with socket.socket() as sock:  # bound then closed: connection refused, no network used
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def start_error(options: dict[str, str], tmp_path: Path) -> str:
    memory = make_system("embedding", options, SystemContext(tmp_path / "state"))
    with pytest.raises(InputError) as caught:
        asyncio.run(memory.start())
    assert not (tmp_path / "state").exists()  # nothing written
    return str(caught.value)


def test_unreachable_server_at_start_is_an_input_error_naming_it(tmp_path: Path) -> None:
    url = closed_port_url()
    message = start_error({"base_url": url}, tmp_path)
    assert message == (
        f"embedding server {url}, model text-embedding-3-small: "
        "cannot connect (is the server running and the URL right?)"
    )


def test_a_base_url_without_v1_is_an_input_error(fake: FakeProvider, tmp_path: Path) -> None:
    message = start_error({"base_url": fake.url}, tmp_path)
    assert message.startswith(f"embedding server {fake.url}, model text-embedding-3-small: ")
    assert "HTTP 404" in message and "does the URL end in /v1?" in message
    assert "\n" not in message


def test_a_non_json_reply_at_start_is_an_input_error(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config = FakeConfig(faults={"bad_json": 1.0})
    message = start_error({"base_url": fake.openai_url}, tmp_path)
    assert "not an OpenAI-compatible embeddings endpoint" in message
    assert "the reply is not JSON" in message


class _Refuses(http.server.BaseHTTPRequestHandler):
    """A server that answers every request 401, as OpenAI does for a missing key."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": "Incorrect API key provided"}}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_refused_key_at_start_is_an_input_error(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        message = start_error({"base_url": url}, tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert message.startswith(f"embedding server {url}, model text-embedding-3-small: ")
    assert "the API key was refused (HTTP 401" in message and "set OPENAI_API_KEY" in message


def test_unknown_option_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"unknown option for system embedding \(known: api_key"):
        make_system("embedding", {"top": "3"}, SystemContext(tmp_path))
