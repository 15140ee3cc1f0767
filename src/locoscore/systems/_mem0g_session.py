"""What locoscore sends Mem0 1.0 (graph memory) for a session, and how it dates and orders what
a search returns. Plain Python: the unit tests run it without the Mem0g environment.

- A session is one `add`: a system message with the session's date and speakers (Mem0 1.0's
  fact prompt has today's date and no instructions parameter; it keeps system messages as
  context, and its graph side never sees them), then each turn as a user message
  "Speaker: text [shares an image: caption]", with metadata `created_at` = the session date.
- The graph side never sees a date and Kùzu stamps relations with the current time, so
  `RelationDates` remembers, per conversation, the session each relation was first added in
  (saved beside the store, so a resumed run still dates them).
- A search returns Mem0's memories (best first) and its relations (BM25 order) interleaved,
  memory first, cut to the run's top-k: at k the reader gets about k/2 of each, and all of one
  kind when the other runs out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from locoscore._io import write_text_atomic
from locoscore.data.conversation import SessionInput
from locoscore.systems.base import MemoryItem


def date_message(session: SessionInput) -> dict[str, str] | None:
    """The system message that dates the session (None when it has no date)."""
    if not (session.date_iso or session.date_raw):
        return None
    speakers = " and ".join(session.speakers) or "two people"
    return {
        "role": "system",
        "content": (
            f"These messages were exchanged on {session.date_raw or session.date_iso}. Use "
            "this date, not today's date, to turn relative times (yesterday, last week, next "
            f"month) into absolute dates. They are turns of a conversation between {speakers}; "
            "each starts with its speaker's name. [shares an image: ...] describes a photo "
            "the speaker shared."
        ),
    }


DATE_MESSAGE_ID = hashlib.sha256(
    json.dumps(date_message(SessionInput("c", 1, "d", "2000-01-01T00:00", (), ("A", "B")))).encode()
).hexdigest()[:12]


def relation_key(source: str, relationship: str, destination: str) -> str:
    return f"{source}\t{relationship}\t{destination}"


def relation_text(source: str, relationship: str, destination: str) -> str:
    return f"{source} -- {relationship} -- {destination}"


class RelationDates:
    """Relation -> the session it was first added in, kept in a JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._dates: dict[str, dict[str, Any]] = {}
        if path.exists():
            self._dates = json.loads(path.read_text(encoding="utf-8"))

    def __len__(self) -> int:
        return len(self._dates)

    def record(self, added: Iterable[Any], session: SessionInput) -> int:
        """Date the relations of an `add` result's `relations.added_entities` (a list of
        lists of {source, relationship, target}); those already dated keep their first
        session. Returns how many were new."""
        new = 0
        for group in added:
            for row in group if isinstance(group, list) else [group]:
                if not isinstance(row, Mapping) or "relationship" not in row:
                    continue
                target = row.get("target", row.get("destination"))
                key = relation_key(str(row.get("source")), str(row["relationship"]), str(target))
                if key in self._dates:
                    continue
                self._dates[key] = {
                    "session": session.index,
                    "date_iso": session.date_iso,
                    "date_raw": session.date_raw,
                }
                new += 1
        return new

    def save(self) -> None:
        write_text_atomic(self.path, json.dumps(self._dates, indent=1, sort_keys=True) + "\n")

    def item(self, relation: Mapping[str, Any]) -> MemoryItem:
        """A searched relation ({source, relationship, destination}) as an item, dated by
        its session (no date when it was never seen added)."""
        parts = (
            str(relation.get("source")),
            str(relation.get("relationship")),
            str(relation.get("destination", relation.get("target"))),
        )
        dated = self._dates.get(relation_key(*parts)) or {}
        return MemoryItem(
            text=relation_text(*parts),
            score=None,
            date_iso=dated.get("date_iso"),
            date_raw=dated.get("date_raw"),
        )


def interleave(
    memories: list[MemoryItem], relations: list[MemoryItem], top_k: int
) -> tuple[MemoryItem, ...]:
    """Memory, relation, memory, ... (each in its own order), then the rest of the longer
    list; the first `top_k`."""
    merged: list[MemoryItem] = []
    for position in range(max(len(memories), len(relations))):
        merged += memories[position : position + 1] + relations[position : position + 1]
    return tuple(merged[:top_k])
