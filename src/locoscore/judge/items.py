"""The judge engine's unit: one neutral judge item, whatever benchmark made it.

A benchmark turns its own records into `JudgeItem`s at its edge (LoCoMo's predictions in
`judge.from_records`, LongMemEval's and BEAM's in their packages); the engine (plan, runner,
batch, cache, prompts, `run_pass`) reads nothing else. The fields are what a verdict depends
on and how its row is named in judgments.jsonl, nothing a benchmark aggregates by.
"""

from __future__ import annotations

from dataclasses import dataclass

from locoscore.data.conversation import Question


@dataclass(frozen=True)
class JudgeItem:
    """One question (or one rubric item, one pair) to judge, with its candidate answer."""

    key: str  # stable identity: part of the cache key, and what the rows are grouped by
    question_id: str | None  # judgments.jsonl `sample_id` (kept for old folders)
    index: int | None  # judgments.jsonl `qa_index`: a question's position, an item's number
    type_id: int  # the benchmark's question type (judgments.jsonl `category`)
    question: str
    reference: str  # the gold or rubric text exactly as the judge sees it
    candidate: str  # the answer under judgment
    rule: int | None = None  # which of the template's rules applies (None: the type's)
    source: str = ""  # where the item came from, for messages
    # what the benchmark calls the item's type, and what an answer of that type must get
    # right: a prompt's `{category}` (when its template names no types), `{category_guidance}`
    type_name: str | None = None
    guidance: str = ""

    @property
    def rule_id(self) -> int:
        """The template rule (`PromptTemplate.per_category`) this item is judged by; it is
        part of the cache key since it changes the prompt."""
        return self.type_id if self.rule is None else self.rule


def question_item(
    question: Question,
    candidate: str,
    index: int | None,
    type_name: str | None,
    guidance: str = "",
) -> JudgeItem:
    """A benchmark question judged against its own gold, keyed and named by its id."""
    return JudgeItem(
        key=question.question_id,
        question_id=question.question_id,
        index=index,
        type_id=question.category,
        question=question.text,
        reference=str(question.gold),
        candidate=candidate,
        source=question.question_id,
        type_name=type_name,
        guidance=guidance,
    )
