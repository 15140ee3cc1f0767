"""What `locoscore run --dry-run` reports: the answer calls still to make, their tokens and
cost, counted from the prompts the real run would send (nothing sent, nothing written)."""

from __future__ import annotations

from typing import Any

from locoscore.llm.cost import REQUEST_OVERHEAD_TOKENS
from locoscore.results.layout import RUN_STATE
from locoscore.run.answerer import EXPECTED_ANSWER_TOKENS
from locoscore.run.settings import ResolvedRun
from locoscore.run.store import RunStore


def dry_run_estimate(
    run: ResolvedRun, prompt_tokens: list[int], search_errors: list[str]
) -> dict[str, Any]:
    """`prompt_tokens`: one entry per prompt not in the answer cache."""
    calls = len(prompt_tokens)
    input_tokens = sum(prompt_tokens) + REQUEST_OVERHEAD_TOKENS * calls
    output_tokens = EXPECTED_ANSWER_TOKENS * calls
    cost: float | None = 0.0  # no answer model: nothing to pay
    if run.answer.model is not None:
        cost = run.answer.settings.prices.cost(run.answer.model, input_tokens, output_tokens)
    calls_model = not (run.answer.is_extractive or run.system.answers_itself)
    return {
        # None: no answer model; "unknown": prompts cannot be checked against the window
        "context_window": (run.answer.context_window or "unknown") if calls_model else None,
        "calls": calls,
        "cached": len(run.questions) - calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost,
        "search_errors": search_errors,
    }


def blocked_estimate(run: ResolvedRun, blocker: str) -> dict[str, Any]:
    """A system that cannot ingest without a key it lacks (`blocker` says which): the answer
    calls still to make are counted (every question without a saved record); their tokens
    and cost depend on what retrieval finds, so they are not estimated."""
    state = run.settings.out / RUN_STATE
    finished: dict[str, Any] = {}
    if state.exists():
        store = RunStore(state)
        finished = store.finished()
        store.close()
    calls = 0
    if not (run.answer.is_extractive or run.system.answers_itself):
        calls = sum(1 for q in run.questions if q.question_id not in finished)
    unknown = dict.fromkeys(("input_tokens", "output_tokens", "cost_usd"))
    cached = len(run.questions) - calls
    return {
        "calls": calls,
        "cached": cached,
        **unknown,
        "search_errors": [],
        "not_estimated": blocker,
    }
