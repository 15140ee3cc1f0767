"""What a memory library spends through the user's providers, read off the HTTP responses.

Mem0 and Graphiti call the OpenAI SDK internally and report no usage. Locoscore gives the
library's LLM and embedder OpenAI clients whose HTTP client (httpx2, the openai SDK's own;
sync for mem0, async for Graphiti) has a response hook: every successful chat completion or
embeddings response adds its `usage` to the tally of the library call that caused it. The
tally travels in a context variable, which `asyncio.to_thread` copies into a worker thread
and every asyncio task copies from its parent, so concurrent conversations never mix their
counts. Calls made from threads the library starts itself without copying the context
(mem0 only for entity boosts, which need spaCy; LangMem for its searches of a session) go to
the meter's `fallback` tally when the adapter set one (a meter per conversation, whose
sessions are added one at a time), else to `UsageMeter.unattributed`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx2

from locoscore.llm.cost import PriceTable
from locoscore.systems.base import Usage


@dataclass
class Tally:
    """Counts of one library call (an add or a search)."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    embedding_calls: int = 0
    embedding_tokens: int = 0
    # Chat replies cut by the token limit: the library cannot parse them.
    truncated: int = 0

    def add_response(self, path: str, payload: dict[str, Any]) -> None:
        usage = payload.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        if path.endswith("/embeddings"):
            self.embedding_calls += 1
            self.embedding_tokens += _int(usage.get("prompt_tokens"))
        elif path.endswith("/chat/completions"):
            self.llm_calls += 1
            self.input_tokens += _int(usage.get("prompt_tokens"))
            self.output_tokens += _int(usage.get("completion_tokens"))
            choices = payload.get("choices") or []
            if any(isinstance(c, dict) and c.get("finish_reason") == "length" for c in choices):
                self.truncated += 1

    def usage(self, prices: PriceTable, llm_model: str, embedder_model: str) -> Usage:
        """As a `Usage`; the cost is None when a model that was used has no price."""
        cost: float | None = 0.0
        for model, tokens_in, tokens_out in (
            (llm_model, self.input_tokens, self.output_tokens),
            (embedder_model, self.embedding_tokens, 0),
        ):
            if tokens_in == 0 and tokens_out == 0:
                continue
            part = prices.cost(model, tokens_in, tokens_out)
            cost = None if part is None or cost is None else cost + part
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=cost,
            calls=self.llm_calls + self.embedding_calls,
            embedding_tokens=self.embedding_tokens,
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_CURRENT: ContextVar[Tally | None] = ContextVar("locoscore_usage_tally", default=None)


def _billed(response: httpx2.Response) -> bool:
    """A successful chat completion or embeddings response (errors and retried attempts
    are not billed)."""
    path = response.request.url.path
    return response.status_code == 200 and path.endswith(("/embeddings", "/chat/completions"))


class UsageMeter:
    """The response hook and the tallies it feeds."""

    def __init__(self) -> None:
        self.unattributed = Tally()
        # The tally of the one call in progress on this meter's clients, for responses to
        # requests made from threads that did not copy the context.
        self.fallback: Tally | None = None
        self._lock = threading.Lock()

    def on_response(self, response: httpx2.Response) -> None:
        if not _billed(response):
            return
        response.read()
        self._record(response)

    async def on_async_response(self, response: httpx2.Response) -> None:
        if not _billed(response):
            return
        await response.aread()
        self._record(response)

    def _record(self, response: httpx2.Response) -> None:
        path = response.request.url.path
        try:
            payload = response.json()
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        tally = _CURRENT.get()
        with self._lock:
            target = tally or self.fallback or self.unattributed
            target.add_response(path, payload)

    def http_client(self, timeout_s: float) -> httpx2.Client:
        return httpx2.Client(timeout=timeout_s, event_hooks={"response": [self.on_response]})

    def async_http_client(self, timeout_s: float) -> httpx2.AsyncClient:
        hooks = {"response": [self.on_async_response]}
        return httpx2.AsyncClient(timeout=timeout_s, event_hooks=hooks)

    @staticmethod
    @contextlib.contextmanager
    def counting() -> Iterator[Tally]:
        """Attribute the responses of this thread's calls to a fresh tally."""
        tally = Tally()
        token = _CURRENT.set(tally)
        try:
            yield tally
        finally:
            _CURRENT.reset(token)
