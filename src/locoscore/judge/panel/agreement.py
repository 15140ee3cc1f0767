"""Agreement between judges and between orderings: Cohen's kappa for two judges' verdicts,
Krippendorff's alpha (nominal) for any number of judges with missing verdicts, Kendall's
tau-b between two orderings. Plain Python, every formula written out; `None` where a
statistic is undefined (no pair to compare, or no variation to agree on), never a made-up 0
or 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations


def cohen_kappa(a: Sequence[Hashable | None], b: Sequence[Hashable | None]) -> float | None:
    """Cohen's kappa of two raters over the same units (None: no verdict, the unit is left
    out): (p_o - p_e) / (1 - p_e), p_o the share of units they agree on, p_e the agreement
    their own label shares would give by chance. None when no unit has both verdicts, or
    when p_e = 1 (both gave one and the same label to everything: nothing to agree on)."""
    if len(a) != len(b):
        raise ValueError("the two raters must rate the same units")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(1 for x, y in pairs if x == y) / n
    left, right = Counter(x for x, _ in pairs), Counter(y for _, y in pairs)
    expected = sum(left[k] * right[k] for k in left) / (n * n)
    if math.isclose(expected, 1.0):
        return None
    return (observed - expected) / (1 - expected)


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha for nominal labels: `units[u]` holds each rater's label of unit
    u (None: that rater gave none). Only units with two labels or more are pairable. From
    the coincidence matrix o[c][k] (each ordered pair of labels within a unit of m labels
    counts 1 / (m - 1)), n_c its margins and n their sum:
        alpha = 1 - (n - 1) * sum_{c != k} o[c][k] / sum_{c != k} n_c * n_k.
    None when no unit is pairable or only one label occurs (expected disagreement 0)."""
    coincidence: dict[tuple[Hashable, Hashable], float] = {}
    for unit in units:
        labels = [x for x in unit if x is not None]
        m = len(labels)
        if m < 2:
            continue
        for i, j in ((i, j) for i in range(m) for j in range(m) if i != j):
            key = (labels[i], labels[j])
            coincidence[key] = coincidence.get(key, 0.0) + 1 / (m - 1)
    margins: dict[Hashable, float] = {}
    for (c, _), value in coincidence.items():
        margins[c] = margins.get(c, 0.0) + value
    n = sum(margins.values())
    disagree = sum(v for (c, k), v in coincidence.items() if c != k)
    expected = sum(margins[c] * margins[k] for c in margins for k in margins if c != k)
    if n == 0 or expected == 0:
        return None
    return 1 - (n - 1) * disagree / expected


def kendall_tau_b(x: Mapping[str, float], y: Mapping[str, float]) -> float | None:
    """Kendall's tau-b of two scorings of the same items (the items both score): (C - D) /
    sqrt((P - T_x) (P - T_y)), C and D the concordant and discordant pairs, P all pairs, T_x
    and T_y the pairs tied in x and in y. None with fewer than two items or when one scoring
    ties everything."""
    items = sorted(set(x) & set(y))
    concordant = discordant = tied_x = tied_y = pairs = 0
    for i, j in combinations(items, 2):
        pairs += 1
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0:
            tied_x += 1
        if dy == 0:
            tied_y += 1
        if dx * dy > 0:
            concordant += 1
        elif dx * dy < 0:
            discordant += 1
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    if pairs == 0 or denominator == 0:
        return None
    return (concordant - discordant) / denominator


__all__ = ["cohen_kappa", "kendall_tau_b", "krippendorff_alpha_nominal"]
