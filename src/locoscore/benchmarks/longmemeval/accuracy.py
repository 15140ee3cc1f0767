"""LongMemEval's QA aggregation: per type (an `_abs` question stays in its base type),
task-averaged (the mean of the six type accuracies), overall and abstention accuracy, each
with a 95 % percentile-bootstrap interval over questions (task-averaged resamples within
each type).

The headline counts a missing or failed answer as wrong over every question of the file;
beside it stands the official figure, over the submitted answers only, and the count of
missing. A question whose every judge run failed is left out of both and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES, QuestionMeta
from locoscore.stats import bootstrap_mean_ci, bootstrap_means

RESAMPLES = 2000


def _cell(values: Sequence[float], seed: int = 0) -> dict[str, Any]:
    if not values:
        return {"count": 0, "accuracy": None, "ci95": None}
    ci = bootstrap_mean_ci(values, resamples=RESAMPLES, seed=seed)
    return {
        "count": len(values),
        "accuracy": round(100 * ci.estimate, 4),
        "ci95": [round(100 * ci.low, 4), round(100 * ci.high, 4)],
    }


def _task_averaged(by_type: Mapping[str, list[float]]) -> dict[str, Any]:
    present = [v for v in by_type.values() if v]
    if not present:
        return {"accuracy": None, "ci95": None, "types": 0}
    mean = float(np.mean([np.mean(v) for v in present]))
    draws = np.mean([bootstrap_means(v, RESAMPLES, seed=i) for i, v in enumerate(present)], axis=0)
    low, high = np.quantile(draws, [0.025, 0.975])
    return {
        "accuracy": round(100 * mean, 4),
        "ci95": [round(100 * float(low), 4), round(100 * float(high), 4)],
        "types": len(present),
    }


def _figures(metas: Sequence[QuestionMeta], scores: Mapping[str, float]) -> dict[str, Any]:
    by_type: dict[str, list[float]] = {t: [] for t in QUESTION_TYPES}
    for meta in metas:
        by_type[meta.question_type].append(scores[meta.question_id])
    every = [scores[m.question_id] for m in metas]
    return {
        "by_type": {t: _cell(v) for t, v in by_type.items()},
        "task_averaged": _task_averaged(by_type),
        "overall": _cell(every),
        "abstention": _cell([scores[m.question_id] for m in metas if m.abstention]),
    }


def accuracy(
    metas: Sequence[QuestionMeta],
    question_scores: Mapping[str, float | None],
) -> dict[str, Any]:
    """`question_scores`: a submitted question's score in 0..1 (mean of its judge runs; None
    when every run failed). Questions of `metas` absent from it were not submitted."""
    unjudged = [
        m.question_id
        for m in metas
        if m.question_id in question_scores and question_scores[m.question_id] is None
    ]
    scope = [m for m in metas if m.question_id not in unjudged]
    strict = {m.question_id: question_scores.get(m.question_id) or 0.0 for m in scope}
    submitted = [m for m in scope if m.question_id in question_scores]
    over_submitted = {
        m.question_id: float(question_scores[m.question_id] or 0.0) for m in submitted
    }
    return {
        "questions": len(metas),
        "submitted": len(submitted) + len(unjudged),
        "missing": len(metas) - len(submitted) - len(unjudged),
        "unjudged": len(unjudged),
        "missing_counts_as_wrong": _figures(scope, strict),
        "over_submitted": _figures(submitted, over_submitted),
    }


def score_lines(
    metas: Sequence[QuestionMeta], question_scores: Mapping[str, float | None]
) -> list[dict[str, Any]]:
    """scores.jsonl: one line per question of the file, with its J (None: missing, or
    every run failed) and whether it was submitted."""
    return [
        {
            "question_id": m.question_id,
            "question_type": m.question_type,
            "abstention": m.abstention,
            "submitted": m.question_id in question_scores,
            "j": question_scores.get(m.question_id),
        }
        for m in metas
    ]
