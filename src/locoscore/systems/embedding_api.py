"""The `api` backend of `embedding`: any OpenAI-compatible `POST /v1/embeddings` endpoint
(OpenAI, vLLM, Ollama, TEI) through the official `openai` SDK.

Every request goes through the shared retry layer (`CallPool`: 429s paced by Retry-After,
5xx and timeouts retried with backoff); a call that still fails raises `EmbeddingError`.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from locoscore.errors import InputError, LocoscoreError
from locoscore.llm.call_errors import REDACTED
from locoscore.llm.cost import PriceTable
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.pool import CallPool, Outcome, RetryPolicy
from locoscore.systems.base import Usage
from locoscore.systems.vector_cache import VectorSpace

OPENAI_URL = "https://api.openai.com/v1"
# Embedding requests in flight at once (the adaptive limiter starts lower and shrinks on 429).
MAX_CONCURRENT_REQUESTS = 16
# The reachability check at start must answer quickly: a wrong URL fails the run at once
# (three attempts at most: about 16 s for a server that never answers).
START_TIMEOUT_S = 5.0
_PROBE_TEXT = "locoscore embedding check"

# What an encoder hands back per batch that succeeded: the batch's texts and their vectors.
StoreVectors = Callable[[list[str], list[np.ndarray]], None]


class EmbeddingError(LocoscoreError):
    """An embeddings call that failed for good (after retries; no key in it)."""


class NotAnEmbeddingsResponse(ValueError):
    """The server answered 200 with something that is not an embeddings JSON body."""


def decode_embeddings(body: Any, count: int) -> list[np.ndarray]:
    """The `data` of an embeddings response, in input order; float or base64 vectors."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise NotAnEmbeddingsResponse("the reply has no 'data' list")
    entries = sorted(body["data"], key=lambda e: e.get("index", 0) if isinstance(e, dict) else 0)
    if len(entries) != count:
        raise NotAnEmbeddingsResponse(f"{len(entries)} vectors for {count} inputs")
    vectors = []
    for entry in entries:
        raw = entry.get("embedding") if isinstance(entry, dict) else None
        if isinstance(raw, str):
            vector = np.frombuffer(base64.b64decode(raw), dtype="<f4")
        elif isinstance(raw, list) and raw:
            vector = np.asarray(raw, dtype=np.float32)
        else:
            raise NotAnEmbeddingsResponse("an entry has no 'embedding' vector")
        vectors.append(vector)
    return vectors


def prompt_tokens(body: dict[str, Any]) -> int:
    """Tokens the server says it read (0 when it does not say, as some local servers)."""
    usage = body.get("usage")
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return tokens if isinstance(tokens, int) else 0


