"""Plain per-type rows of the lexical summary, for the terminal table of `score`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def lexical_table_rows(
    summary: dict[str, Any], order: Sequence[int], with_counts: bool = True
) -> list[tuple[str, str, list[str]]]:
    """(label, signature, cells in `order` (type ids) + overall) for each protocol metric.

    Cells are x100 with two decimals, the question count in brackets unless `with_counts`
    is false; '-' when absent.
    """
    out = []
    for proto_name, proto in summary.get("lexical", {}).items():
        for metric, block in proto["metrics"].items():
            stats = [block["by_category"].get(str(cid)) for cid in order]
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
