"""LongMemEval questions as benchmark-neutral conversations: one per question (its haystack).

Only opaque ids reach a system: the conversation is `lme-<position>`, the question
`lme-<position>-q`, a turn `S<n>:<t>` (n-th session in date order, t-th turn). No session id
of the dataset (`answer_…` names the evidence), no `has_answer`, no `answer_session_ids`.
Sessions are read back from the file when iterated, so a run holds only the haystacks it is
ingesting; `sources` maps an opaque turn id back to the dataset's names for the outputs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import cast, overload

from locoscore.benchmarks.longmemeval.data import LongMemEvalData, QuestionMeta
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput

SPEAKERS = ("user", "assistant")


def conversation_id(meta: QuestionMeta) -> str:
    return f"lme-{meta.position + 1:04d}"


def turn_id(session_number: int, turn_index: int) -> str:
    return f"S{session_number}:{turn_index + 1}"


class _Haystack(Sequence[SessionInput]):
    """A question's sessions in date order, parsed from the file on use (a few kept)."""

    def __init__(self, data: LongMemEvalData, meta: QuestionMeta) -> None:
        self._data, self._meta = data, meta

    def __len__(self) -> int:
        return len(self._meta.sessions)

    @overload
    def __getitem__(self, index: int) -> SessionInput: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[SessionInput]: ...
    def __getitem__(self, index: int | slice) -> SessionInput | Sequence[SessionInput]:
        return _sessions(self._data, self._meta)[index]

    def __iter__(self) -> Iterator[SessionInput]:
        return iter(_sessions(self._data, self._meta))


@lru_cache(maxsize=4)
def _sessions(data: LongMemEvalData, meta: QuestionMeta) -> tuple[SessionInput, ...]:
    record = data.read_record(meta)
    by_id: dict[str, list[dict[str, object]]] = {}
    for sid, turns in zip(record["haystack_session_ids"], record["haystack_sessions"], strict=True):
        by_id.setdefault(sid, turns)
    cid = conversation_id(meta)
    out = []
    for n, session in enumerate(meta.sessions, 1):
        turns = by_id[session.session_id]
        out.append(
            SessionInput(
                conversation_id=cid,
                index=n,
                date_raw=session.date_raw,
                date_iso=session.date_iso,
                turns=tuple(
                    TurnInput(speaker=str(t["role"]), dia_id=turn_id(n, i), text=str(t["content"]))
                    for i, t in enumerate(turns)
                ),
                speakers=SPEAKERS,
            )
        )
    return tuple(out)


def conversations(data: LongMemEvalData) -> list[Conversation]:
    return [
        Conversation(
            conversation_id(m), SPEAKERS, cast(tuple[SessionInput, ...], _Haystack(data, m))
        )
        for m in data.questions
    ]


def sources(meta: QuestionMeta, dia_ids: Sequence[str]) -> list[dict[str, str]]:
    """The dataset's own names of the turns an item came from (for outputs only)."""
    out = []
    for dia_id in dia_ids:
        head, _, tail = dia_id.partition(":")
        if not head.startswith("S") or not head[1:].isdigit() or not tail.isdigit():
            continue
        n, t = int(head[1:]), int(tail) - 1
        if not 1 <= n <= len(meta.sessions) or not 0 <= t < len(meta.sessions[n - 1].roles):
            continue
        session = meta.sessions[n - 1]
        out.append(
            {
                "session_id": session.session_id,
                "turn_key": session.turn_key(t),
                "role": session.roles[t],
            }
        )
    return out


def marked_turns(meta: QuestionMeta) -> tuple[str, ...]:
    """The opaque ids of the turns the dataset marks `has_answer` (a question's evidence)."""
    return tuple(
        turn_id(n, t)
        for n, s in enumerate(meta.sessions, 1)
        for t, mark in enumerate(s.has_answer)
        if mark
    )


def gold_turns(meta: QuestionMeta) -> tuple[str, ...]:
    """What `--system gold-evidence` returns: the turns marked `has_answer`, else (no turn
    marked, as for most abstention questions) every turn of the answer sessions. Opaque ids
    only: the run hands them to the system, which shows nothing a retrieval would not."""
    marked = marked_turns(meta)
    if marked:
        return marked
    answer = set(meta.answer_session_ids)
    return tuple(
        turn_id(n, t)
        for n, s in enumerate(meta.sessions, 1)
        if s.session_id in answer
        for t in range(len(s.roles))
    )


@lru_cache(maxsize=4)
def metas_by_id(data: LongMemEvalData) -> dict[str, QuestionMeta]:
    return {meta.question_id: meta for meta in data.questions}


def questions(data: LongMemEvalData, type_ids: dict[str, int]) -> list[Question]:
    """Every question of the data, in its order."""
    out = []
    for meta in data.questions:
        cid = conversation_id(meta)
        evidence = marked_turns(meta)
        out.append(
            Question(
                question_id=meta.question_id,
                conversation_id=cid,
                text=meta.question,
                category=type_ids[meta.question_type],
                gold=meta.answer,
                evidence=evidence,
                date_iso=meta.date_iso,
                record_ids={
                    "question_type": meta.question_type,
                    "abstention": meta.abstention,
                    "question_date": meta.date_raw,
                },
                query_id=f"{cid}-q",
                date_raw=meta.date_raw,
            )
        )
    return out
