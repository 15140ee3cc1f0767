"""One question through the harness: search (timed), the context as placed, the answer
(timed), and every measure a comparison needs, as one prediction line."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from locoscore.benchmarks.answer_prompt import AnswerPrompt
from locoscore.data.conversation import Query, Question
from locoscore.llm.call_errors import one_line_error
from locoscore.run.answerer import Answer, Answerer
from locoscore.run.placed_context import PlacedContext, place_context
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, unbudgeted


def evidence_recall(evidence: tuple[str, ...], items: tuple[MemoryItem, ...]) -> float | None:
    """Share of the question's evidence turns among the placed items; None when the
    question names no evidence or no item says which turns it came from."""
    if not evidence or all(item.dia_ids is None for item in items):
        return None
    found = {d for item in items for d in (item.dia_ids or ())}
    return round(sum(1 for e in evidence if e in found) / len(evidence), 6)


def base_record(question: Question) -> dict[str, Any]:
    return {
        **question.record_ids,
        "question_id": question.question_id,
        "category": question.category,
        "question": question.text,
        "answer": question.gold,
        "evidence": list(question.evidence),
    }


def failed_record(question: Question, error: str, **measures: Any) -> dict[str, Any]:
    return {
        **base_record(question),
        "prediction": "",
        "search_latency_s": None,
        "answer_latency_s": None,
        "total_latency_s": None,
        "context_tokens": None,
        "answer_words": 0,
        "evidence_recall": None,
        "retrieved": [],
        **measures,
        "error": error,
    }


@dataclass(frozen=True)
class Retrieved:
    result: SearchResult
    context: PlacedContext  # what the answer prompt holds, after the budget
    search_s: float  # the system's search call alone


async def retrieve(
    question: Question, system: MemorySystem, *, top_k: int, budget: int | None
) -> Retrieved:
    """The system's search (timed) and the context as the answer prompt will hold it: the
    same for a real run and a dry run. Search errors propagate to the caller."""
    query = Query(
        question.conversation_id,
        question.system_question_id,
        question.text,
        top_k,
        question.date_iso,
    )
    started = time.perf_counter()
    result = await system.search(query)
    search_s = time.perf_counter() - started
    whole = unbudgeted(system)
    items = result.items if whole else result.items[:top_k]
    context = place_context(items, None if whole else budget)
    return Retrieved(result, context, search_s)


async def answer_question(
    question: Question,
    system: MemorySystem,
    answerer: Answerer,
    prompt: AnswerPrompt,
    *,
    top_k: int,
    budget: int | None,
    retrieved: Retrieved | Exception | None = None,
    overflow: Callable[[str, str], Awaitable[str | None]] | None = None,
) -> tuple[dict[str, Any], Answer | None]:
    """The question's prediction line (with `error` set when it failed) and its answer.

    `retrieved`: the search already done (or the error it raised); `overflow(question id,
    prompt)`: why the prompt does not fit the answer model's window (then no call is made)."""
    try:
        if isinstance(retrieved, Exception):
            raise retrieved
        if retrieved is None:
            retrieved = await retrieve(question, system, top_k=top_k, budget=budget)
    except Exception as exc:  # recorded per question; a rerun retries it
        return failed_record(question, f"search failed: {one_line_error(exc)}"), None
    result, context, search_s = retrieved.result, retrieved.context, retrieved.search_s
    if result.answer is not None:  # the system answers itself: its answer step, not ours
        answer = Answer(result.answer.strip(), None)
    else:
        rendered = prompt.render(question.text, context.text, question.reader_date)
        too_long = await overflow(question.question_id, rendered) if overflow else None
        if too_long is not None:
            answer = Answer("", None, error=too_long)
        else:
            shared = prompt.shared_prefix(question.text, context.text, question.reader_date)
            answer = await answerer.answer(rendered, context, shared)
    answer_s = answer.latency_s
    total = search_s + (answer_s or 0.0)
    record = {
        **base_record(question),
        "prediction": answer.text,
        "search_latency_s": round(search_s, 6),
        "answer_latency_s": None if answer_s is None else round(answer_s, 6),
        # a failed answer has no total: its search time alone would pass for a fast answer
        "total_latency_s": None if answer.error is not None else round(total, 6),
        "context_tokens": context.tokens,
        "answer_words": len(answer.text.split()),
        "evidence_recall": evidence_recall(question.evidence, context.items),
        "retrieved": [item.to_json() for item in context.items],
        "retrieved_dropped_by_budget": context.dropped,
        "search_usage": result.usage.to_json(),
        "answer_tokens": {"input": answer.input_tokens, "output": answer.output_tokens},
        "error": answer.error,
    }
    if answer.served_s is not None and answer_s is not None:
        # The server's own timings: the answer latency split into queued there and served.
        record["answer_served_s"] = round(answer.served_s, 6)
        record["answer_queued_s"] = round(max(0.0, answer_s - answer.served_s), 6)
    if answer.usage_counted_locally:
        record["answer_tokens"]["counted_locally"] = True
    if answer.cache_read_tokens or answer.cache_write_tokens:  # parts of "input"
        record["answer_tokens"]["cache_read"] = answer.cache_read_tokens
        record["answer_tokens"]["cache_write"] = answer.cache_write_tokens
    return record, answer
