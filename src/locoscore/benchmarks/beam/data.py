"""BEAM's repository layout turned into benchmark-neutral conversations and rubric questions.

A size folder (`100K/`) holds one folder per conversation (`<n>/chat.json`,
`probing_questions.json`, and sometimes `chat_trunecated.json`, sic). A batch is a session;
its date is the `time_anchor` of the batch's first user message (the batch-level field is null
throughout the repository). User and a few assistant messages end with a generation marker
(` ->-> b,k`) that points at the generator's plan: it is stripped before any system sees the
text. Anomalies are counted, never fatal; only a malformed file is.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from locoscore.data.conversation import Conversation, SessionInput, TurnInput
from locoscore.errors import DatasetError

ABILITIES: tuple[str, ...] = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
# An ability's question type id, as the outputs' `category` column carries it.
ABILITY_IDS = {key: i for i, key in enumerate(ABILITIES, 1)}
# Where each ability keeps its gold answer; two abilities have only a rubric.
GOLD_FIELD: dict[str, str | None] = {
    "abstention": "ideal_response",
    "contradiction_resolution": "ideal_answer",
    "summarization": "ideal_summary",
    "instruction_following": None,
    "preference_following": None,
    **{
        a: "answer"
        for a in (
            "event_ordering",
            "information_extraction",
            "knowledge_update",
            "multi_session_reasoning",
            "temporal_reasoning",
        )
    },
}
# Abstention questions have no evidence by design: their missing field is not an anomaly.
_NO_EVIDENCE_BY_DESIGN = frozenset({"abstention"})

CHAT = "chat.json"
TRUNCATED = "chat_trunecated.json"  # the repository's spelling
QUESTIONS = "probing_questions.json"
ROLES = ("user", "assistant")

_MARKER = re.compile(r"\s*->->([^\n]*)$")
_WELL_FORMED_MARKER = re.compile(r"\s*\d+\s*,\s*\d+\s*")
_ANCHOR_FORMAT = "%B-%d-%Y"  # March-15-2024


@dataclass(frozen=True)
class BeamQuestion:
    """A probing question: what is asked, the rubric that is scored, the evidence ids."""

    question_id: str
    conversation_id: str
    ability: str
    index: int
    text: str
    rubric: tuple[str, ...]
    gold: str | None
    evidence: tuple[str, ...]
    difficulty: str | None
    date_iso: str | None


@dataclass
class BeamAnomalies:
    """What the data gets wrong, counted (reported beside the results, never fatal)."""

    null_anchors: int = 0
    backwards_anchors: int = 0
    markers_stripped: Counter[str] = field(default_factory=Counter)  # by role
    malformed_markers: int = 0
    missing_evidence_field: int = 0
    empty_evidence: int = 0
    unresolved_evidence: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "null_anchors": self.null_anchors,
            "backwards_anchors": self.backwards_anchors,
            "markers_stripped": dict(sorted(self.markers_stripped.items())),
            "malformed_markers": self.malformed_markers,
            "missing_evidence_field": self.missing_evidence_field,
            "empty_evidence": self.empty_evidence,
            "unresolved_evidence": self.unresolved_evidence,
        }


@dataclass(frozen=True)
class BeamDataset:
    path: Path
    size: str
    sha256: str  # over every file read, in order, with its relative name
    truncated: bool  # the truncated conversation used where present
    conversations: tuple[Conversation, ...]
    questions: tuple[BeamQuestion, ...]
    anomalies: BeamAnomalies
    turn_groups: int  # BEAM's own "turns" (a user message and its replies)

    @property
    def message_count(self) -> int:
        return sum(c.turn_count for c in self.conversations)

    def describe(self) -> dict[str, Any]:
        """What a results folder records of its data, enough for the report alone."""
        return {
            "path": str(self.path),
            "size": self.size,
            "sha256": self.sha256,
            "conversation_file": "chat_trunecated.json where present"
            if self.truncated
            else "chat.json",
            "conversations": len(self.conversations),
            "questions": len(self.questions),
            "anomalies": self.anomalies.to_json(),
        }


def strip_marker(text: str) -> tuple[str, str | None]:
    """The text without its trailing generation marker, and the marker's payload if any."""
    match = _MARKER.search(text)
    if match is None:
        return text, None
    return text[: match.start()], match.group(1)


def parse_anchor(raw: str) -> str:
    try:
        return datetime.strptime(raw.strip(), _ANCHOR_FORMAT).date().isoformat()
    except ValueError:
        raise ValueError(
            f"unrecognised time anchor {raw!r} (expected like 'March-15-2024')"
        ) from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read BEAM file ({exc})", file=str(path)) from None


