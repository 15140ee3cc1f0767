"""Reading a verdict: structured field first, then JSON in text, then a number or label."""

from __future__ import annotations

import pytest

from locoscore.judge.parsing import parse_verdict, trivial_prediction_reason


def test_structured_score_is_taken_as_is() -> None:
    verdict = parse_verdict("rubric", {"score": 85, "explanation": "fine"}, "ignored 12")
    assert (verdict.score, verdict.explanation, verdict.method) == (85.0, "fine", "structured")


def test_json_in_text_is_the_first_fallback() -> None:
    verdict = parse_verdict("rubric", None, 'Sure. {"score": 64, "explanation": "partly"} ok')
    assert (verdict.score, verdict.method) == (64.0, "json_text")


def test_a_number_in_text_is_the_second_fallback() -> None:
    verdict = parse_verdict("rubric", None, "I would give this a Score: 73 overall.")
    assert (verdict.score, verdict.method) == (73.0, "text_number")


def test_no_score_at_all_is_unscored_with_a_reason() -> None:
    verdict = parse_verdict("rubric", None, "The answer is quite good.")
    assert verdict.score == -1 and not verdict.ok
    assert verdict.error == "unparseable reply: no score 0-100 found"


def test_out_of_range_structured_score_falls_back_to_text() -> None:
    assert parse_verdict("rubric", {"score": 250}, "no number here").score == -1


def test_empty_reply_is_unscored() -> None:
    assert parse_verdict("rubric", None, "").error == "empty reply"


@pytest.mark.parametrize(
    ("text", "score"),
    [("Verdict: CORRECT.", 100.0), ("This is WRONG.", 0.0), ("INCORRECT answer", 0.0)],
)
def test_binary_label_in_text(text: str, score: float) -> None:
    assert parse_verdict("binary", None, text).score == score


def test_binary_structured_label_maps_to_100_or_0() -> None:
    assert parse_verdict("binary", {"label": "CORRECT", "explanation": ""}, "").score == 100
    assert parse_verdict("binary", {"label": "WRONG", "explanation": ""}, "").score == 0


def test_binary_reply_with_both_labels_is_unscored() -> None:
    verdict = parse_verdict("binary", None, "CORRECT or WRONG, hard to say")
    assert verdict.score == -1 and "both labels" in (verdict.error or "")


@pytest.mark.parametrize("prediction", ["", "   ", ":", "...", "Thought process:", "Answer:"])
def test_trivial_predictions_are_short_circuited(prediction: str) -> None:
    assert trivial_prediction_reason(prediction) is not None


@pytest.mark.parametrize("prediction", ["7", "Paris", "Thought process: she moved in May."])
def test_real_answers_are_judged(prediction: str) -> None:
    assert trivial_prediction_reason(prediction) is None


def test_a_number_cut_off_by_truncation_is_not_read() -> None:
    # '{"score": 8' may be the start of 85: a truncated reply's last number is not trusted.
    assert parse_verdict("rubric", None, '{"score": 8', truncated=True).score == -1
    assert parse_verdict("rubric", None, '{"score": 8', truncated=False).score == 8
    cut_later = parse_verdict(
        "rubric", None, '{"score": 85, "explanation": "Mostly ri', truncated=True
    )
    assert (cut_later.score, cut_later.method) == (85.0, "json_prefix")


def test_a_binary_reply_cut_after_its_label_keeps_the_verdict() -> None:
    cut = '{"label": "WRONG", "explanation": "The reference says CORRECT dates but the cand'
    verdict = parse_verdict("binary", None, cut, truncated=True)
    assert (verdict.score, verdict.method) == (0.0, "json_prefix")
    # cut before the label closes: nothing to read
    assert parse_verdict("binary", None, '{"label": "COR', truncated=True).score == -1


def test_a_free_text_verdict_opening_the_reply_wins_over_later_words() -> None:
    verdict = parse_verdict("binary", None, "WRONG. The candidate is not CORRECT about May.")
    assert (verdict.score, verdict.method) == (0.0, "text_label")
    assert parse_verdict("binary", None, "Label: CORRECT - although one word is WRONG").score == 100


def test_every_schema_puts_its_verdict_field_first() -> None:
    from locoscore.judge.prompts import BINARY_SCHEMA, RUBRIC_SCHEMA

    assert next(iter(BINARY_SCHEMA["properties"])) == "label"
    assert BINARY_SCHEMA["required"][0] == "label"
    assert next(iter(RUBRIC_SCHEMA["properties"])) == "score"


@pytest.mark.parametrize(
    ("structured", "text", "expected"),
    [
        ({"score": 50, "explanation": "half"}, "", 50.0),
        ({"score": 0.5, "explanation": "half"}, "", None),  # 0.5 is not 50 (nor 0.5 %)
        (None, '{"score": 75, "explanation": "most"}', None),
        (None, "Score: 100. It is all there.", 100.0),
        (None, '{"score": 5, "expl', None),  # a cut reply's head off the scale too
    ],
)
def test_a_score_off_the_asked_scale_is_unparsed(structured, text, expected) -> None:  # type: ignore[no-untyped-def]
    verdict = parse_verdict("rubric", structured, text, scale=(0.0, 50.0, 100.0))
    if expected is None:
        assert not verdict.ok and verdict.method == "none"
        assert verdict.error is not None and "off the asked scale (100, 50, 0)" in verdict.error
    else:
        assert verdict.ok and verdict.score == expected


def test_without_a_scale_any_score_0_to_100_stands() -> None:
    """LoCoMo's rubric asks for 0-100: its verdicts parse as before."""
    assert parse_verdict("rubric", {"score": 75, "explanation": ""}, "").score == 75.0
    assert parse_verdict("rubric", {"score": 0.5, "explanation": ""}, "").score == 0.5
