"""Statistics for N judge runs x Q questions: spreads, intervals, agreement, latency, paired tests.

Conventions used everywhere in locoscore:
- std is the sample standard deviation (n - 1 denominator); a single value has no std (None).
- The question is the unit of independence: confidence intervals resample or average whole
  questions (a question's score is its mean over runs), never individual judge runs.
- Failed judge runs are None and are dropped, never counted as 0.
Only numpy and the standard library: every formula is written out here and tested against
hand-computed values.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np

_NORMAL = NormalDist()
Scores = Sequence[float | None]


def _present(scores: Scores) -> list[float]:
    return [float(s) for s in scores if s is not None]


def sample_std(values: Sequence[float]) -> float | None:
    """Standard deviation with the n - 1 denominator; None for fewer than two values."""
    if len(values) < 2:
        return None
    return float(np.std(np.asarray(values, dtype=float), ddof=1))


def mean_and_std(scores: Scores) -> tuple[float | None, float | None]:
    """One question's mean and sample std over its successful runs (None runs dropped)."""
    values = _present(scores)
    if not values:
        return None, None
    return float(np.mean(values)), sample_std(values)


def pooled_within_std(per_question: Sequence[Scores]) -> float | None:
    """Pooled within-question std: sqrt(sum_i (k_i - 1) s_i^2 / sum_i (k_i - 1)).

    Each question's variance over its k_i successful runs is weighted by its degrees of
    freedom, so questions with more runs count more; questions with one run add nothing.
    This is the judge's run-to-run noise on a single question.
    """
    num = 0.0
    dof = 0
    for scores in per_question:
        values = _present(scores)
        if len(values) >= 2:
            num += (len(values) - 1) * float(np.var(values, ddof=1))
            dof += len(values) - 1
    return math.sqrt(num / dof) if dof else None


@dataclass(frozen=True)
class RunLevel:
    """Each repeat index's score over all questions, and their mean and std across repeats.

    The std across runs is what the Mem0 paper's "±" reports: judge noise, not the precision
    of the score as an estimate (for that, see the question-level intervals).
    """

    per_run_means: list[float]
    mean: float | None
    std: float | None


def run_level(per_question: Sequence[Scores]) -> RunLevel:
    """per_question[i][r] = score of question i in repeat r (None = failed run)."""
    width = max((len(s) for s in per_question), default=0)
    means: list[float] = []
    for run in range(width):
        column = [s[run] for s in per_question if run < len(s) and s[run] is not None]
        if column:
            means.append(float(np.mean(np.asarray(column, dtype=float))))
    return RunLevel(
        per_run_means=means,
        mean=float(np.mean(means)) if means else None,
        std=sample_std(means),
    )


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int
    se: float | None = None

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _z(level: float) -> float:
    return _NORMAL.inv_cdf(0.5 + level / 2)


def t_quantile(p: float, df: int) -> float:
    """Student-t quantile: exact for df 1 and 2, Cornish-Fisher expansion beyond (at p = 0.975
    the error is 0.004 at df 3 and under 0.001 from df 5); used for the clustered interval."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = _NORMAL.inv_cdf(p)
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def normal_mean_ci(values: Sequence[float], level: float = 0.95) -> Interval:
    """Mean +- z * sd / sqrt(n), questions as independent units."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise ValueError("no values")
    mean = float(arr.mean())
    se = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else 0.0
    half = _z(level) * se
    return Interval(mean, mean - half, mean + half, level, "normal", int(arr.size), se)


