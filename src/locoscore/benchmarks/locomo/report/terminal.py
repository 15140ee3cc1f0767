"""Rich tables for the terminal, shared by the commands and the prototype script: the
lexical protocols' (the judge's is `generic.judge_terminal`'s)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from locoscore.benchmarks.locomo.categories import GROUPS, LOCOMO_COLUMN_ORDER
from locoscore.benchmarks.locomo.report.analysis import Analysis
from locoscore.generic.judge_terminal import print_signatures as print_signatures
from locoscore.generic.judge_terminal import short_name
from locoscore.report.plain import lexical_table_rows


def lexical_table(lexical: dict[str, Any], protocols: list[str] | None = None) -> Table:
    """Per-category lexical scores (x100) of the summary's `lexical` section (the signatures
    are printed after it, whole: `print_signatures`)."""
    chosen = {k: v for k, v in lexical.items() if protocols is None or k in protocols}
    table = Table(title="locoscore: lexical scores (x100)", caption_justify="left")
    table.add_column("metric", overflow="fold")
    for cid in LOCOMO_COLUMN_ORDER:
        table.add_column(short_name(GROUPS, cid), justify="right", overflow="fold")
    table.add_column("overall", justify="right", overflow="fold")
    for label, _signature, cells in lexical_table_rows(
        {"lexical": chosen}, LOCOMO_COLUMN_ORDER, with_counts=False
    ):
        table.add_row(label.replace(" (", " ").rstrip(")"), *cells)
    first = next(iter(chosen.values()))["metrics"]["f1"]
    counts = [
        str(first["by_category"].get(str(c), {}).get("count", 0)) for c in LOCOMO_COLUMN_ORDER
    ]
    table.add_row("[dim]questions[/]", *[f"[dim]{c}[/]" for c in counts], "")
    table.caption = "overall: each protocol's own convention (locomo, spec include adversarial; "
    table.caption += "mem0 excludes it)"
    return table


def lexical_signatures(lexical: dict[str, Any], protocols: list[str] | None = None) -> list[str]:
    return [p["signature"] for k, p in lexical.items() if protocols is None or k in protocols]


def verified_gold_line(analysis: Analysis) -> str | None:
    """One line on the verified-gold view, or None when no errata are recorded."""
    view = analysis.verified
    if view is None:
        return None
    shown = []
    for ms in analysis.metrics:
        verified = view.metric(ms.metric.column)
        if verified is not None:
            d = ms.metric.decimals
            shown.append(
                f"{ms.metric.label} {ms.overall.mean:.{d}f} -> {verified.overall.mean:.{d}f}"
            )
    return (
        f"verified gold (errata sha256 {view.errata.sha256[:12]}...): {view.questions} of "
        f"{view.questions + view.excluded} questions kept, {view.excluded} with a wrong or "
        f"ambiguous gold left out" + (f"; {', '.join(shown)}" if shown else "")
    )
