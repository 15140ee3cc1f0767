"""A benchmark's data as plain JSON-like values, inline in its module or in a JSON file of
the same shape (`--dataset FILE`), turned into benchmark-neutral conversations and questions.

    {"conversations": [{"id": "c1", "sessions": [
        {"date": "2023-11-05", "turns": [["Sam", "We moved to Oslo."], ["Bot", "Exciting!"]]}]}],
     "questions": [{"id": "q1", "conversation": "c1", "type": "fact",
                    "question": "Where did Sam move?", "answer": "Oslo", "evidence": ["S1:1"]}]}

A session's `date` is ISO 8601 (a day, or a day and time); systems see it also as written
for people (`15 April 2024`). Turn `j` of session `i` (both
from 1) has the dia id `S<i>:<j>`, which `evidence` names (an id naming no turn of the
question's conversation is refused); a question is asked after its conversation's last
session unless it gives its own `date`. Bad values are bad input naming the file, the record
and the field, located as JSON paths with 0-based indices (`questions[0].evidence[1]`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput
from locoscore.errors import InputError


@dataclass(frozen=True)
class DeclaredData:
    path: Path  # the JSON file, or the module that holds the data inline
    sha256: str  # of the file's bytes, or of the inline data's canonical JSON
    conversations: tuple[Conversation, ...]
    questions: tuple[Question, ...]


def load_declared(
    path: str | Path | None,
    inline: Mapping[str, Any] | None,
    module_file: Path,
    type_ids: Mapping[str, int],
) -> DeclaredData:
    """`path` when given, else the inline data (`module_file` is where it lives). The module
    file itself as `path` is the inline data too: a folder records it as its data path, so a
    command reading the folder (`merge`) finds the data again."""
    if path is None or (inline is not None and Path(path).resolve() == module_file.resolve()):
        if inline is None:
            raise InputError("this benchmark has no inline data: pass a file", field="--dataset")
        text = json.dumps(inline, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return _parse(dict(inline), module_file, _sha(text.encode("utf-8")), type_ids)
    file = Path(path)
    try:
        raw = file.read_bytes()
        loaded = json.loads(raw)
    except FileNotFoundError:
        raise InputError("data file not found", file=str(file)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"not a JSON file ({exc})", file=str(file)) from None
    if not isinstance(loaded, dict):
        raise InputError("expected a JSON object", file=str(file))
    return _parse(loaded, file, _sha(raw), type_ids)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Reader:
    def __init__(self, file: Path) -> None:
        self.file = str(file)

    def get(self, obj: Any, key: str, kind: type, record: str, optional: bool = False) -> Any:
        value = obj.get(key) if isinstance(obj, dict) else None
        if value is None and optional:
            return None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(
                f"expected {kind.__name__}, got {value!r}", file=self.file, record=record, field=key
            )
        return value

    def iso(self, value: str, record: str, key: str) -> str:
        try:
            return (datetime if "T" in value else date).fromisoformat(value).isoformat()
        except ValueError:
            raise InputError(
                f"not an ISO 8601 date: {value!r}", file=self.file, record=record, field=key
            ) from None


def _readable(iso: str) -> str:
    """A session's date as a reader sees it: `15 April 2024` (`, 14:30` with a time)."""
    moment = datetime.fromisoformat(iso)
    shown = f"{moment.day} {moment:%B %Y}"
    return shown + (f", {moment:%H:%M}" if "T" in iso else "")


def _check_evidence(evidence: list[Any], conversation: Conversation, file: str, where: str) -> None:
    """Every evidence id names a turn of the question's conversation (`S<i>:<j>`, both from
    1): a dangling id would silently score evidence recall 0."""
    turns = {t.dia_id for s in conversation.sessions for t in s.turns}
    for m, item in enumerate(evidence):
        if not isinstance(item, str) or item not in turns:
            raise InputError(
                f"no turn {item!r} in conversation {conversation.conversation_id!r} (evidence "
                "names turn j of session i as S<i>:<j>, both from 1)",
                file=file,
                record=where,
                field=f"evidence[{m}]",
            )


def _parse(
    loaded: dict[str, Any], file: Path, sha256: str, type_ids: Mapping[str, int]
) -> DeclaredData:
    read = _Reader(file)
    conversations: dict[str, Conversation] = {}
    for n, raw in enumerate(read.get(loaded, "conversations", list, "top level")):
        where = f"conversations[{n}]"
        cid = read.get(raw, "id", str, where)
        if cid in conversations:
            raise InputError(f"conversation {cid!r} twice", file=read.file, record=where)
        sessions = []
        for i, session in enumerate(read.get(raw, "sessions", list, where), 1):
            at = f"{where}.sessions[{i - 1}]"
            day = read.iso(read.get(session, "date", str, at), at, "date")
            shown = _readable(day)
            turns = []
            for j, turn in enumerate(read.get(session, "turns", list, at), 1):
                ok = (
                    isinstance(turn, list)
                    and len(turn) == 2
                    and all(isinstance(t, str) for t in turn)
                )
                if not ok:
                    raise InputError(  # the turn named as a field, as every bad value is
                        f"expected [speaker, text], got {turn!r}",
                        file=read.file,
                        record=at,
                        field=f"turns[{j - 1}]",
                    )
                turns.append(TurnInput(turn[0], f"S{i}:{j}", turn[1]))
            speakers = tuple(dict.fromkeys(t.speaker for t in turns))
            sessions.append(SessionInput(cid, i, shown, day, tuple(turns), speakers))
        speakers = tuple(dict.fromkeys(s for session in sessions for s in session.speakers))
        conversations[cid] = Conversation(cid, speakers, tuple(sessions))
    questions: list[Question] = []
    seen: set[str] = set()
    for n, raw in enumerate(read.get(loaded, "questions", list, "top level")):
        where = f"questions[{n}]"
        qid = read.get(raw, "id", str, where)
        cid = read.get(raw, "conversation", str, where)
        key = read.get(raw, "type", str, where)
        if qid in seen:
            raise InputError(f"question {qid!r} twice", file=read.file, record=where, field="id")
        if cid not in conversations:
            raise InputError(
                f"no conversation {cid!r}", file=read.file, record=where, field="conversation"
            )
        if key not in type_ids:
            known = ", ".join(type_ids)
            raise InputError(
                f"unknown type {key!r} (known: {known})", file=read.file, record=where, field="type"
            )
        seen.add(qid)
        asked = read.get(raw, "date", str, where, optional=True)
        evidence = read.get(raw, "evidence", list, where, optional=True) or []
        _check_evidence(evidence, conversations[cid], read.file, where)
        questions.append(
            Question(
                question_id=qid,
                conversation_id=cid,
                text=read.get(raw, "question", str, where),
                category=type_ids[key],
                gold=read.get(raw, "answer", str, where),
                evidence=tuple(str(e) for e in evidence),
                date_iso=read.iso(asked, where, "date")
                if asked
                else conversations[cid].last_date_iso,
                record_ids={"question_id": qid},
            )
        )
    return DeclaredData(file, sha256, tuple(conversations.values()), tuple(questions))
