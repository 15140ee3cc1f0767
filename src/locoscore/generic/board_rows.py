"""A results folder's board rows, built from the parts its benchmark declares.

Three shapes of folder: one scored by the generic machinery (`board_row`: J when judged,
else the declared metric, then the margin over the best blind floor); one whose
summary.json `judge` section records the headline and its companions (`judged_row` with
`JudgedRowParts`: where each figure sits, the scores.jsonl column that feeds the paired
test); and one scored on several metric columns, whose rows are the statistics its own
report writes (`report_rows` with the report's declared parts), so a board row always
equals the folder's report, with a second row on the questions whose gold stands when the
folder records gold errata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl
from locoscore.errors import InputError
from locoscore.generic.errata_view import verified_of
from locoscore.generic.folder_analysis import analyse
from locoscore.generic.folder_parts import ColumnMetric
from locoscore.generic.folder_view import headline
from locoscore.generic.recorded_judge import recorded_judge
from locoscore.generic.report_build import statistics_section
from locoscore.generic.report_parts import ReportParts
from locoscore.generic.scored_folder import Results, load_results
from locoscore.results.board_row import (
    ALL_QUESTIONS,
    SHA_SHOWN,
    BoardCell,
    BoardMetric,
    BoardRow,
    RowFigures,
    cell,
    dig,
    judged_folder,
    need,
    number,
    read_summary,
    unjudged_row,
)
from locoscore.results.folder import row_key
from locoscore.results.layout import SCORES, SUMMARY


@dataclass(frozen=True)
class Figure:
    """A figure summary.json records: the object at `at` (a path from its root; a missing
    one reads as empty) holds its value, its `[low, high]` interval and its count."""

    at: tuple[str, ...]
    value: str
    ci: str | None = "ci95"
    count: str | None = None
    name: str = ""  # the field bad input names (default: the dotted path of `at`)

    def cell(self, summary: dict[str, Any], directory: Path, scale: float) -> BoardCell:
        block = dig(summary, *self.at)
        block = block if isinstance(block, dict) else {}
        name = self.name or ".".join(self.at)
        ci = block.get(self.ci) if self.ci else None
        count = block.get(self.count) if self.count else None
        return cell(block.get(self.value), ci, count, directory, name, scale)


@dataclass(frozen=True)
class TypeFigures:
    """A metric per question type: the object at `at` maps each type's key to a block of
    `value`, `ci` and `count`; `names` renames the keys, and `extra` adds cells (a type
    across the others) where summary.json records them."""

    at: tuple[str, ...]
    value: str
    ci: str = "ci95"
    count: str = "count"
    names: Mapping[str, str] = field(default_factory=dict)
    extra: tuple[tuple[str, Figure], ...] = ()

    def cells(self, summary: dict[str, Any], directory: Path, scale: float) -> dict[str, BoardCell]:
        prefix = ".".join(self.at)
        cells = {
            self.names.get(key, key): Figure(
                (*self.at, key), self.value, self.ci, self.count, f"{prefix}.{key}"
            ).cell(summary, directory, scale)
            for key in need(summary, directory, *self.at)
        }
        for name, figure in self.extra:
            if isinstance(dig(summary, *figure.at), dict):
                cells[name] = figure.cell(summary, directory, scale)
        return cells


@dataclass(frozen=True)
class SummaryMetric:
    """A board metric read from summary.json, shown x`scale`."""

    key: str  # stable id in board.json
    label: str
    overall: Figure
    by_type: TypeFigures | None = None
    scale: float = 1.0


@dataclass(frozen=True)
class JudgedRowParts:
    """What a benchmark judged into summary.json's `judge` section declares for its row."""

    required: tuple[tuple[str, ...], ...]  # summary.json paths a judged folder must hold
    metrics: tuple[SummaryMetric, ...]  # the headline first
    score_column: str  # scores.jsonl: the headline per question, stored 0-1
    counted: Callable[[dict[str, Any]], bool]  # a scores.jsonl row the paired test counts
    answered: tuple[str, ...]  # summary.json: the answered count (else: the scored rows)
    failed: tuple[str, ...]  # summary.json: the answers that failed
    run_std: tuple[str, ...] | None = None  # summary.json: the headline's run-to-run std
    score_scale: float = 100.0  # per-question scores and the run std, shown x this
    type_word: str = "type"


