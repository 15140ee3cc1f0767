"""Is B really better than A? Paired comparison of two results folders on their shared questions.

Questions are paired by (sample_id, qa_index). For every metric both folders have, per category
and overall (each protocol's own convention for adversarial questions): the mean difference
B - A with a paired bootstrap 95 % CI (resampling questions, seeded) and a two-sided Wilcoxon
signed-rank test; for a binary judge, McNemar's exact test on majority verdicts as well.
With gold errata, the same again on the shared questions whose gold stands. A warning when
the two sides' mean answer lengths differ by more than 2x (a judge confound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from locoscore import stats
from locoscore.categories import ADVERSARIAL, LOCOMO_COLUMN_ORDER
from locoscore.report.lengths import AnswerLengths, answer_lengths, length_ratio_warning
from locoscore.report.load import Results
from locoscore.report.metrics import METRICS, Metric
from locoscore.report.verified import ErrataFlags
from locoscore.results_dir import row_key

ALPHA = 0.05
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
Key = str  # `sample_id#qa_index`, or the question text for files without ids


def _key(row: dict[str, Any]) -> Key:
    return row_key(row)


@dataclass(frozen=True)
class PairedCell:
    n: int
    mean_a: float
    mean_b: float
    ci: stats.Interval  # of the mean difference B - A
    wilcoxon: stats.WilcoxonResult

    @property
    def difference(self) -> float:
        return self.ci.estimate

    @property
    def significant(self) -> bool:
        return self.wilcoxon.p_value < ALPHA


@dataclass(frozen=True)
class MetricComparison:
    metric: Metric
    by_category: dict[int, PairedCell]
    overall: PairedCell
    includes_adversarial: bool
    mcnemar: stats.McNemarResult | None = None  # binary judge only, overall


@dataclass(frozen=True)
class VerifiedComparison:
    """The comparison again on the paired questions whose gold stands under the errata."""

    errata: ErrataFlags
    paired: int
    excluded: int  # paired questions whose gold the errata call wrong or ambiguous
    metrics: list[MetricComparison]


@dataclass(frozen=True)
class Comparison:
    a: Results
    b: Results
    paired: int
    only_in_a: list[Key]
    only_in_b: list[Key]
    gold_differs: list[Key]
    metrics: list[MetricComparison]
    warnings: list[str]
    # answer words of A and of B on the paired questions
    answer_lengths: tuple[AnswerLengths, AnswerLengths] | None = None
    verified: VerifiedComparison | None = None  # with --verified-gold


def paired_rows(c: Comparison) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (A row, B row) of every shared question, in key order."""
    rows_a = {_key(r): r for r in c.a.rows}
    rows_b = {_key(r): r for r in c.b.rows}
    return [(rows_a[k], rows_b[k]) for k in sorted(set(rows_a) & set(rows_b))]


def majority_correct(j_scores: list[float | None]) -> bool | None:
    """Binary judge verdict of a question: correct when more than half of its successful runs
    said CORRECT (score 100); a tie counts as not correct; None when no run succeeded."""
    runs = [s for s in j_scores if s is not None]
    if not runs:
        return None
    return sum(1 for s in runs if s >= 50) * 2 > len(runs)


def _paired_cell(pairs: list[tuple[dict[str, Any], dict[str, Any]]], metric: Metric) -> PairedCell:
    a = [float(ra[metric.column]) * metric.scale for ra, _ in pairs]
    b = [float(rb[metric.column]) * metric.scale for _, rb in pairs]
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    ci = stats.bootstrap_mean_ci(diffs, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED)
    return PairedCell(
        len(diffs), sum(a) / len(a), sum(b) / len(b), ci, stats.wilcoxon_signed_rank(diffs)
    )


def _judge_protocol(results: Results) -> str | None:
    return (results.judge or {}).get("protocol")


def _compare_metric(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    metric: Metric,
    includes_adv: bool,
    binary_judge: bool,
) -> MetricComparison | None:
    scored = [
        (x, y)
        for x, y in pairs
        if x.get(metric.column) is not None and y.get(metric.column) is not None
    ]
    overall_pairs = [p for p in scored if includes_adv or p[0]["category"] != ADVERSARIAL]
    if not overall_pairs:
        return None
    by_category = {}
    for cid in LOCOMO_COLUMN_ORDER:
        group = [p for p in overall_pairs if p[0]["category"] == cid]
        if group:
            by_category[cid] = _paired_cell(group, metric)
    mcnemar = None
    if binary_judge:
        verdicts = [
            (majority_correct(x.get("j_scores") or []), majority_correct(y.get("j_scores") or []))
            for x, y in overall_pairs
        ]
        both = [(va, vb) for va, vb in verdicts if va is not None and vb is not None]
        mcnemar = stats.mcnemar_exact([va for va, _ in both], [vb for _, vb in both])
    return MetricComparison(
        metric, by_category, _paired_cell(overall_pairs, metric), includes_adv, mcnemar
    )