def _batches(chat: Any, path: Path) -> list[dict[str, Any]]:
    """The batches of a chat file: a list of batches, or (10M) a list of `{plan-N: [batches]}`."""
    if not isinstance(chat, list):
        raise DatasetError("expected a list of batches", file=str(path))
    batches: list[dict[str, Any]] = []
    for number, entry in enumerate(chat):
        if isinstance(entry, dict) and "turns" in entry:
            batches.append(entry)
        elif isinstance(entry, dict) and len(entry) == 1 and next(iter(entry)).startswith("plan"):
            plan = next(iter(entry.values()))
            if not isinstance(plan, list) or not all(isinstance(b, dict) for b in plan):
                raise DatasetError(
                    "a plan must be a list of batches", file=str(path), record=number
                )
            batches.extend(plan)
        else:
            raise DatasetError("not a BEAM batch (no 'turns')", file=str(path), record=number)
    return batches


def _message(raw: Any, path: Path, where: str) -> tuple[str, int, str, dict[str, Any]]:
    if not isinstance(raw, dict):
        raise DatasetError("a message must be an object", file=str(path), record=where)
    for name, kind in (("role", str), ("id", int), ("content", str)):
        if not isinstance(raw.get(name), kind) or isinstance(raw.get(name), bool):
            raise DatasetError(
                f"missing or not a {kind.__name__}", file=str(path), record=where, field=name
            )
    # Only these two speak in BEAM; another role would reach systems as a third speaker.
    if raw["role"] not in ROLES:
        raise DatasetError(
            f"unknown role {raw['role']!r} (expected {' or '.join(ROLES)})",
            file=str(path),
            record=where,
            field="role",
        )
    return raw["role"], raw["id"], raw["content"], raw


def _conversation(
    conversation_id: str, path: Path, anomalies: BeamAnomalies
) -> tuple[Conversation, int]:
    sessions: list[SessionInput] = []
    turn_groups = 0
    last_iso: str | None = None
    for b_index, batch in enumerate(_batches(_read_json(path), path), 1):
        turns = batch.get("turns")
        if not isinstance(turns, list):
            raise DatasetError(
                "missing or not a list", file=str(path), record=f"batch {b_index}", field="turns"
            )
        messages: list[TurnInput] = []
        anchor: str | None = None
        for t_index, turn in enumerate(turns):
            if not isinstance(turn, list):
                raise DatasetError(
                    "a turn must be a list of messages",
                    file=str(path),
                    record=f"batch {b_index} turn {t_index}",
                )
            turn_groups += 1
            for m_index, raw in enumerate(turn):
                where = f"batch {b_index} turn {t_index} message {m_index}"
                role, message_id, content, record = _message(raw, path, where)
                if anchor is None and role == "user" and not messages:
                    anchor = record.get("time_anchor")
                text, marker = strip_marker(content)
                if marker is not None:
                    anomalies.markers_stripped[role] += 1
                    if not _WELL_FORMED_MARKER.fullmatch(marker):
                        anomalies.malformed_markers += 1
                messages.append(TurnInput(speaker=role, dia_id=str(message_id), text=text))
        iso = None
        if anchor is None:
            anomalies.null_anchors += 1
        else:
            try:
                iso = parse_anchor(str(anchor))
            except ValueError as exc:
                raise DatasetError(
                    str(exc), file=str(path), record=f"batch {b_index}", field="time_anchor"
                ) from None
            if last_iso is not None and iso < last_iso:
                anomalies.backwards_anchors += 1
            last_iso = iso
        sessions.append(
            SessionInput(
                conversation_id=conversation_id,
                index=b_index,
                date_raw=anchor,
                date_iso=iso,
                turns=tuple(messages),
                speakers=ROLES,
            )
        )
    return Conversation(conversation_id, ROLES, tuple(sessions)), turn_groups


def _evidence_ids(raw: Any, path: Path, where: str) -> list[str]:
    """`source_chat_ids`: a list of ids, or a dict of lists (`{first_event, second_event}`).
    A few event-ordering lists group an event's messages in a nested list (100K conversations
    4, 13, 18): flattened in order, each id once. Anything but an int or str id is refused,
    not dropped, so a question never silently loses its evidence."""
    out: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                add(item)
        elif isinstance(value, int | str) and not isinstance(value, bool):
            if str(value) not in out:
                out.append(str(value))
        else:
            raise DatasetError(
                f"expected message ids (ints or strings), got {value!r}",
                file=str(path),
                record=where,
                field="source_chat_ids",
            )

    for value in raw.values() if isinstance(raw, dict) else [raw]:
        add(value)
    return out


