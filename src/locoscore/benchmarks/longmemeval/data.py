"""LongMemEval files: each record checked on a first streaming pass, kept as a small index.

A question's haystack (its sessions) is not kept: it is read back from the record's byte span
when the harness ingests it, so even the 2.7 GB `_m` file is never held whole. What the index
keeps per question is what scoring needs: the identity, type, gold, dates, and each session's
own id with its turn roles and `has_answer` marks (these never reach a system).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file
from locoscore.benchmarks.base import KnownFile
from locoscore.benchmarks.longmemeval.stream import NotAnArray, object_spans
from locoscore.errors import DatasetError

HF_REVISION = "98d7416c24c778c2fee6e6f3006e7a073259d48f"
_HF = "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/" + HF_REVISION
KNOWN_FILES = (
    KnownFile(
        "longmemeval-s-cleaned",
        "longmemeval_s_cleaned.json",
        "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
        277_383_467,
        f"{_HF}/longmemeval_s_cleaned.json",
    ),
    KnownFile(
        "longmemeval-oracle",
        "longmemeval_oracle.json",
        "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c",
        15_388_478,
        f"{_HF}/longmemeval_oracle.json",
    ),
    KnownFile(
        "longmemeval-m-cleaned",
        "longmemeval_m_cleaned.json",
        "9d79e5524794a2e6900a3aa9cb7d9152c5a3e8319c9a87c25494ba1eacee495f",
        2_737_100_077,
        f"{_HF}/longmemeval_m_cleaned.json",
    ),
)
QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"  # e.g. "2023/05/30 (Tue) 23:40", no time zone
_FIELDS = (
    "question_id",
    "question_type",
    "question",
    "answer",
    "question_date",
    "haystack_session_ids",
    "haystack_dates",
    "haystack_sessions",
    "answer_session_ids",
)


# `locoscore dataset fetch <name>`: the cleaned release by default (numbers on the original
# and the cleaned files are not comparable).
FETCH_NAMES = {
    "longmemeval-s": KNOWN_FILES[0],
    "longmemeval-oracle": KNOWN_FILES[1],
    "longmemeval-m": KNOWN_FILES[2],
}


def fetch_longmemeval(name: str, url: str | None = None, dest: Path | None = None) -> Path:
    """Download one released file (streamed, sha256-checked, renamed into place at the end)."""
    from locoscore.data.user_cache import download_verified, user_cache_file

    known = FETCH_NAMES[name]
    assert known.url is not None
    return download_verified(
        url or known.url,
        known.sha256,
        dest or user_cache_file(known.filename),
        manual_option="--dataset PATH",
        error=DatasetError,
        timeout=600.0,
    )


class ChecksumWarning(UserWarning):
    """The file is none of the released LongMemEval files."""


def parse_date(raw: object) -> str:
    """ISO 8601 (minute precision, no zone: LongMemEval gives none) of a LongMemEval date."""
    if not isinstance(raw, str):
        raise ValueError(f"expected a date string like '2023/05/30 (Tue) 23:40', got {raw!r}")
    try:
        parsed = datetime.strptime(raw.strip(), DATE_FORMAT)
    except ValueError:
        raise ValueError(
            f"unparseable date {raw!r} (expected like '2023/05/30 (Tue) 23:40')"
        ) from None
    return parsed.isoformat(timespec="minutes")


@dataclass(frozen=True)
class SessionMeta:
    """One haystack session as the dataset names it: outputs may say this, systems never."""

    session_id: str
    date_raw: str
    date_iso: str
    roles: tuple[str, ...]
    has_answer: tuple[bool, ...]

    def turn_key(self, turn_index: int) -> str:
        """The official turn id: `<session id>_<turn index + 1>` over all the session's turns."""
        return f"{self.session_id}_{turn_index + 1}"


@dataclass(frozen=True)
class QuestionMeta:
    position: int  # in the file
    question_id: str
    question_type: str
    question: str
    answer: str | int
    date_raw: str
    date_iso: str
    answer_session_ids: tuple[str, ...]
    sessions: tuple[SessionMeta, ...]  # in date order (stable: the file's order on ties)
    span: tuple[int, int]  # (offset, length) of the record in the file

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")


@dataclass(eq=False)  # hashed by identity: haystacks are cached per loaded file
class LongMemEvalData:
    path: Path
    sha256: str
    questions: list[QuestionMeta]
    known_files: tuple[KnownFile, ...] = KNOWN_FILES

    @property
    def known(self) -> KnownFile | None:
        return next((f for f in self.known_files if f.sha256 == self.sha256), None)

    @property
    def version(self) -> str:
        """The released file's name in signatures, else `longmemeval-unknown`."""
        known = self.known
        return known.version if known is not None else "longmemeval-unknown"

    def read_record(self, meta: QuestionMeta) -> dict[str, Any]:
        offset, length = meta.span
        with self.path.open("rb") as handle:
            handle.seek(offset)
            return json.loads(handle.read(length))


def _fail(message: str, file: str, record: str | int, field: str | None = None) -> DatasetError:
    return DatasetError(message, file=file, record=record, field=field)


