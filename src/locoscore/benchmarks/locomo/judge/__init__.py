"""LoCoMo's judge: the pass over prediction records joined to the dataset (`api`), its
per-question aggregation and outputs, and the judge audit over probe sets."""

from locoscore.benchmarks.locomo.judge.api import (
    JudgeResult,
    ajudge_answer_runs,
    judge_answer,
    judge_answer_multiple_runs,
    judge_pass,
)
from locoscore.generic.judge_runs import JudgeAggregation, aggregate_runs, sample_std

__all__ = [
    "JudgeAggregation",
    "JudgeResult",
    "aggregate_runs",
    "ajudge_answer_runs",
    "judge_answer",
    "judge_answer_multiple_runs",
    "judge_pass",
    "sample_std",
]
