"""How every table writes a number: a dash for none, fixed decimals, a p-value that never
prints as 0."""

from __future__ import annotations

DASH = "–"


def fmt(value: float | None, decimals: int = 1, std: float | None = None) -> str:
    if value is None:
        return DASH
    text = f"{value:.{decimals}f}"
    return f"{text} ± {std:.{decimals}f}" if std is not None else text


def format_p(p: float) -> str:
    """Four decimals, or scientific notation below 0.001 so a tiny p never prints as 0."""
    return f"{p:.4f}" if p >= 0.001 else f"{p:.1e}"
