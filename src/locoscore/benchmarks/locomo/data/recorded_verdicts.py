"""Recorded J: the verdicts another harness's judge wrote into a results file.

Kept apart from locoscore's own J and always labelled as recorded by the source harness.
Read from `llm_judgments` (memos format, one bool per run), `grade` (zep, one bool) or
`llm_score` (mem0 harness, 0/1). Per run: accuracy over the questions that have that run;
J = mean over runs of those accuracies (what the MemOS/EverMemOS metadata calls
`mean_accuracy`), ± the sample std over runs (n - 1); majority vote: a question counts as
correct when more than half of its recorded runs say so (a tie is not correct).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES, LOCOMO_COLUMN_ORDER
from locoscore.benchmarks.locomo.data.models import PredictionRecord

SOURCE_LABEL = "recorded by the source harness"
_FIELDS = ("llm_judgments", "grade", "llm_score")


def recorded_verdicts(record: PredictionRecord) -> tuple[str, list[bool | None]] | None:
    """(field, verdict per run) for a record that carries a recorded judge verdict."""
    for name in _FIELDS:
        value = record.recorded.get(name)
        if value is None:
            continue
        if isinstance(value, list):
            return name, [None if v is None else bool(v) for v in value]
        return name, [bool(value)]
    return None


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _cell(runs: Sequence[Sequence[bool | None]]) -> dict[str, Any]:
    """Percentages: per-run accuracy, their mean and sample std, and the majority vote."""
    as_scores = [[None if v is None else 100.0 * v for v in r] for r in runs]
    from locoscore.stats import run_level  # NumPy: only when a file recorded verdicts

    level = run_level(as_scores)
    majority = [sum(1 for v in r if v) * 2 > sum(1 for v in r if v is not None) for r in runs]
    return {
        "n": len(runs),
        "per_run_means": [_round(m) for m in level.per_run_means],
        "mean": _round(level.mean),
        "std": _round(level.std),
        "majority_vote": _round(100.0 * sum(majority) / len(runs)) if runs else None,
    }


def recorded_judge_summary(
    records: Sequence[PredictionRecord], metadata: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The `recorded_judge` section (0-100 scale), or None when no record carries a verdict."""
    found = [(r, v) for r in records if (v := recorded_verdicts(r)) is not None]
    if not found:
        return None
    metadata = metadata or {}
    by_category: dict[str, Any] = {}
    for cid in LOCOMO_COLUMN_ORDER:
        runs = [v for r, (_, v) in found if r.category == cid]
        if runs:
            by_category[str(cid)] = {"name": CATEGORY_NAMES[cid], **_cell(runs)}
    overall = _cell([v for _, (_, v) in found])
    return {
        "source": SOURCE_LABEL,
        "field": found[0][1][0],
        "judge_model": metadata.get("judge_model"),
        "runs": max(len(v) for _, (_, v) in found),
        "scale": "0-100 (% judged correct)",
        "std": "sample (n-1) over runs",
        "overall": overall,
        "by_category": by_category,
    }
