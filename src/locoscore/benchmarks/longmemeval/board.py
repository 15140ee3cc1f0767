"""A LongMemEval results folder as a board row, read from its summary.json `judge` section.

The headline is overall J with missing answers counted as wrong (what the official script
does to a hypothesis file that skips questions); beside it the task-averaged figure and J
over the submitted answers only. Per question, `j` in scores.jsonl (the mean over judge
runs) feeds the paired test on the questions both folders answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore.results.board_row import (
    BoardCell,
    BoardMetric,
    BoardRow,
    cell,
    judged_folder,
    need,
    number,
    unjudged_row,
)
from locoscore.results.layout import SCORES


def _block(block: dict[str, Any], directory: Path, name: str) -> BoardCell:
    return cell(block.get("accuracy"), block.get("ci95"), block.get("count"), directory, name)


def _by_type(summary: dict[str, Any], directory: Path, name: str) -> dict[str, BoardCell]:
    """The six types, then abstention (the `_abs` questions across them)."""
    block = need(summary, directory, "judge", name)
    types = need(summary, directory, "judge", name, "by_type")
    cells = {t: _block(c, directory, f"judge.{name}.by_type.{t}") for t, c in types.items()}
    if isinstance(block.get("abstention"), dict):
        cells["abstention"] = _block(block["abstention"], directory, f"judge.{name}.abstention")
    return cells


def board_row(directory: Path) -> BoardRow:
    judged = judged_folder(directory)
    if judged is None:  # answered, not judged yet: a row without a metric
        return unjudged_row(directory)
    summary, judge, rows, ids = judged.summary, judged.judge, judged.rows, judged.ids
    strict = need(summary, directory, "judge", "missing_counts_as_wrong")
    submitted = need(summary, directory, "judge", "over_submitted")
    metrics = (
        BoardMetric(
            "lme_j_missing_wrong",
            "J, missing = wrong",
            _block(need(strict, directory, "overall"), directory, "judge.missing_counts_as_wrong"),
            _by_type(summary, directory, "missing_counts_as_wrong"),
        ),
        BoardMetric(
            "lme_j_task_averaged",
            "J task-averaged, missing = wrong",
            _block(strict.get("task_averaged") or {}, directory, "task_averaged"),
        ),
        BoardMetric(
            "lme_j_over_submitted",
            "J over submitted",
            _block(submitted.get("overall") or {}, directory, "judge.over_submitted.overall"),
        ),
    )
    scores = {
        str(r["question_id"]): 100 * value
        for r in rows
        if r.get("submitted", True)
        and (value := number(r.get("j"), directory / SCORES, "j")) is not None
    }
    return BoardRow(
        metrics,
        ids,
        int(need(judge, directory, "submitted")),
        judge.get("failed_answers") if isinstance(judge.get("failed_answers"), int) else None,
        scores,
        str(need(judge, directory, "signature")),
    )
