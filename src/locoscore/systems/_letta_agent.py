"""What locoscore sends a Letta agent, and what it reads back as retrieved items.

The agent (one per conversation) is a memgpt_v2_agent with Letta's base tools and two core
memory blocks: "persona" (its role: it listens to a conversation it is not part of) and
"human" (who speaks). A session is one request: a header message naming the session, its
date and its speakers, then one user message per turn with the speaker as `name` (OpenAI's
name rules: letters, digits, _ and -) and "Speaker: text [shares an image: caption]" as
content. Letta 0.11.7 takes no date for a message (it stamps the server's clock), so the
session date is in the header; each turn's `otid` ("locoscore:SESSION:N:DIA_ID") lets its
date be read back from the session it came from.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from locoscore.data.conversation import SessionInput
from locoscore.systems.base import MemoryItem

PERSONA = (
    "I am a memory assistant. I read the sessions of a conversation between other people "
    "that I am not part of, and keep in my memory blocks what matters about each of them "
    "(facts, plans, events) with the date each thing was said or happened."
)
OTID_PREFIX = "locoscore:"


def human_block(speakers: tuple[str, ...]) -> str:
    return f"The conversation is between {' and '.join(speakers) or 'two people'}."


def session_header(session: SessionInput) -> str:
    when = session.date_raw or session.date_iso or "an unknown date"
    speakers = " and ".join(session.speakers) or "two people"
    return (
        f"Session {session.index} of the conversation between {speakers}, held on {when}. "
        f"The {len(session.turns)} messages that follow are what they said then."
    )


AGENT_FORMAT_ID = hashlib.sha256(
    "\n".join(
        [PERSONA, human_block(("A", "B")), session_header(SessionInput("c", 1, "d", None, ()))]
    ).encode()
).hexdigest()[:12]


def message_name(speaker: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", speaker)[:64] or "speaker"


def session_messages(session: SessionInput) -> list[dict[str, Any]]:
    """The session as Letta `MessageCreate`s: the dated header, then one per turn."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": session_header(session)}]
    for number, turn in enumerate(session.turns):
        messages.append(
            {
                "role": "user",
                "name": message_name(turn.speaker),
                "content": turn.render(),
                "otid": f"{OTID_PREFIX}{session.index}:{number}:{turn.dia_id}",
            }
        )
    return messages


def agent_body(
    name: str,
    speakers: tuple[str, ...],
    options: Mapping[str, Any],
    *,
    llm_url: str,
    embedder_url: str,
) -> dict[str, Any]:
    """`POST /v1/agents/`: the agent, its models (behind the metering proxy), its blocks."""
    return {
        "name": name,
        "agent_type": "memgpt_v2_agent",
        "include_base_tools": True,
        "llm_config": {
            "model": options["llm_model"],
            "model_endpoint_type": "openai",
            "model_endpoint": llm_url,
            "context_window": options["context_window"],
        },
        "embedding_config": {
            "embedding_model": options["embedder_model"],
            "embedding_endpoint_type": "openai",
            "embedding_endpoint": embedder_url,
            "embedding_dim": options["embedding_dims"],
        },
        "memory_blocks": [
            {"label": "persona", "value": PERSONA},
            {"label": "human", "value": human_block(speakers)},
        ],
    }


def block_item(block: Mapping[str, Any], date_iso: str | None, date_raw: str | None) -> MemoryItem:
    """A core memory block as it stood after the last session (dated by that session)."""
    return MemoryItem(
        text=f"[Letta core memory: {block.get('label')}]\n{block.get('value', '')}",
        date_iso=date_iso,
        date_raw=date_raw,
    )


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    text = str(content or "")
    if text.startswith("{"):  # a user message Letta wrapped as {"type": ..., "message": ...}
        try:
            wrapped = json.loads(text)
        except ValueError:
            return text
        if isinstance(wrapped, dict) and isinstance(wrapped.get("message"), str):
            return wrapped["message"]
    return text


def turn_item(
    message: Mapping[str, Any], sessions: Mapping[str, list[str | None]]
) -> tuple[tuple[int, int], MemoryItem] | None:
    """(order, item) for a turn locoscore sent (its otid), None for any other message."""
    otid = message.get("otid")
    if message.get("message_type") != "user_message" or not isinstance(otid, str):
        return None
    if not otid.startswith(OTID_PREFIX):
        return None
    session, number, dia_id = otid[len(OTID_PREFIX) :].split(":", 2)
    date_iso, date_raw = sessions.get(session, [None, None])
    item = MemoryItem(_content(message), None, date_iso, date_raw, (dia_id,))
    return (int(session), int(number)), item
