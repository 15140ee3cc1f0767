"""Read a predictions file as one JSON document or as JSONL (one object a line)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.errors import InputError

# Field names of one prediction record; the other formats' top-level keys are conversation
# indexes, `locomo_experiment_user_<i>` or `results`.
RECORD_FIELDS = frozenset(
    {"question", "ground_truth", "answer", "predicted_answer", "response", "prediction", "category"}
)


@dataclass
class LoadedFile:
    path: Path
    sha256: str
    raw: object  # the JSON document; for JSONL, the list of line objects
    jsonl_lines: list[int] | None = None  # 1-based line number of each JSONL object

    @property
    def file(self) -> str:
        return str(self.path)

    def keyed_object(self, expects: str) -> dict[str, Any]:
        """The document as the object a keyed format (mem0, zep) holds; `expects` says which."""
        if not isinstance(self.raw, dict):
            raise InputError(f"{expects}, got a JSON {type(self.raw).__name__}", file=self.file)
        return self.raw

    def check_items(self, key: str, items: object) -> list[Any]:
        """One key's value, which must be a list of items."""
        if not isinstance(items, list):
            raise InputError("must be a list of items", file=self.file, record=key)
        return items


def load_file(path: Path) -> LoadedFile:
    """Parse `path`; JSON first, JSONL when the file is several JSON values one a line."""
    file = str(path)
    if not path.exists():
        raise InputError("file not found", file=file)
    if not path.is_file():
        raise InputError("not a file", file=file)
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", file=file) from None
    if not text.strip():
        raise InputError("file is empty", file=file)
    try:
        raw = json.loads(text)
    except RecursionError:
        raise InputError("JSON nested too deeply to read", file=file) from None
    except json.JSONDecodeError as whole:
        lines = _jsonl_objects(text, file)
        if lines is None:
            msg, line, column = _syntax_error(text, whole)
            raise InputError(
                f"not valid JSON or JSONL: {msg} (column {column})",
                file=file,
                record=f"line {line}",
            ) from None
        numbers = [number for number, _ in lines]
        return LoadedFile(path, digest, [obj for _, obj in lines], numbers)
    if isinstance(raw, dict) and not RECORD_FIELDS.isdisjoint(raw):
        # A single-record JSONL file parses as one object (even one missing a field, so that
        # the error names the field rather than the shape).
        return LoadedFile(path, digest, [raw], [_first_line(text)])
    return LoadedFile(path, digest, raw)


def _syntax_error(text: str, exc: json.JSONDecodeError) -> tuple[str, int, int]:
    """(message, line, column) of a JSON syntax error, the same on every Python: a trailing
    comma is placed at the comma, as Python 3.13 reports it (3.11 and 3.12 point at the
    bracket after it, often a line later)."""
    before = text[: exc.pos].rstrip()
    if before.endswith(",") and text[exc.pos : exc.pos + 1] in ("}", "]"):
        comma = len(before) - 1
        line = text.count("\n", 0, comma) + 1
        kind = "object" if text[exc.pos] == "}" else "array"
        return (
            f"Illegal trailing comma before end of {kind}",
            line,
            comma - text.rfind("\n", 0, comma),
        )
    return exc.msg, exc.lineno, exc.colno


def _first_line(text: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.strip())


def _jsonl_objects(text: str, file: str) -> list[tuple[int, object]] | None:
    """Every non-blank line as JSON, or None when the first line is not a JSON object.

    A pretty-printed JSON file with a syntax error also fails to parse whole; its first
    line (`[` or `{`) is not an object, so the JSON error is the one to report.
    """
    rows = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    objects: list[tuple[int, object]] = []
    for number, line in rows:
        try:
            value = json.loads(line)
        except RecursionError:
            raise InputError(
                "JSON nested too deeply to read", file=file, record=f"line {number}"
            ) from None
        except json.JSONDecodeError as exc:
            if not objects:
                return None
            raise InputError(
                f"not valid JSON: {exc.msg} (column {exc.colno})",
                file=file,
                record=f"line {number}",
            ) from None
        if not objects and not isinstance(value, dict):
            return None
        objects.append((number, value))
    return objects
