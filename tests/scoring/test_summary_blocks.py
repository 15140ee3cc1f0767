"""summary.json blocks: per category, overall question-weighted and category-macro, with and
without category 5, each protocol's own convention; values worked out by hand."""

from __future__ import annotations

import pytest

from locoscore.benchmarks.locomo.scoring.aggregate import summarise_metric

# single-hop (4): 1.0, 0.0, 0.5 -> mean 0.5; multi-hop (1): 1.0; adversarial (5): 0.0, 0.0
ROWS = [
    {"category": 4, "f1_x": 1.0},
    {"category": 4, "f1_x": 0.0},
    {"category": 4, "f1_x": 0.5},
    {"category": 1, "f1_x": 1.0},
    {"category": 5, "f1_x": 0.0},
    {"category": 5, "f1_x": 0.0},
    {"category": 2, "f1_x": None},  # a metric not computed for a row is left out
]


def test_by_category_mean_count_min_max() -> None:
    block = summarise_metric(ROWS, "f1_x", includes_adversarial=True)
    assert block["by_category"] == {
        "1": {"name": "multi-hop", "mean": 1.0, "count": 1, "min": 1.0, "max": 1.0},
        "4": {"name": "single-hop", "mean": 0.5, "count": 3, "min": 0.0, "max": 1.0},
        "5": {"name": "adversarial", "mean": 0.0, "count": 2, "min": 0.0, "max": 0.0},
    }


def test_overall_with_category_5_question_weighted_and_macro() -> None:
    overall = summarise_metric(ROWS, "f1_x", includes_adversarial=True)["overall_all"]
    # (1 + 0 + 0.5 + 1 + 0 + 0) / 6 = 2.5/6; macro (0.5 + 1 + 0) / 3 = 0.5
    assert overall["question_weighted"] == pytest.approx(2.5 / 6)
    assert overall["category_macro"] == pytest.approx(0.5)
    assert overall["count"] == 6


def test_overall_without_category_5_question_weighted_and_macro() -> None:
    overall = summarise_metric(ROWS, "f1_x", includes_adversarial=True)["overall_no_adversarial"]
    # 2.5 / 4 = 0.625; macro (0.5 + 1) / 2 = 0.75
    assert overall["question_weighted"] == pytest.approx(0.625)
    assert overall["category_macro"] == pytest.approx(0.75)
    assert overall["count"] == 4


@pytest.mark.parametrize(
    ("includes_adversarial", "mean", "count"), [(True, 2.5 / 6, 6), (False, 0.625, 4)]
)
def test_overall_follows_the_protocols_convention(
    includes_adversarial: bool, mean: float, count: int
) -> None:
    overall = summarise_metric(ROWS, "f1_x", includes_adversarial=includes_adversarial)["overall"]
    assert overall["mean"] == pytest.approx(mean)
    assert (overall["count"], overall["includes_adversarial"]) == (count, includes_adversarial)


def test_only_adversarial_rows_give_no_overall_without_them() -> None:
    rows = [{"category": 5, "f1_x": 1.0}]
    block = summarise_metric(rows, "f1_x", includes_adversarial=False)
    assert block["overall_no_adversarial"] == {
        "question_weighted": None,
        "category_macro": None,
        "count": 0,
    }
    assert block["overall"] == {"mean": None, "count": 0, "includes_adversarial": False}
