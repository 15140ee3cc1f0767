"""`a-mem`: A-Mem's agentic memory (the `a-mem` 0.2 package), in process, driven against the
user's OpenAI-compatible providers.

How locoscore drives it (docs/how-to/systems/a-mem.md says why):

- One A-Mem memory system per conversation, its ChromaDB store in
  `DIR/system_state/a-mem/conversations/<id>/`; LiteLLM's price map kept local and ChromaDB's
  embedder an OpenAI-compatible one, never a hub model (`_amem_env`).
- LLM: A-Mem's OpenAI backend (chat completions with json_schema structured output);
  embedder: ChromaDB's `OpenAIEmbeddingFunction`. Both on OpenAI clients whose HTTP client
  meters usage (`_usage_meter`).
- One note per turn, as A-Mem is evaluated on LoCoMo: `add_note("Speaker: text [shares an
  image: caption]", time=<the session's date as YYYYMMDDHHMM>)`. A-Mem analyses each note
  (keywords, context, tags) and evolves it with its nearest neighbours (links, neighbours'
  context and tags): its own pipeline, unchanged. A sidecar `notes.json` per conversation maps
  each note to its turn and session.
- Search: A-Mem's retriever (ChromaDB cosine search over the note and its analysis) with the
  run's top-k and no score cut; each note is an item dated by its session, with its turn's
  dia_id.
- Resume: a checkpoint lists the fully ingested conversations (`_ingest_checkpoint`).
"""

from __future__ import annotations

import asyncio
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from locoscore._io import sha256_text
from locoscore.data.conversation import Conversation, Query, SessionInput, TurnInput
from locoscore.systems._amem_env import close_memory, import_amem, installed_version, open_memory
from locoscore.systems._conversation_stores import ConversationStores
from locoscore.systems._library_providers import check_embedder, provider_options
from locoscore.systems._library_system import LibraryMemorySystem, SessionMap, Stored
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemoryItem, SearchResult
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec

# What locoscore hands A-Mem besides the turns; its hash goes into the signature.
NOTE_FORMAT = "one note per turn; 'Speaker: text [shares an image: caption]'; time=session date"
NOTE_FORMAT_ID = sha256_text(NOTE_FORMAT)[:12]
ITEM_TEXTS = ("note", "content")


def note_time(session: SessionInput) -> str | None:
    """The session's date in A-Mem's timestamp format (YYYYMMDDHHMM); None: A-Mem's now."""
    if not session.date_iso:
        return None
    return datetime.fromisoformat(session.date_iso).strftime("%Y%m%d%H%M")


def note_content(turn: TurnInput) -> str:
    return turn.render()


class _Store:
    """One conversation's A-Mem system and the turn each of its notes came from."""

    def __init__(self, memory: Any, folder: Path, meter: UsageMeter) -> None:
        self.memory = memory
        self.meter = meter
        self.notes = SessionMap(folder / "notes.json")


