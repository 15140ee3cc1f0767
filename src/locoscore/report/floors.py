"""The report's block for a folder's blind baselines (summary.json `floors`, written by
`generic.floors` from `Benchmark.blind_baselines`): what a score no model made reaches on the
same questions, overall and per type, and the folder's margin over the best of them, so a
headline near a floor reads as what it is."""

from __future__ import annotations

from typing import Any

from locoscore.report.document import Block, Heading, Notes, Paragraph, Table

HEADING = "Blind baselines (floors without a model)"


def _cell(mean: Any, ci95: Any) -> str:
    if mean is None:
        return "–"
    if isinstance(ci95, list) and len(ci95) == 2:
        return f"{mean:.1f} [{ci95[0]:.1f}, {ci95[1]:.1f}]"
    return f"{mean:.1f}"


def margin_text(floors: dict[str, Any]) -> str | None:
    """The margin over the best floor in one sentence; None when the folder has none."""
    margin = floors.get("margin")
    if not isinstance(margin, dict) or margin.get("mean") is None:
        return None
    low, high = margin["ci95"]
    p = margin.get("p_value")
    test = f"; Wilcoxon signed-rank p = {p:.3g}" if isinstance(p, int | float) else ""
    return (
        f"Margin over the best floor ({margin.get('over')}): {margin['mean']:+.1f} "
        f"[{low:+.1f}, {high:+.1f}] points of the benchmark's metric, paired over the "
        f"{margin.get('count')} questions both hold{test}. A result is worth what it adds "
        "to this floor."
    )


def floors_blocks(summary: dict[str, Any], per_type: bool = True) -> list[Block]:
    """A heading, the margin over the best floor, one row per baseline (overall, then each
    type unless `per_type` is False: a report that shows them beside its own per-type
    table), and each baseline's description; nothing when the folder records none."""
    floors = summary.get("floors")
    if not isinstance(floors, dict) or not isinstance(floors.get("blind"), list):
        return []
    blind = floors["blind"]
    if not blind:
        return []
    types: list[str] = []
    for entry in blind if per_type else []:
        types += [t for t in entry.get("by_type") or {} if t not in types]
    rows = []
    for entry in blind:
        by_type = entry.get("by_type") or {}
        rows.append(
            [str(entry.get("name")), str(entry.get("n"))]
            + [_cell(entry.get("score"), entry.get("ci95"))]
            + [_cell((by_type.get(t) or {}).get("mean"), None) for t in types]
        )
    headers = ["baseline", "n", "overall", *types]
    margin = margin_text(floors)
    return [
        Heading(HEADING),
        *([Paragraph(margin)] if margin else []),
        Paragraph(
            "Scores (0-100) that a rule reading no conversation reaches on the "
            f"{floors.get('questions')} questions of this folder, computed by the benchmark "
            "without any model: a result near one of them is not evidence of memory."
        ),
        Table(headers, rows, numeric=(False, *[True] * (len(headers) - 1))),
        Notes([f"{entry.get('name')}: {entry.get('description')}" for entry in blind]),
    ]
