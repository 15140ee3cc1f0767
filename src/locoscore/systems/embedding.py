"""`embedding`: dense retrieval over one conversation's turns, sessions or token chunks,
cosine top-k.

Two backends make the vectors: `api` (default), any OpenAI-compatible `POST /v1/embeddings`
endpoint (`embedding_api`), and `local`, a sentence-transformers model run in-process on the
CPU or a GPU (`embedding_local`, the `local` extra). Either way vectors are cached on disk
by (backend, model, dimensions, text hash) so a rerun embeds nothing twice (`vector_cache`).

Items are embedded at `add` (the API: one batched request per session, `batch_size` texts a
request; the local model: the session's texts join whatever else waits, `embedding_batcher`), not
lazily at the first search: ingestion time then carries the whole embedding cost and search
latency only the query's embedding and the cosine, which is what the run measures and what
Mem0's published figures split; and a failure mid-ingestion is recorded against its
conversation, not against whichever question came first. With `chunk_tokens=N` the
conversation is cut into N-token chunks across sessions (`chunks`, the Mem0 paper's RAG
baselines): full chunks are embedded as sessions arrive, the last one at `finish`.

Ranking: cosine in float64, scores rounded to 6 decimals *before* ranking, ties broken by
position, so float32 storage noise never reorders items whose similarity is equal.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from locoscore._io import sha256_text
from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.chunks import ChunkStream
from locoscore.systems.context import SystemContext
from locoscore.systems.embedding_api import ApiEmbedder, EmbeddingError, NotAnEmbeddingsResponse
from locoscore.systems.embedding_local import DEVICES, LocalEmbedder
from locoscore.systems.items import GRANULARITIES, session_items, top_k_indices
from locoscore.systems.options import OptionSpec, resolve_options, signature_values
from locoscore.systems.vector_cache import VectorCache

__all__ = ["EmbeddingError", "EmbeddingSystem", "NotAnEmbeddingsResponse", "cosine_scores"]

DEFAULT_MODEL = "text-embedding-3-small"
CACHE_FILE = "embeddings.sqlite"
BACKENDS = ("api", "local")
SCORE_DECIMALS = 6
# Options that only mean something to one backend.
_API_ONLY = ("base_url", "dimensions", "api_key_env")
_LOCAL_ONLY = ("device",)


def cosine_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of each row with the query, in float64; a zero vector scores 0."""
    rows = matrix.astype(np.float64)
    q = query.astype(np.float64)
    row_norms = np.linalg.norm(rows, axis=1)
    q_norm = float(np.linalg.norm(q))
    scores = rows @ q
    denominator = row_norms * (q_norm if q_norm > 0 else 1.0)
    return np.divide(scores, denominator, out=np.zeros_like(scores), where=denominator > 0)


@dataclass
class _Index:
    items: list[MemoryItem] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    matrix: np.ndarray | None = None  # stacked lazily at the next search
    chunks: ChunkStream | None = None  # chunked granularity: the conversation's stream
    final_at: int = 0  # stream length when its shorter final chunk was indexed (0: not)
    # local backend: the vectors of items added but not encoded yet, in the items' order
    pending: list[asyncio.Task[tuple[list[np.ndarray], Usage]]] = field(default_factory=list)
    settling: asyncio.Lock = field(default_factory=asyncio.Lock)  # searches that collect them

    def cancel(self) -> None:
        for task in self.pending:
            task.cancel()
        self.pending.clear()