def clustered_mean_ci(
    values: Sequence[float], clusters: Sequence[Hashable], level: float = 0.95
) -> Interval:
    """Mean with a cluster-robust (CR1) standard error and a t interval on G - 1 df.

    SE^2 = G / (G - 1) * sum_g (sum_{i in g} (x_i - mean))^2 / N^2. LoCoMo's questions nest in
    10 conversations, so this interval is honest about correlated questions (and wide).
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or arr.size != len(clusters):
        raise ValueError("values and clusters must be non-empty and of equal length")
    _, group = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    n_groups = int(group.max()) + 1
    mean = float(arr.mean())
    if n_groups < 2:
        return Interval(mean, -math.inf, math.inf, level, "clustered", int(arr.size), None)
    sums = np.bincount(group, weights=arr - mean, minlength=n_groups)
    se = math.sqrt(n_groups / (n_groups - 1) * float(np.sum(sums**2)) / arr.size**2)
    half = t_quantile(0.5 + level / 2, n_groups - 1) * se
    return Interval(mean, mean - half, mean + half, level, "clustered", int(arr.size), se)


def bootstrap_means(
    values: Sequence[float] | np.ndarray, resamples: int = 2000, seed: int = 0, chunk: int = 500
) -> np.ndarray:
    """Means of `resamples` resamples (with replacement) of the questions; seeded."""
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for start in range(0, resamples, chunk):
        stop = min(start + chunk, resamples)
        idx = rng.integers(0, arr.size, size=(stop - start, arr.size))
        out[start:stop] = arr[idx].mean(axis=1)
    return out


def bootstrap_mean_ci(
    values: Sequence[float], level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of the mean, resampling whole questions."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise ValueError("no values")
    means = bootstrap_means(arr, resamples, seed)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    se = float(means.std(ddof=1)) if resamples > 1 else None
    return Interval(float(arr.mean()), float(low), float(high), level, "bootstrap", arr.size, se)


# ---- agreement across judge runs ---------------------------------------------------------


def unanimity(per_question: Sequence[Sequence[object | None]]) -> float | None:
    """Share of questions (with >= 2 successful runs) whose runs all gave the same score."""
    rated = [[r for r in runs if r is not None] for runs in per_question]
    rated = [r for r in rated if len(r) >= 2]
    if not rated:
        return None
    return sum(1 for r in rated if all(x == r[0] for x in r)) / len(rated)


def fleiss_kappa(per_question: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Fleiss' kappa over categorical labels; runs may differ in number per question.

    P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)) for items with n_i >= 2; P_bar = mean P_i;
    p_j = share of all labels in category j; P_e = sum p_j^2; kappa = (P_bar - P_e)/(1 - P_e).
    None when undefined (no item with two labels, or every label identical).
    """
    rows = [[r for r in runs if r is not None] for runs in per_question]
    rows = [r for r in rows if len(r) >= 2]
    if not rows:
        return None
    labels = sorted({x for r in rows for x in r}, key=repr)
    index = {label: j for j, label in enumerate(labels)}
    counts = np.zeros((len(rows), len(labels)))
    for i, r in enumerate(rows):
        for x in r:
            counts[i, index[x]] += 1
    n_i = counts.sum(axis=1)
    p_i = (np.sum(counts**2, axis=1) - n_i) / (n_i * (n_i - 1))
    p_j = counts.sum(axis=0) / n_i.sum()
    p_e = float(np.sum(p_j**2))
    if math.isclose(p_e, 1.0):
        return None
    return (float(p_i.mean()) - p_e) / (1 - p_e)


def krippendorff_alpha_interval(per_question: Sequence[Scores]) -> float | None:
    """Krippendorff's alpha, interval metric, missing runs allowed (units with >= 2 values).

    D_o = (1/n) sum_u 1/(m_u - 1) sum_{i != j in u} (v_i - v_j)^2,
    D_e = 1/(n (n - 1)) sum_{i != j over all pairable values} (v_i - v_j)^2, alpha = 1 - D_o/D_e,
    with sum_{i != j} (v_i - v_j)^2 = 2 (m sum v^2 - (sum v)^2).
    """
    units = [np.asarray(_present(u), dtype=float) for u in per_question]
    units = [u for u in units if u.size >= 2]
    if not units:
        return None

    def pair_sq_sum(v: np.ndarray) -> float:
        return 2.0 * (v.size * float(np.sum(v**2)) - float(np.sum(v)) ** 2)

    pooled = np.concatenate(units)
    n = pooled.size
    d_o = sum(pair_sq_sum(u) / (u.size - 1) for u in units) / n
    d_e = pair_sq_sum(pooled) / (n * (n - 1))
    if d_e == 0:
        return None
    return 1.0 - d_o / d_e


