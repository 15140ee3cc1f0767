"""A-Mem's structured-output calls, answered deterministically so tests can predict its notes.

A-Mem (`a-mem` 0.2, OpenAI backend) asks two things of its LLM for every note, each a chat
completion with `response_format` json_schema (schema name "response"), the prompt in the
user message:

- the note's analysis (properties `keywords`, `context`, `tags`; the note's text follows
  "Content for analysis:"): the fake answers the first three distinct words of four letters
  or more of what was said, the context "Said by <speaker>", and the tag "conversation";
- its evolution (property `should_evolve`; the neighbours as "memory_id:<id>\\t..." lines):
  the fake strengthens the note with a link to the first neighbour and updates no
  neighbour, so every note keeps the analysis it was given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from locoscore.testing._verdicts import user_text

TAG = "conversation"
_CONTENT = "Content for analysis:"
_NEIGHBOUR = re.compile(r"memory_id:([^\t\n]+)\t")
_WORD = re.compile(r"[A-Za-z]{4,}")


def _properties(response_format: Any) -> set[str]:
    if not isinstance(response_format, Mapping) or response_format.get("type") != "json_schema":
        return set()
    spec = response_format.get("json_schema")
    if not isinstance(spec, Mapping) or spec.get("name") != "response":
        return set()
    schema = spec.get("schema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return set(properties) if isinstance(properties, Mapping) else set()


def amem_reply(response_format: Any, messages: Any) -> str | None:
    """The JSON A-Mem expects, or None when the request is not one of its calls."""
    properties = _properties(response_format)
    text = user_text(messages)
    if {"keywords", "context", "tags"} <= properties and _CONTENT in text:
        note = text.rsplit(_CONTENT, 1)[1].strip()
        speaker, _, said = note.partition(": ")
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(said)))
        return json.dumps({"keywords": words[:3], "context": f"Said by {speaker}", "tags": [TAG]})
    if "should_evolve" in properties:
        neighbours = _NEIGHBOUR.findall(text)
        return json.dumps(
            {
                "should_evolve": bool(neighbours),
                "actions": ["strengthen"] if neighbours else [],
                "suggested_connections": neighbours[:1],
                "tags_to_update": [TAG],
                "new_context_neighborhood": [],
                "new_tags_neighborhood": [],
            }
        )
    return None
