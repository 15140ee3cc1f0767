"""From per-run scores to J: per question, per category, overall, and run to run.

One standard deviation everywhere: the sample std (n - 1 in the denominator), None when
fewer than two values exist. Unscored runs (-1 or None) are dropped, never counted as 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from locoscore.summation import ordered_mean

MIN_RUNS_WITHOUT_WARNING = 5


def mean(values: Sequence[float]) -> float | None:
    return ordered_mean(values) if values else None


def sample_std(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1); None for fewer than two values."""
    if len(values) < 2:
        return None
    centre = ordered_mean(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / (len(values) - 1))


@dataclass(frozen=True)
class JudgeAggregation:
    """The seed's aggregate of N judge runs of one question."""

    mean_score: float | None
    std_dev: float | None
    run_count: int
    individual_scores: list[float] = field(default_factory=list)


def aggregate_runs(scores: Iterable[float | None], *, label: str = "") -> JudgeAggregation:
    """Drop unscored runs; mean and sample std of the rest. Warns when runs were dropped,
    and more strongly under five successful runs."""
    given = list(scores)
    used = [float(s) for s in given if s is not None and s >= 0]
    where = f" for {label}" if label else ""
    if MIN_RUNS_WITHOUT_WARNING <= len(used) < len(given):
        warnings.warn(
            f"{len(given) - len(used)} of {len(given)} judge runs failed{where} and were "
            f"dropped; J uses the {len(used)} that succeeded",
            stacklevel=2,
        )
    if len(used) < MIN_RUNS_WITHOUT_WARNING:
        warnings.warn(
            f"only {len(used)} judge run(s) succeeded{where}; "
            f"J from fewer than {MIN_RUNS_WITHOUT_WARNING} runs is noisy",
            stacklevel=2,
        )
    return JudgeAggregation(mean(used), sample_std(used), len(used), used)


@dataclass(frozen=True)
class QuestionScores:
    """One question's runs: `scores[i]` is run i's score, None where it failed."""

    key: str
    category: int
    scores: list[float | None]

    @property
    def used(self) -> list[float]:
        return [s for s in self.scores if s is not None]

    def fields(self) -> dict[str, Any]:
        used = self.used
        return {
            "j_mean": _round(mean(used)),
            "j_std": _round(sample_std(used)),
            "j_runs": len(used),
            "j_scores": self.scores,
            "j_failures": len(self.scores) - len(used),
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _stats(values: list[float]) -> dict[str, Any]:
    return {"mean": _round(mean(values)), "std": _round(sample_std(values)), "count": len(values)}


def summarise(
    questions: list[QuestionScores], runs: int, names: Mapping[int, str]
) -> dict[str, Any]:
    """Per category (named by `names`) and overall: mean and sample std of per-question J;
    run-level J ± std."""
    per_question = [(q.category, mean(q.used)) for q in questions]
    by_category: dict[str, Any] = {}
    for category in sorted({c for c, _ in per_question}):
        values = [m for c, m in per_question if c == category and m is not None]
        by_category[str(category)] = {"name": names.get(category, str(category))}
        by_category[str(category)].update(_stats(values))
    overall = _stats([m for _, m in per_question if m is not None])
    per_run: list[float | None] = []
    for run in range(runs):
        run_scores = [q.scores[run] for q in questions if run < len(q.scores)]
        per_run.append(_round(mean([v for v in run_scores if v is not None])))
    run_means = [m for m in per_run if m is not None]
    return {
        "by_category": by_category,
        "overall": overall,
        "run_level": {
            "per_run_means": per_run,
            "mean": _round(mean(run_means)),
            "std": _round(sample_std(run_means)),
        },
    }


def run_counts(questions: list[QuestionScores], runs: int) -> dict[str, int]:
    """Questions with a failed run, and those under the runs J needs to be steady."""
    floor = min(MIN_RUNS_WITHOUT_WARNING, runs)
    return {
        "questions_with_failed_runs": sum(1 for q in questions if len(q.used) < runs),
        "questions_under_min_runs": sum(1 for q in questions if len(q.used) < floor),
    }
