"""OpenAI `POST /v1/embeddings` for the fake provider: deterministic, meaningful vectors.

Each text becomes a hashed bag of lower-cased words (feature hashing into `dimensions`
buckets, signed), L2-normalised, so cosine similarity tracks word overlap: a retrieval test
can predict which item ranks first. `encoding_format` float or base64 (the openai SDK asks
for base64 by default). Faults and the RPM limit apply as on chat completions.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct
from collections.abc import Mapping
from typing import Any

from locoscore.testing._core import (
    DEFAULT_EMBEDDING_DIMS,
    Core,
    Reply,
    retry_after_headers,
)
from locoscore.testing._verdicts import estimate_tokens

DEFAULT_DIMENSIONS = DEFAULT_EMBEDDING_DIMS
_WORD = re.compile(r"[a-z0-9]+")
_EMBEDDING_FAULTS = frozenset({"429", "quota", "500", "503", "529", "timeout", "drop", "bad_json"})


def fake_embedding(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    """The vector the fake provider returns for `text` (tests recompute it)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        bucket = int.from_bytes(digest[:4], "big") % dimensions
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        vector[0], norm = 1.0, 1.0
    return [v / norm for v in vector]


def _check(body: Any, default_dims: int) -> tuple[list[str], int, str] | str:
    if not isinstance(body, Mapping):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    inputs = body.get("input")
    if isinstance(inputs, str):
        inputs = [inputs]
    if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) for t in inputs):
        return "'input' must be a non-empty string or array of strings"
    if any(not t for t in inputs):
        return "'input' cannot contain an empty string"
    dims = body.get("dimensions", default_dims)
    if not isinstance(dims, int) or isinstance(dims, bool) or not 1 <= dims <= 4096:
        return "'dimensions' must be an integer between 1 and 4096"
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        return "'encoding_format' must be float or base64"
    return inputs, dims, encoding


def _encode(vector: list[float], encoding: str) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector


def handle_embeddings(core: Core, body: Any) -> Reply:
    """POST /v1/embeddings."""
    from locoscore.testing._openai_wire import error_reply, fault_reply

    checked = _check(body, core.config.embedding_dims)
    if isinstance(checked, str):
        return error_reply(400, checked, "invalid_request_error", param="input")
    inputs, dims, encoding = checked
    config = core.config
    wait = core.admit()
    if wait is not None:
        return error_reply(
            429,
            "Rate limit reached for requests; wait for the window to move.",
            "requests",
            "rate_limit_exceeded",
            headers=retry_after_headers(wait),
        )
    core.sleep(config.latency_s)
    fault = core.draw_fault(_EMBEDDING_FAULTS)
    if fault is not None:
        core.record_fault(fault)
    refused = core.live_fault(fault, fault_reply)
    if refused is not None:
        return refused
    if fault == "bad_json":
        return Reply(status=200, body=b"<html>upstream error</html>", content_type="text/html")
    tokens = sum(estimate_tokens(t) for t in inputs)
    with core.lock:
        core.embedding_inputs += len(inputs)
    payload = {
        "object": "list",
        "data": [
            {
                "object": "embedding",
                "index": i,
                "embedding": _encode(fake_embedding(t, dims), encoding),
            }
            for i, t in enumerate(inputs)
        ],
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
    return core.live_reply(payload, fault)
