"""The plain first report written by `locoscore score`: one per-category table per metric."""

from __future__ import annotations

from typing import Any

from locoscore.categories import CATEGORY_NAMES, LOCOMO_COLUMN_ORDER


def lexical_table_rows(summary: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(label, signature, cells in LoCoMo column order + overall) for each protocol metric.

    Cells are x100 with two decimals; the count follows in brackets; '-' when absent.
    """
    out = []
    for proto_name, proto in summary.get("lexical", {}).items():
        for metric, block in proto["metrics"].items():
            cells = []
            for cid in LOCOMO_COLUMN_ORDER:
                stats = block["by_category"].get(str(cid))
                cells.append(f"{100 * stats['mean']:.2f} ({stats['count']})" if stats else "-")
            overall = block["overall"]
            cells.append(
                f"{100 * overall['mean']:.2f} ({overall['count']})"
                if overall["mean"] is not None
                else "-"
            )
            out.append((f"{metric} ({proto_name})", proto["signature"], cells))
    return out


def format_plain_report(summary: dict[str, Any]) -> str:
    header = [CATEGORY_NAMES[c] for c in LOCOMO_COLUMN_ORDER] + ["overall"]
    lines = ["# locoscore: lexical scores", ""]
    source = summary.get("input", {})
    lines.append(f"Input: `{source.get('path')}` ({source.get('format')}, "
                 f"{source.get('records')} records, sha256 `{source.get('sha256')}`)")
    dataset = summary.get("dataset")
    if dataset:
        lines.append(f"Dataset: `{dataset['path']}` (sha256 `{dataset['sha256']}`)")
    lines.append("")
    lines.append("Scores x100, question count in brackets. 'overall' follows each protocol's own "
                 "convention (LoCoMo includes adversarial, Mem0 excludes it).")
    lines.append("")
    for label, signature, cells in lexical_table_rows(summary):
        lines.append(f"## {label}")
        lines.append("")
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(f"Signature: `{signature}`")
        lines.append("")
    return "\n".join(lines)
