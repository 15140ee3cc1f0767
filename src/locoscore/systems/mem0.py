"""`mem0`: Mem0's open-source library (mem0ai 2.2), driven offline against the user's providers.

How locoscore drives it (the reasons are in the README's mem0 section):

- Import: telemetry off, mem0's folder inside the run, rerouting variables unset
  (`_mem0_env`).
- LLM and embedder: mem0's "openai" providers pointed at any OpenAI-compatible base URL;
  the key comes from an environment variable and is never logged or written.
- One mem0 store per conversation (a local Qdrant, in memory or in a folder of the run, and
  mem0's SQLite history): conversations are isolated by construction as well as by
  `user_id`, run concurrently without sharing a Qdrant client between threads, and a
  conversation's retrieval never depends on which other conversations are in the run.
- One `add` per session: every turn a message "Speaker: text [shares an image: caption]",
  `metadata.created_at` = the session's ISO date (returned by search), and instructions
  that make the session date the extraction's observation date. `infer=false` stores each
  turn verbatim instead (no LLM; then items also carry their dia_id).
- `search(query, filters={"user_id": conversation}, top_k=k, threshold=0.0)`.
- Usage: tokens read off the provider's responses (`_usage_meter`), priced per model.
- Resume: with `store=folder`, a checkpoint lists the fully ingested conversations
  (`_ingest_checkpoint`); `already_ingested` lets the run skip them. `store=memory` keeps
  nothing: every run ingests again.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import warnings
from pathlib import Path
from typing import Any, ClassVar

import httpx2

from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError
from locoscore.systems._library_providers import TIMEOUT_S, provider_options
from locoscore.systems._library_system import LibraryMemorySystem, Stored
from locoscore.systems._mem0_env import (
    close_memory,
    import_mem0,
    installed_version,
    memory_config,
    optional_features,
)
from locoscore.systems._mem0_session import (
    INSTRUCTIONS_TEMPLATE_ID,
    extraction_instructions,
    memory_item,
    session_metadata,
    turn_message,
)
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemoryItem, SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec

ALL_MEMORIES = 1_000_000  # get_all's top_k when listing a whole conversation


class Mem0System(LibraryMemorySystem):
    name = "mem0"
    DISTRIBUTION = "mem0ai"
    ADDED_INPUT = ("instructions", INSTRUCTIONS_TEMPLATE_ID)
    NO_DATE = "mem0 stamps its memories with today's date"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("mem0", "vector size of the embedder"),
        "infer": OptionSpec(bool, True, "extract memories with the LLM (false: store turns)"),
        "store": OptionSpec(
            str,
            "memory",
            "Qdrant in memory, or in a folder of the run (resumable)",
            ("memory", "folder"),
            in_signature=False,
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        super().__init__(options, context)
        # mem0 is imported (and the environment prepared) at start or first use, so that a
        # run refused on bad input has written nothing.
        self._mem0: Any = None
        self._meter = UsageMeter()
        self._http: httpx2.Client | None = None
        self._stores: dict[str, Any] = {}
        self._http_lock = threading.Lock()

    def _installed_version(self) -> str:
        return installed_version()

    def _resumable(self) -> bool:
        return bool(self.options["store"] == "folder")

    # -- settings -------------------------------------------------------------------------

    def signature_options(self) -> dict[str, str]:
        return {**self._ingest_settings(), **optional_features()}

    def _client(self, url_key: str) -> Any:
        with self._http_lock:
            if self._http is None:
                self._http = self._meter.http_client(TIMEOUT_S)
            http = self._http
        return self._openai_client(url_key, http)

    # -- lifecycle ------------------------------------------------------------------------

    def _module(self) -> Any:
        with self._lock:
            if self._mem0 is None:
                self._mem0 = import_mem0(self._root)
            return self._mem0

    async def start(self) -> None:
        """Import mem0 offline; check the key, that the embedder answers, and that its
        vectors have the right size."""
        self._module()
        self._api_key()
        await asyncio.to_thread(self._check_embedder)

    def _check_embedder(self) -> None:
        import openai

        url = self._base_url("embedder_base_url")
        where = f"--system mem0: embedder {self.options['embedder_model']} at {url}"
        client = self._client("embedder_base_url").with_options(max_retries=1)
        try:
            with UsageMeter.counting():
                reply = client.embeddings.create(
                    model=self.options["embedder_model"],
                    input=["locoscore start check"],
                    dimensions=self.options["embedding_dims"],
                    encoding_format="float",
                )
        except openai.AuthenticationError:
            raise InputError(
                f"{where}: the key in {self.options['api_key_env']} was rejected"
            ) from None
        except openai.APIStatusError as exc:
            raise InputError(f"{where}: HTTP {exc.status_code}") from None
        except openai.APIConnectionError:
            raise InputError(f"{where}: unreachable") from None
        size = len(reply.data[0].embedding)
        if size != self.options["embedding_dims"]:
            raise InputError(f"{where}: returns {size}-dim vectors; set embedding_dims={size}")

    async def _close(self) -> None:
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        with self._http_lock:
            http, self._http = self._http, None
        for store in stores:
            close_memory(store)
        if http is not None:
            http.close()

    # -- stores ---------------------------------------------------------------------------

    def _store(self, conversation_id: str, create: bool) -> Any | None:
        """This conversation's mem0 `Memory` (opened from its folder after a resume)."""
        mem0 = self._module()
        with self._lock:
            store = self._stores.get(conversation_id)
            if store is not None:
                return store
            folder = self._folder(conversation_id)
            persistent = self.options["store"] == "folder"
            if not create and not (persistent and folder.exists()):
                return None
            folder.mkdir(parents=True, exist_ok=True)
            store = self._open(mem0, folder, persistent)
            self._stores[conversation_id] = store
            return store

    def _open(self, mem0: Any, folder: Path, persistent: bool) -> Any:
        llm_url = self._base_url("llm_base_url")
        embedder_url = self._base_url("embedder_base_url")
        config = memory_config(
            llm=(self.options["llm_model"], llm_url),
            embedder=(self.options["embedder_model"], embedder_url),
            embedding_dims=self.options["embedding_dims"],
            api_key=self._api_key(),
            qdrant_path=str(folder / "qdrant") if persistent else ":memory:",
            history_db=folder / "history.db",
        )
        memory = mem0.Memory.from_config(config)
        # Mem0 built plain OpenAI clients; swap in ones that report usage (same URL and key).
        for part in (memory.llm, memory.embedding_model):
            if not hasattr(part, "client"):
                raise RuntimeError(f"mem0 {self._version}: {type(part)} has no client")
        memory.llm.client = self._client("llm_base_url")
        memory.embedding_model.client = self._client("embedder_base_url")
        return memory

    async def reset(self, conversation_id: str) -> None:
        """Drop the conversation's whole store (memories and mem0's message history)."""
        await asyncio.to_thread(self._reset, conversation_id)

    def _reset(self, conversation_id: str) -> None:
        with self._lock:
            store = self._stores.pop(conversation_id, None)
        if store is not None:
            close_memory(store)
        shutil.rmtree(self._folder(conversation_id), ignore_errors=True)
        self._forget(conversation_id)

    # -- add and search -------------------------------------------------------------------

    async def _store_session(self, session: SessionInput) -> Stored:
        tally, written = await asyncio.to_thread(self._add, session)
        return Stored(tally, written)

    def _warn_truncated(self, session: SessionInput) -> None:
        warnings.warn(
            f"mem0: {session.conversation_id} session {session.index}: the extraction "
            "reply was cut at the token limit; mem0 stored nothing from it",
            stacklevel=3,
        )

    def _add(self, session: SessionInput) -> tuple[Tally, int]:
        store = self._store(session.conversation_id, create=True)
        if not session.turns:
            return Tally(), 0  # nothing to say (mem0 would embed an empty string)
        assert store is not None
        metadata = session_metadata(session)
        stored = 0
        with UsageMeter.counting() as tally:
            if self.options["infer"]:
                result = store.add(
                    [turn_message(turn) for turn in session.turns],
                    user_id=session.conversation_id,
                    metadata=metadata,
                    prompt=extraction_instructions(session),
                    infer=True,
                )
                stored = len(result.get("results", []))
            else:
                # One add per turn, so each stored turn keeps its own dia_id.
                for turn in session.turns:
                    result = store.add(
                        [turn_message(turn)],
                        user_id=session.conversation_id,
                        metadata={**metadata, "dia_id": turn.dia_id},
                        infer=False,
                    )
                    stored += len(result.get("results", []))
        return tally, stored

    async def search(self, query: Query) -> SearchResult:
        """Mem0's ranking with no score threshold. Mem0 still drops memories whose semantic
        score is negative (0 is the lowest threshold it accepts), so fewer than top_k items
        can come back."""
        tally, rows = await asyncio.to_thread(self._search, query)
        return SearchResult(tuple(memory_item(row) for row in rows), self._usage(tally))

    def _search(self, query: Query) -> tuple[Tally, list[dict[str, Any]]]:
        with UsageMeter.counting() as tally:
            store = self._store(query.conversation_id, create=False)
            if store is None:
                return tally, []
            result = store.search(
                query.text,
                filters={"user_id": query.conversation_id},
                top_k=query.top_k,
                threshold=0.0,
            )
        return tally, list(result.get("results", []))

    async def stored_items(self, conversation_id: str) -> tuple[MemoryItem, ...]:
        """Every memory mem0 holds for the conversation (no model call), in mem0's order."""
        store = await asyncio.to_thread(self._store, conversation_id, False)
        if store is None:
            return ()
        result = await asyncio.to_thread(
            store.get_all, filters={"user_id": conversation_id}, top_k=ALL_MEMORIES
        )
        return tuple(memory_item(row) for row in result.get("results", []))
