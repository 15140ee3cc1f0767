"""How the fake provider dresses a verdict: the default rule and generic schema filling."""

from __future__ import annotations

import hashlib
import json

import pytest

from locoscore.testing._verdicts import (
    Verdict,
    default_score,
    fill_schema,
    plain_json,
    prose,
    truncate,
    user_text,
    verdict_from,
)

HIGH = Verdict(85, "CORRECT")
LOW = Verdict(45, "WRONG")


def test_default_score_is_40_plus_sha256_mod_61_over_many_texts():
    texts = [f"prompt {i}" for i in range(500)]
    scores = [default_score(t) for t in texts]
    assert scores[0] == 40 + int(hashlib.sha256(b"prompt 0").hexdigest(), 16) % 61
    assert min(scores) >= 40 and max(scores) <= 100
    assert len(set(scores)) > 50  # spread over the range, not a constant


def test_scripted_values_become_verdicts_with_the_70_threshold():
    assert verdict_from(70) == Verdict(70, "CORRECT")
    assert verdict_from(69) == Verdict(69, "WRONG")
    assert verdict_from("correct") == Verdict(100, "CORRECT")
    assert verdict_from("WRONG") == Verdict(0, "WRONG")
    for bad in (101, -1, "MAYBE", True):
        with pytest.raises(ValueError):
            verdict_from(bad)


def test_user_text_is_the_last_user_message_in_either_content_form():
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    ]
    assert user_text(messages) == "a\nb"


def test_schema_integers_get_the_score_and_label_like_strings_the_label():
    schema = {
        "type": "object",
        "properties": {
            "score": {"type": "integer"},
            "confidence": {"type": "number"},
            "verdict": {"type": "string"},
            "passed": {"type": "boolean"},
            "reasoning": {"type": "string"},
        },
    }
    filled = fill_schema(schema, HIGH)
    assert filled["score"] == 85 and filled["confidence"] == 85.0
    assert filled["verdict"] == "CORRECT" and filled["passed"] is True
    assert filled["reasoning"] == HIGH.explanation


def test_schema_scores_are_scaled_onto_a_narrower_declared_range():
    schema = {
        "type": "object",
        "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5}},
    }
    assert fill_schema(schema, HIGH) == {"rating": 4}  # 1 + 4 * 0.85 = 4.4
    assert fill_schema(schema, LOW) == {"rating": 3}  # 1 + 4 * 0.45 = 2.8


def test_schema_enums_get_the_closest_label():
    def pick(options: list[object], verdict: Verdict) -> object:
        return fill_schema({"enum": options}, verdict)

    assert pick(["INCORRECT", "CORRECT"], HIGH) == "CORRECT"
    assert pick(["INCORRECT", "CORRECT"], LOW) == "INCORRECT"
    assert pick(["yes", "no"], LOW) == "no"
    assert pick(["good", "meh", "poor"], LOW) == "poor"  # no synonym: the last option
    assert pick([0, 50, 100], HIGH) == 100


def test_schema_refs_and_nullable_unions_are_followed():
    schema = {
        "type": "object",
        "$defs": {"Grade": {"type": "object", "properties": {"points": {"type": "integer"}}}},
        "properties": {
            "grade": {"$ref": "#/$defs/Grade"},
            "note": {"anyOf": [{"type": "null"}, {"type": "string"}]},
            "items": {"type": "array", "items": {"type": "integer"}},
        },
    }
    assert fill_schema(schema, LOW) == {
        "grade": {"points": 45},
        "note": LOW.explanation,
        "items": [45],
    }


def test_plain_json_form_follows_the_prompt_kind():
    assert json.loads(plain_json(HIGH, "Give a score 0-100"))["score"] == 85
    assert json.loads(plain_json(LOW, "Say CORRECT or WRONG"))["label"] == "WRONG"


def test_fault_texts_are_not_json_but_keep_what_a_fallback_needs():
    text = prose(HIGH)
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert "Score: 85" in text and "CORRECT" in text
    full = plain_json(HIGH, "score it")
    with pytest.raises(json.JSONDecodeError):
        json.loads(truncate(full))


def test_reference_recall_reads_gold_and_fenced_candidate_of_a_locoscore_prompt():
    from locoscore.judge.prompts import builtin_template
    from locoscore.testing._verdicts import reference_recall_score

    for protocol in ("rubric", "binary"):
        template = builtin_template(protocol)
        render = template.render
        assert reference_recall_score(render("When?", "7 May 2023", "On 7 May, 2023.", 2)) == 100
        # 1 of 3 gold words ("2023"); the prompt's own examples ("spring") are not read
        assert reference_recall_score(render("When?", "7 May 2023", "spring 2023", 2)) == 33
        assert reference_recall_score(render("When?", "7 May 2023", "sometime", 2)) == 0


def test_reference_recall_falls_back_to_the_hash_rule_for_other_prompts():
    from locoscore.testing._verdicts import reference_recall_score

    assert reference_recall_score("grade this: yes") == default_score("grade this: yes")
