"""Audit statistics by hand: acceptance per question and run, the paste-able summary line."""

from __future__ import annotations

from typing import Any

import pytest

from locoscore.generic.audit_stats import (
    acceptance_cell,
    placement,
    score_distribution,
    summary_line,
)


def test_acceptance_is_the_mean_over_questions_of_each_questions_accepted_share() -> None:
    runs = [[100.0, 0.0], [100.0, None], [0.0, 0.0], [None, None]]
    cell = acceptance_cell(runs, threshold=50)
    # per question: 0.5, 1.0 (one run failed, dropped), 0.0; the last has no verdict at all
    assert cell["n"] == 3
    assert cell["rate"] == pytest.approx(50.0)
    # run 1: 2 of 3 accepted; run 2: 0 of 2
    assert cell["run_level"]["per_run"] == [pytest.approx(66.6667), 0.0]
    assert cell["run_level"]["std"] == pytest.approx(47.1405, abs=1e-4)
    assert cell["ci95"]["low"] <= 50.0 <= cell["ci95"]["high"]


def test_rubric_threshold_and_histogram_bins() -> None:
    runs = [[49.0, 50.0], [100.0, 9.0], [90.0, 95.0]]
    assert acceptance_cell(runs, threshold=50)["rate"] == pytest.approx(100 * (0.5 + 0.5 + 1) / 3)
    distribution = score_distribution(runs)
    assert distribution["histogram"]["counts"] == [1, 0, 0, 0, 1, 1, 0, 0, 0, 3]
    assert distribution["mean_score"] == pytest.approx((49.5 + 54.5 + 92.5) / 3, abs=1e-4)


def _set(name: str, kind: str, expect: str | None, rate: float) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "expect": expect,
        "acceptance": {"overall": {"rate": rate}},
    }
    if expect == "accept":
        entry["false_reject_rate"] = 100 - rate
    elif expect == "reject":
        entry["false_accept_rate"] = rate
    return entry


def test_summary_line_names_the_vague_set_else_the_most_lenient_one() -> None:
    gold = _set("gold", "gold", "accept", 97.25)
    vague = _set("vague-but-topical", "probe", "reject", 12.0)
    specific = _set("specific-but-wrong", "probe", "reject", 30.0)
    assert summary_line([gold, specific, vague]) == (
        "this judge accepts 12.0 % of vague wrong answers and rejects 2.8 % of gold answers"
    )
    other = _set("paraphrased", "probe", "reject", 40.0)
    assert summary_line([gold, specific, other]) == (
        "this judge accepts 40.0 % of paraphrased answers and rejects 2.8 % of gold answers"
    )


def test_placement_puts_predictions_between_the_vague_floor_and_the_gold_ceiling() -> None:
    sets = [
        _set("gold", "gold", "accept", 99.0),
        _set("specific-but-wrong", "probe", "reject", 30.0),
        _set("vague-but-topical", "probe", "reject", 12.0),
        _set("predictions", "predictions", None, 61.0),
    ]
    assert placement(sets) == {
        "predictions": 61.0,
        "floor": {"set": "vague-but-topical", "rate": 12.0},
        "ceiling": 99.0,
    }
    assert placement(sets[:3]) is None
