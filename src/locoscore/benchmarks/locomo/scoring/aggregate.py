"""Per-question lexical scores -> per-category and overall figures."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from locoscore.benchmarks.locomo.categories import ADVERSARIAL, CATEGORY_NAMES
from locoscore.summation import ordered_mean


def category_stats(values: Sequence[float]) -> dict[str, float | int]:
    return {
        "mean": ordered_mean(values),
        "count": len(values),
        "min": min(values),
        "max": max(values),
    }


def group_by_category(
    rows: Iterable[Mapping[str, Any]], column: str, category_field: str = "category"
) -> dict[Hashable, list[float]]:
    groups: dict[Hashable, list[float]] = {}
    for row in rows:
        value = row.get(column)
        if value is not None:
            groups.setdefault(row[category_field], []).append(float(value))
    return groups


def _overall(groups: Mapping[int, list[float]], include_adversarial: bool) -> dict[str, Any]:
    kept = {cid: vals for cid, vals in groups.items() if include_adversarial or cid != ADVERSARIAL}
    values = [v for vals in kept.values() for v in vals]
    if not values:
        return {"question_weighted": None, "category_macro": None, "count": 0}
    means = [ordered_mean(vals) for vals in kept.values()]
    return {
        "question_weighted": ordered_mean(values),
        "category_macro": ordered_mean(means),
        "count": len(values),
    }


def summarise_metric(
    rows: Sequence[Mapping[str, Any]], column: str, *, includes_adversarial: bool
) -> dict[str, Any]:
    """The summary.json block of one metric: by category, overall both ways, with/without 5."""
    groups: dict[int, list[float]] = {
        int(k): v  # type: ignore[call-overload]
        for k, v in group_by_category(rows, column).items()
    }
    by_category = {
        str(cid): {"name": CATEGORY_NAMES[cid], **category_stats(groups[cid])}
        for cid in sorted(groups)
    }
    overall_all = _overall(groups, include_adversarial=True)
    overall_no_adv = _overall(groups, include_adversarial=False)
    own = overall_all if includes_adversarial else overall_no_adv
    return {
        "by_category": by_category,
        "overall_all": overall_all,
        "overall_no_adversarial": overall_no_adv,
        "overall": {
            "mean": own["question_weighted"],
            "count": own["count"],
            "includes_adversarial": includes_adversarial,
        },
    }
