"""`answer=agent`: the conversation's Letta agent answers a question itself.

The question is one user message to the agent (its date and the question; the agent may
search the conversation with its `conversation_search` tool and edit its memory before it
answers with `send_message`). Each question must see the memory as ingestion left it, not
the earlier questions: the agent's in-context messages and core memory blocks are saved
before and put back after (PATCH message_ids and block values). Letta 0.11.7 cannot delete
a message, so the questions and replies stay in its message store, where a later
`conversation_search` could find them; they are no longer in the agent's context.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from locoscore.data.conversation import Query

Call = Callable[..., Any]


def question_message(query: Query) -> str:
    when = f", asked on {query.date_iso}" if query.date_iso else ""
    return (
        f"A question about the conversation{when}: {query.text}\n"
        "Answer it in a short phrase from your memory, searching the conversation if needed."
    )


QUESTION_FORMAT_ID = hashlib.sha256(
    question_message(Query("c", "q", "Q?", 1, "2000-01-01")).encode()
).hexdigest()[:12]


def _answer_of(reply: Any) -> str:
    messages = reply.get("messages") if isinstance(reply, dict) else None
    said = [
        str(m.get("content") or "")
        for m in messages or []
        if isinstance(m, dict) and m.get("message_type") == "assistant_message"
    ]
    return said[-1] if said else ""


def ask_agent(call: Call, agent_id: str, query: Query) -> str:
    """The agent's answer; its context and memory blocks are as before when this returns."""
    saved_ids = call("GET", f"/agents/{agent_id}").get("message_ids") or []
    saved_blocks = {
        b["label"]: b["value"] for b in call("GET", f"/agents/{agent_id}/core-memory/blocks")
    }
    try:
        body = {"messages": [{"role": "user", "content": question_message(query)}]}
        reply = call("POST", f"/agents/{agent_id}/messages", json=body)
    finally:
        call("PATCH", f"/agents/{agent_id}", json={"message_ids": saved_ids})
        for block in call("GET", f"/agents/{agent_id}/core-memory/blocks"):
            label = block["label"]
            if label in saved_blocks and block["value"] != saved_blocks[label]:
                path = f"/agents/{agent_id}/core-memory/blocks/{label}"
                call("PATCH", path, json={"value": saved_blocks[label]})
    return _answer_of(reply)


def point_agent(call: Call, agent_id: str, llm_url: str, embedder_url: str) -> None:
    """Point an agent made by an earlier process at this process's metering proxy."""
    agent = call("GET", f"/agents/{agent_id}")
    llm = {**agent["llm_config"], "model_endpoint": llm_url}
    embedder = {**agent["embedding_config"], "embedding_endpoint": embedder_url}
    call("PATCH", f"/agents/{agent_id}", json={"llm_config": llm, "embedding_config": embedder})
