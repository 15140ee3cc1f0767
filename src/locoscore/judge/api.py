"""The judge's public calls: a whole pass over an output folder, and the seed's API.

`judge_pass` is what `locoscore judge` and scripts/score_prototype.py both run; the seed's
`judge_answer` / `judge_answer_multiple_runs` are the same engine on one question.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.categories import parse_category
from locoscore.data.models import PredictionRecord
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.judge.aggregate import JudgeAggregation, aggregate_runs
from locoscore.judge.batch import BatchRunner
from locoscore.judge.cache import JudgeStore, user_cache_path
from locoscore.judge.from_records import judge_items, judged_records, record_item
from locoscore.judge.items import JudgeItem
from locoscore.judge.outputs import CACHE_FILE, write_outputs
from locoscore.judge.plan import CallPlan, plan_calls, render_prompt
from locoscore.judge.runner import JudgeRun, ProgressSink, run_plan
from locoscore.judge.settings import JudgeSettings, ResolvedJudge
from locoscore.llm.cost import Estimate, estimate_calls
from locoscore.llm.providers import LLMClient


@dataclass(frozen=True)
class JudgeResult:
    """One judge run: score 0-100, or -1 with the reason in `explanation`."""

    score: float
    explanation: str


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


def judge_sample(
    records: list[PredictionRecord], spec: SampleSpec, include_adversarial: bool
) -> QuestionSample:
    """`--limit`: a sample of the questions the judge would judge (category 5 only with
    `include_adversarial`), stratified by category."""
    judged = judged_records(records, include_adversarial)
    return spec.draw(judged, item_id=lambda r: r.key, stratum=lambda r: r.category)


async def judge_pass(
    records: list[PredictionRecord],
    settings: JudgeSettings,
    out_dir: Path,
    *,
    batch: bool = False,
    dry_run: bool = False,
    progress: ProgressSink | None = None,
    client: LLMClient | None = None,
    poll_interval_s: float = 30.0,
    max_wait_s: float = 24 * 3600.0,
    initial_concurrency: int | None = None,
    input_info: dict[str, Any] | None = None,
    user_cache: bool = False,
    sample: QuestionSample | None = None,
) -> PassResult:
    """Judge every record (cache first) and write judgments, scores and summary to out_dir.

    A dry run only plans and estimates. A batch still pending after `max_wait_s` leaves
    the outputs untouched (`result.run.pending_batch` names it); rerun to collect it.
    With `user_cache`, the user-level cache (`cache.user_cache_path()`) backs the folder's.
    With `sample` (see `judge_sample`), only its questions are judged; the summary says so.
    """
    judged = judged_records(records, settings.include_adversarial)
    if sample is not None:
        judged = sample.keep(judged, lambda r: r.key)
    result = await run_pass(
        judge_items(judged),
        settings,
        out_dir / CACHE_FILE,
        batch=batch,
        dry_run=dry_run,
        progress=progress,
        client=client,
        poll_interval_s=poll_interval_s,
        max_wait_s=max_wait_s,
        initial_concurrency=initial_concurrency,
        user_cache=user_cache,
    )
    if result.run is not None and result.run.pending_batch is None:
        result.summary = write_outputs(
            out_dir,
            result.judge,
            records,
            judged,
            result.run,
            input_info=input_info,
            sample=sample,
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


# ------------------------------------------------------------------ the seed's API


def _one_question(
    question: str,
    ground_truth: str | int,
    predicted_answer: str,
    category: int | str,
) -> PredictionRecord:
    return PredictionRecord(
        category=parse_category(category),
        question=question,
        answer=ground_truth,
        prediction=predicted_answer,
        source="api",
    )


async def ajudge_answer_runs(
    question: str,
    ground_truth: str | int,
    predicted_answer: str,
    category: int | str,
    *,
    num_runs: int,
    settings: JudgeSettings | None = None,
    store: JudgeStore | None = None,
) -> list[JudgeResult]:
    base = settings or JudgeSettings()
    settings = dataclasses.replace(base, runs=num_runs, include_adversarial=True)
    judge = settings.resolve()
    record = _one_question(question, ground_truth, predicted_answer, category)
    plan = plan_calls([record_item(record)], judge, store)
    run = await run_plan(judge, plan, store)
    results = [JudgeResult(-1.0, "no result") for _ in range(num_runs)]
    for row in run.rows:
        if row.score is None:
            results[row.run] = JudgeResult(-1.0, row.error or "unscored")
        else:
            results[row.run] = JudgeResult(row.score, row.explanation)
    return results


def judge_answer(
    question: str,
    ground_truth: str | int,
    predicted_answer: str,
    category: int | str,
    *,
    settings: JudgeSettings | None = None,
) -> JudgeResult:
    """One judge run (the seed's API). Score -1 when no verdict could be read.
    Runs its own event loop; from async code await `ajudge_answer_runs` instead."""
    runs = asyncio.run(
        ajudge_answer_runs(
            question, ground_truth, predicted_answer, category, num_runs=1, settings=settings
        )
    )
    return runs[0]


def judge_answer_multiple_runs(
    question: str,
    ground_truth: str | int,
    predicted_answer: str,
    category: int | str,
    num_runs: int = 10,
    *,
    settings: JudgeSettings | None = None,
) -> JudgeAggregation:
    """N independent runs; -1 runs dropped; sample std (n-1); a warning under 5 runs."""
    runs = asyncio.run(
        ajudge_answer_runs(
            question,
            ground_truth,
            predicted_answer,
            category,
            num_runs=num_runs,
            settings=settings,
        )
    )
    return aggregate_runs([r.score for r in runs], label=question[:60])
