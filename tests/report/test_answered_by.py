"""`results.folder.answered_by`: the "who" of a report's title, from a run section."""

from __future__ import annotations

from locoscore.results.folder import answered_by


def test_the_system_and_the_answer_model_are_joined() -> None:
    run = {"system": {"name": "mem0"}, "answer": {"model": "gpt-4o-mini"}}
    assert answered_by(run, "answers") == "mem0 + gpt-4o-mini"


def test_a_system_recorded_by_name_alone_is_named() -> None:
    assert answered_by({"system": "full-context"}, "predictions") == "full-context"


def test_a_run_naming_neither_gives_the_fallback() -> None:
    assert answered_by({}, "answers") == "answers"
    assert answered_by(None, "predictions") == "predictions"
    assert answered_by({"system": {}, "answer": {"model": None}}, "answers") == "answers"