def _signature_warnings(a: Results, b: Results) -> list[str]:
    out = []
    lex_a = a.summary.get("lexical") or {}
    lex_b = b.summary.get("lexical") or {}
    for name in sorted(set(lex_a) & set(lex_b)):
        sig_a, sig_b = lex_a[name].get("signature"), lex_b[name].get("signature")
        if sig_a != sig_b:
            out.append(f"{name} signatures differ: A {sig_a} / B {sig_b}")
    for side, results in (("A", a), ("B", b)):
        for what, section in (("questions", results.summary.get("run")), ("J", results.judge)):
            sample = section.get("sample") if isinstance(section, dict) else None
            if isinstance(sample, dict):
                out.append(
                    f"{side}'s {what} are a sample ({sample.get('signature')}): the comparison "
                    "covers the questions both sides have, not the full benchmark"
                )
    ja, jb = a.judge, b.judge
    if ja and jb and ja.get("signature") != jb.get("signature"):
        out.append(
            f"judge signatures differ (A {ja.get('signature')} / B {jb.get('signature')}): "
            "a J difference mixes the systems with the judges"
        )
    return out


def _compare_metrics(
    a: Results, b: Results, pairs: list[tuple[dict[str, Any], dict[str, Any]]]
) -> list[MetricComparison]:
    binary = _judge_protocol(a) == "binary" and _judge_protocol(b) == "binary"
    metrics = []
    for metric in METRICS:
        if metric.is_judge:
            if _judge_protocol(a) != _judge_protocol(b):
                continue
            # adversarial J is compared only when both sides judged it
            includes = all(bool((r.judge or {}).get("include_adversarial", False)) for r in (a, b))
        else:
            includes = metric.overall_includes_adversarial
        result = _compare_metric(pairs, metric, includes, binary and metric.is_judge)
        if result is not None:
            metrics.append(result)
    return metrics


def compare_results(a: Results, b: Results, errata: ErrataFlags | None = None) -> Comparison:
    """Compare B with A on their shared questions; with `errata`, also on the shared
    questions whose gold stands (the verified-gold view)."""
    rows_a = {_key(r): r for r in a.rows}
    rows_b = {_key(r): r for r in b.rows}
    shared = sorted(set(rows_a) & set(rows_b))
    pairs = [(rows_a[k], rows_b[k]) for k in shared]
    gold_differs = [
        k for k in shared if str(rows_a[k].get("answer")) != str(rows_b[k].get("answer"))
    ]
    warnings = _signature_warnings(a, b)
    if gold_differs:
        warnings.append(f"{len(gold_differs)} paired questions have different gold answers")
    if _judge_protocol(a) != _judge_protocol(b) and a.judge and b.judge:
        warnings.append("the judge protocols differ; J is not compared")
    elif bool(a.judge) != bool(b.judge):
        judged = "A" if a.judge else "B"
        warnings.append(
            f"only {judged} has judge scores (run `locoscore judge`); J is not compared"
        )
    lengths = None
    if pairs:
        length_a = answer_lengths([x for x, _ in pairs])
        length_b = answer_lengths([y for _, y in pairs])
        assert length_a is not None and length_b is not None
        lengths = (length_a, length_b)
        if (
            warning := length_ratio_warning(length_a.overall.mean, length_b.overall.mean)
        ) is not None:
            warnings.append(warning)
    verified = None
    if errata is not None:
        kept = [(x, y) for x, y in pairs if errata.gold_stands(x)]
        verified = VerifiedComparison(
            errata, len(kept), len(pairs) - len(kept), _compare_metrics(a, b, kept)
        )
    return Comparison(
        a=a,
        b=b,
        paired=len(shared),
        only_in_a=sorted(set(rows_a) - set(rows_b)),
        only_in_b=sorted(set(rows_b) - set(rows_a)),
        gold_differs=gold_differs,
        metrics=_compare_metrics(a, b, pairs),
        warnings=warnings,
        answer_lengths=lengths,
        verified=verified,
    )
