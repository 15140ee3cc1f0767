"""The published-baselines chart: this run's per-category bars beside the same protocol's
published ones (data choices here, drawing in `report.charts`)."""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.benchmarks.locomo.comparison import category_ids, sample_label
from locoscore.benchmarks.locomo.metrics import judge_baseline_protocol
from locoscore.generic.metric_stats import MetricStats
from locoscore.report import charts
from locoscore.report.document import Block, Figure


def comparison_figure(
    ms: MetricStats, judge_protocol: str | None = None, sample: dict[str, Any] | None = None
) -> list[Block]:
    """This run's per-category bars with 95 % CI whiskers beside same-protocol baselines;
    with `sample`, its bars are named as a subset."""
    metric = ms.metric
    ids = category_ids(ms.overall_includes_excluded)
    groups = [CATEGORY_NAMES[c] for c in ids] + ["overall"]
    cells = [ms.by_category.get(c) for c in ids] + [ms.overall]
    series = [
        charts.BarSeries(
            ("This run" if sample is None else sample_label(sample)) + " (95 % CI)",
            [c.mean if c else None for c in cells],
            [c.bootstrap.low if c else None for c in cells],
            [c.bootstrap.high if c else None for c in cells],
        )
    ]
    protocol = judge_baseline_protocol(judge_protocol) if metric.is_judge else None
    protocol = protocol or (None if metric.is_judge else metric.baseline_protocol)
    if protocol is not None:
        for row in baselines.rows_for(protocol):
            if row.values:
                values = [row.values.get(c) for c in ids] + [row.overall]
                series.append(charts.BarSeries(row.system, values))
    title = f"{metric.label} by category"
    svg = charts.grouped_bar_chart(title, groups, series, metric.label, y_max=100)
    name = f"categories-{metric.column}"
    caption = "Whiskers: 95 % bootstrap CI over questions."
    if sample is not None:
        caption += f" This run: {sample.get('signature')}; the published bars: full benchmark."
    if protocol is None and metric.is_judge:
        caption += " No published J on this judge's scale."
    return [Figure(name, title, svg, caption)]
