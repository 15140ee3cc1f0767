"""The lines of an answers file (a run's predictions.jsonl, or `{question_id, …}` JSONL of
another harness), each checked before a benchmark reads its fields: valid JSON, an object,
a string `question_id` the dataset holds, and no question answered twice."""

from __future__ import annotations

import json
from collections.abc import Container, Iterator
from pathlib import Path
from typing import Any

from locoscore.errors import InputError


def object_lines(path: Path, what: str = "file") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file; a file that is
    missing or unreadable, a line not JSON or not an object, is bad input naming the file
    and the line (`what`: how the message names a missing file)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{what} not found", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what} ({exc.strerror})", file=str(path)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", file=str(path), record=where) from None
        if not isinstance(record, dict):
            raise InputError("expected an object", file=str(path), record=where)
        yield number, record


def answer_lines(
    path: Path, known: Container[str], dataset: str
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, question id, record) for every non-blank line; bad input is one line naming
    the file, the line and the field."""
    seen: set[str] = set()
    for number, record in object_lines(path, "answers file"):
        where = f"line {number}"
        qid = record.get("question_id")
        if not isinstance(qid, str):
            raise InputError(
                "missing or not a string", file=str(path), record=where, field="question_id"
            )
        if qid not in known:
            raise InputError(
                f"unknown question id {qid!r} (not in {dataset})",
                file=str(path),
                record=where,
                field="question_id",
            )
        if qid in seen:
            raise InputError(f"question {qid!r} answered twice", file=str(path), record=where)
        seen.add(qid)
        yield where, qid, record