def _sessions(raw: dict[str, Any], file: str, qid: str) -> tuple[SessionMeta, ...]:
    ids, dates, sessions = (
        raw["haystack_session_ids"],
        raw["haystack_dates"],
        raw["haystack_sessions"],
    )
    for name, value in (("haystack_session_ids", ids), ("haystack_dates", dates)):
        if not isinstance(value, list):
            raise _fail("expected a list", file, qid, name)
    if not isinstance(sessions, list):
        raise _fail("expected a list of sessions", file, qid, "haystack_sessions")
    if not len(ids) == len(dates) == len(sessions):
        raise _fail(
            f"haystack_session_ids ({len(ids)}), haystack_dates ({len(dates)}) and "
            f"haystack_sessions ({len(sessions)}) differ in length",
            file,
            qid,
            "haystack_sessions",
        )
    out = []
    for n, (sid, date, turns) in enumerate(zip(ids, dates, sessions, strict=True)):
        if not isinstance(sid, str):
            raise _fail("expected a string", file, qid, f"haystack_session_ids[{n}]")
        try:
            iso = parse_date(date)
        except ValueError as exc:
            raise _fail(str(exc), file, qid, f"haystack_dates[{n}]") from None
        if not isinstance(turns, list):
            raise _fail("expected a list of turns", file, qid, f"haystack_sessions[{n}]")
        roles, marks = [], []
        for t, turn in enumerate(turns):
            where = f"haystack_sessions[{n}][{t}]"
            if not isinstance(turn, dict):
                raise _fail("expected a turn object", file, qid, where)
            if turn.get("role") not in ("user", "assistant"):
                raise _fail("expected 'user' or 'assistant'", file, qid, f"{where}.role")
            if not isinstance(turn.get("content"), str):
                raise _fail("missing or not a string", file, qid, f"{where}.content")
            roles.append(turn["role"])
            marks.append(turn.get("has_answer") is True)
        out.append(SessionMeta(sid, date, iso, tuple(roles), tuple(marks)))
    # `_s`/`_m` are sorted by date, the oracle file is not: a system must see them in order.
    return tuple(sorted(out, key=lambda s: s.date_iso))


def parse_record(raw: object, position: int, span: tuple[int, int], file: str) -> QuestionMeta:
    if not isinstance(raw, dict):
        raise _fail("expected a question object", file, position)
    qid = raw.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise _fail("missing or not a string", file, position, "question_id")
    for name in _FIELDS:
        if name not in raw:
            raise _fail("missing", file, qid, name)
    qtype = raw["question_type"]
    if qtype not in QUESTION_TYPES:
        raise _fail(f"unknown question type {qtype!r}", file, qid, "question_type")
    if not isinstance(raw["question"], str):
        raise _fail("expected a string", file, qid, "question")
    answer = raw["answer"]
    if isinstance(answer, bool) or not isinstance(answer, str | int):
        raise _fail("expected a string or an integer", file, qid, "answer")
    try:
        date_iso = parse_date(raw["question_date"])
    except ValueError as exc:
        raise _fail(str(exc), file, qid, "question_date") from None
    gold = raw["answer_session_ids"]
    if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
        raise _fail("expected a list of strings", file, qid, "answer_session_ids")
    return QuestionMeta(
        position=position,
        question_id=qid,
        question_type=qtype,
        question=raw["question"],
        answer=answer,
        date_raw=raw["question_date"],
        date_iso=date_iso,
        answer_session_ids=tuple(gold),
        sessions=_sessions(raw, file, qid),
        span=span,
    )


def load_longmemeval(
    path: str | Path | None, known_files: tuple[KnownFile, ...] = KNOWN_FILES
) -> LongMemEvalData:
    """Check every record (one at a time), index them, and name the file by its sha256."""
    if path is None:
        raise DatasetError(
            "no dataset: pass --dataset PATH (a LongMemEval file) or run "
            "`locoscore dataset fetch longmemeval-s` and pass the path it prints"
        )
    resolved = Path(path)
    if not resolved.is_file():
        raise DatasetError("dataset file not found", file=str(resolved))
    file = str(resolved)
    questions: list[QuestionMeta] = []
    seen: set[str] = set()
    try:
        with resolved.open("rb") as handle:
            for position, (offset, length) in enumerate(object_spans(handle)):
                keep = handle.tell()
                handle.seek(offset)
                text = handle.read(length)
                handle.seek(keep)
                try:
                    raw = json.loads(text)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise _fail(f"not valid JSON ({exc})", file, position) from None
                meta = parse_record(raw, position, (offset, length), file)
                if meta.question_id in seen:
                    raise _fail("duplicate question_id", file, meta.question_id, "question_id")
                seen.add(meta.question_id)
                questions.append(meta)
    except NotAnArray as exc:
        raise DatasetError(f"not a LongMemEval file: {exc}", file=file) from None
    if not questions:
        raise DatasetError("not a LongMemEval file: the list holds no questions", file=file)
    digest = sha256_file(resolved)
    data = LongMemEvalData(resolved, digest, questions, known_files)
    if data.known is None:
        warnings.warn(
            f"{resolved}: sha256 {digest} matches no released LongMemEval file "
            f"({', '.join(f.filename for f in known_files)}); scores may not be comparable",
            ChecksumWarning,
            stacklevel=2,
        )
    return data
