"""Is B really better than A? Paired comparison of two results folders on their shared questions.

Questions are paired by their key (`results.folder.row_key`). For every metric the benchmark
declares (`generic.folder_parts`) that both folders have, per group and overall (each
metric's own convention for the groups an overall may leave out): the mean difference
B - A with a paired bootstrap 95 % CI (resampling questions, seeded) and a two-sided Wilcoxon
signed-rank test; for a binary judge, McNemar's exact test on majority verdicts as well.
With a subset view (the questions whose gold stands under an errata list), the same again
on the shared questions it keeps. Warnings for the confounds: mean answer lengths that
differ by more than 2x, a folder whose judge model also produced its answers (self-judging),
different judges or scoring signatures.

With more than two folders (`compare_many`), each is compared with the first, and every test
is corrected for multiple comparisons with Holm's step-down method: the family is the N - 1
comparisons against the baseline, separately for each metric and each category cell (and for
McNemar's test), so a two-folder comparison is left exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from locoscore import stats
from locoscore.generic.answer_lengths import AnswerLengths, answer_lengths, length_ratio_warning
from locoscore.generic.folder_parts import ColumnMetric, FolderParts, SubsetView
from locoscore.generic.paired_compare import PairedCell, paired_cell
from locoscore.generic.scored_folder import Results
from locoscore.results.folder import row_key
from locoscore.stats import ALPHA as ALPHA

BOOTSTRAP_RESAMPLES = stats.PAIRED_RESAMPLES
BOOTSTRAP_SEED = stats.PAIRED_SEED
Key = str  # `sample_id#qa_index`, or the question text for files without ids


def _key(row: dict[str, Any]) -> Key:
    return row_key(row)


@dataclass(frozen=True)
class MetricComparison:
    metric: ColumnMetric
    by_category: dict[Any, PairedCell]
    overall: PairedCell
    includes_excluded: bool  # the overall counts the groups left out by default
    mcnemar: stats.McNemarResult | None = None  # binary judge only, overall
    mcnemar_p_adjusted: float | None = None  # Holm-adjusted, with more than one comparison


@dataclass(frozen=True)
class SubsetComparison:
    """The comparison again on the paired questions a subset view keeps."""

    view: SubsetView
    paired: int
    excluded: int  # paired questions the view leaves out
    metrics: list[MetricComparison]


@dataclass(frozen=True)
class Comparison:
    parts: FolderParts
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
    subset: SubsetComparison | None = None  # with a subset view (--verified-gold)


def side_name(index: int) -> str:
    """A, B, C, ... for the folders in command-line order (A is the baseline)."""
    return chr(ord("A") + index) if index < 26 else f"#{index + 1}"


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


def _paired_cell(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]], metric: ColumnMetric
) -> PairedCell:
    a = [float(ra[metric.column]) * metric.scale for ra, _ in pairs]
    b = [float(rb[metric.column]) * metric.scale for _, rb in pairs]
    return paired_cell(a, b)


def _judge_protocol(results: Results) -> str | None:
    return (results.judge or {}).get("protocol")


def _compare_metric(
    parts: FolderParts,
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    metric: ColumnMetric,
    includes_excluded: bool,
    binary_judge: bool,
) -> MetricComparison | None:
    scored = [
        (x, y)
        for x, y in pairs
        if x.get(metric.column) is not None and y.get(metric.column) is not None
    ]
    groups = parts.groups
    overall_pairs = [
        p for p in scored if includes_excluded or p[0][groups.field] not in groups.excluded
    ]
    if not overall_pairs:
        return None
    by_category = {}
    for cid in groups.order:
        group = [p for p in overall_pairs if p[0][groups.field] == cid]
        if group:
            by_category[cid] = _paired_cell(group, metric)
    mcnemar = None
    if binary_judge:
        runs = parts.judge_runs

        def verdict(row: dict[str, Any]) -> bool | None:
            if runs is None:
                return None if row.get(metric.column) is None else row[metric.column] >= 50
            return majority_correct(row.get(runs) or [])

        verdicts = [(verdict(x), verdict(y)) for x, y in overall_pairs]
        both = [(va, vb) for va, vb in verdicts if va is not None and vb is not None]
        mcnemar = stats.mcnemar_exact([va for va, _ in both], [vb for _, vb in both])
    return MetricComparison(
        metric, by_category, _paired_cell(overall_pairs, metric), includes_excluded, mcnemar
    )


def self_judging_warning(results: Results, name: str) -> str | None:
    """A model grading its own answers is lenient with them: say so when the folder's judge
    model is the model its `locoscore run` answered with."""
    judge_model = (results.judge or {}).get("model")
    run = results.summary.get("run")
    answer = run.get("answer") if isinstance(run, dict) else None
    answer_model = answer.get("model") if isinstance(answer, dict) else None
    if judge_model is None or judge_model != answer_model:
        return None
    return (
        f"self-judging: {name}'s answers were produced by {answer_model} and judged by it; "
        "its J favours its own answers"
    )


def _signature_warnings(
    parts: FolderParts, a: Results, b: Results, names: tuple[str, str]
) -> list[str]:
    na, nb = names
    out = [
        w
        for r, n in zip((a, b), names, strict=True)
        if (w := self_judging_warning(r, n)) is not None
    ]
    signed_a, signed_b = parts.signatures(a.summary), parts.signatures(b.summary)
    for name in sorted(set(signed_a) & set(signed_b)):
        sig_a, sig_b = signed_a[name], signed_b[name]
        if sig_a != sig_b:
            out.append(f"{name} signatures differ: {na} {sig_a} / {nb} {sig_b}")
    for side, results in zip(names, (a, b), strict=True):
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
            f"judge signatures differ ({na} {ja.get('signature')} / {nb} {jb.get('signature')}): "
            "a J difference mixes the systems with the judges"
        )
    return out


def _compare_metrics(
    parts: FolderParts,
    a: Results,
    b: Results,
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
) -> list[MetricComparison]:
    binary = _judge_protocol(a) == "binary" and _judge_protocol(b) == "binary"
    metrics = []
    for metric in parts.metrics:
        if metric.is_judge:
            if _judge_protocol(a) != _judge_protocol(b):
                continue
            # the judge's excluded groups are compared only when both sides judged them
            includes = all(bool((r.judge or {}).get(parts.judge_includes, False)) for r in (a, b))
        else:
            includes = metric.overall_includes_excluded
        result = _compare_metric(parts, pairs, metric, includes, binary and metric.is_judge)
        if result is not None:
            metrics.append(result)
    return metrics


def compare_results(
    parts: FolderParts,
    a: Results,
    b: Results,
    view: SubsetView | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> Comparison:
    """Compare B with A on their shared questions; with `view`, also on the shared
    questions it keeps (the verified-gold view). `names` label the two in warnings."""
    rows_a = {_key(r): r for r in a.rows}
    rows_b = {_key(r): r for r in b.rows}
    shared = sorted(set(rows_a) & set(rows_b))
    pairs = [(rows_a[k], rows_b[k]) for k in shared]
    gold_differs = [
        k for k in shared if str(rows_a[k].get("answer")) != str(rows_b[k].get("answer"))
    ]
    warnings = _signature_warnings(parts, a, b, names)
    if gold_differs:
        warnings.append(f"{len(gold_differs)} paired questions have different gold answers")
    if _judge_protocol(a) != _judge_protocol(b) and a.judge and b.judge:
        warnings.append("the judge protocols differ; J is not compared")
    elif bool(a.judge) != bool(b.judge):
        judged = names[0] if a.judge else names[1]
        warnings.append(
            f"only {judged} has judge scores (run `locoscore judge`); J is not compared"
        )
    lengths = None
    if pairs:
        length_a = answer_lengths([x for x, _ in pairs], parts.groups)
        length_b = answer_lengths([y for _, y in pairs], parts.groups)
        if length_a is None or length_b is None:  # a side that answered nothing at all
            sides = zip(names, (length_a, length_b), strict=True)
            silent = " and ".join(n for n, s in sides if s is None)
            warnings.append(
                f"{silent} answered none of the {len(pairs)} paired questions (every "
                "prediction empty): answer lengths are not compared"
            )
        else:
            lengths = (length_a, length_b)
            warning = length_ratio_warning(length_a.overall.mean, length_b.overall.mean, names)
            if warning is not None:
                warnings.append(warning)
    subset = None
    if view is not None:
        kept = [(x, y) for x, y in pairs if view.keep(x)]
        subset = SubsetComparison(
            view, len(kept), len(pairs) - len(kept), _compare_metrics(parts, a, b, kept)
        )
    return Comparison(
        parts=parts,
        a=a,
        b=b,
        paired=len(shared),
        only_in_a=sorted(set(rows_a) - set(rows_b)),
        only_in_b=sorted(set(rows_b) - set(rows_a)),
        gold_differs=gold_differs,
        metrics=_compare_metrics(parts, a, b, pairs),
        warnings=warnings,
        answer_lengths=lengths,
        subset=subset,
    )


def _holm_families(
    metric_lists: list[list[MetricComparison]],
) -> list[list[MetricComparison]]:
    """Each metric list's cells with Holm-adjusted p-values, the family of a cell being the
    same metric and cell in every list (one list per comparison with the baseline)."""
    families: dict[tuple[str, object], list[tuple[int, float]]] = {}
    for i, mcs in enumerate(metric_lists):
        for mc in mcs:
            cells: list[tuple[object, PairedCell]] = [("overall", mc.overall)]
            cells += list(mc.by_category.items())
            for cell_key, paired in cells:
                families.setdefault((mc.metric.column, cell_key), []).append(
                    (i, paired.wilcoxon.p_value)
                )
            if mc.mcnemar is not None:
                families.setdefault((mc.metric.column, "mcnemar"), []).append(
                    (i, mc.mcnemar.p_value)
                )
    adjusted: dict[tuple[str, object, int], float] = {}
    for (column, cell_key), members in families.items():
        values = stats.holm_adjust([p for _, p in members])
        for (i, _), value in zip(members, values, strict=True):
            adjusted[(column, cell_key, i)] = value

    def cell(mc: MetricComparison, key: object, c: PairedCell, i: int) -> PairedCell:
        return replace(c, p_adjusted=adjusted[(mc.metric.column, key, i)])

    return [
        [
            replace(
                mc,
                overall=cell(mc, "overall", mc.overall, i),
                by_category={k: cell(mc, k, c, i) for k, c in mc.by_category.items()},
                mcnemar_p_adjusted=adjusted.get((mc.metric.column, "mcnemar", i)),
            )
            for mc in mcs
        ]
        for i, mcs in enumerate(metric_lists)
    ]


def compare_many(
    parts: FolderParts, results: list[Results], view: SubsetView | None = None
) -> list[Comparison]:
    """Every folder after the first against the first (the baseline). With two folders this
    is `compare_results` unchanged; with more, each test is Holm-corrected across the
    comparisons (see the module docstring)."""
    baseline, *others = results
    comparisons = [
        compare_results(parts, baseline, other, view, ("A", side_name(i)))
        for i, other in enumerate(others, start=1)
    ]
    if len(comparisons) < 2:
        return comparisons
    metrics = _holm_families([c.metrics for c in comparisons])
    out = []
    subsets = [c.subset for c in comparisons]
    subset_metrics = (
        _holm_families([v.metrics for v in subsets if v is not None])
        if all(v is not None for v in subsets)
        else None
    )
    for i, c in enumerate(comparisons):
        subset = c.subset
        if subset is not None and subset_metrics is not None:
            subset = replace(subset, metrics=subset_metrics[i])
        out.append(replace(c, metrics=metrics[i], subset=subset))
    return out