class AMemSystem(LibraryMemorySystem):
    name = "a-mem"
    DISTRIBUTION = "a-mem"
    ADDED_INPUT = ("note", NOTE_FORMAT_ID)
    NO_DATE = "A-Mem stamps its notes with the current time"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("A-Mem", "vector size asked of a text-embedding-3 embedder"),
        "item_text": OptionSpec(
            str,
            "note",
            "what an item says: the note with A-Mem's context, keywords and tags, or its "
            "content alone",
            ITEM_TEXTS,
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        super().__init__(options, context)
        self._stores = ConversationStores[_Store](self._folder)

    def _installed_version(self) -> str:
        return installed_version()

    def ingestion_calls(self, conversation: Conversation) -> int | None:
        """Per note an analysis and its embedding; from the second note on, the neighbour
        lookup's embedding and the evolution call (more when A-Mem updates neighbours)."""
        turns = conversation.turn_count
        return 4 * turns - 2 if turns else 0

    # -- clients --------------------------------------------------------------------------

    def _openai(self, url_option: str, meter: UsageMeter) -> Any:
        return self._openai_client(url_option, self._http_client(meter))

    def _embedding_function(self, meter: UsageMeter) -> Any:
        """ChromaDB's OpenAI-compatible embedding function on a metered client (ChromaDB
        persists its settings, never the key: only the variable's name)."""
        from chromadb.utils.embedding_functions import OpenAIEmbeddingFunction

        function = OpenAIEmbeddingFunction(
            api_key_env_var=self.options["api_key_env"],
            model_name=self.options["embedder_model"],
            api_base=self._base_url("embedder_base_url"),
            dimensions=self.options["embedding_dims"],
        )
        function.client = self._openai("embedder_base_url", meter)
        return function

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Import A-Mem offline; check the key and that the embedder answers."""
        await asyncio.to_thread(import_amem)
        self._api_key()
        await asyncio.to_thread(self._check_embedder)

    def _check_embedder(self) -> None:
        client = self._openai("embedder_base_url", UsageMeter())
        check_embedder(self.name, self.options, client, exact=False)

    async def _close(self) -> None:
        for store in self._stores.drain():
            close_memory(store.memory)
        self._close_http_clients()

    # -- stores ---------------------------------------------------------------------------

    def _store(self, conversation_id: str, create: bool) -> _Store | None:
        return self._stores.open(conversation_id, create, self._open_store)

    def _open_store(self, folder: Path) -> _Store:
        # One meter per conversation: calls from threads that lost the context still land
        # with the session being added (one at a time per conversation).
        meter = UsageMeter()
        memory = open_memory(
            folder / "chroma",
            self.options["llm_model"],
            self._api_key(),
            self._openai("llm_base_url", meter),
            lambda: self._embedding_function(meter),
        )
        return _Store(memory, folder, meter)

    async def reset(self, conversation_id: str) -> None:
        """Drop the conversation's whole store (its ChromaDB folder and the sidecar)."""
        store = self._stores.pop(conversation_id)
        if store is not None:
            close_memory(store.memory)
        await asyncio.to_thread(shutil.rmtree, self._folder(conversation_id), True)
        self._forget(conversation_id)

    # -- add and search -------------------------------------------------------------------

    async def _store_session(self, session: SessionInput) -> Stored:
        tally, notes = await asyncio.to_thread(self._add, session)
        return Stored(tally, notes)

    def _add(self, session: SessionInput) -> tuple[Tally, int]:
        store = self._store(session.conversation_id, create=True)
        assert store is not None
        said_at = note_time(session)
        with UsageMeter.counting() as tally:
            store.meter.fallback = tally
            try:
                for turn in session.turns:
                    note_id = store.memory.add_note(note_content(turn), time=said_at)
                    store.notes.record(str(note_id), session, dia_id=turn.dia_id)
            finally:
                store.meter.fallback = None
        store.notes.save()
        return tally, len(session.turns)

    async def search(self, query: Query) -> SearchResult:
        tally, items = await asyncio.to_thread(self._search, query)
        return SearchResult(tuple(items), self._usage(tally))

    def _search(self, query: Query) -> tuple[Tally, list[MemoryItem]]:
        with UsageMeter.counting() as tally:
            store = self._store(query.conversation_id, create=False)
            if store is None or store.memory.retriever.count() == 0:
                return tally, []
            found = store.memory.retriever.search(query.text, query.top_k)
        ids = found["ids"][0]
        rows = zip(ids, found["metadatas"][0], found["distances"][0], strict=False)
        text = self.options["item_text"]
        return tally, [note_item(m, d, store.notes.entries.get(i, {}), text) for i, m, d in rows]


def note_item(
    metadata: dict[str, Any], distance: float, turn: dict[str, Any], item_text: str
) -> MemoryItem:
    """An A-Mem note as an item: its cosine similarity (1 - ChromaDB's cosine distance),
    dated by its session, with the dia_id of the turn it holds."""
    text = str(metadata.get("content", ""))
    if item_text == "note":
        parts = [f"context: {metadata.get('context', '')}"]
        for key in ("keywords", "tags"):
            values = metadata.get(key)
            if isinstance(values, list) and values:
                parts.append(f"{key}: {', '.join(str(v) for v in values)}")
        text += f" ({'; '.join(parts)})"
    dia_id = turn.get("dia_id")
    return MemoryItem(
        text=text,
        score=round(1.0 - float(distance), 6),
        date_iso=turn.get("date_iso"),
        date_raw=turn.get("date_raw"),
        dia_ids=(str(dia_id),) if dia_id else None,
    )
