"""What a memory system receives from LoCoMo: every turn, in order, with speaker, dia_id,
session date (raw and ISO) and image caption; evidence ids as they name turns."""

from __future__ import annotations

from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.conversations import (
    locomo_conversations,
    locomo_questions,
    normalise_evidence,
    parse_spoken_date,
)


def test_locomo_dates_parse_to_iso_minutes() -> None:
    assert parse_spoken_date("1:56 pm on 8 May, 2023") == "2023-05-08T13:56"
    assert parse_spoken_date("12:09 am on 13 September, 2023") == "2023-09-13T00:09"
    assert parse_spoken_date("12:30 pm on 1 January, 2024") == "2024-01-01T12:30"


def test_an_unparseable_date_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unrecognised date"):
        parse_spoken_date("sometime in May")


def test_every_turn_reaches_the_system_in_order_with_its_session_date(dataset: Any) -> None:
    conversations = {c.conversation_id: c for c in locomo_conversations(dataset)}
    for sample in dataset.samples:
        conv = conversations[sample.sample_id]
        raw_sessions = [s for s in sample.sessions if s.turns]
        assert [s.index for s in conv.sessions] == [s.index for s in raw_sessions]
        for ours, raw in zip(conv.sessions, raw_sessions, strict=True):
            assert ours.date_raw == raw.date_time
            assert ours.date_iso == parse_spoken_date(raw.date_time or "")
            assert [(t.speaker, t.dia_id, t.text) for t in ours.turns] == [
                (t.speaker, t.dia_id, t.text) for t in raw.turns
            ]
    # hand-checked: conv-26 session 1 is "1:56 pm on 8 May, 2023" and opens with Caroline
    first = conversations["conv-26"].sessions[0]
    assert (first.date_iso, first.turns[0].speaker, first.turns[0].dia_id) == (
        "2023-05-08T13:56",
        "Caroline",
        "D1:1",
    )


def test_every_image_caption_is_kept_and_rendered(dataset: Any) -> None:
    conversations = locomo_conversations(dataset)
    captions = [t for c in conversations for s in c.sessions for t in s.turns if t.caption]
    raw = [t for s in dataset.samples for ss in s.sessions for t in ss.turns if t.blip_caption]
    assert len(captions) == len(raw) == 1226  # every image turn of the ten conversations
    turn = next(t for t in captions if t.dia_id == "D1:5")
    assert turn.render() == (
        "Caroline: The transgender stories were so inspiring! I was so happy and thankful for "
        "all the support. [shares an image: a photo of a dog walking past a wall with a "
        "painting of a woman]"
    )


def test_conv26_lists_dates_for_sessions_without_turns_and_they_are_skipped(dataset: Any) -> None:
    conv = locomo_conversations(dataset)[0]
    assert conv.conversation_id == "conv-26"
    assert len(conv.sessions) == 19 and conv.turn_count == 419


def test_questions_are_asked_at_the_last_session_date(dataset: Any) -> None:
    conversations = locomo_conversations(dataset)
    questions = locomo_questions(dataset, conversations)
    assert len(questions) == 1986
    first = questions[0]
    assert first.question_id == "conv-26#0" and first.evidence == ("D1:3",)
    assert first.date_iso == conversations[0].sessions[-1].date_iso == "2023-10-22T09:55"
    assert first.record_ids == {"sample_id": "conv-26", "qa_index": 0}
    no_adv = locomo_questions(dataset, conversations, include_adversarial=False)
    assert len(no_adv) == 1540


def test_evidence_ids_are_split_repaired_and_checked_against_the_turns() -> None:
    known = {"D8:6", "D9:17", "D11:26", "D30:5", "D9:1", "D4:4"}
    assert normalise_evidence(["D8:6; D9:17"], known) == ("D8:6", "D9:17")
    assert normalise_evidence(["D:11:26", "D30:05"], known) == ("D11:26", "D30:5")
    assert normalise_evidence(["D9:1 D4:4 D4:6"], known) == ("D9:1", "D4:4")  # D4:6 unknown
    assert normalise_evidence(["D", "D10:19"], known) == ()
