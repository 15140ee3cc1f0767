"""LangMem's extraction call, answered with OpenAI tool calls so tests can predict memories.

LangMem 0.0.x (`create_memory_store_manager`, through trustcall) extracts memories with one
chat completion per call that offers a function tool named `Memory` (`{"content": str}`),
tool_choice left to the model, and a user message holding the conversation inside
`<session_...>` tags. It stores one memory per `Memory` tool call in the reply.

The fake calls `Memory` once per "Speaker: text" line of the conversation (the line as
sent), and nothing for other lines (a date header, the "Human Message" rule).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from locoscore.testing._verdicts import user_text

_SESSION = re.compile(r"<(session_[^>]+)>\n(.*?)\n</\1>", re.S)
_SPEAKER_LINE = re.compile(r"^[^:\n\[(=]{1,80}: .+$")


def _offers_memory_tool(body: Mapping[str, Any]) -> bool:
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and function.get("name") == "Memory":
            return True
    return False


def memory_tool_calls(body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tool calls of the reply to a LangMem extraction request; None if it is not one."""
    if not _offers_memory_tool(body):
        return None
    sessions = _SESSION.findall(user_text(body.get("messages")))
    if not sessions:
        return None
    lines = [line.strip() for line in sessions[-1][1].splitlines()]
    return [
        {
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": "Memory", "arguments": json.dumps({"content": line})},
        }
        for line in lines
        if _SPEAKER_LINE.match(line)
    ]