class EmbeddingSystem(MemorySystem):
    name = "embedding"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "backend": OptionSpec(str, "api", "where vectors come from", BACKENDS, False),
        "model": OptionSpec(
            str, DEFAULT_MODEL, "the server's model (api); a name or folder (local)"
        ),
        "base_url": OptionSpec(
            str,
            None,
            "OpenAI-compatible base URL (default $OPENAI_BASE_URL or OpenAI's)",
            (),
            False,
        ),
        "dimensions": OptionSpec(int, None, "vector size to ask for (sent only when given)"),
        "device": OptionSpec(
            str, "cpu", f"where the local model runs: {', '.join(DEVICES)}", (), False
        ),
        "granularity": OptionSpec(str, "turn", "retrieve turns or whole sessions", GRANULARITIES),
        "chunk_tokens": OptionSpec(
            int, None, "retrieve N-token chunks of the conversation (cl100k) instead"
        ),
        "batch_size": OptionSpec(
            int, 128, "texts per embeddings request (api), per encoded batch (local)", (), False
        ),
        "api_key_env": OptionSpec(
            str, "OPENAI_API_KEY", "variable holding the key (local servers need none)", (), False
        ),
        "cache": OptionSpec(
            str, None, "vector cache file (default <state>/embeddings.sqlite)", (), False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        backend = self.options["backend"]
        _check_combination(options, backend)
        if self.options["chunk_tokens"] is not None:
            self.options["granularity"] = "chunk"
        cache = self.options["cache"]
        self.cache_path = Path(cache) if cache else context.state_dir / CACHE_FILE
        self.model: str = self.options["model"]
        self.encoder: ApiEmbedder | LocalEmbedder
        if backend == "local":
            self.encoder = LocalEmbedder(
                self.model, self.options["device"], self.options["batch_size"], self.notice
            )
        else:
            self.encoder = ApiEmbedder(
                self.model,
                self.options["dimensions"],
                self.options["base_url"],
                self.options["api_key_env"],
                self.options["batch_size"],
                context.prices,
            )
        self._cache: VectorCache | None = None
        self._indexes: dict[str, _Index] = {}

    @property
    def policy(self) -> Any:
        """The API backend's retry policy (tests scale its backoff down)."""
        return getattr(self.encoder, "policy", None)

    def dry_run_blocker(self) -> str | None:
        # The local backend needs no key: only the API's OpenAI endpoint can block.
        return self.encoder.dry_run_blocker() if isinstance(self.encoder, ApiEmbedder) else None

    async def start(self) -> None:
        """The server answers and knows the model (api); the local model starts loading
        in the background (its first encode waits for it). The cache is opened only
        after, so a failed start writes nothing."""
        await self.encoder.start()
        if isinstance(self.encoder, ApiEmbedder):
            self._open_cache()  # the local model's: at its first encode, once it loaded

    def _open_cache(self) -> VectorCache:
        if self._cache is None:
            self._cache = VectorCache(self.cache_path)
        return self._cache

    # -- embedding ------------------------------------------------------------------------

    async def embed(self, texts: list[str]) -> tuple[list[np.ndarray], Usage]:
        """Vectors of `texts` (cached ones from disk, the rest from the backend) and what
        making them cost. Batches that succeed are cached even when another fails."""
        if isinstance(self.encoder, LocalEmbedder):
            # the vector space is the loaded model's fingerprint: the first calls wait
            space = (await self.encoder.loaded()).space
        else:
            space = self.encoder.space
        cache = self._open_cache()
        digests = [sha256_text(t) for t in texts]
        known = cache.get_many(space, digests)
        missing: dict[str, str] = {}  # digest -> text, first occurrence order, no repeats
        for digest, text in zip(digests, texts, strict=True):
            if digest not in known:
                missing.setdefault(digest, text)
        if isinstance(self.encoder, LocalEmbedder) and len(missing) < len(texts):
            cached = [t for d, t in zip(digests, texts, strict=True) if d in known]
            self.encoder.check_cached(cached)

        def store(batch: list[str], vectors: list[np.ndarray]) -> None:
            pairs = [(sha256_text(t), v) for t, v in zip(batch, vectors, strict=True)]
            cache.put_many(space, pairs)
            known.update(pairs)

        usage = await self.encoder.encode(list(missing.values()), store)
        return [known[d] for d in digests], usage

    # -- the memory-system interface ------------------------------------------------------

    async def reset(self, conversation_id: str) -> None:
        if (old := self._indexes.get(conversation_id)) is not None:
            old.cancel()
        self._indexes[conversation_id] = self._new_index()

    def _new_index(self) -> _Index:
        size = self.options["chunk_tokens"]
        return _Index(chunks=None if size is None else ChunkStream(size))

    async def _extend(self, index: _Index, items: list[MemoryItem]) -> Usage:
        texts = [item.text for item in items]
        index.items.extend(items)
        index.matrix = None
        if isinstance(self.encoder, LocalEmbedder):
            # Not awaited here: the session's texts wait in the batcher with the next
            # sessions' and other conversations', and `finish` (or a search) collects them.
            index.pending.append(asyncio.ensure_future(self.embed(texts)))
            return Usage()
        vectors, usage = await self.embed(texts)
        index.vectors.extend(vectors)
        return usage

    async def _settle(self, index: _Index) -> Usage:
        """The vectors of every item added, in order, and what they cost. On a failure
        (raised once all have answered; what succeeded is cached) the index keeps only the
        items before it, as if the failed add had not happened: a later search ranks only
        embedded items, and a chunk stream indexes the dropped chunks again."""
        async with index.settling:  # concurrent searches before `finish`: one collects
            if not index.pending:
                return Usage()
            pending, index.pending = index.pending, []
            outcomes = await asyncio.gather(*pending, return_exceptions=True)
            usage = Usage()
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    del index.items[len(index.vectors) :]
                    index.matrix = None
                    raise outcome
                vectors, spent = outcome
                index.vectors.extend(vectors)
                usage = usage + spent
            return usage

    async def _sync_chunks(self, index: _Index, *, last: bool) -> Usage:
        """Index the stream's chunks not indexed yet: the full ones, and with `last` the
        shorter final one too (dropped again, re-cut longer, if another session comes)."""
        stream = index.chunks
        assert stream is not None
        usage = Usage()
        if index.final_at and index.final_at != stream.tokens:  # the stream grew since
            usage = await self._settle(index)
            del index.items[-1], index.vectors[-1]  # the only chunk that was not full
            index.matrix, index.final_at = None, 0
        wanted = stream.total if last else stream.complete
        new = [stream.chunk(i) for i in range(len(index.items), wanted)]
        if last and wanted > stream.complete:
            index.final_at = stream.tokens
        return usage + await self._extend(index, new) if new else usage

    async def add(self, session: SessionInput) -> Usage:
        index = self._indexes.setdefault(session.conversation_id, self._new_index())
        if index.chunks is not None:
            index.chunks.add(session)
            return await self._sync_chunks(index, last=False)
        return await self._extend(index, session_items(session, self.options["granularity"]))

    async def finish(self, conversation_id: str) -> Usage:
        index = self._indexes.get(conversation_id)
        if index is None:
            return Usage()
        usage = await self._sync_chunks(index, last=True) if index.chunks else Usage()
        return usage + await self._settle(index)

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
        if index is None:
            return SearchResult(())
        # Searchable without `finish` too (the interface asks it): the final chunk, then.
        usage = await self._sync_chunks(index, last=True) if index.chunks else Usage()
        usage = usage + await self._settle(index)
        if not index.items:
            return SearchResult((), usage)
        (vector,), spent = await self.embed([query.text])
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
            usage + spent,
        )

    async def aclose(self) -> None:
        for index in self._indexes.values():
            index.cancel()
        await self.encoder.aclose()
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def runtime(self) -> dict[str, Any] | None:
        """The local model's device, precision and batches (an API's are not known here)."""
        return self.encoder.runtime() if isinstance(self.encoder, LocalEmbedder) else None

    def signature_options(self) -> dict[str, str]:
        values = signature_values(self.OPTIONS, self.options)
        if isinstance(self.encoder, LocalEmbedder):  # api runs keep the signature they had
            values["backend"] = "local"
            values["model"] = self.encoder.label
        return dict(sorted(values.items()))

    def items_in(self, conversation_id: str) -> int | None:
        index = self._indexes.get(conversation_id)
        if index is None:
            return None
        return index.chunks.total if index.chunks is not None else len(index.items)


def _check_combination(raw: dict[str, str], backend: str) -> None:
    """Options that would be silently ignored are refused instead."""
    for key in _API_ONLY if backend == "local" else _LOCAL_ONLY:
        if key in raw:
            raise InputError(
                f"--system-option {key}: applies to backend="
                f"{'api' if backend == 'local' else 'local'} only (this is backend={backend})"
            )
    if backend == "local" and "model" not in raw:
        raise InputError(
            "--system-option backend=local needs model=NAME_OR_PATH "
            "(a sentence-transformers name or folder)"
        )
    if "chunk_tokens" in raw and "granularity" in raw:
        raise InputError("--system-option chunk_tokens: replaces granularity (give one of the two)")
