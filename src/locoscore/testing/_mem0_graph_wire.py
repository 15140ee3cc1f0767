"""Mem0 1.0's calls (its vector side and its graph memory), answered deterministically so tests
can predict what it stores.

Mem0 1.0 (`mem0ai` 1.0.x, the last line with graph memory) makes, per `add`:

- a json_object call whose user message is "Input:\\n" and the messages as "role: content"
  lines; it expects `{"facts": [...]}`. The fake returns one fact per user line (its content:
  "Caroline: I went hiking"); system lines (the session date locoscore sends) are context.
- for those facts, a json_object call listing them in triple backticks after "The new
  retrieved facts are mentioned in the triple backticks" (a Python list); it expects
  `{"memory": [{"id", "text", "event"}]}`. The fake adds every new fact.
- three chat calls with tools (graph memory), of which mem0 reads the first tool call:
  `extract_entities` (the fake: each speaker a person, and each line's topic, its longest
  word; for a question, its capitalised words), `establish_relationships` (strict variant
  `establish_relations`; the fake: speaker -talked_about-> topic, one per line) and
  `delete_graph_memory` (the fake deletes nothing: no tool call).
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from locoscore.testing._verdicts import user_text

FACTS_INPUT = "Input:\n"
NEW_FACTS = "The new retrieved facts are mentioned in the triple backticks"
RELATION = "talked_about"
_SPEAKER_LINE = re.compile(r"^([^:\n]{1,80}): (.+)$")
_WORD = re.compile(r"[A-Za-z]+")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]+\b")
_GRAPH_TOOLS = frozenset(
    {"extract_entities", "establish_relationships", "establish_relations", "delete_graph_memory"}
)


def _lines(text: str) -> list[tuple[str, str]]:
    """(speaker, text) of each "Speaker: text" line."""
    found = []
    for line in text.splitlines():
        match = _SPEAKER_LINE.match(line.strip())
        if match is not None:
            found.append((match.group(1).strip(), match.group(2)))
    return found


def topic(text: str) -> str | None:
    """A line's topic: its longest word (the first of equal length)."""
    words = _WORD.findall(text)
    return max(words, key=len) if words else None


# ------------------------------------------------------------------ vector side (json_object)


def facts_reply(messages: Any) -> str | None:
    """`{"facts": [...]}` for mem0 1.0's fact call, or None when this is not one."""
    text = user_text(messages)
    if not text.startswith(FACTS_INPUT):
        return None
    facts: list[str] = []
    in_user_line = False  # continuation lines belong to the message above them
    for line in text[len(FACTS_INPUT) :].splitlines():
        if line.startswith("user: "):
            facts.append(line[len("user: ") :])
            in_user_line = True
        elif line.startswith(("system: ", "assistant: ")):
            in_user_line = False  # context, not a fact
        elif in_user_line and line.strip():
            facts[-1] += "\n" + line
    return json.dumps({"facts": [f for f in facts if f.strip()]})


def memory_actions_reply(messages: Any) -> str | None:
    """`{"memory": [...]}` adding every new fact, or None when this is not that call."""
    text = user_text(messages)
    start = text.find(NEW_FACTS)
    if start < 0:
        return None
    block = text[start:].split("```", 2)
    if len(block) < 3:
        return None
    try:
        facts = ast.literal_eval(block[1].strip())
    except (ValueError, SyntaxError):
        return None
    if not isinstance(facts, list):
        return None
    memory = [{"id": str(i), "text": str(f), "event": "ADD"} for i, f in enumerate(facts)]
    return json.dumps({"memory": memory})


def mem0_v1_reply(messages: Any) -> str | None:
    return facts_reply(messages) or memory_actions_reply(messages)


# ------------------------------------------------------------------ graph side (tool calls)


def _graph_tool(body: Mapping[str, Any]) -> str | None:
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if name in _GRAPH_TOOLS:
            return str(name)
    return None


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _entities(text: str) -> list[dict[str, str]]:
    lines = _lines(text)
    if not lines:  # a question: its capitalised words
        names = dict.fromkeys(_CAPITALISED.findall(text))
        return [{"entity": n, "entity_type": "person"} for n in names]
    found: dict[str, str] = {}
    for speaker, said in lines:
        found.setdefault(speaker, "person")
        subject = topic(said)
        if subject is not None:
            found.setdefault(subject, "topic")
    return [{"entity": e, "entity_type": kind} for e, kind in found.items()]


def _relations(text: str) -> list[dict[str, str]]:
    body = text.split("\n\nText: ", 1)[-1]
    relations = []
    for speaker, said in _lines(body):
        subject = topic(said)
        if subject is not None:
            relations.append({"source": speaker, "relationship": RELATION, "destination": subject})
    return relations


def graph_tool_calls(body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tool calls answering one of mem0's graph calls ([] for none); None if it is not
    one of them."""
    name = _graph_tool(body)
    if name is None:
        return None
    text = user_text(body.get("messages"))
    if name == "extract_entities":
        return [_call(name, {"entities": _entities(text)})]
    if name in ("establish_relationships", "establish_relations"):
        return [_call(name, {"entities": _relations(text)})]
    return []  # delete_graph_memory: nothing is outdated
