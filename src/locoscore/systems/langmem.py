"""`langmem`: LangChain's LangMem (0.0.x) memory store manager, in process, driven against the
user's OpenAI-compatible providers.

How locoscore drives it (docs/how-to/systems/langmem.md says why):

- One memory store manager and one LangGraph store (in memory, with an embedding index) per
  conversation, namespace ("memories", conversation id), saved to the run folder after every
  session (`_langmem_store`).
- LLM: LangChain's `ChatOpenAI` (LangMem extracts with OpenAI tool calls); embedder: an OpenAI
  client. Both through HTTP clients that meter usage (`_usage_meter`).
- One `invoke` per session: a first message stating the session's date and speakers (LangMem
  has no date field), then each turn as a user message "Speaker: text [shares an image: ...]".
- Search: the store's own semantic search, the run's top-k, no score cut; each memory is
  dated by the session that last wrote it.
- Resume: a checkpoint lists the fully ingested conversations (`_ingest_checkpoint`).
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError
from locoscore.systems._conversation_stores import ConversationStores
from locoscore.systems._langmem_store import ConversationMemories
from locoscore.systems._library_providers import (
    MAX_RETRIES,
    TIMEOUT_S,
    check_embedder,
    provider_options,
)
from locoscore.systems._library_system import LibraryMemorySystem, Stored, library_version
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemoryItem, SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec

SUPPORTED_SERIES = "0.0."
INSTALL_HINT = "pip install 'locoscore[langmem]'"


def session_header(session: SessionInput) -> str:
    """The first message of a session: when it was said and by whom (LangMem has no date
    field, so the date travels in the conversation it reads)."""
    speakers = " and ".join(session.speakers) or "two people"
    when = session.date_raw or session.date_iso or "an unknown date"
    return (
        f"(A conversation between {speakers}, on {when}. Each message starts with its "
        "speaker's name; every relative time in it is relative to that date.)"
    )


HEADER_ID = hashlib.sha256(
    session_header(SessionInput("c", 1, "d", "2000-01-01T00:00", (), ("A", "B"))).encode()
).hexdigest()[:12]


def session_messages(session: SessionInput) -> list[dict[str, str]]:
    turns = [{"role": "user", "content": turn.render()} for turn in session.turns]
    return [{"role": "user", "content": session_header(session)}, *turns]


def installed_version() -> str:
    return library_version("langmem", "langmem", SUPPORTED_SERIES, INSTALL_HINT)


class _Conversation:
    """A conversation's memories and manager, on clients of its own meter: LangMem searches
    from pool threads that lose the context, and the conversation's meter attributes them to
    the session being added (one at a time per conversation)."""

    def __init__(self, memories: ConversationMemories, manager: Any, meter: UsageMeter) -> None:
        self.memories = memories
        self.manager = manager
        self.meter = meter


class LangMemSystem(LibraryMemorySystem):
    name = "langmem"
    DISTRIBUTION = "langmem"
    ADDED_INPUT = ("messages", HEADER_ID)
    NO_DATE = "its messages say so"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("LangMem", "vector size of the embedder (the store's index)"),
        # LangMem sets no cap: a small local model may write a tool call until its context
        # fills, each call then ending in the client's timeout (tried on llama.cpp)
        "llm_max_tokens": OptionSpec(
            int, None, "most tokens one extraction call may write (default: the server's)"
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        super().__init__(options, context)
        self._conversations = ConversationStores[_Conversation](self._folder)

    def _installed_version(self) -> str:
        return installed_version()

    # -- settings and clients -------------------------------------------------------------

    def _openai(self, meter: UsageMeter) -> Any:
        return self._openai_client("embedder_base_url", self._http_client(meter))

    def _embed_function(self, meter: UsageMeter) -> Any:
        client = self._openai(meter)
        model = self.options["embedder_model"]

        def embed(texts: Sequence[str]) -> list[list[float]]:
            reply = client.embeddings.create(model=model, input=list(texts))
            return [list(item.embedding) for item in reply.data]

        return embed

    def _chat_model(self, meter: UsageMeter) -> Any:
        from langchain_openai import ChatOpenAI
        from pydantic import SecretStr

        return ChatOpenAI(
            model=self.options["llm_model"],
            base_url=self._base_url("llm_base_url"),
            api_key=SecretStr(self._api_key()),
            http_client=self._http_client(meter),
            max_retries=MAX_RETRIES,
            timeout=TIMEOUT_S,
            max_completion_tokens=self.options["llm_max_tokens"],
        )

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Import LangMem; check the key, that the embedder answers with `embedding_dims`."""
        try:
            import langmem  # noqa: F401
        except ImportError as exc:
            raise InputError(
                f"--system langmem needs the langmem extra ({INSTALL_HINT}): {exc}"
            ) from None
        await asyncio.to_thread(self._check_embedder)

    def _check_embedder(self) -> None:
        check_embedder(self.name, self.options, self._openai(UsageMeter()), exact=True)

    async def _close(self) -> None:
        self._conversations.drain()
        self._close_http_clients()

    # -- stores ---------------------------------------------------------------------------

    def _conversation(self, conversation_id: str, create: bool) -> _Conversation | None:
        def opened(folder: Path) -> _Conversation:
            from langmem import create_memory_store_manager

            folder.mkdir(parents=True, exist_ok=True)
            namespace = ("memories", conversation_id)
            meter = UsageMeter()
            memories = ConversationMemories(
                folder, namespace, self._embed_function(meter), self.options["embedding_dims"]
            )
            manager = create_memory_store_manager(
                self._chat_model(meter), namespace=namespace, store=memories.store
            )
            return _Conversation(memories, manager, meter)

        return self._conversations.open(conversation_id, create, opened)

    async def reset(self, conversation_id: str) -> None:
        self._conversations.pop(conversation_id)
        await asyncio.to_thread(shutil.rmtree, self._folder(conversation_id), True)
        self._forget(conversation_id)

    # -- add and search -------------------------------------------------------------------

    async def _store_session(self, session: SessionInput) -> Stored:
        tally, (written, held) = await asyncio.to_thread(self._add, session)
        return Stored(tally, written, held)

    def _add(self, session: SessionInput) -> tuple[Tally, tuple[int, int]]:
        conversation = self._conversation(session.conversation_id, create=True)
        assert conversation is not None
        with UsageMeter.counting() as tally:
            conversation.meter.fallback = tally
            try:
                puts = []
                if session.turns:
                    puts = conversation.manager.invoke({"messages": session_messages(session)})
            finally:
                conversation.meter.fallback = None
            keys = [str(put["key"]) for put in puts]
            held = conversation.memories.record(session, keys)
        return tally, (len(keys), held)

    async def search(self, query: Query) -> SearchResult:
        tally, items = await asyncio.to_thread(self._search, query)
        return SearchResult(tuple(items), self._usage(tally))

    def _search(self, query: Query) -> tuple[Tally, list[MemoryItem]]:
        with UsageMeter.counting() as tally:
            conversation = self._conversation(query.conversation_id, create=False)
            if conversation is None:
                return tally, []
            memories = conversation.memories
            found = memories.store.search(memories.namespace, query=query.text, limit=query.top_k)
        return tally, [memory_item(item, memories.sessions.get(item.key, {})) for item in found]


def memory_item(item: Any, session: dict[str, Any]) -> MemoryItem:
    """A stored LangMem memory (`{"kind": "Memory", "content": {"content": text}}`), dated by
    the session that last wrote it."""
    content = item.value.get("content")
    text = content.get("content") if isinstance(content, dict) else content
    return MemoryItem(
        text=str(text if text is not None else item.value),
        score=None if item.score is None else round(float(item.score), 6),
        date_iso=session.get("date_iso"),
        date_raw=session.get("date_raw"),
    )
