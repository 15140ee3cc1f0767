"""A LongMemEval results folder's board row, declared for `generic.board_rows`: read from
its summary.json `judge` section.

The headline is overall J with missing answers counted as wrong (what the official script
does to a hypothesis file that skips questions); beside it the task-averaged figure and J
over the submitted answers only; per type, the six types, then abstention (the `_abs`
questions across them). Per question, `j` in scores.jsonl (the mean over judge runs) feeds
the paired test on the questions both folders answered.
"""

from __future__ import annotations

from locoscore.generic.board_rows import Figure, JudgedRowParts, SummaryMetric, TypeFigures

_STRICT = ("judge", "missing_counts_as_wrong")
_SUBMITTED = ("judge", "over_submitted")

ROW_PARTS = JudgedRowParts(
    required=(
        _STRICT,
        _SUBMITTED,
        (*_STRICT, "overall"),
        (*_STRICT, "by_type"),
        ("judge", "submitted"),
        ("judge", "signature"),
    ),
    metrics=(
        SummaryMetric(
            "lme_j_missing_wrong",
            "J, missing = wrong",
            Figure((*_STRICT, "overall"), "accuracy", count="count", name=".".join(_STRICT)),
            TypeFigures(
                (*_STRICT, "by_type"),
                "accuracy",
                extra=(
                    ("abstention", Figure((*_STRICT, "abstention"), "accuracy", count="count")),
                ),
            ),
        ),
        SummaryMetric(
            "lme_j_task_averaged",
            "J task-averaged, missing = wrong",
            Figure((*_STRICT, "task_averaged"), "accuracy", count="count", name="task_averaged"),
        ),
        SummaryMetric(
            "lme_j_over_submitted",
            "J over submitted",
            Figure((*_SUBMITTED, "overall"), "accuracy", count="count"),
        ),
    ),
    score_column="j",
    counted=lambda row: bool(row.get("submitted", True)),
    answered=("judge", "submitted"),
    failed=("judge", "failed_answers"),
)
