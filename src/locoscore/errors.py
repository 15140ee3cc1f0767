"""One exception hierarchy; the CLI turns `InputError` into one red line and exit code 2."""

from __future__ import annotations


class LocoscoreError(Exception):
    """Base class of every error locoscore raises on purpose."""


class InputError(LocoscoreError):
    """Bad user input: names the file, the record (or line) and the field."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        record: str | int | None = None,
        field: str | None = None,
    ) -> None:
        self.file = file
        self.record = record
        self.field = field
        self.reason = message
        parts = []
        if file is not None:
            parts.append(str(file))
        if record is not None:
            # JSONL positions read better as "line 12" than "record line 12".
            is_line = isinstance(record, str) and record.startswith("line ")
            parts.append(str(record) if is_line else f"record {record}")
        if field is not None:
            parts.append(f"field '{field}'")
        where = ": ".join([", ".join(parts)]) if parts else ""
        super().__init__(f"{where}: {message}" if where else message)


class DatasetError(InputError):
    """The LoCoMo dataset file is missing, unreadable or malformed."""


class SystemCallError(LocoscoreError):
    """A memory system's call failed (its code raised, or it returned the wrong shape).

    Carries the call and the conversation/question it was for, so a run records it against
    that question (and retries it on rerun) instead of crashing.
    """

    def __init__(
        self,
        message: str,
        *,
        system: str,
        call: str,
        conversation_id: str | None = None,
        question_id: str | None = None,
    ) -> None:
        self.system = system
        self.call = call
        self.conversation_id = conversation_id
        self.question_id = question_id
        self.reason = message
        where = (
            f"question {question_id}"
            if question_id is not None
            else f"conversation {conversation_id}"
            if conversation_id is not None
            else None
        )
        subject = f"{system} {call}" + (f" ({where})" if where else "")
        super().__init__(f"{subject}: {message}")
