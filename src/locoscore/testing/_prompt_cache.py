"""The fake provider's prompt caches, with each provider's published rules, so a test of
what caching costs measures something real.

Anthropic: only a prefix the request marks with `cache_control` is cached, and only when
it holds at least the model's minimum cacheable length. The first request with it writes
it (`cache_creation_input_tokens`); a later request with the identical prefix reads it
(`cache_read_input_tokens`) once the writing reply has started, within 5 minutes of its
last use. `input_tokens` then counts only the tokens after the prefix.

OpenAI: every prompt of 1,024+ tokens is cached by itself; a later prompt sharing a
prefix of 1,024+ tokens with one already served reads the longest such prefix, counted
in 128-token steps (`usage.prompt_tokens_details.cached_tokens`, part of `prompt_tokens`).

Tokens are the fake's usual estimate, four characters each.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from locoscore._io import sha256_text
from locoscore.llm.prompt_cache import OPENAI_MIN_TOKENS, OPENAI_STEP_TOKENS, anthropic_min_tokens
from locoscore.testing._verdicts import content_text, estimate_tokens

CHARS_PER_TOKEN = 4


def marked_prefix(body: Mapping[str, Any]) -> str | None:
    """The request's text up to and including its last `cache_control` block (system
    blocks first, then the messages' blocks in order), joined as the fake joins every
    request's text; None when nothing is marked."""
    parts: list[str] = []
    marked: int | None = None

    def walk(blocks: Any) -> None:
        nonlocal marked
        if isinstance(blocks, str):
            parts.append(blocks)
            return
        if not isinstance(blocks, Sequence):
            return
        for block in blocks:
            if isinstance(block, Mapping):
                parts.append(content_text([block]))
                if isinstance(block.get("cache_control"), Mapping):
                    marked = len(parts)

    if body.get("system") is not None:
        walk(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, Mapping):
            walk(message.get("content"))
    return None if marked is None else "\n".join(parts[:marked])


class FakePromptCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._anthropic: dict[str, float] = {}  # prefix digest -> last used (monotonic)
        self._openai: set[str] = set()  # digests of served prompts' 128-token-step prefixes
        self.ttl_s = 300.0

    def clear(self) -> None:
        with self._lock:
            self._anthropic.clear()
            self._openai.clear()

    def anthropic_lookup(self, body: Mapping[str, Any]) -> tuple[int, int, str | None]:
        """(tokens read, tokens to write, the digest to store once the reply has started)."""
        prefix = marked_prefix(body)
        if prefix is None:
            return 0, 0, None
        tokens = estimate_tokens(prefix)
        if tokens < anthropic_min_tokens(str(body.get("model") or "")):
            return 0, 0, None
        digest = sha256_text(f"{body.get('model')}\x00{prefix}")
        now = time.monotonic()
        with self._lock:
            used = self._anthropic.get(digest)
            if used is not None and now - used <= self.ttl_s:
                self._anthropic[digest] = now  # a read refreshes the 5-minute lifetime
                return tokens, 0, None
        return 0, tokens, digest

    def anthropic_store(self, digest: str | None) -> None:
        if digest is not None:
            with self._lock:
                self._anthropic[digest] = time.monotonic()

    def openai_lookup(self, model: str, text: str) -> tuple[int, list[str]]:
        """(cached tokens, digests of this prompt's cacheable prefixes to store)."""
        steps: list[tuple[int, str]] = []
        tokens = estimate_tokens(text)
        if tokens < OPENAI_MIN_TOKENS:
            return 0, []
        running = hashlib.sha256(f"{model}\x00".encode())
        done = 0
        for length in range(OPENAI_MIN_TOKENS, tokens + 1, OPENAI_STEP_TOKENS):
            running.update(text[done * CHARS_PER_TOKEN : length * CHARS_PER_TOKEN].encode())
            done = length
            steps.append((length, running.copy().hexdigest()))
        with self._lock:
            cached = max((n for n, d in steps if d in self._openai), default=0)
        return cached, [d for _, d in steps]

    def openai_store(self, digests: list[str]) -> None:
        with self._lock:
            self._openai.update(digests)
