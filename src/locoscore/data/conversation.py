"""What a memory system sees: benchmark-neutral conversations, sessions, turns and queries.

Every benchmark (LoCoMo today, LongMemEval next) is converted into these types in the data
layer; systems import only this module, so a new benchmark never touches a system. The
types are plain frozen dataclasses with a JSON form (`to_json`) that is also the wire format
of the HTTP memory contract.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class TurnInput:
    """One utterance. `caption` describes an image the speaker shared (never dropped)."""

    speaker: str
    dia_id: str
    text: str
    caption: str | None = None

    def render(self) -> str:
        """The turn as one line of text: speaker, words, and the shared image's caption."""
        line = f"{self.speaker}: {self.text}"
        if self.caption:
            line += f" [shares an image: {self.caption}]"
        return line

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SessionInput:
    """One session of a conversation, with its date as written and parsed (ISO 8601)."""

    conversation_id: str
    index: int
    date_raw: str | None
    date_iso: str | None
    turns: tuple[TurnInput, ...]
    speakers: tuple[str, ...] = ()

    def render(self) -> str:
        """The session as a dated transcript block."""
        header = f"Session {self.index} ({self.date_raw or 'date unknown'})"
        return "\n".join([header, *(turn.render() for turn in self.turns)])

    def to_json(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "session_index": self.index,
            "date_raw": self.date_raw,
            "date_iso": self.date_iso,
            "speakers": list(self.speakers),
            "turns": [turn.to_json() for turn in self.turns],
        }


@dataclass(frozen=True)
class Conversation:
    """A whole conversation: the unit of ingestion and of isolation."""

    conversation_id: str
    speakers: tuple[str, ...]
    sessions: tuple[SessionInput, ...]

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)

    @property
    def last_date_iso(self) -> str | None:
        dated = [s.date_iso for s in self.sessions if s.date_iso]
        return dated[-1] if dated else None


@dataclass(frozen=True)
class Query:
    """One question put to a memory system, scoped to its conversation.

    `date_iso` is when the question is asked, when the benchmark says (for LoCoMo: after the
    last session, so the last session's date).
    """

    conversation_id: str
    question_id: str
    text: str
    top_k: int
    date_iso: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "question_id": self.question_id,
            "query": self.text,
            "top_k": self.top_k,
            "date_iso": self.date_iso,
        }


@dataclass(frozen=True)
class Question:
    """A benchmark question with what the harness needs to ask it and to measure retrieval."""

    question_id: str
    conversation_id: str
    text: str
    category: int
    gold: str | int
    evidence: tuple[str, ...] = field(default_factory=tuple)
    date_iso: str | None = None
    # How the benchmark's own files name the question (LoCoMo: sample_id and qa_index);
    # copied into every output line so results join back to the dataset.
    record_ids: dict[str, Any] = field(default_factory=dict)
    # The id a memory system is shown, when the benchmark's own id would give something
    # away (LongMemEval's `_abs` suffix marks the unanswerable questions).
    query_id: str | None = None
    # The question date as the benchmark writes it (LongMemEval: "2023/05/30 (Tue) 23:40",
    # weekday included), shown to the reader; None: the ISO date is shown.
    date_raw: str | None = None

    @property
    def system_question_id(self) -> str:
        return self.query_id or self.question_id

    @property
    def reader_date(self) -> str | None:
        return self.date_raw or self.date_iso
