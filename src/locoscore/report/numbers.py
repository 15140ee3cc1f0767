"""How every table writes a number: a dash for none, fixed decimals, a mean with its
interval, a p-value that never prints as 0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DASH = "–"


def fmt(value: float | None, decimals: int = 1, std: float | None = None) -> str:
    if value is None:
        return DASH
    text = f"{value:.{decimals}f}"
    return f"{text} ± {std:.{decimals}f}" if std is not None else text


def mean_ci(block: Mapping[str, Any] | None, missing: str = DASH, count: bool = False) -> str:
    """A summary block's mean with its 95% interval, one decimal (`count`: and its n);
    `missing` where the block has no mean."""
    if not block or block.get("mean") is None:
        return missing
    low, high = block["ci95"]
    text = f"{block['mean']:.1f} [{low:.1f}, {high:.1f}]"
    return f"{text} (n={block['count']})" if count else text


def format_p(p: float) -> str:
    """Four decimals, or scientific notation below 0.001 so a tiny p never prints as 0."""
    return f"{p:.4f}" if p >= 0.001 else f"{p:.1e}"
