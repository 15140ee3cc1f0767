"""BEAM scoring: rubric means (0.5 kept, or truncated as the official code does), Kendall
τ-b over the aligned event order, and the two overall aggregations. Values computed by hand."""

from __future__ import annotations

import math

import pytest

from locoscore.benchmarks.beam.scoring import (
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


# --- the rubric judge's calls and a question's score from its verdicts -------------------

from locoscore.benchmarks.beam.judge import (  # noqa: E402
    count_calls,
    question_calls,
    score_question,
)

RUBRIC = ["Core functionality", "Transaction error handling", "Security and deployment"]
ORDERED = "1) Security and deployment\n\n2) Core functionality\n3) Transaction error handling"


def test_one_call_per_rubric_item_and_the_question_shown_only_in_beam() -> None:
    calls = question_calls("1:x:0", "Q?", RUBRIC, "reply", ordering=False, official=False)
    assert [(c.kind, c.index, c.reference) for c in calls] == [
        ("item", 0, RUBRIC[0]),
        ("item", 1, RUBRIC[1]),
        ("item", 2, RUBRIC[2]),
    ]
    assert {c.question for c in calls} == {"Q?"}
    official = question_calls("1:x:0", "Q?", RUBRIC, "reply", ordering=False, official=True)
    assert {c.question for c in official} == {""}


def test_event_ordering_asks_every_line_item_pair() -> None:
    beam = question_calls("q", "Q?", RUBRIC, ORDERED, ordering=True, official=False)
    official = question_calls("q", "Q?", RUBRIC, ORDERED, ordering=True, official=True)
    assert sum(c.kind == "match" for c in beam) == 3 * 3  # three non-blank lines
    assert sum(c.kind == "match" for c in official) == 4 * 3  # the blank line is an item
    questions = [(RUBRIC, ORDERED, True), (RUBRIC[:2], "anything", False)]
    assert count_calls(questions, 3, official=False) == (3 + 9 + 2) * 3
    assert count_calls(questions, 1, official=True) == 3 + 12 + 2


def test_question_score_keeps_or_truncates_half_points() -> None:
    grades = {0: 100.0, 1: 50.0, 2: 0.0}
    beam = score_question(RUBRIC, "r", grades, None, official=False)
    assert beam.score == pytest.approx(0.5)
    official = score_question(RUBRIC, "r", grades, None, official=True)
    assert official.score == pytest.approx(1 / 3)
    missing = score_question(RUBRIC, "r", {0: 100.0, 1: 100.0}, None, official=False)
    assert missing.score is None and missing.items_scored == 2


def test_event_ordering_score_from_pair_verdicts() -> None:
    lines = [line for line in ORDERED.split("\n") if line.strip()]
    # the deterministic judge: a line matches the item whose words it carries
    matches = {li * 3 + ri: RUBRIC[ri] in line for li, line in enumerate(lines) for ri in range(3)}
    result = score_question(
        RUBRIC, ORDERED, {0: 100.0, 1: 100.0, 2: 100.0}, matches, official=False
    )
    # reference order (1,2,3) against the reply's (2,3,1): 1 concordant, 2 discordant
    assert result.score == pytest.approx((-1 / 3 + 1) / 2)
    assert result.rubric_score == 1.0
    assert result.order is not None and result.order.f1 == 1.0
