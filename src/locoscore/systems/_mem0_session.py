"""What locoscore sends mem0 for a session, and what it reads back from a result row.

A session becomes one `add`: each turn a user message "Speaker: text [shares an image:
caption]" (mem0 drops the `name` field on its extraction path, so the speaker goes in the
content), metadata with the session's ISO date as `created_at` (mem0 keeps it as the
memory's own date) and its raw date, and custom instructions carrying the session date as
the extraction's observation date.
"""

from __future__ import annotations

import hashlib
from typing import Any

from locoscore.data.conversation import SessionInput, TurnInput
from locoscore.systems.base import MemoryItem


def turn_message(turn: TurnInput) -> dict[str, str]:
    return {"role": "user", "content": turn.render()}


def session_metadata(session: SessionInput) -> dict[str, Any]:
    metadata: dict[str, Any] = {"session": session.index}
    if session.date_iso:
        metadata["created_at"] = session.date_iso
    if session.date_raw:
        metadata["session_date"] = session.date_raw
    return metadata


def extraction_instructions(session: SessionInput) -> str:
    """Mem0's custom instructions for one session: its date and who speaks.

    Mem0 2.2 fills the prompt's own "Observation Date" with today; its custom instructions
    (`add(prompt=...)`) take precedence, so the session date goes there.
    """
    lines = []
    if session.date_iso:
        lines += [
            f"Observation Date: {session.date_iso[:10]}",
            f"The new messages were exchanged on {session.date_raw or session.date_iso}. "
            "Use this date, not the Observation Date or Current Date sections above, to turn "
            "relative times (yesterday, last week, next month) into absolute dates.",
        ]
    speakers = " and ".join(session.speakers) or "two people"
    lines.append(
        f"The messages are turns of a conversation between {speakers}; each starts with its "
        "speaker's name. Name the speaker in every memory. [shares an image: ...] describes "
        "a photo the speaker shared."
    )
    return "\n".join(lines)


INSTRUCTIONS_TEMPLATE_ID = hashlib.sha256(
    extraction_instructions(SessionInput("c", 1, "d", "2000-01-01T00:00", (), ("A", "B"))).encode()
).hexdigest()[:12]


def memory_item(row: dict[str, Any]) -> MemoryItem:
    """A mem0 result row: the memory, its score, `created_at` (the session date locoscore
    stored) and, for turns stored verbatim (infer=false), the turn's dia_id."""
    metadata = row.get("metadata") or {}
    dia_id = metadata.get("dia_id")
    score = row.get("score")
    return MemoryItem(
        text=str(row.get("memory", "")),
        score=None if score is None else round(float(score), 6),
        date_iso=row.get("created_at"),
        date_raw=metadata.get("session_date"),
        dia_ids=None if dia_id is None else (str(dia_id),),
    )
