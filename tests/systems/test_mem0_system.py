"""Mem0 OSS run for real, offline, against the fake provider: dates, speakers, captions,
one extraction call per session, isolation, infer=false, reset."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from mem0_helpers import (
    API_KEY,
    DIMS,
    conversation,
    ingest,
    make_mem0,
    new_messages_section,
    requests_to,
    requires_mem0,
    run,
    user_prompt,
)

from locoscore.data.conversation import Query
from locoscore.errors import InputError
from locoscore.testing import FakeConfig, FakeProvider

pytestmark = requires_mem0


@pytest.fixture
def fp() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as server:
        yield server


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def test_stored_memories_carry_their_session_dates(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=3)
    system = make_mem0(tmp_path, fp)

    async def scenario() -> Any:
        await ingest(system, conv)
        return await system.stored_items("conv-26")

    items = run(scenario())
    # The fake extracts one memory per turn: the turn as sent ("Speaker: text [image]").
    got = sorted((i.text, i.date_iso, i.date_raw) for i in items)
    expected = sorted(
        (turn.render(), session.date_iso, session.date_raw)
        for session in conv.sessions
        for turn in session.turns
    )
    assert len(got) == 18 + 17 + 23
    assert got == expected
    assert {i.date_iso for i in items} == {
        "2023-05-08T13:56",
        "2023-05-25T13:14",
        "2023-06-09T19:55",
    }
    assert system.items_in("conv-26") == 58


def test_one_extraction_call_per_session_with_its_date_as_observation_date(
    dataset: Any, fp, tmp_path
) -> None:
    conv = conversation(dataset, "conv-26", sessions=3)
    run(ingest(make_mem0(tmp_path, fp), conv))

    chats = requests_to(fp, "/v1/chat/completions")
    assert len(chats) == 3
    observed = []
    for entry, session in zip(chats, conv.sessions, strict=True):
        prompt = user_prompt(entry)
        assert entry["body"]["response_format"] == {"type": "json_object"}
        observed += [line for line in prompt.splitlines() if line.startswith("Observation Date:")]
        # Exactly this session's turns, each with its speaker's name (and image caption).
        assert new_messages_section(prompt) == [f"user: {t.render()}" for t in session.turns]
    assert observed == [
        "Observation Date: 2023-05-08",
        "Observation Date: 2023-05-25",
        "Observation Date: 2023-06-09",
    ]


def test_image_captions_reach_mem0_inside_the_turn_text(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    run(ingest(make_mem0(tmp_path, fp), conv))

    captioned = [t for t in conv.sessions[0].turns if t.caption]
    prompt = user_prompt(requests_to(fp, "/v1/chat/completions")[0])
    assert len(captioned) == 2
    for turn in captioned:
        assert f"{turn.speaker}: {turn.text} [shares an image: {turn.caption}]" in prompt


def test_search_never_returns_another_conversations_memories(dataset: Any, fp, tmp_path) -> None:
    caroline = conversation(dataset, "conv-26", sessions=3)
    other = conversation(dataset, "conv-30", sessions=3)
    system = make_mem0(tmp_path, fp)
    question = "When did Caroline go to the LGBTQ support group?"

    async def scenario() -> tuple[Any, Any]:
        await asyncio.gather(ingest(system, caroline), ingest(system, other))
        return (
            await system.search(Query("conv-26", "q1", question, 3)),
            await system.search(Query("conv-30", "q2", question, 10)),
        )

    own, foreign = run(scenario())
    own_texts = {t.render() for s in caroline.sessions for t in s.turns}
    other_texts = {t.render() for s in other.sessions for t in s.turns}
    assert len(own.items) == 3  # top-k honoured
    assert own.items[0].text == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert own.items[0].date_iso == "2023-05-08T13:56"
    assert {i.text for i in own.items} <= own_texts
    assert foreign.items, "the other conversation has memories sharing words with the question"
    assert {i.text for i in foreign.items} <= other_texts


def test_infer_false_stores_each_turn_verbatim_without_the_llm(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-30", sessions=2)
    system = make_mem0(tmp_path, fp, infer="false")

    async def scenario() -> Any:
        await ingest(system, conv)
        return await system.stored_items("conv-30")

    items = run(scenario())
    turns = [(t.render(), t.dia_id, s.date_iso) for s in conv.sessions for t in s.turns]
    assert sorted((i.text, i.dia_ids[0], i.date_iso) for i in items) == sorted(turns)
    assert all(len(i.dia_ids) == 1 for i in items)
    assert len(items) == 28 + 16
    assert requests_to(fp, "/v1/chat/completions") == []
    assert len(requests_to(fp, "/v1/embeddings")) == 28 + 16  # one per stored turn


def test_reset_forgets_everything_of_the_conversation(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    system = make_mem0(tmp_path, fp)

    async def scenario() -> tuple[Any, Any, Any]:
        await ingest(system, conv)
        before = await system.stored_items("conv-26")
        await system.reset("conv-26")
        hits = await system.search(Query("conv-26", "q", "support group", 5))
        return before, await system.stored_items("conv-26"), hits

    before, after, hits = run(scenario())
    assert len(before) == 18
    assert after == ()
    assert hits.items == ()
    assert system.items_in("conv-26") is None


def test_start_checks_the_embedder_with_the_configured_size(fp, tmp_path) -> None:
    run(make_mem0(tmp_path, fp).start())
    (entry,) = requests_to(fp, "/v1/embeddings")
    assert entry["body"]["dimensions"] == DIMS
    assert entry["body"]["model"] == "text-embedding-3-small"


def test_start_without_the_api_key_names_the_variable(
    fp, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(InputError, match="set OPENAI_API_KEY"):
        run(make_mem0(tmp_path, fp).start())
    assert fp.requests_log == []


def test_start_against_an_unreachable_embedder_is_an_input_error(fp, tmp_path) -> None:
    system = make_mem0(tmp_path, fp)
    fp.stop()
    with pytest.raises(InputError, match="unreachable"):
        run(system.start())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"top_k": "5"}, "unknown option for system mem0"),
        ({"store": "disk"}, "expects one of memory, folder"),
        ({"infer": "maybe"}, "expected true or false"),
    ],
)
def test_bad_options_are_input_errors(fp, tmp_path, options: dict[str, str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_mem0(tmp_path, fp, **options)


def test_a_session_without_turns_costs_nothing(fp, tmp_path) -> None:
    from locoscore.data.conversation import SessionInput

    system = make_mem0(tmp_path, fp)
    empty = SessionInput("conv-x", 1, "1:56 pm on 8 May, 2023", "2023-05-08T13:56", ())
    usage = run(system.add(empty))
    assert (usage.calls, usage.input_tokens, usage.embedding_tokens) == (0, 0, 0)
    assert fp.requests_log == []
    assert system.items_in("conv-x") == 0
