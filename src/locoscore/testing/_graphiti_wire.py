"""Graphiti's structured-output calls, answered deterministically so tests can predict its graph.

Graphiti (graphiti-core 0.31, `OpenAIGenericClient`) asks for every step of `add_episode` as
a chat completion with `response_format` json_schema, named after its pydantic model. The
fake recognises the steps by that name and by the tagged sections of the prompt:

- `ExtractedEntities` (<CURRENT MESSAGE>): one entity per speaker of the episode's
  "Speaker: text" lines, in order of first appearance, and "the listener" when only one
  speaks (Graphiti keeps only facts between two distinct entities).
- `ExtractedEdges` (<CURRENT_MESSAGE>, <ENTITIES>, <REFERENCE_TIME>): one fact per line, the
  line itself, from its speaker to the first other entity, valid from the reference time.
- `EdgeTimestamps` (<REFERENCE TIME>): valid from the reference time, never invalid.
- `NodeResolutions` / `EdgeDuplicate`: no duplicates, no contradictions, so that every
  fact stays an edge of its own (Graphiti merges same-named entities itself).
- `SummarizedEntities`: no summary updates.

Any other schema gets the generic fill (`fill_schema`).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from typing import Any

from locoscore.testing._verdicts import user_text

_SPEAKER_LINE = re.compile(r"^([^:\n]{1,80}): (.+)$")
LISTENER = "the listener"
_NAMES = frozenset(
    {
        "ExtractedEntities",
        "ExtractedEdges",
        "EdgeTimestamps",
        "NodeResolutions",
        "EdgeDuplicate",
        "SummarizedEntities",
    }
)


def _section(text: str, tag: str) -> str | None:
    start = text.find(f"<{tag}>")
    end = text.find(f"</{tag}>", start + 1)
    if start < 0 or end < 0:
        return None
    return text[start + len(tag) + 2 : end].strip()


def _episode_lines(body: str) -> list[tuple[str, str]]:
    """(speaker, line) for each "Speaker: text" line of an episode's content."""
    if body.startswith('"'):
        with contextlib.suppress(ValueError):
            body = str(json.loads(body))
    lines = []
    for line in body.splitlines():
        match = _SPEAKER_LINE.match(line.strip())
        if match is not None:
            lines.append((match.group(1).strip(), line.strip()))
    return lines


def _reference_time(text: str, tag: str) -> str | None:
    section = _section(text, tag)
    if not section:
        return None
    return section.split("#", 1)[0].strip() or None


def is_graphiti_call(response_format: Any) -> str | None:
    """The schema name when this response_format is one of Graphiti's steps the fake knows."""
    if not isinstance(response_format, Mapping) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    name = spec.get("name") if isinstance(spec, Mapping) else None
    return name if name in _NAMES else None


def graphiti_reply(name: str, messages: Any) -> str | None:
    """The JSON Graphiti expects for step `name`, or None when the prompt is not its own."""
    text = user_text(messages)
    if name == "ExtractedEntities":
        body = _section(text, "CURRENT MESSAGE")
        if body is None:
            return None
        speakers = list(dict.fromkeys(speaker for speaker, _ in _episode_lines(body)))
        if len(speakers) == 1:
            speakers.append(LISTENER)
        entities = [{"name": s, "entity_type_id": 0, "episode_indices": [0]} for s in speakers]
        return json.dumps({"extracted_entities": entities})
    if name == "ExtractedEdges":
        return _edges(text)
    if name == "EdgeTimestamps":
        return json.dumps({"valid_at": _reference_time(text, "REFERENCE TIME"), "invalid_at": None})
    if name == "NodeResolutions":
        return json.dumps({"entity_resolutions": []})
    if name == "EdgeDuplicate":
        return json.dumps({"duplicate_facts": [], "contradicted_facts": []})
    if name == "SummarizedEntities":
        return json.dumps({"summaries": []})
    return None


def _edges(text: str) -> str | None:
    body = _section(text, "CURRENT_MESSAGE")
    entities_json = _section(text, "ENTITIES")
    if body is None or entities_json is None:
        return None
    try:
        entities = json.loads(entities_json)
    except ValueError:
        return None
    names = [str(e.get("name")) for e in entities if isinstance(e, Mapping)]
    valid_at = _reference_time(text, "REFERENCE_TIME")
    edges = []
    for speaker, line in _episode_lines(body):
        others = [n for n in names if n != speaker]
        if speaker not in names or not others:
            continue
        edges.append(
            {
                "source_entity_name": speaker,
                "target_entity_name": others[0],
                "relation_type": "SAID",
                "fact": line,
                "valid_at": valid_at,
                "invalid_at": None,
                "episode_indices": [0],
            }
        )
    return json.dumps({"edges": edges})
