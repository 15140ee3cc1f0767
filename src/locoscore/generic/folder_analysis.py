"""Everything a report shows, computed once from a results folder (no API calls): the
shared statistics of every metric (`generic.metric_stats`), latency, answer length, the
benchmark's declared view (`ReportParts.view`) and examples spread across groups.

Scores are recomputed from `scores.jsonl` (the per-question source of truth) so that every
mean sits next to the interval computed from the same questions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from locoscore import stats
from locoscore._io import sha256_text
from locoscore.generic.answer_lengths import AnswerLengths, answer_lengths
from locoscore.generic.folder_parts import ColumnMetric
from locoscore.generic.metric_stats import JudgeStats, MetricStats, all_metric_stats, judge_stats
from locoscore.generic.report_parts import QuestionView, ReportParts
from locoscore.generic.scored_folder import Results
from locoscore.results.folder import row_key
from locoscore.results.layout import PREDICTIONS

EXAMPLE_COUNT = 5


@dataclass(frozen=True)
class Analysis:
    results: Results
    parts: ReportParts
    metrics: list[MetricStats]
    judge: JudgeStats | None
    latency: dict[str, stats.LatencyStats]
    primary: ColumnMetric | None
    ranked: list[dict[str, Any]] = field(default_factory=list)  # rows by primary, best first
    answer_lengths: AnswerLengths | None = None
    view: QuestionView | None = None  # the declared view, when the folder records its input
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # see `examples`

    def metric(self, column: str) -> MetricStats | None:
        return next((m for m in self.metrics if m.metric.column == column), None)

    @property
    def rows_sample(self) -> dict[str, Any] | None:
        """The sample the folder's questions are (`run --limit`), else None."""
        run = self.results.summary.get("run")
        sample = run.get("sample") if isinstance(run, dict) else None
        return sample if isinstance(sample, dict) else None

    @property
    def judge_sample(self) -> dict[str, Any] | None:
        """The sample the judge judged (`judge --limit`), else None."""
        sample = (self.results.judge or {}).get("sample")
        return sample if isinstance(sample, dict) else None

    def sample_for(self, metric: ColumnMetric) -> dict[str, Any] | None:
        """The sample behind a metric's numbers: J's own, else the folder's questions'."""
        if metric.is_judge and self.judge_sample is not None:
            return self.judge_sample
        return self.rows_sample


def question_order(row: dict[str, Any], parts: ReportParts) -> tuple[Any, ...]:
    """Sort key in dataset order: a#2 before a#10 (a plain string sort would not): the id
    fields as text, the last one as its number (-1 when it is none)."""
    *names, last = parts.folder.id_fields
    index = row.get(last)
    index = index if isinstance(index, int) and not isinstance(index, bool) else -1
    return (*(str(row.get(n)) for n in names), index, row_key(row))


def _stable(row: dict[str, Any]) -> str:
    """A tie-break that is deterministic but not the dataset's order (which would fill an
    example table with one conversation's first questions)."""
    return sha256_text(row_key(row))


def spread(
    rows: list[dict[str, Any]],
    key: Callable[[dict[str, Any]], Any],
    parts: ReportParts,
    count: int = EXAMPLE_COUNT,
) -> list[dict[str, Any]]:
    """The first `count` rows by `key`, taken in turn from each group (in display order) so
    that no single group fills the table; shown in `key` order."""
    groups = parts.folder.groups
    queues = [
        sorted((r for r in rows if r[groups.field] == g), key=lambda r: (key(r), _stable(r)))
        for g in groups.order
    ]
    picked: list[dict[str, Any]] = []
    while len(picked) < count and any(queues):
        for queue in queues:
            if queue and len(picked) < count:
                picked.append(queue.pop(0))
    return sorted(picked, key=lambda r: (key(r), _stable(r)))


def evidence_recall_by_key(results: Results) -> dict[str, float]:
    """Each question's evidence recall, from a run folder's predictions.jsonl (else empty)."""
    path = results.path / PREDICTIONS  # it holds each question's evidence recall
    if not isinstance(results.summary.get("run"), dict) or not path.is_file():
        return {}
    out: dict[str, float] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                return {}  # a damaged file only costs the evidence examples
            recall = record.get("evidence_recall") if isinstance(record, dict) else None
            if isinstance(recall, int | float) and not isinstance(recall, bool):
                out[row_key(record)] = float(recall)
    return out


def examples(
    results: Results, primary: ColumnMetric | None, metrics: list[MetricStats], parts: ReportParts
) -> dict[str, list[dict[str, Any]]]:
    """Informative questions for the error analysis, each list spread across groups:
    `lowest` / `highest` by the primary metric (ties: more evidence retrieved first);
    `disagreements`: largest |lexical x100 - J| (both measured, `ExampleParts.disagreement`);
    `missed_with_evidence`: the lowest scores among questions whose evidence was retrieved
    (run folders)."""
    if primary is None:
        return {}
    column = primary.column
    recall = evidence_recall_by_key(results)
    scored = [
        {**r, "evidence_recall": recall.get(row_key(r))}
        for r in results.rows
        if r.get(column) is not None
    ]

    def score(r: dict[str, Any]) -> float:
        return float(r[column])

    def retrieved(r: dict[str, Any]) -> float:
        return float(r["evidence_recall"] or 0.0)

    out = {
        "lowest": spread(scored, lambda r: (score(r), -retrieved(r)), parts),
        "highest": spread(scored, lambda r: (-score(r), -retrieved(r)), parts),
    }
    columns = {m.metric.column for m in metrics}
    pair = parts.examples.disagreement
    if pair is not None and set(pair) <= columns:
        lexical, judge = pair
        both = [r for r in scored if r.get(lexical) is not None and r.get(judge) is not None]
        out["disagreements"] = spread(
            both, lambda r: -abs(100.0 * float(r[lexical]) - float(r[judge])), parts
        )
    with_evidence = [r for r in scored if retrieved(r) > 0]
    if with_evidence:
        out["missed_with_evidence"] = spread(
            with_evidence, lambda r: (score(r), -retrieved(r)), parts
        )
    return out


def analyse(results: Results, parts: ReportParts) -> Analysis:
    metrics = all_metric_stats(results, parts.folder)
    latency = {
        name: lat
        for name in parts.latency_fields
        if (lat := stats.LatencyStats.from_values([r.get(name) for r in results.rows]))
    }
    primary = next((m.metric for m in metrics if m.metric.is_judge), None)
    primary = primary or (metrics[0].metric if metrics else None)
    ranked: list[dict[str, Any]] = []
    if primary is not None:
        column = primary.column
        scored = [r for r in results.rows if r.get(column) is not None]
        ranked = sorted(scored, key=lambda r: (-float(r[column]), *question_order(r, parts)))
    return Analysis(
        results,
        parts,
        metrics,
        judge_stats(results, parts.folder),
        latency,
        primary,
        ranked,
        answer_lengths(results.rows, parts.folder.groups),
        None if parts.view is None else parts.view.compute(results, parts),
        examples(results, primary, metrics, parts),
    )
