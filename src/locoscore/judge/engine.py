"""The judge engine's one call: a pass over neutral judge items (`items.JudgeItem`), cache
first, every verdict committed at once, live or batch, or a dry run's plan and estimate.

Every benchmark's judge, LoCoMo's (`api.judge_pass`) and the shared fold (`folder`), and
every audit go through `run_pass`; nothing here knows a benchmark's record type.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.judge.batch import BatchRunner
from locoscore.judge.cache import JudgeStore, user_cache_path
from locoscore.judge.items import JudgeItem
from locoscore.judge.plan import CallPlan, plan_calls, render_prompt
from locoscore.judge.runner import JudgeRun, ProgressSink, run_plan
from locoscore.judge.settings import JudgeSettings, ResolvedJudge
from locoscore.llm.cost import Estimate, estimate_calls
from locoscore.llm.providers import LLMClient


@dataclass
class PassResult:
    judge: ResolvedJudge
    plan: CallPlan
    estimate: Estimate
    run: JudgeRun | None = None
    summary: dict[str, Any] | None = None
    user_cache_hits: int = 0  # verdicts the folder lacked and the user-level cache had


def estimate_plan(judge: ResolvedJudge, plan: CallPlan, *, batch: bool = False) -> Estimate:
    prompts = [render_prompt(judge, s.item) for s in plan.missing]
    return estimate_calls(prompts, judge.protocol, judge.model, judge.settings.prices, batch=batch)


async def run_pass(
    items: list[JudgeItem],
    settings: JudgeSettings,
    cache_path: Path,
    *,
    batch: bool = False,
    dry_run: bool = False,
    progress: ProgressSink | None = None,
    client: LLMClient | None = None,
    poll_interval_s: float = 30.0,
    max_wait_s: float = 24 * 3600.0,
    initial_concurrency: int | None = None,
    user_cache: bool = False,
    job: str = "judge",
) -> PassResult:
    """Judge every item (cache first, every verdict committed to `cache_path` at once) and
    return the rows; write no output file. Which items a benchmark judges is its own
    business (LoCoMo's category-5 exclusion is applied in `from_records`). What every
    benchmark's judge and `locoscore audit` share (`job` names the pass among the others
    on the same cache: "judge", "audit").

    A dry run only plans and estimates. A batch still pending after `max_wait_s` is named by
    `result.run.pending_batch`; rerun to collect it.
    """
    judge = settings.resolve()
    if dry_run:
        return _dry_run(items, judge, cache_path, user_cache=user_cache, batch=batch)
    shared = JudgeStore(user_cache_path()) if user_cache else None
    with JudgeStore(cache_path, shared=shared) as store:
        plan = plan_calls(items, judge, store)
        result = PassResult(judge, plan, estimate_plan(judge, plan, batch=batch))
        result.user_cache_hits = store.shared_hits
        if batch and plan.missing:
            runner = BatchRunner(
                judge,
                store,
                client=client,
                progress=progress,
                poll_interval_s=poll_interval_s,
                max_wait_s=max_wait_s,
                job=job,
            )
            result.run = await runner.run(plan)
        else:
            result.run = await run_plan(
                judge,
                plan,
                store,
                client=client,
                progress=progress,
                initial_concurrency=initial_concurrency,
                job=job,
            )
    return result


def _dry_run(
    items: list[JudgeItem],
    judge: ResolvedJudge,
    cache_path: Path,
    *,
    user_cache: bool,
    batch: bool,
) -> PassResult:
    """Plan against the caches that exist; write nothing (no cache file is created)."""
    shared_path = user_cache_path()
    shared = JudgeStore(shared_path) if user_cache and shared_path.exists() else None
    if not cache_path.exists():
        plan = plan_calls(items, judge, shared)
        if shared is not None:
            shared.close()
        hits = plan.cached if shared is not None else 0
        estimate = estimate_plan(judge, plan, batch=batch)
        return PassResult(judge, plan, estimate, user_cache_hits=hits)
    with JudgeStore(cache_path, shared=shared, copy_shared_hits=False) as store:
        plan = plan_calls(items, judge, store)
        estimate = estimate_plan(judge, plan, batch=batch)
        return PassResult(judge, plan, estimate, user_cache_hits=store.shared_hits)
