"""What `locoscore run --dry-run` reports: the answer calls still to make, their tokens and
cost, counted from the prompts the real run would send (nothing sent, nothing written)."""

from __future__ import annotations

from typing import Any

from locoscore.llm.cost import REQUEST_OVERHEAD_TOKENS
from locoscore.llm.ledger import tokens_apart
from locoscore.llm.prompt_cache import OPENAI_MIN_TOKENS, OPENAI_STEP_TOKENS, PrefixPolicy
from locoscore.results.layout import RUN_STATE
from locoscore.run.answerer import EXPECTED_ANSWER_TOKENS
from locoscore.run.settings import ResolvedRun
from locoscore.run.store import RunStore


def cache_estimate(run: ResolvedRun, prompts: list[tuple[int, str, int]]) -> tuple[int, int]:
    """(tokens read, tokens written) the provider's prompt cache would take, the prompts
    sent in the order given (a conversation's first question ahead of the rest)."""
    step = run.answer
    if not step.settings.prompt_cache or step.model is None:
        return 0, 0
    read = written = 0
    if step.provider == "anthropic":
        policy = PrefixPolicy(True, "anthropic", step.model, run.system.ignores_budget)
        stored: set[str] = set()
        for _, prefix, tokens in prompts:
            if policy.mark(prefix):
                if prefix in stored:
                    read += tokens
                else:
                    written += tokens
                    stored.add(prefix)
    elif step.provider == "openai":  # automatic, from 1,024 tokens on, in 128-token steps
        seen: set[str] = set()
        for _, prefix, tokens in prompts:
            if prefix in seen and tokens >= OPENAI_MIN_TOKENS:
                read += tokens - (tokens - OPENAI_MIN_TOKENS) % OPENAI_STEP_TOKENS
            seen.add(prefix)
    return read, written


def dry_run_estimate(
    run: ResolvedRun, prompts: list[tuple[int, str, int]], search_errors: list[str]
) -> dict[str, Any]:
    """`prompts`: (tokens, shared prefix, its tokens) per prompt not in the answer cache."""
    calls = len(prompts)
    input_tokens = sum(p[0] for p in prompts) + REQUEST_OVERHEAD_TOKENS * calls
    output_tokens = EXPECTED_ANSWER_TOKENS * calls
    read, written = cache_estimate(run, prompts)
    cost: float | None = 0.0  # no answer model: nothing to pay
    if run.answer.model is not None:
        cost = run.answer.settings.prices.cost(
            run.answer.model, input_tokens, output_tokens, cache_read=read, cache_write=written
        )
    calls_model = not (run.answer.is_extractive or run.system.answers_itself)
    return {
        # None: no answer model; "unknown": prompts cannot be checked against the window
        "context_window": (run.answer.context_window or "unknown") if calls_model else None,
        "calls": calls,
        "cached": len(run.questions) - calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost,
        **tokens_apart(input_tokens, read, written),
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
    estimate: dict[str, Any] = {
        "calls": calls,
        "cached": cached,
        **unknown,
        "search_errors": [],
        "not_estimated": blocker,
    }
    counts = [run.system.ingestion_calls(c) for c in run.conversations]
    if counts and None not in counts:
        # the system's own calls, if nothing of these conversations is stored yet
        estimate["ingestion_calls"] = sum(n for n in counts if n is not None)
    return estimate
