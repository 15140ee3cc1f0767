"""This run beside published numbers of the same protocol, and only those: the per-group
comparison table and chart, and the latency table. The benchmark passes the published rows
(its own data and sources); a row needs what `PublishedRow` / `PublishedLatency` read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.folder_parts import Groups
from locoscore.generic.metric_stats import CellStats, MetricStats
from locoscore.generic.metric_tables import seconds
from locoscore.report import charts
from locoscore.report.document import Block, Figure, Table
from locoscore.report.numbers import DASH, fmt
from locoscore.stats import LatencyStats


class Cited(Protocol):
    def cite(self) -> str: ...


class PublishedRow(Protocol):
    """One published system under one protocol: its score per group key (x100) and overall."""

    @property
    def system(self) -> str: ...
    @property
    def note(self) -> str: ...
    @property
    def source(self) -> Cited: ...
    @property
    def values(self) -> Mapping[Any, float]: ...
    @property
    def overall(self) -> float | None: ...
    @property
    def overall_std(self) -> float | None: ...
    @property
    def overall_recomputable(self) -> bool: ...


class PublishedLatency(Protocol):
    """One published system's latency (seconds) and context tokens per query."""

    @property
    def system(self) -> str: ...
    @property
    def source(self) -> Cited: ...
    @property
    def search_p50(self) -> float | None: ...
    @property
    def search_p95(self) -> float | None: ...
    @property
    def total_p50(self) -> float | None: ...
    @property
    def total_p95(self) -> float | None: ...
    @property
    def context_tokens(self) -> float | None: ...


def shown_groups(groups: Groups, includes_excluded: bool) -> list[Any]:
    """The groups a table shows, in display order: all, or those an overall keeps."""
    return [c for c in groups.order if includes_excluded or c not in groups.excluded]


def _headers(groups: Groups, ids: list[Any], overall: str) -> list[str]:
    return ["System", *(groups.names[c] for c in ids), overall, "Source"]


def sample_label(sample: dict[str, Any]) -> str:
    """ "This run" as a subset row names itself: "This run (sample 50/1,986)"."""
    return f"This run (sample {sample.get('size', 0):,}/{sample.get('population', 0):,})"


def subset_note(sample: dict[str, Any]) -> str:
    return (
        f"This run is a sample of {sample.get('size', 0):,} of {sample.get('population', 0):,} "
        f"questions ({sample.get('signature')}); the published rows are over the full "
        "benchmark: a smoke test, not a comparison."
    )


def _ours(
    ms: MetricStats, ids: list[Any], with_std: bool, sample: dict[str, Any] | None = None
) -> list[str]:
    d = ms.metric.decimals

    def show(c: CellStats | None) -> str:
        if c is None:
            return DASH
        return fmt(c.mean, d, c.run_std if with_std else None)

    cells = [show(ms.by_category.get(c)) for c in ids]
    label = "This run" if sample is None else sample_label(sample)
    return [label, *cells, show(ms.overall), f"locoscore, n = {ms.overall.n}"]


def _published(row: PublishedRow, ids: list[Any], decimals: int) -> list[str]:
    cells = [fmt(row.values.get(c), decimals) for c in ids]
    overall = fmt(row.overall, decimals, row.overall_std)
    if row.overall is not None and not row.overall_recomputable and row.values:
        overall += " †"
    name = f"{row.system} ({row.note})" if row.note else row.system
    return [name, *cells, overall, row.source.cite()]


