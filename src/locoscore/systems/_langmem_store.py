"""One conversation's LangMem memories: a LangGraph `InMemoryStore` with an embedding index,
kept on disk between runs.

LangGraph's SQLite store needs SQLite's loadable extensions (sqlite-vec) for its vector
index, which many Python builds lack; Postgres needs a server. So each conversation's
memories live in an `InMemoryStore` (LangMem's documented store) and are written, after
every session, to `memories.json` beside the checkpoint: each memory's value, the session
that last wrote it, and the vector of every text the store embedded. Reopening puts the
memories back with those vectors (no embedding call is made or billed again).
"""

from __future__ import annotations

import base64
import json
import struct
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import write_json_atomic
from locoscore.data.conversation import SessionInput

ALL = 1_000_000  # a search limit above any conversation's memory count
EmbedFn = Callable[[Sequence[str]], list[list[float]]]


def _pack(vector: Sequence[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _unpack(text: str) -> list[float]:
    raw = base64.b64decode(text)
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


class RecordingEmbedder:
    """The store's embedding function: the provider's vectors, each remembered by its text;
    while `replaying`, only remembered vectors (reopening a store calls no provider)."""

    def __init__(self, embed: EmbedFn, vectors: dict[str, list[float]]) -> None:
        self._embed = embed
        self.vectors = vectors
        self.replaying = False
        self.lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        if self.replaying:
            return [self.vectors[t] for t in texts]
        vectors = self._embed(texts)
        with self.lock:
            self.vectors.update(zip(texts, vectors, strict=True))
        return vectors


class ConversationMemories:
    """A conversation's store, namespace and the session each memory was last written in."""

    def __init__(self, folder: Path, namespace: tuple[str, ...], embed: EmbedFn, dims: int):
        from langgraph.store.memory import InMemoryStore

        self.path = folder / "memories.json"
        self.namespace = namespace
        saved: dict[str, Any] = {}
        if self.path.exists():
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        vectors = {text: _unpack(v) for text, v in saved.get("vectors", {}).items()}
        self.embedder = RecordingEmbedder(embed, vectors)
        self.store = InMemoryStore(index={"dims": dims, "embed": self.embedder})
        self.sessions: dict[str, dict[str, Any]] = saved.get("sessions", {})
        self.embedder.replaying = True
        try:
            for key, value in saved.get("values", {}).items():
                self.store.put(namespace, key, value)
        finally:
            self.embedder.replaying = False

    def record(self, session: SessionInput, written_keys: Sequence[str]) -> int:
        """Stamp the keys written by this session with its date and save everything;
        how many memories the conversation holds now."""
        for key in written_keys:
            self.sessions[key] = {
                "session": session.index,
                "date_iso": session.date_iso,
                "date_raw": session.date_raw,
            }
        from langgraph.store.base.embed import get_text_at_path

        values = {item.key: item.value for item in self.store.search(self.namespace, limit=ALL)}
        self.sessions = {k: v for k, v in self.sessions.items() if k in values}
        # The text the store embedded for each memory (its whole value, the default "$"
        # field); other vectors (LangMem's searches of the session) are not kept.
        stored = {get_text_at_path(value, "$")[0] for value in values.values()}
        with self.embedder.lock:
            self.embedder.vectors = {t: v for t, v in self.embedder.vectors.items() if t in stored}
            vectors = {text: _pack(v) for text, v in self.embedder.vectors.items()}
        write_json_atomic(
            self.path, {"values": values, "sessions": self.sessions, "vectors": vectors}
        )
        return len(values)
