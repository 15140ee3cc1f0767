"""What `compare` prints of a comparison of folders on several metrics: each metric's
overall B - A with its interval and tests, the questions left unpaired, the subset view's
size and every warning (compare.md holds the rest)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from locoscore.generic.paired_folders import Comparison
from locoscore.report.numbers import format_p


def print_comparison(out: Console, comparison: Comparison, b: str, several: bool) -> None:
    """B - A per metric (`b` names B); with `several` comparisons, the Holm-adjusted p too."""
    table = Table(title=f"{b} - A on {comparison.paired} shared questions")
    columns = ["metric", "A", b, f"{b} - A", "95 % CI", "Wilcoxon p"]
    columns += ["Holm p"] if several else []
    for column in columns:
        table.add_column(column, justify="left" if column == "metric" else "right", overflow="fold")
    for mc in comparison.metrics:
        cell, d = mc.overall, mc.metric.decimals
        holm = [format_p(cell.p_value)] if several else []
        table.add_row(
            mc.metric.label,
            f"{cell.mean_a:.{d}f}",
            f"{cell.mean_b:.{d}f}",
            f"{cell.difference:+.{d}f}",
            f"[{cell.ci.low:+.{d}f}, {cell.ci.high:+.{d}f}]",
            format_p(cell.wilcoxon.p_value),
            *holm,
        )
    out.print(table)
    missing = len(comparison.only_in_a) + len(comparison.only_in_b)
    if missing:
        out.print(
            f"[yellow]{len(comparison.only_in_a)} questions only in A, "
            f"{len(comparison.only_in_b)} only in {b} (not compared)[/]"
        )
    if comparison.subset is not None:
        v = comparison.subset
        out.print(
            f"{v.view.name}: {v.paired} shared questions {v.view.kept_words} "
            f"({v.excluded} left out); see compare.md",
            highlight=False,
        )
    for warning in comparison.warnings:
        prefix = f"{b}: " if several else ""
        out.print(
            f"[yellow]warning:[/] {escape(prefix + warning)}", highlight=False, soft_wrap=True
        )
