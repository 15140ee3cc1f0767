"""J from runs: sample std (n-1) everywhere; unscored runs dropped; a warning under 5."""

from __future__ import annotations

import warnings

import pytest

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.benchmarks.locomo.judge import aggregate_runs, sample_std
from locoscore.generic.judge_runs import QuestionScores, summarise

SEED_RUNS = [70, 72, 68, 71, 73, 69, 70, 72, 71, 70]


def test_seed_runs_give_mean_70_6_and_sample_std_1_506() -> None:
    result = aggregate_runs(SEED_RUNS)
    assert result.mean_score == pytest.approx(70.6)
    # sum of squared deviations 20.4; / (10 - 1); sqrt
    assert result.std_dev == pytest.approx((20.4 / 9) ** 0.5)
    assert round(result.std_dev or 0, 3) == 1.506
    assert result.run_count == 10


def test_unscored_runs_are_dropped_not_counted_as_zero() -> None:
    with pytest.warns(UserWarning, match="2 of 7 judge runs failed"):
        result = aggregate_runs([80, -1, 60, None, 70, 90, 100])
    assert result.run_count == 5
    assert result.mean_score == pytest.approx(80.0)
    assert result.individual_scores == [80.0, 60.0, 70.0, 90.0, 100.0]


def test_fewer_than_five_successful_runs_warns() -> None:
    with pytest.warns(UserWarning, match="only 4 judge run"):
        aggregate_runs([50, 60, -1, -1, 70, 80])


def test_five_successful_runs_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aggregate_runs([50, 60, 70, 80, 90])


def test_std_of_one_value_is_none() -> None:
    assert sample_std([42.0]) is None


def test_summary_per_category_overall_and_run_level() -> None:
    questions = [
        QuestionScores("a", 1, [100.0, 0.0]),  # mean 50
        QuestionScores("b", 1, [100.0, 100.0]),  # mean 100
        QuestionScores("c", 2, [0.0, None]),  # mean 0 from one run
    ]
    summary = summarise(questions, runs=2, names=CATEGORY_NAMES)
    cat1 = summary["by_category"]["1"]
    assert (cat1["name"], cat1["mean"], cat1["count"]) == ("multi-hop", 75.0, 2)
    assert cat1["std"] == pytest.approx(35.3553, abs=1e-4)  # sd of (50, 100)
    assert summary["by_category"]["2"]["std"] is None
    assert summary["overall"]["mean"] == pytest.approx(50.0)  # mean of 50, 100, 0
    # run 0: (100 + 100 + 0) / 3; run 1: (0 + 100) / 2
    assert summary["run_level"]["per_run_means"] == [pytest.approx(66.6667), 50.0]
    assert summary["run_level"]["mean"] == pytest.approx(58.3333, abs=1e-4)


def test_question_fields_index_scores_by_run_and_count_failures() -> None:
    fields = QuestionScores("a", 4, [70.0, None, 80.0]).fields()
    assert fields == {
        "j_mean": 75.0,
        "j_std": pytest.approx(7.0711, abs=1e-4),
        "j_runs": 2,
        "j_scores": [70.0, None, 80.0],
        "j_failures": 1,
    }
