"""Everything a report shows, computed once from a results folder (no API calls).

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
from locoscore.benchmarks.locomo.categories import ADVERSARIAL, GROUPS, LOCOMO_COLUMN_ORDER
from locoscore.benchmarks.locomo.report.load import Results
from locoscore.benchmarks.locomo.report.metrics import METRICS, Metric
from locoscore.benchmarks.locomo.report.verified import ErrataFlags, GoldCeilings, gold_ceilings
from locoscore.generic.answer_lengths import AnswerLengths, answer_lengths
from locoscore.results.folder import row_key
from locoscore.results.layout import PREDICTIONS, SUMMARY
from locoscore.summation import ordered_mean

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
LATENCY_FIELDS = ("search_latency_s", "total_latency_s", "context_tokens")
EXAMPLE_COUNT = 5


@dataclass(frozen=True)
class CellStats:
    """One metric over one group of questions, on the display scale."""

    n: int
    mean: float
    bootstrap: stats.Interval
    clustered: stats.Interval
    run_std: float | None = None  # J only: std across repeat indices of this group's J


@dataclass(frozen=True)
class MetricStats:
    metric: Metric
    by_category: dict[int, CellStats]
    overall: CellStats
    overall_includes_adversarial: bool


@dataclass(frozen=True)
class JudgeStats:
    protocol: str | None
    config: dict[str, Any]
    run_level: stats.RunLevel
    pooled_within_std: float | None
    unanimity: float | None
    agreement_name: str
    agreement: float | None
    runs_attempted: int
    runs_failed: int


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


def _cell(rows: list[dict[str, Any]], metric: Metric) -> CellStats | None:
    scored = [r for r in rows if r.get(metric.column) is not None]
    if not scored:
        return None
    values = [float(r[metric.column]) * metric.scale for r in scored]
    clusters = [str(r["sample_id"]) for r in scored]
    run_std = None
    if metric.is_judge:
        run_std = stats.run_level([r.get("j_scores") or [] for r in scored]).std
    return CellStats(
        n=len(values),
        mean=ordered_mean(values),
        bootstrap=stats.bootstrap_mean_ci(
            values, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED
        ),
        clustered=stats.clustered_mean_ci(values, clusters),
        run_std=run_std,
    )


def metric_stats(
    results: Results, metric: Metric, include_adversarial: bool | None = None
) -> MetricStats | None:
    """`include_adversarial` overrides the protocol's (or the judge's) own convention."""
    rows = results.rows
    includes_adv = metric.overall_includes_excluded
    if metric.is_judge:
        includes_adv = bool((results.judge or {}).get("include_adversarial", False))
    if include_adversarial is not None:
        includes_adv = include_adversarial
    by_category: dict[int, CellStats] = {}
    for cid in LOCOMO_COLUMN_ORDER:
        if cid == ADVERSARIAL and not includes_adv:
            continue
        cell = _cell([r for r in rows if r["category"] == cid], metric)
        if cell is not None:
            by_category[cid] = cell
    overall_rows = rows if includes_adv else [r for r in rows if r["category"] != ADVERSARIAL]
    overall = _cell(overall_rows, metric)
    if overall is None:
        return None
    return MetricStats(metric, by_category, overall, includes_adv)


def judge_stats(results: Results) -> JudgeStats | None:
    judged = [r for r in results.rows if r.get("j_scores")]
    if not judged or results.judge is None:
        return None
    config = results.judge
    protocol = config.get("protocol")
    runs = [list(r["j_scores"]) for r in judged]
    if protocol == "binary":
        name, agreement = "Fleiss' kappa", stats.fleiss_kappa(runs)
    else:
        name, agreement = "Krippendorff's alpha (interval)", stats.krippendorff_alpha_interval(runs)
    return JudgeStats(
        protocol=protocol,
        config=config,
        run_level=stats.run_level(runs),
        pooled_within_std=stats.pooled_within_std(runs),
        unanimity=stats.unanimity(runs),
        agreement_name=name,
        agreement=agreement,
        runs_attempted=sum(len(r) for r in runs),
        runs_failed=sum(1 for r in runs for s in r if s is None),
    )


def question_order(row: dict[str, Any]) -> tuple[str, int, str]:
    """Sort key in dataset order: conv-26#2 before conv-26#10 (a plain string sort would not)."""
    qa = row.get("qa_index")
    index = qa if isinstance(qa, int) and not isinstance(qa, bool) else -1
    return str(row.get("sample_id")), index, row_key(row)


def all_metric_stats(results: Results) -> list[MetricStats]:
    return [m for m in (metric_stats(results, metric) for metric in METRICS) if m is not None]


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
        metrics=all_metric_stats(replace(results, rows=kept)),
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
    metrics = all_metric_stats(results)
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
        judge_stats(results),
        latency,
        primary,
        ranked,
        answer_lengths(results.rows, GROUPS),
        verified_gold_view(results),
        examples(results, primary, metrics),
    )
