"""The plain first report written by `locoscore score`: one per-category table per metric."""

from __future__ import annotations

from typing import Any

from locoscore.categories import CATEGORY_NAMES, LOCOMO_COLUMN_ORDER


def lexical_table_rows(
    summary: dict[str, Any], with_counts: bool = True
) -> list[tuple[str, str, list[str]]]:
    """(label, signature, cells in LoCoMo column order + overall) for each protocol metric.

    Cells are x100 with two decimals, the question count in brackets unless `with_counts`
    is false; '-' when absent.
    """
    out = []
    for proto_name, proto in summary.get("lexical", {}).items():
        for metric, block in proto["metrics"].items():
            stats = [block["by_category"].get(str(cid)) for cid in LOCOMO_COLUMN_ORDER]
            overall = block["overall"]
            pairs = [(s["mean"], s["count"]) if s else None for s in stats]
            pairs.append(
                (overall["mean"], overall["count"]) if overall["mean"] is not None else None
            )
            cells = [
                "-"
                if pair is None
                else f"{100 * pair[0]:.2f}" + (f" ({pair[1]})" if with_counts else "")
                for pair in pairs
            ]
            out.append((f"{metric} ({proto_name})", proto["signature"], cells))
    return out


def format_plain_report(summary: dict[str, Any]) -> str:
    header = [CATEGORY_NAMES[c] for c in LOCOMO_COLUMN_ORDER] + ["overall"]
    lines = ["# locoscore: lexical scores", ""]
    source = summary.get("input", {})
    lines.append(
        f"Input: `{source.get('path')}` ({source.get('format')}, "
        f"{source.get('records')} records, sha256 `{source.get('sha256')}`)"
    )
    dataset = summary.get("dataset")
    if dataset:
        lines.append(f"Dataset: `{dataset['path']}` (sha256 `{dataset['sha256']}`)")
    lines.append("")
    lines.append(
        "Scores x100, question count in brackets. 'overall' follows each protocol's own "
        "convention (LoCoMo includes adversarial, Mem0 excludes it)."
    )
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
