"""Mem0 1.0 with graph memory on Kùzu, as a memory system: what `locoscore serve` runs inside
the Mem0g environment (`environments`, built by `locoscore systems install mem0g`).

Imported ONLY there (it needs mem0ai 1.0.x, kuzu and rank-bm25); the main process reaches it
over the HTTP contract through `systems.mem0g`. It follows `systems.mem0` (telemetry off,
rerouting variables unset, mem0's folder in the run, the library's OpenAI clients swapped
for ones that read usage off every response), with what 1.0 changes:

- One store per conversation, always in a folder (a resumed run searches it): a local
  Qdrant, mem0's SQLite history, a Kùzu database, and the relation dates
  (`_mem0g_session.RelationDates`).
- The graph has its own LLM and embedder clients: those are swapped too.
- Mem0 1.0 runs its vector and graph work on a thread pool of its own, whose threads do not
  copy the caller's context: each conversation has its own usage meter, whose `fallback`
  tally is the call in progress; a conversation's calls (adds and searches) therefore run one
  at a time (Kùzu's connection is shared too), conversations in parallel.
- `search(query, user_id=..., limit=top_k)`: no threshold; the memories and the relations
  (each dated by its session) interleaved and cut to top-k.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError
from locoscore.systems._conversation_stores import ConversationStores
from locoscore.systems._ingest_slots import IngestSlots
from locoscore.systems._library_providers import (
    TIMEOUT_S,
    api_key,
    base_url,
    check_embedder,
    openai_client,
    provider_options,
)
from locoscore.systems._library_system import conversation_folder
from locoscore.systems._mem0_env import close_memory, import_mem0
from locoscore.systems._mem0_session import memory_item, session_metadata, turn_message
from locoscore.systems._mem0g_session import (
    DATE_MESSAGE_ID,
    RelationDates,
    date_message,
    interleave,
)
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec, resolve_options, signature_values

SUPPORTED_SERIES = "1.0."
GRAPH_STORE = "kuzu"


def mem0_version() -> str:
    try:
        version = importlib.metadata.version("mem0ai")
    except importlib.metadata.PackageNotFoundError:
        raise InputError(
            "Mem0g runs in its own environment (locoscore systems install mem0g)"
        ) from None
    if not version.startswith(SUPPORTED_SERIES):
        raise InputError(f"Mem0g drives mem0ai {SUPPORTED_SERIES}x; this environment has {version}")
    return version


@dataclass
class _Store:
    memory: Any
    meter: UsageMeter
    dates: RelationDates
    lock: threading.Lock


class Mem0GraphLibrary(MemorySystem):
    name = "mem0g-library"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("mem0", "vector size of the embedder"),
        "parent_pid": OptionSpec(
            int, None, "stop serving when this process is gone (the run)", in_signature=False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._root = context.state_dir
        self._version = mem0_version()
        self._mem0: Any = None
        self._stores = ConversationStores[_Store](self._folder)
        self._items: dict[str, int] = {}
        self._lock = threading.Lock()
        self._slots = IngestSlots(self.options["ingest_concurrency"])

    def signature_options(self) -> dict[str, str]:
        return {
            **signature_values(self.OPTIONS, self.options),
            "mem0ai": self._version,
            "graph": GRAPH_STORE,
            "instructions": DATE_MESSAGE_ID,
        }

    async def start(self) -> None:
        """Import mem0 offline; check the key, that the embedder answers, and its size."""
        with self._lock:
            if self._mem0 is None:
                self._mem0 = import_mem0(self._root)
        client = self._client(UsageMeter(), "embedder_base_url")
        await asyncio.to_thread(check_embedder, "mem0", self.options, client, True)
        if self.options["parent_pid"] is not None:
            _watch_parent(self.options["parent_pid"])

    async def aclose(self) -> None:
        for store in self._stores.drain():
            _close(store)

    # -- stores ---------------------------------------------------------------------------

    def _folder(self, conversation_id: str) -> Path:
        return conversation_folder(self._root, conversation_id)

    def _client(self, meter: UsageMeter, url_key: str) -> Any:
        return openai_client("mem0", self.options, url_key, meter.http_client(TIMEOUT_S))

    def _config(self, folder: Path) -> dict[str, Any]:
        key = api_key("mem0", self.options)
        dims = self.options["embedding_dims"]
        return {
            "llm": {
                "provider": "openai",
                "config": {
                    "model": self.options["llm_model"],
                    "openai_base_url": base_url(self.options, "llm_base_url"),
                    "api_key": key,
                },
            },
            "embedder": {
                "provider": "openai",
                "config": {
                    "model": self.options["embedder_model"],
                    "openai_base_url": base_url(self.options, "embedder_base_url"),
                    "api_key": key,
                    "embedding_dims": dims,
                },
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "locoscore",
                    "embedding_model_dims": dims,
                    "path": str(folder / "qdrant"),
                },
            },
            "graph_store": {"provider": GRAPH_STORE, "config": {"db": str(folder / "graph.kuzu")}},
            "history_db_path": str(folder / "history.db"),
        }

    def _store(self, conversation_id: str, create: bool) -> _Store | None:
        return self._stores.open(conversation_id, create, self._open_store)

    def _open_store(self, folder: Path) -> _Store:
        folder.mkdir(parents=True, exist_ok=True)
        memory = self._mem0.Memory.from_config(self._config(folder))
        meter = UsageMeter()
        # Mem0 built plain OpenAI clients (vector side and graph side): swap in ones that
        # report usage to this conversation's meter (same URLs and key).
        memory.llm.client = self._client(meter, "llm_base_url")
        memory.embedding_model.client = self._client(meter, "embedder_base_url")
        memory.graph.llm.client = self._client(meter, "llm_base_url")
        memory.graph.embedding_model.client = self._client(meter, "embedder_base_url")
        return _Store(
            memory, meter, RelationDates(folder / "relation_dates.json"), threading.Lock()
        )

    def _counted(self, store: _Store) -> Tally:
        tally = Tally()
        store.meter.fallback = tally
        return tally

    def _usage(self, tally: Tally) -> Usage:
        """The counts, unpriced: the main process prices them with the run's table."""
        return Usage(
            input_tokens=tally.input_tokens,
            output_tokens=tally.output_tokens,
            calls=tally.llm_calls + tally.embedding_calls,
            embedding_tokens=tally.embedding_tokens,
        )

    async def reset(self, conversation_id: str) -> None:
        await asyncio.to_thread(self._reset, conversation_id)

    def _reset(self, conversation_id: str) -> None:
        import shutil

        store = self._stores.pop(conversation_id)
        with self._lock:
            self._items.pop(conversation_id, None)
        if store is not None:
            _close(store)
        shutil.rmtree(self._folder(conversation_id), ignore_errors=True)

    # -- add and search -------------------------------------------------------------------

    async def add(self, session: SessionInput) -> Usage:
        async with self._slots.semaphore():
            tally = await asyncio.to_thread(self._add, session)
        return self._usage(tally)

    def _add(self, session: SessionInput) -> Tally:
        store = self._store(session.conversation_id, create=True)
        assert store is not None
        if not session.turns:
            return Tally()
        dated = date_message(session)
        messages = ([dated] if dated else []) + [turn_message(t) for t in session.turns]
        with store.lock:
            tally = self._counted(store)
            try:
                result = store.memory.add(
                    messages, user_id=session.conversation_id, metadata=session_metadata(session)
                )
            finally:
                store.meter.fallback = None
            relations = result.get("relations") or {}
            store.dates.record(relations.get("added_entities") or [], session)
            store.dates.save()
        with self._lock:
            stored = len(result.get("results") or [])
            self._items[session.conversation_id] = (
                self._items.get(session.conversation_id, 0) + stored
            )
        return tally

    async def search(self, query: Query) -> SearchResult:
        tally, items = await asyncio.to_thread(self._search, query)
        return SearchResult(items, self._usage(tally))

    def _search(self, query: Query) -> tuple[Tally, tuple[Any, ...]]:
        store = self._store(query.conversation_id, create=False)
        if store is None:
            return Tally(), ()
        with store.lock:
            tally = self._counted(store)
            try:
                result = store.memory.search(
                    query.text, user_id=query.conversation_id, limit=query.top_k
                )
            finally:
                store.meter.fallback = None
            memories = [memory_item(row) for row in result.get("results") or []]
            relations = [store.dates.item(row) for row in result.get("relations") or []]
        return tally, interleave(memories, relations, query.top_k)

    def items_in(self, conversation_id: str) -> int | None:
        """Memories stored since the reset, and the relations dated (None after a restart)."""
        with self._lock:
            memories = self._items.get(conversation_id)
        store = self._stores.get(conversation_id)
        if memories is None or store is None:
            return None
        return memories + len(store.dates)


def _close(store: _Store) -> None:
    """Release the SQLite history, the Qdrant client (it locks its folder) and Kùzu, once the
    add in flight is done: Kùzu's database closed under a running query hangs both (a run
    killed mid-session stops its server with one add still running)."""
    with store.lock:
        close_memory(store.memory)
        store.memory.graph.graph.close()
        store.memory.graph.db.close()


def _watch_parent(pid: int) -> None:
    """A run killed with SIGKILL cannot stop its server: the server stops itself (SIGTERM,
    which `locoscore serve` handles by closing the stores) once that run is gone."""

    def watch() -> None:
        while os.getppid() == pid:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="mem0g-parent-watch", daemon=True).start()
