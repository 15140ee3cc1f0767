"""The seed's result-list API: `score_results_f1` -> `aggregate_f1_by_category` ->
`compute_overall_f1`, with hand-worked values."""

from __future__ import annotations

import pytest

import locoscore
from locoscore.benchmarks.locomo.data.models import PredictionRecord

RESULTS = [
    # locomo: {big, cat, sat} vs {cat, sat}: P = 2/3, R = 1 -> 0.8
    {"question": "q1", "ground_truth": "the cat sat", "predicted_answer": "the big cat sat",
     "category": "single-hop"},
    # aliases; int gold: "2022" vs 2022 -> 1.0
    {"question": "q2", "answer": 2022, "response": "2022", "category": 2},
    # category 1: gold parts red, blue; prediction "red" -> (1 + 0) / 2
    {"question": "q3", "answer": "red, blue", "prediction": "red", "category": "1"},
]  # fmt: skip


def test_each_record_gets_f1_and_the_protocol_signature() -> None:
    scored = locoscore.score_results_f1(RESULTS)
    assert [r["f1"] for r in scored] == [pytest.approx(0.8), 1.0, 0.5]
    assert {r["f1_protocol"] for r in scored} == {locoscore.get_protocol("locomo").signature}
    assert scored[0]["question"] == "q1" and "f1" not in RESULTS[0]  # copies, inputs untouched


def test_other_protocols_by_name() -> None:
    spec = locoscore.score_results_f1(RESULTS, protocol="spec")
    mem0 = locoscore.score_results_f1(RESULTS, protocol="mem0")
    # spec has no comma split: {red} vs {red, blue} -> P = 1, R = 1/2 -> 2/3
    assert [r["f1"] for r in spec] == [pytest.approx(0.8), 1.0, pytest.approx(2 / 3)]
    # mem0 keeps 'the': {the, big, cat, sat} vs {the, cat, sat}: P = 3/4, R = 1 -> 6/7
    assert [r["f1"] for r in mem0] == [pytest.approx(6 / 7), 1.0, pytest.approx(2 / 3)]


def test_prediction_records_are_accepted() -> None:
    record = PredictionRecord(
        question="q", answer="Lisbon", prediction="She moved to Lisbon", category=4
    )
    [scored] = locoscore.score_results_f1([record])
    # she / move / to / lisbon vs lisbon: P = 1/4, R = 1 -> 0.4
    assert scored["f1"] == pytest.approx(0.4)
    assert scored["category_name"] == "single-hop"


def test_aggregate_and_overall_of_scored_results() -> None:
    scored = locoscore.score_results_f1(RESULTS)
    by_category = locoscore.aggregate_f1_by_category(scored)
    assert by_category[2] == {"mean": 1.0, "count": 1, "min": 1.0, "max": 1.0}
    assert by_category["1"] == {"mean": 0.5, "count": 1, "min": 0.5, "max": 0.5}
    assert locoscore.compute_overall_f1(scored) == pytest.approx((0.8 + 1.0 + 0.5) / 3)


def test_overall_of_nothing_is_zero() -> None:
    assert locoscore.compute_overall_f1([]) == 0.0


def test_unknown_protocol_or_category_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'bleu4'"):
        locoscore.score_f1("a", "a", 4, protocol="bleu4")
    with pytest.raises(ValueError, match="unknown category"):
        locoscore.score_f1("a", "a", "trivia")
