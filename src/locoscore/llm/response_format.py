"""Structured-output negotiation with openai-compatible servers.

vLLM, Ollama and llama.cpp builds often answer `response_format: json_schema` with an error
(HTTP 400, 422, or llama-cpp-python's 500).
The client then asks with the next, looser mode; with "none" the parser's text fallbacks
read the verdict. The verdict's meaning does not change, so the mode is recorded in the
summary but is no part of the cache key or the signature.
"""

from __future__ import annotations

import json
from typing import Any

# Structured-output modes of Chat Completions, strictest first. A compatible server that
# rejects one is asked with the next; with "none" the parser's text fallbacks read the verdict.
RESPONSE_FORMATS: tuple[str, ...] = ("json_schema", "json_object", "none")
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object")
_UNSUPPORTED_WORDS = (
    "not supported",
    "unsupported",
    "does not support",
    "not implemented",
    "input should be",  # pydantic's answer for an unknown `type` (older vLLM)
    "not a valid",
    "unknown",
)


class ResponseFormatDowngraded(Exception):
    """A compatible server rejected the call's response_format; the client now uses the next
    mode, and the call is to be sent again at once (a negotiation, not a failure)."""

    def __init__(self, rejected: str, now: str) -> None:
        super().__init__(f"the server rejected response_format {rejected}; now using {now}")
        self.rejected, self.now = rejected, now


def rejects_response_format(status: int, body: Any) -> bool:
    """Whether an error says the request's response format is unsupported (vLLM, Ollama,
    llama.cpp and OpenAI word it differently; all name the format and say it is not
    supported). Read from the body whatever the status: llama-cpp-python answers a
    json_schema request with HTTP 500, others with 400 or 422."""
    if status in (401, 403, 404, 429):
        return False
    lowered = json.dumps(body, default=str).lower()
    return any(w in lowered for w in _FORMAT_WORDS) and any(
        w in lowered for w in _UNSUPPORTED_WORDS
    )
