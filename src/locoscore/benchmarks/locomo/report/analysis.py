"""Everything a report shows, computed once from a results folder (no API calls): the
shared statistics of every metric (`generic.metric_stats`) and LoCoMo's own views on them
(verified gold, examples spread across categories).

Scores are recomputed from `scores.jsonl` (the per-question source of truth) so that every
mean sits next to the interval computed from the same questions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from locoscore import stats
from locoscore.benchmarks.locomo.categories import GROUPS, LOCOMO_COLUMN_ORDER
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report.load import Results
from locoscore.benchmarks.locomo.report.metrics import Metric
from locoscore.benchmarks.locomo.report.verified import ErrataFlags, GoldCeilings, gold_ceilings
from locoscore.generic.answer_lengths import AnswerLengths, answer_lengths
from locoscore.generic.metric_stats import CellStats as CellStats
from locoscore.generic.metric_stats import JudgeStats, MetricStats, all_metric_stats, judge_stats
from locoscore.generic.metric_stats import metric_stats as folder_metric_stats
from locoscore.results.folder import row_key
from locoscore.results.layout import PREDICTIONS, SUMMARY

LATENCY_FIELDS = ("search_latency_s", "total_latency_s", "context_tokens")
EXAMPLE_COUNT = 5


@dataclass(frozen=True)
class VerifiedGoldView:
    """Every metric again on the questions whose gold stands under the recorded errata."""

    errata: ErrataFlags
    ceilings: GoldCeilings
    questions: int  # questions whose gold stands
    excluded: int  # questions left out: their gold is wrong or ambiguous
    excluded_by_category: dict[int, int]
    metrics: list[MetricStats]

    def metric(self, column: str) -> MetricStats | None:
        return next((m for m in self.metrics if m.metric.column == column), None)


@dataclass(frozen=True)
class Analysis:
    results: Results
    metrics: list[MetricStats]
    judge: JudgeStats | None
    latency: dict[str, stats.LatencyStats]
    primary: Metric | None
    ranked: list[dict[str, Any]] = field(default_factory=list)  # rows by primary, best first
    answer_lengths: AnswerLengths | None = None
    verified: VerifiedGoldView | None = None  # only when summary.json records errata
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

    def sample_for(self, metric: Metric) -> dict[str, Any] | None:
        """The sample behind a metric's numbers: J's own, else the folder's questions'."""
        if metric.is_judge and self.judge_sample is not None:
            return self.judge_sample
        return self.rows_sample


def metric_stats(
    results: Results, metric: Metric, include_adversarial: bool | None = None
) -> MetricStats | None:
    """`include_adversarial` overrides the protocol's (or the judge's) own convention."""
    return folder_metric_stats(results, metric, PARTS, include_adversarial)


def question_order(row: dict[str, Any]) -> tuple[str, int, str]:
    """Sort key in dataset order: conv-26#2 before conv-26#10 (a plain string sort would not)."""
    qa = row.get("qa_index")
    index = qa if isinstance(qa, int) and not isinstance(qa, bool) else -1
    return str(row.get("sample_id")), index, row_key(row)


def verified_gold_view(results: Results) -> VerifiedGoldView | None:
    """The verified-gold view of a folder whose summary.json records errata, else None."""
    section = results.summary.get("errata")
    if section is None:
        return None
    flags = ErrataFlags.from_section(section, str(results.path / SUMMARY))
    kept = [r for r in results.rows if flags.gold_stands(r)]
    ceilings = gold_ceilings(results.rows, flags)
    return VerifiedGoldView(
        errata=flags,
        ceilings=ceilings,
        questions=len(kept),
        excluded=len(results.rows) - len(kept),
        excluded_by_category={cid: c.gold_wrong for cid, c in ceilings.by_category.items()},
        metrics=all_metric_stats(replace(results, rows=kept), PARTS),
    )


def _stable(row: dict[str, Any]) -> str:
    """A tie-break that is deterministic but not the dataset's order (which would fill an
    example table with one conversation's first questions)."""
    return hashlib.sha256(row_key(row).encode()).hexdigest()


def spread(
    rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any], count: int = EXAMPLE_COUNT
) -> list[dict[str, Any]]:
    """The first `count` rows by `key`, taken in turn from each category (the LoCoMo
    paper's order) so that no single category fills the table; shown in `key` order."""
    queues = [
        sorted((r for r in rows if r["category"] == cid), key=lambda r: (key(r), _stable(r)))
        for cid in LOCOMO_COLUMN_ORDER
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
    results: Results, primary: Metric | None, metrics: list[MetricStats]
) -> dict[str, list[dict[str, Any]]]:
    """Informative questions for the error analysis, each list spread across categories:
    `lowest` / `highest` by the primary metric (ties: more evidence retrieved first);
    `disagreements`: largest |official F1 x100 - J| (both measured); `missed_with_evidence`:
    the lowest scores among questions whose evidence was retrieved (run folders)."""
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
        "lowest": spread(scored, lambda r: (score(r), -retrieved(r))),
        "highest": spread(scored, lambda r: (-score(r), -retrieved(r))),
    }
    columns = {m.metric.column for m in metrics}
    if {"f1_locomo", "j_mean"} <= columns:
        both = [r for r in scored if r.get("f1_locomo") is not None and r.get("j_mean") is not None]
        out["disagreements"] = spread(
            both, lambda r: -abs(100.0 * float(r["f1_locomo"]) - float(r["j_mean"]))
        )
    with_evidence = [r for r in scored if retrieved(r) > 0]
    if with_evidence:
        out["missed_with_evidence"] = spread(with_evidence, lambda r: (score(r), -retrieved(r)))
    return out


def analyse(results: Results) -> Analysis:
    metrics = all_metric_stats(results, PARTS)
    latency = {
        name: lat
        for name in LATENCY_FIELDS
        if (lat := stats.LatencyStats.from_values([r.get(name) for r in results.rows]))
    }
    primary = next((m.metric for m in metrics if m.metric.is_judge), None)
    primary = primary or (metrics[0].metric if metrics else None)
    ranked: list[dict[str, Any]] = []
    if primary is not None:
        column = primary.column
        scored = [r for r in results.rows if r.get(column) is not None]
        ranked = sorted(scored, key=lambda r: (-float(r[column]), *question_order(r)))
    return Analysis(
        results,
        metrics,
        judge_stats(results, PARTS),
        latency,
        primary,
        ranked,
        answer_lengths(results.rows, GROUPS),
        verified_gold_view(results),
        examples(results, primary, metrics),
    )
