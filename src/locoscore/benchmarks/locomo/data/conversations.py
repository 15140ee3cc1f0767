"""LoCoMo's file layout turned into benchmark-neutral conversations and questions."""

from __future__ import annotations

import re

from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.benchmarks.locomo.data.models import Sample
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput
from locoscore.data.dates import parse_spoken_date
from locoscore.errors import DatasetError


def conversation_from_sample(sample: Sample, file: str = "dataset") -> Conversation:
    """Every session with turns, in order, each with its raw and ISO date and captions."""
    speakers = (sample.speaker_a, sample.speaker_b)
    sessions = []
    for session in sample.sessions:
        if not session.turns:
            continue  # conv-26 lists dates for sessions that hold no turns
        iso = None
        if session.date_time:
            try:
                iso = parse_spoken_date(session.date_time)
            except ValueError as exc:
                raise DatasetError(
                    str(exc),
                    file=file,
                    record=sample.sample_id,
                    field=f"session_{session.index}_date_time",
                ) from None
        turns = tuple(
            TurnInput(
                speaker=turn.speaker,
                dia_id=turn.dia_id,
                text=turn.text,
                caption=turn.blip_caption or None,
            )
            for turn in session.turns
        )
        sessions.append(
            SessionInput(
                conversation_id=sample.sample_id,
                index=session.index,
                date_raw=session.date_time,
                date_iso=iso,
                turns=turns,
                speakers=speakers,
            )
        )
    return Conversation(sample.sample_id, speakers, tuple(sessions))


_DIA_ID = re.compile(r"^D:?(\d+):0*(\d+)$")


def normalise_evidence(raw: list[str], known: set[str]) -> tuple[str, ...]:
    """LoCoMo's evidence ids as they name turns: a few entries pack several ids into one
    string ("D8:6; D9:17", "D9:1 D4:4") or mistype one ("D:11:26", "D30:05"); ids that name
    no turn of the conversation ("D", "D10:19" where session 10 is shorter) are dropped."""
    out: list[str] = []
    for entry in raw:
        for part in re.split(r"[;,\s]+", entry.strip()):
            match = _DIA_ID.match(part)
            if match is None:
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id in known and dia_id not in out:
                out.append(dia_id)
    return tuple(out)


def question_id(sample_id: str, qa_index: int) -> str:
    return f"{sample_id}#{qa_index}"


def locomo_conversations(dataset: Dataset) -> list[Conversation]:
    return [conversation_from_sample(s, str(dataset.path)) for s in dataset.samples]


def locomo_questions(
    dataset: Dataset,
    conversations: list[Conversation],
    *,
    include_adversarial: bool = True,
) -> list[Question]:
    """The questions of the given conversations, in dataset order.

    A LoCoMo question is asked after the conversation's last session, so its date is that
    session's date.
    """
    by_id = {c.conversation_id: c for c in conversations}
    questions = []
    for sample in dataset.samples:
        conversation = by_id.get(sample.sample_id)
        if conversation is None:
            continue
        known = {t.dia_id for session in conversation.sessions for t in session.turns}
        for qa in sample.qa:
            if qa.category == 5 and not include_adversarial:
                continue
            questions.append(
                Question(
                    question_id=question_id(qa.sample_id, qa.qa_index),
                    conversation_id=sample.sample_id,
                    text=qa.question,
                    category=qa.category,
                    gold=qa.gold,
                    evidence=normalise_evidence(qa.evidence, known),
                    date_iso=conversation.last_date_iso,
                    record_ids={"sample_id": qa.sample_id, "qa_index": qa.qa_index},
                )
            )
    return questions
