"""Comparison tables: this run next to published rows of the same protocol, and only those.

Columns follow the LoCoMo paper's order (single-hop id 4, multi-hop 1, temporal 2,
open-domain 3, adversarial 5 where the protocol includes it, overall).
"""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.baselines import BaselineRow
from locoscore.benchmarks.locomo.categories import (
    ADVERSARIAL,
    CATEGORY_NAMES,
    GROUPS,
    LOCOMO_COLUMN_ORDER,
)
from locoscore.benchmarks.locomo.metrics import F1_LOCOMO, J, Metric, judge_baseline_protocol
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.metric_stats import CellStats, MetricStats, metric_stats
from locoscore.generic.metric_tables import seconds
from locoscore.report.document import Block, Paragraph, Table
from locoscore.report.markdown import render_markdown, render_table
from locoscore.report.numbers import DASH as DASH
from locoscore.report.numbers import fmt as fmt
from locoscore.stats import LatencyStats


def category_ids(includes_adversarial: bool) -> list[int]:
    return [c for c in LOCOMO_COLUMN_ORDER if includes_adversarial or c != ADVERSARIAL]


def _headers(ids: list[int], overall: str) -> list[str]:
    return ["System", *(CATEGORY_NAMES[c] for c in ids), overall, "Source"]


def sample_label(sample: dict[str, Any]) -> str:
    """ "This run" as a subset row names itself: "This run (sample 50/1,986)"."""
    return f"This run (sample {sample.get('size', 0):,}/{sample.get('population', 0):,})"


def subset_note(sample: dict[str, Any]) -> str:
    return (
        f"This run is a sample of {sample.get('size', 0):,} of {sample.get('population', 0):,} "
        f"questions ({sample.get('signature')}); the published rows are over the full "
        "benchmark: a smoke test, not a comparison."
    )


def _ours(
    ms: MetricStats, ids: list[int], with_std: bool, sample: dict[str, Any] | None = None
) -> list[str]:
    d = ms.metric.decimals

    def show(c: CellStats | None) -> str:
        if c is None:
            return DASH
        return fmt(c.mean, d, c.run_std if with_std else None)

    cells = [show(ms.by_category.get(c)) for c in ids]
    label = "This run" if sample is None else sample_label(sample)
    return [label, *cells, show(ms.overall), f"locoscore, n = {ms.overall.n}"]


def _published(row: BaselineRow, ids: list[int], decimals: int) -> list[str]:
    cells = [fmt(row.values.get(c), decimals) for c in ids]
    overall = fmt(row.overall, decimals, row.overall_std)
    if row.overall is not None and not row.overall_recomputable and row.values:
        overall += " †"
    name = f"{row.system} ({row.note})" if row.note else row.system
    return [name, *cells, overall, row.source.cite()]


def comparison_table(
    ms: MetricStats | None,
    protocol: str,
    includes_adversarial: bool,
    decimals: int,
    with_std: bool = False,
    sample: dict[str, Any] | None = None,
) -> Table:
    """This run's row (`ms`; with `sample`, marked as a subset) above the published ones."""
    ids = category_ids(includes_adversarial)
    scope = GROUPS.scope(includes_adversarial)
    rows: list[list[str]] = []
    highlight: frozenset[int] = frozenset()
    if ms is not None:
        rows.append(_ours(ms, ids, with_std, sample))
        highlight = frozenset({0})
    rows += [_published(r, ids, decimals) for r in baselines.rows_for(protocol)]
    numeric = (False, *(True for _ in ids), True, False)
    caption = ""
    if ms is not None and includes_adversarial and ADVERSARIAL not in ms.by_category:
        caption = (
            "This run has no adversarial questions, so its overall covers fewer question types "
            "than the published overall (which includes them): compare category by category."
        )
    subset = ""
    if ms is not None and sample is not None:
        caption = " ".join(c for c in (subset_note(sample), caption) if c)
        subset = str(sample.get("signature"))
    return Table(
        _headers(ids, f"overall ({scope})"),
        rows,
        highlight,
        numeric,
        caption,
        subset=subset,
        own_numbers=ms is not None,
    )


def paper_columns_table(protocol: str, decimals: int = 2) -> Table:
    """Mem0-paper rows under the paper's own column titles, in the paper's order."""
    ids = [1, 3, 2, 4]  # ids behind "Single Hop", "Multi-Hop", "Temporal", "Open Domain"
    headers = ["System", *(f'"{baselines.MEM0_PAPER_COLUMN_TITLES[c]}" (id {c})' for c in ids)]
    rows = [
        [r.system, *(fmt(r.values.get(c), decimals) for c in ids)]
        for r in baselines.rows_for(protocol)
        if r.values
    ]
    return Table(
        headers,
        rows,
        numeric=(False, *(True for _ in ids)),
        caption=baselines.MEM0_MISLABEL_NOTE,
        own_numbers=False,
    )


