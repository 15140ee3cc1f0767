"""The report's charts of this folder's own numbers (the judge's per-question scores, the
latency CDF); data choices here, drawing in `report.charts`."""

from __future__ import annotations

from locoscore.generic.folder_analysis import Analysis
from locoscore.report import charts
from locoscore.report.document import Block, Figure


def j_distribution(a: Analysis) -> list[Block]:
    judge = a.parts.judge
    if judge is None:
        return []
    values = [float(r[judge.column]) for r in a.results.rows if r.get(judge.column) is not None]
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
