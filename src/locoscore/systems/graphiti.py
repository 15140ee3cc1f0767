"""`graphiti`: Zep's open-source temporal knowledge-graph engine (graphiti-core 0.31), in process
on an embedded Kùzu database, driven against the user's OpenAI-compatible providers.

How locoscore drives it (the page docs/how-to/systems/graphiti.md says why):

- One Kùzu graph per conversation under `DIR/system_state/graphiti/conversations/`, no server;
  telemetry off and full-text indexes created (`_graphiti_env`).
- LLM: Graphiti's `OpenAIGenericClient` (chat completions with json_schema structured
  output, which any OpenAI-compatible server can serve); embedder: its `OpenAIEmbedder`.
  Both on OpenAI clients whose HTTP client meters usage (`_usage_meter`).
- One episode per session (`add_episode`, source "message"): the session's turns as
  "Speaker: text [shares an image: caption]" lines, `reference_time` = the session's date.
- Search: Graphiti's hybrid edge search (BM25 + cosine, reciprocal rank fusion) with the run's
  top-k and no similarity cut; each fact is an item dated by the session its first episode
  came from (a sidecar `episodes.json` per conversation maps episodes to sessions).
- Every Graphiti coroutine runs on the system's own event loop (`_loop_thread`).
- Resume: a checkpoint lists the fully ingested conversations (`_ingest_checkpoint`).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from locoscore._io import sha256_text
from locoscore.data.conversation import Query, SessionInput
from locoscore.systems._graphiti_env import (
    close_graph,
    import_graphiti,
    installed_version,
    open_graph,
)
from locoscore.systems._library_providers import (
    MAX_RETRIES,
    TIMEOUT_S,
    check_embedder,
    provider_options,
)
from locoscore.systems._library_system import LibraryMemorySystem, SessionMap, Stored
from locoscore.systems._loop_thread import LoopThread
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemoryItem, SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec

# What locoscore hands Graphiti besides the turns; its hash goes into the signature.
EPISODE_FORMAT = "session episode; 'Speaker: text' lines; reference_time=session date"
EPISODE_FORMAT_ID = sha256_text(EPISODE_FORMAT)[:12]
T = TypeVar("T")


def reference_time(session: SessionInput) -> datetime:
    """The session's date as Graphiti's `reference_time` (UTC; LoCoMo dates carry no zone)."""
    if not session.date_iso:
        return datetime.now(UTC)
    moment = datetime.fromisoformat(session.date_iso)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def episode_body(session: SessionInput) -> str:
    return "\n".join(turn.render() for turn in session.turns)


class _Store:
    """One conversation's graph and the session each of its episodes came from."""

    def __init__(self, graph: Any, folder: Path) -> None:
        self.graph = graph
        self.episodes = SessionMap(folder / "episodes.json")


