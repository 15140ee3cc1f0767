"""Comparison tables: this run next to published rows of the same protocol, and only those.

Columns follow the LoCoMo paper's order (single-hop id 4, multi-hop 1, temporal 2,
open-domain 3, adversarial 5 where the protocol includes it, overall).
"""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.metrics import F1_LOCOMO, J, Metric, judge_baseline_protocol
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.generic.baseline_tables import comparison_figure as generic_figure
from locoscore.generic.baseline_tables import comparison_table as generic_table
from locoscore.generic.baseline_tables import latency_comparison_table as generic_latency
from locoscore.generic.baseline_tables import sample_label as sample_label
from locoscore.generic.baseline_tables import shown_groups
from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.metric_stats import MetricStats, metric_stats
from locoscore.report.document import Block, Paragraph, Table
from locoscore.report.markdown import render_markdown, render_table
from locoscore.report.numbers import DASH as DASH
from locoscore.report.numbers import fmt as fmt


def category_ids(includes_adversarial: bool) -> list[int]:
    return shown_groups(GROUPS, includes_adversarial)


def comparison_table(
    ms: MetricStats | None,
    protocol: str,
    includes_adversarial: bool,
    decimals: int,
    with_std: bool = False,
    sample: dict[str, Any] | None = None,
) -> Table:
    """This run's row (`ms`; with `sample`, marked as a subset) above the published ones."""
    published = baselines.rows_for(protocol)
    return generic_table(ms, published, GROUPS, includes_adversarial, decimals, with_std, sample)


def comparison_figure(
    ms: MetricStats, judge_protocol: str | None = None, sample: dict[str, Any] | None = None
) -> list[Block]:
    """This run's per-category bars beside the same protocol's published ones."""
    metric = ms.metric
    protocol = judge_baseline_protocol(judge_protocol) if metric.is_judge else None
    protocol = protocol or (None if metric.is_judge else metric.baseline_protocol)
    published = None if protocol is None else baselines.rows_for(protocol)
    return generic_figure(ms, GROUPS, published, sample)


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


def latency_comparison_table(analysis: Analysis) -> Table:
    return generic_latency(analysis, baselines.LATENCY_ROWS)


# ---- the seed's names: markdown strings ------------------------------------------------


def format_f1_comparison_table(analysis: Analysis, metric: Metric = F1_LOCOMO) -> str:
    """This run's F1 (or BLEU-1) next to the published rows of the same protocol."""
    return render_markdown(f1_comparison_blocks(analysis, metric)).rstrip("\n")


def format_judge_comparison_table(analysis: Analysis) -> str:
    """This run's J (± std across runs) next to the Mem0 paper's J when the scales agree."""
    return render_markdown(judge_comparison_blocks(analysis)).rstrip("\n")


def format_latency_comparison_table(analysis: Analysis) -> str:
    return render_table(latency_comparison_table(analysis))
