"""Which conversations a system's persistent store already holds, complete and unchanged.

One JSON file in the system's state folder, rewritten atomically after every session the
library (mem0, Graphiti, ...) has stored: per conversation, a digest of each stored session,
how many items it made, and what the ingestion spent. A conversation counts as ingested when
every one of its sessions is recorded with the same digest, under the same ingestion
settings (models, embedding size, the library's version, locoscore's instructions). Anything
less (a crash mid-conversation, an edited session, other settings) means: reset it and
ingest again.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from locoscore._io import sha256_text, write_json_atomic
from locoscore.data.conversation import Conversation, SessionInput
from locoscore.systems.base import Usage

FORMAT = 1


def session_digest(session: SessionInput) -> str:
    text = json.dumps(session.to_json(), sort_keys=True, ensure_ascii=False)
    return sha256_text(text)[:16]


class IngestCheckpoint:
    def __init__(self, path: Path, settings: Mapping[str, str], system: str = "mem0") -> None:
        self.path = path
        self.system = system
        self.settings = dict(settings)
        self._lock = threading.Lock()
        self._conversations: dict[str, dict[str, Any]] = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            warnings.warn(
                f"{self.system}: ignoring unreadable checkpoint {self.path} ({exc}); "
                "conversations will be ingested again",
                stacklevel=2,
            )
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return {}
        if data.get("settings") != self.settings:
            return {}  # the store was built differently: nothing in it counts
        conversations = data.get("conversations")
        return dict(conversations) if isinstance(conversations, dict) else {}

    def complete(self, conversation: Conversation) -> bool:
        with self._lock:
            entry = self._conversations.get(conversation.conversation_id)
        if not entry or not conversation.sessions:
            return False
        expected = {str(s.index): session_digest(s) for s in conversation.sessions}
        return bool(entry.get("sessions") == expected)

    def record(self, session: SessionInput, memories: int, usage: Usage, wall_s: float) -> None:
        with self._lock:
            entry = self._conversations.setdefault(
                session.conversation_id,
                {"sessions": {}, "memories": 0, "usage": Usage().to_json(), "wall_s": 0.0},
            )
            entry["sessions"][str(session.index)] = session_digest(session)
            entry["memories"] += memories
            entry["usage"] = (Usage.from_json(entry["usage"]) + usage).to_json()
            entry["wall_s"] = round(entry["wall_s"] + wall_s, 3)
            self._write()

    def forget(self, conversation_id: str) -> None:
        with self._lock:
            if self._conversations.pop(conversation_id, None) is not None:
                self._write()

    def entry(self, conversation_id: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._conversations.get(conversation_id)
            return None if entry is None else json.loads(json.dumps(entry))

    def _write(self) -> None:
        write_json_atomic(
            self.path,
            {"format": FORMAT, "settings": self.settings, "conversations": self._conversations},
        )
