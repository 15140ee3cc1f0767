"""BEAM scoring: rubric means (0.5 kept, or truncated as the official code does), Kendall
τ-b over the aligned event order, and the two overall aggregations. Values computed by hand."""

from __future__ import annotations

import math

import pytest

from locoscore.benchmarks.beam_scoring import (
    aggregate_abilities,
    align_events,
    event_order_score,
    kendall_tau_b,
    per_conversation_mean,
    response_items,
    rubric_score,
)


def test_rubric_score_keeps_half_points_and_official_truncates_them() -> None:
    assert rubric_score([1, 0.5, 0]) == pytest.approx(0.5)
    assert rubric_score([1, 0.5, 0], official=True) == pytest.approx(1 / 3)
    assert rubric_score([0.5, 0.5], official=True) == 0.0
    with pytest.raises(ValueError):
        rubric_score([])


def test_tau_b_without_ties() -> None:
    # pairs (1,2) concordant, (1,3) concordant, (2,3) discordant: (2 - 1) / 3
    assert kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_tau_b_corrects_for_ties() -> None:
    # 6 pairs: one tied in y, five concordant: 5 / sqrt(6 * 5)
    assert kendall_tau_b([1, 2, 3, 4], [1, 2, 2, 3]) == pytest.approx(5 / math.sqrt(30))


def test_tau_b_undefined_for_a_constant_ranking() -> None:
    assert kendall_tau_b([1, 2], [3, 3]) is None
    assert kendall_tau_b([1], [1]) is None


def _matcher(reference: list[str], items: list[str]):
    """A deterministic stand-in for the judged match: the item names the event's letter."""
    return lambda r, i: items[i].split()[-1].upper() == reference[r]


def test_event_order_swapped_pair() -> None:
    reference = ["A", "B", "C"]
    items = ["1) about b", "2) about a", "3) about c"]
    canonical = align_events(reference, items, _matcher(reference, items))
    assert canonical == ["B", "A", "C"]
    score = event_order_score(reference, canonical)
    # ranks (1,2,3) against (2,1,3): 2 concordant, 1 discordant -> tau 1/3 -> norm 2/3
    assert score.tau_norm == pytest.approx(2 / 3)
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)


def test_event_order_unmatched_items_tie_last() -> None:
    reference = ["A", "B", "C"]
    canonical = align_events(reference, ["saw a", "x"], lambda r, i: (r, i) == (0, 0))
    assert canonical == ["A", "x"]
    score = event_order_score(reference, canonical)
    # union A,B,C,x; reference ranks 1,2,3,5; response ranks 1,5,5,2:
    # 3 concordant, 2 discordant, 1 tie in the response -> 1 / sqrt(6 * 5)
    assert score.tau_norm == pytest.approx((1 / math.sqrt(30) + 1) / 2)
    assert score.precision == pytest.approx(0.5)
    assert score.recall == pytest.approx(1 / 3)
    assert score.f1 == pytest.approx(0.4)
    assert score.matched == 1


def test_a_reference_item_is_used_once() -> None:
    reference = ["A", "B"]
    canonical = align_events(reference, ["a", "a again"], lambda r, i: r == 0)
    assert canonical == ["A", "a again"]


def test_blank_lines_are_items_only_in_the_official_split() -> None:
    text = "1) a\n\n2) b\n"
    assert response_items(text, keep_blank_lines=True) == ["1) a", "", "2) b", ""]
    assert response_items(text, keep_blank_lines=False) == ["1) a", "2) b"]


def test_aggregations_differ_when_abilities_are_unbalanced() -> None:
    scores = [("abstention", 1.0), ("abstention", 1.0), ("abstention", 1.0), ("summarization", 0.0)]
    agg = aggregate_abilities(scores, ["abstention", "summarization", "event_ordering"])
    assert agg.per_ability == {"abstention": 1.0, "summarization": 0.0}
    assert agg.counts == {"abstention": 3, "summarization": 1, "event_ordering": 0}
    assert agg.mean_of_abilities == pytest.approx(0.5)
    assert agg.question_weighted == pytest.approx(0.75)


def test_official_aggregation_is_per_conversation_then_mean() -> None:
    per = per_conversation_mean(
        {"1": [("abstention", 1.0), ("abstention", 0.0)], "2": [("abstention", 1.0)]},
        ["abstention"],
    )
    assert per == {"abstention": pytest.approx(0.75)}
