"""`--system letta` without the Letta environment: the metering proxy against the fake
provider, the messages a session becomes, the items read back, the fake's agent steps,
and bad input refused in one line."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from locoscore.data.conversation import SessionInput, TurnInput
from locoscore.errors import InputError
from locoscore.systems._letta_agent import session_messages, turn_item
from locoscore.systems._metering_proxy import MeteringProxy
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._letta_wire import letta_tool_calls
from locoscore.testing._verdicts import estimate_tokens

SESSION = SessionInput(
    "conv-x",
    3,
    "1:56 pm on 8 May, 2023",
    "2023-05-08T13:56",
    (
        TurnInput("Caroline", "D3:1", "I went hiking.", "a photo of a mountain"),
        TurnInput("Mel Anie", "D3:2", "Nice!"),
    ),
    ("Caroline", "Mel Anie"),
)


@pytest.fixture
def fp() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig()) as server:
        yield server


def test_the_proxy_counts_each_tags_calls_off_the_providers_replies(fp: FakeProvider) -> None:
    proxy = MeteringProxy({"llm": fp.openai_url, "emb": fp.openai_url}, "sk-real", 30).start()
    try:
        chat = {"model": "m", "messages": [{"role": "user", "content": "one two three four"}]}
        with httpx.Client(timeout=30) as client:
            reply = client.post(proxy.base_url("c1", "llm") + "/chat/completions", json=chat)
            assert reply.status_code == 200 and reply.json()["choices"]
            body = {"model": "e", "input": ["alpha beta", "gamma"]}
            client.post(proxy.base_url("c1", "emb") + "/embeddings", json=body)
            client.post(proxy.base_url("c2", "llm") + "/chat/completions", json=chat)
            refused = client.post(proxy.base_url("c2", "llm") + "/chat/completions", json={})
            assert refused.status_code == 400  # relayed as the provider said, not counted
            assert client.post(proxy.url + "/elsewhere", json={}).status_code == 404
        c1, c2 = proxy.drain("c1"), proxy.drain("c2")
    finally:
        proxy.stop()
    out = fp.requests_log[0]
    assert out["headers"]["authorization"] == "REDACTED"  # the fake hides what it got
    completion_tokens = estimate_tokens(reply.json()["choices"][0]["message"]["content"])
    assert (c1.llm_calls, c1.input_tokens, c1.output_tokens) == (1, 4, completion_tokens)
    assert (c1.embedding_calls, c1.embedding_tokens) == (1, 3)
    assert (c2.llm_calls, c2.embedding_calls) == (1, 0)
    assert proxy.drain("c1").llm_calls == 0  # drained


def test_a_session_becomes_a_dated_header_and_one_named_message_per_turn() -> None:
    messages = session_messages(SESSION)
    assert messages[0] == {
        "role": "user",
        "content": "Session 3 of the conversation between Caroline and Mel Anie, held on "
        "1:56 pm on 8 May, 2023. The 2 messages that follow are what they said then.",
    }
    assert messages[1:] == [
        {
            "role": "user",
            "name": "Caroline",
            "content": "Caroline: I went hiking. [shares an image: a photo of a mountain]",
            "otid": "locoscore:3:0:D3:1",
        },
        {
            "role": "user",
            "name": "Mel_Anie",
            "content": "Mel Anie: Nice!",
            "otid": "locoscore:3:1:D3:2",
        },
    ]


def test_a_turn_read_back_carries_its_sessions_date_and_dia_id() -> None:
    sessions = {"3": ["2023-05-08T13:56", "1:56 pm on 8 May, 2023"]}
    message = {
        "message_type": "user_message",
        "otid": "locoscore:3:1:D3:2",
        "content": "Mel Anie: Nice!",
    }
    order, item = turn_item(message, sessions)  # type: ignore[misc]
    assert order == (3, 1)
    assert (item.text, item.date_iso, item.date_raw, item.dia_ids) == (
        "Mel Anie: Nice!", "2023-05-08T13:56", "1:56 pm on 8 May, 2023", ("D3:2",)
    )  # fmt: skip
    assert turn_item({"message_type": "assistant_message", "otid": "x"}, sessions) is None
    assert turn_item({"message_type": "user_message", "otid": "theirs"}, sessions) is None


def _step(*messages: dict[str, str]) -> dict[str, object]:
    tools = [
        {"type": "function", "function": {"name": n}} for n in ("memory_insert", "send_message")
    ]
    return {"tools": tools, "messages": list(messages)}


def test_the_fake_keeps_each_sessions_header_then_ends_the_turn() -> None:
    header = session_messages(SESSION)[0]["content"]
    calls = letta_tool_calls(
        _step({"role": "system", "content": "x"}, {"role": "user", "content": header})
    )
    assert calls is not None
    arguments = json.loads(calls[0]["function"]["arguments"])
    assert calls[0]["function"]["name"] == "memory_insert"
    assert (arguments["label"], arguments["new_str"], arguments["request_heartbeat"]) == (
        "human", header, True
    )  # fmt: skip
    after = letta_tool_calls(
        _step({"role": "user", "content": header}, {"role": "tool", "content": "ok"})
    )
    assert after is not None and after[0]["function"]["name"] == "send_message"
    assert (
        letta_tool_calls({"tools": [], "messages": [{"role": "user", "content": header}]}) is None
    )


def test_bad_input_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    context = SystemContext(tmp_path)
    with pytest.raises(InputError, match="is unreachable"):
        make_system("letta", {"url": "http://127.0.0.1:9"}, context)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    system = make_system("letta", {"python": str(tmp_path / "missing")}, context)
    with pytest.raises(InputError, match=r"python=.*no such file"):
        asyncio.run(system.start())
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(InputError, match="set OPENAI_API_KEY"):
        asyncio.run(make_system("letta", {}, context).start())
    assert list(tmp_path.iterdir()) == []  # nothing written
