"""A BEAM results folder as a board row, read from its summary.json `judge` section.

The headline is the mean of the ten abilities (the paper's aggregate); the question-weighted
mean, with its interval, stands beside it. summary.json records no interval for the mean of
abilities, so the board shows none rather than inventing one. Per question, `beam_score` in
scores.jsonl (the mean over judge runs) feeds the paired test. Stored 0-1, shown x100.
"""

from __future__ import annotations

from pathlib import Path

from locoscore.results.board_row import (
    BoardMetric,
    BoardRow,
    cell,
    judged_folder,
    need,
    number,
    unjudged_row,
)
from locoscore.results.layout import SCORES

SCALE = 100.0


def board_row(directory: Path, ability_names: dict[str, str]) -> BoardRow:
    judged = judged_folder(directory)
    if judged is None:  # answered, not judged yet: a row without a metric
        return unjudged_row(directory)
    summary, judge, rows, ids = judged.summary, judged.judge, judged.rows, judged.ids
    answers = summary.get("answers") or {}
    failed = answers.get("failed") if isinstance(answers, dict) else None
    failed = failed if isinstance(failed, int) else None
    per_ability = need(judge, directory, "per_ability")
    by_type = {
        ability_names.get(key, key): cell(
            c.get("mean"), c.get("ci95"), c.get("n"), directory, f"judge.per_ability.{key}", SCALE
        )
        for key, c in per_ability.items()
    }
    scored = judge.get("scored")
    metrics = (
        BoardMetric(
            "beam_mean_of_abilities",
            "Mean of abilities",
            cell(
                need(judge, directory, "mean_of_abilities"),
                None,
                scored,
                directory,
                "judge.mean_of_abilities",
                SCALE,
            ),
            by_type,
        ),
        BoardMetric(
            "beam_question_weighted",
            "Question-weighted",
            cell(
                need(judge, directory, "question_weighted"),
                judge.get("question_weighted_ci95"),
                scored,
                directory,
                "judge.question_weighted",
                SCALE,
            ),
        ),
    )
    scores = {
        str(r["question_id"]): SCALE * value
        for r in rows
        if not r.get("beam_missing")
        and (value := number(r.get("beam_score"), directory / SCORES, "beam_score")) is not None
    }
    run_std = number(judge.get("run_std"), directory, "judge.run_std")
    return BoardRow(
        metrics,
        ids,
        int(scored) if isinstance(scored, int) else len(scores),
        failed,
        scores,
        str(need(judge, directory, "signature")),
        judge_run_std=None if run_std is None else SCALE * run_std,
        type_word="ability",
    )