class GraphitiSystem(LibraryMemorySystem):
    name = "graphiti"
    DISTRIBUTION = "graphiti-core"
    ADDED_INPUT = ("episode", EPISODE_FORMAT_ID)
    NO_DATE = "its reference_time is now"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("Graphiti", "vector size kept of each embedding", "episodes"),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        super().__init__(options, context)
        self._meter = UsageMeter()
        self._loop = LoopThread("locoscore-graphiti")
        self._clients: dict[str, Any] = {}
        self._stores: dict[str, _Store] = {}
        self._store_locks: dict[str, asyncio.Lock] = {}

    def _installed_version(self) -> str:
        return installed_version()

    # -- settings -------------------------------------------------------------------------

    def signature_options(self) -> dict[str, str]:
        return {**self._ingest_settings(), "search": "edges-hybrid-rrf"}

    def _client(self, base_url: str) -> Any:
        """An AsyncOpenAI client metering usage (created on the system's loop)."""
        from openai import AsyncOpenAI

        client = self._clients.get(base_url)
        if client is None:
            client = AsyncOpenAI(
                api_key=self._api_key(),
                base_url=base_url,
                http_client=self._meter.async_http_client(TIMEOUT_S),
                max_retries=MAX_RETRIES,
            )
            self._clients[base_url] = client
        return client

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> tuple[Tally, T]:
        """Run a Graphiti coroutine on the system's loop; what its calls spent."""

        async def counted() -> tuple[Tally, T]:
            with UsageMeter.counting() as tally:
                return tally, await coro

        return await self._loop.run(counted())

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Import Graphiti offline; check the key, that the embedder answers, and that its
        vectors are at least `embedding_dims` long (Graphiti keeps that many values)."""
        import_graphiti()
        self._api_key()
        await asyncio.to_thread(self._check_embedder)

    def _check_embedder(self) -> None:
        with UsageMeter().http_client(TIMEOUT_S) as http:
            client = self._openai_client("embedder_base_url", http)
            check_embedder(self.name, self.options, client, exact=False)

    async def _close(self) -> None:
        await self._loop.run(self._close_all())
        self._loop.close()

    async def _close_all(self) -> None:
        stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            close_graph(store.graph)
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()

    # -- stores (all on the system's loop) ------------------------------------------------

    async def _store(self, conversation_id: str, create: bool) -> _Store | None:
        lock = self._store_locks.setdefault(conversation_id, asyncio.Lock())
        async with lock:
            store = self._stores.get(conversation_id)
            if store is not None:
                return store
            folder = self._folder(conversation_id)
            if not create and not folder.exists():
                return None
            from graphiti_core.llm_client.config import LLMConfig
            from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

            model = self.options["llm_model"]
            llm = OpenAIGenericClient(
                LLMConfig(model=model, small_model=model),
                client=self._client(self._base_url("llm_base_url")),
            )
            graph = await open_graph(
                folder / "graph.kuzu",
                llm,
                self.options["embedding_dims"],
                self.options["embedder_model"],
                self._client(self._base_url("embedder_base_url")),
            )
            store = _Store(graph, folder)
            self._stores[conversation_id] = store
            return store

    async def reset(self, conversation_id: str) -> None:
        """Drop the conversation's whole graph."""
        await self._loop.run(self._reset(conversation_id))
        self._forget(conversation_id)

    async def _reset(self, conversation_id: str) -> None:
        store = self._stores.pop(conversation_id, None)
        if store is not None:
            close_graph(store.graph)
        shutil.rmtree(self._folder(conversation_id), ignore_errors=True)

    # -- add and search -------------------------------------------------------------------

    async def _store_session(self, session: SessionInput) -> Stored:
        tally, edges = await self._on_loop(self._add(session))
        return Stored(tally, edges)

    async def _add(self, session: SessionInput) -> int:
        store = await self._store(session.conversation_id, create=True)
        assert store is not None
        if not session.turns:
            return 0
        from graphiti_core.nodes import EpisodeType

        speakers = " and ".join(session.speakers) or "two people"
        result = await store.graph.add_episode(
            name=f"session {session.index}",
            episode_body=episode_body(session),
            source_description=f"conversation between {speakers}",
            reference_time=reference_time(session),
            source=EpisodeType.message,
        )
        store.episodes.record(result.episode.uuid, session)
        store.episodes.save()
        return len(result.edges)

    async def search(self, query: Query) -> SearchResult:
        tally, items = await self._on_loop(self._search(query))
        return SearchResult(tuple(items), self._usage(tally))

    async def _search(self, query: Query) -> list[MemoryItem]:
        from graphiti_core.search.search_config import (
            EdgeReranker,
            EdgeSearchConfig,
            EdgeSearchMethod,
            SearchConfig,
        )

        store = await self._store(query.conversation_id, create=False)
        if store is None:
            return []
        config = SearchConfig(
            edge_config=EdgeSearchConfig(
                search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
                reranker=EdgeReranker.rrf,
                sim_min_score=0.0,  # Graphiti's default 0.6 would hide facts silently
            ),
            limit=query.top_k,
        )
        results = await store.graph.search_(query.text, config=config)
        return [
            fact_item(edge, score, store.episodes.entries)
            for edge, score in zip(results.edges, results.edge_reranker_scores, strict=False)
        ]


def fact_item(edge: Any, score: float | None, episodes: dict[str, dict[str, Any]]) -> MemoryItem:
    """A Graphiti fact as an item: dated by the session its first episode came from, with
    its validity appended when Graphiti resolved one other than that day."""
    session = next((episodes[u] for u in edge.episodes if u in episodes), {})
    date_iso = session.get("date_iso")
    text = str(edge.fact)
    said_on = (date_iso or "")[:10]
    valid = edge.valid_at.date().isoformat() if edge.valid_at else None
    invalid = edge.invalid_at.date().isoformat() if edge.invalid_at else None
    if (valid and valid != said_on) or invalid:
        text += f" [valid {valid or '?'} to {invalid or 'now'}]"
    return MemoryItem(
        text=text,
        score=None if score is None else round(float(score), 6),
        date_iso=date_iso,
        date_raw=session.get("date_raw"),
    )
