"""`serve --system bm25` + `--system http` retrieves exactly what `--system bm25` retrieves,
on two real LoCoMo conversations (conv-26: 19 sessions, 419 turns, 199 questions; conv-30:
19 sessions, 369 turns, 105 questions)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations, locomo_questions
from locoscore.data.conversation import Conversation, Query, Question
from locoscore.systems.base import MemorySystem, SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

PAIR = ("conv-26", "conv-30")
TOP_K = 10


@pytest.fixture(scope="module")
def pair(dataset: Any) -> tuple[list[Conversation], list[Question]]:
    conversations = [c for c in locomo_conversations(dataset) if c.conversation_id in PAIR]
    return conversations, locomo_questions(dataset, conversations)


async def _retrieve(
    system: MemorySystem, conversations: list[Conversation], questions: list[Question]
) -> tuple[dict[str, SearchResult], dict[str, int | None]]:
    """Ingest each conversation once, then every question at up to 64 searches at a time."""
    await system.start()
    try:
        for conversation in conversations:
            await system.reset(conversation.conversation_id)
            for session in conversation.sessions:
                await system.add(session)
        gate = asyncio.Semaphore(64)

        async def ask(question: Question) -> SearchResult:
            query = Query(
                question.conversation_id,
                question.question_id,
                question.text,
                TOP_K,
                question.date_iso,
            )
            async with gate:
                return await system.search(query)

        results = await asyncio.gather(*(ask(q) for q in questions))
        sizes = {c.conversation_id: system.items_in(c.conversation_id) for c in conversations}
        return {q.question_id: r for q, r in zip(questions, results, strict=True)}, sizes
    finally:
        await system.aclose()


def _in_process(
    pair: tuple[list[Conversation], list[Question]], context: SystemContext, options: dict
) -> tuple[dict[str, SearchResult], dict[str, int | None]]:
    return asyncio.run(_retrieve(make_system("bm25", options, context), *pair))


def _over_http(
    url: str, pair: tuple[list[Conversation], list[Question]], context: SystemContext
) -> tuple[dict[str, SearchResult], dict[str, int | None]]:
    return asyncio.run(_retrieve(make_system("http", {"url": url}, context), *pair))


def test_http_retrieves_what_bm25_retrieves_on_two_conversations(pair, context):
    direct, direct_sizes = _in_process(pair, context, {})
    with MemoryServer(make_system("bm25", {}, context)) as server:
        served, served_sizes = _over_http(server.url, pair, context)
    assert len(served) == 199 + 105
    # Same items in the same order: text, score, dia_ids, raw and ISO session dates.
    assert served == direct
    assert all(len(result.items) == TOP_K for result in served.values())
    assert served_sizes == direct_sizes == {"conv-26": 419, "conv-30": 369}
    items = [item for result in served.values() for item in result.items]
    assert all(item.date_iso and item.date_raw and item.dia_ids for item in items)
    assert any("[shares an image:" in item.text for item in items)  # captions survive


def test_session_granularity_is_served_and_signed_the_same(pair, context):
    conversations, questions = pair
    one = ([conversations[1]], [q for q in questions if q.conversation_id == "conv-30"])
    direct, _ = _in_process(one, context, {"granularity": "session"})
    system = make_system("bm25", {"granularity": "session"}, context)
    with MemoryServer(system) as server:
        client = make_system("http", {"url": server.url}, context)
        served, sizes = asyncio.run(_retrieve(client, *one))
    assert served == direct
    assert sizes == {"conv-30": 19}
    assert client.signature_options() == {
        "contract": "locoscore-memory/1",
        "server": "bm25",
        "server.b": "0.75",
        "server.granularity": "session",
        "server.k1": "1.5",
    }


def test_the_serve_command_serves_the_same_items(pair, context, served_by_the_cli):
    conversations, questions = pair
    one = ([conversations[1]], [q for q in questions if q.conversation_id == "conv-30"])
    direct, _ = _in_process(one, context, {})
    served, _ = _over_http(served_by_the_cli, one, context)
    assert served == direct


def test_serve_refuses_to_start_a_system_that_cannot_start(tmp_path):
    """`serve --system http` pointed at nothing: the client's start check, at the CLI."""
    env = os.environ | {"LOCOSCORE_DATASET": str(tmp_path / "none.json")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "locoscore",
            "serve",
            "--system",
            "http",
            "--port",
            "0",
            "--system-option",
            "url=http://127.0.0.1:9",
            "--state-dir",
            str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "error: --system-option url=http://127.0.0.1:9: /v1/info: cannot reach the memory server"
    )
    assert not (tmp_path / "state").exists()  # nothing written