# ---- latency -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatencyStats:
    """Distribution summary; percentiles by linear interpolation (numpy's default method)."""

    count: int
    mean: float
    p50: float
    p95: float
    p99: float
    min: float
    max: float

    @classmethod
    def from_values(cls, values: Sequence[float | None]) -> LatencyStats | None:
        arr = np.asarray(_present(values), dtype=float)
        if arr.size == 0:
            return None
        p50, p95, p99 = (float(x) for x in np.percentile(arr, [50, 95, 99]))
        return cls(
            int(arr.size), float(arr.mean()), p50, p95, p99, float(arr.min()), float(arr.max())
        )


# ---- paired comparison ---------------------------------------------------------------------


@dataclass(frozen=True)
class WilcoxonResult:
    n_nonzero: int
    w_plus: float
    w_minus: float
    z: float
    p_value: float


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks, ties sharing their average rank; also the tie-group sizes."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    average = ends - (counts - 1) / 2.0
    return average[inverse], counts


def _signed_ranks(differences: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-zero differences (zeros dropped: Wilcoxon's method), the average ranks of
    their absolute values and the tie-group sizes."""
    d = np.asarray(differences, dtype=float)
    d = d[d != 0]
    ranks, ties = _average_ranks(np.abs(d))
    return d, ranks, ties


def wilcoxon_signed_rank(differences: Sequence[float]) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test, normal approximation with tie correction.

    Zero differences are dropped (Wilcoxon's method); no continuity correction.
    var = n(n+1)(2n+1)/24 - sum_t (t^3 - t)/48 over groups of tied |d|.
    """
    d, ranks, ties = _signed_ranks(differences)
    n = int(d.size)
    if n == 0:
        return WilcoxonResult(0, 0.0, 0.0, 0.0, 1.0)
    w_plus = float(ranks[d > 0].sum())
    w_minus = float(ranks[d < 0].sum())
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(ties**3 - ties)) / 48
    if var <= 0:
        return WilcoxonResult(n, w_plus, w_minus, 0.0, 1.0)
    z = (w_plus - mean) / math.sqrt(var)
    # erfc keeps precision in the far tail, where 1 - cdf(z) rounds to 0
    p = min(1.0, math.erfc(abs(z) / math.sqrt(2)))
    return WilcoxonResult(n, w_plus, w_minus, z, p)


# Up to this many non-zero differences the signed-rank p is exact (every sign assignment
# counted); above it the normal approximation is within a few thousandths of it.
EXACT_SIGNED_RANK_MAX_N = 25


def wilcoxon_signed_rank_exact(differences: Sequence[float]) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test, exact: the p-value is the share of the 2^n sign
    assignments of the non-zero differences' (mid)ranks whose W+ is at least as far from
    its mean as the one observed (5 differences, all positive: 2/32 = 0.0625)."""
    d, ranks, _ = _signed_ranks(differences)
    n = int(d.size)
    if n == 0:
        return WilcoxonResult(0, 0.0, 0.0, 0.0, 1.0)
    doubled = [round(2 * r) for r in ranks]  # midranks are halves: doubled, integers
    counts: dict[int, int] = {0: 1}
    for r in doubled:
        step: dict[int, int] = dict(counts)
        for total, ways in counts.items():
            step[total + r] = step.get(total + r, 0) + ways
        counts = step
    observed = round(2 * float(ranks[d > 0].sum()))
    centre = sum(doubled)  # twice the mean of doubled W+, kept in integers
    far = abs(2 * observed - centre)
    extreme = sum(ways for total, ways in counts.items() if abs(2 * total - centre) >= far)
    p = float(Fraction(extreme, 2**n))
    w_plus = float(ranks[d > 0].sum())
    return WilcoxonResult(n, w_plus, float(ranks[d < 0].sum()), 0.0, min(1.0, p))


def paired_signed_rank(differences: Sequence[float]) -> tuple[WilcoxonResult, str]:
    """The signed-rank test that fits the sample, and its name: exact up to
    `EXACT_SIGNED_RANK_MAX_N` non-zero differences, the normal approximation above."""
    nonzero = sum(1 for x in differences if x != 0)
    if nonzero <= EXACT_SIGNED_RANK_MAX_N:
        return wilcoxon_signed_rank_exact(differences), "Wilcoxon signed-rank, exact"
    return wilcoxon_signed_rank(differences), "Wilcoxon signed-rank, normal approximation"


@dataclass(frozen=True)
class McNemarResult:
    only_a: int  # questions A got right and B wrong
    only_b: int  # questions B got right and A wrong
    p_value: float


def mcnemar_exact(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> McNemarResult:
    """Exact (binomial) two-sided McNemar test on paired correct/wrong verdicts.

    p = min(1, 2 * P(X <= min(b, c))) with X ~ Binomial(b + c, 1/2), computed in exact
    rational arithmetic so it is valid for any number of discordant pairs.
    """
    if len(a_correct) != len(b_correct):
        raise ValueError("paired verdicts must have equal length")
    only_a = sum(1 for a, b in zip(a_correct, b_correct, strict=True) if a and not b)
    only_b = sum(1 for a, b in zip(a_correct, b_correct, strict=True) if b and not a)
    n = only_a + only_b
    if n == 0:
        return McNemarResult(only_a, only_b, 1.0)
    tail = sum(math.comb(n, k) for k in range(min(only_a, only_b) + 1))
    p = Fraction(2 * tail, 2**n)
    return McNemarResult(only_a, only_b, float(min(Fraction(1), p)))


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control, any dependence).

    Sorted ascending, p_(i) is multiplied by (m - i) for 0-based rank i, the running maximum
    keeps the adjusted values monotone, and each is capped at 1. One test is left as it is.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


# The significance level every paired verdict uses (`compare`, the board's ranks).
ALPHA = 0.05
# The paired bootstrap of every comparison: resamples and seed, so a rerun draws the same.
PAIRED_RESAMPLES = 2000
PAIRED_SEED = 0


@dataclass(frozen=True)
class PairedDifference:
    """B - A on the keys both sides scored: the mean difference, its paired-bootstrap
    interval and the two-sided Wilcoxon signed-rank p."""

    n: int
    estimate: float
    low: float
    high: float
    p: float


def paired_difference(
    a: dict[str, float], b: dict[str, float], decimals: int | None = None
) -> PairedDifference | None:
    """B - A over the keys both hold, in key order; None when they share none. `decimals`
    rounds each difference first (scores scaled to 0-100 must not have their ties broken by
    float noise); None keeps them exact."""
    shared = sorted(set(a) & set(b))
    if not shared:
        return None
    differences = [b[k] - a[k] for k in shared]
    if decimals is not None:
        differences = [round(d, decimals) for d in differences]
    ci = bootstrap_mean_ci(differences, resamples=PAIRED_RESAMPLES, seed=PAIRED_SEED)
    p = wilcoxon_signed_rank(differences).p_value
    return PairedDifference(len(shared), ci.estimate, ci.low, ci.high, p)


def mean_ci_by_type(
    values: Mapping[str, float], types: Mapping[str, str], type_order: Sequence[str]
) -> dict[str, Any]:
    """Mean x100 with its bootstrap 95 % interval, overall and per type (`types`: question
    id -> type name); questions without a value are not in `values`."""

    def block(ids: list[str]) -> dict[str, Any]:
        if not ids:
            return {"mean": None, "ci95": None, "count": 0}
        ci = bootstrap_mean_ci([values[q] for q in ids])
        return {
            "mean": round(100 * ci.estimate, 4),
            "ci95": [round(100 * ci.low, 4), round(100 * ci.high, 4)],
            "count": len(ids),
        }

    ids = list(values)
    return {
        "overall": block(ids),
        "by_type": {t: block([q for q in ids if types[q] == t]) for t in type_order},
    }
