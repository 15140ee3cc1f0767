"""Importing A-Mem (`a-mem` 0.2.x, package `agentic_memory`) offline and opening one of its
memory systems on a folder, with the user's embedder instead of a hub model.

- LiteLLM, which A-Mem imports, downloads a model price map at import unless
  `LITELLM_LOCAL_MODEL_COST_MAP` is true: locoscore sets it before the first import. (A-Mem's
  "openai" backend calls the OpenAI SDK itself; LiteLLM only serves its other backends.)
- `AgenticMemorySystem.__init__` builds its `ChromaRetriever`, which loads a
  sentence-transformers model by name from a model hub (offline: it fails). A-Mem takes no
  retriever or embedding function as an argument, so while one system is built the
  module's `ChromaRetriever` name is bound to `OpenAIRetriever`: A-Mem's own retriever
  class, on a ChromaDB collection whose embedding function is ChromaDB's
  `OpenAIEmbeddingFunction` (any OpenAI-compatible embedder), its telemetry off. Built under
  a lock, and restored at once: A-Mem's code is otherwise untouched.
- The LLM: A-Mem's OpenAI controller's client is replaced by the caller's (the same SDK, a
  base URL and an HTTP client that meters usage), as locoscore does for mem0.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from locoscore.errors import InputError
from locoscore.systems._library_system import library_version

SUPPORTED_SERIES = "0.2."
INSTALL_HINT = "pip install 'locoscore[amem]'"
COLLECTION = "memories"  # A-Mem's own collection name
_BUILDING = threading.Lock()


def installed_version() -> str:
    """The installed a-mem version (read from its metadata, not imported yet)."""
    return library_version("a-mem", "a-mem", SUPPORTED_SERIES, INSTALL_HINT)


def import_amem() -> Any:
    """`agentic_memory.memory_system`, imported with LiteLLM's price map kept local."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")  # ChromaDB's, for any client
    try:
        from agentic_memory import memory_system
    except ImportError as exc:
        raise InputError(f"--system a-mem needs the amem extra ({INSTALL_HINT}): {exc}") from None
    return memory_system


def _retriever_class(embedding_function: Any) -> type:
    """A-Mem's `ChromaRetriever` on a persistent ChromaDB folder and the given embedder."""
    import chromadb
    from agentic_memory.retrievers import ChromaRetriever
    from chromadb.config import Settings

    class OpenAIRetriever(ChromaRetriever):
        def __init__(self, collection_name: str, model_name: str, persist_directory: str):
            # model_name is A-Mem's sentence-transformers name: not used, nothing loaded
            self.persist_directory = persist_directory
            self.client = chromadb.PersistentClient(
                path=persist_directory, settings=Settings(anonymized_telemetry=False)
            )
            self.embedding_function = embedding_function
            self.collection = self.client.get_or_create_collection(
                name=collection_name, embedding_function=embedding_function
            )

    return OpenAIRetriever


def open_memory(
    folder: Path,
    llm_model: str,
    api_key: str,
    llm_client: Any,
    embedder: Callable[[], Any],
) -> Any:
    """An `AgenticMemorySystem` storing in `folder`: `llm_client` an OpenAI client, `embedder`
    builds ChromaDB's `OpenAIEmbeddingFunction` (its own client already replaced)."""
    memory_system = import_amem()
    folder.mkdir(parents=True, exist_ok=True)
    retriever = _retriever_class(embedder())
    with _BUILDING:
        original = memory_system.ChromaRetriever
        memory_system.ChromaRetriever = retriever
        try:
            memory = memory_system.AgenticMemorySystem(
                llm_backend="openai",
                llm_model=llm_model,
                api_key=api_key,
                storage_path=str(folder),
            )
        finally:
            memory_system.ChromaRetriever = original
    controller: Any = getattr(memory.llm_controller, "llm", None)
    if not hasattr(controller, "client"):
        raise RuntimeError(f"a-mem: {type(controller)} has no client")
    controller.client = llm_client
    return memory


def close_memory(memory: Any) -> None:
    """Release the ChromaDB folder (its SQLite files) of a memory system."""
    client = getattr(memory.retriever, "client", None)
    if client is not None:
        client.close()
