"""Rich tables for the terminal: the lexical protocols' scores per group, from summary.json's
`lexical` section (the judge's table is `generic.judge_terminal`'s)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from locoscore.generic.folder_parts import Groups
from locoscore.generic.judge_terminal import print_signatures as print_signatures
from locoscore.generic.judge_terminal import short_name
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
