"""Mem0's fact-extraction call, answered deterministically so tests can predict memories.

Mem0 OSS (2.2) extracts memories with one chat completion per `add`: `response_format`
json_object, and a user message built of markdown sections, among them the messages to
extract from ("## New Messages", one "role: content" line per message) and the observation
date ("## Observation Date"). It expects `{"memory": [{"id": "0", "text": "..."}, ...]}`;
any other shape stores nothing.

The fake extracts one fact per new message: the message content without its role prefix
(so a turn sent as "Caroline: I went hiking" becomes the memory "Caroline: I went
hiking"). Earlier messages mem0 adds as context ("## Last k Messages") are not new facts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from locoscore.testing._verdicts import user_text

NEW_MESSAGES = "## New Messages"
OBSERVATION_DATE = "## Observation Date"
_ROLE_PREFIX = re.compile(r"^(user|assistant|system): ", re.M)
_SECTION = re.compile(r"^#{1,2} ", re.M)


def is_mem0_extraction(messages: Any) -> bool:
    """A chat request carrying mem0's extraction prompt (by its section headers)."""
    text = user_text(messages)
    return NEW_MESSAGES in text and OBSERVATION_DATE in text


def new_messages(prompt: str) -> list[str]:
    """The contents of the messages under "## New Messages", in order."""
    start = prompt.find(NEW_MESSAGES)
    if start < 0:
        return []
    body = prompt[start + len(NEW_MESSAGES) :]
    next_section = _SECTION.search(body)
    if next_section is not None:
        body = body[: next_section.start()]
    contents: list[str] = []
    for line in body.strip("\n").splitlines():
        match = _ROLE_PREFIX.match(line)
        if match is not None:
            contents.append(line[match.end() :])
        elif contents and line.strip():
            contents[-1] += "\n" + line  # a message spanning lines
    return [c for c in contents if c.strip()]  # exactly as sent (trailing spaces too)


def extraction_reply(messages: Any) -> str:
    """Mem0's expected JSON: one memory per new message."""
    facts = new_messages(user_text(messages))
    memory = [{"id": str(i), "text": fact} for i, fact in enumerate(facts)]
    return json.dumps({"memory": memory})