def judged_row(directory: Path, parts: JudgedRowParts) -> BoardRow:
    """The folder's row; a folder answered and not judged yet gives a row without a
    metric. Bad input raises InputError naming the file and field."""
    judged = judged_folder(directory)
    if judged is None:
        return unjudged_row(directory)
    summary = judged.summary
    for path in parts.required:
        need(summary, directory, *path)
    metrics = tuple(
        BoardMetric(
            m.key,
            m.label,
            m.overall.cell(summary, directory, m.scale),
            m.by_type.cells(summary, directory, m.scale) if m.by_type else {},
        )
        for m in parts.metrics
    )
    column = parts.score_column
    scores = {
        str(r["question_id"]): parts.score_scale * value
        for r in judged.rows
        if parts.counted(r)
        and (value := number(r.get(column), directory / SCORES, column)) is not None
    }
    answered, failed = dig(summary, *parts.answered), dig(summary, *parts.failed)
    run_std = None
    if parts.run_std is not None:
        run_std = number(dig(summary, *parts.run_std), directory, ".".join(parts.run_std))
    return BoardRow(
        metrics,
        judged.ids,
        int(answered) if isinstance(answered, int) else len(scores),
        failed if isinstance(failed, int) else None,
        scores,
        str(need(judged.judge, directory, "signature")),
        judge_run_std=None if run_std is None else parts.score_scale * run_std,
        type_word=parts.type_word,
    )


def board_row(directory: Path) -> Any:
    """The folder as a board row: the headline (J, else the metric) overall and per type,
    then the margin over the best blind floor when the folder records one."""
    summary = read_summary(directory)
    path = directory / SCORES
    rows = read_jsonl(path) if path.is_file() else []
    ids = tuple(str(r["question_id"]) for r in rows)
    answers = summary.get("answers") or {}
    failed = answers.get("failed")
    chosen = headline(summary)
    judge = summary.get("judge") or {}
    if chosen is None:
        return BoardRow((), ids, sum(bool(r.get("answered", True)) for r in rows), failed, {}, None)
    column, label, block = chosen

    def cell_of(b: dict[str, Any], name: str) -> Any:
        return cell(b.get("mean"), b.get("ci95"), b.get("count"), directory, name, scale=1.0)

    metric = BoardMetric(
        column,
        label,
        cell_of(block["overall"], f"{column}.overall"),
        {t: cell_of(b, f"{column}.by_type.{t}") for t, b in (block.get("by_type") or {}).items()},
    )
    scores = {
        str(r["question_id"]): 100 * float(r[column]) for r in rows if r.get(column) is not None
    }
    answered = int(answers.get("answered", len(scores)))
    metrics = (metric, *_floor_margin(summary, directory))
    return BoardRow(metrics, ids, answered, failed, scores, judge.get("signature"))


def _floor_margin(summary: dict[str, Any], directory: Path) -> tuple[BoardMetric, ...]:
    """The margin over the best blind floor (summary.json `floors.margin`, written by
    `generic.floors`) as a second metric, when the folder records one."""
    margin = (summary.get("floors") or {}).get("margin")
    if not isinstance(margin, dict):
        return ()
    figure = cell(
        margin.get("mean"), margin.get("ci95"), margin.get("count"), directory, "floors.margin"
    )
    return (BoardMetric("floor_margin", f"margin over {margin.get('over')}", figure),)


def _report_cell(block: dict[str, Any]) -> BoardCell:
    ci = block.get("ci95_bootstrap") or {}
    n = block.get("n")
    return BoardCell(
        block.get("mean"), ci.get("low"), ci.get("high"), n if type(n) is int else None
    )


def _type_name(names: Mapping[Any, str], key: str) -> str:
    return names.get(int(key), key) if key.isdigit() else names.get(key, key)


