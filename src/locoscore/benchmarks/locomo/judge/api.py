"""The judge's public calls on LoCoMo's records: a whole pass over an output folder, and the
seed's API. The records become neutral judge items here, at the edge (`from_records`); the
engine (`engine.run_pass`, re-exported) never sees them.

`judge_pass` is what `locoscore judge` and scripts/score_prototype.py both run; the seed's
`judge_answer` / `judge_answer_multiple_runs` are the same engine on one question.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.categories import (
    CATEGORY_GUIDANCE,
    CATEGORY_NAMES,
    parse_category,
)
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.judge.from_records import judge_items, judged_records, record_item
from locoscore.data.sample import QuestionSample
from locoscore.generic.item_runs import JudgeResult, judge_item_runs
from locoscore.generic.judge_runs import JudgeAggregation, aggregate_runs
from locoscore.generic.judged_records import judge_records
from locoscore.judge.cache import JudgeStore
from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.prompts import builtin_template
from locoscore.judge.settings import JudgeSettings

__all__ = [
    "JudgeResult",
    "PassResult",
    "ajudge_answer_runs",
    "build_judge_prompt",
    "judge_answer",
    "judge_answer_multiple_runs",
    "judge_pass",
    "run_pass",
]


async def judge_pass(
    records: list[PredictionRecord],
    settings: JudgeSettings,
    out_dir: Path,
    *,
    input_info: dict[str, Any] | None = None,
    sample: QuestionSample | None = None,
    **options: Any,
) -> PassResult:
    """Judge every record LoCoMo judges (category 5 only with the settings'
    `include_adversarial`; with `sample`, only its questions) through
    the shared records pass (`generic.judged_records.judge_records`, whose `options` these
    are), writing judgments, scores and summary to out_dir."""
    judged = judged_records(records, settings.include_adversarial)
    if sample is not None:
        judged = sample.keep(judged, lambda r: r.key)
    return await judge_records(
        records,
        judged,
        judge_items(judged),
        settings,
        out_dir,
        CATEGORY_NAMES,
        input_info=input_info,
        sample=sample,
        **options,
    )


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
    record = _one_question(question, ground_truth, predicted_answer, category)
    return await judge_item_runs(record_item(record), settings, store)


def build_judge_prompt(
    question: str,
    ground_truth: str | int,
    predicted_answer: str,
    category: int | str,
    *,
    protocol: str = "rubric",
) -> str:
    """The seed's API: the built-in prompt for one question (rubric by default)."""
    cid = parse_category(category)
    return builtin_template(protocol).render(
        question,
        str(ground_truth),
        predicted_answer,
        cid,
        type_name=CATEGORY_NAMES[cid],
        guidance=CATEGORY_GUIDANCE.get(cid, ""),
    )


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
