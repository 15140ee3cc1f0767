"""`chunk_tokens=N`: the conversation cut into N-token cl100k chunks across sessions.

The boundaries below are hand-checked against cl100k_base's tokens of two tiny sessions:

    session 1 (25 tokens): 'Session' ' ' '1' ' (' '8' ' May' ',' ' ' '202' '3' ')\\n'
                           'Ann' ':' ' Hi' ' Bob' '\\n'
                           'Bob' ':' ' Hello' ' Ann' ',' ' how' ' are' ' you' '?\\n'
    session 2 (18 tokens): 'Session' ' ' '2' ' (' '9' ' May' ',' ' ' '202' '3' ')\\n'
                           'Ann' ':' ' Fine' '.' ' \\xf0\\x9f\\x91' '\\x8d' '\\n'

(the thumbs-up emoji is split across two tokens).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.systems.chunks import ChunkStream
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.tokens import encoding

S1 = SessionInput(
    "tiny",
    1,
    "8 May, 2023",
    "2023-05-08",
    (TurnInput("Ann", "D1:1", "Hi Bob"), TurnInput("Bob", "D1:2", "Hello Ann, how are you?")),
)
S2 = SessionInput("tiny", 2, "9 May, 2023", "2023-05-09", (TurnInput("Ann", "D2:1", "Fine. 👍"),))
BLOCK_1 = "Session 1 (8 May, 2023)\nAnn: Hi Bob\nBob: Hello Ann, how are you?\n"
BLOCK_2 = "Session 2 (9 May, 2023)\nAnn: Fine. 👍\n"


def stream(size: int, *sessions: SessionInput) -> ChunkStream:
    chunks = ChunkStream(size)
    for session in sessions:
        chunks.add(session)
    return chunks


def test_the_token_counts_the_boundaries_are_checked_against() -> None:
    enc = encoding()
    assert len(enc.encode(BLOCK_1)) == 25 and len(enc.encode(BLOCK_2)) == 18
    assert enc.decode_single_token_bytes(enc.encode(BLOCK_2)[15]) == b" \xf0\x9f\x91"


def test_chunks_of_12_tokens_run_across_the_session_boundary() -> None:
    chunks = stream(12, S1, S2)
    assert (chunks.tokens, chunks.complete, chunks.total) == (43, 3, 4)
    items = [chunks.chunk(i) for i in range(chunks.total)]
    assert [item.text for item in items] == [
        "Session 1 (8 May, 2023)\nAnn",  # tokens 0-11
        ": Hi Bob\nBob: Hello Ann, how are you",  # 12-23
        "?\nSession 2 (9 May, 2023)\n",  # 24-35: the end of D1:2, then session 2's header
        "Ann: Fine. 👍\n",  # 36-42, the shorter last chunk
    ]
    assert "".join(item.text for item in items) == BLOCK_1 + BLOCK_2
    # Evidence: the turns each chunk holds a piece of (a header or a line break is none).
    assert [item.dia_ids for item in items] == [
        ("D1:1",),
        ("D1:1", "D1:2"),
        ("D1:2",),
        ("D2:1",),
    ]
    # Dated by the session a chunk starts in; the next session's header is in the text.
    assert [item.date_raw for item in items] == ["8 May, 2023"] * 3 + ["9 May, 2023"]
    assert [item.date_iso for item in items] == ["2023-05-08"] * 3 + ["2023-05-09"]
    with pytest.raises(IndexError):
        chunks.chunk(4)


def test_a_character_split_across_tokens_goes_to_the_chunk_holding_its_last_byte() -> None:
    chunks = stream(8, S2)  # the boundary at token 16 falls inside the emoji
    texts = [chunks.chunk(i).text for i in range(chunks.total)]
    assert texts == ["Session 2 (9 May, ", "2023)\nAnn: Fine. ", "👍\n"]
    assert "\ufffd" not in "".join(texts)
    assert [chunks.chunk(i).dia_ids for i in range(3)] == [(), ("D2:1",), ("D2:1",)]


def test_one_chunk_larger_than_the_conversation_holds_it_all() -> None:
    chunks = stream(8192, S1, S2)
    assert (chunks.complete, chunks.total) == (0, 1)
    item = chunks.chunk(0)
    assert item.text == BLOCK_1 + BLOCK_2 and item.dia_ids == ("D1:1", "D1:2", "D2:1")


# -- through the embedding system (the fake provider over real HTTP) ------------------------


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig()) as provider:
        yield provider


def test_full_chunks_are_embedded_as_sessions_arrive_and_the_last_at_finish(
    fake: FakeProvider, tmp_path: Path
) -> None:
    memory = make_system(
        "embedding",
        {"base_url": fake.openai_url, "chunk_tokens": "12"},
        SystemContext(tmp_path / "state"),
    )
    assert memory.signature_options() == {
        "chunk_tokens": "12",
        "granularity": "chunk",
        "model": "text-embedding-3-small",
    }

    def embedded() -> int:
        return int(fake._core.stats()["embedding_inputs"])

    async def go() -> list[tuple[int, int]]:
        await memory.start()
        fake.reset_counters()
        seen = []
        await memory.reset("tiny")
        for session in (S1, S2):
            usage = await memory.add(session)
            seen.append((usage.calls, embedded()))
        seen.append(((await memory.finish("tiny")).calls, embedded()))
        assert memory.items_in("tiny") == 4
        result = await memory.search(Query("tiny", "q", "How is Ann?", 10))
        assert sorted(item.text for item in result.items) == sorted(
            stream(12, S1, S2).chunk(i).text for i in range(4)
        )
        # Another session after `finish` (as the probe does): the short chunk is re-cut.
        later = SessionInput(
            "tiny", 3, "10 May, 2023", "2023-05-10", (TurnInput("Bob", "D3:1", "Good"),)
        )
        await memory.add(later)
        result = await memory.search(Query("tiny", "q", "Good", 10))
        await memory.aclose()
        expected = stream(12, S1, S2, later)
        assert [item.dia_ids for item in sorted(result.items, key=lambda i: i.text)] == [
            item.dia_ids
            for item in sorted(
                (expected.chunk(i) for i in range(expected.total)), key=lambda i: i.text
            )
        ]
        assert len(result.items) == expected.total == 5
        return seen

    # Session 1 fills chunks 0 and 1 (24 of its 25 tokens), session 2 chunk 2 (tokens
    # 24-35), and `finish` embeds the shorter chunk 3: one call each, cumulative inputs.
    assert asyncio.run(go()) == [(1, 2), (1, 3), (1, 4)]