def _report_metric(metric: ColumnMetric, block: dict[str, Any], parts: ReportParts) -> BoardMetric:
    names = parts.folder.groups.names
    return BoardMetric(
        metric.column,
        metric.label,
        _report_cell(block.get("overall") or {}),
        {
            _type_name(names, k): _report_cell(c or {})
            for k, c in (block.get("by_category") or {}).items()
        },
        decimals=metric.decimals,
    )


def _report_scores(
    results: Results, rows: list[dict[str, Any]], metric: ColumnMetric, parts: ReportParts
) -> dict[str, float]:
    """Question key -> the headline x its scale, on the questions its overall counts
    (each protocol's own convention for the groups an overall leaves out)."""
    groups = parts.folder.groups
    if metric.is_judge:
        includes = bool((results.judge or {}).get(parts.folder.judge_includes, False))
    else:
        includes = metric.overall_includes_excluded
    return {
        row_key(r): float(r[metric.column]) * metric.scale
        for r in rows
        if r.get(metric.column) is not None and (includes or r[groups.field] not in groups.excluded)
    }


def _report_row(
    results: Results,
    rows: list[dict[str, Any]],
    view: str,
    metrics: dict[str, Any],
    section: dict[str, Any],
    parts: ReportParts,
    type_word: str,
) -> BoardRow:
    """The headline is the judge's metric when judged, else the first metric (declared
    order) the folder has; the rest follow in declared order."""
    summary = results.summary
    present = [m for m in parts.folder.metrics if m.column in metrics]
    ranked = [m for m in present if m.is_judge] or present
    ordered = [ranked[0], *(m for m in present if m != ranked[0])] if ranked else []
    failed = dig(summary, "run", "measures", "failed")
    judge = results.judge.get("signature") if results.judge else None
    latency = section.get("latency") or {}
    figures = RowFigures(
        dig(latency, "context_tokens", "mean"),
        (dig(latency, "search_latency_s", "p50"), dig(latency, "search_latency_s", "p95")),
        (dig(latency, "total_latency_s", "p50"), dig(latency, "total_latency_s", "p95")),
        dig(section, "answer_length", "overall", "mean"),
    )
    lexical = sorted(
        (name, str(block.get("signature") if isinstance(block, dict) else None))
        for name, block in (summary.get("lexical") or {}).items()
    )
    failed = failed if isinstance(failed, int) else None
    return BoardRow(
        tuple(_report_metric(m, metrics[m.column], parts) for m in ordered),
        tuple(row_key(r) for r in rows),
        None if failed is None else len(rows) - failed,
        failed,
        _report_scores(results, rows, ordered[0], parts) if ordered else {},
        None if judge is None else str(judge),
        judge_run_std=dig(section, "judge", "run_level_std"),
        type_word=type_word,
        view=view,
        lexical=tuple(lexical),
        figures=figures,
        recorded_j=dig(recorded_judge(summary), "overall", "mean"),
        recorded_metrics=metrics,
        paired_decimals=None,  # as `compare` pairs them
    )


def report_rows(directory: Path, parts: ReportParts, type_word: str) -> list[BoardRow]:
    """All questions, and the verified-gold view when summary.json records gold errata,
    from the statistics the folder's report writes. Bad input raises InputError naming
    the file."""
    results = load_results(directory, parts.folder)
    if not isinstance(results.summary.get("lexical", {}), dict):
        raise InputError("expected an object", file=str(directory / SUMMARY), field="lexical")
    analysis = analyse(results, parts)
    section = statistics_section(analysis)
    found = [
        _report_row(
            results, results.rows, ALL_QUESTIONS, section["metrics"], section, parts, type_word
        )
    ]
    view = verified_of(analysis)
    if view is not None and parts.view is not None:
        kept = [r for r in results.rows if view.errata.gold_stands(r)]
        name = f"verified gold (errata {view.errata.sha256[:SHA_SHOWN]})"
        metrics = section[parts.view.key]["metrics"]
        found.append(_report_row(results, kept, name, metrics, section, parts, type_word))
    return found
