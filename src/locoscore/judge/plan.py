"""All calls of a pass, known up front: what the cache answers, what is trivially 0,
and what must be asked. Shared by the live runner, batch mode and dry runs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from locoscore.categories import ADVERSARIAL
from locoscore.data.models import PredictionRecord
from locoscore.judge.cache import JudgeStore, cache_key
from locoscore.judge.parsing import trivial_prediction_reason
from locoscore.judge.settings import ResolvedJudge


@dataclass
class JudgmentRow:
    """One line of judgments.jsonl: one (question, run index)."""

    key: str
    sample_id: str | None
    qa_index: int | None
    category: int
    run: int
    score: float | None
    explanation: str = ""
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    prompt_hash: str = ""
    cached: bool = False
    method: str = ""
    call_id: str = ""
    served_model: str = ""  # what the server said it served ("" for no call, or unsaid)
    fake: bool = False  # made by locoscore's fake provider

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CallSpec:
    """One judge call still to make."""

    record: PredictionRecord
    run_index: int
    key: str


@dataclass
class CallPlan:
    records: list[PredictionRecord]
    done: list[JudgmentRow] = field(default_factory=list)  # cached or short-circuited
    missing: list[CallSpec] = field(default_factory=list)
    hits: dict[str, CallSpec] = field(default_factory=dict)  # call key -> spec, cached rows
    cached: int = 0
    short_circuited: int = 0


def judged_records(
    records: list[PredictionRecord], include_adversarial: bool
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


def render_prompt(judge: ResolvedJudge, record: PredictionRecord) -> str:
    """The prompt of one call (a fresh fence token each time)."""
    return judge.template.render(
        record.question, reference_text(record), record.prediction, record.category
    )


def call_key(judge: ResolvedJudge, record: PredictionRecord, run_index: int) -> str:
    return cache_key(
        provider=judge.provider,
        endpoint=judge.endpoint.url,
        model=judge.model,
        protocol=judge.protocol,
        prompt_hash=judge.prompt_hash,
        params=judge.cache_params(),
        question_key=record.key,
        question=record.question,
        gold=reference_text(record),  # the reference as the judge sees it
        candidate=record.prediction,
        run_index=run_index,
        category=record.category,
    )


def base_row(judge: ResolvedJudge, record: PredictionRecord, run: int, key: str) -> JudgmentRow:
    return JudgmentRow(
        key=record.key,
        sample_id=record.sample_id,
        qa_index=record.qa_index,
        category=record.category,
        run=run,
        score=None,
        prompt_hash=judge.prompt_hash,
        call_id=key,
    )


def plan_calls(
    records: list[PredictionRecord], judge: ResolvedJudge, store: JudgeStore | None
) -> CallPlan:
    records = judged_records(records, judge.settings.include_adversarial)
    plan = CallPlan(records)
    specs: list[CallSpec] = []
    for record in records:
        trivial = trivial_prediction_reason(record.prediction)
        for run in range(judge.settings.runs):
            key = call_key(judge, record, run)
            if trivial is not None:
                row = base_row(judge, record, run, key)
                row.score = 0.0
                row.explanation = f"graded 0 without a call: {trivial}"
                row.method = "short_circuit"
                plan.done.append(row)
                plan.short_circuited += 1
            else:
                specs.append(CallSpec(record, run, key))
    hits = store.get_many([s.key for s in specs]) if store is not None else {}
    for spec in specs:
        hit = hits.get(spec.key)
        if hit is None:
            plan.missing.append(spec)
            continue
        row = base_row(judge, spec.record, spec.run_index, spec.key)
        row.score = hit.score
        row.explanation = hit.explanation
        row.method = hit.method
        row.input_tokens = hit.input_tokens
        row.output_tokens = hit.output_tokens
        row.latency_s = hit.latency_s
        row.served_model, row.fake = hit.served_model, hit.fake
        row.cached = True
        plan.done.append(row)
        plan.hits[spec.key] = spec
        plan.cached += 1
    return plan
