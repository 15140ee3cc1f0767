"""`embedding`: dense retrieval over one conversation's turns (or sessions), cosine top-k.

Vectors come from any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, vLLM,
Ollama, TEI) through the official `openai` SDK, and are cached on disk by (model,
dimensions, text hash) so a rerun embeds nothing twice (`vector_cache`).

Items are embedded at `add`, one batched request per session (`batch_size` texts a
request), not lazily at the first search: ingestion time then carries the whole embedding
cost and search latency only the query's embedding and the cosine, which is what the run
measures and what Mem0's published figures split; and a server failing mid-ingestion is
recorded against its conversation, not against whichever question came first.

Every request goes through the shared retry layer (`CallPool`: 429s paced by Retry-After,
5xx and timeouts retried with backoff); a call that still fails raises `EmbeddingError`.
Ranking: cosine in float64, scores rounded to 6 decimals *before* ranking, ties broken by
position, so float32 storage noise never reorders items whose similarity is equal.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError, LocoscoreError
from locoscore.llm.call_errors import REDACTED
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.pool import CallPool, Outcome, RetryPolicy
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.items import GRANULARITIES, session_items, top_k_indices
from locoscore.systems.options import OptionSpec, resolve_options, signature_values
from locoscore.systems.registry import SystemContext
from locoscore.systems.vector_cache import VectorCache, text_digest

DEFAULT_MODEL = "text-embedding-3-small"
OPENAI_URL = "https://api.openai.com/v1"
CACHE_FILE = "embeddings.sqlite"
# Embedding requests in flight at once (the adaptive limiter starts lower and shrinks on 429).
MAX_CONCURRENT_REQUESTS = 16
# The reachability check at start must answer quickly: a wrong URL fails the run at once
# (three attempts at most: about 16 s for a server that never answers).
START_TIMEOUT_S = 5.0
_PROBE_TEXT = "locoscore embedding check"
SCORE_DECIMALS = 6


class EmbeddingError(LocoscoreError):
    """An embeddings request that failed after the retry layer gave up (no key in it)."""


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


def cosine_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of each row with the query, in float64; a zero vector scores 0."""
    rows = matrix.astype(np.float64)
    q = query.astype(np.float64)
    row_norms = np.linalg.norm(rows, axis=1)
    q_norm = float(np.linalg.norm(q))
    scores = rows @ q
    denominator = row_norms * (q_norm if q_norm > 0 else 1.0)
    return np.divide(scores, denominator, out=np.zeros_like(scores), where=denominator > 0)


class _Index:
    def __init__(self) -> None:
        self.items: list[MemoryItem] = []
        self.vectors: list[np.ndarray] = []
        self.matrix: np.ndarray | None = None  # stacked lazily at the next search


