"""Which charts a report shows, built from the analysis (data choices here, drawing in charts)."""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.benchmarks.locomo.report.analysis import Analysis, MetricStats
from locoscore.benchmarks.locomo.report.metrics import J, judge_baseline_protocol
from locoscore.benchmarks.locomo.report.tables import category_ids, sample_label
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


def j_distribution(a: Analysis) -> list[Block]:
    values = [float(r[J.column]) for r in a.results.rows if r.get(J.column) is not None]
    if not values:
        return []
    title = "Per-question J (mean over runs)"
    edges = [float(x) for x in range(0, 101, 10)]
    svg = charts.histogram(title, values, edges, "J")
    return [Figure("j-distribution", title, svg, f"{len(values)} judged questions.")]


def latency_cdf(a: Analysis) -> list[Block]:
    series = {
        label: [float(r[key]) for r in a.results.rows if r.get(key) is not None]
        for key, label in (("search_latency_s", "search"), ("total_latency_s", "total"))
    }
    series = {k: v for k, v in series.items() if v}
    if not series:
        return []
    title = "Latency CDF"
    svg = charts.cdf_chart(title, series, "seconds")
    return [Figure("latency-cdf", title, svg)]
