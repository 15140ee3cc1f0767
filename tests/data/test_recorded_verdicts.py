"""Recorded J: the verdicts a source harness wrote, summarised per run and by majority."""

from __future__ import annotations

from pathlib import Path

import pytest

from locoscore.benchmarks.locomo.data.load import load_predictions
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.recorded_verdicts import recorded_judge_summary


def _record(category: int, runs: list[bool | None]) -> PredictionRecord:
    return PredictionRecord(
        category=category, question="Q?", answer="a", prediction="b",
        recorded={"llm_judgments": runs},
    )  # fmt: skip


def test_per_run_mean_sample_std_and_majority_by_hand() -> None:
    records = [
        _record(4, [True, True, False]),  # majority yes
        _record(4, [False, True, False]),  # majority no
        _record(1, [True, None, False]),  # 1 of 2 answered runs: a tie is not correct
        _record(1, [True, True, True]),
    ]
    summary = recorded_judge_summary(records, {"judge_model": "m"})
    assert summary is not None
    overall = summary["overall"]
    # run 1: 3/4, run 2: 3/3 (one run missing), run 3: 1/4
    assert overall["per_run_means"] == [75.0, 100.0, 25.0]
    assert overall["mean"] == pytest.approx(66.6667, abs=1e-4)
    assert overall["std"] == pytest.approx(38.1881, abs=1e-4)  # sample std of 75, 100, 25
    assert overall["majority_vote"] == 50.0
    assert summary["by_category"]["1"]["majority_vote"] == 50.0
    assert summary["judge_model"] == "m" and summary["runs"] == 3
    assert summary["source"] == "recorded by the source harness"


def test_no_recorded_verdict_means_no_section() -> None:
    plain = PredictionRecord(category=4, question="Q?", answer="a", prediction="b")
    assert recorded_judge_summary([plain]) is None


@pytest.mark.parametrize(
    ("file", "field", "mean"),
    [
        ("zep_locomo_grades.json", "grade", 75.13),
        ("memobase_eval_0710_3000.json", "llm_score", 75.78),
    ],
)
def test_single_run_verdicts_of_zep_and_mem0_files(
    peers_dir: Path, locomo_path: Path, file: str, field: str, mean: float
) -> None:
    loaded = load_predictions(peers_dir / file, dataset=locomo_path)
    recorded = loaded.provenance()["input"]["recorded_judge"]
    assert recorded["field"] == field and recorded["runs"] == 1
    assert round(recorded["overall"]["mean"], 2) == mean
    assert recorded["overall"]["std"] is None  # one run has no spread