def f1_comparison_blocks(analysis: Analysis, metric: Metric = F1_LOCOMO) -> list[Block]:
    if metric.baseline_protocol is None:
        return []
    ms = analysis.metric(metric.column)
    table = comparison_table(
        ms,
        metric.baseline_protocol,
        metric.overall_includes_excluded,
        metric.decimals,
        sample=analysis.sample_for(metric),
    )
    return [table]


def comparable_j_stats(analysis: Analysis) -> MetricStats | None:
    """This run's J as it may face the Mem0 paper's J: binary protocol only, and with
    adversarial questions left out (the paper excludes them) even if they were judged."""
    ms = analysis.metric(J.column)
    judge = analysis.judge
    if ms is None or judge_baseline_protocol(judge.protocol if judge else None) is None:
        return None
    if ms.overall_includes_excluded:
        return metric_stats(analysis.results, J, PARTS, False)
    return ms


def judge_comparison_blocks(analysis: Analysis) -> list[Block]:
    ms = analysis.metric(J.column)
    judge = analysis.judge
    protocol = judge.protocol if judge else None
    published = baselines.PROTOCOL_MEM0_J
    if ms is None:
        return [
            Paragraph("No judge scores in this folder (run `locoscore judge`); published J:"),
            comparison_table(None, published, False, J.decimals),
        ]
    model = judge.config.get("model", "?") if judge else "?"
    sample = analysis.sample_for(J)
    comparable = comparable_j_stats(analysis)
    if comparable is not None:
        table = comparison_table(
            comparable, published, False, J.decimals, with_std=True, sample=sample
        )
        notes = [
            "This run's ± is the std of J across repeat indices (judge noise), the meaning of "
            "the Mem0 paper's ±; the 95 % intervals in the breakdown below measure precision."
        ]
        if ms.overall_includes_excluded:
            notes.append(
                "This run also judged adversarial questions; they are left out of this table, "
                "as in the Mem0 paper's protocol."
            )
        paper_models = {r.judge_model for r in baselines.rows_for(published)}
        if model not in paper_models:
            notes.append(
                f"Same binary protocol, different judge: this run's verdicts come from {model}, "
                f"the published ones from {', '.join(sorted(m for m in paper_models if m))}; "
                "a gap between them can be the judges' as well as the systems'."
            )
        return [table, Paragraph(" ".join(notes))]
    ours = comparison_table(
        ms, "none", ms.overall_includes_excluded, J.decimals, True, sample=sample
    )
    return [
        ours,
        Paragraph(
            f"This run's J uses the {protocol or 'unknown'} judge protocol ({model}, a 0-100 "
            "graded score), while the published J is the share of answers a binary "
            "CORRECT/WRONG gpt-4o-mini judge accepted. The scales differ, so the published "
            "rows below are context, not a comparison."
        ),
        comparison_table(None, published, False, J.decimals),
    ]


def _lat(stat: LatencyStats | None, attr: str) -> str:
    return seconds(getattr(stat, attr)) if stat is not None else DASH


def latency_comparison_table(analysis: Analysis) -> Table:
    lat = analysis.latency
    search, total, tokens = (
        lat.get(k) for k in ("search_latency_s", "total_latency_s", "context_tokens")
    )
    headers = [
        "System",
        "search p50",
        "search p95",
        "total p50",
        "total p95",
        "context tokens (mean)",
        "Source",
    ]
    sample = analysis.rows_sample
    ours = [
        "This run" if sample is None else sample_label(sample),
        _lat(search, "p50"),
        _lat(search, "p95"),
        _lat(total, "p50"),
        _lat(total, "p95"),
        DASH if tokens is None else fmt(tokens.mean, 0),
        "locoscore",
    ]
    rows = [ours] + [
        [
            r.system,
            seconds(r.search_p50),
            seconds(r.search_p95),
            seconds(r.total_p50),
            seconds(r.total_p95),
            fmt(r.context_tokens, 0),
            r.source.cite(),
        ]
        for r in baselines.LATENCY_ROWS
    ]
    numeric = (False, True, True, True, True, True, False)
    if sample is None:
        return Table(headers, rows, frozenset({0}), numeric)
    subset = str(sample.get("signature"))
    return Table(headers, rows, frozenset({0}), numeric, subset_note(sample), subset=subset)


# ---- the seed's names: markdown strings ------------------------------------------------


def format_f1_comparison_table(analysis: Analysis, metric: Metric = F1_LOCOMO) -> str:
    """This run's F1 (or BLEU-1) next to the published rows of the same protocol."""
    return render_markdown(f1_comparison_blocks(analysis, metric)).rstrip("\n")


def format_judge_comparison_table(analysis: Analysis) -> str:
    """This run's J (± std across runs) next to the Mem0 paper's J when the scales agree."""
    return render_markdown(judge_comparison_blocks(analysis)).rstrip("\n")


def format_latency_comparison_table(analysis: Analysis) -> str:
    return render_table(latency_comparison_table(analysis))
