"""The contract's JSON shapes: what each side accepts and how a violation is named."""

from __future__ import annotations

import pytest

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations
from locoscore.data.conversation import Query
from locoscore.systems.base import MemoryItem, Usage
from locoscore.systems.http_contract import (
    ContractError,
    ServerInfo,
    conversation_path,
    parse_info,
    parse_item,
    parse_query,
    parse_session,
    parse_usage,
)


def test_every_real_session_survives_the_wire_unchanged(dataset):
    """conv-26's 19 sessions (419 turns, 116 with an image caption) round-trip exactly."""
    [conversation] = [c for c in locomo_conversations(dataset) if c.conversation_id == "conv-26"]
    parsed = [parse_session(s.to_json(), "conv-26") for s in conversation.sessions]
    assert parsed == list(conversation.sessions)
    assert sum(len(s.turns) for s in parsed) == 419
    assert sum(1 for s in parsed for t in s.turns if t.caption) == 116


def test_a_query_survives_the_wire_unchanged():
    query = Query("conv-30", "conv-30#4", "When did Jon open his studio?", 10, "2023-07-22T16:00")
    assert parse_query(query.to_json(), "conv-30") == query


def test_info_round_trips_and_booleans_read_as_signature_values():
    info = ServerInfo("locoscore-memory/1", "mem0", {"infer": "true"}, answers=False)
    assert parse_info(info.to_json()) == info
    body = {"contract": "locoscore-memory/1", "system": "x", "options": {"infer": False, "k": 3}}
    assert parse_info(body).options == {"infer": "false", "k": "3"}


def test_info_capabilities_must_be_booleans():
    body = {"contract": "locoscore-memory/1", "system": "x", "capabilities": {"answers": "yes"}}
    with pytest.raises(ContractError, match=r"^info.capabilities.answers: expected true or false"):
        parse_info(body)


def test_created_at_is_read_as_the_items_date():
    item = parse_item({"text": "Jon opened a studio", "created_at": "2023-06-01T09:00"}, "item")
    assert item == MemoryItem(text="Jon opened a studio", date_iso="2023-06-01T09:00")


def test_an_item_needs_only_text():
    assert parse_item({"text": "t"}, "item") == MemoryItem(text="t")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"text": "t", "score": "high"}, "item.score: expected a number or null"),
        ({"text": "t", "dia_ids": "D1:1"}, "item.dia_ids: expected a list of strings"),
        ({"text": "t", "date_raw": 5}, "item.date_raw: expected a string or null"),
    ],
)
def test_a_malformed_item_names_its_field(item, message):
    with pytest.raises(ContractError) as caught:
        parse_item(item, "item")
    assert str(caught.value) == message


def test_usage_fields_default_to_zero_and_unknown_cost():
    assert parse_usage({}, "reply") == Usage()
    assert parse_usage({"usage": {"input_tokens": 12}}, "reply") == Usage(input_tokens=12)


@pytest.mark.parametrize(
    ("usage", "message"),
    [
        ({"input_tokens": -1}, "reply.usage.input_tokens: expected an integer >= 0"),
        ({"output_tokens": 1.5}, "reply.usage.output_tokens: expected an integer >= 0"),
        ({"cost_usd": -0.1}, "reply.usage.cost_usd: expected a number >= 0 or null"),
        ([], "reply.usage: expected a JSON object"),
    ],
)
def test_malformed_usage_names_its_field(usage, message):
    with pytest.raises(ContractError) as caught:
        parse_usage({"usage": usage}, "reply")
    assert str(caught.value) == message


def test_conversation_ids_are_one_path_segment():
    assert conversation_path("conv-26", "search") == "/v1/conversations/conv-26/search"
    assert conversation_path("a/b c#1", "reset") == "/v1/conversations/a%2Fb%20c%231/reset"