class ApiEmbedder:
    def __init__(
        self,
        model: str,
        dimensions: int | None,
        base_url: str | None,
        api_key_env: str,
        batch_size: int,
        prices: PriceTable,
    ) -> None:
        self.model = model
        self.dimensions = dimensions
        self.option_base_url = base_url
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self.prices = prices
        self.policy = RetryPolicy()
        self.pool = CallPool(AdaptiveLimiter(MAX_CONCURRENT_REQUESTS), self.policy)
        self.space = VectorSpace("api", model, dimensions)
        self._client: Any = None

    def _api_key(self) -> str:
        # Local servers (vLLM, Ollama, TEI) usually need no key; OpenAI answers 401.
        return os.environ.get(self.api_key_env) or "not-needed"

    @property
    def client(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key(),
                base_url=self.option_base_url,
                max_retries=0,
                timeout=self.policy.timeout_s,
            )
        return self._client

    @property
    def base_url(self) -> str:
        """Where requests go: the option, else what the SDK resolves ($OPENAI_BASE_URL)."""
        url = self.option_base_url or os.environ.get("OPENAI_BASE_URL")
        return (url or OPENAI_URL).rstrip("/")

    def dry_run_blocker(self) -> str | None:
        name = self.api_key_env
        if os.environ.get(name) or not self.base_url.startswith(OPENAI_URL):
            return None  # a key, or a local server (which usually needs none)
        return f"embedding ingestion calls {self.base_url}, which needs a key in {name}"

    def scrub(self, text: str) -> str:
        """`redact_secrets` knows the standard key variables; this key may live elsewhere."""
        key = os.environ.get(self.api_key_env)
        return text.replace(key, REDACTED) if key and len(key) >= 6 else text

    async def _request(self, client: Any, texts: list[str]) -> tuple[list[np.ndarray], int]:
        """One embeddings request: the vectors in input order and the tokens read."""
        params: dict[str, Any] = {"model": self.model, "input": texts}
        if self.dimensions is not None:
            params["dimensions"] = self.dimensions
        # Parsed here, not by the SDK: a non-JSON 200 (a proxy's HTML page) then fails with
        # a clear message instead of an AttributeError deep in the SDK.
        raw = await client.embeddings.with_raw_response.create(**params, encoding_format="base64")
        try:
            body = json.loads(raw.http_response.text)
        except ValueError:
            raise NotAnEmbeddingsResponse("the reply is not JSON") from None
        return decode_embeddings(body, len(texts)), prompt_tokens(body)

    async def start(self) -> None:
        """One tiny request with a short timeout: the server answers and knows the model.

        Through a pool of its own: a 5xx, a timeout or a refused connection is tried twice
        more, 429s are waited out as everywhere (a server that only ever answers 429 is
        still there, so it passes)."""
        # A copy with a short timeout that shares the client's connections.
        client = self.client.with_options(timeout=START_TIMEOUT_S)
        check = CallPool(AdaptiveLimiter(1), RetryPolicy(max_attempts=3, timeout_s=START_TIMEOUT_S))
        outcome = await check.call(functools.partial(self._request, client, [_PROBE_TEXT]))
        error = outcome.error
        if error is not None and error.kind != "rate_limit":
            raise InputError(
                f"embedding server {self.base_url}, model {self.model}: "
                f"{self.scrub(self._start_problem(error.kind, error.message))}"
            )

    def _start_problem(self, kind: str, message: str) -> str:
        if kind == "connection":
            return "cannot connect (is the server running and the URL right?)"
        if kind == "timeout":
            return f"no answer within {START_TIMEOUT_S:g} s"
        if kind == "auth":
            return f"the API key was refused ({message}; set {self.api_key_env})"
        if kind == "not_found":
            return f"not found ({message}; is the model served, and does the URL end in /v1?)"
        if kind == "error":  # not an SDK error: the reply itself (NotAnEmbeddingsResponse)
            return f"not an OpenAI-compatible embeddings endpoint ({message})"
        return message

    def _failure(self, outcome: Outcome[Any]) -> EmbeddingError:
        reason = outcome.error.message if outcome.error is not None else outcome.stopped
        return EmbeddingError(
            f"embeddings request to {self.base_url} (model {self.model}) failed: "
            f"{self.scrub(str(reason))}"
        )

    async def encode(self, texts: list[str], store: StoreVectors) -> Usage:
        """`texts` in batched requests, sent concurrently; each batch that succeeds is
        stored even when another fails (then EmbeddingError, after all have answered)."""
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        send = functools.partial(self._request, self.client)
        outcomes = await asyncio.gather(
            *(self.pool.call(functools.partial(send, batch)) for batch in batches)
        )
        tokens = calls = 0
        failure: EmbeddingError | None = None
        for batch, outcome in zip(batches, outcomes, strict=True):
            if not outcome.ok or outcome.value is None:
                failure = failure or self._failure(outcome)
                continue
            vectors, used = outcome.value
            store(batch, vectors)
            tokens += used
            calls += 1
        if failure is not None:
            raise failure
        return Usage(
            cost_usd=self.prices.cost(self.model, tokens, 0), calls=calls, embedding_tokens=tokens
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
