"""Rich tables for the terminal: the lexical protocols' scores per group (summary.json's
`lexical` section), every metric's overall with its intervals, and a judge audit's
acceptance per probe set (the judge's table is `generic.judge_terminal`'s)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.folder_parts import Groups
from locoscore.generic.judge_terminal import print_signatures as print_signatures
from locoscore.generic.judge_terminal import short_name
from locoscore.generic.metric_stats import MetricStats
from locoscore.report.plain import lexical_table_rows


def lexical_table(
    lexical: dict[str, Any], groups: Groups, caption: str, protocols: list[str] | None = None
) -> Table:
    """Per-group lexical scores (x100) of the summary's `lexical` section, `caption` saying
    whose overall counts which groups (the signatures are printed after it, whole:
    `print_signatures`)."""
    order = groups.order
    chosen = {k: v for k, v in lexical.items() if protocols is None or k in protocols}
    table = Table(title="locoscore: lexical scores (x100)", caption_justify="left")
    table.add_column("metric", overflow="fold")
    for cid in order:
        table.add_column(short_name(groups, cid), justify="right", overflow="fold")
    table.add_column("overall", justify="right", overflow="fold")
    for label, _signature, cells in lexical_table_rows(
        {"lexical": chosen}, order, with_counts=False
    ):
        table.add_row(label.replace(" (", " ").rstrip(")"), *cells)
    first = next(iter(chosen.values()))["metrics"]["f1"]
    counts = [str(first["by_category"].get(str(c), {}).get("count", 0)) for c in order]
    table.add_row("[dim]questions[/]", *[f"[dim]{c}[/]" for c in counts], "")
    table.caption = caption
    return table


def lexical_signatures(lexical: dict[str, Any], protocols: list[str] | None = None) -> list[str]:
    return [p["signature"] for k, p in lexical.items() if protocols is None or k in protocols]


def overall_table(a: Analysis, more: Sequence[tuple[MetricStats, str]] = ()) -> Table:
    """Every metric's overall with both intervals; `more`: a view's metrics, each with the
    words that follow its label (" (verified gold)")."""
    table = Table(
        title="overall scores, 95 % intervals",
        caption=f"bootstrap over questions; clustered by {a.parts.unit_word}",
    )
    for column in ("metric", "n", "score", "bootstrap", "clustered"):
        table.add_column(column, justify="left" if column == "metric" else "right", overflow="fold")
    for ms, view in [*((ms, "") for ms in a.metrics), *more]:
        d, cell = ms.metric.decimals, ms.overall
        boot, clus = cell.bootstrap, cell.clustered
        table.add_row(
            ms.metric.label + view,
            str(cell.n),
            f"{cell.mean:.{d}f}",
            f"[{boot.low:.{d}f}, {boot.high:.{d}f}]",
            f"[{clus.low:.{d}f}, {clus.high:.{d}f}]" if clus.se is not None else "n/a",
        )
    return table


def audit_table(document: dict[str, Any]) -> Table:
    """A judge audit's acceptance per probe set (audit.json's `probe_sets`)."""
    table = Table(title="judge audit: % of answers accepted")
    for name in ("probe set", "should", "n", "accepted", "95 % CI", "run ±", "recorded", "ref."):
        table.add_column(
            name, justify="left" if name in ("probe set", "should") else "right", overflow="fold"
        )
    for s in document["probe_sets"]:
        cell = s["acceptance"]["overall"]
        ci = cell["ci95"]
        recorded = (s.get("recorded") or {}).get("overall") or {}
        reference = s.get("reference") or {}
        table.add_row(
            s["name"],
            s["expect"] or "-",
            str(cell["n"]),
            "-" if cell["rate"] is None else f"{cell['rate']:.1f}",
            "-" if ci["low"] is None else f"[{ci['low']:.1f}, {ci['high']:.1f}]",
            "-" if cell["run_level"]["std"] is None else f"{cell['run_level']['std']:.2f}",
            "-" if recorded.get("mean") is None else f"{recorded['mean']:.2f}",
            "-" if reference.get("overall") is None else f"{reference['overall']:.2f}",
        )
    return table
