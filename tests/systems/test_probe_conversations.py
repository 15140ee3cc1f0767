"""The probe's synthetic pair: what makes each check meaningful holds for the data itself."""

from __future__ import annotations

import re

from locoscore.systems.probe_conversations import (
    PROBE_PREFIX,
    probe_conversations,
    searchable_fact,
)

A, B = probe_conversations()
LATE_SESSION, LATE_FACT = searchable_fact()


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def all_text(conv) -> str:
    return " ".join(
        f"{t.speaker} {t.text} {t.caption or ''}"
        for s in conv.conversation.sessions
        for t in s.turns
    )


def test_conversation_ids_cannot_collide_with_a_benchmark():
    assert A.conversation_id == "locoscore-probe-a"
    assert B.conversation_id == "locoscore-probe-b"
    assert LATE_SESSION.conversation_id == A.conversation_id
    assert all(c.conversation_id.startswith(PROBE_PREFIX) for c in (A, B))


def test_the_pair_is_deterministic():
    again_a, again_b = probe_conversations()
    assert (again_a, again_b) == (A, B)


def test_every_session_has_its_own_day():
    days = [s.date_iso[:10] for c in (A, B) for s in c.conversation.sessions]
    days.append(LATE_SESSION.date_iso[:10])
    assert len(set(days)) == len(days) == 7
    assert A.session(1).date_raw == "1:05 pm on 14 March, 2021"
    assert A.session(1).date_iso == "2021-03-14T13:05"


def test_secret_words_live_in_one_turn_of_their_conversation_only():
    for conv, other in ((A, B), (B, A)):
        for fact in conv.facts:
            holders = [
                t.dia_id
                for s in conv.conversation.sessions
                for t in s.turns
                if fact.word.lower() in t.text.lower()
            ]
            assert holders == [fact.dia_id]
            assert conv.session(fact.session_index).index == int(fact.dia_id[1])
        for word in conv.secret_words:
            assert word.lower() not in all_text(other).lower()


def test_caption_word_is_only_in_the_caption():
    for conv in (A, B):
        image = conv.image
        turn = next(t for s in conv.conversation.sessions for t in s.turns if t.caption)
        assert turn.dia_id == image.dia_id and turn.caption == image.caption
        texts = " ".join(t.text for s in conv.conversation.sessions for t in s.turns)
        assert image.word not in words_of(texts)
        assert image.word in words_of(image.caption)


def test_no_question_gives_its_answer_away():
    every_secret = {w.lower() for c in (A, B) for w in c.secret_words} | {LATE_FACT.word.lower()}
    questions = [q for c in (A, B) for f in c.facts for q in (f.question, f.date_question)]
    questions += [A.image.question, B.image.question, LATE_FACT.question]
    for question in questions:
        assert not (words_of(question) & every_secret), question