def _questions(
    conversation: Conversation, path: Path, anomalies: BeamAnomalies
) -> list[BeamQuestion]:
    probing = _read_json(path)
    if not isinstance(probing, dict):
        raise DatasetError("expected an object {ability: [questions]}", file=str(path))
    known = {t.dia_id for s in conversation.sessions for t in s.turns}
    questions = []
    for ability, items in probing.items():
        if ability not in GOLD_FIELD:
            raise DatasetError(f"unknown ability {ability!r}", file=str(path), field=ability)
        if not isinstance(items, list):
            raise DatasetError("expected a list of questions", file=str(path), field=ability)
        for index, item in enumerate(items):
            where = f"{ability}[{index}]"
            if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                raise DatasetError(
                    "missing or not a string", file=str(path), record=where, field="question"
                )
            rubric = item.get("rubric")
            if (
                not isinstance(rubric, list)
                or not rubric
                or not all(isinstance(r, str) and r.strip() for r in rubric)
            ):
                raise DatasetError(
                    "a question needs a non-empty list of rubric strings",
                    file=str(path),
                    record=where,
                    field="rubric",
                )
            if "source_chat_ids" not in item:
                evidence: list[str] = []
                if ability not in _NO_EVIDENCE_BY_DESIGN:
                    anomalies.missing_evidence_field += 1
            else:
                if not isinstance(item["source_chat_ids"], list | dict):
                    raise DatasetError(
                        "expected a list of message ids (or an object of lists)",
                        file=str(path),
                        record=where,
                        field="source_chat_ids",
                    )
                evidence = _evidence_ids(item["source_chat_ids"], path, where)
                if not evidence:
                    anomalies.empty_evidence += 1
                unresolved = [e for e in evidence if e not in known]
                anomalies.unresolved_evidence += len(unresolved)
                evidence = [e for e in evidence if e in known]
            # A question of an ability with a gold answer is judged against it: without one
            # it would be judged against nothing.
            gold_field = GOLD_FIELD[ability]
            gold = item.get(gold_field) if gold_field else None
            if gold_field is not None and not isinstance(gold, str):
                raise DatasetError(
                    "missing or not a string", file=str(path), record=where, field=gold_field
                )
            difficulty = item.get("difficulty")
            if difficulty is not None and not isinstance(difficulty, str):
                raise DatasetError("not a string", file=str(path), record=where, field="difficulty")
            questions.append(
                BeamQuestion(
                    question_id=f"{conversation.conversation_id}:{ability}:{index}",
                    conversation_id=conversation.conversation_id,
                    ability=ability,
                    index=index,
                    text=item["question"],
                    rubric=tuple(rubric),
                    gold=gold,
                    evidence=tuple(evidence),
                    difficulty=difficulty,
                    date_iso=conversation.last_date_iso,
                )
            )
    return questions


def _probing_file(folder: Path) -> Path | None:
    """The repository keeps it one folder down; the Hugging Face export beside chat.json."""
    return next(
        (p for p in (folder / QUESTIONS, folder / "probing_questions" / QUESTIONS) if p.is_file()),
        None,
    )


def _conversation_folders(root: Path) -> list[Path]:
    if (root / CHAT).is_file():
        return [root]
    if (root / TRUNCATED).is_file() or _probing_file(root) is not None:
        raise DatasetError(f"missing {CHAT} (a BEAM conversation folder holds it)", file=str(root))
    # Any folder holding a BEAM file is a conversation: one missing its chat is refused,
    # never skipped (a skipped folder would silently shrink the question set).
    folders = [
        p
        for p in root.iterdir()
        if p.is_dir()
        and ((p / CHAT).is_file() or (p / TRUNCATED).is_file() or _probing_file(p) is not None)
    ]
    for folder in folders:
        if not (folder / CHAT).is_file():
            raise DatasetError(
                f"missing {CHAT} (a BEAM conversation folder holds {CHAT} and {QUESTIONS})",
                file=str(folder),
            )
    if not folders:
        raise DatasetError(
            f"not a BEAM folder: no <n>/{CHAT} (expected a size folder such as 100K/)",
            file=str(root),
        )
    return sorted(
        folders,
        key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name),
    )


def load_beam(root: Path, *, truncated: bool = True) -> BeamDataset:
    """Every conversation of a size folder (or one conversation folder), with its questions."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(
            "not a folder (BEAM is read from a size folder such as 100K/)", file=str(root)
        )
    digest = hashlib.sha256()
    anomalies = BeamAnomalies()
    conversations: list[Conversation] = []
    questions: list[BeamQuestion] = []
    turn_groups = 0
    for folder in _conversation_folders(root):
        chat = folder / TRUNCATED if truncated and (folder / TRUNCATED).is_file() else folder / CHAT
        probing = _probing_file(folder)
        if probing is None:
            raise DatasetError(f"missing {QUESTIONS}", file=str(folder))
        for path in (chat, probing):
            digest.update(f"{path.relative_to(root.parent)}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        conversation, groups = _conversation(folder.name, chat, anomalies)
        turn_groups += groups
        conversations.append(conversation)
        questions.extend(_questions(conversation, probing, anomalies))
    return BeamDataset(
        path=root,
        size=root.name if not (root / CHAT).is_file() else root.parent.name,
        sha256=digest.hexdigest(),
        truncated=truncated,
        conversations=tuple(conversations),
        questions=tuple(questions),
        anomalies=anomalies,
        turn_groups=turn_groups,
    )
