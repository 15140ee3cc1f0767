"""Every declared metric of a results folder over each group of questions and overall, on
its display scale: the mean with a percentile-bootstrap 95 % interval over questions and one
clustered by the question's first id field (its conversation), J's std across repeat runs;
and the judge's agreement with itself across its runs (`generic.folder_parts` names the
groups, the metrics and the judge's runs column)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from locoscore import stats
from locoscore.generic.folder_parts import ColumnMetric, FolderParts
from locoscore.generic.scored_folder import Results
from locoscore.summation import ordered_mean

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


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
    metric: ColumnMetric
    by_category: dict[Any, CellStats]
    overall: CellStats
    overall_includes_excluded: bool  # the overall counts the groups left out by default


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


def _cell(rows: list[dict[str, Any]], metric: ColumnMetric, parts: FolderParts) -> CellStats | None:
    scored = [r for r in rows if r.get(metric.column) is not None]
    if not scored:
        return None
    values = [float(r[metric.column]) * metric.scale for r in scored]
    clusters = [str(r[parts.id_fields[0]]) for r in scored]
    run_std = None
    if metric.is_judge and parts.judge_runs is not None:
        run_std = stats.run_level([r.get(parts.judge_runs) or [] for r in scored]).std
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
    results: Results,
    metric: ColumnMetric,
    parts: FolderParts,
    include_excluded: bool | None = None,
) -> MetricStats | None:
    """`include_excluded` overrides the metric's (or the judge's) own convention for the
    groups an overall leaves out by default."""
    rows, groups = results.rows, parts.groups
    includes = metric.overall_includes_excluded
    if metric.is_judge:
        includes = bool((results.judge or {}).get(parts.judge_includes, False))
    if include_excluded is not None:
        includes = include_excluded
    by_category: dict[Any, CellStats] = {}
    for cid in groups.order:
        if cid in groups.excluded and not includes:
            continue
        cell = _cell([r for r in rows if r[groups.field] == cid], metric, parts)
        if cell is not None:
            by_category[cid] = cell
    overall_rows = rows if includes else [r for r in rows if r[groups.field] not in groups.excluded]
    overall = _cell(overall_rows, metric, parts)
    if overall is None:
        return None
    return MetricStats(metric, by_category, overall, includes)


def all_metric_stats(results: Results, parts: FolderParts) -> list[MetricStats]:
    found = (metric_stats(results, metric, parts) for metric in parts.metrics)
    return [m for m in found if m is not None]


def judge_stats(results: Results, parts: FolderParts) -> JudgeStats | None:
    """How the judge agreed with itself across its runs (Fleiss' kappa for right/wrong
    verdicts, Krippendorff's alpha for graded ones), from each question's runs."""
    column = parts.judge_runs
    if column is None:
        return None
    judged = [r for r in results.rows if r.get(column)]
    if not judged or results.judge is None:
        return None
    config = results.judge
    protocol = config.get("protocol")
    runs = [list(r[column]) for r in judged]
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
