"""Report tables over every metric's statistics (`generic.metric_stats`): each metric per
group and overall with its 95 % interval, and how the numbers in them are written."""

from __future__ import annotations

import math
from typing import Any

from locoscore.generic.folder_parts import Groups
from locoscore.generic.metric_stats import CellStats, MetricStats
from locoscore.report.document import Table
from locoscore.report.numbers import DASH, fmt


def seconds(value: float | None) -> str:
    """A duration: under a second in ms ("3.2 ms", "850 ms"), else seconds ("1.25 s")."""
    if value is None:
        return DASH
    if value >= 1.0:
        return f"{value:.2f} s"
    ms = 1000.0 * value
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


def ci_text(cell: CellStats, decimals: int, clustered: bool = False) -> str:
    """The 95 % interval of a cell as text; n/a where undefined."""
    ci = cell.clustered if clustered else cell.bootstrap
    if not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        return "n/a (needs 2+ conversations)"
    return f"[{ci.low:.{decimals}f}, {ci.high:.{decimals}f}]"


def breakdown_table(
    metrics: list[MetricStats], rows: list[dict[str, Any]], groups: Groups
) -> Table:
    """Each metric per group and overall with its 95 % bootstrap interval."""
    counts: dict[Any, int] = {}
    for row in rows:
        counts[row[groups.field]] = counts.get(row[groups.field], 0) + 1
    headers = ["Category", "questions", *(f"{ms.metric.label} [95 % CI]" for ms in metrics)]
    table_rows = []
    for cid in groups.order:
        if cid not in counts:
            continue
        cells = []
        for ms in metrics:
            cell = ms.by_category.get(cid)
            d = ms.metric.decimals
            cells.append(DASH if cell is None else f"{fmt(cell.mean, d)} {ci_text(cell, d)}")
        table_rows.append([groups.label(cid), str(counts[cid]), *cells])
    overall = [
        f"{fmt(ms.overall.mean, ms.metric.decimals)} {ci_text(ms.overall, ms.metric.decimals)}"
        for ms in metrics
    ]
    table_rows.append(["overall", str(len(rows)), *overall])
    excluded = [ms.metric.label for ms in metrics if not ms.overall_includes_excluded]
    left_out = " and ".join(groups.names[k] for k in groups.order if k in groups.excluded)
    caption = "Overall follows each protocol's convention"
    caption += f"; {left_out} excluded for: {', '.join(excluded)}." if excluded else "."
    return Table(
        headers,
        table_rows,
        frozenset({len(table_rows) - 1}),
        (False, True, *(True for _ in metrics)),
        caption,
    )
