"""What mem0 spends through the user's providers: the tokens the provider reported, per
mem0 call, never mixed between conversations ingested at the same time, priced per model."""

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
    requests_to,
    requires_mem0,
    run,
)

from locoscore.data.conversation import Conversation, Query
from locoscore.systems.base import Usage
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._mem0_wire import extraction_reply
from locoscore.testing._verdicts import all_text, estimate_tokens

pytestmark = requires_mem0


@pytest.fixture
def fp() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as server:
        yield server


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def _reported(entries: list[dict[str, Any]]) -> Usage:
    """The usage the fake reported for these requests (its rule: ~4 characters a token)."""
    usage = Usage()
    for entry in entries:
        body = entry["body"]
        if entry["path"] == "/v1/chat/completions":
            usage += Usage(
                input_tokens=estimate_tokens(all_text(body["messages"])),
                output_tokens=estimate_tokens(extraction_reply(body["messages"])),
                calls=1,
            )
        else:
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            usage += Usage(embedding_tokens=sum(estimate_tokens(t) for t in texts), calls=1)
    return usage


def _owned_by(conv: Conversation, entry: dict[str, Any]) -> bool:
    body = entry["body"]
    text = all_text(body["messages"]) if "messages" in body else " ".join(body["input"])
    return any(turn.render() in text for s in conv.sessions for turn in s.turns)


def test_a_session_costs_one_llm_call_and_two_embedding_calls(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    usage = run(ingest(make_mem0(tmp_path, fp), conv))

    entries = requests_to(fp, "/v1/chat/completions") + requests_to(fp, "/v1/embeddings")
    reported = _reported(entries)
    assert usage.calls == 3  # existing-memory lookup, extraction, the new facts' vectors
    assert (usage.input_tokens, usage.output_tokens, usage.embedding_tokens) == (
        reported.input_tokens,
        reported.output_tokens,
        reported.embedding_tokens,
    )
    # Mem0's extraction prompt alone is several thousand tokens.
    assert usage.input_tokens > 5000
    expected_cost = (
        usage.input_tokens * 0.15 + usage.output_tokens * 0.60 + usage.embedding_tokens * 0.02
    ) / 1_000_000
    assert usage.cost_usd == pytest.approx(expected_cost, rel=1e-9)


def test_a_search_costs_one_embedding_of_the_query(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    system = make_mem0(tmp_path, fp)
    question = "What did Caroline research?"

    async def scenario() -> Any:
        await ingest(system, conv)
        fp.reset_counters()
        return await system.search(Query("conv-26", "q", question, 5))

    result = run(scenario())
    assert result.usage.calls == 1
    assert result.usage.input_tokens == 0
    assert result.usage.embedding_tokens == estimate_tokens(question)
    assert result.usage.cost_usd == pytest.approx(estimate_tokens(question) * 0.02 / 1e6)


def test_concurrent_conversations_are_billed_separately(dataset: Any, fp, tmp_path) -> None:
    first = conversation(dataset, "conv-26", sessions=3)
    second = conversation(dataset, "conv-30", sessions=3)
    system = make_mem0(tmp_path, fp, ingest_concurrency="2")

    async def scenario() -> list[Usage]:
        return list(await asyncio.gather(ingest(system, first), ingest(system, second)))

    usage_first, usage_second = run(scenario())
    entries = requests_to(fp, "/v1/chat/completions") + requests_to(fp, "/v1/embeddings")
    mine = [e for e in entries if _owned_by(first, e)]
    theirs = [e for e in entries if _owned_by(second, e)]
    assert len(mine) + len(theirs) == len(entries) == 18
    for usage, owned in ((usage_first, mine), (usage_second, theirs)):
        reported = _reported(owned)
        assert usage.calls == reported.calls == 9
        assert usage.input_tokens == reported.input_tokens
        assert usage.output_tokens == reported.output_tokens
        assert usage.embedding_tokens == reported.embedding_tokens


def test_a_model_without_a_price_leaves_the_cost_unknown(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    usage = run(ingest(make_mem0(tmp_path, fp, llm_model="local-llama"), conv))
    assert usage.input_tokens > 0
    assert usage.cost_usd is None


def test_a_price_table_file_prices_other_models(dataset: Any, fp, tmp_path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{"local-llama": {"input": 1.0, "output": 2.0}}')
    conv = conversation(dataset, "conv-26", sessions=1)
    usage = run(ingest(make_mem0(tmp_path, fp, llm_model="local-llama", prices=str(prices)), conv))
    expected = (usage.input_tokens * 1.0 + usage.output_tokens * 2.0) / 1e6
    expected += usage.embedding_tokens * 0.02 / 1e6
    assert usage.cost_usd == pytest.approx(expected, rel=1e-9)


def test_a_truncated_extraction_reply_is_reported(dataset: Any, fp, tmp_path) -> None:
    fp.config.faults = {"truncation": 1.0}
    conv = conversation(dataset, "conv-26", sessions=1)
    system = make_mem0(tmp_path, fp)
    with pytest.warns(UserWarning, match="cut at the token limit; mem0 stored nothing"):
        run(ingest(system, conv))
    assert system.items_in("conv-26") == 0
