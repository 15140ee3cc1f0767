"""A results folder as `locoscore board` shows it: the `BoardRow`s its benchmark reads.

Every benchmark returns its rows from `Benchmark.board_rows` (one per view of its questions:
all of them, and any subset its report also gives, such as the questions whose gold stands):
its metrics (the headline first, on a 0-100 scale) with their 95 % intervals as its
summary.json records them, the metrics per question type, what was answered, and the
headline per question for the board's paired test against the group's leader. The board
reads nothing else of a benchmark. The readers here fail as bad input, naming the file and
field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore.errors import InputError
from locoscore.results.layout import PREDICTIONS, SCORES, SUMMARY

ALL_QUESTIONS = "all questions"  # the view of every question a folder holds
SHA_SHOWN = 12  # hex digits of a sha256 a board shows
# the rounding of paired differences on a 0-100 scale (ties must not be float noise)
PAIRED_DECIMALS = 6


@dataclass(frozen=True)
class BoardCell:
    mean: float | None  # 0-100
    low: float | None = None  # the 95 % interval the folder records
    high: float | None = None
    n: int | None = None


@dataclass(frozen=True)
class MetricColumn:
    """What a board column is: the metric's stable id, its header and its decimals."""

    key: str
    label: str
    decimals: int = 2


@dataclass(frozen=True)
class BoardMetric:
    key: str  # stable id in board.json (e.g. `lme_j_missing_wrong`)
    label: str  # what a table header says
    overall: BoardCell
    by_type: dict[str, BoardCell] = field(default_factory=dict)  # type or ability name
    decimals: int = 2  # what the tables show

    @property
    def column(self) -> MetricColumn:
        return MetricColumn(self.key, self.label, self.decimals)


@dataclass(frozen=True)
class RowFigures:
    """Speed and length figures a row shows (None where not recorded)."""

    context_tokens: float | None = None  # mean per question
    search_latency_s: tuple[float | None, float | None] = (None, None)  # p50, p95
    total_latency_s: tuple[float | None, float | None] = (None, None)
    answer_words: float | None = None  # mean


@dataclass(frozen=True)
class BoardRow:
    metrics: tuple[BoardMetric, ...]  # the headline first; empty when not judged
    question_ids: tuple[str, ...]  # every question the row's numbers are over
    answered: int | None  # None: not recorded
    failed: int | None  # answers the run could not make (None: not recorded)
    scores: dict[str, float]  # question id -> headline score (0-100), answered questions only
    judge_signature: str | None
    judge_run_std: float | None = None  # run-to-run std of the headline, 0-100
    type_word: str = "type"  # what the benchmark calls the groups of `by_type` (ability, ...)
    view: str = ALL_QUESTIONS  # which of the folder's questions the row is over
    lexical: tuple[tuple[str, str], ...] = ()  # (lexical protocol, signature), sorted
    # figures its report computed; None: the board reads summary.json's `run.measures`
    figures: RowFigures | None = None
    recorded_j: float | None = None  # J the source harness recorded in the input file
    # the metrics as the folder's own report records them (board.json shows these);
    # None: built from `metrics`
    recorded_metrics: dict[str, Any] | None = None
    # rounding of the paired test's per-question differences (None: exact)
    paired_decimals: int | None = PAIRED_DECIMALS

    @property
    def headline(self) -> BoardMetric | None:
        return self.metrics[0] if self.metrics else None


def read_summary(directory: Path) -> dict[str, Any]:
    path = directory / SUMMARY
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"missing (a results folder holds {SUMMARY})", file=str(path)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"not valid JSON ({exc})", file=str(path)) from None
    if not isinstance(loaded, dict):
        raise InputError("expected a JSON object", file=str(path))
    return loaded


def read_scores(directory: Path) -> list[dict[str, Any]]:
    return _read_question_lines(directory / SCORES)


@dataclass(frozen=True)
class JudgedFolder:
    """A judged folder as its benchmark's board row reads it: summary.json, its judge
    section, and scores.jsonl's rows."""

    summary: dict[str, Any]
    judge: dict[str, Any]
    rows: list[dict[str, Any]]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(str(r["question_id"]) for r in self.rows)


def judged_folder(directory: Path) -> JudgedFolder | None:
    """The folder's judged parts; None when it was answered and not judged yet (a row
    without a metric: `unjudged_row`)."""
    summary = read_summary(directory)
    judge = summary.get("judge")
    if not isinstance(judge, dict):
        return None
    return JudgedFolder(summary, judge, read_scores(directory))


def _read_question_lines(path: Path) -> list[dict[str, Any]]:
    from locoscore.results.answers_file import object_lines

    rows: list[dict[str, Any]] = []
    for number, row in object_lines(path):
        if not isinstance(row.get("question_id"), str):
            raise InputError(
                "expected an object with a question_id",
                file=str(path),
                record=f"line {number}",
                field="question_id",
            )
        rows.append(row)
    return rows


def dig(data: Any, *path: str) -> Any:
    """`data[path...]`, or None where a step is missing or not an object (summary.json
    parts a folder may lack)."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def need(data: Any, directory: Path, *path: str) -> Any:
    """`data[path...]`, or bad input naming summary.json and the dotted field."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            raise InputError("missing", file=str(directory / SUMMARY), field=".".join(path))
        data = data[key]
    return data


def number(value: Any, directory: Path, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            f"expected a number, got {value!r}", file=str(directory / SUMMARY), field=name
        )
    return float(value)


def cell(mean: Any, ci: Any, n: Any, directory: Path, name: str, scale: float = 1.0) -> BoardCell:
    """A summary.json figure and its `[low, high]` interval, shown x`scale`."""
    value = number(mean, directory, name)
    interval = ci if isinstance(ci, list | tuple) and len(ci) == 2 else (None, None)
    low, high = (number(v, directory, f"{name} ci95") for v in interval)
    return BoardCell(
        None if value is None else value * scale,
        None if low is None else low * scale,
        None if high is None else high * scale,
        n if isinstance(n, int) and not isinstance(n, bool) else None,
    )


def unjudged_row(directory: Path) -> BoardRow:
    """A run folder not judged yet (run.json, predictions, no judge section): every question
    the run was asked, from scores.jsonl when the folder has one, else from its predictions;
    answered = the questions whose answer call did not fail (no `error`). No metric: the
    board shows it as not judged, beside its cost and signature."""
    path = directory / SCORES
    if not path.exists():
        path = directory / PREDICTIONS
    if not path.exists():
        raise InputError(
            f"missing (a results folder not judged yet holds {PREDICTIONS})", file=str(path)
        )
    rows = _read_question_lines(path)
    failed = sum(1 for r in rows if r.get("error") or not r.get("submitted", True))
    ids = tuple(str(r["question_id"]) for r in rows)
    return BoardRow((), ids, len(rows) - failed, failed, {}, None)