class EmbeddingSystem(MemorySystem):
    name = "embedding"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "model": OptionSpec(str, DEFAULT_MODEL, "embedding model the server serves"),
        "base_url": OptionSpec(
            str,
            None,
            "OpenAI-compatible base URL (default $OPENAI_BASE_URL or OpenAI's)",
            (),
            False,
        ),
        "dimensions": OptionSpec(int, None, "vector size to ask for (sent only when given)"),
        "granularity": OptionSpec(str, "turn", "retrieve turns or whole sessions", GRANULARITIES),
        "batch_size": OptionSpec(int, 128, "texts per embeddings request", (), False),
        "api_key_env": OptionSpec(
            str, "OPENAI_API_KEY", "variable holding the key (local servers need none)", (), False
        ),
        "cache": OptionSpec(
            str, None, "vector cache file (default <state>/embeddings.sqlite)", (), False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        cache = self.options["cache"]
        self.cache_path = Path(cache) if cache else context.state_dir / CACHE_FILE
        self.model: str = self.options["model"]
        self.dimensions: int | None = self.options["dimensions"]
        self.policy = RetryPolicy()
        self.pool = CallPool(AdaptiveLimiter(MAX_CONCURRENT_REQUESTS), self.policy)
        self.prices = context.prices
        self._client: Any = None
        self._cache: VectorCache | None = None
        self._indexes: dict[str, _Index] = {}

    # -- the server -----------------------------------------------------------------------

    def _api_key(self) -> str:
        # Local servers (vLLM, Ollama, TEI) usually need no key; OpenAI answers 401.
        return os.environ.get(self.options["api_key_env"]) or "not-needed"

    def dry_run_blocker(self) -> str | None:
        name = self.options["api_key_env"]
        if os.environ.get(name) or not self.base_url.startswith(OPENAI_URL):
            return None  # a key, or a local server (which usually needs none)
        return f"embedding ingestion calls {self.base_url}, which needs a key in {name}"

    @property
    def client(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key(),
                base_url=self.options["base_url"],
                max_retries=0,
                timeout=self.policy.timeout_s,
            )
        return self._client

    @property
    def base_url(self) -> str:
        """Where requests go: the option, else what the SDK resolves ($OPENAI_BASE_URL)."""
        url = self.options["base_url"] or os.environ.get("OPENAI_BASE_URL")
        return (url or OPENAI_URL).rstrip("/")

    def _scrub(self, text: str) -> str:
        """`redact_secrets` knows the standard key variables; this key may live elsewhere."""
        key = os.environ.get(self.options["api_key_env"])
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
                f"{self._scrub(self._start_problem(error.kind, error.message))}"
            )
        self._open_cache()

    def _start_problem(self, kind: str, message: str) -> str:
        if kind == "connection":
            return "cannot connect (is the server running and the URL right?)"
        if kind == "timeout":
            return f"no answer within {START_TIMEOUT_S:g} s"
        if kind == "auth":
            return f"the API key was refused ({message}; set {self.options['api_key_env']})"
        if kind == "not_found":
            return f"not found ({message}; is the model served, and does the URL end in /v1?)"
        if kind == "error":  # not an SDK error: the reply itself (NotAnEmbeddingsResponse)
            return f"not an OpenAI-compatible embeddings endpoint ({message})"
        return message

    def _open_cache(self) -> VectorCache:
        # Opened after the start check, so a failed check writes nothing.
        if self._cache is None:
            self._cache = VectorCache(self.cache_path)
        return self._cache

    # -- embedding ------------------------------------------------------------------------

    def _failure(self, outcome: Outcome[Any]) -> EmbeddingError:
        reason = outcome.error.message if outcome.error is not None else outcome.stopped
        return EmbeddingError(
            f"embeddings request to {self.base_url} (model {self.model}) failed: "
            f"{self._scrub(str(reason))}"
        )

    async def embed(self, texts: list[str]) -> tuple[list[np.ndarray], Usage]:
        """Vectors of `texts` (cached ones from disk, the rest in batched requests) and what
        the requests cost. Batches that succeed are cached even when another fails."""
        cache = self._open_cache()
        digests = [text_digest(t) for t in texts]
        known = cache.get_many(self.model, self.dimensions, digests)
        missing: dict[str, str] = {}  # digest -> text, first occurrence order, no repeats
        for digest, text in zip(digests, texts, strict=True):
            if digest not in known:
                missing.setdefault(digest, text)
        todo = list(missing.items())
        size = self.options["batch_size"]
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        send = functools.partial(self._request, self.client)
        outcomes = await asyncio.gather(
            *(self.pool.call(functools.partial(send, [t for _, t in b])) for b in batches)
        )
        tokens = calls = 0
        failure: EmbeddingError | None = None
        for batch, outcome in zip(batches, outcomes, strict=True):
            if not outcome.ok or outcome.value is None:
                failure = failure or self._failure(outcome)
                continue
            vectors, used = outcome.value
            pairs = [(digest, v) for (digest, _), v in zip(batch, vectors, strict=True)]
            cache.put_many(self.model, self.dimensions, pairs)
            known.update(pairs)
            tokens += used
            calls += 1
        if failure is not None:
            raise failure
        usage = Usage(
            cost_usd=self.prices.cost(self.model, tokens, 0), calls=calls, embedding_tokens=tokens
        )
        return [known[d] for d in digests], usage

    # -- the memory-system interface ------------------------------------------------------

    async def reset(self, conversation_id: str) -> None:
        self._indexes[conversation_id] = _Index()

    async def add(self, session: SessionInput) -> Usage:
        items = session_items(session, self.options["granularity"])
        vectors, usage = await self.embed([item.text for item in items])
        index = self._indexes.setdefault(session.conversation_id, _Index())
        index.items.extend(items)
        index.vectors.extend(vectors)
        index.matrix = None
        return usage

    def _matrix(self, index: _Index) -> np.ndarray:
        if index.matrix is None:
            if len({v.shape for v in index.vectors}) > 1:
                raise EmbeddingError(
                    f"model {self.model} returned vectors of different lengths; "
                    f"does cache {self.cache_path} mix servers?"
                )
            index.matrix = np.vstack(index.vectors)
        return index.matrix

    async def search(self, query: Query) -> SearchResult:
        index = self._indexes.get(query.conversation_id)
        if index is None or not index.items:
            return SearchResult(())
        (vector,), usage = await self.embed([query.text])
        matrix = self._matrix(index)
        if vector.shape[0] != matrix.shape[1]:
            raise EmbeddingError(
                f"query vector has {vector.shape[0]} dimensions, items {matrix.shape[1]}"
            )
        # Rounded before ranking: equal similarities tie exactly, then position decides.
        scores = np.array([round(float(s), SCORE_DECIMALS) for s in cosine_scores(matrix, vector)])
        picked = top_k_indices(scores, query.top_k)
        return SearchResult(
            tuple(
                MemoryItem(
                    text=index.items[i].text,
                    score=float(scores[i]),
                    date_iso=index.items[i].date_iso,
                    date_raw=index.items[i].date_raw,
                    dia_ids=index.items[i].dia_ids,
                )
                for i in picked
            ),
            usage,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def signature_options(self) -> dict[str, str]:
        return signature_values(self.OPTIONS, self.options)

    def items_in(self, conversation_id: str) -> int | None:
        index = self._indexes.get(conversation_id)
        return None if index is None else len(index.items)
