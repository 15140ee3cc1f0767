"""Typed records: the dataset (sample, turn, QA item) and one prediction per question."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES, category_name


class Turn(BaseModel):
    model_config = ConfigDict(extra="allow")

    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None
    img_url: list[str] | str | None = None
    query: str | None = None


class Session(BaseModel):
    index: int
    date_time: str | None
    turns: list[Turn]


class QAItem(BaseModel):
    """One LoCoMo question. Identity: (sample_id, qa_index)."""

    model_config = ConfigDict(extra="allow")

    sample_id: str
    qa_index: int
    question: str
    category: int
    answer: str | int | None = None
    adversarial_answer: str | int | None = None
    evidence: list[str] = Field(default_factory=list)

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: int) -> int:
        if value not in CATEGORY_NAMES:
            raise ValueError(f"unknown category {value} (expected 1-5)")
        return value

    @property
    def gold_field(self) -> Literal["answer", "adversarial_answer"]:
        """`answer` when present, else `adversarial_answer` (category-5 items lack `answer`)."""
        return "answer" if self.answer is not None else "adversarial_answer"

    @property
    def gold(self) -> str | int:
        value = self.answer if self.answer is not None else self.adversarial_answer
        return "" if value is None else value

    @property
    def gold_text(self) -> str:
        """Gold as scored: ints become `str()` (the official scorer does the same)."""
        return str(self.gold)


class Sample(BaseModel):
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]
    qa: list[QAItem]


class PredictionRecord(BaseModel):
    """One question with the system's prediction, as read from any supported format.

    `answer` is the gold as given (ints kept); `answer_text` is what gets scored.
    """

    model_config = ConfigDict(frozen=False)

    sample_id: str | None = None
    qa_index: int | None = None
    conversation: int | None = None  # position of the sample in locomo10.json, when known
    category: int
    question: str
    answer: str | int
    gold_field: Literal["answer", "adversarial_answer"] = "answer"
    prediction: str
    search_latency_s: float | None = None
    total_latency_s: float | None = None
    context_tokens: int | None = None
    recorded: dict[str, Any] = Field(default_factory=dict)
    source: str = ""  # "line 12" / "record conv-26[3]": where the record came from

    @property
    def answer_text(self) -> str:
        return str(self.answer)

    @property
    def category_name(self) -> str:
        return category_name(self.category)

    @property
    def key(self) -> str:
        """Stable question identity: `sample_id#qa_index` when known, else the source."""
        if self.sample_id is not None and self.qa_index is not None:
            return f"{self.sample_id}#{self.qa_index}"
        return f"{self.conversation if self.conversation is not None else '?'}|{self.question}"

    def base_row(self) -> dict[str, Any]:
        """The identity/text/latency fields every `scores.jsonl` line starts with."""
        row: dict[str, Any] = {
            "sample_id": self.sample_id,
            "qa_index": self.qa_index,
            "category": self.category,
            "category_name": self.category_name,
            "question": self.question,
            "answer": self.answer,
            "prediction": self.prediction,
        }
        if self.gold_field != "answer":
            row["gold_field"] = self.gold_field
        for name in ("search_latency_s", "total_latency_s", "context_tokens"):
            value = getattr(self, name)
            if value is not None:
                row[name] = value
        for name, value in self.recorded.items():
            row[f"recorded_{name}"] = value
        return row
