"""The fake provider answers mem0's extraction call with the JSON mem0 expects (one memory
per new message), leaves other JSON requests to the verdict rule, and sizes embeddings
from its configuration when the request names no size."""

from __future__ import annotations

import json

from fakeprov_helpers import gpt

from locoscore.testing import FakeConfig, FakeProvider

# Shaped like mem0 2.2's extraction prompt: markdown sections, one "role: content" line per
# message; the earlier messages under "Last k Messages" are context, not new facts.
MEM0_PROMPT = """## Summary


## Last k Messages
user: Melanie: How was your weekend?

## Existing Memories
[]

## New Messages
user: Caroline: I went to a support group yesterday.
user: Melanie: That's great! [shares an image: a dog on a beach]


## Observation Date
2026-12-01

## Current Date
2026-12-01

## Custom Instructions
Observation Date: 2023-05-08

# Output:"""


def _json_chat(fake: FakeProvider, user_text: str) -> dict[str, object]:
    reply = gpt(fake).chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "You extract memories."},
            {"role": "user", "content": user_text},
        ],
        response_format={"type": "json_object"},
        temperature=0.1,
    )
    content = reply.choices[0].message.content
    assert content is not None
    loaded: dict[str, object] = json.loads(content)
    return loaded


def test_mem0_extraction_gets_one_memory_per_new_message(fake: FakeProvider) -> None:
    assert _json_chat(fake, MEM0_PROMPT) == {
        "memory": [
            {"id": "0", "text": "Caroline: I went to a support group yesterday."},
            {"id": "1", "text": "Melanie: That's great! [shares an image: a dog on a beach]"},
        ]
    }


def test_other_json_requests_still_get_a_verdict(fake: FakeProvider) -> None:
    reply = _json_chat(fake, "Grade this answer. Reply in JSON with score and explanation.")
    assert set(reply) == {"score", "explanation"}


def test_embeddings_without_dimensions_take_the_configured_size() -> None:
    with FakeProvider(FakeConfig(embedding_dims=24)) as fake:
        client = gpt(fake)
        plain = client.embeddings.create(model="text-embedding-3-small", input=["a b"])
        sized = client.embeddings.create(
            model="text-embedding-3-small", input=["a b"], dimensions=8
        )
    assert len(plain.data[0].embedding) == 24
    assert len(sized.data[0].embedding) == 8
