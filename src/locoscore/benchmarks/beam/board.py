"""A BEAM results folder's board row, declared for `generic.board_rows`: read from its
summary.json `judge` section.

The headline is the mean of the ten abilities (the paper's aggregate); the question-weighted
mean, with its interval, stands beside it. summary.json records no interval for the mean of
abilities, so the board shows none rather than inventing one. Per question, `beam_score` in
scores.jsonl (the mean over judge runs) feeds the paired test. Stored 0-1, shown x100.
"""

from __future__ import annotations

from collections.abc import Mapping

from locoscore.generic.board_rows import Figure, JudgedRowParts, SummaryMetric, TypeFigures

SCALE = 100.0


def row_parts(ability_names: Mapping[str, str]) -> JudgedRowParts:
    return JudgedRowParts(
        required=(
            ("judge", "per_ability"),
            ("judge", "mean_of_abilities"),
            ("judge", "question_weighted"),
            ("judge", "signature"),
        ),
        metrics=(
            SummaryMetric(
                "beam_mean_of_abilities",
                "Mean of abilities",
                Figure(("judge",), "mean_of_abilities", None, "scored", "judge.mean_of_abilities"),
                TypeFigures(("judge", "per_ability"), "mean", count="n", names=ability_names),
                scale=SCALE,
            ),
            SummaryMetric(
                "beam_question_weighted",
                "Question-weighted",
                Figure(
                    ("judge",),
                    "question_weighted",
                    "question_weighted_ci95",
                    "scored",
                    "judge.question_weighted",
                ),
                scale=SCALE,
            ),
        ),
        score_column="beam_score",
        counted=lambda row: not row.get("beam_missing"),
        answered=("judge", "scored"),
        failed=("answers", "failed"),
        run_std=("judge", "run_std"),
        score_scale=SCALE,
        type_word="ability",
    )
