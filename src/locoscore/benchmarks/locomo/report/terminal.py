"""Rich tables for the terminal, shared by the commands and the prototype script."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES, LOCOMO_COLUMN_ORDER
from locoscore.benchmarks.locomo.report.analysis import Analysis
from locoscore.report.plain import lexical_table_rows


def _short(cid: int) -> str:
    # short headers keep the tables readable on an 80-column terminal
    return CATEGORY_NAMES[cid].split("-")[0]


def lexical_table(lexical: dict[str, Any], protocols: list[str] | None = None) -> Table:
    """Per-category lexical scores (x100) of the summary's `lexical` section (the signatures
    are printed after it, whole: `print_signatures`)."""
    chosen = {k: v for k, v in lexical.items() if protocols is None or k in protocols}
    table = Table(title="locoscore: lexical scores (x100)", caption_justify="left")
    table.add_column("metric", overflow="fold")
    for cid in LOCOMO_COLUMN_ORDER:
        table.add_column(_short(cid), justify="right", overflow="fold")
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


def print_signatures(console: Console, signatures: list[str]) -> None:
    """Each signature alone on its line, never wrapped or cut at the terminal's width (nor
    at 80 columns when piped), so it can be copied whole."""
    for signature in signatures:
        console.print(signature, soft_wrap=True, highlight=False, markup=False)


def judge_table(section: dict[str, Any]) -> Table:
    """J ± std per category and overall from the summary's `judge` section."""
    table = Table(
        title=f"locoscore: LLM judge J ({section['protocol']}, 0-100, {section['runs']} runs)",
        caption="± is the std across questions (the run-to-run ± follows below)",
        caption_justify="left",
    )
    table.add_column("", overflow="fold")
    shown = [c for c in LOCOMO_COLUMN_ORDER if str(c) in section["by_category"]]
    for cid in shown:
        table.add_column(_short(cid), justify="right", overflow="fold")
    table.add_column("overall", justify="right", overflow="fold")

    def cell(stats: dict[str, Any]) -> str:
        if stats.get("mean") is None:
            return "-"
        std = "" if stats.get("std") is None else f" ± {stats['std']:.1f}"
        return f"{stats['mean']:.1f}{std}"

    cats = [section["by_category"][str(c)] for c in shown]
    table.add_row("J ± sd", *[cell(c) for c in cats], cell(section["overall"]))
    table.add_row(
        "[dim]questions[/]",
        *[f"[dim]{c['count']}[/]" for c in cats],
        f"[dim]{section['overall']['count']}[/]",
    )
    return table


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