def comparison_table(
    ms: MetricStats | None,
    published: Sequence[PublishedRow],
    groups: Groups,
    includes_excluded: bool,
    decimals: int,
    with_std: bool = False,
    sample: dict[str, Any] | None = None,
) -> Table:
    """This run's row (`ms`; with `sample`, marked as a subset) above the published ones."""
    ids = shown_groups(groups, includes_excluded)
    scope = groups.scope(includes_excluded)
    rows: list[list[str]] = []
    highlight: frozenset[int] = frozenset()
    if ms is not None:
        rows.append(_ours(ms, ids, with_std, sample))
        highlight = frozenset({0})
    rows += [_published(r, ids, decimals) for r in published]
    numeric = (False, *(True for _ in ids), True, False)
    caption = ""
    missing = ms is not None and not any(k in ms.by_category for k in groups.excluded)
    if ms is not None and includes_excluded and missing:
        left_out = " and ".join(groups.names[k] for k in groups.order if k in groups.excluded)
        caption = (
            f"This run has no {left_out} questions, so its overall covers fewer question types "
            "than the published overall (which includes them): compare category by category."
        )
    subset = ""
    if ms is not None and sample is not None:
        caption = " ".join(c for c in (subset_note(sample), caption) if c)
        subset = str(sample.get("signature"))
    return Table(
        _headers(groups, ids, f"overall ({scope})"),
        rows,
        highlight,
        numeric,
        caption,
        subset=subset,
        own_numbers=ms is not None,
    )


def comparison_figure(
    ms: MetricStats,
    groups: Groups,
    published: Sequence[PublishedRow] | None,
    sample: dict[str, Any] | None = None,
) -> list[Block]:
    """This run's per-group bars with 95 % CI whiskers beside the published rows of its
    protocol (None: no published numbers on its scale); with `sample`, its bars are named as
    a subset."""
    metric = ms.metric
    ids = shown_groups(groups, ms.overall_includes_excluded)
    names = [groups.names[c] for c in ids] + ["overall"]
    cells = [ms.by_category.get(c) for c in ids] + [ms.overall]
    series = [
        charts.BarSeries(
            ("This run" if sample is None else sample_label(sample)) + " (95 % CI)",
            [c.mean if c else None for c in cells],
            [c.bootstrap.low if c else None for c in cells],
            [c.bootstrap.high if c else None for c in cells],
        )
    ]
    for row in published or ():
        if row.values:
            values = [row.values.get(c) for c in ids] + [row.overall]
            series.append(charts.BarSeries(row.system, values))
    title = f"{metric.label} by category"
    svg = charts.grouped_bar_chart(title, names, series, metric.label, y_max=100)
    name = f"categories-{metric.column}"
    caption = "Whiskers: 95 % bootstrap CI over questions."
    if sample is not None:
        caption += f" This run: {sample.get('signature')}; the published bars: full benchmark."
    if published is None and metric.is_judge:
        caption += " No published J on this judge's scale."
    return [Figure(name, title, svg, caption)]


def _lat(stat: LatencyStats | None, attr: str) -> str:
    return seconds(getattr(stat, attr)) if stat is not None else DASH


def latency_comparison_table(analysis: Analysis, published: Sequence[PublishedLatency]) -> Table:
    lat = analysis.latency
    search, total, tokens = (
        lat.get(k) for k in ("search_latency_s", "total_latency_s", "context_tokens")
    )
    headers = [
        "System",
        "search p50",
        "search p95",
        "total p50",
        "total p95",
        "context tokens (mean)",
        "Source",
    ]
    sample = analysis.rows_sample
    ours = [
        "This run" if sample is None else sample_label(sample),
        _lat(search, "p50"),
        _lat(search, "p95"),
        _lat(total, "p50"),
        _lat(total, "p95"),
        DASH if tokens is None else fmt(tokens.mean, 0),
        "locoscore",
    ]
    rows = [ours] + [
        [
            r.system,
            seconds(r.search_p50),
            seconds(r.search_p95),
            seconds(r.total_p50),
            seconds(r.total_p95),
            fmt(r.context_tokens, 0),
            r.source.cite(),
        ]
        for r in published
    ]
    numeric = (False, True, True, True, True, True, False)
    if sample is None:
        return Table(headers, rows, frozenset({0}), numeric)
    subset = str(sample.get("signature"))
    return Table(headers, rows, frozenset({0}), numeric, subset_note(sample), subset=subset)
