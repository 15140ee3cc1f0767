"""A judged folder's board row from declared parts (`generic.board_rows.judged_row`): each
figure read where the parts say, shown x its scale; the per-question scores of the rows the
paired test counts; a missing required field named whole; a folder not judged yet, a row
without a metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from locoscore.errors import InputError
from locoscore.generic.board_rows import (
    Figure,
    JudgedRowParts,
    SummaryMetric,
    TypeFigures,
    judged_row,
)

PARTS = JudgedRowParts(
    required=(("judge", "overall"), ("judge", "signature")),
    metrics=(
        SummaryMetric(
            "score",
            "Score",
            Figure(("judge", "overall"), "mean", count="n"),
            TypeFigures(
                ("judge", "by_type"),
                "mean",
                count="n",
                names={"a": "alpha"},
                extra=(("all-b", Figure(("judge", "across"), "mean", count="n")),),
            ),
            scale=100.0,
        ),
        SummaryMetric("other", "Other", Figure(("judge", "second"), "value", ci=None)),
    ),
    score_column="s",
    counted=lambda row: not row.get("skip"),
    answered=("judge", "scored"),
    failed=("answers", "failed"),
    run_std=("judge", "run_std"),
    type_word="kind",
)


def _folder(tmp_path: Path, summary: dict[str, Any], rows: list[dict[str, Any]]) -> Path:
    (tmp_path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    lines = "".join(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "scores.jsonl").write_text(lines, encoding="utf-8")
    return tmp_path


SUMMARY = {
    "judge": {
        "signature": "judge-sig",
        "overall": {"mean": 0.5, "ci95": [0.25, 0.75], "n": 3},
        "by_type": {"a": {"mean": 1.0, "ci95": [1.0, 1.0], "n": 1}, "b": {"mean": 0.0, "n": 2}},
        "across": {"mean": 0.25, "n": 2},
        "second": {"value": 40},
        "scored": 2,
        "run_std": 0.125,
    },
    "answers": {"failed": 1},
}
ROWS = [
    {"question_id": "q1", "s": 1.0},
    {"question_id": "q2", "s": 0.5},
    {"question_id": "q3", "s": 0.0, "skip": True},
]


def test_every_figure_is_read_where_declared_and_shown_at_its_scale(tmp_path: Path) -> None:
    row = judged_row(_folder(tmp_path, SUMMARY, ROWS), PARTS)
    score, other = row.metrics
    assert (score.key, score.label) == ("score", "Score")
    assert (score.overall.mean, score.overall.low, score.overall.high) == (50.0, 25.0, 75.0)
    assert score.overall.n == 3
    assert list(score.by_type) == ["alpha", "b", "all-b"]
    assert score.by_type["alpha"].mean == 100.0 and score.by_type["b"].low is None
    assert score.by_type["all-b"].mean == 25.0 and score.by_type["all-b"].n == 2
    assert other.overall.mean == 40.0 and other.by_type == {}
    assert row.question_ids == ("q1", "q2", "q3")
    assert row.scores == {"q1": 100.0, "q2": 50.0}  # q3 is not counted
    assert (row.answered, row.failed, row.judge_signature) == (2, 1, "judge-sig")
    assert row.judge_run_std == 12.5 and row.type_word == "kind"


def test_a_missing_required_field_is_named_whole(tmp_path: Path) -> None:
    summary = json.loads(json.dumps(SUMMARY))
    del summary["judge"]["overall"]
    with pytest.raises(InputError, match=r"judge\.overall"):
        judged_row(_folder(tmp_path, summary, ROWS), PARTS)


def test_a_folder_not_judged_yet_gives_a_row_without_a_metric(tmp_path: Path) -> None:
    rows = [{"question_id": "q1"}, {"question_id": "q2", "error": "timeout"}]
    row = judged_row(_folder(tmp_path, {"answers": {"failed": 1}}, rows), PARTS)
    assert row.metrics == () and row.scores == {}
    assert (row.answered, row.failed) == (1, 1)
