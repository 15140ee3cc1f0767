"""All calls of a pass, known up front: what the cache answers, what is trivially 0,
and what must be asked. Shared by the live runner, batch mode and dry runs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from locoscore.judge.cache import JudgeStore, cache_key
from locoscore.judge.items import JudgeItem
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

    item: JudgeItem
    run_index: int
    key: str


@dataclass
class CallPlan:
    items: list[JudgeItem]
    done: list[JudgmentRow] = field(default_factory=list)  # cached or short-circuited
    missing: list[CallSpec] = field(default_factory=list)
    hits: dict[str, CallSpec] = field(default_factory=dict)  # call key -> spec, cached rows
    cached: int = 0
    short_circuited: int = 0


def render_prompt(judge: ResolvedJudge, item: JudgeItem) -> str:
    """The prompt of one call (a fresh fence token each time)."""
    return judge.template.render(
        item.question,
        item.reference,
        item.candidate,
        item.rule_id,
        type_name=item.type_name,
        guidance=item.guidance,
    )


def call_key(judge: ResolvedJudge, item: JudgeItem, run_index: int) -> str:
    return cache_key(
        judge.cache_identity(),
        question_key=item.key,
        question=item.question,
        gold=item.reference,  # the reference as the judge sees it
        candidate=item.candidate,
        run_index=run_index,
        category=item.rule_id,  # the rule picks the prompt
    )


def base_row(judge: ResolvedJudge, item: JudgeItem, run: int, key: str) -> JudgmentRow:
    return JudgmentRow(
        key=item.key,
        sample_id=item.question_id,
        qa_index=item.index,
        category=item.type_id,
        run=run,
        score=None,
        prompt_hash=judge.prompt_hash,
        call_id=key,
    )


def plan_calls(items: list[JudgeItem], judge: ResolvedJudge, store: JudgeStore | None) -> CallPlan:
    """Every item is judged: which ones a benchmark judges is decided at its edge."""
    plan = CallPlan(list(items))
    specs: list[CallSpec] = []
    for item in plan.items:
        trivial = trivial_prediction_reason(item.candidate)
        for run in range(judge.settings.runs):
            key = call_key(judge, item, run)
            if trivial is not None:
                row = base_row(judge, item, run, key)
                row.score = 0.0
                row.explanation = f"graded 0 without a call: {trivial}"
                row.method = "short_circuit"
                plan.done.append(row)
                plan.short_circuited += 1
            else:
                specs.append(CallSpec(item, run, key))
    hits = store.get_many([s.key for s in specs]) if store is not None else {}
    for spec in specs:
        hit = hits.get(spec.key)
        if hit is None:
            plan.missing.append(spec)
            continue
        row = base_row(judge, spec.item, spec.run_index, spec.key)
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
