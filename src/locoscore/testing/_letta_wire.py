"""The Letta agent's steps, answered with OpenAI tool calls so tests can predict its memory.

A Letta 0.11.7 agent (memgpt_v2_agent) sends each step as a chat completion with
`tool_choice` "required" and its tools, among them `send_message` and `memory_insert`
(arguments: thinking, label, new_str, insert_line, request_heartbeat). The fake answers:

- a step whose last message is new user input: `memory_insert` into the "human" block of
  one line, the first line of that input that names a session and its date (locoscore's
  session header), with request_heartbeat true (so Letta takes one more step);
- a step after a tool's result: `send_message` ("Noted."), which ends the agent's turn.

So each session costs two LLM calls, and the core memory holds one dated line per session.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any


def _tool_names(body: Mapping[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping):
            names.add(str(function.get("name")))
    return names


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return str(content or "")


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def letta_tool_calls(body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tool call answering a Letta agent step; None if the request is not one."""
    if not {"send_message", "memory_insert"} <= _tool_names(body):
        return None
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    if not messages or messages[-1].get("role") == "tool":
        return [_call("send_message", {"thinking": "Stored.", "message": "Noted."})]
    # The new input: the user messages after the last assistant or tool message.
    new: list[str] = []
    for message in reversed(messages):
        if message.get("role") != "user":
            break
        new.insert(0, _text(message))
    header = next(
        (line for text in new for line in text.splitlines() if line.startswith("Session ")), None
    )
    if header is None:
        return [_call("send_message", {"thinking": "Nothing to keep.", "message": "Noted."})]
    arguments = {
        "thinking": "Keep when this session took place.",
        "label": "human",
        "new_str": header,
        "insert_line": -1,
        "request_heartbeat": True,
    }
    return [_call("memory_insert", arguments)]
