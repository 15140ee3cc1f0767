"""LoCoMo's edge of the judge: its prediction records as neutral judge items.

Which records are judged (category 5, the adversarial one, only on request, as in the Mem0
protocol) and the reference the judge sees are LoCoMo's rules; the engine gets items only.
The conversion keeps every cache key and prompt byte-identical to the record-based engine
it replaced, so existing caches still answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from locoscore.benchmarks.locomo.categories import (
    ADVERSARIAL,
    CATEGORY_GUIDANCE,
    CATEGORY_NAMES,
)
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.judge.items import JudgeItem


def judged_records(
    records: Iterable[PredictionRecord], include_adversarial: bool
) -> list[PredictionRecord]:
    """Category 5 is excluded by default, as in the Mem0 protocol."""
    return [r for r in records if include_adversarial or r.category != ADVERSARIAL]


def reference_text(record: PredictionRecord) -> str:
    """The reference the judge sees. Category-5 items without `answer` carry only the
    adversarial (wrong) answer: the judge must be told it is the trap, not the gold."""
    if record.gold_field == "adversarial_answer":
        return (
            "The conversation does not contain this information; a correct answer says so. "
            f"(Tempting but wrong answer: {record.answer_text})"
        )
    return record.answer_text


def record_item(record: PredictionRecord) -> JudgeItem:
    return JudgeItem(
        key=record.key,
        question_id=record.sample_id,
        index=record.qa_index,
        type_id=record.category,
        question=record.question,
        reference=reference_text(record),
        candidate=record.prediction,
        source=record.source,
        type_name=CATEGORY_NAMES.get(record.category, str(record.category)),
        guidance=CATEGORY_GUIDANCE.get(record.category, ""),
    )


def judge_items(
    records: Iterable[PredictionRecord], include_adversarial: bool = True
) -> list[JudgeItem]:
    """The items of the records LoCoMo judges (category 5 only with `include_adversarial`)."""
    return [record_item(r) for r in judged_records(records, include_adversarial)]
