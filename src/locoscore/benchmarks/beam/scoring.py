"""BEAM's scores from per-item judgments: rubric means, event-order τ-b, ability aggregation.

The judge grades a response against one rubric item at a time (1, 0.5 or 0); a question's
score is the mean over its items. The official code casts each item's score with `int()`,
so every 0.5 becomes 0: `official=True` reproduces that, labelled, for comparison with the
paper. Event ordering is scored by Kendall τ-b between the rubric's order and the response's
order of matched items, normalised to (τ + 1) / 2, with the matched-item F1 beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from locoscore.summation import ordered_mean


def rubric_score(item_scores: Sequence[float], *, official: bool = False) -> float:
    """The mean over the rubric's items; `official` truncates each item as the official
    code does (`int(0.5) == 0`)."""
    if not item_scores:
        raise ValueError("a rubric question has at least one item")
    values = [float(int(s)) if official else float(s) for s in item_scores]
    return ordered_mean(values)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b (ties in either ranking corrected); None where it is undefined (fewer
    than two items, or one ranking constant), where SciPy returns NaN."""
    if len(x) != len(y):
        raise ValueError("rankings of different lengths")
    concordant = discordant = ties_x = ties_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            ties_x += 1
            ties_y += 1
        elif dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif (dx > 0) == (dy > 0):
            concordant += 1
        else:
            discordant += 1
    pairs = len(x) * (len(x) - 1) // 2
    denominator = math.sqrt((pairs - ties_x) * (pairs - ties_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


@dataclass(frozen=True)
class EventOrderScore:
    tau_norm: float  # (τ-b + 1) / 2, 0 where τ-b is undefined
    tau_defined: bool
    precision: float
    recall: float
    f1: float
    matched: int


def align_events(
    reference: Sequence[str],
    response_items: Sequence[str],
    matches: Callable[[int, int], bool],
) -> list[str]:
    """Each response item replaced by the first unused reference item it matches
    (`matches(reference_index, response_index)`, a judged decision), else kept as is."""
    used: set[int] = set()
    canonical = []
    for r_index, item in enumerate(response_items):
        hit = next(
            (i for i in range(len(reference)) if i not in used and matches(i, r_index)), None
        )
        if hit is None:
            canonical.append(item)
        else:
            used.add(hit)
            canonical.append(reference[hit])
    return canonical


def event_order_score(reference: Sequence[str], canonical: Sequence[str]) -> EventOrderScore:
    """τ-b over the union of both lists (items absent from a list tied last in it) and the
    F1 of matched items, as the official code computes them."""
    ref_set, sys_set = set(reference), set(canonical)
    tp = len(ref_set & sys_set)
    fp = sum(1 for item in canonical if item not in ref_set)
    fn = sum(1 for item in reference if item not in sys_set)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = list(dict.fromkeys([*reference, *canonical]))
    last = len(union) + 1

    def ranks(sequence: Sequence[str]) -> list[float]:
        position = {item: i + 1 for i, item in enumerate(sequence)}  # a repeat keeps its last
        return [float(position.get(item, last)) for item in union]

    tau = kendall_tau_b(ranks(reference), ranks(canonical))
    return EventOrderScore(
        tau_norm=0.0 if tau is None else (tau + 1) / 2,
        tau_defined=tau is not None,
        precision=precision,
        recall=recall,
        f1=f1,
        matched=tp,
    )


def response_items(response: str, *, keep_blank_lines: bool) -> list[str]:
    """The response's lines as ordered items. The official code keeps blank lines (each an
    unmatched item that lowers precision and enters the ranking); `beam` drops them."""
    lines = response.split("\n")
    return lines if keep_blank_lines else [line for line in lines if line.strip()]


@dataclass(frozen=True)
class AbilityAggregate:
    per_ability: dict[str, float]
    counts: dict[str, int]
    mean_of_abilities: float | None  # the paper's overall: every ability weighs the same
    question_weighted: float | None


def aggregate_abilities(
    scores: Sequence[tuple[str, float]], abilities: Sequence[str]
) -> AbilityAggregate:
    """Per ability, the mean over its questions; overall both as the mean of the abilities
    present and question-weighted (they differ once a sample or a failure unbalances them)."""
    by_ability: dict[str, list[float]] = {}
    for ability, score in scores:
        by_ability.setdefault(ability, []).append(score)
    per = {a: ordered_mean(v) for a in abilities if (v := by_ability.get(a))}
    counts = {a: len(by_ability.get(a, [])) for a in abilities}
    total = [s for _, s in scores]
    return AbilityAggregate(
        per_ability=per,
        counts=counts,
        mean_of_abilities=sum(per.values()) / len(per) if per else None,
        question_weighted=sum(total) / len(total) if total else None,
    )


def per_conversation_mean(
    scores: Mapping[str, Sequence[tuple[str, float]]], abilities: Sequence[str]
) -> dict[str, float]:
    """The official report's aggregation: per conversation, per ability, the mean over its
    questions; then the mean over conversations."""
    sums: dict[str, list[float]] = {}
    for items in scores.values():
        agg = aggregate_abilities(items, abilities)
        for ability, value in agg.per_ability.items():
            sums.setdefault(ability, []).append(value)
    return {a: ordered_mean(v) for a in abilities if (v := sums.get(a))}
