"""Read a results folder (`scores.jsonl` + `summary.json`) and check it before reporting or
comparing, against the benchmark's declared parts (`generic.folder_parts`): every row names
its question (the id fields) and a known group, and every score column holds a finite
number or null."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.errors import InputError
from locoscore.generic.folder_parts import FolderParts
from locoscore.results.identity import check_consistent
from locoscore.results.layout import SCORES, SUMMARY


@dataclass(frozen=True)
class Results:
    """One results folder: per-question rows and the run's summary, as written by locoscore."""

    path: Path
    rows: list[dict[str, Any]]
    summary: dict[str, Any]

    @property
    def judge(self) -> dict[str, Any] | None:
        judge = self.summary.get("judge")
        return judge if isinstance(judge, dict) else None

    def has(self, column: str) -> bool:
        return any(row.get(column) is not None for row in self.rows)

    def recorded_dataset_path(self) -> Path | None:
        """The dataset `score`/`judge` joined against, when that file is still there."""
        dataset = self.summary.get("dataset")
        path = dataset.get("path") if isinstance(dataset, dict) else None
        return Path(path) if isinstance(path, str) and Path(path).is_file() else None


def _check_number(value: Any, file: str, record: int, field: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(
            f"expected a finite number or null, got {value!r}",
            file=file,
            record=record,
            field=field,
        )


def _check_row(row: Any, parts: FolderParts, file: str, line: int) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise InputError("expected a JSON object", file=file, record=f"line {line}")
    groups = parts.groups
    for field in (*parts.id_fields, groups.field):
        if field not in row:
            raise InputError("missing", file=file, record=f"line {line}", field=field)
    group = row[groups.field]
    if group not in groups.names or isinstance(group, bool):
        raise InputError(
            f"unknown {groups.field} id {group!r} (expected {groups.expected})",
            file=file,
            record=f"line {line}",
            field=groups.field,
        )
    for field in (*(m.column for m in parts.metrics), *parts.checked_numbers):
        _check_number(row.get(field), file, line, field)
    for field in () if parts.judge_runs is None else (parts.judge_runs,):
        value = row.get(field)
        if value is None:
            continue
        if not isinstance(value, list):
            raise InputError("expected a list", file=file, record=f"line {line}", field=field)
        for item in value:
            _check_number(item, file, line, field)
    return row


def load_results(directory: Path, parts: FolderParts) -> Results:
    """Load DIR/scores.jsonl and DIR/summary.json; bad input raises InputError naming the spot."""
    if not directory.is_dir():
        raise InputError(
            "not a results folder (run `locoscore score ... --out DIR` first)", file=str(directory)
        )
    scores_path = directory / SCORES
    summary_path = directory / SUMMARY
    for path in (scores_path, summary_path):
        if not path.is_file():
            raise InputError("missing (run `locoscore score ... --out DIR` first)", file=str(path))
    rows: list[dict[str, Any]] = []
    with scores_path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"not JSON ({exc.msg})", file=str(scores_path), record=f"line {number}"
                ) from None
            rows.append(_check_row(raw, parts, str(scores_path), number))
    if not rows:
        raise InputError("no scored questions", file=str(scores_path))
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})", file=str(summary_path)) from None
    if not isinstance(summary, dict):
        raise InputError("expected a JSON object", file=str(summary_path))
    check_consistent(directory, rows)  # every part names the same predictions
    return Results(path=directory, rows=rows, summary=summary)
